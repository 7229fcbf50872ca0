package parquet

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"

	bmem "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

const benchRows = 1 << 20

// benchRead reads the file with the production C allocator ("c") and with arrow's Go allocator
// ("go"), which isolates the reader's own cost from calloc/free.
func benchRead(b *testing.B, path string, fs []sparktype.Field) {
	b.Run("c", func(b *testing.B) { benchReadWith(b, path, fs, false) })
	b.Run("go", func(b *testing.B) { benchReadWith(b, path, fs, true) })
}

func benchReadWith(b *testing.B, path string, fs []sparktype.Field, goAlloc bool) {
	var alloc memory.Allocator
	var used func() int64
	if goAlloc {
		c := memory.NewCheckedAllocator(memory.NewGoAllocator())
		alloc, used = c, func() int64 { return int64(c.CurrentAlloc()) }
	} else {
		c := bmem.NewTaskAllocator(nil)
		alloc, used = c, c.Used
	}
	b.ReportAllocs()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, alloc)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			bt, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if bt == nil {
				break
			}
			n += bt.NumRows
			bt.Release()
		}
		r.Close()
		if n != benchRows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
	if used() != 0 {
		b.Fatalf("leak: %d bytes", used())
	}
}

func BenchmarkReadInt64Column(b *testing.B) {
	for _, tc := range []struct {
		name string
		node pq.Node
		gen  func(int) (pq.Value, any)
	}{
		{"required_plain_uncompressed", pq.Required(pq.Encoded(pq.Int(64), &pq.Plain)), gInt64(0, func(i int) int64 { return int64(i) * 7 })},
		{"required_plain", pq.Required(pq.Encoded(pq.Int(64), &pq.Plain)), gInt64(0, func(i int) int64 { return int64(i) * 7 })},
		{"optional_plain_nonulls", pq.Optional(pq.Encoded(pq.Int(64), &pq.Plain)), gInt64(0, func(i int) int64 { return int64(i) * 7 })},
		{"optional_plain_10pct_nulls", pq.Optional(pq.Encoded(pq.Int(64), &pq.Plain)), gInt64(10, func(i int) int64 { return int64(i) * 7 })},
		{"optional_dict_50", pq.Optional(pq.Encoded(pq.Int(64), &pq.RLEDictionary)), gInt64(0, func(i int) int64 { return int64(i%50) * 100 })},
		{"optional_delta", pq.Optional(pq.Encoded(pq.Int(64), &pq.DeltaBinaryPacked)), gInt64(0, func(i int) int64 { return int64(i) })},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cols := []tcol{{"v", tc.node, sparktype.LongType, tc.gen}}
			opts := []pq.WriterOption{pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(128 * 1024)}
			if tc.name == "required_plain_uncompressed" {
				opts = opts[1:]
			}
			path := writeFile(b, cols, benchRows, opts...)
			benchRead(b, path, fields(cols))
		})
	}
}

// BenchmarkReadLineitemLike reads 8 columns shaped like TPC-H lineitem's Q1 columns plus a
// comment string.
func BenchmarkReadLineitemLike(b *testing.B) {
	cols := []tcol{
		{"l_quantity", pq.Optional(pq.Encoded(pq.Decimal(2, 15, pq.Int64Type), &pq.RLEDictionary)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i%50+1) * 100 })},
		{"l_extendedprice", pq.Optional(pq.Decimal(2, 15, pq.Int64Type)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i*7919%10000000) + 90000 })},
		{"l_discount", pq.Optional(pq.Encoded(pq.Decimal(2, 15, pq.Int64Type), &pq.RLEDictionary)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i % 11) })},
		{"l_tax", pq.Optional(pq.Encoded(pq.Decimal(2, 15, pq.Int64Type), &pq.RLEDictionary)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i % 9) })},
		{"l_returnflag", pq.Optional(pq.Encoded(pq.String(), &pq.RLEDictionary)), sparktype.StringType, func(i int) (pq.Value, any) {
			s := []string{"A", "N", "R"}[i%3]
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"l_linestatus", pq.Optional(pq.Encoded(pq.String(), &pq.RLEDictionary)), sparktype.StringType, func(i int) (pq.Value, any) {
			s := []string{"F", "O"}[i%2]
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"l_shipdate", pq.Optional(pq.Encoded(pq.Date(), &pq.RLEDictionary)), sparktype.DateType, gInt32(0, func(i int) int32 { return int32(8000 + i%2500) })},
		{"l_comment", pq.Optional(pq.Encoded(pq.String(), &pq.Plain)), sparktype.StringType, func(i int) (pq.Value, any) {
			s := fmt.Sprintf("carefully final deposits %d haggle", i%100000)
			return pq.ByteArrayValue([]byte(s)), s
		}},
	}
	path := writeFile(b, cols, benchRows, pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(128*1024))
	b.Run("q1_columns", func(b *testing.B) { benchRead(b, path, fields(cols[:7])) })
	b.Run("with_comment", func(b *testing.B) { benchRead(b, path, fields(cols)) })
}

