// sort_array(arr, asc): Spark sorts the boxed elements with a stable merge sort under its
// ordering, so equal elements (-0.0 and 0.0 among them: they compare equal) keep their input
// order in both directions; NaN is the greatest float; nulls come first ascending, last
// descending. Each row sorts an index slice with a typed comparator; one gather lays rows out.
package expr

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("SortArray", "sort_array(arr, asc): stable sort, nulls first ascending / last descending, NaN greatest, -0.0 equal to 0.0", translateSortArray)
}

type arrSortExpr struct {
	arr  Expr
	asc  bool
	elem sparktype.Type
	typ  sparktype.Type
	// nullsLast: array_sort's default comparator (arraysortdefault.go), ascending with nulls last.
	nullsLast bool
}

func translateSortArray(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "base", conf)
	if err != nil {
		return nil, err
	}
	ord, err := translateChild(e, "ascendingOrder", conf)
	if err != nil {
		return nil, err
	}
	l, ok := ord.(*Literal)
	if !ok || ord.Type().Kind != sparktype.Boolean || l.IsNull() {
		return nil, unsupported("sort_array with a sort order that is not a non-null boolean literal")
	}
	elem, ok := arrElem(arr.Type())
	if !ok || !searchableElem(elem) {
		return nil, unsupported("sort_array of %s is not supported natively", arr.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &arrSortExpr{arr: arr, asc: l.constArray().(*array.Boolean).Value(0), elem: elem, typ: t}, nil
}

func (s *arrSortExpr) Type() sparktype.Type { return s.typ }
func (s *arrSortExpr) mayFail() bool        { return mayFail(s.arr) }
func (s *arrSortExpr) String() string {
	if s.nullsLast {
		return fmt.Sprintf("array_sort(%s)", s.arr)
	}
	return fmt.Sprintf("sort_array(%s, %t)", s.arr, s.asc)
}

func (s *arrSortExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	l, err := arrEvalList(ctx, b, s.arr, s)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	elems := l.ListValues()
	var c func(x, y int32) int
	switch s.elem.Kind {
	case sparktype.Boolean:
		bits := elems.(*array.Boolean)
		c = func(x, y int32) int {
			bx, by := bits.Value(int(x)), bits.Value(int(y))
			if bx == by {
				return 0
			} else if by {
				return -1
			}
			return 1
		}
	case sparktype.Byte:
		c = arrSortOrdered(values[int8](elems))
	case sparktype.Short:
		c = arrSortOrdered(values[int16](elems))
	case sparktype.Int, sparktype.Date:
		c = arrSortOrdered(values[int32](elems))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		c = arrSortOrdered(values[int64](elems))
	case sparktype.Float:
		c = arrSortFloat(values[float32](elems))
	case sparktype.Double:
		c = arrSortFloat(values[float64](elems))
	case sparktype.Decimal:
		v := values[decimal128.Num](elems)
		c = func(x, y int32) int { return v[x].Cmp(v[y]) }
	case sparktype.String, sparktype.Binary:
		o, d := bytesOf(elems)
		c = func(x, y int32) int { return cmp.Compare(string(d[o[x]:o[x+1]]), string(d[o[y]:o[y+1]])) }
	default:
		return nil, fmt.Errorf("%s: element type %s", s, s.elem)
	}
	if !s.asc {
		asc := c
		c = func(x, y int32) int { return asc(y, x) }
	}
	offs := listOffsets(l)
	rowBM, rowOff := validity(l)
	elBM, elOff := validity(elems)
	out := newArrListOut(b.NumRows, elems.Len())
	var vals []int32
	for i := 0; i < b.NumRows; i++ {
		if !arrRowValid(rowBM, rowOff, i) {
			out.nullRow()
			continue
		}
		vals = vals[:0]
		nulls := 0
		for k := offs[i]; k < offs[i+1]; k++ {
			if arrRowValid(elBM, elOff, int(k)) {
				vals = append(vals, k)
			} else {
				nulls++
			}
		}
		slices.SortStableFunc(vals, c)
		if s.asc && !s.nullsLast {
			for ; nulls > 0; nulls-- {
				out.addNull()
			}
		}
		for _, k := range vals {
			out.add(0, k)
		}
		for ; nulls > 0; nulls-- {
			out.addNull()
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	return out.finish(ctx.Alloc, s.typ.Arrow(), []arrow.Array{elems})
}

func arrSortOrdered[T int8 | int16 | int32 | int64](v []T) func(x, y int32) int {
	return func(x, y int32) int { return cmp.Compare(v[x], v[y]) }
}

// arrSortFloat is Spark's float order: NaN greatest (all NaNs equal), -0.0 equal to 0.0.
func arrSortFloat[T float32 | float64](v []T) func(x, y int32) int {
	return func(x, y int32) int {
		a, b := v[x], v[y]
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		case a == b:
			return 0
		case a != a && b != b:
			return 0
		case a != a:
			return 1
		}
		return -1
	}
}
