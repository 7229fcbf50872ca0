package parquet

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	pq "github.com/parquet-go/parquet-go"

	bmem "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// BenchmarkDenseTake reads TPC-H Q1's columns the way its filter does: l_shipdate as dictionary
// codes, a selection of the ~98% of rows whose date passes (scattered over every batch, as in
// lineitem, which is ordered by order key), then each other column for the selected rows only
// (LazyBatch.Take). One sub-benchmark per column (the others skipped), and all of them.
func BenchmarkDenseTake(b *testing.B) {
	const n = benchRows
	str := func(vals ...string) func(int) (pq.Value, any) {
		return func(i int) (pq.Value, any) {
			s := vals[(i*7)%len(vals)]
			return pq.ByteArrayValue([]byte(s)), s
		}
	}
	dec := pq.Decimal(2, 15, pq.Int64Type)
	cols := []tcol{
		{"l_shipdate", pq.Encoded(pq.Date(), &pq.RLEDictionary), sparktype.DateType, gInt32(0, func(i int) int32 { return int32(8000 + i*7919%2500) })},
		{"l_returnflag", pq.Encoded(pq.String(), &pq.RLEDictionary), sparktype.StringType, str("A", "N", "R")},
		{"l_linestatus", pq.Encoded(pq.String(), &pq.RLEDictionary), sparktype.StringType, str("F", "O")},
		{"l_quantity", pq.Encoded(dec, &pq.RLEDictionary), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i*31%50+1) * 100 })},
		{"l_extendedprice", pq.Encoded(dec, &pq.RLEDictionary), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i*7919%1000000) + 90000 })},
		{"l_discount", pq.Optional(pq.Encoded(dec, &pq.RLEDictionary)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i * 13 % 11) })},
		{"l_price_plain", pq.Optional(dec), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i*7919%10000000) + 90000 })},
	}
	path := writeFile(b, cols, n, pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(128*1024))
	fs := fields(cols)
	const cut = 8000 + 2450 // keeps 98% of the dates
	run := func(b *testing.B, which []int) {
		mem := bmem.NewTaskAllocator(nil)
		b.ReportAllocs()
		for it := 0; it < b.N; it++ {
			r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs, BatchSize: 4096}, mem)
			if err != nil {
				b.Fatal(err)
			}
			var sel []int32
			for {
				lb, err := r.NextLazy()
				if err != nil {
					b.Fatal(err)
				}
				if lb == nil {
					break
				}
				codes, dict, ok, err := lb.Codes(0)
				if err != nil || !ok {
					b.Fatalf("codes: %v %v", ok, err)
				}
				dv := dict.(*array.Date32).Date32Values()
				sel = sel[:0]
				for i, c := range codes {
					if int(c) < len(dv)-1 && dv[c] < cut {
						sel = append(sel, int32(i))
					}
				}
				for _, j := range which {
					a, err := lb.Take(j, sel)
					if err != nil {
						b.Fatal(err)
					}
					a.Release()
				}
				lb.Release()
			}
			r.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	}
	for j, c := range cols {
		b.Run(c.name, func(b *testing.B) { run(b, []int{j}) })
	}
	b.Run("q1_all", func(b *testing.B) { run(b, []int{0, 1, 2, 3, 4, 5}) })
}
