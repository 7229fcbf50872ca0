package sort

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// TopK is the per-partition half of TakeOrderedAndProjectExec: the first `limit` rows of its child
// by the ordering (Utils.takeOrdered(iter, limit)(ord) in Spark), emitted sorted, with the child's
// columns. Spark's own logic then merges the partitions' rows (one more takeOrdered over them),
// drops the offset and applies the projection: the merge needs the rows the ordering is defined
// on, which the projection may drop. (In Spark 4.x `limit` already counts the offset's rows:
// TakeOrderedAndProjectExec takes `limit` rows, then drops `offset` of them.)
//
// It never sorts the whole partition. Rows are buffered until there are limit + max(limit, 1024)
// of them, then sorted and cut to the best `limit` (the prune); the last of those is the boundary,
// and from then on an incoming row is kept only if it orders strictly before the boundary (a row
// equal to it arrived later, so it ranks after it). On most inputs almost every row is rejected by
// one comparison against the boundary, so the cost is close to one key evaluation per row.
type TopK struct {
	child  exec.Operator
	orders []Order
	limit  int64
	st     *topkStream
}

type topkStream struct {
	buf      *buffer
	boundary int // row number of the limit-th best row so far, -1 before the first prune
	pruneAt  int64
	consumed bool
	ents     []entry
	pos      int
}

// NewTopK validates the keys and limit at construction.
func NewTopK(child exec.Operator, orders []Order, limit int64) (*TopK, error) {
	if limit < 0 {
		return nil, fmt.Errorf("top-k with a negative limit %d", limit)
	}
	if err := checkOperator("top-k", child.Schema(), orders); err != nil {
		return nil, err
	}
	return &TopK{child: child, orders: orders, limit: limit}, nil
}

func (t *TopK) Schema() []sparktype.Field { return t.child.Schema() }

// Limit returns the number of rows kept per partition.
func (t *TopK) Limit() int64 { return t.limit }

func (t *TopK) Open(ctx *exec.TaskContext) error {
	if err := t.child.Open(ctx); err != nil {
		return err
	}
	buf, err := newBuffer(ctx, t.orders, len(t.child.Schema()))
	if err != nil {
		return err
	}
	t.st = &topkStream{buf: buf, boundary: -1, pruneAt: t.limit + max(t.limit, 1024)}
	return nil
}

func (t *TopK) Next() (*columnar.Batch, error) {
	st := t.st
	if st == nil {
		return nil, fmt.Errorf("TopK read before Open")
	}
	if !st.consumed {
		if t.limit > 0 {
			if err := t.consume(); err != nil {
				return nil, err
			}
			ents, err := st.buf.sorted()
			if err != nil {
				return nil, err
			}
			st.ents = ents[:min(int64(len(ents)), t.limit)]
		}
		st.consumed = true
	}
	if st.pos >= len(st.ents) {
		st.buf.release()
		st.ents = nil
		return nil, nil
	}
	if err := st.buf.account(0); err != nil {
		return nil, err // the output's memory was refused
	}
	lo := st.pos
	hi := min(len(st.ents), lo+st.buf.ctx.BatchSize())
	st.pos = hi
	return st.buf.gather(st.ents[lo:hi])
}

func (t *TopK) consume() error {
	st := t.st
	for {
		b, err := t.child.Next()
		if err != nil || b == nil {
			return err
		}
		if b.NumRows > 0 {
			err = t.add(b)
		}
		b.Release()
		if err == nil && int64(st.buf.rows) >= st.pruneAt {
			err = t.prune()
		}
		if err == nil {
			err = st.buf.account(0)
		}
		if err != nil {
			return err
		}
	}
}

// add buffers the rows of b that may still be among the best `limit`.
func (t *TopK) add(b *columnar.Batch) error {
	st, buf := t.st, t.st.buf
	n0 := buf.rows
	if err := buf.appendKeys(b); err != nil {
		return err
	}
	if st.boundary < 0 {
		return buf.keep(b, nil)
	}
	// Keep the rows strictly before the boundary. The comparators are rebuilt per batch: the
	// appends may have moved the stores' slices.
	cmps := make([]func(a, c int32) int, len(buf.keys))
	for i, k := range buf.keys {
		cmps[i] = k.comparator(t.orders[i].Descending, t.orders[i].NullsFirst)
	}
	bnd := int32(st.boundary)
	sel := buf.sel[:0]
	for r := n0; r < n0+b.NumRows; r++ {
		c := 0
		for _, cmp := range cmps {
			if c = cmp(int32(r), bnd); c != 0 {
				break
			}
		}
		if c < 0 {
			sel = append(sel, int32(r-n0))
		}
	}
	buf.sel = sel
	switch len(sel) {
	case 0:
		for _, k := range buf.keys {
			k.truncate(n0)
		}
		return nil
	case b.NumRows:
		return buf.keep(b, nil)
	}
	for _, k := range buf.keys {
		k.compactFrom(n0, sel)
	}
	return buf.keep(b, sel)
}

// prune cuts the buffer to its best `limit` rows, in order, which become rows 0..limit-1.
func (t *TopK) prune() error {
	st, buf := t.st, t.st.buf
	ents, err := buf.sorted()
	if err != nil {
		return err
	}
	best := ents[:t.limit]
	kept, err := buf.gather(best)
	if err != nil {
		return err
	}
	for _, k := range buf.keys {
		k.gatherRows(best)
	}
	for _, bt := range buf.batches {
		bt.Release()
	}
	buf.batches = append(buf.batches[:0], kept)
	buf.starts = append(buf.starts[:0], 0)
	buf.rows = int(t.limit)
	st.boundary = int(t.limit) - 1
	return nil
}

func (t *TopK) Close() {
	if t.st != nil {
		t.st.buf.release()
		t.st = nil
	}
	t.child.Close()
}
