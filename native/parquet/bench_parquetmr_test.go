package parquet

import (
	"encoding/json"
	"math"
	"os"
	"syscall"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	bmem "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// BenchmarkReadParquetMR reads the Parquet file Spark (parquet-mr) wrote at
// $BOLIDE_PARQUETMR_BENCH, every column and TPC-H Q1's when the file is lineitem. parquet-mr lists
// BIT_PACKED in the encodings of every chunk of v1 pages, which once sent them all to parquet-go;
// this measures what the own page reader gains on them. To make such a file from the TPC-H data:
//
//	spark.read.parquet("data/tpch/sf0.1/lineitem").coalesce(1).write.parquet("/tmp/lineitem-mr")
//
// (spark-shell of data/spark/spark-4.1.3), then BOLIDE_PARQUETMR_BENCH=/tmp/lineitem-mr/part-....parquet.
// It compiles without the code it measures, so that the same benchmark runs on older commits.
func BenchmarkReadParquetMR(b *testing.B) {
	path := os.Getenv("BOLIDE_PARQUETMR_BENCH")
	if path == "" {
		b.Skip("BOLIDE_PARQUETMR_BENCH is not set: the path of a Parquet file written by Spark")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	pf, err := pq.OpenFile(f, fi.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	var all []sparktype.Field
	for _, kv := range pf.Metadata().KeyValueMetadata {
		if kv.Key == "org.apache.spark.sql.parquet.row.metadata" {
			st, err := sparktype.Parse(json.RawMessage(kv.Value))
			if err != nil {
				b.Fatal(err)
			}
			all = st.Fields()
		}
	}
	if all == nil {
		b.Fatal("no Spark schema in the footer: not written by Spark")
	}
	rows := pf.NumRows()
	b.Run("all", func(b *testing.B) { benchReadMR(b, path, all, rows) })
	var q1 []sparktype.Field
	for _, f := range all {
		switch f.Name {
		case "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate":
			q1 = append(q1, f)
		}
	}
	if len(q1) == 7 {
		b.Run("q1_columns", func(b *testing.B) { benchReadMR(b, path, q1, rows) })
	}
}

func benchReadMR(b *testing.B, path string, fs []sparktype.Field, rows int64) {
	alloc := bmem.NewTaskAllocator(nil)
	b.ReportAllocs()
	cpu0 := cpuNanos(b)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, alloc)
		if err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for {
			bt, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if bt == nil {
				break
			}
			n += int64(bt.NumRows)
			bt.Release()
		}
		r.Close()
		if n != rows {
			b.Fatalf("%d rows, the file has %d", n, rows)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	// The process's CPU time (user + system, GC workers included): on a machine shared with
	// other work, wall time measures the neighbours as much as the reader.
	b.ReportMetric(float64(cpuNanos(b)-cpu0)/float64(b.N), "cpu-ns/op")
	if alloc.Used() != 0 {
		b.Fatalf("leak: %d bytes", alloc.Used())
	}
}

func cpuNanos(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
