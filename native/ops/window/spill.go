package window

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/memory"
)

// Spilling. The operator holds one partition at a time: the one still open (pending). When Spark
// refuses a reservation while the partition grows, or asks the task for memory at a safe point
// (exec.RelieveMemory), the partition's rows go to a spill file, Arrow IPC with one more column
// (whether the row starts a peer group), and its further rows follow them there. Meanwhile the
// whole-partition aggregates are added up as the rows are written.
//
// When the partition closes, its output is computed piece by piece as the file is read back
// (drain): ranks and row numbers carry over from piece to piece, running aggregates too; lag and
// lead keep as many rows behind and read as many ahead as their offsets. The RANGE frames and
// cume_dist need the end of each row's peer group (and the running aggregates there), which may
// lie any number of rows ahead: a second reader of the same file (lookahead) runs ahead of the
// pieces being output and notes, for each peer group, where it ends and the aggregates at its
// end, without keeping the rows. So a spilled partition holds a piece, its largest offset and a
// few numbers per peer group of the piece, however long a peer group is.

// requestSpillMin is the least a spill that Spark asked for (no refusal) writes: Spark may ask at
// every batch, and small partitions are cheaper held than spilled.
const requestSpillMin = 1 << 20

// openSpill is the open partition, written to disk.
type openSpill struct {
	w      *memory.SpillWriter
	schema *arrow.Schema
	rows   int
	// part: per function, the aggregate of the whole partition (FramePartition only), added up
	// as the rows are written.
	part []*aggAcc
	// partPick: per function, the pick of the whole partition (picking aggregates over
	// FramePartition only), made as the rows are written.
	partPick []*pickAcc
}

// SpillMetrics reports the bytes spilled so far: the Arrow bytes of the rows written (Spark's
// memory bytes spilled) and the bytes on disk.
func (w *Window) SpillMetrics() (memBytes, diskBytes int64) { return w.spilledMem, w.spilledDisk }

// SpillNow writes the open partition's rows to disk, at a safe point (between two calls of the
// child: its rows are whole pieces then).
func (w *Window) SpillNow() (bool, error) {
	if w.ctx == nil || len(w.pending) == 0 {
		return false, nil
	}
	if a := w.ctx.Alloc; a != nil && !a.OutOfMemory() && w.pendingBytes() < requestSpillMin {
		return false, nil
	}
	return true, w.spillPending()
}

func (w *Window) pendingBytes() int64 {
	var n int64
	for _, p := range w.pending {
		n += memory.ArraysBytes(p.b.Cols)
	}
	return n
}

func (w *Window) spillFiles() *memory.SpillFiles {
	if w.files == nil {
		w.files = w.ctx.Spill
		if w.files == nil {
			w.files, w.ownFiles = memory.NewSpillFiles(nil), true
		}
	}
	return w.files
}

// spillPending moves the open partition's rows from memory to its spill file.
func (w *Window) spillPending() error {
	for len(w.pending) > 0 {
		p := w.pending[0]
		w.pending[0] = piece{}
		w.pending = w.pending[1:]
		if err := w.spillAppend(p.b, p.newPeer); err != nil {
			return err
		}
	}
	w.pending = nil
	return nil
}

