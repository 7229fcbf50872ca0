package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Expand is Spark's ExpandExec (ROLLUP, CUBE, GROUPING SETS, several DISTINCT aggregates, UNPIVOT):
// every input row becomes one output row per projection, in Spark's order: input row 0 through
// every projection, then row 1, and so on. Each projection is evaluated once over the whole input
// batch; the output interleaves the results with one typed gather per column. A column whose
// expression is the same in every projection (a passed-through input column) is evaluated once.
type Expand struct {
	child exec.Operator
	// cols[c] is output column c: one expression per projection, or shared (a single one).
	cols   []expandCol
	nproj  int
	schema []sparktype.Field

	ctx *exec.TaskContext
	// The current input batch's evaluated columns: vals[c][p] (one entry for a shared column).
	vals [][]arrow.Array
	rows int // rows of the current input batch
	pos  int // next input row to expand
	refs []columnar.RowRef
}

type expandCol struct {
	exprs  []expr.Expr
	shared bool
}

// NewExpand validates the projections against the output schema: every projection has one
// expression per output column, of the column's type. same[c] reports that column c's
// expression is identical in every projection.
func NewExpand(child exec.Operator, projections [][]expr.Expr, same []bool, schema []sparktype.Field) (*Expand, error) {
	if len(projections) == 0 {
		return nil, fmt.Errorf("expand without projections")
	}
	e := &Expand{child: child, nproj: len(projections), schema: schema}
	for p, proj := range projections {
		if len(proj) != len(schema) {
			return nil, fmt.Errorf("expand projection %d has %d expressions for %d output columns", p, len(proj), len(schema))
		}
		for c, x := range proj {
			if !x.Type().Equal(schema[c].Type) {
				return nil, fmt.Errorf("expand projection %d, column %s: expression %s is %s, the column %s",
					p, schema[c].Name, x, x.Type(), schema[c].Type)
			}
		}
	}
	for c := range schema {
		col := expandCol{shared: len(same) > c && same[c]}
		if col.shared {
			col.exprs = []expr.Expr{projections[0][c]}
		} else {
			for _, proj := range projections {
				col.exprs = append(col.exprs, proj[c])
			}
		}
		e.cols = append(e.cols, col)
	}
	return e, nil
}

func (e *Expand) Schema() []sparktype.Field { return e.schema }

func (e *Expand) Open(ctx *exec.TaskContext) error {
	e.ctx = ctx
	e.rows, e.pos = 0, 0
	return e.child.Open(ctx)
}

func (e *Expand) Next() (*columnar.Batch, error) {
	for e.pos >= e.rows {
		e.releaseVals()
		b, err := e.child.Next()
		if err != nil || b == nil {
			return nil, err
		}
		err = e.evaluate(b)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	// As many input rows as fit the batch size once expanded (at least one).
	chunk := min(e.rows-e.pos, max(1, e.ctx.BatchSize()/e.nproj))
	lo := e.pos
	e.pos += chunk
	if e.nproj == 1 && lo == 0 && chunk == e.rows {
		return e.passWhole()
	}
	n := chunk * e.nproj
	if cap(e.refs) < n {
		e.refs = make([]columnar.RowRef, n)
	}
	refs := e.refs[:n]
	// sharedRefs: the same rows, every projection reading source 0.
	k := 0
	for r := lo; r < lo+chunk; r++ {
		for p := 0; p < e.nproj; p++ {
			refs[k] = columnar.RowRef{Src: uint32(p), Row: uint32(r)}
			k++
		}
	}
	var shared []columnar.RowRef
	out := make([]arrow.Array, len(e.cols))
	for c, col := range e.cols {
		rs := refs
		if col.shared {
			if shared == nil {
				shared = make([]columnar.RowRef, n)
				for i, ref := range refs {
					shared[i] = columnar.RowRef{Src: 0, Row: ref.Row}
				}
			}
			rs = shared
		}
		a, err := columnar.Gather(e.ctx.Alloc, e.vals[c], rs)
		if err != nil {
			columnar.NewBatch(out[:c], 0).Release()
			return nil, fmt.Errorf("expand column %s: %w", e.schema[c].Name, err)
		}
		out[c] = a
	}
	return columnar.NewBatch(out, n), nil
}

// passWhole returns the single projection of a whole input batch as it is.
func (e *Expand) passWhole() (*columnar.Batch, error) {
	out := make([]arrow.Array, len(e.cols))
	for c := range e.cols {
		out[c] = e.vals[c][0]
		out[c].Retain()
	}
	return columnar.NewBatch(out, e.rows), nil
}

// evaluate computes every projection over b.
func (e *Expand) evaluate(b *columnar.Batch) error {
	if e.vals == nil {
		e.vals = make([][]arrow.Array, len(e.cols))
	}
	for c, col := range e.cols {
		vs := e.vals[c][:0]
		for p, x := range col.exprs {
			a, err := x.Eval(e.ctx, b)
			if err != nil {
				e.vals[c] = vs
				e.releaseVals()
				return fmt.Errorf("expand projection %d, column %s: %w", p, e.schema[c].Name, err)
			}
			vs = append(vs, a)
		}
		e.vals[c] = vs
	}
	e.rows, e.pos = b.NumRows, 0
	return nil
}

func (e *Expand) releaseVals() {
	for c, vs := range e.vals {
		for _, a := range vs {
			a.Release()
		}
		e.vals[c] = vs[:0]
	}
	e.rows, e.pos = 0, 0
}

func (e *Expand) Close() {
	e.releaseVals()
	e.child.Close()
}
