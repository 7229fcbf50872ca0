package shuffle

import (
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestFilesNoLargerThanSpark writes 100k lineitem rows hashed on l_orderkey into 1 to 1000
// partitions with each codec and compares the data file with what Spark's own shuffle would write
// for the same rows (sparkShuffleBytes: UnsafeRows, LZ4 in 32 KiB blocks). Real TPC-H rows when
// the repository's data is there, else dbgen-like rows (which compress within 1% of them).
//
// Measured (tpch and dbgen-like alike): lz4 0.80x Spark's bytes in 1 partition, 0.86x in 200,
// 0.98x in 1000 (100 rows per partition); zstd (level 1) 0.53x, 0.61x, 0.70x; snappy 0.84x to
// 0.98x. Below ~80 rows per partition and map task, lz4 and snappy files pass Spark's (1.10x
// and 1.07x at 20 rows, 5000 partitions; zstd 0.79x): each block carries its IPC record-batch
// metadata, 944 bytes for lineitem's 16 columns and 37 buffers, ~370 after lz4, against Spark's
// 42 bytes of LZ4 stream framing per partition.
func TestFilesNoLargerThanSpark(t *testing.T) {
	const n = 100_000
	bs, what := lineitemBatches(t, n, true)
	if bs == nil {
		t.Logf("no TPC-H data at %s: dbgen-like rows instead", tpchLineitem)
		bs, what = lineitemBatches(t, n, false)
	}
	src := &coltest.Source{Fields: lineitemFields(t), Batches: bs}
	defer src.Release()
	for _, np := range []int{1, 200, 1000} {
		ids := make([][]int32, len(bs))
		p := hashOn(t, np, fieldTypes(src), 0)
		for i, b := range bs {
			ids[i] = partitionOf(t, p, b)
		}
		spark := sparkShuffleBytes(bs, ids, np)
		for _, codec := range []Codec{CodecLZ4, CodecZstd, CodecSnappy} {
			src.Pos, src.Opened, src.Closed = 0, 0, 0
			ctx := coltest.NewCtx(8192)
			res, err := Write(ctx, src, hashOn(t, np, fieldTypes(src), 0), WriterOptions{Codec: codec}, tempPath(t))
			ctx.Alloc.ReleaseAll()
			if err != nil {
				t.Fatal(err)
			}
			var ours int64
			for _, l := range res.PartitionLengths {
				ours += l
			}
			t.Logf("%s lineitem, %d partitions, %s: %.1f B/row, Spark %.1f B/row (%.2fx)",
				what, np, codec, float64(ours)/n, float64(spark)/n, float64(ours)/float64(spark))
			if ours > spark {
				t.Errorf("%s lineitem, %d partitions, %s: %d bytes, Spark would write %d", what, np, codec, ours, spark)
			}
		}
	}
}

func fieldTypes(s *coltest.Source) []sparktype.Type {
	out := make([]sparktype.Type, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Type
	}
	return out
}
