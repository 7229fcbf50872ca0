package join

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	arrowmem "github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// buildRows holds the build side of a hash join: the build rows whose keys have no null, copied
// into task memory (only the columns the join outputs or its condition reads), and the hash table
// over their keys.
//
// Build batches are copied rather than retained, as the sort does: a batch from the JVM lives in
// the JVM's Arrow allocator, which Spark does not count, and a sliced batch would pin its whole
// parent; the copy is C memory from ctx.Alloc, reserved from Spark, and lets the producer's
// buffers go at once. The table and the row index live on the Go heap and are reported to the task
// account with ctx.Alloc.Account, like the hash aggregate's table. Nothing the join outputs
// aliases these copies: output columns are gathered into new buffers, so releasing the build side
// (at the end of the probe side, or at Close) never pulls memory from under a parent.
type buildRows struct {
	ctx   *exec.TaskContext
	keys  []expr.Expr
	keep  []bool // per build column: copied (read by the output or the condition)
	table *table
	// outer: the join outputs build rows nothing matched, so rows with a null key are kept too
	// (in nullRefs: never in the table) and matched marks, per table row, that a pair was output.
	outer    bool
	nullRefs []columnar.RowRef
	// withKeys: the copies also hold the evaluated keys, as their last columns (after the build
	// child's), so that a join that runs out of memory can partition them (grace.go).
	withKeys bool
	matched  []bool

	batches []*columnar.Batch // the copies; columns not kept are nil
	cols    [][]arrow.Array   // per kept build column: its copy in every batch (gather sources)
	refs    []columnar.RowRef // per table row: its batch and row there
	rowsIn  int64             // rows the build child delivered, null keys included
	sel     []int32
	keyCols []arrow.Array
	// accounted is the Go heap last reported to the task's memory account.
	accounted int64
	// own, when set, is the allocator of the copies: a build meant to be shared (shared.go) is
	// copied outside the task's allocator, so that it can outlive the task; its bytes are
	// accounted to the task (account) until it is published.
	own *memory.TaskAllocator
}

func newBuildRows(ctx *exec.TaskContext, keys []expr.Expr, keep []bool, outer bool) (*buildRows, error) {
	kt := make([]sparktype.Type, len(keys))
	for i, k := range keys {
		kt[i] = k.Type()
	}
	t, err := newTable(kt)
	if err != nil {
		return nil, err
	}
	return &buildRows{ctx: ctx, keys: keys, keep: keep, table: t, outer: outer}, nil
}

// evalKeys evaluates key expressions over a batch into b.keyCols (released by releaseKeys).
func evalKeys(ctx *exec.TaskContext, keys []expr.Expr, in *columnar.Batch, out []arrow.Array) ([]arrow.Array, error) {
	out = out[:0]
	for _, k := range keys {
		col, err := k.Eval(ctx, in)
		if err == nil && col.Len() != in.NumRows {
			col.Release()
			err = fmt.Errorf("join key %s produced %d rows for a batch of %d", k, col.Len(), in.NumRows)
		}
		if err != nil {
			releaseAll(out)
			return out[:0], err
		}
		out = append(out, col)
	}
	return out, nil
}

func releaseAll(cols []arrow.Array) {
	for i, c := range cols {
		if c != nil {
			c.Release()
			cols[i] = nil
		}
	}
}

// add takes in the rows of one build batch (the caller keeps its reference to in).
func (b *buildRows) add(in *columnar.Batch) error {
	if in.NumRows == 0 {
		return nil
	}
	if len(in.Cols) != len(b.keep) {
		return fmt.Errorf("build side batch has %d columns, expected %d", len(in.Cols), len(b.keep))
	}
	b.rowsIn += int64(in.NumRows)
	var err error
	if b.keyCols, err = evalKeys(b.ctx, b.keys, in, b.keyCols); err != nil {
		return err
	}
	defer releaseAll(b.keyCols)
	// Rows with a null key can never match: unless the join outputs unmatched build rows, they
	// are not kept at all.
	b.sel = validRows(b.keyCols, in.NumRows, b.sel)
	if b.outer && len(b.sel) < in.NumRows {
		if err := b.keepRows(in, nullRows(b.sel, in.NumRows), &b.nullRefs); err != nil {
			return err
		}
	}
	if len(b.sel) == 0 {
		return nil
	}
	if err := b.keepRows(in, b.sel, &b.refs); err != nil {
		return err
	}
	return b.table.insert(b.keyCols, in.NumRows, b.sel)
}

