package ops

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/expr"
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
