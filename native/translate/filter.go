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
	var steps []expr.Expr
	if stateful {
		ps, err := filterExecOrder(c)
		if err != nil {
			return nil, err
		}
		if err := prunedBeforeDraws(ps, children[0]); err != nil {
			return nil, err
		}
		for _, p := range ps {
			expr.MarkRowOrdered(p)
			x, err := expr.Translate(p, conf)
			if err != nil {
				return nil, err
			}
			steps = append(steps, x)
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
		// The steps replace the condition; the lazy read, which evaluates one-column conjuncts
		// first, is not used.
		f.SetSteps(steps)
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

// filterExecOrder returns the conjuncts of a condition with stateful expressions (rand, uuid,
// ...) in the order Spark 4.1's FilterExec evaluates them (GeneratePredicateHelper): the IS NOT
// NULL conjuncts of a column are moved to just before the first other conjunct reading that
// column, and the rest of them to the end. Each conjunct is then evaluated on the rows the
// previous ones kept (Filter.SetSteps), so a stateful one sees exactly the rows Spark draws for.
// An IS NOT NULL of anything but a column of the child is refused: Spark's rule for it depends
// on the expression's null-intolerance, which is not encoded.
func filterExecOrder(c *plan.Expr) ([]*plan.Expr, error) {
	var other []*plan.Expr
	notNull := map[int]*plan.Expr{} // by the ordinal of the column tested
	var notNullOrder []int
	for _, k := range conjunctsOf(c) {
		if plan.ShortClass(k.Class) != "IsNotNull" {
			other = append(other, k)
			continue
		}
		a, err := k.Child("child")
		if err != nil {
			return nil, err
		}
		if plan.ShortClass(a.Class) != "AttributeReference" || a.Ordinal == nil || *a.Ordinal < 0 {
			return nil, &expr.Unsupported{Reason: "a filter with stateful expressions (rand, uuid, ...) and an IS NOT NULL " +
				"of an expression: Spark's FilterExec may move it ahead of them, by rules not reproduced natively"}
		}
		if _, dup := notNull[*a.Ordinal]; !dup {
			notNull[*a.Ordinal] = k
			notNullOrder = append(notNullOrder, *a.Ordinal)
		}
	}
	done := map[int]bool{}
	var out []*plan.Expr
	for _, k := range other {
		refs, err := plan.References(k)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if n, ok := notNull[r]; ok && !done[r] {
				done[r] = true
				out = append(out, n)
			}
		}
		out = append(out, k)
	}
	for _, r := range notNullOrder {
		if !done[r] {
			out = append(out, notNull[r])
		}
	}
	return out, nil
}

// prunedBeforeDraws refuses a stateful filter right above a native file scan when a deterministic
// conjunct follows a stateful one: Spark pushes such conjuncts into its Parquet reader, which
// skips row groups by statistics, dictionaries and bloom filters before the filter draws, and
// the native scan's pruning is not guaranteed to skip exactly the same row groups. Conjuncts
// evaluated before the draws drop those rows either way.
func prunedBeforeDraws(steps []*plan.Expr, child exec.Operator) error {
	g, ok := child.(*exec.Guarded)
	if !ok {
		return nil
	}
	switch g.Inner.(type) {
	case *ops.ParquetScan, *ops.IcebergScan:
	default:
		return nil
	}
	drawn := false
	for _, p := range steps {
		if !p.Deterministic && expr.HasStateful(p) {
			drawn = true
		} else if drawn && p.Deterministic {
			return &expr.Unsupported{Reason: "a filter over a native scan with a deterministic conjunct after a stateful one " +
				"(rand, uuid, ...): Spark's reader may skip row groups by it before drawing, differently from the native scan"}
		}
	}
	return nil
}
