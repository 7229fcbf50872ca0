package aggregate

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/memory"
)

// Spilling. When a reservation from Spark fails (the task allocator's ErrOutOfMemory) after an
// input batch, the operator writes every group of its table, as the aggregation buffers Spark's
// PartialMerge/Final modes read (keys ++ buffers), to spillParts spill files by a hash of the key,
// frees the table and goes on with an empty one. At the end of the input it spills what is left
// and merges the partitions one at a time, each into a fresh table (every function merging
// buffers, as Spark's TungstenAggregationIterator does after it falls back to sort-based
// aggregation: Partial becomes PartialMerge, Complete becomes Final). A partition that still does
// not fit is partitioned again by the next bits of the hash, up to maxSpillLevel times; then the
// task fails with the out-of-memory error. The spilled runs of a partition are read in the order
// they were written, so first/last see the groups' values in input order as without spilling.
const (
	spillBits     = 4
	spillParts    = 1 << spillBits
	spillMask     = spillParts - 1
	maxSpillLevel = 6
)

// spillSeed is the key hash of spill partitioning, fixed per task (every table of the task must
// send a key to the same partition) and unrelated to the tables' own hashing.
type spillSeed struct {
	bits  uint64
	bytes maphash.Seed
}

// mix64 is a 64-bit finalizer (murmur3's fmix64): every input bit affects every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb34fe63bac53
	x ^= x >> 33
	return x
}

// shiftFor returns the hash bits that partition a run of the given level.
func shiftFor(level int) uint { return uint(64 - spillBits*(level+1)) }

// spillState is what the operator spilled and has yet to merge.
type spillState struct {
	seed   spillSeed
	schema *arrow.Schema
	files  *memory.SpillFiles
	own    bool // files is the operator's own (no task registry): remove all at close
	// pending are finished spill files of one partition each, merged last in, first out.
	pending []spilledPart
	// reading is the partition being merged, closed (removed) once read; readingDistinct when
	// its groups are emitted a batch at a time (spilledPart.distinct), at readingLevel.
	reading         *memory.SpillReader
	readingDistinct bool
	readingLevel    int
	pids            []uint8
	counts          [spillParts]int
	sels            [spillParts][]int32
}

type spilledPart struct {
	path  string
	level int // the level of the run that merges it
	// distinct: the groups of a run that was being emitted, each once, every batch of them
	// emitted alone (no table of the whole file).
	distinct bool
}

// SpillMetrics reports the bytes the operator spilled so far: the Arrow bytes of the spilled
// batches (Spark's memory bytes spilled, the aggregate's "spill size") and the bytes written to
// disk. They survive Close, so that the JVM reads them when the task ends.
func (h *HashAggregate) SpillMetrics() (memBytes, diskBytes int64) {
	return h.spilledMem, h.spilledDisk
}

// canSpill reports whether spilling the run can free memory.
func (h *HashAggregate) canSpill(r *aggRun) bool {
	return len(h.keys) > 0 && r.table.numGroups() > 0 && r.level <= maxSpillLevel
}

func (h *HashAggregate) spillSetup() *spillState {
	st := h.st
	if st.spill == nil {
		s := &spillState{seed: spillSeed{bits: rand.Uint64(), bytes: maphash.MakeSeed()}, files: st.ctx.Spill}
		if s.files == nil {
			s.files, s.own = memory.NewSpillFiles(nil), true
		}
		st.spill = s
	}
	return st.spill
}

// spillRun writes every group of r to its partitions' files and empties r.
func (h *HashAggregate) spillRun(r *aggRun) error {
	if r.level >= maxSpillLevel {
		return fmt.Errorf("HashAggregate: the groups of one spill partition do not fit in memory after %d "+
			"partitionings: %w", r.level, h.st.ctx.Alloc.Err())
	}
	s := h.spillSetup()
	h.spillDepth = max(h.spillDepth, r.level+1)
	alloc := h.st.ctx.Alloc
	shift := shiftFor(r.level)
	n := r.table.numGroups()
	bs := h.st.ctx.BatchSize()
	if cap(s.pids) < bs {
		s.pids = make([]uint8, bs)
	}
	for lo := 0; lo < n; lo += bs {
		hi := min(n, lo+bs)
		cols, err := h.groupBuffers(r, lo, hi)
		if err != nil {
			return err
		}
		if s.schema == nil {
			s.schema = spillSchema(cols)
		}
		err = h.writeParts(r, cols, lo, hi, shift)
		columnar.NewBatch(cols, 0).Release()
		if err != nil {
			return err
		}
	}
	// Free the table, then give the memory back: pooled buffers and the reservation beyond the
	// slack, before the refused reservation is forgotten and the next one asks Spark again.
	h.drop(r)
	r.table = newGroupTable(h.keyTypes)
	for _, f := range h.fns {
		r.fns = append(r.fns, f.newState())
	}
	alloc.Trim()
	alloc.ClearOutOfMemory()
	alloc.Settle()
	return alloc.Err()
}

