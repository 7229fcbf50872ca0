package shuffle

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// refCompare is Spark's ordering of two test values of one key (SortOrder semantics): nulls by
// the null ordering whatever the direction; floats with -0.0 == 0.0 and NaN greatest.
func refCompare(ty sparktype.Type, o RangeOrder, a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case (a == nil) == o.NullsFirst:
			return -1
		}
		return 1
	}
	var c int
	switch ty.Kind {
	case sparktype.Boolean:
		x, y := a.(bool), b.(bool)
		c = cmp.Compare(b2i(x), b2i(y))
	case sparktype.Float, sparktype.Double:
		x, y := a.(float64), b.(float64)
		switch {
		case x == y || x != x && y != y:
			c = 0
		case x != x:
			c = 1
		case y != y:
			c = -1
		default:
			c = cmp.Compare(x, y)
		}
	case sparktype.Decimal:
		c = a.(*big.Int).Cmp(b.(*big.Int))
	case sparktype.String, sparktype.Binary:
		c = bytes.Compare([]byte(a.(string)), []byte(b.(string)))
	default:
		c = cmp.Compare(a.(int64), b.(int64))
	}
	if o.Descending {
		c = -c
	}
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func refCompareRows(types []sparktype.Type, orders []RangeOrder, a, b []any) int {
	for i, ty := range types {
		if c := refCompare(ty, orders[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// refRangeID is RangePartitioner.getPartition's linear scan: bounds passed while key > bound.
func refRangeID(types []sparktype.Type, orders []RangeOrder, bounds [][]any, key []any) int32 {
	p := 0
	for p < len(bounds) && refCompareRows(types, orders, key, bounds[p]) > 0 {
		p++
	}
	return int32(p)
}

// refBounds sorts candidate key rows by the ordering and keeps distinct ones, as determineBounds
// leaves them.
func refBounds(types []sparktype.Type, orders []RangeOrder, cands [][]any) [][]any {
	slices.SortStableFunc(cands, func(a, b []any) int { return refCompareRows(types, orders, a, b) })
	var out [][]any
	for _, c := range cands {
		if len(out) == 0 || refCompareRows(types, orders, out[len(out)-1], c) < 0 {
			out = append(out, c)
		}
	}
	return out
}

func boundsBatch(t testing.TB, types []sparktype.Type, rows [][]any) *columnar.Batch {
	cols := make([]arrow.Array, len(types))
	for c, ty := range types {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = coltest.Col(t, ty, vals)
	}
	return columnar.NewBatch(cols, len(rows))
}

// checkRange partitions rows (keys in columns 0..len(types)-1) and compares every id with the
// reference.
func checkRange(t *testing.T, rng *rand.Rand, types []sparktype.Type, orders []RangeOrder, bounds, rows [][]any) {
	t.Helper()
	var keys []exprT
	for i, ty := range types {
		keys = append(keys, colExpr(t, i, ty.Name))
	}
	p, err := NewRangePartitioner(keys, orders, boundsBatch(t, types, bounds))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.NumPartitions() != len(bounds)+1 {
		t.Fatalf("%d partitions for %d bounds", p.NumPartitions(), len(bounds))
	}
	src := coltest.NewSource(t, rng, types, rows, 300)
	defer src.Release()
	for _, b := range src.Batches {
		ids := partitionOf(t, p, b)
		for r, row := range coltest.Rows(b) {
			if want := refRangeID(types, orders, bounds, row); ids[r] != want {
				t.Fatalf("%v %v: row %s: partition %d, want %d (bounds %v)", types, orders, coltest.ShowRow(row), ids[r], want, showBounds(bounds))
			}
		}
	}
}

func showBounds(bounds [][]any) string {
	parts := make([]string, len(bounds))
	for i, b := range bounds {
		parts[i] = "[" + coltest.ShowRow(b) + "]"
	}
	return strings.Join(parts, " ")
}

var allOrders = []RangeOrder{{false, true}, {false, false}, {true, true}, {true, false}}

// TestRangeOneKey: every orderable type, both directions and null orderings, bounds with and
// without a null, rows that tie with bounds (-0.0 against 0.0, NaNs of other payloads included).
func TestRangeOneKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for _, name := range allTypes {
		types := coltest.Types(t, name)
		for _, o := range allOrders {
			for _, withNull := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%v/null=%v", name, o, withNull), func(t *testing.T) {
					var cands [][]any
					for range 40 {
						if v := genValue(rng, types[0], 0); v != nil {
							cands = append(cands, []any{v})
						}
					}
					if withNull {
						cands = append(cands, []any{nil})
					}
					bounds := refBounds(types, []RangeOrder{o}, cands)
					rows := coltest.GenRows(rng, types, 1500, 0.1, genValue)
					for i := range rows {
						if i%3 == 0 { // a tie with a bound
							rows[i] = slices.Clone(bounds[rng.IntN(len(bounds))])
						}
					}
					checkRange(t, rng, types, []RangeOrder{o}, bounds, rows)
				})
			}
		}
	}
}

func TestRangeSeveralKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	for _, tc := range []struct {
		types  []string
		orders []RangeOrder
	}{
		{[]string{"integer", "string"}, []RangeOrder{{false, true}, {true, false}}},
		{[]string{"double", "decimal(38,0)", "boolean"}, []RangeOrder{{true, false}, {false, true}, {false, false}}},
		{[]string{"boolean", "date", "binary", "decimal(10,2)"}, []RangeOrder{{false, false}, {true, true}, {false, true}, {true, false}}},
	} {
		types := coltest.Types(t, tc.types...)
		// A small domain per key, so that bounds share prefixes and rows tie on leading keys.
		domain := make([][]any, len(types))
		for i, ty := range types {
			for range 4 {
				domain[i] = append(domain[i], genValue(rng, ty, 0.15))
			}
		}
		draw := func() []any {
			r := make([]any, len(types))
			for i := range r {
				r[i] = domain[i][rng.IntN(len(domain[i]))]
			}
			return r
		}
		var cands [][]any
		for range 30 {
			cands = append(cands, draw())
		}
		bounds := refBounds(types, tc.orders, cands)
		rows := make([][]any, 2000)
		for i := range rows {
			rows[i] = draw()
		}
		checkRange(t, rng, types, tc.orders, bounds, rows)
	}
}

// TestRangeManyBounds: more than 128 bounds (Spark's binary-search path gives the same lower bound).
func TestRangeManyBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	types := coltest.Types(t, "long")
	var cands [][]any
	for i := range 1000 {
		cands = append(cands, []any{int64(i * 10)})
	}
	bounds := refBounds(types, []RangeOrder{{true, false}}, cands)
	rows := make([][]any, 3000)
	for i := range rows {
		rows[i] = []any{int64(rng.IntN(10100) - 50)}
	}
	checkRange(t, rng, types, []RangeOrder{{true, false}}, bounds, rows)
}

func TestRangeEdgeCases(t *testing.T) {
	types := coltest.Types(t, "double")
	key := []exprT{colExpr(t, 0, "double")}
	asc := []RangeOrder{{NullsFirst: true}}
	// No bounds: one partition.
	for _, bounds := range []*columnar.Batch{nil, boundsBatch(t, types, nil)} {
		p, err := NewRangePartitioner(key, asc, bounds)
		if err != nil {
			t.Fatal(err)
		}
		b := boundsBatch(t, types, [][]any{{1.0}, {nil}})
		if p.NumPartitions() != 1 || fmt.Sprint(partitionOf(t, p, b)) != "[0 0]" {
			t.Errorf("no bounds: %d partitions", p.NumPartitions())
		}
		b.Release()
		p.Close()
		p.Close()
	}
	// NaN, +-0.0 and infinities in Spark's order: -Inf < -0.0 == 0.0 < +Inf < NaN.
	bounds := [][]any{{math.Inf(-1)}, {0.0}, {math.Inf(1)}, {math.NaN()}}
	rows := boundsBatch(t, types, [][]any{{math.Copysign(0, -1)}, {math.Float64frombits(0xfff8000000000001)}, {-1e308}, {1e308}, {nil}, {math.Inf(1)}})
	p, err := NewRangePartitioner(key, asc, boundsBatch(t, types, bounds))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(partitionOf(t, p, rows)); got != "[1 3 1 2 0 2]" {
		t.Errorf("doubles: %s, want [1 3 1 2 0 2]", got)
	}
	p.Close()
	rows.Release()

	for _, tc := range []struct {
		name   string
		keys   []exprT
		orders []RangeOrder
		bounds [][]any
		want   string
	}{
		{"unsorted", key, asc, [][]any{{2.0}, {1.0}}, "not strictly increasing"},
		{"duplicate", key, asc, [][]any{{0.0}, {math.Copysign(0, -1)}}, "not strictly increasing"},
		{"null last with nulls first", key, asc, [][]any{{1.0}, {nil}}, "not strictly increasing"},
		{"orders", key, nil, [][]any{{1.0}}, "1 keys and 0 orders"},
		{"columns", []exprT{key[0], key[0]}, []RangeOrder{{}, {}}, [][]any{{1.0}}, "1 columns for 2 keys"},
		{"no keys", nil, nil, nil, "without keys"},
	} {
		_, err := NewRangePartitioner(tc.keys, tc.orders, boundsBatch(t, types, tc.bounds))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// Bound type mismatch.
	lb := boundsBatch(t, coltest.Types(t, "long"), [][]any{{int64(1)}})
	if _, err := NewRangePartitioner(key, asc, lb); err == nil || !strings.Contains(err.Error(), "Arrow type int64") {
		t.Errorf("long bounds for a double key: %v", err)
	}
	// The partitioner releases bounds in task memory, on success and on refusal.
	ctx := coltest.NewCtx(16)
	defer ctx.Alloc.ReleaseAll()
	for _, rows := range [][]any{{1.0, 2.0}, {2.0, 1.0}} {
		src := coltest.Col(t, types[0], rows)
		c, err := columnar.Take(ctx.Alloc, src, []int32{0, 1})
		src.Release()
		if err != nil {
			t.Fatal(err)
		}
		if p, err := NewRangePartitioner(key, asc, columnar.NewBatch([]arrow.Array{c}, 2)); err == nil {
			p.Close()
		}
		if used := ctx.Alloc.Used(); used != 0 {
			t.Errorf("bounds %v: %d bytes still held", rows, used)
		}
	}
}
