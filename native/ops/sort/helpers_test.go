package sort

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	gosort "sort"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Test values and inputs come from coltest; this file has the reference ordering, the sort's value
// domain and its orders.

const cat = "org.apache.spark.sql.catalyst.expressions."

// ---- the reference ordering, written from Spark's rules ----

// refCompare orders two non-null values of a type as Spark does (see keys.go for the sources).
func refCompare(kind sparktype.Kind, x, y any) int {
	switch kind {
	case sparktype.Boolean:
		a, b := x.(bool), y.(bool)
		switch {
		case a == b:
			return 0
		case !a:
			return -1
		}
		return 1
	case sparktype.Float, sparktype.Double:
		a, b := x.(float64), y.(float64)
		an, bn := math.IsNaN(a), math.IsNaN(b)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0 // equal, including -0.0 against 0.0
	case sparktype.Decimal:
		return x.(*big.Int).Cmp(y.(*big.Int))
	case sparktype.String, sparktype.Binary:
		a, b := x.(string), y.(string)
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				if a[i] < b[i] { // bytes are unsigned
					return -1
				}
				return 1
			}
		}
		return len(a) - len(b)
	}
	a, b := x.(int64), y.(int64)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refKey is one key of the reference ordering: a column of the test rows.
type refKey struct {
	col        int
	kind       sparktype.Kind
	desc       bool
	nullsFirst bool
}

func refLess(keys []refKey) func(a, b []any) bool {
	return func(a, b []any) bool {
		for _, k := range keys {
			x, y := a[k.col], b[k.col]
			if x == nil || y == nil {
				if x == nil && y == nil {
					continue
				}
				return (x == nil) == k.nullsFirst
			}
			c := refCompare(k.kind, x, y)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	}
}

// refSort returns the rows stably sorted by keys.
func refSort(rows [][]any, keys []refKey) [][]any {
	out := append([][]any(nil), rows...)
	less := refLess(keys)
	gosort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// ---- inputs ----

// newSource cuts rows into batches of random sizes up to 300 (see coltest.NewSource).
func newSource(t testing.TB, rng *rand.Rand, types []sparktype.Type, rows [][]any) *coltest.Source {
	t.Helper()
	return coltest.NewSource(t, rng, types, rows, 300)
}

// ---- values ----

// genValue draws a value of kind for a column with the given null rate; small domains give
// duplicates, and each type's edge values come up often.
func genValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return pick(rng, []int64{math.MinInt8, math.MaxInt8, -1, 0, 1}, func() int64 { return int64(int8(rng.Uint32())) })
	case sparktype.Short:
		return pick(rng, []int64{math.MinInt16, math.MaxInt16, -1, 0, 1}, func() int64 { return int64(int16(rng.Uint32())) })
	case sparktype.Int, sparktype.Date:
		return pick(rng, []int64{math.MinInt32, math.MaxInt32, -1, 0, 1}, func() int64 { return int64(int32(rng.Uint32())) })
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return pick(rng, []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 1 << 32, -1 << 32}, func() int64 { return int64(rng.Uint64()) })
	case sparktype.Float, sparktype.Double:
		specials := []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Inf(1), math.Inf(-1),
			0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
		v := specials[rng.IntN(len(specials))]
		if rng.IntN(2) == 0 {
			v = float64(rng.IntN(20)-10) / 4
		} else if rng.IntN(3) == 0 {
			v = rng.NormFloat64() * 1e10
		}
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil)
		limit.Sub(limit, big.NewInt(1))
		var v *big.Int
		switch rng.IntN(4) {
		case 0:
			v = big.NewInt(int64(rng.IntN(9) - 4))
		case 1:
			v = new(big.Int).Set(limit)
		default:
			v = new(big.Int).Lsh(new(big.Int).SetUint64(rng.Uint64()), 64)
			v.Add(v, new(big.Int).SetUint64(rng.Uint64()))
			v.Mod(v, new(big.Int).Add(limit, big.NewInt(1)))
			// Values sharing their high word differ only in the low one (wide decimals).
			if ty.Precision > 18 && rng.IntN(2) == 0 {
				v = new(big.Int).Lsh(big.NewInt(int64(rng.IntN(3))), 64)
				v.Add(v, new(big.Int).SetUint64(rng.Uint64()>>uint(rng.IntN(64))))
				if v.Cmp(limit) > 0 {
					v.Set(limit)
				}
			}
		}
		if rng.IntN(2) == 0 {
			v.Neg(v)
		}
		return v
	case sparktype.String, sparktype.Binary:
		prefixes := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghijklmn", "abcdefghijklmno", "\xff\xff\xff\xff\xff\xff\xff\xff"}
		alphabet := "\x00\x01ab\x7f\xc3\xa9\xff"
		s := []byte(prefixes[rng.IntN(len(prefixes))])
		for n := rng.IntN(12); n > 0; n-- {
			s = append(s, alphabet[rng.IntN(len(alphabet))])
		}
		return string(s)
	}
	panic("genValue: " + ty.String())
}

func pick(rng *rand.Rand, specials []int64, random func() int64) int64 {
	switch rng.IntN(3) {
	case 0:
		return specials[rng.IntN(len(specials))]
	case 1:
		return int64(rng.IntN(7) - 3)
	}
	return random()
}

// ---- running ----

// drain reads op to its end in batches of at most the task's batch size (see coltest.Drain).
func drain(t testing.TB, op exec.Operator, ctx *exec.TaskContext) ([][]any, error) {
	t.Helper()
	return coltest.Drain(t, op, ctx, ctx.BatchSize())
}

// column translates a bound AttributeReference to input column ord of type typ.
func columnExpr(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat+"AttributeReference", typ, ord, ord)
}

func sortOrderJSON(child, direction, nulls string) string {
	f := fmt.Sprintf(`"child":%s,"direction":%q,"sameOrderExpressions":[]`, child, direction)
	if nulls != "" {
		f += fmt.Sprintf(`,"nullOrdering":%q`, nulls)
	}
	return fmt.Sprintf(`{"class":%q,"dataType":"unresolved","nullable":true,"fields":{%s}}`, cat+"SortOrder", f)
}

func decodeOrders(t testing.TB, orders ...string) ([]Order, error) {
	t.Helper()
	es := make([]*plan.Expr, len(orders))
	for i, o := range orders {
		if err := json.Unmarshal([]byte(o), &es[i]); err != nil {
			t.Fatalf("bad test JSON %s: %v", o, err)
		}
	}
	return DecodeOrders(es, &plan.Conf{}, false)
}

// ordersFor builds column orders matching refKeys over columns of the given Spark type names.
func ordersFor(t testing.TB, typeNames []string, keys []refKey) []Order {
	t.Helper()
	js := make([]string, len(keys))
	for i, k := range keys {
		dir, nulls := "Ascending", "NullsLast"
		if k.desc {
			dir = "Descending"
		}
		if k.nullsFirst {
			nulls = "NullsFirst"
		}
		js[i] = sortOrderJSON(columnExpr(k.col, typeNames[k.col]), dir, nulls)
	}
	os, err := decodeOrders(t, js...)
	if err != nil {
		t.Fatal(err)
	}
	return os
}
