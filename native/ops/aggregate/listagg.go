package aggregate

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// listagg / string_agg (ListAgg in collect.scala, Spark 4.x): a Collect whose object buffer is
// the list of the non-null values (strings or binary) as they arrive, serialized exactly like
// collect_list's (collect.go: an UnsafeRow holding the UnsafeArrayData of the values), so either
// half may run in Spark. The result sorts the list when WITHIN GROUP (ORDER BY ...) is given and
// joins it with the delimiter (a constant; NULL joins with nothing); a group without values is
// null.
//
// What is native, and why:
//   - no ORDER BY: the answer is the arrival order, which only reproduces Spark's without
//     grouping keys (with keys Spark's ObjectHashAggregate falls back to sort-based aggregation
//     past 128 groups in a task and reorders the lists; see collect.go). With keys it is refused.
//   - ORDER BY the aggregated column itself, ASC or DESC: Spark keeps only the values and sorts
//     them with the type's ordering (bytewise for UTF8_BINARY strings and for binary); equal values
//     are equal bytes, so the answer does not depend on arrival order, and every mode is native
//     with or without grouping keys.
//   - ORDER BY anything else (or several keys): Spark's buffer then holds structs of the value and
//     the order values (needSaveOrderValue), which are not reproduced: refused.
//
// Strings with a collation other than UTF8_BINARY arrive as an unsupported type and are refused.
func init() { registerFunction("ListAgg", newListAgg) }

func newListAgg(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	if t.Kind != sparktype.String && t.Kind != sparktype.Binary {
		return nil, refuse("listagg over %s is not supported natively", t)
	}
	de, err := fn.Child("delimiter")
	if err != nil {
		return nil, err
	}
	delim, err := bytesLiteral(de)
	if err != nil {
		return nil, refuse("listagg with delimiter %s is not supported natively: %v", plan.ShortClass(de.Class), err)
	}
	sorted, desc := false, false
	var orders []*plan.Expr
	if fn.Has("orderExpressions") {
		if orders, err = fn.Children("orderExpressions"); err != nil {
			return nil, err
		}
	}
	switch len(orders) {
	case 0:
		if !c.singleGroup {
			return nil, refuse("listagg without WITHIN GROUP (ORDER BY) with grouping keys is not supported natively: "+
				"past %d groups in a task Spark's ObjectHashAggregate falls back to sort-based aggregation, which "+
				"reorders the values; that order is not reproduced", 128)
		}
	case 1:
		o := orders[0]
		if o == nil || plan.ShortClass(o.Class) != "SortOrder" {
			return nil, fmt.Errorf("listagg order expression is not a SortOrder")
		}
		oc, err := o.Child("child")
		if err != nil {
			return nil, err
		}
		if !sameAttribute(oc, child) {
			return nil, refuse("listagg ordered by another expression than its argument is not supported natively " +
				"(Spark's buffer then keeps the order values)")
		}
		dir, err := o.String("direction")
		if err != nil {
			return nil, err
		}
		switch strings.TrimSuffix(dir, "$") {
		case "Ascending":
		case "Descending":
			desc = true
		default:
			return nil, fmt.Errorf("listagg order has unknown direction %q", dir)
		}
		sorted = true
	default:
		return nil, refuse("listagg ordered by %d expressions is not supported natively", len(orders))
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	return &fnSpec{
		name:       "listagg",
		bufTypes:   []sparktype.Type{sparktype.BinaryType},
		resultType: t,
		newState: func() function {
			return &listAgg{collectBytes: collectBytes{in: in, t: t}, delim: delim, sorted: sorted, desc: desc}
		},
	}, nil
}

// sameAttribute reports whether a and b are references to the same attribute (what
// semanticEquals decides for them).
func sameAttribute(a, b *plan.Expr) bool {
	a, errA := stripAlias(a)
	b, errB := stripAlias(b)
	if errA != nil || errB != nil || a == nil || b == nil {
		return false
	}
	return plan.ShortClass(a.Class) == "AttributeReference" && plan.ShortClass(b.Class) == "AttributeReference" &&
		a.ExprID != nil && b.ExprID != nil && *a.ExprID == *b.ExprID
}

// bytesLiteral reads a string, binary or NULL Literal (NULL and the void type as no bytes).
func bytesLiteral(e *plan.Expr) ([]byte, error) {
	e, err := stripAlias(e)
	if err != nil {
		return nil, err
	}
	if plan.ShortClass(e.Class) != "Literal" {
		return nil, fmt.Errorf("not a literal")
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind == sparktype.Null {
		return nil, nil
	}
	if t.Kind != sparktype.String && t.Kind != sparktype.Binary {
		return nil, fmt.Errorf("a %s literal", t)
	}
	raw, err := e.Raw("value")
	if err != nil {
		return nil, err
	}
	v, err := plan.DecodeValue(raw, t)
	if err != nil || v == nil {
		return nil, err
	}
	switch x := v.(type) {
	case string:
		return []byte(x), nil
	case []byte:
		return x, nil
	}
	return nil, fmt.Errorf("literal value %T", v)
}

// listAgg keeps its values as collect_list over strings or binary does (same buffer bytes); only
// the result differs.
type listAgg struct {
	collectBytes
	delim        []byte
	sorted, desc bool
}

func (f *listAgg) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	vals := make([]string, hi-lo)
	has := make([]bool, hi-lo)
	var sb bytes.Buffer
	for i := range vals {
		l := f.lists[lo+i]
		if len(l) == 0 {
			continue
		}
		if f.sorted {
			// Go compares strings bytewise (unsigned), which is UTF8String.binaryCompare and
			// Spark's binary ordering; the group's list is not used after its result.
			slices.Sort(l)
			if f.desc {
				slices.Reverse(l)
			}
		}
		sb.Reset()
		for j, v := range l {
			if j > 0 {
				sb.Write(f.delim)
			}
			sb.WriteString(v)
		}
		vals[i], has[i] = sb.String(), true
	}
	return buildBinary(alloc, f.t, vals, has), nil
}
