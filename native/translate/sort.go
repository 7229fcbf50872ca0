package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops/sort"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "SortExec", Name: "BolideSort", ConfKey: "sort",
		Doc: "global and per-partition sorts (a global sort's range shuffle is BolideShuffleExchange); keys of " +
			"any native type except collated strings, Spark's ordering (NaN last, -0.0 = 0.0, bytewise " +
			"strings), ties in input order. Spills sorted runs to disk when the task runs out of memory, " +
			"and merges them (docs/tuning.md).",
		Build: buildSort})
	Register(Rule{SparkClass: "TakeOrderedAndProjectExec", Name: "BolideTakeOrderedAndProject",
		ConfKey: "takeOrderedAndProject",
		Doc: "the first `limit` rows of each partition by the ordering, sorted, with the child's " +
			"columns (a bounded top-k, not a full sort); Spark's own TakeOrderedAndProject logic then " +
			"merges the partitions, drops the offset and applies the projection",
		Build: buildTakeOrdered, EndsBlock: true})
}

// sortOrders decodes a node's sortOrder field.
func sortOrders(n *plan.Node, conf *plan.Conf) ([]sort.Order, error) {
	es, err := n.Exprs("sortOrder")
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, fmt.Errorf("%s has no sort order", n.NodeName)
	}
	return sort.DecodeOrders(es, conf, true)
}

// checkPassThrough verifies that a node's output is its child's (SortExec's is child.output), so
// that the operator's schema is the node's.
func checkPassThrough(n *plan.Node, child exec.Operator) error {
	out, err := n.OutputFields()
	if err != nil {
		return err
	}
	in := child.Schema()
	if len(out) != len(in) {
		return fmt.Errorf("%s outputs %d columns, its child %d", n.NodeName, len(out), len(in))
	}
	for i := range out {
		if !out[i].Type.Equal(in[i].Type) {
			return fmt.Errorf("%s output column %s is %s, its child's %s", n.NodeName, out[i].Name, out[i].Type, in[i].Type)
		}
	}
	return nil
}

func buildSort(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("SortExec with %d children", len(children))
	}
	orders, err := sortOrders(n, conf)
	if err != nil {
		return nil, err
	}
	if err := checkPassThrough(n, children[0]); err != nil {
		return nil, err
	}
	op, err := sort.NewSort(children[0], orders)
	if err != nil {
		return nil, err
	}
	return withDispatched(op, orderExprs(orders)...), nil
}

// buildTakeOrdered builds the per-partition top-k. Its output is the child's rows, not the
// projection: Spark's final merge orders them with sortOrder bound to the child's output.
func buildTakeOrdered(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("TakeOrderedAndProjectExec with %d children", len(children))
	}
	limit, err := n.Int("limit")
	if err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("TakeOrderedAndProject with limit %d", limit)
	}
	orders, err := sortOrders(n, conf)
	if err != nil {
		return nil, err
	}
	op, err := sort.NewTopK(children[0], orders, limit)
	if err != nil {
		return nil, err
	}
	return withDispatched(op, orderExprs(orders)...), nil
}

// orderExprs returns the key expressions of orders.
func orderExprs(orders []sort.Order) []expr.Expr {
	out := make([]expr.Expr, len(orders))
	for i, o := range orders {
		out[i] = o.Expr
	}
	return out
}
