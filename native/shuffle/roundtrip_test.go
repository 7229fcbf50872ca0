package shuffle

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// expected runs a fresh partitioner over the source's batches and returns each partition's input
// rows in order: what reading that partition back must give.
func expected(t testing.TB, src *coltest.Source, p Partitioner) [][][]any {
	t.Helper()
	defer p.Close()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	out := make([][][]any, p.NumPartitions())
	for _, b := range src.Batches {
		ids := make([]int32, b.NumRows)
		if err := p.Partition(ctx, b, ids); err != nil {
			t.Fatal(err)
		}
		for r, row := range coltest.Rows(b) {
			out[ids[r]] = append(out[ids[r]], row)
		}
	}
	return out
}

// roundTrip writes src through p and reads every partition back, comparing it with want.
func roundTrip(t *testing.T, src *coltest.Source, p Partitioner, opts WriterOptions, want [][][]any, targetRows int) WriteResult {
	t.Helper()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	res, err := Write(ctx, src, p, opts, path)
	if err != nil {
		t.Fatal(err)
	}
	if src.Opened != 1 || src.Closed != 1 {
		t.Errorf("input opened %d and closed %d times", src.Opened, src.Closed)
	}
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("writer: %d bytes still held after Write", used)
	}
	if len(res.PartitionLengths) != p.NumPartitions() {
		t.Fatalf("%d partition lengths for %d partitions", len(res.PartitionLengths), p.NumPartitions())
	}
	var rows int64
	for pi, data := range partitionBytes(t, path, res.PartitionLengths) {
		got, _, err := readAll(t, src.Fields, data, targetRows)
		if err != nil {
			t.Fatalf("partition %d: %v", pi, err)
		}
		if (len(want[pi]) == 0) != (len(data) == 0) {
			t.Errorf("partition %d: %d rows in %d bytes", pi, len(want[pi]), len(data))
		}
		coltest.CompareRows(t, fmt.Sprintf("partition %d", pi), got, want[pi])
		rows += int64(len(got))
	}
	if res.Rows != rows {
		t.Errorf("result says %d rows, %d read back", res.Rows, rows)
	}
	var total int64
	for _, l := range res.PartitionLengths {
		total += l
	}
	// Arrow bytes: at least a bit per row and column (a tiny block's metadata may outweigh them).
	if (rows == 0) != (res.UncompressedBytes == 0) || res.UncompressedBytes < rows*int64(len(src.Fields))/8 {
		t.Errorf("%d uncompressed (Arrow) bytes for %d rows in %d bytes", res.UncompressedBytes, rows, total)
	}
	// Per partition (the MapStatus sizes): they add up, and only an empty partition reports 0.
	var sum int64
	for pi, u := range res.PartitionUncompressed {
		sum += u
		if (u == 0) != (len(want[pi]) == 0) {
			t.Errorf("partition %d: %d uncompressed bytes for %d rows", pi, u, len(want[pi]))
		}
	}
	if sum != res.UncompressedBytes || len(res.PartitionUncompressed) != len(res.PartitionLengths) {
		t.Errorf("partitions' uncompressed bytes %v add up to %d, not %d", res.PartitionUncompressed, sum, res.UncompressedBytes)
	}
	return res
}

func hashOn(t testing.TB, n int, types []sparktype.Type, cols ...int) Partitioner {
	t.Helper()
	var keys []exprT
	for _, c := range cols {
		keys = append(keys, colExpr(t, c, types[c].Name))
	}
	p, err := NewHashPartitioner(keys, n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRoundTripEveryTypeAndCodec(t *testing.T) {
	types := coltest.Types(t, allTypes...)
	for _, codec := range allCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(codec), 1))
			rows := coltest.GenRows(rng, types, 3000, 0.2, genValue)
			src := coltest.NewSource(t, rng, types, rows, 700)
			defer src.Release()
			want := expected(t, src, hashOn(t, 7, types, 3, 9, 8))
			res := roundTrip(t, src, hashOn(t, 7, types, 3, 9, 8), WriterOptions{Codec: codec, BlockRows: 128}, want, 300)
			if res.Blocks < 3000/128 {
				t.Errorf("%d blocks for 3000 rows in blocks of 128", res.Blocks)
			}
			if res.WriteNanos <= 0 {
				t.Errorf("write time %d", res.WriteNanos)
			}
		})
	}
}

