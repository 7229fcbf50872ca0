package translate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "ExpandExec", Name: "BolideExpand", ConfKey: "expand",
		Doc: "ROLLUP, CUBE, GROUPING SETS, several DISTINCT aggregates: every projection's " +
			"expressions must be supported; rows come out in Spark's order (each input row through " +
			"every projection)",
		Build: buildExpand})
}

func buildExpand(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("ExpandExec with %d children", len(children))
	}
	raw, err := n.Raw("projections")
	if err != nil {
		return nil, err
	}
	var projections [][]*plan.Expr
	if err := json.Unmarshal(raw, &projections); err != nil {
		return nil, fmt.Errorf("ExpandExec projections: %w", err)
	}
	schema, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	for _, f := range schema {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("expand output column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	exprs := make([][]expr.Expr, len(projections))
	for p, proj := range projections {
		if len(proj) != len(schema) {
			return nil, fmt.Errorf("expand projection %d has %d expressions for %d output columns", p, len(proj), len(schema))
		}
		exprs[p] = make([]expr.Expr, len(proj))
		for c, e := range proj {
			if exprs[p][c], err = expr.Translate(e, conf); err != nil {
				return nil, err
			}
		}
	}
	// A column whose expression is the same in every projection is evaluated once per batch.
	same := make([]bool, len(schema))
	for c := range schema {
		first, err := json.Marshal(projections[0][c])
		if err != nil {
			return nil, err
		}
		same[c] = projections[0][c].Deterministic
		for _, proj := range projections[1:] {
			other, err := json.Marshal(proj[c])
			if err != nil {
				return nil, err
			}
			if !same[c] || !bytes.Equal(first, other) {
				same[c] = false
				break
			}
		}
	}
	return ops.NewExpand(children[0], exprs, same, schema)
}
