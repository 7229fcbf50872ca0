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
	return ops.NewFilter(children[0], cond)
}
