// Package window owns the native Window operator: Spark's WindowExec over a child sorted by the
// partition keys then the order keys. It reads the sorted stream partition by partition, holding
// the rows of the partition still open (copied into task memory, or written to disk when Spark
// refuses memory: spill.go), and appends one column per window function to every row, in the
// order of Spark's windowExpression.
package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Window computes window functions over partitions of a sorted child.
type Window struct {
	child     exec.Operator
	partKeys  []expr.Expr
	orderKeys []expr.Expr
	funcs     []*Function
	schema    []sparktype.Field

	ctx *exec.TaskContext
	// pending holds the rows of the partition still open: copies in task memory, so that Spark's
	// memory manager sees what a long partition holds.
	pending []piece
	// prevPart, prevOrder are the keys of the last row read (one-row copies), the row the next
	// batch's first row is compared with.
	prevPart, prevOrder []arrow.Array
	// out is the output ready to go, in order: batches, and spilled partitions computed as they
	// are read back.
	out  []outItem
	done bool

	// spilled is the open partition when its rows went to disk (spill.go); nil while in pending.
	spilled                 *openSpill
	files                   *memory.SpillFiles
	ownFiles                bool // files is the operator's own (no task registry): removed at close
	spilledMem, spilledDisk int64
}

// outItem is a batch of output, or a spilled partition whose output is computed as it is read.
type outItem struct {
	b *columnar.Batch
	d *drain
}

// piece is a run of rows of a segment, with, per row, whether it starts a partition and whether
// it starts a peer group (a new partition also starts a peer group).
type piece struct {
	b                *columnar.Batch
	newPart, newPeer []bool
}

// New builds the operator; funcs are in Spark's windowExpression order and fields are their
// output attributes.
func New(child exec.Operator, partKeys, orderKeys []expr.Expr, funcs []*Function, fields []sparktype.Field) (*Window, error) {
	for _, k := range append(append([]expr.Expr(nil), partKeys...), orderKeys...) {
		if err := KeySupported(k.Type()); err != nil {
			return nil, err
		}
	}
	if len(funcs) != len(fields) {
		return nil, fmt.Errorf("window: %d functions for %d output columns", len(funcs), len(fields))
	}
	for i, f := range funcs {
		if err := f.check(); err != nil {
			return nil, err
		}
		if !f.resultType().Equal(fields[i].Type) {
			return nil, fmt.Errorf("window function %s returns %s, Spark's output %s", f.Kind, f.resultType(), fields[i].Type)
		}
	}
	schema := append(append([]sparktype.Field(nil), child.Schema()...), fields...)
	return &Window{child: child, partKeys: partKeys, orderKeys: orderKeys, funcs: funcs, schema: schema}, nil
}

func (w *Window) Schema() []sparktype.Field { return w.schema }

func (w *Window) Open(ctx *exec.TaskContext) error {
	w.ctx = ctx
	ctx.Spillers = append(ctx.Spillers, w)
	return w.child.Open(ctx)
}

