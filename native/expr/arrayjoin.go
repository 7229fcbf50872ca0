// array_join(arr, delimiter[, nullReplacement]): Spark joins the non-null elements, or, with a
// replacement, every element with nulls replaced; a null array, delimiter or replacement gives
// null. Only UTF8_BINARY strings are native (a collated result type is refused). The output size
// is counted first, so the bytes are written once into one reservation.
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
	RegisterNested("ArrayJoin", "array_join(arr, delimiter[, nullReplacement]) of strings: null elements skipped, or replaced", translateArrayJoin)
}

type arrJoinExpr struct {
	arr, delim, repl Expr // repl nil: no replacement
}

func translateArrayJoin(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "array", conf)
	if err != nil {
		return nil, err
	}
	delim, err := translateChild(e, "delimiter", conf)
	if err != nil {
		return nil, err
	}
	j := &arrJoinExpr{arr: arr, delim: delim}
	if !isNullField(e, "nullReplacement") {
		if j.repl, err = translateChild(e, "nullReplacement", conf); err != nil {
			return nil, err
		}
	}
	elem, ok := arrElem(arr.Type())
	plain := func(t sparktype.Type) bool { return t.Kind == sparktype.String && t.Name == "string" }
	if !ok || !plain(elem) || !plain(delim.Type()) || j.repl != nil && !plain(j.repl.Type()) {
		return nil, unsupported("array_join of %s with a %s delimiter is not supported natively", arr.Type(), delim.Type())
	}
	if t, err := e.Type(); err != nil || !plain(t) {
		return nil, unsupported("array_join returning %s", t)
	}
	return j, nil
}

func (j *arrJoinExpr) Type() sparktype.Type { return sparktype.StringType }
func (j *arrJoinExpr) mayFail() bool {
	return mayFail(j.arr) || mayFail(j.delim) || j.repl != nil && mayFail(j.repl)
}
func (j *arrJoinExpr) String() string {
	if j.repl == nil {
		return fmt.Sprintf("array_join(%s, %s)", j.arr, j.delim)
	}
	return fmt.Sprintf("array_join(%s, %s, %s)", j.arr, j.delim, j.repl)
}

func (j *arrJoinExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	l, err := arrEvalList(ctx, b, j.arr, j)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	d, err := evalOperand(ctx, b, j.delim)
	if err != nil {
		return nil, err
	}
	defer d.release()
	var r operand
	if j.repl != nil {
		if r, err = evalOperand(ctx, b, j.repl); err != nil {
			return nil, err
		}
		defer r.release()
	}
	elems := l.ListValues()
	eo, ed := bytesOf(elems)
	elBM, elOff := validity(elems)
	do, dd := bytesOf(d.arr)
	dm := d.mask()
	var ro []int32
	var rd []byte
	rm := 0
	if j.repl != nil {
		ro, rd = bytesOf(r.arr)
		rm = r.mask()
	}
	offs := listOffsets(l)
	vbuf, valid := copyValidity(ctx.Alloc, l, n)
	// First pass: validity and the exact output size.
	var total int64
	for i := 0; i < n; i++ {
		if !bitutil.BitIsSet(valid, i) || !d.valid(i) || j.repl != nil && !r.valid(i) {
			bitutil.ClearBit(valid, i)
			continue
		}
		dl := int64(do[i&dm+1] - do[i&dm])
		items := int64(0)
		for k := offs[i]; k < offs[i+1]; k++ {
			if arrRowValid(elBM, elOff, int(k)) {
				total += int64(eo[k+1] - eo[k])
			} else if j.repl != nil {
				total += int64(ro[i&rm+1] - ro[i&rm])
			} else {
				continue
			}
			items++
		}
		if items > 1 {
			total += dl * (items - 1)
		}
	}
	out, err := newBytesOut(ctx.Alloc, n, total)
	if err != nil {
		vbuf.Release()
		return nil, fmt.Errorf("%s: %w", j, err)
	}
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(valid, i) {
			delim := dd[do[i&dm]:do[i&dm+1]]
			first := true
			for k := offs[i]; k < offs[i+1]; k++ {
				var item []byte
				if arrRowValid(elBM, elOff, int(k)) {
					item = ed[eo[k]:eo[k+1]]
				} else if j.repl != nil {
					item = rd[ro[i&rm]:ro[i&rm+1]]
				} else {
					continue
				}
				if !first {
					out.append(delim)
				}
				first = false
				out.append(item)
			}
		}
		out.endRow(i)
	}
	return out.finish(arrow.BinaryTypes.String, n, vbuf, countNulls(valid, n)), nil
}
