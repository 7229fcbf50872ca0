// Package sort owns the native sorts: Spark's SortExec (sort.go) and the per-partition top-k of
// TakeOrderedAndProjectExec (topk.go), over shared pieces: the decoded SortOrder keys (order.go),
// typed key stores with Spark's ordering of every native type (keys.go), the permutation sort
// (radix.go), the buffered rows and their memory account (buffer.go), the typed gathers of the
// output (gather.go), and the sort's spilling: sorted runs on disk (spill.go) and their k-way
// merge (merge.go).
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
// sort's range shuffle happens before it, in Spark. When the task runs out of memory, or Spark
// asks it for memory, while the input is read, the rows held are sorted and written to disk as a
// run, and the output is the merge of the runs (spill.go, merge.go).
type Sort struct {
	child  exec.Operator
	orders []Order
	st     *sortStream
	// spilledMem and spilledDisk count what the task spilled (SpillMetrics); they survive Close.
	spilledMem, spilledDisk int64
	runsSpilled             int
	// fanIn is the most runs merged at once (mergeFanIn; tests lower it).
	fanIn int
}

type sortStream struct {
	ctx      *exec.TaskContext
	buf      *buffer
	consumed bool
	// consuming is set while the input is read: a safe point then may spill the rows held;
	// adding marks the moments in between when the keys and the rows held disagree.
	consuming, adding bool
	ents              []entry
	pos               int
	spill             *sortSpill
	merge             *merger
}

// NewSort validates the keys at construction.
func NewSort(child exec.Operator, orders []Order) (*Sort, error) {
	if err := checkOperator("sort", child.Schema(), orders); err != nil {
		return nil, err
	}
	return &Sort{child: child, orders: orders, fanIn: mergeFanIn}, nil
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
	s.st = &sortStream{ctx: ctx, buf: buf}
	ctx.Spillers = append(ctx.Spillers, s)
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
		st.consumed = true
		if st.spill != nil {
			if err := s.startMerge(); err != nil {
				return nil, err
			}
		} else {
			ents, err := st.buf.sorted()
			if err != nil {
				return nil, err
			}
			st.ents = ents
		}
	}
	if st.merge != nil {
		b, err := st.merge.next()
		if err != nil || b == nil {
			st.merge.close()
			st.merge = nil
		}
		return b, err
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

// consume buffers the whole child, checking the task's memory after every batch; the rows held
// go to disk when it runs out. At the end it reserves the in-memory sort's entries while a
// refusal can still be answered by spilling.
func (s *Sort) consume() error {
	st := s.st
	buf := st.buf
	st.consuming = true
	defer func() { st.consuming = false }()
	for {
		b, err := s.child.Next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if b.NumRows > 0 {
			st.adding = true
			err = buf.appendKeys(b)
			if err == nil {
				err = buf.keep(b, nil)
			}
			st.adding = false
		}
		b.Release()
		if err != nil {
			return err
		}
		if err := buf.account(0); err != nil {
			return err
		}
	}
	if st.spill == nil {
		return buf.account(int64(buf.rows) * 2 * entrySize)
	}
	return nil
}

func (s *Sort) Close() {
	if st := s.st; st != nil {
		if st.merge != nil {
			st.merge.close()
		}
		if st.spill != nil {
			st.spill.removeAll()
		}
		st.buf.release()
		s.st = nil
	}
	s.child.Close()
}
