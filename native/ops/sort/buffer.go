package sort

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// buffer holds the rows a sorting operator has consumed: the input rows copied into task memory
// (C memory from ctx.Alloc, counted and reserved from Spark by the allocator), and per sort key the
// key values in typed Go slices (accounted with ctx.Alloc.Account, like the hash aggregate's table).
//
// Input batches are copied rather than retained: a batch from the JVM lives in the JVM's Arrow
// allocator, which Spark does not count, and a sliced batch would pin its whole parent; a copy
// makes everything the sort holds visible to Spark's memory manager and lets the producer's
// buffers go at once.
type buffer struct {
	ctx     *exec.TaskContext
	orders  []Order
	ncols   int
	keys    []keyStore
	batches []*columnar.Batch
	starts  []int // starts[i] is the row number of batches[i]'s first row
	rows    int
	// dataBytes is the C memory of the copies (their Arrow buffers).
	dataBytes int64

	sorter    sorter
	ents, tmp []entry
	sel       []int32
	// accounted is the Go heap last reported to the task's memory account.
	accounted int64
}

func newBuffer(ctx *exec.TaskContext, orders []Order, ncols int) (*buffer, error) {
	b := &buffer{ctx: ctx, orders: orders, ncols: ncols}
	for _, o := range orders {
		k, err := newKeyStore(o.Expr.Type())
		if err != nil {
			return nil, err
		}
		b.keys = append(b.keys, k)
	}
	return b, nil
}

// appendKeys evaluates the sort keys over in and appends their values as rows b.rows onwards. On
// an error the stores are left as they were.
func (b *buffer) appendKeys(in *columnar.Batch) error {
	if int64(b.rows)+int64(in.NumRows) > math.MaxInt32 {
		return fmt.Errorf("a native sort holds at most %d rows per partition", math.MaxInt32)
	}
	n0 := b.rows
	for i, o := range b.orders {
		col, err := o.Expr.Eval(b.ctx, in)
		if err == nil {
			if col.Len() != in.NumRows {
				err = fmt.Errorf("sort key %s produced %d rows for a batch of %d", o.Expr, col.Len(), in.NumRows)
			} else {
				err = b.keys[i].appendArray(col)
			}
			col.Release()
		}
		if err != nil {
			for _, k := range b.keys[:i] {
				k.truncate(n0)
			}
			return err
		}
	}
	return nil
}

// keyRows is the number of rows in the key stores (b.rows plus keys appended but not yet kept).
func (b *buffer) keyRows() int {
	if len(b.keys) == 0 {
		return b.rows
	}
	return b.keys[0].len()
}

// keep copies rows sel of in (all rows when sel is nil) into task memory, as the rows whose keys
// were appended last.
func (b *buffer) keep(in *columnar.Batch, sel []int32) error {
	if sel == nil {
		if cap(b.sel) < in.NumRows {
			b.sel = make([]int32, in.NumRows)
		}
		sel = b.sel[:in.NumRows]
		for i := range sel {
			sel[i] = int32(i)
		}
	}
	if len(in.Cols) != b.ncols {
		return fmt.Errorf("sort input batch has %d columns, expected %d", len(in.Cols), b.ncols)
	}
	cols := make([]arrow.Array, len(in.Cols))
	for i, c := range in.Cols {
		var err error
		if cols[i], err = columnar.Take(b.ctx.Alloc.Lasting(), c, sel); err != nil {
			columnar.NewBatch(cols[:i], 0).Release()
			return err
		}
	}
	b.batches = append(b.batches, columnar.NewBatch(cols, len(sel)))
	for _, c := range cols {
		b.dataBytes += arrayBytes(c.Data())
	}
	b.starts = append(b.starts, b.rows)
	b.rows += len(sel)
	return nil
}

// sorted sorts every buffered row and returns the entries in order (valid until the next call).
func (b *buffer) sorted() ([]entry, error) {
	n := b.rows
	if cap(b.ents) < n {
		// Reserve before allocating: a sort over its memory fails here, with the allocator's message.
		b.ents, b.tmp = nil, nil
		if err := b.account(int64(n) * 2 * entrySize); err != nil {
			return nil, err
		}
	}
	return b.sortRows(), nil
}

// sortRows is sorted without the reservation: spilling sorts the rows it writes while the task is
// over its memory (the entries go when the rows do).
func (b *buffer) sortRows() []entry {
	n := b.rows
	if cap(b.ents) < n {
		b.ents, b.tmp = make([]entry, n), make([]entry, n)
	}
	ents, tmp := b.ents[:n], b.tmp[:n]
	for i, bt := range b.batches {
		lo := b.starts[i]
		for r := lo; r < lo+bt.NumRows; r++ {
			ents[r] = entry{row: int32(r), src: uint32(i)}
		}
	}
	b.sorter.prepare(b.keys, b.orders)
	b.sorter.sortRange(ents, tmp, 0, 0)
	return ents
}

// gather builds a batch of the given sorted rows.
func (b *buffer) gather(ents []entry) (*columnar.Batch, error) {
	return gatherBatch(b.ctx.Alloc, b.batches, b.starts, b.ncols, ents)
}

// memSize is the Go heap the buffer holds.
func (b *buffer) memSize() int64 {
	size := int64(cap(b.ents)+cap(b.tmp))*entrySize + int64(cap(b.sel))*4 +
		int64(cap(b.starts))*8 + int64(cap(b.batches))*8
	for _, k := range b.keys {
		size += k.memSize()
	}
	return size
}

// account reports the buffer's Go heap (plus extra bytes about to be allocated) to the task's
// memory account, and returns the allocator's error: a reservation Spark refused, for the C
// memory of the copies or for this heap.
func (b *buffer) account(extra int64) error {
	a := b.ctx.Alloc
	if a == nil {
		return nil
	}
	b.note(extra)
	// A safe point for the task's operators (this sort included, while it reads its input): those
	// that can spill do so.
	if err := b.ctx.RelieveMemory(); err != nil {
		return err
	}
	return a.Err()
}

// note reports the buffer's Go heap (plus extra bytes) to the task's memory account, without a
// safe point (spilling calls it).
func (b *buffer) note(extra int64) {
	if a := b.ctx.Alloc; a != nil {
		size := b.memSize() + extra
		a.Account(size - b.accounted)
		b.accounted = size
	}
}

// releaseRows frees the buffered copies and key values (the sort's scratch stays).
func (b *buffer) releaseRows() {
	for _, bt := range b.batches {
		bt.Release()
	}
	b.batches, b.starts, b.rows, b.dataBytes = nil, nil, 0, 0
	for i, o := range b.orders {
		b.keys[i], _ = newKeyStore(o.Expr.Type())
	}
}

// release frees everything and gives the accounted heap back; safe to call twice.
func (b *buffer) release() {
	b.releaseRows()
	b.ents, b.tmp, b.sel = nil, nil, nil
	if b.ctx.Alloc != nil {
		b.ctx.Alloc.Account(-b.accounted)
	}
	b.accounted = 0
}

// arrayBytes is the size of an array's buffers, children included.
func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}
