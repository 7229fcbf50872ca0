package join

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Test values and inputs come from coltest; this file has the join's value domain and its
// expressions.

const cat = "org.apache.spark.sql.catalyst.expressions."

// genValue draws a value of a type from a small domain (so that keys repeat), with edge values
// (NaNs with different payloads, -0.0, extreme integers, long common string prefixes); it is the
// generator the join's tests give coltest.GenRows.
func genValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return []int64{math.MinInt8, -1, 0, 1, 2, math.MaxInt8}[rng.IntN(6)]
	case sparktype.Short:
		return []int64{math.MinInt16, -1, 0, 1, 2, math.MaxInt16}[rng.IntN(6)]
	case sparktype.Int, sparktype.Date:
		return []int64{math.MinInt32, -1, 0, 1, 2, 3, math.MaxInt32}[rng.IntN(7)]
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return []int64{math.MinInt64, -1, 0, 1, 2, 3, 1 << 32, math.MaxInt64}[rng.IntN(8)]
	case sparktype.Float, sparktype.Double:
		v := []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Inf(1), math.Inf(-1),
			0, math.Copysign(0, -1), 1.5, -1, 2}[rng.IntN(9)]
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil)
		limit.Sub(limit, big.NewInt(1))
		vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(12345), limit,
			new(big.Int).Neg(limit)}
		return new(big.Int).Set(vals[rng.IntN(len(vals))])
	case sparktype.String, sparktype.Binary:
		return []string{"", "a", "b", "abcdefghij", "abcdefghik", "\xff\x00", "é"}[rng.IntN(7)]
	}
	panic("genValue: " + ty.String())
}

// ---- expressions ----

func columnJSON(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat+"AttributeReference", typ, ord, ord)
}

// normalizedJSON is a floating key as Spark's NormalizeFloatingNumbers leaves it.
func normalizedJSON(child, typ string) string {
	n := fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{"child":%s}}`, cat+"NormalizeNaNAndZero", typ, child)
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{"child":%s}}`, cat+"KnownFloatingPointNormalized", typ, n)
}

func compareJSON(class, left, right string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":"boolean","nullable":true,"fields":{"left":%s,"right":%s}}`, cat+class, left, right)
}

func translate(t testing.TB, js string) expr.Expr {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	x, err := expr.Translate(&e, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return x
}
