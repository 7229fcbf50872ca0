// array_sort(arr) is ArraySort with ArraySort.defaultComparator, a lambda Spark evaluates per pair
// of elements inside java.util.Arrays.sort (a stable merge sort):
//
//	(l, r) -> if(l is null and r is null, 0, if(l is null, 1, if(r is null, -1,
//	          if(l < r, -1, if(l > r, 1, 0)))))
//
// Its < and > are Spark's interpreted orderings: the ones sort_array sorts by (NaN greatest, all
// NaNs equal, -0.0 equal to 0.0, strings and binary bytewise), so the result is sort_array's
// ascending order with the nulls moved last, equal elements in input order. The comparator reaches
// the engine as its expression tree, not as a name: a lambda of exactly that shape (whoever wrote
// it) runs on the sort_array kernel; every other comparator is refused, so that array_sort stays
// in Spark. Over an array that cannot hold nulls the optimizer folds the null tests away, leaving
// the inner if(l < r, -1, if(l > r, 1, 0)), which is accepted there only.
package expr

import (
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("ArraySort", "array_sort(arr) with Spark's default comparator only: stable ascending sort, nulls last, NaN greatest, -0.0 equal to 0.0", translateArraySort)
}

func translateArraySort(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	argNode, err := e.Child("argument")
	if err != nil {
		return nil, err
	}
	at, err := argNode.Type()
	if err != nil {
		return nil, err
	}
	elem, containsNull := at.Elem()
	if at.Kind != sparktype.Array || !searchableElem(elem) {
		return nil, unsupported("array_sort of %s is not supported natively", at)
	}
	fn, err := e.Child("function")
	if err != nil {
		return nil, err
	}
	if ok, err := isDefaultComparator(fn, !containsNull); err != nil {
		return nil, err
	} else if !ok {
		return nil, unsupported("array_sort with a comparator function other than the default one")
	}
	arr, err := Translate(argNode, conf)
	if err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &arrSortExpr{arr: arr, asc: true, elem: elem, typ: t, nullsLast: true}, nil
}

// isDefaultComparator reports whether fn is ArraySort.defaultComparator's lambda, bound; folded
// (its null tests simplified away) is accepted only when the elements cannot be null.
func isDefaultComparator(fn *plan.Expr, noNulls bool) (bool, error) {
	if fn == nil || plan.ShortClass(fn.Class) != "LambdaFunction" {
		return false, nil
	}
	args, err := fn.Children("arguments")
	if err != nil {
		return false, err
	}
	if len(args) != 2 {
		return false, nil
	}
	var ids [2]int64
	for i, a := range args {
		if plan.ShortClass(a.Class) != "NamedLambdaVariable" {
			return false, nil
		}
		if ids[i], err = lambdaVarID(a); err != nil {
			return false, err
		}
	}
	if ids[0] == ids[1] {
		return false, nil
	}
	body, err := fn.Child("function")
	if err != nil {
		return false, err
	}
	m := cmpMatcher{left: ids[0], right: ids[1]}
	if m.full(body) {
		return true, nil
	}
	return noNulls && m.core(body), nil
}

// cmpMatcher matches the comparator's tree over the lambda variables left and right. A field that
// is missing or unreadable is simply no match.
type cmpMatcher struct{ left, right int64 }

func (m cmpMatcher) child(e *plan.Expr, class, field string) *plan.Expr {
	if e == nil || plan.ShortClass(e.Class) != class {
		return nil
	}
	c, err := e.Child(field)
	if err != nil {
		return nil
	}
	return c
}

// ifParts splits if(p, t, f).
func (m cmpMatcher) ifParts(e *plan.Expr) (p, t, f *plan.Expr) {
	return m.child(e, "If", "predicate"), m.child(e, "If", "trueValue"), m.child(e, "If", "falseValue")
}

func (m cmpMatcher) isVar(e *plan.Expr, id int64) bool {
	if e == nil || plan.ShortClass(e.Class) != "NamedLambdaVariable" {
		return false
	}
	got, err := lambdaVarID(e)
	return err == nil && got == id
}

func (m cmpMatcher) isIntLit(e *plan.Expr, v int64) bool {
	if e == nil || plan.ShortClass(e.Class) != "Literal" {
		return false
	}
	if t, err := e.Type(); err != nil || t.Kind != sparktype.Int {
		return false
	}
	got, err := e.Int("value")
	return err == nil && got == v
}

func (m cmpMatcher) isNullOf(e *plan.Expr, id int64) bool {
	return m.isVar(m.child(e, "IsNull", "child"), id)
}

// isCmp: class(left, right).
func (m cmpMatcher) isCmp(e *plan.Expr, class string) bool {
	return m.isVar(m.child(e, class, "left"), m.left) && m.isVar(m.child(e, class, "right"), m.right)
}

// full: if(l is null and r is null, 0, if(l is null, 1, if(r is null, -1, core))).
func (m cmpMatcher) full(e *plan.Expr) bool {
	p, t, f := m.ifParts(e)
	if !m.isNullOf(m.child(p, "And", "left"), m.left) || !m.isNullOf(m.child(p, "And", "right"), m.right) ||
		!m.isIntLit(t, 0) {
		return false
	}
	p, t, f = m.ifParts(f)
	if !m.isNullOf(p, m.left) || !m.isIntLit(t, 1) {
		return false
	}
	p, t, f = m.ifParts(f)
	if !m.isNullOf(p, m.right) || !m.isIntLit(t, -1) {
		return false
	}
	return m.core(f)
}

// core: if(l < r, -1, if(l > r, 1, 0)).
func (m cmpMatcher) core(e *plan.Expr) bool {
	p, t, f := m.ifParts(e)
	if !m.isCmp(p, "LessThan") || !m.isIntLit(t, -1) {
		return false
	}
	p, t, f = m.ifParts(f)
	return m.isCmp(p, "GreaterThan") && m.isIntLit(t, 1) && m.isIntLit(f, 0)
}
