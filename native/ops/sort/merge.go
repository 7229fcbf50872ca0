package sort

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
)

// The k-way merge of a spilled sort's runs (spill.go). Each run is a spill file of rows in sorted
// order. A cursor per run holds one batch of it; the sort keys of every held batch are evaluated
// again (the keys are deterministic expressions over the rows, so they give the values the run was
// sorted by) into one set of key stores shared by all runs, so that the stores' comparators
// compare the current rows of any two runs. A loser tree picks the next row: log2(k) comparisons
// per row, and among rows equal on every key the one of the earliest run, whose rows came earlier
// in the input, so the merge is as stable as the in-memory sort.
//
// The stores grow by a batch whenever a cursor moves on; once they hold several times the rows of
// the batches still current they are compacted to those (entries of the output gathered before).

// mergeFanIn is the most runs merged at once: the merge holds a batch per run, so a sort that
// spilled more runs first merges the oldest ones into longer runs.
const mergeFanIn = 16

type runCursor struct {
	rd   *memory.SpillReader // nil once exhausted
	b    *columnar.Batch     // the current batch, nil once exhausted
	src  int                 // index of b in merger.batches
	base int                 // the key stores' row of b's first row
	pos  int                 // b's next row
}

type merger struct {
	ctx    *exec.TaskContext
	files  *memory.SpillFiles
	orders []Order
	ncols  int
	keys   []keyStore
	cmps   []func(a, b int32) int
	rows   int // rows in the key stores
	runs   []*runCursor
	// tree is the loser tree over runs: tree[0] the winner, tree[1:] the losers at the internal
	// nodes, whose children are 2n and 2n+1 (leaves are runs, at k+i).
	tree []int
	// batches are the batches the output being built reads, starts their rows in the key stores:
	// every run's current batch and the batches retired since the last output.
	batches []*columnar.Batch
	starts  []int
	out     []entry
	// accounted is the Go heap last reported to the task's memory account.
	accounted int64
}

// newMerger opens the runs (spill files, oldest first) and reads the first batch of each.
func newMerger(ctx *exec.TaskContext, files *memory.SpillFiles, orders []Order, ncols int, paths []string) (*merger, error) {
	m := &merger{ctx: ctx, files: files, orders: orders, ncols: ncols}
	for _, o := range orders {
		k, err := newKeyStore(o.Expr.Type())
		if err != nil {
			return nil, err
		}
		m.keys = append(m.keys, k)
	}
	for _, p := range paths {
		rd, err := files.OpenSpill(p, ctx.Alloc)
		if err != nil {
			m.close()
			return nil, err
		}
		m.runs = append(m.runs, &runCursor{rd: rd})
	}
	for i := range m.runs {
		if err := m.load(i); err != nil {
			m.close()
			return nil, err
		}
	}
	m.build()
	return m, nil
}

// less reports whether run a's current row comes before run b's; an exhausted run comes last.
func (m *merger) less(a, b int) bool {
	ra, rb := m.runs[a], m.runs[b]
	if ra.b == nil {
		return false
	}
	if rb.b == nil {
		return true
	}
	x, y := int32(ra.base+ra.pos), int32(rb.base+rb.pos)
	for _, cmp := range m.cmps {
		if c := cmp(x, y); c != 0 {
			return c < 0
		}
	}
	return a < b
}

// build plays the initial tournament. A node keeps the first contender to arrive; the second, the
// winner of the other subtree, plays it, and the winner goes on up.
func (m *merger) build() {
	k := len(m.runs)
	m.tree = make([]int, max(k, 1))
	for i := range m.tree {
		m.tree[i] = -1
	}
	for i := 0; i < k; i++ {
		winner := i
		for node := (i + k) / 2; node > 0; node /= 2 {
			if m.tree[node] < 0 {
				m.tree[node], winner = winner, -1
				break
			}
			if m.less(m.tree[node], winner) {
				m.tree[node], winner = winner, m.tree[node]
			}
		}
		if winner >= 0 {
			m.tree[0] = winner
		}
	}
}

// replay plays run w's new current row from its leaf to the root.
func (m *merger) replay(w int) {
	winner := w
	for node := (w + len(m.runs)) / 2; node > 0; node /= 2 {
		if m.less(m.tree[node], winner) {
			m.tree[node], winner = winner, m.tree[node]
		}
	}
	m.tree[0] = winner
}

// load moves run i to its next non-empty batch, appending its keys to the stores; at the end of
// the run it closes (removes) the file. The batch left stays in batches until the output is built.
func (m *merger) load(i int) error {
	r := m.runs[i]
	r.b, r.pos = nil, 0
	for r.rd != nil {
		rec, err := r.rd.Next()
		if err != nil {
			return err
		}
		if rec == nil {
			err := r.rd.Close()
			r.rd = nil
			return err
		}
		if rec.NumRows() == 0 {
			continue
		}
		b := columnar.FromRecord(rec)
		if len(b.Cols) != m.ncols {
			b.Release()
			return fmt.Errorf("sort spill file has %d columns, expected %d", len(b.Cols), m.ncols)
		}
		if err := m.appendKeys(b); err != nil {
			b.Release()
			return err
		}
		r.b, r.base, r.src = b, m.rows, len(m.batches)
		m.batches = append(m.batches, b)
		m.starts = append(m.starts, m.rows)
		m.rows += b.NumRows
		return nil
	}
	return nil
}

