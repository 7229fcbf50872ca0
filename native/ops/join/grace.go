package join

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Grace hash join: a build side larger than the task's memory. When a reservation is refused while
// the build side is read, and nothing reads the join's output order (Spec.MayReorder: the join's
// output is partitioned by key, which changes the order), the join writes the build rows it holds,
// then the rest of the build side, then the whole probe side, to graceParts spill files per side by
// a hash of the join keys, and joins the partitions one at a time: each is the same join (type,
// condition, outer sides) over two spilled inputs, run by a HashJoin of its own, which partitions
// its inputs again, by the next bits of the hash, when its build side does not fit either, up to
// maxGraceLevel times.
//
// A spilled batch holds the evaluated keys first, then the child's columns (on the build side the
// columns the join reads; the others as Null columns, which take no buffers). Rows with a null key
// never match: they are kept only where the join outputs them unmatched (build rows of a join
// outer on its build side; probe rows of one outer on its probe side, of an anti or an existence
// join), in partition 0. A null-aware anti join needs the whole build side's nulls, and is not
// partitioned.
const (
	graceBits     = 4
	graceParts    = 1 << graceBits
	maxGraceLevel = 3
)

type graceState struct {
	files *memory.SpillFiles
	own   bool // files is the join's own (no task registry): removed at close
	seed  maphash.Seed
	mix   uint64
	kt    []sparktype.Type
	hash  *table // encodes keys as the hash table does, for hashing only
	sides [2]graceSide
	part  int       // the next partition to join
	sub   *HashJoin // the join of the partition being output
	parts []uint8
	order []int32 // rows in partition order (graceWrite)
}

const (
	buildSide = 0
	probeSide = 1
)

type graceSide struct {
	schema  *arrow.Schema
	writers [graceParts]*memory.SpillWriter
	paths   [graceParts]string
}

// canGrace reports whether the join may partition its inputs to disk.
func (h *HashJoin) canGrace(ctx *exec.TaskContext) bool {
	return h.spec.MayReorder && !h.spec.NullAware && len(h.buildKeys) > 0 && h.level < maxGraceLevel &&
		ctx.Alloc != nil
}

// childTypes are the Arrow types of a child's columns.
func childTypes(op exec.Operator) []arrow.DataType {
	var out []arrow.DataType
	if s, ok := op.(*spillSource); ok {
		for _, f := range s.schema.Fields() {
			out = append(out, f.Type)
		}
		return out
	}
	for _, f := range op.Schema() {
		out = append(out, f.Type.Arrow())
	}
	return out
}

// SpillMetrics reports the bytes the join spilled so far (its partitions' and theirs).
func (h *HashJoin) SpillMetrics() (memBytes, diskBytes int64) { return h.spilledMem, h.spilledDisk }

// startGrace partitions both sides to disk: the build rows held, the rest of the build side, then
// the probe side.
func (h *HashJoin) startGrace() error {
	st := h.st
	g := &graceState{files: st.ctx.Spill, seed: maphash.MakeSeed(), mix: rand.Uint64() | 1}
	if g.files == nil {
		g.files, g.own = memory.NewSpillFiles(nil), true
	}
	h.grace = g
	for _, k := range h.buildKeys {
		g.kt = append(g.kt, k.Type())
	}
	var err error
	if g.hash, err = newTable(g.kt); err != nil {
		return err
	}
	g.sides[buildSide].schema = graceSchema(g.kt, childTypes(h.build), h.keep)
	g.sides[probeSide].schema = graceSchema(g.kt, childTypes(h.probe), nil)

	// The build rows held: their copies end with the evaluated keys (buildRows.withKeys).
	b := st.build
	nb := len(h.keep)
	for _, bt := range b.batches {
		cols := append(append([]arrow.Array(nil), bt.Cols[nb:]...), bt.Cols[:nb]...)
		if err := h.graceWrite(buildSide, cols, bt.NumRows, h.buildOuter); err != nil {
			return err
		}
	}
	b.release()
	h.relieved()

	// The rest of the build side, then the probe side.
	keepProbeNulls := h.probeOuter || h.spec.Type == LeftAnti || h.spec.Type == Existence
	for _, in := range []struct {
		side      int
		op        exec.Operator
		keys      []expr.Expr
		keep      []bool
		keepNulls bool
	}{{buildSide, h.build, h.buildKeys, h.keep, h.buildOuter}, {probeSide, h.probe, h.probeKeys, nil, keepProbeNulls}} {
		for {
			batch, err := in.op.Next()
			if err != nil {
				return err
			}
			if batch == nil {
				break
			}
			err = h.graceWriteInput(in.side, batch, in.keys, in.keep, in.keepNulls)
			batch.Release()
			if err != nil {
				return err
			}
			if err := st.ctx.RelieveMemory(); err != nil {
				return err
			}
			h.relieved()
		}
	}
	for s := range g.sides {
		for p, w := range g.sides[s].writers {
			if w == nil {
				continue
			}
			path, disk, err := w.Finish()
			h.spilledMem += w.MemBytes
			h.spilledDisk += disk
			g.sides[s].writers[p] = nil
			if err != nil {
				_ = g.files.Remove(path)
				return err
			}
			g.sides[s].paths[p] = path
		}
	}
	st.releaseScratch()
	return nil
}

