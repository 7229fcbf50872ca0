package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "ProjectExec", Name: "BolideProject", ConfKey: "project",
		Doc: "every projected expression must be supported", Build: buildProject})
}

func buildProject(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	list, err := n.Exprs("projectList")
	if err != nil {
		return nil, err
	}
	schema, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	if len(schema) != len(list) {
		return nil, fmt.Errorf("project has %d expressions for %d output columns", len(list), len(schema))
	}
	exprs := make([]expr.Expr, len(list))
	for i, e := range list {
		// The project evaluates each expression once per input row, in order, as ProjectExec
		// does: the stateful ones (rand, uuid, ...) may translate where they are reached through
		// parents that evaluate them on Spark's rows (expr/random.go).
		if !e.Deterministic && expr.HasStateful(e) {
			expr.MarkRowOrdered(e)
		}
		if exprs[i], err = expr.TranslateOrDispatch(e, conf); err != nil {
			return nil, err
		}
		if !exprs[i].Type().Equal(schema[i].Type) {
			return nil, fmt.Errorf("project column %s: expression type %s differs from output type %s",
				schema[i].Name, exprs[i].Type(), schema[i].Type)
		}
	}
	p := ops.NewProject(children[0], exprs, schema)
	if d := expr.DispatchedIn(exprs...); len(d) > 0 {
		return &dispatching{Operator: p, classes: d}, nil
	}
	return p, nil
}