func (w *Window) Close() {
	for _, p := range w.pending {
		p.b.Release()
	}
	w.pending = nil
	for _, it := range w.out {
		if it.b != nil {
			it.b.Release()
		}
		if it.d != nil {
			it.d.close()
		}
	}
	w.out = nil
	w.abortSpilled()
	if w.ownFiles {
		_ = w.files.RemoveAll()
		w.files, w.ownFiles = nil, false
	}
	releaseAll(w.prevPart)
	releaseAll(w.prevOrder)
	w.prevPart, w.prevOrder = nil, nil
	w.child.Close()
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func (w *Window) Next() (*columnar.Batch, error) {
	for {
		if len(w.out) > 0 {
			it := w.out[0]
			if it.d != nil {
				b, err := it.d.next()
				if err != nil || b != nil {
					return b, err
				}
				it.d.close()
			}
			w.out[0] = outItem{}
			w.out = w.out[1:]
			if it.b != nil {
				return it.b, nil
			}
			continue
		}
		if w.done {
			return nil, nil
		}
		b, err := w.child.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			w.done = true
			if w.spilled != nil {
				if err := w.closeSpilled(); err != nil {
					return nil, err
				}
				continue
			}
			pending := w.pending
			w.pending = nil
			if err := w.emit(pending); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.consume(b); err != nil {
			return nil, err
		}
	}
}

// consume splits b at its last partition start: the rows before it close the open partition (and
// whole partitions inside b) and are computed now; the rows from it on open the next partition.
func (w *Window) consume(b *columnar.Batch) error {
	defer b.Release()
	n := b.NumRows
	if n == 0 {
		return nil
	}
	newPart := make([]bool, n)
	newPeer := make([]bool, n)
	first := w.prevPart == nil
	if first {
		newPart[0] = true
	}
	if err := w.mark(b, w.partKeys, &w.prevPart, newPart); err != nil {
		return err
	}
	copy(newPeer, newPart)
	if err := w.mark(b, w.orderKeys, &w.prevOrder, newPeer); err != nil {
		return err
	}
	if w.prevPart == nil {
		w.prevPart = []arrow.Array{} // no partition keys: marks that a row was read
	}
	k := -1
	for i := n - 1; i >= 0; i-- {
		if newPart[i] {
			k = i
			break
		}
	}
	if w.spilled != nil {
		// The rows up to the first partition start continue the spilled partition.
		end := n
		for i := range newPart {
			if newPart[i] {
				end = i
				break
			}
		}
		if end > 0 {
			if err := w.spillAppend(slice(b, 0, end), newPeer[:end]); err != nil {
				return err
			}
			// What writing took (the IPC writer's buffers) is freed: a refusal meanwhile is
			// answered by the spill itself.
			w.relieved()
		}
		if end == n {
			return w.ctx.Alloc.Err()
		}
		if err := w.closeSpilled(); err != nil {
			return err
		}
		if end < k {
			if err := w.emit([]piece{{b: slice(b, end, k), newPart: newPart[end:k], newPeer: newPeer[end:k]}}); err != nil {
				return err
			}
		}
	} else if k > 0 {
		closed := append(w.pending, piece{b: slice(b, 0, k), newPart: newPart[:k], newPeer: newPeer[:k]})
		w.pending = nil
		if err := w.emit(closed); err != nil {
			return err
		}
	} else if k == 0 {
		closed := w.pending
		w.pending = nil
		if err := w.emit(closed); err != nil {
			return err
		}
	} else {
		k = 0
	}
	held, err := copyRows(w.ctx, b, k, n)
	if err != nil {
		return err
	}
	w.pending = append(w.pending, piece{b: held, newPart: newPart[k:], newPeer: newPeer[k:]})
	// A refused reservation: the open partition goes to disk (the rows of closed partitions are
	// output, not held). A refusal left after that (a peer group or an output larger than the
	// memory granted) is sticky in the allocator: stop with its message rather than go on holding
	// memory Spark did not grant.
	if a := w.ctx.Alloc; a != nil && a.OutOfMemory() {
		if err := w.spillPending(); err != nil {
			return err
		}
		w.relieved()
	}
	return w.ctx.Alloc.Err()
}

// relieved forgets a refused reservation once the open partition went to disk: the rows held
// are freed (and the allocator's cache of freed buffers dropped), as after any operator's spill.
func (w *Window) relieved() {
	if a := w.ctx.Alloc; a != nil && a.OutOfMemory() {
		a.Trim()
		a.ClearOutOfMemory()
	}
}

// mark evaluates keys over b, sets changed for rows whose keys differ from the row before, and
// keeps b's last row's keys in *prev.
func (w *Window) mark(b *columnar.Batch, keys []expr.Expr, prev *[]arrow.Array, changed []bool) error {
	if len(keys) == 0 {
		return nil
	}
	last := []int32{int32(b.NumRows - 1)}
	next := make([]arrow.Array, len(keys))
	for i, k := range keys {
		col, err := k.Eval(w.ctx, b)
		if err != nil {
			releaseAll(next)
			return err
		}
		var p arrow.Array
		if *prev != nil {
			p = (*prev)[i]
		}
		markChanges(p, col, changed)
		next[i], err = columnar.Take(w.ctx.Alloc, col, last)
		col.Release()
		if err != nil {
			releaseAll(next)
			return err
		}
	}
	releaseAll(*prev)
	*prev = next
	return nil
}

// slice returns rows [from, to) of b sharing its buffers (b keeps its own reference).
func slice(b *columnar.Batch, from, to int) *columnar.Batch {
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = array.NewSlice(c, int64(from), int64(to))
	}
	return columnar.NewBatch(cols, to-from)
}

// copyRows copies rows [from, to) of b into task memory.
func copyRows(ctx *exec.TaskContext, b *columnar.Batch, from, to int) (*columnar.Batch, error) {
	sel := make([]int32, to-from)
	for i := range sel {
		sel[i] = int32(from + i)
	}
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		t, err := columnar.Take(ctx.Alloc, c, sel)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols[i] = t
	}
	return columnar.NewBatch(cols, to-from), nil
}

// emit computes the window functions over pieces, whole partitions, and queues the output
// batches (consuming the pieces).
func (w *Window) emit(pieces []piece) error {
	if len(pieces) == 0 {
		return nil
	}
	defer func() {
		for _, p := range pieces {
			if p.b != nil {
				p.b.Release()
			}
		}
	}()
	seg := newSegment(pieces)
	results := make([][]arrow.Array, len(w.funcs))
	defer func() {
		for _, r := range results {
			releaseAll(r)
		}
	}()
	for i, f := range w.funcs {
		r, err := f.compute(w.ctx, seg)
		if err != nil {
			return err
		}
		results[i] = r
	}
	for pi := range pieces {
		p := &pieces[pi]
		cols := make([]arrow.Array, 0, len(w.schema))
		for _, c := range p.b.Cols {
			c.Retain()
			cols = append(cols, c)
		}
		for i := range w.funcs {
			cols = append(cols, results[i][pi])
			results[i][pi] = nil
		}
		w.out = append(w.out, outItem{b: columnar.NewBatch(cols, p.b.NumRows)})
	}
	return nil
}
