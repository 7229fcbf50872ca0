package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// ScalarSubquery (execution/subquery.scala): an uncorrelated subquery producing one value. Spark
// computes it before the operator that uses it runs; the JVM adapter then encodes the computed value
// as a Literal in the block it ships to each task. At planning time the value is unknown, so the
// translator only validates the type: this Expr stands in for the literal and is never evaluated.

func init() {
	Register("ScalarSubquery", "uncorrelated scalar subquery: Spark computes it first, the task receives its value as a literal",
		translateScalarSubquery)
}

type scalarSubquery struct{ typ sparktype.Type }

func (e *scalarSubquery) Type() sparktype.Type { return e.typ }
func (e *scalarSubquery) String() string       { return fmt.Sprintf("scalar-subquery(%s)", e.typ) }

func translateScalarSubquery(pe *plan.Expr, _ *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	return &scalarSubquery{typ: t}, nil
}

func (e *scalarSubquery) Eval(*exec.TaskContext, *columnar.Batch) (arrow.Array, error) {
	return nil, fmt.Errorf("scalar subquery of type %s reached a task without its value", e.typ)
}