// spillAppend writes rows of the open partition (consuming b) with their peer flags.
func (w *Window) spillAppend(b *columnar.Batch, newPeer []bool) error {
	defer b.Release()
	sp := w.spilled
	if sp == nil {
		fields := make([]arrow.Field, len(b.Cols)+1)
		for i, c := range b.Cols {
			fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: c.DataType(), Nullable: true}
		}
		fields[len(b.Cols)] = arrow.Field{Name: "peer", Type: arrow.FixedWidthTypes.Boolean}
		schema := arrow.NewSchema(fields, nil)
		sw, err := w.spillFiles().NewSpillWriter("window", schema, w.ctx.Alloc)
		if err != nil {
			return err
		}
		sp = &openSpill{w: sw, schema: schema, part: make([]*aggAcc, len(w.funcs)),
			partPick: make([]*pickAcc, len(w.funcs))}
		for i, f := range w.funcs {
			if f.Kind == Aggregate && f.Frame == FramePartition && f.Agg.picks() {
				sp.partPick[i] = newPickAcc(f)
			} else if f.Kind == Aggregate && f.Frame == FramePartition {
				acc := newAggAcc(f)
				sp.part[i] = &acc
			}
		}
		w.spilled = sp
	}
	for i, acc := range sp.part {
		if acc == nil {
			continue
		}
		c, err := w.funcs[i].Input.Eval(w.ctx, b)
		if err != nil {
			return err
		}
		err = acc.feed(c, nil, nil, 0)
		c.Release()
		if err != nil {
			return err
		}
	}
	for i, acc := range sp.partPick {
		if acc == nil {
			continue
		}
		c, err := w.funcs[i].Input.Eval(w.ctx, b)
		if err != nil {
			return err
		}
		acc.feed(c, 0, nil, nil)
		err = acc.hold(w.ctx.Alloc, c)
		c.Release()
		if err != nil {
			return err
		}
	}
	fb := array.NewBooleanBuilder(w.ctx.Alloc)
	fb.AppendValues(newPeer, nil)
	flags := fb.NewArray()
	fb.Release()
	defer flags.Release()
	cols := append(append(make([]arrow.Array, 0, len(b.Cols)+1), b.Cols...), flags)
	rec := columnar.NewBatch(cols, b.NumRows).Record(sp.schema)
	err := sp.w.Write(rec)
	rec.Release()
	if err != nil {
		return fmt.Errorf("window: spill a partition: %w", err)
	}
	sp.rows += b.NumRows
	return nil
}

// closeSpilled ends the open spilled partition: its output is queued, to be computed as the file
// is read back.
func (w *Window) closeSpilled() error {
	sp := w.spilled
	w.spilled = nil
	path, disk, err := sp.w.Finish()
	w.spilledMem += sp.w.MemBytes
	w.spilledDisk += disk
	if err != nil {
		_ = w.files.Remove(path)
		return err
	}
	d := &drain{w: w, path: path, n: sp.rows, part: sp.part, partPick: sp.partPick,
		acc: make([]*aggAcc, len(w.funcs)), pick: make([]*pickAcc, len(w.funcs))}
	for i, f := range w.funcs {
		switch {
		case f.Kind == Offset && f.Rows < 0:
			d.maxLag = max(d.maxLag, int(-f.Rows))
		case f.Kind == Offset:
			d.maxLead = max(d.maxLead, int(f.Rows))
		case f.Kind == CumeDist, f.Kind == Aggregate && f.Frame == FrameRunningRange:
			if d.la == nil {
				d.la = &lookahead{acc: make([]*aggAcc, len(w.funcs)), last: make([]*running, len(w.funcs)),
					states: make([]*running, len(w.funcs)), pick: make([]*pickAcc, len(w.funcs)),
					picked: make([]pickedGroups, len(w.funcs))}
			}
		}
		switch {
		case f.Kind != Aggregate || !f.Agg.picks():
		case f.Frame == FrameRunningRows:
			d.pick[i] = newPickAcc(f)
			continue
		case f.Frame == FrameRunningRange:
			d.la.pick[i] = newPickAcc(f)
			continue
		default:
			continue
		}
		if f.Kind == Aggregate && f.Frame == FrameRunningRows {
			acc := newAggAcc(f)
			d.acc[i] = &acc
		}
		if f.Kind == Aggregate && f.Frame == FrameRunningRange {
			acc := newAggAcc(f)
			d.la.acc[i] = &acc
			d.la.last[i] = acc.state()
			d.la.states[i] = newRunning(0, acc.floating)
		}
	}
	w.out = append(w.out, outItem{d: d})
	return nil
}

