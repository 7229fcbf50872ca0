// array_remove(arr, v): Spark compares with its ordering equivalence, so unlike the hash-set
// functions of arrayset.go, -0.0 and 0.0 are the same element (NaN still equals NaN). Null
// elements never equal anything and stay; a null array or a null v gives null.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("ArrayRemove", "array_remove(arr, v): arr without the elements equal to v (-0.0 equals 0.0, NaN equals NaN), null elements kept", translateArrayRemove)
}

type arrRemoveExpr struct {
	arr, val Expr
	elem     sparktype.Type
	typ      sparktype.Type
}

func translateArrayRemove(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "left", conf)
	if err != nil {
		return nil, err
	}
	val, err := translateChild(e, "right", conf)
	if err != nil {
		return nil, err
	}
	elem, ok := arrElem(arr.Type())
	if !ok || !arrEqualityElem(elem) {
		return nil, unsupported("array_remove of %s is not supported natively", arr.Type())
	}
	if !val.Type().Equal(elem) {
		return nil, unsupported("array_remove of array<%s> and %s", elem, val.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &arrRemoveExpr{arr: arr, val: val, elem: elem, typ: t}, nil
}

func (r *arrRemoveExpr) Type() sparktype.Type { return r.typ }
func (r *arrRemoveExpr) mayFail() bool        { return mayFail(r.arr) || mayFail(r.val) }
func (r *arrRemoveExpr) String() string       { return fmt.Sprintf("array_remove(%s, %s)", r.arr, r.val) }

func (r *arrRemoveExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	l, err := arrEvalList(ctx, b, r.arr, r)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	v, err := evalOperand(ctx, b, r.val)
	if err != nil {
		return nil, err
	}
	defer v.release()
	elems := l.ListValues()
	ke, err := arrKeysOf(elems, r.elem, arrOrderEquiv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	kv, err := arrKeysOf(v.arr, r.elem, arrOrderEquiv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	out := newArrListOut(b.NumRows, elems.Len())
	switch k := ke.(type) {
	case []uint64:
		err = arrRemoveRows(l, elems, v, k, kv.([]uint64), out)
	case []string:
		err = arrRemoveRows(l, elems, v, k, kv.([]string), out)
	case []decimal128.Num:
		err = arrRemoveRows(l, elems, v, k, kv.([]decimal128.Num), out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	return out.finish(ctx.Alloc, r.typ.Arrow(), []arrow.Array{elems})
}

func arrRemoveRows[K arrKey](l listArray, elems arrow.Array, v operand, ke, kv []K, out *arrListOut) error {
	offs := listOffsets(l)
	rowBM, rowOff := validity(l)
	elBM, elOff := validity(elems)
	m := v.mask()
	for i := 0; i < out.n; i++ {
		if !arrRowValid(rowBM, rowOff, i) || !v.valid(i) {
			out.nullRow()
			continue
		}
		x := kv[i&m]
		for k := offs[i]; k < offs[i+1]; k++ {
			if !arrRowValid(elBM, elOff, int(k)) || ke[k] != x {
				out.add(0, k)
			}
		}
		if err := out.row(i, true); err != nil {
			return err
		}
	}
	return nil
}
