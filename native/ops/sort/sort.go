// Package sort owns the native sorts: Spark's SortExec (sort.go) and the per-partition top-k of
// TakeOrderedAndProjectExec (topk.go), over shared pieces: the decoded SortOrder keys (order.go),
// typed key stores with Spark's ordering of every native type (keys.go), the permutation sort
// (radix.go), the buffered rows and their memory account (buffer.go) and the typed gathers of the
// output (gather.go).
//
// Both operators order rows exactly as Spark's SortOrder does, and among rows equal on every key
// keep their input order.
package sort

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Sort is SortExec's operator: it consumes its whole child (the task's partition), sorts it, and
// emits batches of the configured batch size. Global and local sorts are the same here: a global
// sort's range shuffle happens before it, in Spark. Everything is held in memory (spilling is not
// implemented): a sort larger than its memory fails with the allocator's message.
type Sort struct {
	child  exec.Operator
	orders []Order
	st     *sortStream
}

type sortStream struct {
	buf      *buffer
	consumed bool
	ents     []entry
	pos      int
}

// NewSort validates the keys at construction.
func NewSort(child exec.Operator, orders []Order) (*Sort, error) {
	if err := checkOperator("sort", child.Schema(), orders); err != nil {
		return nil, err
	}
	return &Sort{child: child, orders: orders}, nil
}

func (s *Sort) Schema() []sparktype.Field { return s.child.Schema() }

// Orders returns the sort keys (for explain and tests).
func (s *Sort) Orders() []Order { return s.orders }

func (s *Sort) Open(ctx *exec.TaskContext) error {
	if err := s.child.Open(ctx); err != nil {
		return err
	}
	buf, err := newBuffer(ctx, s.orders, len(s.child.Schema()))
	if err != nil {
		return err
	}
	s.st = &sortStream{buf: buf}
	return nil
}

func (s *Sort) Next() (*columnar.Batch, error) {
	st := s.st
	if st == nil {
		return nil, fmt.Errorf("Sort read before Open")
	}
	if !st.consumed {
		if err := s.consume(); err != nil {
			return nil, err
		}
		ents, err := st.buf.sorted()
		if err != nil {
			return nil, err
		}
		st.ents, st.consumed = ents, true
	}
	if st.pos >= len(st.ents) {
		// Done: give the buffered rows back before the parent goes on.
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

// consume buffers the whole child, checking the task's memory after every batch.
func (s *Sort) consume() error {
	buf := s.st.buf
	for {
		b, err := s.child.Next()
		if err != nil || b == nil {
			return err
		}
		if b.NumRows > 0 {
			err = buf.appendKeys(b)
			if err == nil {
				err = buf.keep(b, nil)
			}
		}
		b.Release()
		if err != nil {
			return err
		}
		if err := buf.account(0); err != nil {
			return err
		}
	}
}

func (s *Sort) Close() {
	if s.st != nil {
		s.st.buf.release()
		s.st = nil
	}
	s.child.Close()
}
