package shuffle

import (
	"bufio"
	"cmp"
	"fmt"
	"hash"
	"hash/adler32"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// WriterOptions configure Write.
type WriterOptions struct {
	Codec     Codec
	ZstdLevel int // 0 = DefaultZstdLevel
	BlockRows int // rows buffered per partition before a block is encoded; 0 = ctx.BatchSize()
	// MaxBufferedBytes bounds the memory of rows waiting to be encoded, over all partitions
	// (0 = DefaultMaxBufferedBytes). Past it the partitions holding the most are encoded early, in
	// smaller blocks: with many partitions, BlockRows rows each would not fit in memory.
	MaxBufferedBytes int64
	// Checksum is spark.shuffle.checksum.algorithm ("ADLER32", "CRC32" or "CRC32C", any case)
	// when spark.shuffle.checksum.enabled, else "": Write then returns each partition's checksum
	// of its bytes in the data file, as Spark's writers compute them for the checksum file of
	// IndexShuffleBlockResolver.writeMetadataFileAndCommit (empty partition: the initial value).
	Checksum string
}

// DefaultMaxBufferedBytes is WriterOptions.MaxBufferedBytes's default.
const DefaultMaxBufferedBytes = 64 << 20

// WriteResult describes the data file Write produced.
type WriteResult struct {
	PartitionLengths []int64 // bytes of each partition in the data file
	Rows, Blocks     int64
	WriteNanos       int64 // time spent encoding, compressing and writing (Spark's shuffle write time)
	// UncompressedBytes is the blocks' size as Arrow columns (their buffers' bytes, what the
	// reader decodes them to), for the exchange's data size, which AQE plans joins with. Spark's
	// own is the UnsafeRows' size, ~1.3x this on lineitem.
	UncompressedBytes int64
	// PartitionUncompressed is UncompressedBytes per partition: the size the map output reports
	// to Spark (MapStatus), which AQE coalesces partitions and finds skew with.
	PartitionUncompressed []int64
	// Checksums are the partitions' checksums (WriterOptions.Checksum), nil without one.
	Checksums []int64
	// SpilledMem and SpilledDisk are the bytes of memory the writer's spills freed and the bytes
	// they wrote to disk (Spark's memory and disk bytes spilled); Spills counts them (spill.go).
	SpilledMem, SpilledDisk, Spills int64
}

// Write opens input, drains it, partitions every batch, and writes the data file at dataPath
// (created/truncated), closing input. Every byte buffered is accounted to ctx.Alloc. On an error
// the data file is removed.
//
// Rows wait per partition in typed buffers (columns.go) until BlockRows of them make a block (or
// the buffered bytes pass MaxBufferedBytes), which is encoded and compressed at once and kept in
// Go memory; at the end the remaining rows are encoded and every partition's blocks are written
// in partition order in one buffered pass. When the task runs out of memory the writer spills the
// blocks it holds (spill.go): it is one of the task's spillers while Write runs.
func Write(ctx *exec.TaskContext, input exec.Operator, p Partitioner, opts WriterOptions, dataPath string) (res WriteResult, err error) {
	defer input.Close()
	w, err := newWriter(ctx, input, p, opts)
	if err != nil {
		return res, err
	}
	defer w.release()
	ctx.Spillers = append(ctx.Spillers, w)
	defer w.unregister()
	if err := input.Open(ctx); err != nil {
		return res, err
	}
	for {
		b, err := input.Next()
		if err != nil {
			return res, err
		}
		if b == nil {
			break
		}
		err = w.add(b)
		b.Release()
		if err != nil {
			return res, err
		}
	}
	if err := w.finish(); err != nil {
		return res, err
	}
	if err := w.writeFile(dataPath); err != nil {
		os.Remove(dataPath)
		return res, err
	}
	res = WriteResult{PartitionLengths: w.lengths, Rows: w.rows, Blocks: w.blocks, WriteNanos: w.nanos,
		UncompressedBytes: w.raw, Checksums: w.checksums}
	res.PartitionUncompressed = make([]int64, len(w.parts))
	for i := range w.parts {
		res.PartitionUncompressed[i] = w.parts[i].raw
	}
	if s := w.spill; s != nil {
		res.SpilledMem, res.SpilledDisk, res.Spills = s.memBytes, s.diskBytes, int64(s.runs)
	}
	return res, nil
}

// unregister takes the writer off the task's spillers (it is released when Write returns).
func (w *writer) unregister() {
	sp := w.ctx.Spillers[:0]
	for _, s := range w.ctx.Spillers {
		if s != exec.SpillOnRequest(w) {
			sp = append(sp, s)
		}
	}
	clear(w.ctx.Spillers[len(sp):])
	w.ctx.Spillers = sp
}

type partition struct {
	rows   int      // pending rows
	blocks [][]byte // encoded frames, in order
	raw    int64    // uncompressed bytes of the frames encoded so far
}

type writer struct {
	ctx       *exec.TaskContext
	p         Partitioner
	schema    *blockSchema
	cols      []colWriter
	parts     []partition
	blockRows int
	maxBuf    int64
	enc       blockEncoder

	ids    []int32 // partition id per row of the batch
	counts []int   // rows per partition of the batch, then the start of each partition in order
	order  []int32 // the batch's rows grouped by partition, in row order within each
	active []span  // the partitions with rows in the batch
	takes  []int   // rows each active partition takes in a round

	pending   int64 // capacity of the partitions' pending buffers
	overhead  int64 // the colWriters' per-partition structs
	encoded   int64 // bytes of encoded blocks held
	accounted int64 // Go heap reported to ctx.Alloc
	lengths   []int64
	checksum  func() hash.Hash32 // nil without checksums
	checksums []int64
	rows      int64
	blocks    int64
	raw       int64 // uncompressed bytes of the blocks
	nanos     int64
	arrs      []arrow.Array // scratch for a block's columns

	spill *spillRuns // nil until the first spill
	// writing is set once the data file is being written: the blocks are no longer the writer's
	// to spill.
	writing bool
}

func newWriter(ctx *exec.TaskContext, input exec.Operator, p Partitioner, opts WriterOptions) (*writer, error) {
	np := p.NumPartitions()
	if np < 1 || np > math.MaxInt32 {
		return nil, fmt.Errorf("shuffle write into %d partitions", np)
	}
	s, err := newBlockSchema(input.Schema())
	if err != nil {
		return nil, err
	}
	blockRows := opts.BlockRows
	if blockRows == 0 {
		blockRows = ctx.BatchSize()
	}
	if blockRows < 1 || blockRows > math.MaxInt32 {
		return nil, fmt.Errorf("shuffle block of %d rows", blockRows)
	}
	maxBuf := opts.MaxBufferedBytes
	if maxBuf <= 0 {
		maxBuf = DefaultMaxBufferedBytes
	}
	if ctx.Alloc == nil {
		return nil, fmt.Errorf("shuffle write without a task allocator")
	}
	var checksum func() hash.Hash32
	switch strings.ToUpper(opts.Checksum) {
	case "":
	case "ADLER32":
		checksum = adler32.New
	case "CRC32":
		checksum = crc32.NewIEEE
	case "CRC32C":
		checksum = func() hash.Hash32 { return crc32.New(castagnoli) }
	default:
		return nil, fmt.Errorf("unsupported shuffle checksum algorithm %q: spark.shuffle.checksum.algorithm must be ADLER32, CRC32 or CRC32C", opts.Checksum)
	}
	comp, err := newCompressor(opts.Codec, opts.ZstdLevel)
	if err != nil {
		return nil, err
	}
	w := &writer{ctx: ctx, p: p, schema: s, parts: make([]partition, np), blockRows: blockRows,
		maxBuf: maxBuf, lengths: make([]int64, np), counts: make([]int, np+1),
		arrs: make([]arrow.Array, len(s.cols)), checksum: checksum}
	if checksum != nil {
		w.checksums = make([]int64, np)
	}
	w.enc = newBlockEncoder(s, comp)
	w.cols = make([]colWriter, len(s.cols))
	for i, c := range s.cols {
		w.cols[i] = newColWriter(c, np, blockRows)
		w.overhead += int64(np) * partOverhead(c)
	}
	w.overhead += int64(np) * int64(8+unsafe.Sizeof(partition{}))
	return w, nil
}

// add partitions a batch and scatters its rows into the partitions' pending buffers, encoding
// every partition that reaches BlockRows.
func (w *writer) add(b *columnar.Batch) error {
	n := b.NumRows
	if len(b.Cols) != len(w.cols) {
		return fmt.Errorf("shuffle input batch has %d columns, the schema %d", len(b.Cols), len(w.cols))
	}
	if n == 0 {
		return nil
	}
	for i, c := range b.Cols {
		if c.Len() != n {
			return fmt.Errorf("shuffle input column %d has %d rows in a batch of %d", i, c.Len(), n)
		}
		if want := w.schema.cols[i].typ; c.DataType().ID() != want.ID() {
			return fmt.Errorf("shuffle input column %d is %s, the schema says %s", i, c.DataType(), w.schema.fields[i].Type)
		}
	}
	if cap(w.ids) < n {
		w.ids = make([]int32, n)
		w.order = make([]int32, n)
	}
	ids := w.ids[:n]
	if err := w.p.Partition(w.ctx, b, ids); err != nil {
		return err
	}
	// Counting sort of the rows by partition (stable).
	np := len(w.parts)
	counts := w.counts
	clear(counts)
	for _, id := range ids {
		if uint32(id) >= uint32(np) {
			return fmt.Errorf("partitioner gave partition %d of %d", id, np)
		}
		counts[id+1]++
	}
	for i := 1; i <= np; i++ {
		counts[i] += counts[i-1]
	}
	order := w.order[:n]
	for i, id := range ids {
		order[counts[id]] = int32(i)
		counts[id]++
	}
	// counts[p] is now the end of partition p's rows in order (its start is counts[p-1]).
	for i, c := range b.Cols {
		w.cols[i].setSource(c)
	}
	w.active = w.active[:0]
	start := 0
	for pi := 0; pi < np; pi++ {
		if end := counts[pi]; end > start {
			w.active = append(w.active, span{part: pi, lo: start, hi: end})
			start = end
		}
	}
	if err := w.scatter(order, len(w.active) == 1); err != nil {
		return err
	}
	w.rows += int64(n)
	if err := w.checkBudget(); err != nil {
		return err
	}
	return w.account()
}

// span is a partition's rows of the batch still to append: order[lo:hi].
type span struct{ part, lo, hi int }

// scatter appends the rows of the active spans to their partitions, column by column (so that
// each source column stays in cache while every partition takes its rows), a block's worth per
// partition and round: partitions that fill up are encoded between rounds. whole says the batch
// has one partition, whose rows order[lo:hi] are then the batch's rows lo..hi.
func (w *writer) scatter(order []int32, whole bool) error {
	active := w.active
	for len(active) > 0 {
		takes := w.takes[:0]
		for _, a := range active {
			takes = append(takes, min(a.hi-a.lo, w.blockRows-w.parts[a.part].rows))
		}
		w.takes = takes
		for _, c := range w.cols {
			for i, a := range active {
				before := c.partBytes(a.part)
				var err error
				if whole {
					err = c.appendRange(a.part, a.lo, a.lo+takes[i])
				} else {
					err = c.appendSel(a.part, order[a.lo:a.lo+takes[i]])
				}
				w.pending += c.partBytes(a.part) - before
				if err != nil {
					return err
				}
			}
		}
		left := active[:0]
		for i, a := range active {
			part := &w.parts[a.part]
			part.rows += takes[i]
			if part.rows == w.blockRows {
				if err := w.encode(a.part, false); err != nil {
					return err
				}
			}
			if a.lo += takes[i]; a.lo < a.hi {
				left = append(left, a)
			}
		}
		active = left
	}
	return nil
}

// encode turns partition pi's pending rows into a block (free: and drops their buffers).
func (w *writer) encode(pi int, free bool) error {
	part := &w.parts[pi]
	if part.rows == 0 {
		return nil
	}
	t0 := time.Now()
	for i, c := range w.cols {
		w.arrs[i] = c.array(pi)
	}
	frame, err := w.enc.encode(w.arrs, part.rows)
	for i, a := range w.arrs {
		a.Release()
		w.arrs[i] = nil
	}
	if err != nil {
		return err
	}
	part.blocks = append(part.blocks, slices.Clone(frame))
	w.encoded += int64(len(frame))
	w.blocks++
	w.raw += int64(w.enc.arrow)
	part.raw += int64(w.enc.arrow)
	w.reset(pi, free)
	part.rows = 0
	w.nanos += time.Since(t0).Nanoseconds()
	return nil
}

// checkBudget encodes the partitions holding the most pending memory, dropping their buffers,
// until the pending memory is half the budget.
func (w *writer) checkBudget() error {
	total := w.pendingBytes()
	if total <= w.maxBuf {
		return nil
	}
	type held struct {
		part  int
		bytes int64
	}
	var hs []held
	for pi := range w.parts {
		var n int64
		for _, c := range w.cols {
			n += c.partBytes(pi)
		}
		if n > 0 {
			hs = append(hs, held{pi, n})
		}
	}
	slices.SortFunc(hs, func(a, b held) int { return cmp.Compare(b.bytes, a.bytes) })
	for _, h := range hs {
		if total <= w.maxBuf/2 {
			break
		}
		if err := w.encode(h.part, true); err != nil {
			return err
		}
		w.reset(h.part, true) // also an empty partition's capacity
		total -= h.bytes
	}
	return nil
}

// reset empties partition pi's pending buffers (free: and drops them).
func (w *writer) reset(pi int, free bool) {
	for _, c := range w.cols {
		before := c.partBytes(pi)
		c.reset(pi, free)
		w.pending += c.partBytes(pi) - before
	}
}

func (w *writer) pendingBytes() int64 { return w.pending }

// account reports the Go heap held (pending rows, encoded blocks, scratch) to the task, and
// relieves the task's memory if Spark refused it: between batches the writer and the operators
// below are at a safe point, and those that can spill (the writer too) do so.
func (w *writer) account() error {
	a := w.ctx.Alloc
	if a == nil {
		return nil
	}
	w.accountOnly()
	if err := w.ctx.RelieveMemory(); err != nil {
		return err
	}
	return a.Err()
}

// accountOnly reports the Go heap held to the task (it may be refused: the allocator's error
// says so); SpillNow and writeFile, which must not spill again, call it directly.
func (w *writer) accountOnly() {
	a := w.ctx.Alloc
	if a == nil {
		return
	}
	size := w.pending + w.overhead + w.encoded + w.enc.memSize() + int64(cap(w.ids)+cap(w.order))*4 +
		int64(cap(w.counts)+cap(w.takes))*8 + int64(cap(w.active))*24 + w.spill.memSize()
	a.Account(size - w.accounted)
	w.accounted = size
}

// finish encodes every partition's remaining rows.
func (w *writer) finish() error {
	for pi := range w.parts {
		if err := w.encode(pi, true); err != nil {
			return err
		}
	}
	return w.account()
}

// writeFile writes the partitions in order, each one's spilled segments (spill.go) then its
// blocks in memory, freeing the blocks once written.
func (w *writer) writeFile(path string) error {
	w.writing = true
	t0 := time.Now()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("shuffle data file: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	if w.spill != nil {
		buf = make([]byte, spillBufSize)
	}
	for pi := range w.parts {
		part := &w.parts[pi]
		var sum hash.Hash32
		var out io.Writer = bw
		if w.checksum != nil {
			sum = w.checksum()
			out = io.MultiWriter(bw, sum)
		}
		if w.spill != nil {
			var n int64
			n, err = w.spill.copyPartition(pi, out, buf)
			w.lengths[pi] += n
		}
		for _, blk := range part.blocks {
			if err != nil {
				break
			}
			if _, err = out.Write(blk); err != nil {
				break
			}
			w.lengths[pi] += int64(len(blk))
			w.encoded -= int64(len(blk))
		}
		if sum != nil {
			w.checksums[pi] = int64(sum.Sum32()) // Java's Checksum.getValue: unsigned
		}
		part.blocks = nil
		if err != nil {
			break
		}
		w.accountOnly() // only gives memory back
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	w.nanos += time.Since(t0).Nanoseconds()
	if err != nil {
		return fmt.Errorf("write shuffle data file %s: %w", path, err)
	}
	return nil
}

// release frees everything the writer holds and gives its account back; safe after errors.
func (w *writer) release() {
	for pi := range w.parts {
		w.parts[pi].blocks = nil
		w.reset(pi, true)
	}
	w.encoded = 0
	w.spill.remove()
	w.enc.release()
	w.enc.comp.release()
	w.ids, w.order = nil, nil
	if a := w.ctx.Alloc; a != nil {
		a.Account(-w.accounted)
	}
	w.accounted = 0
}
