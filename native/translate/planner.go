package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

// Decide walks a whole Spark plan bottom-up and answers, for every node, whether it runs natively
// and, if not, why. A native node's children are either native (same block) or stay in Spark and
// feed the block as an input stream.
func Decide(req *plan.PlanRequest) *plan.PlanResponse {
	resp := &plan.PlanResponse{}
	decide(req.Plan, &req.Conf, resp)
	elideUnreadOrder(req.Plan, resp, !req.RootOrderFree)
	return resp
}

func decide(n *plan.Node, conf *plan.Conf, resp *plan.PlanResponse) exec.Operator {
	children := make([]exec.Operator, len(n.Children))
	decisions := make([]int, len(n.Children)) // index in resp.Decisions of each child's
	for i, c := range n.Children {
		children[i] = decide(c, conf, resp)
		decisions[i] = len(resp.Decisions) - 1
	}
	d := plan.Decision{ID: n.ID}
	op, err := buildNode(n, children, conf, func(i int) (exec.Operator, error) {
		return ops.NewInput(-1, n.Children[i])
	})
	if err != nil {
		d.Reason = err.Error()
	} else {
		d.Native = true
		r := rules[plan.ShortClass(n.Class)]
		d.Name = r.Name
		d.Dispatched = dispatchedOf(op)
		if r.EndsBlock {
			op = nil // the parent reads the Spark wrapper's rows as an input
		}
		if r.Redundant != nil {
			for _, i := range r.Redundant(n) {
				if cd := &resp.Decisions[decisions[i]]; cd.Native && cd.ID == n.Children[i].ID && children[i] != nil {
					cd.Elided = true
				}
			}
		}
	}
	resp.Decisions = append(resp.Decisions, d)
	return op
}

// buildNode builds n over children; a nil child (one that stays in Spark) is replaced by
// placeholder(i).
func buildNode(n *plan.Node, children []exec.Operator, conf *plan.Conf,
	placeholder func(i int) (exec.Operator, error)) (op exec.Operator, err error) {
	defer func() {
		if r := recover(); r != nil {
			op, err = nil, fmt.Errorf("internal error translating %s: %v", n.NodeName, r)
		}
	}()
	r, err := ruleFor(n, conf)
	if err != nil {
		return nil, err
	}
	in := make([]exec.Operator, len(children))
	for i, c := range children {
		if c != nil {
			in[i] = c
			continue
		}
		if in[i], err = placeholder(i); err != nil {
			return nil, err
		}
	}
	op, err = r.Build(n, in, conf)
	if err != nil {
		return nil, err
	}
	return &exec.Guarded{Name: r.Name, ID: n.ID, Inner: op}, nil
}

// Build turns the plan of one native block, as the JVM encoded it for a task (children that stay in
// Spark replaced by input leaves), into its operator tree.
func Build(n *plan.Node, conf *plan.Conf) (exec.Operator, error) {
	if n.Input != nil {
		in, err := ops.NewInput(*n.Input, n)
		if err != nil {
			return nil, err
		}
		// Reading a Spark child is that child's work (or a native shuffle read's), not its
		// native parent's: timed apart so that the parent's own time leaves it out.
		return &exec.Excluded{Inner: in}, nil
	}
	children := make([]exec.Operator, len(n.Children))
	for i, c := range n.Children {
		op, err := Build(c, conf)
		if err != nil {
			return nil, err
		}
		children[i] = op
	}
	op, err := buildNode(n, children, conf, nil)
	if err != nil {
		return nil, fmt.Errorf("build native %s: %w", n.NodeName, err)
	}
	return op, nil
}
