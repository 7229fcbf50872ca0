// array_contains and array_position: both look for a value among an array's elements with Spark's
// ordering equivalence (for floats NaN equals NaN and -0.0 equals 0.0), skipping null elements.
// They differ only in what they report, so one typed search per element type serves both.
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
	RegisterNested("ArrayContains", "array_contains(arr, v): true if found, else null if arr holds a null, else false", arraySearchTranslator(false))
	RegisterNested("ArrayPosition", "array_position(arr, v): 1-based index of the first element equal to v, 0 if none", arraySearchTranslator(true))
}

type arraySearch struct {
	arr, val Expr
	elem     sparktype.Type
	position bool
}

func arraySearchTranslator(position bool) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := "array_contains"
		if position {
			name = "array_position"
		}
		arr, err := translateChild(e, "left", conf)
		if err != nil {
			return nil, err
		}
		val, err := translateChild(e, "right", conf)
		if err != nil {
			return nil, err
		}
		elem, ok := arrElem(arr.Type())
		if !ok {
			return nil, unsupported("%s of %s", name, arr.Type())
		}
		if !searchableElem(elem) {
			return nil, unsupported("%s of array<%s> is not supported natively", name, elem)
		}
		if !elem.Equal(val.Type()) {
			return nil, unsupported("%s of array<%s> and %s", name, elem, val.Type())
		}
		return &arraySearch{arr: arr, val: val, elem: elem, position: position}, nil
	}
}

// searchableElem reports the element types whose equality the typed searches implement: binary
// equality, which is Spark's for these (collated strings are not the plain string type).
func searchableElem(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Float, sparktype.Double, sparktype.Decimal, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ, sparktype.Binary:
		return true
	case sparktype.String:
		return t.Name == "string"
	}
	return false
}

func (s *arraySearch) Type() sparktype.Type {
	if s.position {
		return sparktype.LongType
	}
	return sparktype.BooleanType
}
func (s *arraySearch) mayFail() bool { return mayFail(s.arr) || mayFail(s.val) }
func (s *arraySearch) String() string {
	if s.position {
		return fmt.Sprintf("array_position(%s, %s)", s.arr, s.val)
	}
	return fmt.Sprintf("array_contains(%s, %s)", s.arr, s.val)
}

func (s *arraySearch) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	a, err := s.arr.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, ok := a.(listArray)
	if !ok || a.Len() != n {
		return nil, fmt.Errorf("%s: array argument is %s of %d rows for %d", s, a.DataType(), a.Len(), n)
	}
	v, err := evalOperand(ctx, b, s.val)
	if err != nil {
		return nil, err
	}
	defer v.release()
	// Rows where the array or the value is null are null whatever the search finds.
	valid, _ := copyValidity(ctx.Alloc, a, n)
	if v.scalar {
		if v.arr.IsNull(0) {
			bitutil.SetBitsTo(valid.Bytes(), 0, int64(n), false)
		}
	} else if bm, off := validity(v.arr); bm != nil {
		bitutil.BitmapAnd(valid.Bytes(), bm, 0, int64(off), valid.Bytes(), 0, int64(n))
	}
	sc := searchScratch{
		offs: listOffsets(l), rowValid: valid.Bytes(), mask: v.mask(),
		found: make([]int32, n), sawNull: make([]bool, n),
	}
	elems := l.ListValues()
	sc.elemValid, sc.elemOff = validity(elems)
	switch s.elem.Kind {
	case sparktype.Boolean:
		searchBool(&sc, elems.(*array.Boolean), v.arr.(*array.Boolean))
	case sparktype.Byte:
		searchFixed(&sc, values[int8](elems), values[int8](v.arr))
	case sparktype.Short:
		searchFixed(&sc, values[int16](elems), values[int16](v.arr))
	case sparktype.Int, sparktype.Date:
		searchFixed(&sc, values[int32](elems), values[int32](v.arr))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		searchFixed(&sc, values[int64](elems), values[int64](v.arr))
	case sparktype.Float:
		searchFloat(&sc, values[float32](elems), values[float32](v.arr))
	case sparktype.Double:
		searchFloat(&sc, values[float64](elems), values[float64](v.arr))
	case sparktype.Decimal:
		searchFixed(&sc, values[decimal128.Num](elems), values[decimal128.Num](v.arr))
	case sparktype.String, sparktype.Binary:
		searchBytes(&sc, elems, v.arr)
	default:
		valid.Release()
		return nil, fmt.Errorf("%s: element type %s", s, s.elem)
	}
	if s.position {
		vbuf, out := newFixed[int64](ctx.Alloc, n)
		for i, f := range sc.found {
			out[i] = int64(f + 1) // -1 (not found) reports 0
		}
		return finish(arrow.PrimitiveTypes.Int64, n, valid, vbuf, countNulls(valid.Bytes(), n)), nil
	}
	vbuf, out := newBitmap(ctx.Alloc, n)
	vb := valid.Bytes()
	for i, f := range sc.found {
		if f >= 0 {
			bitutil.SetBit(out, i)
		} else if sc.sawNull[i] {
			bitutil.ClearBit(vb, i)
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, valid, vbuf, countNulls(vb, n)), nil
}

