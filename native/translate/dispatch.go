package translate

import (
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
)

// dispatching is a native operator some of whose expressions the JVM evaluates
// (expr.Dispatched): the planner reports their classes with the node's decision, so that
// EXPLAIN shows them. It is the operator itself otherwise (embedding keeps every interface the
// operator implements).
type dispatching struct {
	exec.Operator
	classes []string
}

// Dispatched names the classes of the dispatched expressions.
func (d *dispatching) Dispatched() []string { return d.classes }

// withDispatched wraps op when cond is dispatched.
func withDispatched(op exec.Operator, cond expr.Expr) exec.Operator {
	if d := expr.DispatchedIn(cond); len(d) > 0 {
		return &dispatching{Operator: op, classes: d}
	}
	return op
}

// dispatchedOf returns the dispatched expression classes of a built node, or nil.
func dispatchedOf(op exec.Operator) []string {
	if g, ok := op.(*exec.Guarded); ok {
		op = g.Inner
	}
	if d, ok := op.(*dispatching); ok {
		return d.classes
	}
	return nil
}
