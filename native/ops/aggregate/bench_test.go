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

// cycle repeats distinct batches up to rows rows: a pipeline aggregates batches fresh from the
// scan (in cache), which a few distinct batches model better than 1M rows of input in memory.
func cycle(distinct []*columnar.Batch, rows int) []*columnar.Batch {
	var out []*columnar.Batch
	for n := 0; n < rows; n += distinct[len(out)%len(distinct)].NumRows {
		out = append(out, distinct[len(out)%len(distinct)])
	}
	return out
}

// TPC-H Q1's partial aggregate over 1M rows (8 distinct batches): grouped by two 1-char strings (l_returnflag,
// l_linestatus; 4 groups), sums of decimal(12,2) columns and of the decimal(32,4)/(38,6)
// products, avgs of the decimal(12,2) columns, count(*). The products are input columns here, so
// that the benchmark measures the aggregation only.
func BenchmarkQ1Shape(b *testing.B) {
	in := []col{{"rf", "string", 1}, {"ls", "string", 2}, {"qty", "decimal(12,2)", 3},
		{"price", "decimal(12,2)", 4}, {"disc", "decimal(12,2)", 5}, {"dprice", "decimal(32,4)", 6},
		{"charge", "decimal(38,6)", 7}}
	sum := func(arg int, rt string) aggFn {
		return aggFn{class: "Sum", args: []int{arg}, evalMode: "ANSI", result: rt, buffers: []string{rt, "boolean"}}
	}
	avg := func(arg int) aggFn {
		return aggFn{class: "Average", args: []int{arg}, evalMode: "ANSI", result: "decimal(16,6)",
			buffers: []string{"decimal(22,2)", "long"}}
	}
	aggs := []aggFn{sum(2, "decimal(22,2)"), sum(3, "decimal(22,2)"), sum(5, "decimal(38,4)"),
		sum(6, "decimal(38,6)"), avg(2), avg(3), avg(4), {class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(b, in, []int{0, 1}, aggs)
	const rows, size = 1 << 20, 8192
	groups := [][2]string{{"A", "F"}, {"N", "F"}, {"N", "O"}, {"R", "F"}}
	var batches []*columnar.Batch
	x := uint64(88172645463325252)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for lo := 0; lo < 8*size; lo += size {
		rf, ls := make([]string, size), make([]string, size)
		qty, price, disc, dprice, charge := make([]*big.Int, size), make([]*big.Int, size),
			make([]*big.Int, size), make([]*big.Int, size), make([]*big.Int, size)
		for i := range rf {
			g := groups[next()%4]
			rf[i], ls[i] = g[0], g[1]
			q, p, d, t := int64(next()%50+1)*100, int64(next()%10000000+90000), int64(next()%11), int64(next()%9)
			qty[i], price[i], disc[i] = big.NewInt(q), big.NewInt(p), big.NewInt(d)
			dprice[i] = big.NewInt(p * (100 - d))
			charge[i] = big.NewInt(p * (100 - d) * (100 + t))
		}
		batches = append(batches, columnar.NewBatch([]arrow.Array{strCol(rf, nil), strCol(ls, nil),
			decCol(12, 2, qty, nil), decCol(12, 2, price, nil), decCol(12, 2, disc, nil),
			decCol(32, 4, dprice, nil), decCol(38, 6, charge, nil)}, size))
	}
	benchRun(b, plans, in, cycle(batches, rows), rows)
}

// 1M rows (8 distinct batches), ~10k groups: sum(long) and count(*) grouped by two int keys
// (Partial mode).
func BenchmarkTwoIntKeys10kGroups(b *testing.B) {
	in := []col{{"a", "integer", 1}, {"b", "integer", 2}, {"v", "long", 3}}
	aggs := []aggFn{{class: "Sum", args: []int{2}, evalMode: "ANSI", result: "long", buffers: []string{"long"}},
		{class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(b, in, []int{0, 1}, aggs)
	const rows, size = 1 << 20, 8192
	var batches []*columnar.Batch
	x := uint64(88172645463325252)
	for lo := 0; lo < 8*size; lo += size {
		as, bs := make([]int32, size), make([]int32, size)
		vs := make([]int64, size)
		for i := range as {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			as[i] = int32(x%100) * 7919
			bs[i] = int32(x/100%100) - 50
			vs[i] = int64(i)
		}
		batches = append(batches, columnar.NewBatch([]arrow.Array{i32Col(as, nil), i32Col(bs, nil), i64Col(vs, nil)}, size))
	}
	benchRun(b, plans, in, cycle(batches, rows), rows)
}