// relieved forgets a refused reservation once the join's own temporaries are freed: what it holds
// while partitioning is a batch at a time.
func (h *HashJoin) relieved() {
	a := h.st.ctx.Alloc
	a.Trim()
	a.ClearOutOfMemory()
	a.Settle()
}

// graceSchema is the layout of a side's spilled batches: keys, then the child's columns (Null
// for those keep says the join does not read).
func graceSchema(kt []sparktype.Type, child []arrow.DataType, keep []bool) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(kt)+len(child))
	for i, t := range kt {
		fields = append(fields, arrow.Field{Name: "k" + strconv.Itoa(i), Type: t.Arrow(), Nullable: true})
	}
	for i, t := range child {
		if keep != nil && !keep[i] {
			t = arrow.Null
		}
		fields = append(fields, arrow.Field{Name: "c" + strconv.Itoa(i), Type: t, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// graceWriteInput evaluates the keys of a child batch and writes it to its partitions.
func (h *HashJoin) graceWriteInput(side int, in *columnar.Batch, keys []expr.Expr, keep []bool, keepNulls bool) error {
	if in.NumRows == 0 {
		return nil
	}
	keyCols, err := evalKeys(h.st.ctx, keys, in, nil)
	if err != nil {
		return err
	}
	defer releaseAll(keyCols)
	cols := append([]arrow.Array(nil), keyCols...)
	for i, c := range in.Cols {
		if keep != nil && !keep[i] {
			c = nil
		}
		cols = append(cols, c)
	}
	return h.graceWrite(side, cols, in.NumRows, keepNulls)
}

// graceWrite writes the rows of cols (keys first; nil for a Null column) to their partitions.
func (h *HashJoin) graceWrite(side int, cols []arrow.Array, n int, keepNulls bool) error {
	g := h.grace
	nk := len(g.kt)
	valid := validRows(cols[:nk], n, nil)
	parts := resize(g.parts, n)
	g.parts = parts
	if keepNulls {
		clear(parts) // null-key rows go to partition 0
	} else {
		for i := range parts {
			parts[i] = 0xff
		}
	}
	if err := g.partition(cols[:nk], n, valid, parts, h.level); err != nil {
		return err
	}
	// One gather puts the rows in partition order (a counting sort of their partitions); each
	// partition's rows are then a slice of it: one allocation per column, not one per partition.
	var counts [graceParts + 1]int
	for _, p := range parts {
		if p != 0xff {
			counts[p+1]++
		}
	}
	for p := 1; p <= graceParts; p++ {
		counts[p] += counts[p-1]
	}
	total := counts[graceParts]
	if total == 0 {
		return nil
	}
	order := resize(g.order, total)
	g.order = order
	next := counts
	for i, p := range parts {
		if p != 0xff {
			order[next[p]] = int32(i)
			next[p]++
		}
	}
	taken := make([]arrow.Array, len(cols))
	defer releaseAll(taken)
	for c, col := range cols {
		if col == nil {
			continue
		}
		var err error
		if taken[c], err = columnar.Take(h.st.ctx.Alloc, col, order); err != nil {
			return err
		}
	}
	s := &g.sides[side]
	out := make([]arrow.Array, len(cols))
	for p := 0; p < graceParts; p++ {
		lo, hi := counts[p], counts[p+1]
		if lo == hi {
			continue
		}
		if s.writers[p] == nil {
			w, err := g.files.NewSpillWriter("join", s.schema, h.st.ctx.Alloc)
			if err != nil {
				return err
			}
			s.writers[p] = w
		}
		for c, col := range taken {
			if col == nil {
				out[c] = array.NewNull(hi - lo)
			} else {
				out[c] = array.NewSlice(col, int64(lo), int64(hi))
			}
		}
		rec := array.NewRecordBatch(s.schema, out, int64(hi-lo))
		releaseAll(out)
		err := s.writers[p].Write(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("hash join partition %d: %w", p, err)
		}
	}
	return nil
}

// partition sets the partition of every valid row, from the bits of its key hash for level.
func (g *graceState) partition(keys []arrow.Array, n int, valid []int32, parts []uint8, level int) error {
	shift := uint(64 - graceBits*(level+1))
	t := g.hash
	switch t.kind {
	case wordKeys, word2Keys:
		if err := t.words(keys, n); err != nil {
			return err
		}
		for _, i := range valid {
			x := t.sc.w0[i]
			if t.kind == word2Keys {
				x = hash2(x, t.sc.w1[i])
			}
			parts[i] = uint8(fmix(x^g.mix) >> shift & (graceParts - 1))
		}
	default:
		offs, data, err := t.keyBytes(keys, n, valid)
		if err != nil {
			return err
		}
		for _, i := range valid {
			x := maphash.Bytes(g.seed, data[offs[i]:offs[i+1]])
			parts[i] = uint8(fmix(x) >> shift & (graceParts - 1))
		}
	}
	return nil
}

// fmix is murmur3's 64-bit finalizer: every input bit affects every output bit.
func fmix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb34fe63bac53
	x ^= x >> 33
	return x
}

// graceNext returns the next output batch of the partitions' joins.
func (h *HashJoin) graceNext() (*columnar.Batch, error) {
	g := h.grace
	for {
		if g.sub == nil {
			if g.part >= graceParts {
				return nil, nil
			}
			p := g.part
			g.part++
			bp, pp := g.sides[buildSide].paths[p], g.sides[probeSide].paths[p]
			g.sides[buildSide].paths[p], g.sides[probeSide].paths[p] = "", ""
			if bp == "" && pp == "" {
				continue
			}
			sub := h.subJoin(&spillSource{files: g.files, path: bp, schema: g.sides[buildSide].schema},
				&spillSource{files: g.files, path: pp, schema: g.sides[probeSide].schema})
			g.sub = sub
			if err := sub.Open(h.st.ctx); err != nil {
				return nil, err
			}
		}
		b, err := g.sub.Next()
		if err != nil || b != nil {
			return b, err
		}
		g.closeSub(h)
	}
}

// subJoin is the join of one partition: this join over spilled inputs, whose keys are their first
// columns.
func (h *HashJoin) subJoin(build, probe exec.Operator) *HashJoin {
	nk := len(h.buildKeys)
	s := &HashJoin{spec: h.spec, probeIsLeft: h.probeIsLeft, probeOuter: h.probeOuter, buildOuter: h.buildOuter,
		level: h.level + 1, prefixed: true, probe: probe, build: build}
	if h.probeIsLeft {
		s.left, s.right = probe, build
	} else {
		s.left, s.right = build, probe
	}
	for i, k := range h.buildKeys {
		s.buildKeys = append(s.buildKeys, expr.NewColumn(i, "key"+strconv.Itoa(i), k.Type()))
		s.probeKeys = append(s.probeKeys, expr.NewColumn(i, "key"+strconv.Itoa(i), h.probeKeys[i].Type()))
	}
	shift := func(sides []side) []side {
		out := make([]side, len(sides))
		for i, sd := range sides {
			out[i] = side{build: sd.build, col: sd.col + nk}
		}
		return out
	}
	s.out, s.cond = shift(h.out), shift(h.cond)
	s.keep = append(make([]bool, nk), h.keep...)
	// A partition's build is its own: never the executor's shared build of the broadcast.
	s.spec.Shared = nil
	return s
}

func (g *graceState) closeSub(h *HashJoin) {
	if g.sub == nil {
		return
	}
	g.sub.Close()
	h.spilledMem += g.sub.spilledMem
	h.spilledDisk += g.sub.spilledDisk
	g.sub = nil
}

// close ends the grace join: the partition being joined, the writers, and the files left.
func (g *graceState) close() {
	if g.sub != nil {
		g.sub.Close()
		g.sub = nil
	}
	for s := range g.sides {
		for p, w := range g.sides[s].writers {
			if w != nil {
				w.Abort()
				g.sides[s].writers[p] = nil
			}
		}
		for p, path := range g.sides[s].paths {
			if path != "" {
				_ = g.files.Remove(path)
				g.sides[s].paths[p] = ""
			}
		}
	}
	if g.own {
		_ = g.files.RemoveAll()
	}
}

// spillSource reads one spilled partition (none: empty) as a join child; the file is removed
// when it closes.
type spillSource struct {
	files  *memory.SpillFiles
	path   string
	schema *arrow.Schema
	rd     *memory.SpillReader
}

func (s *spillSource) Schema() []sparktype.Field { return nil }

func (s *spillSource) Open(ctx *exec.TaskContext) error {
	if s.path == "" {
		return nil
	}
	rd, err := s.files.OpenSpill(s.path, ctx.Alloc)
	if err != nil {
		return err
	}
	s.rd = rd
	return nil
}

func (s *spillSource) Next() (*columnar.Batch, error) {
	if s.rd == nil {
		return nil, nil
	}
	rec, err := s.rd.Next()
	if err != nil || rec == nil {
		s.Close()
		return nil, err
	}
	return columnar.FromRecord(rec), nil
}

func (s *spillSource) Close() {
	if s.rd != nil {
		_ = s.rd.Close()
		s.rd = nil
	} else if s.path != "" {
		_ = s.files.Remove(s.path)
	}
	s.path = ""
}
