package parquet

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestBloomPruning: row groups whose bloom filters hold none of an equality's or IN list's
// values are skipped, though their statistics overlap the values; every matching row still comes
// back.
func TestBloomPruning(t *testing.T) {
	const groups, per = 8, 500
	// Row i is in group i/per and holds values congruent to its group: every group's min and
	// max span nearly the whole range, so statistics prune nothing.
	val := func(i int) int64 { return int64((i%per)*groups + i/per) }
	cols := []tcol{
		{"k", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, val)},
		{"i", pq.Optional(pq.Int(32)), sparktype.IntType, gInt32(0, func(i int) int32 { return int32(val(i)) })},
		{"s", pq.Optional(pq.String()), sparktype.StringType, func(i int) (pq.Value, any) {
			s := fmt.Sprintf("v%05d", val(i))
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"dec", pq.Optional(pq.Decimal(2, 9, pq.Int32Type)), sparktype.DecimalOf(9, 2), func(i int) (pq.Value, any) {
			return pq.Int32Value(int32(val(i))), decimal128.FromI64(val(i))
		}},
		{"nobloom", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, val)},
	}
	path := writeFile(t, cols, groups*per, pq.MaxRowsPerRowGroup(per), pq.BloomFilters(
		pq.SplitBlockFilter(10, "k"), pq.SplitBlockFilter(10, "i"), pq.SplitBlockFilter(10, "s"), pq.SplitBlockFilter(10, "dec")))
	p := func(col, op string, vals ...Value) Predicate { return Predicate{Column: col, Op: op, Values: vals} }
	v3 := val(3*per + 17) // in group 3
	v5 := val(5*per + 1)  // in group 5
	for _, c := range []struct {
		name  string
		pred  Predicate
		read  int // row groups read
		match func(v int64) bool
	}{
		{"long_eq", p("k", "=", v3), 1, func(v int64) bool { return v == v3 }},
		{"long_in", p("k", "in", v3, v5, nil), 2, func(v int64) bool { return v == v3 || v == v5 }},
		{"long_absent", p("k", "=", int64(groups*per+1000)), 0, func(int64) bool { return false }},
		{"int_eq", p("i", "=", v5), 1, func(v int64) bool { return v == v5 }},
		{"int_out_of_range", p("i", "=", int64(math.MaxInt32)+1), 0, func(int64) bool { return false }},
		{"string_eq", p("s", "=", fmt.Sprintf("v%05d", v3)), 1, func(v int64) bool { return v == v3 }},
		{"decimal_eq", p("dec", "=", decimal128.FromI64(v5)), 1, func(v int64) bool { return v == v5 }},
		{"no_filter_written", p("nobloom", "=", v3), groups, func(v int64) bool { return v == v3 }},
		{"range_not_bloom", p("k", "<", int64(1)), 1, func(v int64) bool { return v < 1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &ScanSpec{Columns: fields(cols), Filters: []Predicate{c.pred}}
			rows, st := readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
			// A bloom filter may answer "maybe" for an absent value (about 1% at 10 bits per
			// value): a row group more may be read, never one less.
			if st.RowGroupsRead < c.read || st.RowGroupsRead > c.read+1 {
				t.Fatalf("stats %+v, want %d row groups read", st, c.read)
			}
			if (c.read == groups || c.pred.Op == "<") && st.RowGroupsSkippedByBloom != 0 {
				t.Fatalf("stats %+v: no bloom filter may prune this", st)
			}
			got := 0
			for _, r := range rows {
				if c.match(r[0].(int64)) {
					got++
				}
			}
			want := 0
			for i := 0; i < groups*per; i++ {
				if c.match(val(i)) {
					want++
				}
			}
			if got != want {
				t.Fatalf("%d matching rows back, want %d", got, want)
			}
		})
	}
}
