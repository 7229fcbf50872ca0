package translate

import (
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "FilterExec", Name: "BolideFilter", ConfKey: "filter",
		Doc: "predicate must be a supported expression; right above a scan it decodes the scan's columns " +
			"lazily (one-column conditions once per dictionary value, the other columns for the kept rows only)",
		Build: buildFilter})
}

func buildFilter(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	c, err := n.Expr("condition")
	if err != nil {
		return nil, err
	}
	stateful := !c.Deterministic && expr.HasStateful(c)
	if stateful {
		if err := rowOrderedCondition(c); err != nil {
			return nil, err
		}
		expr.MarkRowOrdered(c)
	}
	cond, err := expr.TranslateOrDispatch(c, conf)
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
	f, err := ops.NewFilter(children[0], cond)
	if err != nil {
		return nil, err
	}
	if stateful {
		// Reading lazily evaluates one-column conjuncts first, which would change the rows a
		// stateful conjunct is evaluated on.
		return f, nil
	}
	// Its conjuncts let the filter read a scan below it lazily (ops/latefilter.go).
	var cs []ops.Conjunct
	for _, e := range conjunctsOf(c) {
		x, err := expr.TranslateOrDispatch(e, conf)
		if err != nil {
			return withDispatched(f, cond), nil
		}
		refs, err := plan.References(e)
		if err != nil {
			return withDispatched(f, cond), nil
		}
		cs = append(cs, ops.Conjunct{Expr: x, Refs: refs, Deterministic: e.Deterministic})
	}
	f.SetConjuncts(cs)
	return withDispatched(f, cond), nil
}

// conjunctsOf flattens the Ands of a condition, in Spark's evaluation order.
func conjunctsOf(e *plan.Expr) []*plan.Expr {
	if plan.ShortClass(e.Class) != "And" {
		return []*plan.Expr{e}
	}
	l, err1 := e.Child("left")
	r, err2 := e.Child("right")
	if err1 != nil || err2 != nil || l == nil || r == nil {
		return []*plan.Expr{e}
	}
	return append(conjunctsOf(l), conjunctsOf(r)...)
}

// rowOrderedCondition checks that a condition with stateful expressions (rand, uuid, ...) is
// evaluated natively on the rows Spark's FilterExec evaluates it on. FilterExec's generated code
// tests its conjuncts one after the other, dropping a row at the first one that is not true, and
// moves the IS NOT NULL conjuncts ahead of the first conjunct reading their column. The native
// filter evaluates the condition as Spark's And does (the right side where the left is true or
// null), which visits the same rows when no conjunct before a stateful one can be null and there
// is no IS NOT NULL conjunct to move.
func rowOrderedCondition(c *plan.Expr) error {
	cs := conjunctsOf(c)
	for _, k := range cs {
		if plan.ShortClass(k.Class) == "IsNotNull" {
			return &expr.Unsupported{Reason: "a filter with non-deterministic stateful expressions (rand, uuid, ...) " +
				"and an IS NOT NULL conjunct, which Spark's FilterExec evaluates out of order"}
		}
	}
	nullableBefore := false
	for _, k := range cs {
		if nullableBefore && !k.Deterministic && expr.HasStateful(k) {
			return &expr.Unsupported{Reason: "a filter conjunct with stateful expressions (rand, uuid, ...) after a " +
				"nullable conjunct: Spark's FilterExec skips the rows where that conjunct is null, the native And does not"}
		}
		nullableBefore = nullableBefore || k.Nullable
	}
	return nil
}
