package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Limit skips offset rows, then passes at most limit rows (limit < 0: no limit) and stops pulling
// its child once done. Batches are sliced, never copied.
type Limit struct {
	child         exec.Operator
	limit, offset int64
	seen, emitted int64
}

// NewLimit builds a limit; Spark's local, global and collect limits differ only in where they run.
func NewLimit(child exec.Operator, limit, offset int64) *Limit {
	return &Limit{child: child, limit: limit, offset: offset}
}

func (l *Limit) Schema() []sparktype.Field        { return l.child.Schema() }
func (l *Limit) Open(ctx *exec.TaskContext) error { return l.child.Open(ctx) }
func (l *Limit) Close()                           { l.child.Close() }

func (l *Limit) Next() (*columnar.Batch, error) {
	for {
		if l.limit >= 0 && l.emitted >= l.limit {
			return nil, nil
		}
		b, err := l.child.Next()
		if err != nil || b == nil {
			return nil, err
		}
		n := int64(b.NumRows)
		from := int64(0)
		if l.seen < l.offset {
			from = min(l.offset-l.seen, n)
		}
		l.seen += n
		to := n
		if l.limit >= 0 {
			to = min(n, from+l.limit-l.emitted)
		}
		if from >= to {
			b.Release()
			continue
		}
		l.emitted += to - from
		if from == 0 && to == n {
			return b, nil
		}
		return slice(b, from, to), nil
	}
}

// slice consumes b and returns rows [from, to) sharing its buffers.
func slice(b *columnar.Batch, from, to int64) *columnar.Batch {
	defer b.Release()
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		cols[i] = array.NewSlice(c, from, to)
	}
	return columnar.NewBatch(cols, int(to-from))
}