// groupBuffers builds keys ++ every function's buffers for groups [lo, hi).
func (h *HashAggregate) groupBuffers(r *aggRun, lo, hi int) ([]arrow.Array, error) {
	alloc := h.st.ctx.Alloc
	cols, err := r.table.keyColumns(alloc, lo, hi)
	if err != nil {
		return nil, err
	}
	for _, f := range r.fns {
		more, err := f.buffers(alloc, lo, hi)
		if err != nil {
			columnar.NewBatch(cols, 0).Release()
			return nil, err
		}
		cols = append(cols, more...)
	}
	return cols, nil
}

// writeParts appends groups [lo, hi) (their columns cols) to the partition files of r.
func (h *HashAggregate) writeParts(r *aggRun, cols []arrow.Array, lo, hi int, shift uint) error {
	s := h.st.spill
	alloc := h.st.ctx.Alloc
	if r.parts == nil {
		r.parts = make([]*memory.SpillWriter, spillParts)
		for p := range r.parts {
			w, err := s.files.NewSpillWriter("agg", s.schema, alloc)
			if err != nil {
				return err
			}
			r.parts[p] = w
		}
	}
	pids := s.pids[:hi-lo]
	r.table.partitions(s.seed, shift, lo, hi, pids)
	s.counts = [spillParts]int{}
	for _, p := range pids {
		s.counts[p]++
	}
	for p := range s.sels {
		s.sels[p] = s.sels[p][:0]
	}
	for i, p := range pids {
		s.sels[p] = append(s.sels[p], int32(i))
	}
	for p, sel := range s.sels {
		if len(sel) == 0 {
			continue
		}
		var err error
		if len(sel) == hi-lo {
			err = writeBatch(r.parts[p], s.schema, cols, len(sel))
		} else {
			err = writeTaken(r.parts[p], s.schema, cols, sel, alloc)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func writeTaken(w *memory.SpillWriter, schema *arrow.Schema, cols []arrow.Array, sel []int32, alloc *memory.TaskAllocator) error {
	taken := make([]arrow.Array, len(cols))
	defer columnar.NewBatch(taken, 0).Release()
	for i, c := range cols {
		t, err := columnar.Take(alloc, c, sel)
		if err != nil {
			return err
		}
		taken[i] = t
	}
	return writeBatch(w, schema, taken, len(sel))
}

func writeBatch(w *memory.SpillWriter, schema *arrow.Schema, cols []arrow.Array, rows int) error {
	rec := columnar.NewBatch(cols, rows).Record(schema)
	defer rec.Release()
	return w.Write(rec)
}

// endOfInput ends a run's input: a run that spilled spills the rest and hands its partitions to
// the merge; otherwise its table is emitted as is.
func (h *HashAggregate) endOfInput(r *aggRun) error {
	if r.parts == nil {
		return nil
	}
	if r.table.numGroups() > 0 {
		if err := h.spillRun(r); err != nil {
			return err
		}
	}
	s := h.st.spill
	parts := r.parts
	r.parts = nil
	for i, w := range parts {
		path, disk, err := w.Finish()
		h.spilledMem += w.MemBytes
		h.spilledDisk += disk
		if err != nil {
			for _, rest := range parts[i+1:] {
				rest.Abort()
			}
			_ = s.files.Remove(path)
			return err
		}
		if w.Rows() == 0 {
			if err := s.files.Remove(path); err != nil {
				return err
			}
			continue
		}
		s.pending = append(s.pending, spilledPart{path: path, level: r.level + 1})
	}
	h.drop(r)
	if h.st.cur == r {
		h.st.cur = nil
	}
	return nil
}

// mergeNext merges spilled partitions until one fits in memory and returns its run, to be
// emitted; nil when none is left.
func (h *HashAggregate) mergeNext() (*aggRun, error) {
	st := h.st
	s := st.spill
	for s != nil && (s.reading != nil || len(s.pending) > 0) {
		if s.reading != nil && s.readingDistinct {
			r, err := h.nextDistinct()
			if r != nil || err != nil {
				return r, err
			}
			continue
		}
		p := s.pending[len(s.pending)-1]
		s.pending = s.pending[:len(s.pending)-1]
		rd, err := s.files.OpenSpill(p.path, st.ctx.Alloc)
		if err != nil {
			_ = s.files.Remove(p.path)
			return nil, err
		}
		s.reading = rd
		if p.distinct {
			s.readingDistinct, s.readingLevel = true, p.level
			continue
		}
		r := h.newRun(p.level)
		st.cur = r
		if err := h.mergeFile(r, rd); err != nil {
			return nil, err
		}
		s.reading = nil
		if err := rd.Close(); err != nil {
			return nil, err
		}
		if r.parts == nil {
			return r, nil
		}
		if err := h.endOfInput(r); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// mergeFile folds every batch of a spilled partition into r. While r is built its table is not
// being emitted: a spill request leaves it alone (SpillNow), a refusal partitions it again
// (afterBatch).
func (h *HashAggregate) mergeFile(r *aggRun, rd *memory.SpillReader) error {
	h.st.merging = true
	defer func() { h.st.merging = false }()
	for {
		rec, err := rd.Next()
		if err != nil || rec == nil {
			return err
		}
		b := columnar.FromRecord(rec)
		err = h.mergeBatch(r, b)
		b.Release()
		if err != nil {
			return err
		}
		if err := h.afterBatch(r); err != nil {
			return err
		}
	}
}

// nextDistinct returns a run of the next batch of the distinct file being read, or nil at its end
// (then closed).
func (h *HashAggregate) nextDistinct() (*aggRun, error) {
	s := h.st.spill
	rec, err := s.reading.Next()
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rd := s.reading
		s.reading, s.readingDistinct = nil, false
		return nil, rd.Close()
	}
	r := h.newRun(s.readingLevel)
	h.st.cur = r
	b := columnar.FromRecord(rec)
	err = h.mergeBatch(r, b)
	b.Release()
	if err != nil {
		return nil, err
	}
	h.account(r)
	return r, nil
}

// SpillNow implements exec.SpillOnRequest: while the operator emits its groups, those not
// emitted yet go to one spill file, emitted later a batch at a time, and the table is freed.
// While it reads its input it is never at a safe point between batches (it spills itself then).
func (h *HashAggregate) SpillNow() (bool, error) {
	st := h.st
	if st == nil || !(st.consumed || st.flushing) || st.merging || st.cur == nil || st.cur.table == nil {
		return false, nil
	}
	r := st.cur
	n := r.table.numGroups()
	if st.pos < n {
		s := h.spillSetup()
		h.spillDepth = max(h.spillDepth, 1)
		w, err := h.writeRest(r, st.pos, n)
		if err != nil {
			return false, err
		}
		path, disk, err := w.Finish()
		h.spilledMem += w.MemBytes
		h.spilledDisk += disk
		if err != nil {
			_ = s.files.Remove(path)
			return false, err
		}
		s.pending = append(s.pending, spilledPart{path: path, level: r.level, distinct: true})
	}
	h.drop(r)
	st.cur = nil
	return true, nil
}

// writeRest writes groups [lo, n) of r to one new spill file.
func (h *HashAggregate) writeRest(r *aggRun, lo, n int) (*memory.SpillWriter, error) {
	s := h.st.spill
	var w *memory.SpillWriter
	for ; lo < n; lo += h.st.ctx.BatchSize() {
		hi := min(n, lo+h.st.ctx.BatchSize())
		cols, err := h.groupBuffers(r, lo, hi)
		if err != nil {
			if w != nil {
				w.Abort()
			}
			return nil, err
		}
		if s.schema == nil {
			s.schema = spillSchema(cols)
		}
		if w == nil {
			if w, err = s.files.NewSpillWriter("agg", s.schema, h.st.ctx.Alloc); err != nil {
				columnar.NewBatch(cols, 0).Release()
				return nil, err
			}
		}
		err = writeBatch(w, s.schema, cols, hi-lo)
		columnar.NewBatch(cols, 0).Release()
		if err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

func spillSchema(cols []arrow.Array) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: c.DataType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// mergeBatch folds a spilled batch (keys ++ buffers) into r, every function merging.
func (h *HashAggregate) mergeBatch(r *aggRun, b *columnar.Batch) error {
	st := h.st
	n := b.NumRows
	if n == 0 {
		return nil
	}
	if cap(st.gids) < n {
		st.gids = make([]uint32, n)
	}
	gids := st.gids[:n]
	nk := len(h.keys)
	if err := r.table.assign(b.Cols[:nk], n, gids); err != nil {
		return err
	}
	ng := r.table.numGroups()
	c := nk
	for i, f := range r.fns {
		f.grow(ng)
		k := len(h.fns[i].bufTypes)
		if err := f.merge(b.Cols[c:c+k], gids); err != nil {
			return err
		}
		c += k
	}
	return nil
}

// closeSpill removes what the operator still has on disk (at close, after success or failure).
func (h *HashAggregate) closeSpill() {
	st := h.st
	if st.cur != nil && st.cur.parts != nil {
		for _, w := range st.cur.parts {
			w.Abort()
		}
		st.cur.parts = nil
	}
	s := st.spill
	if s == nil {
		return
	}
	if s.reading != nil {
		_ = s.reading.Close()
		s.reading, s.readingDistinct = nil, false
	}
	for _, p := range s.pending {
		_ = s.files.Remove(p.path)
	}
	s.pending = nil
	if s.own {
		_ = s.files.RemoveAll()
	}
}
