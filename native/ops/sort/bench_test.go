package sort

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	gosort "sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

const benchRows = 1 << 20

// benchData is 1M rows of (s string, k long, v long) in batches of 8192: s one of 20k random
// strings of 4 to 20 bytes, k uniform random, v the row number.
type benchData struct {
	ss     []string
	ks, vs []int64
}

func newBenchData() *benchData {
	rng := rand.New(rand.NewPCG(42, 42))
	dict := make([]string, 20000)
	for i := range dict {
		buf := make([]byte, 4+rng.IntN(17))
		for j := range buf {
			buf[j] = byte('a' + rng.IntN(26))
		}
		dict[i] = string(buf)
	}
	d := &benchData{ss: make([]string, benchRows), ks: make([]int64, benchRows), vs: make([]int64, benchRows)}
	for i := range d.ss {
		d.ss[i] = dict[rng.IntN(len(dict))]
		d.ks[i] = int64(rng.Uint64())
		d.vs[i] = int64(i)
	}
	return d
}

// source returns the rows as batches of 8192, with the string column or without it.
func (d *benchData) source(withString bool) *coltest.Source {
	src := &coltest.Source{Fields: []sparktype.Field{{Name: "k", Type: sparktype.LongType}, {Name: "v", Type: sparktype.LongType}}}
	if withString {
		src.Fields = append([]sparktype.Field{{Name: "s", Type: sparktype.StringType}}, src.Fields...)
	}
	for lo := 0; lo < benchRows; lo += 8192 {
		var cols []arrow.Array
		if withString {
			sb := array.NewStringBuilder(coltest.Mem)
			sb.AppendValues(d.ss[lo:lo+8192], nil)
			cols = append(cols, sb.NewArray())
			sb.Release()
		}
		for _, vals := range [][]int64{d.ks, d.vs} {
			b := array.NewInt64Builder(coltest.Mem)
			b.AppendValues(vals[lo:lo+8192], nil)
			cols = append(cols, b.NewArray())
			b.Release()
		}
		src.Batches = append(src.Batches, columnar.NewBatch(cols, 8192))
	}
	return src
}

func nsPerRow(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkSort1M sorts 1M rows natively, (k long, v long) by k and (s string, k long, v long) by
// (s, k): key evaluation and the copy into task memory, the sort, the gather of the sorted output
// batches. In the same run Go's sort.Slice sorts the same rows as structs ({k, v} by k, {s, k, v}
// by s then k): values only, nothing to gather, the floor of a plain Go sort.
func BenchmarkSort1M(b *testing.B) {
	d := newBenchData()
	for _, c := range []struct {
		name       string
		withString bool
		names      []string
		keys       []refKey
	}{
		{"long", false, []string{"long", "long"}, []refKey{{col: 0, kind: sparktype.Long}}},
		{"string,long", true, []string{"string", "long", "long"},
			[]refKey{{col: 0, kind: sparktype.String}, {col: 1, kind: sparktype.Long}}},
	} {
		src := d.source(c.withString)
		orders := ordersFor(b, c.names, c.keys)
		b.Run(c.name+"/bolide", func(b *testing.B) {
			for b.Loop() {
				op, err := NewSort(src, orders)
				if err != nil {
					b.Fatal(err)
				}
				runBench(b, op)
			}
			nsPerRow(b)
		})
		src.Release()
	}
	b.Run("long/sort.Slice", func(b *testing.B) {
		type row struct{ k, v int64 }
		rows := make([]row, benchRows)
		for b.Loop() {
			for i := range rows {
				rows[i] = row{d.ks[i], d.vs[i]}
			}
			gosort.Slice(rows, func(i, j int) bool { return rows[i].k < rows[j].k })
		}
		nsPerRow(b)
	})
	b.Run("string,long/sort.Slice", func(b *testing.B) {
		type row struct {
			s    string
			k, v int64
		}
		rows := make([]row, benchRows)
		for b.Loop() {
			for i := range rows {
				rows[i] = row{d.ss[i], d.ks[i], d.vs[i]}
			}
			gosort.Slice(rows, func(i, j int) bool {
				return cmp.Or(cmp.Compare(rows[i].s, rows[j].s), cmp.Compare(rows[i].k, rows[j].k)) < 0
			})
		}
		nsPerRow(b)
	})
}

// BenchmarkTopK1M keeps the first 100 of 1M rows by (string, long).
func BenchmarkTopK1M(b *testing.B) {
	src := newBenchData().source(true)
	defer src.Release()
	orders := ordersFor(b, []string{"string", "long", "long"}, []refKey{{col: 0, kind: sparktype.String}, {col: 1, kind: sparktype.Long}})
	for _, limit := range []int64{100, 10000} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			for b.Loop() {
				op, err := NewTopK(src, orders, limit)
				if err != nil {
					b.Fatal(err)
				}
				runBench(b, op)
			}
			nsPerRow(b)
		})
	}
}

func runBench(b *testing.B, op exec.Operator) {
	alloc := bmemory.NewTaskAllocator(nil)
	ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: 8192}}
	if err := op.Open(ctx); err != nil {
		b.Fatal(err)
	}
	rows := 0
	for {
		out, err := op.Next()
		if err != nil {
			b.Fatal(err)
		}
		if out == nil {
			break
		}
		rows += out.NumRows
		out.Release()
	}
	op.Close()
	alloc.ReleaseAll()
	if rows == 0 {
		b.Fatal("no rows")
	}
}
