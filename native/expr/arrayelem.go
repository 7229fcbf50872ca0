// Array element access: arr[i] (GetArrayItem, 0-based) and element_at / try_element_at on arrays
// (ElementAt, 1-based, negative from the end). Only the forms that cannot raise are native: ANSI
// out-of-range errors (INVALID_ARRAY_INDEX*) and element_at's INVALID_INDEX_OF_ZERO stay in Spark,
// whose exception types and query contexts the engine does not reproduce.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("GetArrayItem", "arr[i], 0-based, null out of range (the ANSI form that raises stays in Spark)", translateGetArrayItem)
	RegisterNested("ElementAt", "element_at / try_element_at on arrays with a non-zero literal index, null out of range (ANSI raising forms stay in Spark)", translateElementAt)
}

type arrayItem struct {
	arr, idx Expr
	typ      sparktype.Type
	oneBased bool // element_at: 1-based, negative counts from the end
	name     string
}

func translateGetArrayItem(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if fail, err := e.Bool("failOnError"); err != nil || fail {
		return nil, unsupported("GetArrayItem in ANSI mode raises INVALID_ARRAY_INDEX, which stays in Spark")
	}
	arr, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	idx, err := translateChild(e, "ordinal", conf)
	if err != nil {
		return nil, err
	}
	return newArrayItem(e, arr, idx, false, "get")
}

func translateElementAt(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if fail, err := e.Bool("failOnError"); err != nil || fail {
		return nil, unsupported("element_at in ANSI mode raises INVALID_ARRAY_INDEX_IN_ELEMENT_AT, which stays in Spark")
	}
	if e.Has("defaultValueOutOfBound") {
		if raw, _ := e.Raw("defaultValueOutOfBound"); !isJSONNull(raw) {
			return nil, unsupported("element_at with a default value out of bounds is not supported natively")
		}
	}
	arr, err := translateChild(e, "left", conf)
	if err != nil {
		return nil, err
	}
	if arr.Type().Kind != sparktype.Array {
		return nil, unsupported("element_at of %s", arr.Type())
	}
	idx, err := translateChild(e, "right", conf)
	if err != nil {
		return nil, err
	}
	l, ok := idx.(*Literal)
	if !ok || idx.Type().Kind != sparktype.Int {
		return nil, unsupported("element_at with a non-literal index (an index of 0 raises INVALID_INDEX_OF_ZERO)")
	}
	if !l.IsNull() && values[int32](l.constArray())[0] == 0 {
		return nil, unsupported("element_at with index 0 raises INVALID_INDEX_OF_ZERO, which stays in Spark")
	}
	return newArrayItem(e, arr, idx, true, "element_at")
}

func newArrayItem(e *plan.Expr, arr, idx Expr, oneBased bool, name string) (Expr, error) {
	elem, ok := arrElem(arr.Type())
	if !ok {
		return nil, unsupported("%s of %s", name, arr.Type())
	}
	switch idx.Type().Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int:
	default:
		return nil, unsupported("%s with a %s index", name, idx.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if !t.Equal(elem) {
		return nil, unsupported("%s: result type %s differs from element type %s", name, t, elem)
	}
	return &arrayItem{arr: arr, idx: idx, typ: t, oneBased: oneBased, name: name}, nil
}

func (a *arrayItem) Type() sparktype.Type { return a.typ }
func (a *arrayItem) mayFail() bool        { return mayFail(a.arr) || mayFail(a.idx) }
func (a *arrayItem) String() string       { return fmt.Sprintf("%s(%s, %s)", a.name, a.arr, a.idx) }

func (a *arrayItem) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	arr, err := a.arr.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	l, ok := arr.(listArray)
	if !ok || arr.Len() != n {
		return nil, fmt.Errorf("%s: array argument is %s of %d rows for %d", a, arr.DataType(), arr.Len(), n)
	}
	idx, err := evalOperand(ctx, b, a.idx)
	if err != nil {
		return nil, err
	}
	defer idx.release()
	ords := indexValues(idx.arr)
	keepBuf, keep := copyValidity(ctx.Alloc, arr, n)
	defer keepBuf.Release()
	ibm, ioff := validity(idx.arr)
	offs := listOffsets(l)
	sel := make([]int32, n)
	for i := range sel {
		j := i & idx.mask()
		if ibm != nil && !bitutil.BitIsSet(ibm, ioff+j) {
			bitutil.ClearBit(keep, i)
			continue
		}
		size, k := offs[i+1]-offs[i], ords[j]
		if a.oneBased {
			if k > 0 {
				k--
			} else {
				k += size
			}
		}
		if k < 0 || k >= size || !bitutil.BitIsSet(keep, i) {
			bitutil.ClearBit(keep, i)
			continue
		}
		sel[i] = offs[i] + k
	}
	elems := l.ListValues()
	if elems.Len() == 0 || bitutil.CountSetBits(keep, 0, n) == 0 {
		return allNull(ctx.Alloc, a.typ.Arrow(), n), nil
	}
	taken, err := columnar.Take(ctx.Alloc, elems, sel)
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	return withValidity(ctx.Alloc, taken, keep, 0), nil
}

// indexValues widens a byte, short or int index column to int32.
func indexValues(a arrow.Array) []int32 {
	switch a.DataType().ID() {
	case arrow.INT8:
		v := values[int8](a)
		out := make([]int32, len(v))
		for i, x := range v {
			out[i] = int32(x)
		}
		return out
	case arrow.INT16:
		v := values[int16](a)
		out := make([]int32, len(v))
		for i, x := range v {
			out[i] = int32(x)
		}
		return out
	}
	return values[int32](a)
}