// abortSpilled drops the open spilled partition (Close on an error path).
func (w *Window) abortSpilled() {
	if w.spilled != nil {
		for _, acc := range w.spilled.partPick {
			if acc != nil {
				acc.release()
			}
		}
		w.spilled.w.Abort()
		w.spilled = nil
	}
}

// drain computes a spilled partition's output as its file is read back.
type drain struct {
	w        *Window
	path     string
	r        *memory.SpillReader
	n        int // the partition's rows
	part     []*aggAcc
	partPick []*pickAcc
	// acc, pick: per running aggregate or pick (ROWS frame), its state after the rows loaded.
	acc  []*aggAcc
	pick []*pickAcc
	// loaded are the pieces read and kept: those lag still reads, the head (the next to emit)
	// and those read ahead.
	loaded     []loadedPiece
	head       int
	loadedRows int
	eof        bool
	// The ranks of the last row emitted.
	rank, dense     int
	maxLag, maxLead int
	// la reads ahead for the functions that need the end of each row's peer group (nil: none).
	la *lookahead
}

// lookahead reads a spilled partition ahead of the drain's pieces, on its own reader of the file,
// and notes where each peer group ends and, for the RANGE frames, the running aggregates there.
type lookahead struct {
	r *memory.SpillReader
	// acc: per function, its running aggregate when it has a RANGE frame (else nil); last: its
	// state after the last row read.
	acc  []*aggAcc
	last []*running
	rows int // rows read
	eof  bool
	// ends are the ends (exclusive partition rows) of the peer groups found and not yet passed by
	// the pieces output, in order; states[i] holds, row k for ends[k], function i's aggregate over
	// the partition up to there (RANGE frames only, else nil). Columns rather than a struct per
	// group: with unique ORDER BY keys there is a group per row.
	ends   []int
	states []*running
	// pick: per picking function with a RANGE frame, its running pick (else nil); picked: the
	// values picked at the ends of the groups in ends.
	pick   []*pickAcc
	picked []pickedGroups
}

// push appends row j of from to r.
func (r *running) push(from *running, j int) {
	r.cnts, r.valid = append(r.cnts, from.cnts[j]), append(r.valid, from.valid[j])
	if from.flts != nil {
		r.flts = append(r.flts, from.flts[j])
	} else {
		r.ints = append(r.ints, from.ints[j])
	}
}

// dropFirst removes r's first k rows.
func (r *running) dropFirst(k int) {
	r.cnts, r.valid = r.cnts[k:], r.valid[k:]
	if r.flts != nil {
		r.flts = r.flts[k:]
	} else {
		r.ints = r.ints[k:]
	}
}

type loadedPiece struct {
	b     *columnar.Batch
	peer  []bool
	start int // the partition row of b's first row
	// inputs: per lag/lead, its input over b; runs: per running aggregate, its value after each
	// row of b.
	inputs []arrow.Array
	runs   []*running
	// Per running pick: its value after each row of b, among the sources b's input (inputs[i])
	// and the value picked before b (pickHeld[i], nil if none).
	pickRefs [][]columnar.RowRef
	pickHeld []arrow.Array
}

func (p *loadedPiece) end() int { return p.start + p.b.NumRows }

func (p *loadedPiece) release() {
	p.b.Release()
	releaseAll(p.inputs)
	releaseAll(p.pickHeld)
}

func (d *drain) close() {
	if d.la != nil && d.la.r != nil {
		_ = d.la.r.Close()
		d.la.r = nil
	}
	for i := range d.loaded {
		d.loaded[i].release()
	}
	d.loaded = nil
	for _, accs := range [][]*pickAcc{d.partPick, d.pick} {
		for _, acc := range accs {
			if acc != nil {
				acc.release()
			}
		}
	}
	if d.la != nil {
		for i := range d.la.picked {
			d.la.picked[i].release()
		}
		for _, acc := range d.la.pick {
			if acc != nil {
				acc.release()
			}
		}
	}
	if d.r != nil {
		_ = d.r.Close() // removes the file
		d.r = nil
	} else if d.path != "" {
		_ = d.w.files.Remove(d.path)
	}
	d.path = ""
}

