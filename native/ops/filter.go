package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Filter keeps the rows where a boolean predicate is true. The predicate narrows a selection
// vector conjunct by conjunct (expr.Select); a batch that passes whole is forwarded as is,
// otherwise the surviving rows are gathered once (compaction) by a typed take.
type Filter struct {
	child exec.Operator
	cond  expr.Expr
	ctx   *exec.TaskContext
	sel   []int32
	// conjuncts (SetConjuncts) let the filter read a scan lazily: late is how (latefilter.go),
	// nil when it reads whole batches.
	conjuncts []Conjunct
	late      *latePlan
	// steps (SetSteps), when set, are evaluated instead of cond: each on the rows all the
	// previous ones kept (true, not null).
	steps []expr.Expr
	// parentTest (TakeRowTest) narrows the rows of a lazily read batch after the conjuncts and
	// before the columns it does not read are decoded.
	parentTest exec.RowTest
}

// TakeRowTest makes the filter apply its parent's test to the rows it keeps, when it reads its
// child lazily (after Open): the parent then sees only rows that pass it.
func (f *Filter) TakeRowTest(t exec.RowTest) bool {
	if f.late == nil {
		return false
	}
	f.parentTest = t
	return true
}

// SetSteps makes the filter narrow its rows step by step, each predicate evaluated only on the
// rows the previous ones kept, as the code Spark generates for FilterExec does (its conjuncts
// in its order, a row dropped at the first one that is not true). A condition whose evaluation
// set matters (rand, uuid, ...) is evaluated so; the filter then reads its child eagerly.
func (f *Filter) SetSteps(steps []expr.Expr) { f.steps = steps }

// NewFilter validates the predicate's type at construction.
func NewFilter(child exec.Operator, cond expr.Expr) (*Filter, error) {
	if cond.Type().Kind != sparktype.Boolean {
		return nil, fmt.Errorf("filter condition %s is %s, not boolean", cond, cond.Type())
	}
	return &Filter{child: child, cond: cond}, nil
}

func (f *Filter) Schema() []sparktype.Field { return f.child.Schema() }

func (f *Filter) Open(ctx *exec.TaskContext) error {
	f.ctx = ctx
	if err := f.child.Open(ctx); err != nil {
		return err
	}
	if f.steps != nil {
		return nil
	}
	f.late = f.planLate()
	return nil
}

func (f *Filter) Next() (*columnar.Batch, error) {
	if f.late != nil {
		return f.nextLate()
	}
	for {
		b, err := f.child.Next()
		if err != nil || b == nil {
			return nil, err
		}
		out, err := f.apply(b)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
	}
}

// apply consumes b; it returns nil when no row survives.
func (f *Filter) apply(b *columnar.Batch) (*columnar.Batch, error) {
	defer b.Release()
	var sel []int32
	var err error
	if f.steps != nil {
		sel, err = f.selectSteps(b)
	} else {
		sel, err = expr.Select(f.ctx, b, f.cond, f.sel)
	}
	if err != nil {
		return nil, err
	}
	f.sel = sel
	switch len(f.sel) {
	case 0:
		return nil, nil
	case b.NumRows:
		cols := make([]arrow.Array, len(b.Cols))
		for i, c := range b.Cols {
			c.Retain()
			cols[i] = c
		}
		return columnar.NewBatch(cols, b.NumRows), nil
	}
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		if cols[i], err = columnar.Take(f.ctx.Alloc, c, f.sel); err != nil {
			columnar.NewBatch(cols[:i], 0).Release()
			return nil, err
		}
	}
	return columnar.NewBatch(cols, len(f.sel)), nil
}

// selectSteps returns the rows of b that every step keeps, evaluating each step on the rows the
// previous ones kept.
func (f *Filter) selectSteps(b *columnar.Batch) ([]int32, error) {
	dst := f.sel
	if cap(dst) < b.NumRows {
		dst = make([]int32, b.NumRows)
	}
	dst = dst[:b.NumRows]
	var sel []int32
	all := true
	for _, s := range f.steps {
		out, err := expr.Narrow(f.ctx, b, s, sel, all, dst)
		if err != nil {
			return nil, err
		}
		sel, all = out, false
		if len(sel) == 0 {
			break
		}
	}
	if all { // no steps: every row
		for i := range dst {
			dst[i] = int32(i)
		}
		return dst, nil
	}
	return sel, nil
}

func (f *Filter) Close() {
	if f.late != nil {
		f.late.close()
	}
	f.child.Close()
}