// nullRows is the complement of the ascending rows sel in [0, n).
func nullRows(sel []int32, n int) []int32 {
	out := make([]int32, 0, n-len(sel))
	j := 0
	for i := int32(0); i < int32(n); i++ {
		if j < len(sel) && sel[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

// keepRows copies rows sel of the kept columns into task memory and appends their references to
// *refs.
func (b *buildRows) keepRows(in *columnar.Batch, sel []int32, refs *[]columnar.RowRef) error {
	anyKept := false
	for _, k := range b.keep {
		anyKept = anyKept || k
	}
	if !anyKept && !b.outer && !b.withKeys {
		return nil // a semi, anti or existence join without a condition needs the keys only
	}
	ncols := len(in.Cols)
	if b.withKeys {
		ncols += len(b.keyCols)
	}
	cols := make([]arrow.Array, ncols)
	for i := range cols {
		var c arrow.Array
		if i < len(in.Cols) {
			if !b.keep[i] {
				continue
			}
			c = in.Cols[i]
		} else {
			c = b.keyCols[i-len(in.Cols)]
			// A key that is a kept column (evaluated as the column itself) shares its copy.
			if j := slices.Index(in.Cols, c); j >= 0 && cols[j] != nil {
				cols[j].Retain()
				cols[i] = cols[j]
				continue
			}
		}
		var err error
		if cols[i], err = columnar.Take(b.copyAlloc(), c, sel); err != nil {
			releaseAll(cols)
			return err
		}
	}
	src := uint32(len(b.batches))
	b.batches = append(b.batches, columnar.NewBatch(cols, len(sel)))
	for j := range sel {
		*refs = append(*refs, columnar.RowRef{Src: src, Row: uint32(j)})
	}
	return nil
}

// copyAlloc is the allocator of the build's copies: exact-size buffers, from the task's allocator
// or from the build's own.
func (b *buildRows) copyAlloc() arrowmem.Allocator {
	if b.own != nil {
		return b.own.Lasting()
	}
	return b.ctx.Alloc.Lasting()
}

// finish ends the build: the gather sources per column, and the build-only scratch dropped.
func (b *buildRows) finish() {
	b.table.finish()
	b.sel, b.keyCols = nil, nil
	if b.outer {
		b.matched = make([]bool, len(b.refs))
	}
	b.cols = make([][]arrow.Array, len(b.keep))
	for c, k := range b.keep {
		if !k {
			continue
		}
		b.cols[c] = make([]arrow.Array, len(b.batches))
		for i, bt := range b.batches {
			b.cols[c][i] = bt.Cols[c]
		}
	}
}

// memSize is the Go heap the build side holds.
func (b *buildRows) memSize() int64 {
	if b.table == nil {
		return 0
	}
	return b.table.memSize() + int64(cap(b.refs)+cap(b.nullRefs))*8 + int64(cap(b.sel))*4 + int64(cap(b.batches))*8 +
		int64(cap(b.matched))
}

// account reports the Go heap (plus extra bytes about to be allocated) to the task's memory
// account and returns the allocator's error: a reservation Spark refused, for the C memory of the
// copies or for this heap.
func (b *buildRows) account(extra int64) error {
	a := b.ctx.Alloc
	if a == nil {
		return nil
	}
	size := b.memSize() + extra
	if b.own != nil {
		size += b.own.Used()
	}
	a.Account(size - b.accounted)
	b.accounted = size
	// A safe point for the operators below: those that can spill do so.
	if err := b.ctx.RelieveMemory(); err != nil {
		return err
	}
	return a.Err()
}

// release frees the copies and gives the accounted heap back; safe to call twice, and on nil.
func (b *buildRows) release() {
	if b == nil {
		return
	}
	for _, bt := range b.batches {
		bt.Release()
	}
	releaseAll(b.keyCols)
	b.batches, b.cols, b.refs, b.keyCols, b.sel = nil, nil, nil, nil, nil
	b.nullRefs, b.matched = nil, nil
	b.table = nil // the heap goes with the last reference, not at the join's Close
	if b.ctx != nil && b.ctx.Alloc != nil {
		b.ctx.Alloc.Account(-b.accounted)
	}
	b.accounted = 0
	if b.own != nil {
		b.own.ReleaseAll()
		b.own = nil
	}
}
