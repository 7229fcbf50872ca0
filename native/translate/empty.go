package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "EmptyRelationExec", Name: "BolideEmptyRelation", ConfKey: "emptyRelation",
		Doc: "a relation AQE or the optimizer proved empty: no rows, no partitions", Build: buildEmptyRelation})
}

// emptyRelation produces no batches (its block has no partitions either; see BolideBlock).
type emptyRelation struct{ schema []sparktype.Field }

func (e *emptyRelation) Schema() []sparktype.Field      { return e.schema }
func (e *emptyRelation) Open(*exec.TaskContext) error   { return nil }
func (e *emptyRelation) Next() (*columnar.Batch, error) { return nil, nil }
func (e *emptyRelation) Close()                         {}

func buildEmptyRelation(n *plan.Node, children []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	if len(children) != 0 {
		return nil, fmt.Errorf("EmptyRelationExec with %d children", len(children))
	}
	fields, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	return &emptyRelation{schema: fields}, nil
}
