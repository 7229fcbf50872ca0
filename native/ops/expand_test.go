package ops

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

var everyType = []string{"boolean", "byte", "short", "integer", "long", "float", "double", "decimal(10,2)",
	"decimal(38,10)", "string", "binary", "date", "timestamp", "timestamp_ntz"}

func expandValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return int64(int8(rng.Uint32()))
	case sparktype.Short:
		return int64(int16(rng.Uint32()))
	case sparktype.Int, sparktype.Date:
		return int64(int32(rng.Uint32()))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return int64(rng.Uint64())
	case sparktype.Float, sparktype.Double:
		v := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(-1), 1.5, -2.25}[rng.IntN(6)]
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		v := new(big.Int).SetUint64(rng.Uint64())
		return v.Mod(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil))
	case sparktype.String, sparktype.Binary:
		return strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(5)) + "é"
	}
	panic(ty)
}

func attrJSON(ty sparktype.Type, ordinal int) string {
	return fmt.Sprintf(`{"class":"%sAttributeReference","dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat, ty.String(), ordinal, ordinal)
}

func literalJSON(ty sparktype.Type, value string) string {
	return fmt.Sprintf(`{"class":"%sLiteral","dataType":%q,"nullable":true,"fields":{"value":%s}}`, cat, ty.String(), value)
}

// TestExpandEveryTypeAndNulls: a rollup-like expansion over every type (columns kept, kept in
// every other projection, or nulled, a grouping id, and a column passed through by every
// projection), in Spark's order, across batch sizes smaller and larger than the expansion.
func TestExpandEveryTypeAndNulls(t *testing.T) {
	types := coltest.Types(t, everyType...)
	rng := rand.New(rand.NewPCG(7, 8))
	rows := coltest.GenRows(rng, types, 500, 0.2, expandValue)
	const nproj = 3
	// Output: for each input column c, projection p keeps it when p == 0, or p == 1 and c is even;
	// then spark_grouping_id = p; then column 0 in every projection.
	var outTypes []sparktype.Type
	projections := make([][]expr.Expr, nproj)
	for p := 0; p < nproj; p++ {
		for c, ty := range types {
			if p == 0 || (p == 1 && c%2 == 0) {
				projections[p] = append(projections[p], translateExpr(t, attrJSON(ty, c)))
			} else {
				projections[p] = append(projections[p], translateExpr(t, literalJSON(ty, "null")))
			}
		}
		projections[p] = append(projections[p], translateExpr(t, literalJSON(sparktype.LongType, fmt.Sprint(p))))
		projections[p] = append(projections[p], translateExpr(t, attrJSON(types[0], 0)))
	}
	outTypes = append(append(append(outTypes, types...), sparktype.LongType), types[0])
	same := make([]bool, len(outTypes))
	same[len(outTypes)-1] = true
	var want [][]any
	for _, r := range rows {
		for p := 0; p < nproj; p++ {
			var o []any
			for c := range types {
				if p == 0 || (p == 1 && c%2 == 0) {
					o = append(o, r[c])
				} else {
					o = append(o, nil)
				}
			}
			want = append(want, append(o, int64(p), r[0]))
		}
	}
	for _, batchSize := range []int{1, 2, 7, 1024} {
		src := coltest.NewSource(t, rng, types, rows, 50)
		op, err := NewExpand(src, projections, same, coltest.Fields(outTypes))
		if err != nil {
			t.Fatal(err)
		}
		got, err := coltest.Drain(t, op, coltest.NewCtx(batchSize), max(batchSize, nproj))
		if err != nil {
			t.Fatal(err)
		}
		coltest.CompareRows(t, fmt.Sprintf("batch size %d", batchSize), got, want)
		src.Release()
	}
}

// TestExpandSingleProjection passes whole batches through; an empty input gives no rows.
func TestExpandSingleProjection(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(9, 10))
	rows := coltest.GenRows(rng, types, 100, 0.3, expandValue)
	proj := [][]expr.Expr{{translateExpr(t, attrJSON(types[1], 1)), translateExpr(t, attrJSON(types[0], 0))}}
	var want [][]any
	for _, r := range rows {
		want = append(want, []any{r[1], r[0]})
	}
	src := coltest.NewSource(t, rng, types, rows, 30)
	defer src.Release()
	op, err := NewExpand(src, proj, nil, coltest.Fields([]sparktype.Type{types[1], types[0]}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := coltest.Drain(t, op, coltest.NewCtx(64), 64)
	if err != nil {
		t.Fatal(err)
	}
	coltest.CompareRows(t, "single projection", got, want)

	empty := coltest.EmptySource(t, types, 2)
	defer empty.Release()
	op, _ = NewExpand(empty, proj, nil, coltest.Fields([]sparktype.Type{types[1], types[0]}))
	if got, err := coltest.Drain(t, op, coltest.NewCtx(64), 64); err != nil || len(got) != 0 {
		t.Errorf("empty input: %d rows, %v", len(got), err)
	}
}

func TestExpandRefusesMismatchedTypes(t *testing.T) {
	types := coltest.Types(t, "long")
	proj := [][]expr.Expr{{translateExpr(t, attrJSON(types[0], 0))}, {translateExpr(t, literalJSON(sparktype.IntType, "1"))}}
	_, err := NewExpand(&coltest.Source{Fields: coltest.Fields(types)}, proj, nil, coltest.Fields(types))
	if err == nil || !strings.Contains(err.Error(), "expand projection 1, column c0") {
		t.Errorf("got %v", err)
	}
}

// BenchmarkExpandRollup: a three-level rollup over four long columns (two kept, nulled in turn, two
// passed through), 8192-row batches.
func BenchmarkExpandRollup(b *testing.B) {
	types := coltest.Types(b, "long", "long", "long", "long")
	rng := rand.New(rand.NewPCG(1, 2))
	rows := coltest.GenRows(rng, types, 8192, 0.1, expandValue)
	src := &coltest.Source{Fields: coltest.Fields(types)}
	full := coltest.NewSource(b, rng, types, rows, 8192*2)
	src.Batches = full.Batches
	lit := func(ty sparktype.Type, v string) expr.Expr {
		e, err := expr.Translate(parseExpr(b, literalJSON(ty, v)), &plan.Conf{})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	col := func(i int) expr.Expr {
		e, err := expr.Translate(parseExpr(b, attrJSON(types[i], i)), &plan.Conf{})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	var projections [][]expr.Expr
	for p := 0; p < 3; p++ {
		proj := []expr.Expr{col(2), col(3)}
		for k := 0; k < 2; k++ {
			if k < 2-p {
				proj = append(proj, col(k))
			} else {
				proj = append(proj, lit(sparktype.LongType, "null"))
			}
		}
		projections = append(projections, append(proj, lit(sparktype.LongType, fmt.Sprint(p))))
	}
	schema := coltest.Fields(append(append([]sparktype.Type{}, types...), sparktype.LongType))
	same := []bool{true, true, false, false, false}
	ctx := coltest.NewCtx(8192)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op, err := NewExpand(src, projections, same, schema)
		if err != nil {
			b.Fatal(err)
		}
		if err := op.Open(ctx); err != nil {
			b.Fatal(err)
		}
		for {
			out, err := op.Next()
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
			out.Release()
		}
		op.Close()
	}
	b.SetBytes(int64(len(rows)) * 3 * 5 * 8)
	full.Release()
}

func parseExpr(t testing.TB, js string) *plan.Expr {
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatal(err)
	}
	return &e
}
