package translate

import (
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
)

// dispatching is a native operator some of whose expressions the JVM evaluates
// (expr.Dispatched): the planner reports their classes with the node's decision, so that
// EXPLAIN shows them. It is the operator itself otherwise (embedding keeps exec.Operator's
// methods; the optional interfaces callers ask for are passed on below).
type dispatching struct {
	exec.Operator
	classes []string
}

// Dispatched names the classes of the dispatched expressions.
func (d *dispatching) Dispatched() []string { return d.classes }

// SpillMetrics passes on what a wrapped operator that spills (a Sort) spilled: embedding the
// interface would hide it from the metrics (exec.Guarded asks for exec.Spiller).
func (d *dispatching) SpillMetrics() (memBytes, diskBytes int64) {
	if s, ok := d.Operator.(exec.Spiller); ok {
		return s.SpillMetrics()
	}
	return 0, 0
}

// withDispatched wraps op when one of its expressions es is dispatched.
func withDispatched(op exec.Operator, es ...expr.Expr) exec.Operator {
	if d := expr.DispatchedIn(es...); len(d) > 0 {
		return &dispatching{Operator: op, classes: d}
	}
	return op
}

// dispatchedOf returns the dispatched expression classes of a built node, or nil.
func dispatchedOf(op exec.Operator) []string {
	if g, ok := op.(*exec.Guarded); ok {
		op = g.Inner
	}
	// A wrapper (Project, Filter) or an operator that reports its own (HashAggregate).
	if d, ok := op.(interface{ Dispatched() []string }); ok {
		return d.Dispatched()
	}
	return nil
}