// appendKeys evaluates the sort keys over b into the stores and rebuilds the comparators (the
// appends may have moved the stores' slices).
func (m *merger) appendKeys(b *columnar.Batch) error {
	for i, o := range m.orders {
		col, err := o.Expr.Eval(m.ctx, b)
		if err == nil {
			if col.Len() != b.NumRows {
				err = fmt.Errorf("sort key %s produced %d rows for a batch of %d", o.Expr, col.Len(), b.NumRows)
			} else {
				err = m.keys[i].appendArray(col)
			}
			col.Release()
		}
		if err != nil {
			for _, k := range m.keys[:i] {
				k.truncate(m.rows)
			}
			return err
		}
	}
	m.comparators()
	return nil
}

func (m *merger) comparators() {
	m.cmps = m.cmps[:0]
	for i, k := range m.keys {
		m.cmps = append(m.cmps, k.comparator(m.orders[i].Descending, m.orders[i].NullsFirst))
	}
}

// next returns the next batch of merged rows, or nil at the end.
func (m *merger) next() (*columnar.Batch, error) {
	bs := m.ctx.BatchSize()
	m.out = m.out[:0]
	for len(m.out) < bs && len(m.runs) > 0 {
		w := m.tree[0]
		r := m.runs[w]
		if r.b == nil {
			break // every run is exhausted
		}
		m.out = append(m.out, entry{row: int32(r.base + r.pos), src: uint32(r.src)})
		if r.pos++; r.pos == r.b.NumRows {
			if err := m.load(w); err != nil {
				return nil, err
			}
		}
		m.replay(w)
	}
	if len(m.out) == 0 {
		return nil, nil
	}
	b, err := gatherBatch(m.ctx.Alloc, m.batches, m.starts, m.ncols, m.out)
	if err != nil {
		return nil, err
	}
	m.retire()
	if err := m.account(); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// retire releases the batches no run holds any more and, when the key stores hold more than
// twice the current batches' rows, compacts them to those.
func (m *merger) retire() {
	live := 0
	for _, r := range m.runs {
		if r.b != nil {
			live += r.b.NumRows
		}
	}
	current := make(map[int]bool, len(m.runs))
	for _, r := range m.runs {
		if r.b != nil {
			current[r.src] = true
		}
	}
	for i, b := range m.batches {
		if !current[i] {
			b.Release()
		}
	}
	m.batches, m.starts = m.batches[:0], m.starts[:0]
	compact := m.rows > 2*live+m.ctx.BatchSize()
	var ents []entry
	if compact {
		ents = make([]entry, 0, live)
	}
	base := 0
	for _, r := range m.runs {
		if r.b == nil {
			continue
		}
		if compact {
			for row := r.base; row < r.base+r.b.NumRows; row++ {
				ents = append(ents, entry{row: int32(row)})
			}
			r.base = base
			base += r.b.NumRows
		}
		r.src = len(m.batches)
		m.batches = append(m.batches, r.b)
		m.starts = append(m.starts, r.base)
	}
	if compact {
		for _, k := range m.keys {
			k.gatherRows(ents)
		}
		m.rows = live
		m.comparators()
	}
}

func (m *merger) memSize() int64 {
	size := int64(cap(m.out))*entrySize + int64(cap(m.tree)+cap(m.starts)+cap(m.batches))*8
	for _, k := range m.keys {
		size += k.memSize()
	}
	return size
}

// account reports the merge's Go heap to the task's memory account: a safe point, where other
// operators of the task may spill (the merge itself cannot).
func (m *merger) account() error {
	a := m.ctx.Alloc
	if a == nil {
		return nil
	}
	size := m.memSize()
	a.Account(size - m.accounted)
	m.accounted = size
	if err := m.ctx.RelieveMemory(); err != nil {
		return err
	}
	if err := a.Err(); err != nil {
		return fmt.Errorf("merging %d sorted runs: %w", len(m.runs), err)
	}
	return nil
}

// close releases the batches, closes (removes) the files not read to the end and gives the
// accounted heap back; safe to call twice.
func (m *merger) close() {
	for _, b := range m.batches {
		b.Release()
	}
	m.batches, m.starts = nil, nil
	for _, r := range m.runs {
		if r.rd != nil {
			_ = r.rd.Close()
			r.rd = nil
		}
		r.b = nil
	}
	for i := range m.keys {
		m.keys[i], _ = newKeyStore(m.orders[i].Expr.Type())
	}
	if m.ctx.Alloc != nil {
		m.ctx.Alloc.Account(-m.accounted)
	}
	m.accounted = 0
}
