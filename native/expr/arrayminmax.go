// array_min and array_max with Spark's ordering: null elements are skipped, NaN is greater than
// every other float, -0.0 and 0.0 are equal (the first one met is kept, as Spark keeps its
// current extreme on ties), strings compare by their UTF-8 bytes.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("ArrayMin", "array_min(arr): least non-null element (NaN greatest), null if none", arrayExtremeTranslator(false))
	RegisterNested("ArrayMax", "array_max(arr): greatest non-null element (NaN greatest), null if none", arrayExtremeTranslator(true))
}

type arrayExtreme struct {
	arr Expr
	typ sparktype.Type
	max bool
}

func arrayExtremeTranslator(max bool) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		arr, err := translateChild(e, "child", conf)
		if err != nil {
			return nil, err
		}
		elem, ok := arrElem(arr.Type())
		if !ok || !searchableElem(elem) {
			return nil, unsupported("%s of %s is not supported natively", plan.ShortClass(e.Class), arr.Type())
		}
		return &arrayExtreme{arr: arr, typ: elem, max: max}, nil
	}
}

func (a *arrayExtreme) Type() sparktype.Type { return a.typ }
func (a *arrayExtreme) mayFail() bool        { return mayFail(a.arr) }
func (a *arrayExtreme) String() string {
	if a.max {
		return fmt.Sprintf("array_max(%s)", a.arr)
	}
	return fmt.Sprintf("array_min(%s)", a.arr)
}

func (a *arrayExtreme) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
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
	elems := l.ListValues()
	sc := extremeScratch{offs: listOffsets(l), sel: make([]int32, n), max: a.max}
	sc.rowValid, sc.rowOff = validity(arr)
	sc.elemValid, sc.elemOff = validity(elems)
	switch a.typ.Kind {
	case sparktype.Boolean:
		bits := elems.(*array.Boolean)
		extremeOf(&sc, func(x, y int32) bool { return !bits.Value(int(x)) && bits.Value(int(y)) })
	case sparktype.Byte:
		extremeOrdered(&sc, values[int8](elems))
	case sparktype.Short:
		extremeOrdered(&sc, values[int16](elems))
	case sparktype.Int, sparktype.Date:
		extremeOrdered(&sc, values[int32](elems))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		extremeOrdered(&sc, values[int64](elems))
	case sparktype.Float:
		extremeFloat(&sc, values[float32](elems))
	case sparktype.Double:
		extremeFloat(&sc, values[float64](elems))
	case sparktype.Decimal:
		v := values[decimal128.Num](elems)
		extremeOf(&sc, func(x, y int32) bool { return v[x].Less(v[y]) })
	case sparktype.String, sparktype.Binary:
		o, d := bytesOf(elems)
		extremeOf(&sc, func(x, y int32) bool { return string(d[o[x]:o[x+1]]) < string(d[o[y]:o[y+1]]) })
	default:
		return nil, fmt.Errorf("%s: element type %s", a, a.typ)
	}
	keepBuf, keep := newBitmap(ctx.Alloc, n)
	defer keepBuf.Release()
	found := 0
	for i, k := range sc.sel {
		if k >= 0 {
			bitutil.SetBit(keep, i)
			found++
		} else {
			sc.sel[i] = 0
		}
	}
	if found == 0 {
		return allNull(ctx.Alloc, a.typ.Arrow(), n), nil
	}
	taken, err := columnar.Take(ctx.Alloc, elems, sc.sel)
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	return withValidity(ctx.Alloc, taken, keep, 0), nil
}

// extremeScratch is one batch's search: per row, sel receives the index into the elements of the
// extreme (-1 when the array is null or holds no non-null element).
type extremeScratch struct {
	offs      []int32
	rowValid  []byte
	rowOff    int
	elemValid []byte
	elemOff   int
	sel       []int32
	max       bool
}

// extremeOrdered is the typed loop for Go-ordered element types.
func extremeOrdered[T int8 | int16 | int32 | int64](sc *extremeScratch, v []T) {
	for i := range sc.sel {
		best := int32(-1)
		if sc.rowValid == nil || bitutil.BitIsSet(sc.rowValid, sc.rowOff+i) {
			for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
				if sc.elemValid != nil && !bitutil.BitIsSet(sc.elemValid, sc.elemOff+int(k)) {
					continue
				}
				if best < 0 || (sc.max && v[k] > v[best]) || (!sc.max && v[k] < v[best]) {
					best = k
				}
			}
		}
		sc.sel[i] = best
	}
}

// floatLess is Spark's float order: NaN greater than everything, -0.0 equal to 0.0.
func floatLess[T float32 | float64](x, y T) bool {
	if x != x {
		return false
	}
	return y != y || x < y
}

func extremeFloat[T float32 | float64](sc *extremeScratch, v []T) {
	for i := range sc.sel {
		best := int32(-1)
		if sc.rowValid == nil || bitutil.BitIsSet(sc.rowValid, sc.rowOff+i) {
			for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
				if sc.elemValid != nil && !bitutil.BitIsSet(sc.elemValid, sc.elemOff+int(k)) {
					continue
				}
				if best < 0 || (sc.max && floatLess(v[best], v[k])) || (!sc.max && floatLess(v[k], v[best])) {
					best = k
				}
			}
		}
		sc.sel[i] = best
	}
}

// extremeOf serves the element types without a Go order (booleans, decimals, bytes); less
// compares two element indexes. It is called once per comparison, so these types are slower.
func extremeOf(sc *extremeScratch, less func(x, y int32) bool) {
	for i := range sc.sel {
		best := int32(-1)
		if sc.rowValid == nil || bitutil.BitIsSet(sc.rowValid, sc.rowOff+i) {
			for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
				if sc.elemValid != nil && !bitutil.BitIsSet(sc.elemValid, sc.elemOff+int(k)) {
					continue
				}
				if best < 0 || (sc.max && less(best, k)) || (!sc.max && less(k, best)) {
					best = k
				}
			}
		}
		sc.sel[i] = best
	}
}
