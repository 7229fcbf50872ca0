package aggregate

import (
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
)

// benchRun runs node over batches once per iteration and reports ns/row.
func benchRun(b *testing.B, plans aggPlans, in []col, batches []*columnar.Batch, rows int) {
	n := plans.partial
	schema := fieldsOf(b, in)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		src := &source{schema: schema, batches: batches}
		op, err := New(n, src, nil)
		if err != nil {
			b.Fatal(err)
		}
		ctx := newCtx()
		ctx.Conf.BatchSize = 8192
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
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}

// 1M rows, 4 groups: sum(decimal(12,2)) and count(*) grouped by a string key (Partial mode).
func BenchmarkStringKeyDecimalSum(b *testing.B) {
	in := []col{{"k", "string", 1}, {"v", "decimal(12,2)", 2}}
	aggs := []aggFn{{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "decimal(22,2)", buffers: []string{"decimal(22,2)", "boolean"}},
		{class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(b, in, []int{0}, aggs)
	const rows, size = 1 << 20, 8192
	keys := []string{"RETURNED", "NONE", "AIR", "TRUCK"}
	var batches []*columnar.Batch
	for lo := 0; lo < rows; lo += size {
		ks := make([]string, size)
		vs := make([]*big.Int, size)
		for i := range ks {
			ks[i] = keys[(lo+i)*7%4]
			vs[i] = big.NewInt(int64((lo+i)%100000) * 37)
		}
		batches = append(batches, columnar.NewBatch([]arrow.Array{strCol(ks, nil), decCol(12, 2, vs, nil)}, size))
	}
	benchRun(b, plans, in, batches, rows)
}

// 1M rows, 100k groups: sum(long) and count(*) grouped by a long key (Partial mode).
func BenchmarkLongKey100kGroups(b *testing.B) {
	in := []col{{"k", "long", 1}, {"v", "long", 2}}
	aggs := []aggFn{{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}},
		{class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(b, in, []int{0}, aggs)
	const rows, size = 1 << 20, 8192
	var batches []*columnar.Batch
	x := uint64(88172645463325252)
	for lo := 0; lo < rows; lo += size {
		ks := make([]int64, size)
		vs := make([]int64, size)
		for i := range ks {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			ks[i] = int64(x%100000) * 1000003
			vs[i] = int64(i)
		}
		batches = append(batches, columnar.NewBatch([]arrow.Array{i64Col(ks, nil), i64Col(vs, nil)}, size))
	}
	benchRun(b, plans, in, batches, rows)
}