// BenchmarkFilteredRead reads lineitem-like columns the way a filter above a scan does, keeping
// the rows whose l_shipdate is in a range: "eager" decodes every column whole and gathers the
// kept rows (the filter before late materialization); "lazy" reads l_shipdate as dictionary codes
// and decodes the other columns for the kept rows only, skipping the pages without any.
func BenchmarkFilteredRead(b *testing.B) {
	const n = benchRows
	cols := []tcol{
		{"l_shipdate", pq.Optional(pq.Encoded(pq.Date(), &pq.RLEDictionary)), sparktype.DateType, gInt32(0, func(i int) int32 { return int32(8000 + i/400) })},
		{"l_extendedprice", pq.Optional(pq.Decimal(2, 15, pq.Int64Type)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i*7919%10000000) + 90000 })},
		{"l_quantity", pq.Optional(pq.Encoded(pq.Decimal(2, 15, pq.Int64Type), &pq.RLEDictionary)), sparktype.DecimalOf(15, 2), gInt64(0, func(i int) int64 { return int64(i%50+1) * 100 })},
		{"l_comment", pq.Optional(pq.Encoded(pq.String(), &pq.Plain)), sparktype.StringType, func(i int) (pq.Value, any) {
			s := fmt.Sprintf("carefully final deposits %d haggle", i%100000)
			return pq.ByteArrayValue([]byte(s)), s
		}},
	}
	// l_shipdate grows by one every 400 rows (a table clustered by date): a range of w days keeps
	// w*400 consecutive rows.
	path := writeFile(b, cols, n, pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(128*1024), pq.PageBufferSize(64<<10))
	fs := fields(cols)
	for _, days := range []int32{1, 50, 1300, 2560} {
		lo, hi := int32(8000+1000), int32(8000+1000)+days
		if days > 2000 {
			lo, hi = 8000+20, 8000+1000000 // 98% of the rows
		}
		keep := func(v int32) bool { return v >= lo && v < hi }
		b.Run(fmt.Sprintf("%d_days/eager", days), func(b *testing.B) {
			mem := bmem.NewTaskAllocator(nil)
			for it := 0; it < b.N; it++ {
				r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, mem)
				if err != nil {
					b.Fatal(err)
				}
				for {
					bt, err := r.Next()
					if err != nil {
						b.Fatal(err)
					}
					if bt == nil {
						break
					}
					var sel []int32
					for i, v := range bt.Cols[0].(*array.Date32).Date32Values() {
						if keep(int32(v)) {
							sel = append(sel, int32(i))
						}
					}
					for _, c := range bt.Cols {
						a, err := columnar.Take(mem, c, sel)
						if err != nil {
							b.Fatal(err)
						}
						a.Release()
					}
					bt.Release()
				}
				r.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
		})
		b.Run(fmt.Sprintf("%d_days/lazy", days), func(b *testing.B) {
			mem := bmem.NewTaskAllocator(nil)
			for it := 0; it < b.N; it++ {
				r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, mem)
				if err != nil {
					b.Fatal(err)
				}
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
					var sel []int32
					for i, c := range codes {
						if int(c) < len(dv)-1 && keep(int32(dv[c])) {
							sel = append(sel, int32(i))
						}
					}
					if len(sel) > 0 {
						for j := range cols {
							a, err := lb.Take(j, sel)
							if err != nil {
								b.Fatal(err)
							}
							a.Release()
						}
					}
					lb.Release()
				}
				r.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
		})
	}
}
