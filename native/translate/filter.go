package translate

import (
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "FilterExec", Name: "BolideFilter", ConfKey: "filter",
		Doc: "predicate must be a supported expression", Build: buildFilter})
}

func buildFilter(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	c, err := n.Expr("condition")
	if err != nil {
		return nil, err
	}
	cond, err := expr.Translate(c, conf)
	if err != nil {
		return nil, err
	}
	// An Iceberg scan right below skips the row groups whose statistics rule the condition out
	// (Iceberg Java's reader does the same with the residual; Spark's Parquet scan gets such
	// predicates as its data filters).
	if g, ok := children[0].(*exec.Guarded); ok {
		if s, ok := g.Inner.(*ops.IcebergScan); ok {
			s.PruneWith(pruningPredicates([]*plan.Expr{c}))
		}
	}
	return ops.NewFilter(children[0], cond)
}
