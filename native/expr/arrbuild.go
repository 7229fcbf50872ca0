// Shared plumbing of the array-reshaping families (arrayset.go, arrayremove.go, arrayreshape.go,
// arraysort.go, arrayszip.go): each computes, per row, which existing elements make up its result
// (as references into one or more element columns, or a null) and then lays the result out with
// one gather. The element payload is never interpreted there, so every element type the gather
// knows (nested ones included) moves through unchanged; only the families that compare elements
// need typed keys, built once per batch by arrKeysOf.
package expr

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// arrMaxLength is Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH, the largest array it builds.
const arrMaxLength = math.MaxInt32 - 15

// arrEvalList evaluates an array-typed child into a list column of b.NumRows rows.
func arrEvalList(ctx *exec.TaskContext, b *columnar.Batch, e Expr, who fmt.Stringer) (listArray, error) {
	a, err := e.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	l, ok := a.(listArray)
	if !ok || a.Len() != b.NumRows {
		a.Release()
		return nil, fmt.Errorf("%s: array argument is %s of %d rows for %d", who, a.DataType(), a.Len(), b.NumRows)
	}
	return l, nil
}

// arrListOut accumulates a list result: offsets per row, element references, row validity.
type arrListOut struct {
	offs  []int32
	refs  []columnar.RowRef
	valid []byte // nil until the first null row
	n     int
}

func newArrListOut(n, capacity int) *arrListOut {
	o := &arrListOut{offs: make([]int32, 1, n+1), refs: make([]columnar.RowRef, 0, capacity), n: n}
	return o
}

// endRow closes the current row (its elements are the references added since the last call).
func (o *arrListOut) endRow() error {
	if len(o.refs) > math.MaxInt32 {
		return fmt.Errorf("array results of a batch exceed %d elements", math.MaxInt32)
	}
	o.offs = append(o.offs, int32(len(o.refs)))
	return nil
}

// nullRow closes the current row as a null array (no elements).
func (o *arrListOut) nullRow() {
	i := len(o.offs) - 1
	if o.valid == nil {
		o.valid = make([]byte, bitutil.BytesForBits(int64(o.n)))
		bitutil.SetBitsTo(o.valid, 0, int64(i), true)
	}
	o.offs = append(o.offs, int32(len(o.refs)))
}

// markValid records the validity of a row closed by endRow when some row was null.
func (o *arrListOut) setValid(i int) {
	if o.valid != nil {
		bitutil.SetBit(o.valid, i)
	}
}

func (o *arrListOut) add(src, row int32) {
	o.refs = append(o.refs, columnar.RowRef{Src: uint32(src), Row: uint32(row)})
}

func (o *arrListOut) addNull() { o.refs = append(o.refs, columnar.NullRef) }

// row closes row i: a null when ok is false, else the elements added for it.
func (o *arrListOut) row(i int, ok bool) error {
	if !ok {
		o.nullRow()
		return nil
	}
	if err := o.endRow(); err != nil {
		return err
	}
	o.setValid(i)
	return nil
}