// load reads the next piece of the file, or notes its end.
func (d *drain) load() error {
	w := d.w
	if d.r == nil {
		r, err := w.files.OpenSpill(d.path, w.ctx.Alloc)
		if err != nil {
			return fmt.Errorf("window: read a spilled partition back: %w", err)
		}
		d.r = r
	}
	rec, err := d.r.Next()
	if err != nil {
		return fmt.Errorf("window: read a spilled partition back: %w", err)
	}
	if rec == nil {
		d.eof = true
		return nil
	}
	n := int(rec.NumRows())
	ncols := int(rec.NumCols()) - 1
	cols := make([]arrow.Array, ncols)
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	flags, ok := rec.Column(ncols).(*array.Boolean)
	if !ok {
		releaseAll(cols)
		return fmt.Errorf("window: spilled partition without its peer flags")
	}
	p := loadedPiece{b: columnar.NewBatch(cols, n), peer: make([]bool, n), start: d.loadedRows,
		inputs: make([]arrow.Array, len(w.funcs)), runs: make([]*running, len(w.funcs)),
		pickRefs: make([][]columnar.RowRef, len(w.funcs)), pickHeld: make([]arrow.Array, len(w.funcs))}
	for r := range p.peer {
		p.peer[r] = flags.Value(r)
	}
	d.loaded = append(d.loaded, p)
	d.loadedRows += n
	pp := &d.loaded[len(d.loaded)-1]
	for i, f := range w.funcs {
		switch {
		case f.Kind == Offset:
			c, err := f.Input.Eval(w.ctx, pp.b)
			if err != nil {
				return err
			}
			pp.inputs[i] = c
		case d.pick[i] != nil:
			c, err := f.Input.Eval(w.ctx, pp.b)
			if err != nil {
				return err
			}
			pp.inputs[i] = c
			acc := d.pick[i]
			if acc.held != nil {
				acc.held.Retain()
				pp.pickHeld[i] = acc.held
			}
			pp.pickRefs[i] = make([]columnar.RowRef, n)
			acc.feed(c, 0, nil, pp.pickRefs[i])
			if err := acc.hold(w.ctx.Alloc, c); err != nil {
				return err
			}
		case d.acc[i] != nil:
			c, err := f.Input.Eval(w.ctx, pp.b)
			if err != nil {
				return err
			}
			pp.runs[i] = newRunning(n, d.acc[i].floating)
			err = d.acc[i].feed(c, nil, pp.runs[i], 0)
			c.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// ready reports whether the head piece can be computed: what lead reads and the peer group of its
// last row are loaded.
func (d *drain) ready() bool {
	if d.eof {
		return true
	}
	if d.head >= len(d.loaded) {
		return false
	}
	end := d.loaded[d.head].end()
	return d.loadedRows >= end+d.maxLead
}

// locate returns the loaded piece holding partition row g.
func (d *drain) locate(g int) int {
	for q := range d.loaded {
		if g < d.loaded[q].end() {
			return q
		}
	}
	return len(d.loaded) - 1
}

// reach reads ahead until the peer group of partition row end-1 is found (or the file's end).
func (la *lookahead) reach(d *drain, end int) error {
	for !la.eof && (len(la.ends) == 0 || la.ends[len(la.ends)-1] < end) {
		if err := la.advance(d); err != nil {
			return err
		}
	}
	return nil
}

// advance reads the next piece of the file: it notes the peer groups that end in it (the
// running aggregates before each peer start) and drops the rows.
func (la *lookahead) advance(d *drain) error {
	w := d.w
	if la.r == nil {
		r, err := w.files.OpenSpill(d.path, w.ctx.Alloc)
		if err != nil {
			return fmt.Errorf("window: read a spilled partition ahead: %w", err)
		}
		la.r = r
	}
	rec, err := la.r.Next()
	if err != nil {
		return fmt.Errorf("window: read a spilled partition ahead: %w", err)
	}
	if rec == nil {
		la.eof = true
		if la.rows > 0 {
			la.ends = append(la.ends, la.rows)
			for i, st := range la.states {
				if st != nil {
					st.push(la.last[i], 0)
				}
			}
			for i, acc := range la.pick {
				if acc == nil {
					continue
				}
				v, err := acc.final(w.ctx.Alloc, w.funcs[i].Input.Type().Arrow())
				if err != nil {
					return err
				}
				la.picked[i].add(v)
			}
		}
		return nil
	}
	n := int(rec.NumRows())
	ncols := int(rec.NumCols()) - 1
	flags, ok := rec.Column(ncols).(*array.Boolean)
	if !ok {
		return fmt.Errorf("window: spilled partition without its peer flags")
	}
	cols := make([]arrow.Array, ncols)
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	b := columnar.NewBatch(cols, n)
	defer b.Release()
	runs := make([]*running, len(la.acc))
	for i, acc := range la.acc {
		if acc == nil {
			continue
		}
		c, err := w.funcs[i].Input.Eval(w.ctx, b)
		if err != nil {
			return err
		}
		runs[i] = newRunning(n, acc.floating)
		err = acc.feed(c, nil, runs[i], 0)
		c.Release()
		if err != nil {
			return err
		}
	}
	if err := la.advancePicks(d, b, flags); err != nil {
		return err
	}
	// A peer start at row r ends the group before it, whose aggregates are the state after row
	// r-1 (of this piece, or of the last one).
	for r := 0; r < n; r++ {
		if !flags.Value(r) || la.rows+r == 0 {
			continue
		}
		la.ends = append(la.ends, la.rows+r)
		for i, run := range runs {
			switch {
			case run == nil:
			case r == 0:
				la.states[i].push(la.last[i], 0)
			default:
				la.states[i].push(run, r-1)
			}
		}
	}
	for i, run := range runs {
		if run != nil && n > 0 {
			la.last[i].copyRow(0, run, n-1)
		}
	}
	la.rows += n
	return nil
}

// next returns the output of the next piece, or nil at the partition's end.
func (d *drain) next() (*columnar.Batch, error) {
	for !d.ready() {
		if err := d.load(); err != nil {
			return nil, err
		}
	}
	// A refusal now: the other operators of the task may spill (a window above this one holding
	// its own partition, a sort...); what the drain holds cannot be spilled again, so if they
	// free nothing (a peer group larger than the memory granted), the task fails with the
	// reservation message.
	if a := d.w.ctx.Alloc; a != nil && a.OutOfMemory() {
		if err := d.w.ctx.RelieveMemory(); err != nil {
			return nil, err
		}
		if a.OutOfMemory() && !a.TrimToFit() {
			return nil, fmt.Errorf("window: reading a spilled partition back: %w", a.Err())
		}
	}
	if d.head >= len(d.loaded) {
		return nil, nil
	}
	w := d.w
	hp := &d.loaded[d.head]
	n := hp.b.NumRows
	la := d.la
	if la != nil {
		if err := la.reach(d, hp.end()); err != nil {
			return nil, err
		}
		drop := 0
		for drop < len(la.ends) && la.ends[drop] <= hp.start {
			drop++
		}
		la.ends = la.ends[drop:]
		for _, st := range la.states {
			if st != nil {
				st.dropFirst(drop)
			}
		}
		for i := range la.picked {
			la.picked[i].dropFirst(drop)
		}
	}
	// The ranks and peer groups (ends, and their index in la.ends) of the head's rows.
	ranks, denses, ends, groups := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	gi := 0
	for r := 0; r < n; r++ {
		g := hp.start + r
		if hp.peer[r] || g == 0 {
			d.rank = g + 1
			d.dense++
		}
		ranks[r], denses[r] = d.rank, d.dense
		if la != nil {
			for la.ends[gi] <= g {
				gi++
			}
			ends[r], groups[r] = la.ends[gi], gi
		}
	}
	cols := make([]arrow.Array, 0, len(w.schema))
	fail := func(err error) (*columnar.Batch, error) {
		releaseAll(cols)
		return nil, err
	}
	for _, c := range hp.b.Cols {
		c.Retain()
		cols = append(cols, c)
	}
	alloc := w.ctx.Alloc
	for i, f := range w.funcs {
		var col arrow.Array
		var err error
		switch f.Kind {
		case RowNumber, Rank, DenseRank, NTile:
			var vals []int32
			col, vals = int32Column(alloc, n)
			for r := range vals {
				switch f.Kind {
				case RowNumber:
					vals[r] = int32(hp.start + r + 1)
				case Rank:
					vals[r] = int32(ranks[r])
				case DenseRank:
					vals[r] = int32(denses[r])
				case NTile:
					vals[r] = int32(ntile(hp.start+r, d.n, f.Buckets))
				}
			}
		case PercentRank, CumeDist:
			var vals []float64
			col, vals = float64Column(alloc, n)
			for r := range vals {
				switch {
				case f.Kind == CumeDist:
					vals[r] = float64(ends[r]) / float64(d.n)
				case d.n > 1:
					vals[r] = float64(ranks[r]-1) / float64(d.n-1)
				}
			}
		case Offset:
			col, err = d.offsetColumn(i, f, hp)
		case Aggregate:
			if f.Agg.picks() {
				col, err = d.pickColumn(i, f, hp, groups)
				break
			}
			idx := make([]int, n)
			var run *running
			switch f.Frame {
			case FramePartition:
				run = d.part[i].state() // idx all 0
			case FrameRunningRows:
				run = hp.runs[i]
				for r := range idx {
					idx[r] = r
				}
			case FrameRunningRange:
				run = newRunning(n, la.acc[i].floating)
				for r := range idx {
					run.copyRow(r, la.states[i], groups[r])
					idx[r] = r
				}
			}
			col, err = f.aggColumn(alloc, run, idx, newAggAcc(f).floating)
		}
		if err != nil {
			return fail(err)
		}
		cols = append(cols, col)
	}
	out := columnar.NewBatch(cols, n)
	d.head++
	// Drop the pieces lag no longer reads.
	next := hp.end()
	drop := 0
	for drop < d.head && d.loaded[drop].end() <= next-d.maxLag {
		d.loaded[drop].release()
		drop++
	}
	if drop > 0 {
		d.loaded = append(d.loaded[:0], d.loaded[drop:]...)
		d.head -= drop
	}
	return out, nil
}

// offsetColumn gathers lag/lead's input at Rows from each row of hp, within the partition.
func (d *drain) offsetColumn(i int, f *Function, hp *loadedPiece) (arrow.Array, error) {
	alloc := d.w.ctx.Alloc
	srcs := make([]arrow.Array, 0, len(d.loaded)+1)
	for q := range d.loaded {
		srcs = append(srcs, d.loaded[q].inputs[i])
	}
	def := columnar.NullRef
	var defCol arrow.Array
	if f.Default != nil {
		c, err := columnar.Constant(alloc, f.Input.Type(), f.Default, 1)
		if err != nil {
			return nil, err
		}
		defCol = c
		defer defCol.Release()
		def = columnar.RowRef{Src: uint32(len(srcs)), Row: 0}
		srcs = append(srcs, c)
	}
	refs := make([]columnar.RowRef, hp.b.NumRows)
	for r := range refs {
		t := int64(hp.start+r) + f.Rows
		if t < 0 || t >= int64(d.n) {
			refs[r] = def
			continue
		}
		q := d.locate(int(t))
		refs[r] = columnar.RowRef{Src: uint32(q), Row: uint32(int(t) - d.loaded[q].start)}
	}
	return columnar.Gather(alloc, srcs, refs)
}
