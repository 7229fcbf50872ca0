package shuffle

import (
	"fmt"
	"os"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
)

// Run with BOLIDE_MEMCHECK=0 (the checking allocator otherwise tracks and poisons every buffer):
//
//	BOLIDE_MEMCHECK=0 go test -run NONE -bench . -benchtime 5x ./shuffle/
//
// MB/s is uncompressed Arrow bytes of the input (Write) or of the output (Read) per second; B/row
// is the data file's bytes per row, sparkB/row what Spark's own shuffle would write for the rows;
// cpuNs/row is the process's CPU time per row (GC included), steadier than time/op on a shared
// machine: compare runs with benchstat on it.

const benchRows = 1 << 18

var benchCodecs = []struct {
	name string
	opts WriterOptions
}{
	{"lz4", WriterOptions{Codec: CodecLZ4}},
	{"zstd1", WriterOptions{Codec: CodecZstd, ZstdLevel: 1}},
	{"zstd3", WriterOptions{Codec: CodecZstd, ZstdLevel: 3}},
	{"snappy", WriterOptions{Codec: CodecSnappy}},
	{"none", WriterOptions{Codec: CodecNone}},
}

func BenchmarkWrite(b *testing.B) {
	for _, real := range []bool{false, true} {
		bs, what := lineitemBatches(b, benchRows, real)
		if bs == nil {
			continue
		}
		src := &coltest.Source{Fields: lineitemFields(b), Batches: bs}
		size := arrowBytes(bs)
		for _, np := range []int{1, 200} {
			ids := make([][]int32, len(bs))
			p := hashOn(b, np, fieldTypes(src), 0)
			for i, bt := range bs {
				ids[i] = partitionOf(b, p, bt)
			}
			spark := sparkShuffleBytes(bs, ids, np)
			for _, c := range benchCodecs {
				b.Run(fmt.Sprintf("%s/parts=%d/%s", what, np, c.name), func(b *testing.B) {
					path := tempPath(b)
					b.SetBytes(size)
					b.ReportAllocs()
					var res WriteResult
					cpu := processCPU()
					for range b.N {
						src.Pos = 0
						ctx := coltest.NewCtx(8192)
						var err error
						if res, err = Write(ctx, src, hashOn(b, np, fieldTypes(src), 0), c.opts, path); err != nil {
							b.Fatal(err)
						}
						ctx.Alloc.ReleaseAll()
					}
					var total int64
					for _, l := range res.PartitionLengths {
						total += l
					}
					b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
					b.ReportMetric(float64(total)/benchRows, "B/row")
					b.ReportMetric(float64(spark)/benchRows, "sparkB/row")
					b.ReportMetric(float64(res.WriteNanos)/benchRows, "writeNs/row")
					b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/benchRows, "cpuNs/row")
				})
			}
		}
		src.Release()
	}
}

func BenchmarkRead(b *testing.B) {
	bs, what := lineitemBatches(b, benchRows, true)
	if bs == nil {
		bs, what = lineitemBatches(b, benchRows, false)
	}
	src := &coltest.Source{Fields: lineitemFields(b), Batches: bs}
	defer src.Release()
	size := arrowBytes(bs)
	for _, np := range []int{1, 200} {
		for _, c := range benchCodecs {
			// One stream of every partition's blocks: with 200 partitions the blocks are ~1300
			// rows, so the reader also concatenates.
			src.Pos = 0
			ctx := coltest.NewCtx(8192)
			path := tempPath(b)
			if _, err := Write(ctx, src, hashOn(b, np, fieldTypes(src), 0), c.opts, path); err != nil {
				b.Fatal(err)
			}
			ctx.Alloc.ReleaseAll()
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/parts=%d/%s", what, np, c.name), func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				cpu := processCPU()
				for range b.N {
					ctx := coltest.NewCtx(8192)
					r := NewReader(src.Fields, &frames{data: data}, 8192)
					if err := r.Open(ctx); err != nil {
						b.Fatal(err)
					}
					rows := 0
					for {
						bt, err := r.Next()
						if err != nil {
							b.Fatal(err)
						}
						if bt == nil {
							break
						}
						rows += bt.NumRows
						bt.Release()
					}
					r.Close()
					ctx.Alloc.ReleaseAll()
					if rows != benchRows {
						b.Fatalf("%d rows", rows)
					}
				}
				b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/benchRows, "cpuNs/row")
			})
		}
	}
}

// BenchmarkPartition isolates the partitioners over lineitem batches.
func BenchmarkPartition(b *testing.B) {
	bs, _ := lineitemBatches(b, 1<<16, false)
	src := &coltest.Source{Fields: lineitemFields(b), Batches: bs}
	defer src.Release()
	types := fieldTypes(src)
	rangeBounds := func() *columnar.Batch {
		var rows [][]any
		for i := range 199 {
			rows = append(rows, []any{int64(i+1) * 1300})
		}
		return boundsBatch(b, types[:1], rows)
	}
	for name, mk := range map[string]func() Partitioner{
		"hash1": func() Partitioner { return hashOn(b, 200, types, 0) },
		"hash3": func() Partitioner { return hashOn(b, 200, types, 0, 15, 4) },
		"range": func() Partitioner {
			p, _ := NewRangePartitioner([]exprT{colExpr(b, 0, "long")}, []RangeOrder{{}}, rangeBounds())
			return p
		},
		"roundrobin": func() Partitioner { return NewRoundRobinPartitioner(200, 3) },
	} {
		b.Run(name, func(b *testing.B) {
			p := mk()
			defer p.Close()
			ctx := coltest.NewCtx(8192)
			defer ctx.Alloc.ReleaseAll()
			ids := make([]int32, 8192)
			rows := 0
			for range b.N {
				for _, bt := range bs {
					if err := p.Partition(ctx, bt, ids); err != nil {
						b.Fatal(err)
					}
					rows += bt.NumRows
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(rows), "ns/row")
		})
	}
}