// finish gathers the referenced elements of srcs into a list column of type dt.
func (o *arrListOut) finish(alloc memory.Allocator, dt arrow.DataType, srcs []arrow.Array) (arrow.Array, error) {
	if len(o.offs) != o.n+1 {
		return nil, fmt.Errorf("array result has %d rows for %d", len(o.offs)-1, o.n)
	}
	var vals arrow.Array
	if len(o.refs) == 0 || len(srcs) == 0 {
		vals = array.MakeArrayOfNull(alloc, dt.(arrow.ListLikeType).Elem(), 0)
	} else {
		var err error
		if vals, err = columnar.Gather(alloc, srcs, o.refs); err != nil {
			return nil, err
		}
	}
	defer vals.Release()
	offBuf, offs := newFixed[int32](alloc, o.n+1)
	copy(offs, o.offs)
	var vbuf *memory.Buffer
	nulls := 0
	if o.valid != nil {
		var vb []byte
		vbuf, vb = newBitmap(alloc, o.n)
		copy(vb, o.valid)
		nulls = countNulls(vb, o.n)
	}
	d := array.NewData(dt, o.n, []*memory.Buffer{vbuf, offBuf}, []arrow.ArrayData{vals.Data()}, nulls, 0)
	offBuf.Release()
	if vbuf != nil {
		vbuf.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// arrRowValid reads the validity of row i of a (nil bitmap: no nulls).
func arrRowValid(bm []byte, off, i int) bool { return bm == nil || bitutil.BitIsSet(bm, off+i) }

// arrFloatEq is the float equality element keys encode. Spark's hash-set functions
// (array_distinct, array_union/intersect/except, arrays_overlap) compare boxed values with Java's
// equals: NaN equals NaN and -0.0 differs from 0.0. Its ordering-based ones (array_remove) use
// ordering equivalence: NaN equals NaN and -0.0 equals 0.0.
type arrFloatEq int

const (
	arrJavaEquals arrFloatEq = iota
	arrOrderEquiv
)

// arrEqualityElem reports the element types whose equality arrKeysOf encodes (binary equality
// is Spark's for all of them; collated strings are refused).
func arrEqualityElem(t sparktype.Type) bool { return searchableElem(t) }

// arrKeysOf returns per-element comparable keys of elems: []uint64 for fixed-width types,
// []string for strings and binaries (views over the column's bytes, valid while it lives),
// []decimal128.Num for decimals. Null elements get arbitrary keys; callers test validity.
func arrKeysOf(elems arrow.Array, t sparktype.Type, eq arrFloatEq) (any, error) {
	switch t.Kind {
	case sparktype.Boolean:
		bits := elems.(*array.Boolean)
		k := make([]uint64, elems.Len())
		for i := range k {
			if bits.Value(i) {
				k[i] = 1
			}
		}
		return k, nil
	case sparktype.Byte:
		return arrIntKeys(values[int8](elems), elems.Len()), nil
	case sparktype.Short:
		return arrIntKeys(values[int16](elems), elems.Len()), nil
	case sparktype.Int, sparktype.Date:
		return arrIntKeys(values[int32](elems), elems.Len()), nil
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return arrIntKeys(values[int64](elems), elems.Len()), nil
	case sparktype.Float:
		v := values[float32](elems)
		k := make([]uint64, elems.Len())
		for i, x := range v {
			switch {
			case x != x:
				k[i] = 0x7fc00000
			case eq == arrOrderEquiv && x == 0:
				k[i] = 0
			default:
				k[i] = uint64(math.Float32bits(x))
			}
		}
		return k, nil
	case sparktype.Double:
		v := values[float64](elems)
		k := make([]uint64, elems.Len())
		for i, x := range v {
			switch {
			case x != x:
				k[i] = 0x7ff8000000000000
			case eq == arrOrderEquiv && x == 0:
				k[i] = 0
			default:
				k[i] = math.Float64bits(x)
			}
		}
		return k, nil
	case sparktype.Decimal:
		v := values[decimal128.Num](elems)
		k := make([]decimal128.Num, elems.Len())
		copy(k, v)
		return k, nil
	case sparktype.String, sparktype.Binary:
		o, d := bytesOf(elems)
		k := make([]string, elems.Len())
		for i := range k {
			if b := d[o[i]:o[i+1]]; len(b) > 0 {
				k[i] = unsafe.String(&b[0], len(b))
			}
		}
		return k, nil
	}
	return nil, fmt.Errorf("element keys of type %s", t)
}

func arrIntKeys[T int8 | int16 | int32 | int64](v []T, n int) []uint64 {
	k := make([]uint64, n)
	for i, x := range v {
		k[i] = uint64(int64(x))
	}
	return k
}

// arrKey is the constraint of element keys (the package shadows the builtin comparable).
type arrKey interface {
	uint64 | string | decimal128.Num
}

// arrElem is the element type of an array type; ok is false for other types. (Type.Elem's
// second result is containsNull, not whether t is an array.)
func arrElem(t sparktype.Type) (elem sparktype.Type, ok bool) {
	if t.Kind != sparktype.Array {
		return sparktype.Type{}, false
	}
	e, _ := t.Elem()
	return e, true
}