// TestRoundTripNullAndConstantColumns covers columns that are all null, never null, and
// all-valid slices of a column with nulls elsewhere.
func TestRoundTripNullAndConstantColumns(t *testing.T) {
	types := coltest.Types(t, allTypes...)
	rng := rand.New(rand.NewPCG(2, 2))
	rows := coltest.GenRows(rng, types, 500, 0, genValue)
	for _, r := range rows {
		r[1], r[9], r[0] = nil, nil, nil // all-null byte, string and boolean columns
	}
	src := coltest.NewSource(t, rng, types, rows, 100)
	defer src.Release()
	for _, codec := range []Codec{CodecLZ4, CodecNone} {
		want := expected(t, src, hashOn(t, 3, types, 4))
		src.Pos = 0
		src.Opened, src.Closed = 0, 0
		roundTrip(t, src, hashOn(t, 3, types, 4), WriterOptions{Codec: codec, BlockRows: 64}, want, 1000)
	}
}

func TestRoundTripPartitioners(t *testing.T) {
	types := coltest.Types(t, "long", "string", "double")
	rng := rand.New(rand.NewPCG(3, 3))
	rows := coltest.GenRows(rng, types, 2000, 0.1, genValue)
	src := coltest.NewSource(t, rng, types, rows, 300)
	defer src.Release()
	bounds := func() *columnar.Batch {
		col := coltest.Col(t, types[0], []any{int64(-1 << 40), int64(0), int64(50), int64(1 << 40)})
		return columnar.NewBatch([]arrow.Array{col}, 4)
	}
	for name, mk := range map[string]func() Partitioner{
		"single":     NewSinglePartitioner,
		"roundrobin": func() Partitioner { return NewRoundRobinPartitioner(6, 3) },
		"hash":       func() Partitioner { return hashOn(t, 5, types, 1, 0) },
		"range": func() Partitioner {
			p, err := NewRangePartitioner([]exprT{colExpr(t, 0, "long")}, []RangeOrder{{NullsFirst: true}}, bounds())
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	} {
		t.Run(name, func(t *testing.T) {
			src.Pos, src.Opened, src.Closed = 0, 0, 0
			want := expected(t, src, mk())
			p := mk()
			defer p.Close()
			roundTrip(t, src, p, WriterOptions{Codec: CodecZstd}, want, 0)
		})
	}
}

func TestMorePartitionsThanRows(t *testing.T) {
	types := coltest.Types(t, "integer", "string")
	rng := rand.New(rand.NewPCG(4, 4))
	rows := coltest.GenRows(rng, types, 10, 0.2, genValue)
	src := coltest.NewSource(t, rng, types, rows, 4)
	defer src.Release()
	for _, mk := range []func() Partitioner{
		func() Partitioner { return hashOn(t, 100, types, 0, 1) },
		func() Partitioner { return NewRoundRobinPartitioner(100, 7) },
	} {
		src.Pos, src.Opened, src.Closed = 0, 0, 0
		want := expected(t, src, mk())
		res := roundTrip(t, src, mk(), WriterOptions{Codec: CodecLZ4}, want, 0)
		empty := 0
		for _, l := range res.PartitionLengths {
			if l == 0 {
				empty++
			}
		}
		if empty < 90 {
			t.Errorf("%d empty partitions of 100 for 10 rows", empty)
		}
	}
}

func TestEmptyPartitionsHaveLengthZero(t *testing.T) {
	types := coltest.Types(t, "boolean", "long")
	rng := rand.New(rand.NewPCG(5, 5))
	rows := coltest.GenRows(rng, types, 1000, 0.1, genValue)
	src := coltest.NewSource(t, rng, types, rows, 200)
	defer src.Release()
	want := expected(t, src, hashOn(t, 16, types, 0))
	res := roundTrip(t, src, hashOn(t, 16, types, 0), WriterOptions{Codec: CodecSnappy}, want, 0)
	nonEmpty := 0
	for pi, l := range res.PartitionLengths {
		if (l == 0) != (len(want[pi]) == 0) {
			t.Errorf("partition %d: %d bytes for %d rows", pi, l, len(want[pi]))
		}
		if l > 0 {
			nonEmpty++
		}
	}
	if nonEmpty == 0 || nonEmpty > 3 { // true, false, null
		t.Errorf("%d non-empty partitions", nonEmpty)
	}
}

func TestOneHugePartition(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	const n = 200_000
	lb := array.NewInt64Builder(coltest.Mem)
	sb := array.NewStringBuilder(coltest.Mem)
	var want [][]any
	for i := range n {
		lb.Append(int64(i) * 3)
		s := fmt.Sprintf("row-%d", i%977)
		sb.Append(s)
		if i%1000 == 0 {
			want = append(want, []any{int64(i) * 3, s})
		}
	}
	src := &coltest.Source{Fields: coltest.Fields(types)}
	l, s := lb.NewArray(), sb.NewArray()
	lb.Release()
	sb.Release()
	src.Batches = []*columnar.Batch{columnar.NewBatch([]arrow.Array{l, s}, n)}
	defer src.Release()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	res, err := Write(ctx, src, NewSinglePartitioner(), WriterOptions{Codec: CodecLZ4}, path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != n || res.Blocks != (n+4095)/4096 {
		t.Errorf("%d rows in %d blocks", res.Rows, res.Blocks)
	}
	got, sizes, err := readAll(t, src.Fields, partitionBytes(t, path, res.PartitionLengths)[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows back", len(got))
	}
	for i, w := range want {
		if g := coltest.ShowRow(got[i*1000]); g != coltest.ShowRow(w) {
			t.Fatalf("row %d: %s, want %s", i*1000, g, coltest.ShowRow(w))
		}
	}
	for _, sz := range sizes[:len(sizes)-1] {
		if sz != 4096 {
			t.Fatalf("batch sizes %v", sizes)
		}
	}
}

func TestZeroRowInput(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	for name, src := range map[string]*coltest.Source{
		"no batches":    {Fields: coltest.Fields(types)},
		"empty batches": coltest.EmptySource(t, types, 3),
	} {
		t.Run(name, func(t *testing.T) {
			defer src.Release()
			ctx := coltest.NewCtx(4096)
			defer ctx.Alloc.ReleaseAll()
			path := tempPath(t)
			os.WriteFile(path, []byte("old content"), 0o644) // truncated
			res, err := Write(ctx, src, hashOn(t, 5, types, 0), WriterOptions{Codec: CodecZstd}, path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil || st.Size() != 0 {
				t.Fatalf("data file: %v, %v", st, err)
			}
			if fmt.Sprint(res.PartitionLengths) != "[0 0 0 0 0]" || res.Rows != 0 || res.Blocks != 0 {
				t.Errorf("result %+v", res)
			}
			if src.Closed != 1 {
				t.Errorf("input closed %d times", src.Closed)
			}
			rows, _, err := readAll(t, src.Fields, nil, 0)
			if err != nil || len(rows) != 0 {
				t.Errorf("reading nothing: %d rows, %v", len(rows), err)
			}
		})
	}
}

// TestBufferBudgetEncodesEarly: with many partitions and a small budget, partitions are encoded
// before BlockRows, and the output is the same.
func TestBufferBudgetEncodesEarly(t *testing.T) {
	types := coltest.Types(t, "long", "string", "decimal(12,2)")
	rng := rand.New(rand.NewPCG(6, 6))
	rows := coltest.GenRows(rng, types, 20000, 0.05, genValue)
	src := coltest.NewSource(t, rng, types, rows, 2000)
	defer src.Release()
	want := expected(t, src, NewRoundRobinPartitioner(50, 1))
	res := roundTrip(t, src, NewRoundRobinPartitioner(50, 1),
		WriterOptions{Codec: CodecLZ4, BlockRows: 100000, MaxBufferedBytes: 256 << 10}, want, 0)
	if res.Blocks <= 50 {
		t.Errorf("%d blocks: the budget did not encode early", res.Blocks)
	}
}

func TestReaderConcatenatesSmallBlocks(t *testing.T) {
	types := coltest.Types(t, "integer", "string", "boolean")
	rng := rand.New(rand.NewPCG(7, 7))
	rows := coltest.GenRows(rng, types, 1000, 0.3, genValue)
	src := coltest.NewSource(t, rng, types, rows, 50)
	defer src.Release()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	res, err := Write(ctx, src, NewSinglePartitioner(), WriterOptions{BlockRows: 7}, path)
	if err != nil {
		t.Fatal(err)
	}
	got, sizes, err := readAll(t, src.Fields, partitionBytes(t, path, res.PartitionLengths)[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	coltest.CompareRows(t, "concatenated", got, rows)
	for i, sz := range sizes {
		if sz > 64 || i < len(sizes)-1 && sz < 64-7 {
			t.Fatalf("batch sizes %v (target 64, blocks of 7)", sizes)
		}
	}
}

// ---- errors ----

type failingPartitioner struct {
	n   int
	ids int32 // returned for every row
	err error
}

func (f *failingPartitioner) NumPartitions() int { return f.n }
func (f *failingPartitioner) Close()             {}
func (f *failingPartitioner) Partition(_ *exec.TaskContext, b *columnar.Batch, ids []int32) error {
	for i := range ids[:b.NumRows] {
		ids[i] = f.ids
	}
	return f.err
}

func TestWriteErrors(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(8, 8))
	rows := coltest.GenRows(rng, types, 300, 0.1, genValue)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		p    Partitioner
		opts WriterOptions
		err  error  // from the input
		want string // in the error
	}{
		{"input error", NewSinglePartitioner(), WriterOptions{}, boom, "boom"},
		{"partitioner error", &failingPartitioner{n: 2, err: boom}, WriterOptions{}, nil, "boom"},
		{"id out of range", &failingPartitioner{n: 2, ids: 2}, WriterOptions{}, nil, "partition 2 of 2"},
		{"negative id", &failingPartitioner{n: 2, ids: -1}, WriterOptions{}, nil, "partition -1 of 2"},
		{"no partitions", NewRoundRobinPartitioner(0, 0), WriterOptions{}, nil, "0 partitions"},
		{"bad codec", NewSinglePartitioner(), WriterOptions{Codec: 9}, nil, "codec 9"},
		{"bad zstd level", NewSinglePartitioner(), WriterOptions{Codec: CodecZstd, ZstdLevel: 40}, nil, "zstd level 40"},
		{"bad block rows", NewSinglePartitioner(), WriterOptions{BlockRows: -1}, nil, "block of -1 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := coltest.NewSource(t, rng, types, rows, 100)
			defer src.Release()
			src.Err = tc.err
			ctx := coltest.NewCtx(4096)
			defer ctx.Alloc.ReleaseAll()
			path := tempPath(t)
			_, err := Write(ctx, src, tc.p, tc.opts, path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if src.Closed != 1 {
				t.Errorf("input closed %d times", src.Closed)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("data file left behind: %v", err)
			}
			if used := ctx.Alloc.Used(); used != 0 {
				t.Errorf("%d bytes held after a failed Write", used)
			}
		})
	}
	// A column type blocks cannot carry is refused before the input opens.
	src := &coltest.Source{Fields: []sparktype.Field{{Name: "n", Type: sparktype.NullType}}}
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	if _, err := Write(ctx, src, NewSinglePartitioner(), WriterOptions{}, tempPath(t)); err == nil ||
		!strings.Contains(err.Error(), "cannot be shuffled natively") || src.Opened != 0 || src.Closed != 1 {
		t.Errorf("void column: %v (opened %d, closed %d)", err, src.Opened, src.Closed)
	}
}

func TestParseCodec(t *testing.T) {
	for name, want := range map[string]Codec{"lz4": CodecLZ4, "ZSTD": CodecZstd, " Snappy ": CodecSnappy, "none": CodecNone} {
		if c, err := ParseCodec(name); err != nil || c != want {
			t.Errorf("ParseCodec(%q) = %v, %v", name, c, err)
		}
		if want.String() != strings.ToLower(strings.TrimSpace(name)) {
			t.Errorf("%d.String() = %s", want, want)
		}
	}
	if _, err := ParseCodec("gzip"); err == nil || !strings.Contains(err.Error(), "lz4, zstd, snappy, none") {
		t.Errorf("gzip: %v", err)
	}
	if s := Codec(7).String(); s != "Codec(7)" {
		t.Errorf("Codec(7) = %s", s)
	}
}

// TestChecksums: the partitions' checksums are those Spark's writers put in the checksum file
// (java.util.zip's Adler32, CRC32, CRC32C over the partition's bytes; values from Spark 4.1.3's
// ShuffleChecksumHelper: "hello shuffle" gives 599328034, 2925403780, 300545755; an untouched
// checksum 1, 0, 0).
func TestChecksums(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(9, 9))
	rows := coltest.GenRows(rng, types, 500, 0.1, genValue)
	src := coltest.NewSource(t, rng, types, rows, 100)
	defer src.Release()
	for _, tc := range []struct {
		alg          string
		hello, empty int64
	}{{"ADLER32", 599328034, 1}, {"crc32", 2925403780, 0}, {"CRC32C", 300545755, 0}} {
		src.Pos = 0
		ctx := coltest.NewCtx(4096)
		path := tempPath(t)
		res, err := Write(ctx, src, hashOn(t, 40, types, 0), WriterOptions{Checksum: tc.alg}, path)
		ctx.Alloc.ReleaseAll()
		if err != nil {
			t.Fatal(err)
		}
		newSum := func() hash32 {
			ctx := coltest.NewCtx(1)
			defer ctx.Alloc.ReleaseAll()
			w, err := newWriter(ctx, src, NewSinglePartitioner(), WriterOptions{Checksum: tc.alg})
			if err != nil {
				t.Fatal(err)
			}
			defer w.release()
			return w.checksum()
		}
		h := newSum()
		h.Write([]byte("hello shuffle"))
		if int64(h.Sum32()) != tc.hello {
			t.Errorf("%s(hello shuffle) = %d, Spark's %d", tc.alg, h.Sum32(), tc.hello)
		}
		for pi, data := range partitionBytes(t, path, res.PartitionLengths) {
			h := newSum()
			h.Write(data)
			want := int64(h.Sum32())
			if len(data) == 0 && want != tc.empty {
				t.Errorf("%s of nothing: %d", tc.alg, want)
			}
			if res.Checksums[pi] != want {
				t.Errorf("%s partition %d: %d, want %d", tc.alg, pi, res.Checksums[pi], want)
			}
		}
	}
	ctx := coltest.NewCtx(1)
	defer ctx.Alloc.ReleaseAll()
	if _, err := Write(ctx, src, NewSinglePartitioner(), WriterOptions{Checksum: "md5"}, tempPath(t)); err == nil ||
		!strings.Contains(err.Error(), "ADLER32, CRC32 or CRC32C") {
		t.Errorf("md5: %v", err)
	}
}

type hash32 = interface {
	Write([]byte) (int, error)
	Sum32() uint32
}

// TestWriterAccountsItsMemory: the pending capacity the writer tracks by changes is what its
// buffers hold, the task's account covers it while it runs, and everything is given back.
func TestWriterAccountsItsMemory(t *testing.T) {
	types := coltest.Types(t, allTypes...)
	rng := rand.New(rand.NewPCG(10, 10))
	rows := coltest.GenRows(rng, types, 3000, 0.2, genValue)
	src := coltest.NewSource(t, rng, types, rows, 500)
	defer src.Release()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	w, err := newWriter(ctx, src, hashOn(t, 13, types, 2), WriterOptions{Codec: CodecLZ4, BlockRows: 200, MaxBufferedBytes: 200 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range src.Batches {
		if err := w.add(b); err != nil {
			t.Fatal(err)
		}
		var held int64
		for pi := range w.parts {
			for _, c := range w.cols {
				held += c.partBytes(pi)
			}
		}
		if held != w.pending {
			t.Fatalf("pending buffers hold %d bytes, the writer counts %d", held, w.pending)
		}
		if used := ctx.Alloc.Used(); used < w.pending+w.encoded {
			t.Fatalf("task accounts %d bytes, the writer holds %d", used, w.pending+w.encoded)
		}
	}
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
	w.release()
	if w.pending != 0 || ctx.Alloc.Used() != 0 {
		t.Errorf("after release: pending %d, task %d bytes", w.pending, ctx.Alloc.Used())
	}
}
