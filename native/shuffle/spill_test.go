package shuffle

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
)

// spillCtx is a task context whose reservations stop at limit bytes, with its spill files in dir.
func spillCtx(limit int64, dir string) (*exec.TaskContext, *coltest.Reserver) {
	ctx := coltest.NewCtx(4096)
	r := &coltest.Reserver{Limit: limit}
	ctx.Alloc = memory.NewTaskAllocatorFor(r, 4*limit)
	ctx.Spill = memory.NewSpillFiles([]string{dir})
	return ctx, r
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriterSpillsUnderATinyBudget: with reservations capped far below what the encoded blocks
// take, Write spills instead of failing; every partition reads back the same rows as without a
// limit, the checksums are those of the data file's bytes, the spill metrics are set, the spill
// file is gone and every reservation is given back.
func TestWriterSpillsUnderATinyBudget(t *testing.T) {
	types := coltest.Types(t, "long", "string", "decimal(12,2)", "double")
	rng := rand.New(rand.NewPCG(21, 21))
	rows := coltest.GenRows(rng, types, 60000, 0.05, genValue)
	src := coltest.NewSource(t, rng, types, rows, 3000)
	defer src.Release()
	for _, tc := range []struct {
		name  string
		parts int
		opts  WriterOptions
	}{
		{"lz4-7", 7, WriterOptions{Codec: CodecLZ4, BlockRows: 1000, Checksum: "CRC32C"}},
		{"zstd-1", 1, WriterOptions{Codec: CodecZstd, BlockRows: 2000, Checksum: "ADLER32"}},
		{"none-60", 60, WriterOptions{Codec: CodecNone, BlockRows: 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := expected(t, src, hashOn(t, tc.parts, types, 0, 1))
			dir := t.TempDir()
			ctx, r := spillCtx(1<<20, dir)
			path := tempPath(t)
			src.Pos = 0
			res, err := Write(ctx, src, hashOn(t, tc.parts, types, 0, 1), tc.opts, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := ctx.Alloc.Err(); err != nil {
				t.Fatal(err)
			}
			if res.Spills == 0 || res.SpilledDisk <= 0 || res.SpilledMem <= 0 {
				t.Fatalf("no spill under a 1 MiB budget: %+v", res)
			}
			t.Logf("%d spills, %d bytes of memory, %d on disk; data file %d bytes",
				res.Spills, res.SpilledMem, res.SpilledDisk, sum(res.PartitionLengths))
			if names := dirEntries(t, dir); len(names) != 0 || ctx.Spill.Count() != 0 {
				t.Errorf("spill files left: %v (%d registered)", names, ctx.Spill.Count())
			}
			if len(ctx.Spillers) != 0 {
				t.Errorf("writer still registered: %d spillers", len(ctx.Spillers))
			}
			if used := ctx.Alloc.Used(); used != 0 {
				t.Errorf("%d bytes still accounted after Write", used)
			}
			if r.Reserved > r.Limit {
				t.Errorf("reserved %d over the limit %d", r.Reserved, r.Limit)
			}
			var total int64
			for pi, data := range partitionBytes(t, path, res.PartitionLengths) {
				got, _, err := readAll(t, src.Fields, data, 0)
				if err != nil {
					t.Fatalf("partition %d: %v", pi, err)
				}
				coltest.CompareRows(t, fmt.Sprintf("partition %d", pi), got, want[pi])
				total += int64(len(got))
				if tc.opts.Checksum != "" {
					w, err := newWriter(coltest.NewCtx(1), src, NewSinglePartitioner(), tc.opts)
					if err != nil {
						t.Fatal(err)
					}
					h := w.checksum()
					w.release()
					h.Write(data)
					if res.Checksums[pi] != int64(h.Sum32()) {
						t.Errorf("partition %d: checksum %d, its bytes' %d", pi, res.Checksums[pi], h.Sum32())
					}
				}
			}
			if total != int64(len(rows)) {
				t.Errorf("read %d rows of %d", total, len(rows))
			}
			ctx.Alloc.ReleaseAll()
			if r.Reserved != 0 {
				t.Errorf("%d bytes still reserved after ReleaseAll", r.Reserved)
			}
		})
	}
}

func sum(xs []int64) (n int64) {
	for _, x := range xs {
		n += x
	}
	return n
}

// TestSpilledBlocksKeepTheBytes: spilling only encoded blocks (SpillNow's usual case: they
// outweigh the pending rows) leaves the data file byte for byte what it is without spilling, so
// the JVM's reader and Spark's checksum file see no difference.
func TestSpilledBlocksKeepTheBytes(t *testing.T) {
	types := coltest.Types(t, "integer", "string", "boolean", "timestamp")
	rng := rand.New(rand.NewPCG(22, 22))
	rows := coltest.GenRows(rng, types, 30000, 0.1, genValue)
	src := coltest.NewSource(t, rng, types, rows, 1500)
	defer src.Release()
	opts := WriterOptions{Codec: CodecLZ4, BlockRows: 300, Checksum: "CRC32"}
	run := func(spillEvery int) ([]byte, WriteResult) {
		ctx := coltest.NewCtx(4096)
		ctx.Spill = memory.NewSpillFiles([]string{t.TempDir()})
		defer ctx.Alloc.ReleaseAll()
		p := hashOn(t, 9, types, 1)
		defer p.Close()
		w, err := newWriter(ctx, src, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.release()
		spills := 0
		for i, b := range src.Batches {
			if err := w.add(b); err != nil {
				t.Fatal(err)
			}
			if spillEvery > 0 && i%spillEvery == 0 && w.encoded > 0 {
				if err := w.spillBlocks(time.Now(), w.pending+w.encoded); err != nil {
					t.Fatal(err)
				}
				if w.encoded != 0 {
					t.Fatalf("%d encoded bytes held after a spill", w.encoded)
				}
				spills++
			}
		}
		if spillEvery > 0 && spills < 3 {
			t.Fatalf("only %d spills", spills)
		}
		if err := w.finish(); err != nil {
			t.Fatal(err)
		}
		path := tempPath(t)
		if err := w.writeFile(path); err != nil {
			t.Fatal(err)
		}
		if spillEvery > 0 {
			if freed, err := w.SpillNow(); freed || err != nil {
				t.Errorf("SpillNow while writing the data file: %v, %v", freed, err)
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data, WriteResult{PartitionLengths: w.lengths, Checksums: w.checksums}
	}
	plain, pres := run(0)
	spilled, sres := run(3)
	if !bytes.Equal(plain, spilled) {
		t.Fatalf("data file differs after spilling: %d bytes vs %d", len(spilled), len(plain))
	}
	if fmt.Sprint(pres) != fmt.Sprint(sres) {
		t.Errorf("lengths and checksums differ:\n%v\n%v", pres, sres)
	}
}

// TestWriterSpillFileRemovedOnError: a write that fails after spilling leaves neither its spill
// file nor its data file, nor any memory accounted.
func TestWriterSpillFileRemovedOnError(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(23, 23))
	rows := coltest.GenRows(rng, types, 40000, 0, genValue)
	src := coltest.NewSource(t, rng, types, rows, 2000)
	defer src.Release()
	src.Err = errors.New("input broke")
	dir := t.TempDir()
	ctx, _ := spillCtx(512<<10, dir)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	_, err := Write(ctx, src, hashOn(t, 5, types, 0), WriterOptions{Codec: CodecLZ4, BlockRows: 1000}, path)
	if err == nil || !strings.Contains(err.Error(), "input broke") {
		t.Fatalf("error %v", err)
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Errorf("spill files left: %v", names)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("data file left")
	}
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("%d bytes still accounted", used)
	}
}

// TestWriterBelowItsFloor: a budget smaller than what the writer needs for one batch (its
// pending buffers and scratch) makes it spill at every batch, as RelieveMemory's contract has it
// (a spill that freed memory forgets the refusal; the next growth asks Spark again), and the
// output is still right.
func TestWriterBelowItsFloor(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(24, 24))
	rows := coltest.GenRows(rng, types, 20000, 0, genValue)
	src := coltest.NewSource(t, rng, types, rows, 4000)
	defer src.Release()
	want := expected(t, src, hashOn(t, 3, types, 0))
	dir := t.TempDir()
	ctx, _ := spillCtx(16<<10, dir)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	src.Pos = 0
	res, err := Write(ctx, src, hashOn(t, 3, types, 0), WriterOptions{Codec: CodecLZ4}, path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Spills < 3 {
		t.Errorf("%d spills", res.Spills)
	}
	for pi, data := range partitionBytes(t, path, res.PartitionLengths) {
		got, _, err := readAll(t, src.Fields, data, 0)
		if err != nil {
			t.Fatalf("partition %d: %v", pi, err)
		}
		coltest.CompareRows(t, fmt.Sprintf("partition %d", pi), got, want[pi])
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Errorf("spill files left: %v", names)
	}
}

// requesting is an input that, every few batches, asks the task to spill from another goroutine,
// as Spark's MemoryConsumer.spill does when another consumer of the task needs memory.
type requesting struct {
	*coltest.Source
	ctx   *exec.TaskContext
	every int
	n     int
	// last is the reservation at the previous batch; drops counts batches that found it lower.
	last, drops int64
}

func (r *requesting) Next() (*columnar.Batch, error) {
	if res := r.ctx.Alloc.Reserved(); res < r.last {
		r.drops++
	} else {
		r.last = res
	}
	r.n++
	if r.n%r.every == 0 {
		done := make(chan struct{})
		go func() { r.ctx.RequestSpill(); close(done) }()
		<-done
	}
	return r.Source.Next()
}

// TestWriterSpillsOnRequest: with memory to spare, a spill request makes the writer write its
// blocks out at its next batch and give the reservation back; the output is the same.
func TestWriterSpillsOnRequest(t *testing.T) {
	types := coltest.Types(t, "long", "string")
	rng := rand.New(rand.NewPCG(25, 25))
	rows := coltest.GenRows(rng, types, 150000, 0.1, genValue)
	src := coltest.NewSource(t, rng, types, rows, 2500)
	defer src.Release()
	want := expected(t, src, hashOn(t, 4, types, 0))
	dir := t.TempDir()
	ctx, res := spillCtx(1<<30, dir)
	ctx.Alloc = memory.NewTaskAllocatorFor(res, 8<<20) // 256 KiB chunks, far from the limit
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	src.Pos = 0
	in := &requesting{Source: src, ctx: ctx, every: 6}
	out, err := Write(ctx, in, hashOn(t, 4, types, 0), WriterOptions{Codec: CodecLZ4, BlockRows: 1000}, path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Spills < 2 || out.SpilledDisk <= 0 {
		t.Fatalf("%d spills on request, %d bytes", out.Spills, out.SpilledDisk)
	}
	if ctx.SpillRequested() {
		t.Error("a request left unanswered")
	}
	t.Logf("%d spills on request, %d bytes", out.Spills, out.SpilledDisk)
	// Requests come every 6 batches; a run is written only for a chunk's worth of blocks.
	if requests := int64(len(src.Batches) / 6); out.Spills >= requests {
		t.Errorf("%d spills for %d requests: small runs were not skipped", out.Spills, requests)
	}
	for pi, data := range partitionBytes(t, path, out.PartitionLengths) {
		got, _, err := readAll(t, src.Fields, data, 0)
		if err != nil {
			t.Fatalf("partition %d: %v", pi, err)
		}
		coltest.CompareRows(t, fmt.Sprintf("partition %d", pi), got, want[pi])
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Errorf("spill files left: %v", names)
	}
	if in.drops == 0 {
		t.Errorf("the spills never gave reservation back (%d reserved at the end)", res.Reserved)
	}
}

// TestReaderWithinASmallReservation: reading a partition many times larger than the task's
// reservation works as long as a block's batches fit: the freed buffers the allocator keeps (and,
// in checking mode, quarantines) are dropped when Spark refuses more, not counted against it.
func TestReaderWithinASmallReservation(t *testing.T) {
	types := coltest.Types(t, "long", "long", "string", "double")
	rng := rand.New(rand.NewPCG(26, 26))
	rows := coltest.GenRows(rng, types, 200000, 0, genValue)
	src := coltest.NewSource(t, rng, types, rows, 8192)
	defer src.Release()
	ctx := coltest.NewCtx(8192)
	path := tempPath(t)
	res, err := Write(ctx, src, NewSinglePartitioner(), WriterOptions{Codec: CodecLZ4}, path)
	ctx.Alloc.ReleaseAll()
	if err != nil {
		t.Fatal(err)
	}
	data := partitionBytes(t, path, res.PartitionLengths)[0]
	rctx := coltest.NewCtx(8192)
	r := &coltest.Reserver{Limit: 4 << 20}
	rctx.Alloc = memory.NewTaskAllocatorFor(r, 32<<20)
	defer rctx.Alloc.ReleaseAll()
	rd := NewReader(src.Fields, &frames{data: data}, 0)
	got, err := coltest.Drain(t, rd, rctx, 8192)
	if err != nil {
		t.Fatalf("reading %d bytes with %d reserved at most: %v", len(data), r.Limit, err)
	}
	if len(got) != len(rows) {
		t.Errorf("read %d rows of %d", len(got), len(rows))
	}
}