// searchScratch carries one batch's search: the inputs shared by every element type, and per row
// the 0-based index of the first match (-1 for none) and whether a null element was seen.
type searchScratch struct {
	offs      []int32
	rowValid  []byte
	elemValid []byte
	elemOff   int
	mask      int
	found     []int32
	sawNull   []bool
}

func (sc *searchScratch) elemNull(k int32) bool {
	return sc.elemValid != nil && !bitutil.BitIsSet(sc.elemValid, sc.elemOff+int(k))
}

func searchFixed[T int8 | int16 | int32 | int64 | decimal128.Num](sc *searchScratch, elems, needles []T) {
	for i := range sc.found {
		sc.found[i] = -1
		if !bitutil.BitIsSet(sc.rowValid, i) {
			continue
		}
		x := needles[i&sc.mask]
		for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
			if sc.elemNull(k) {
				sc.sawNull[i] = true
			} else if elems[k] == x {
				sc.found[i] = k - sc.offs[i]
				break
			}
		}
	}
}

// searchFloat is searchFixed with NaN equal to NaN (== already makes -0.0 equal 0.0).
func searchFloat[T float32 | float64](sc *searchScratch, elems, needles []T) {
	for i := range sc.found {
		sc.found[i] = -1
		if !bitutil.BitIsSet(sc.rowValid, i) {
			continue
		}
		x := needles[i&sc.mask]
		nan := x != x
		for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
			if sc.elemNull(k) {
				sc.sawNull[i] = true
			} else if y := elems[k]; y == x || nan && y != y {
				sc.found[i] = k - sc.offs[i]
				break
			}
		}
	}
}

func searchBool(sc *searchScratch, elems, needles *array.Boolean) {
	for i := range sc.found {
		sc.found[i] = -1
		if !bitutil.BitIsSet(sc.rowValid, i) {
			continue
		}
		x := needles.Value(i & sc.mask)
		for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
			if sc.elemNull(k) {
				sc.sawNull[i] = true
			} else if elems.Value(int(k)) == x {
				sc.found[i] = k - sc.offs[i]
				break
			}
		}
	}
}

// bytesOf returns the value offsets (array offset applied) and data of a string or binary array.
func bytesOf(a arrow.Array) ([]int32, []byte) {
	switch x := a.(type) {
	case *array.String:
		return x.ValueOffsets(), x.ValueBytes()
	case *array.Binary:
		return x.ValueOffsets(), x.ValueBytes()
	}
	return nil, nil
}

func searchBytes(sc *searchScratch, elems, needles arrow.Array) {
	eo, ed := bytesOf(elems)
	no, nd := bytesOf(needles)
	for i := range sc.found {
		sc.found[i] = -1
		if !bitutil.BitIsSet(sc.rowValid, i) {
			continue
		}
		j := i & sc.mask
		x := nd[no[j]:no[j+1]]
		for k := sc.offs[i]; k < sc.offs[i+1]; k++ {
			if sc.elemNull(k) {
				sc.sawNull[i] = true
			} else if string(ed[eo[k]:eo[k+1]]) == string(x) {
				sc.found[i] = k - sc.offs[i]
				break
			}
		}
	}
}
