package ops

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Project evaluates one expression per output column.
type Project struct {
	child  exec.Operator
	exprs  []expr.Expr
	schema []sparktype.Field
	ctx    *exec.TaskContext
}

// NewProject builds a projection whose output schema is given by Spark (names, nullability).
func NewProject(child exec.Operator, exprs []expr.Expr, schema []sparktype.Field) *Project {
	return &Project{child: child, exprs: exprs, schema: schema}
}

func (p *Project) Schema() []sparktype.Field { return p.schema }

func (p *Project) Open(ctx *exec.TaskContext) error {
	p.ctx = ctx
	return p.child.Open(ctx)
}

func (p *Project) Next() (*columnar.Batch, error) {
	b, err := p.child.Next()
	if err != nil || b == nil {
		return nil, err
	}
	defer b.Release()
	cols := make([]arrow.Array, len(p.exprs))
	for i, e := range p.exprs {
		if cols[i], err = e.Eval(p.ctx, b); err != nil {
			columnar.NewBatch(cols[:i], 0).Release()
			return nil, err
		}
	}
	return columnar.NewBatch(cols, b.NumRows), nil
}

func (p *Project) Close() { p.child.Close() }
