package columnar

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	bmem "github.com/bolide-dev/bolide/native/memory"
)

// ExpandCodes expands dictionary codes: row i of the result is dict's entry codes[i]. See
// TakeCodes.
func ExpandCodes(alloc memory.Allocator, dict arrow.Array, codes []int32) (arrow.Array, error) {
	return takeCodes(alloc, dict, codes, nil, true)
}

// TakeCodes expands the dictionary codes of the rows sel: row i of the result is dict's entry
// codes[sel[i]]. It is Take(dict, codes[sel]) without the
// intermediate index slice, and without reading dict's validity bitmap per row when dict's only
// null entry is its last one (the convention of Lazy.Codes: a null row's code): a row is then
// null exactly when its code is that entry, which the gather counts as it goes, and a result
// without null rows gets no bitmap at all. A scan's predicate column read as codes is expanded
// so for every surviving row of every batch, nearly all of them never null.
func TakeCodes(alloc memory.Allocator, dict arrow.Array, codes, sel []int32) (arrow.Array, error) {
	return takeCodes(alloc, dict, codes, sel, false)
}

// takeCodes is TakeCodes, or ExpandCodes when all (sel unused).
func takeCodes(alloc memory.Allocator, dict arrow.Array, codes, sel []int32, all bool) (arrow.Array, error) {
	nullCode := int32(-1) // no code is negative: no null entry to count
	if nn := dict.NullN(); nn > 0 {
		if nn != 1 || dict.IsValid(dict.Len()-1) {
			return takeCodesGeneral(alloc, dict, codes, sel, all)
		}
		nullCode = int32(dict.Len() - 1)
	}
	switch a := dict.(type) {
	case *array.Int8:
		return takeCodesFixed(alloc, a, a.Int8Values(), codes, sel, all, nullCode), nil
	case *array.Int16:
		return takeCodesFixed(alloc, a, a.Int16Values(), codes, sel, all, nullCode), nil
	case *array.Int32:
		return takeCodesFixed(alloc, a, a.Int32Values(), codes, sel, all, nullCode), nil
	case *array.Int64:
		return takeCodesFixed(alloc, a, a.Int64Values(), codes, sel, all, nullCode), nil
	case *array.Float32:
		return takeCodesFixed(alloc, a, a.Float32Values(), codes, sel, all, nullCode), nil
	case *array.Float64:
		return takeCodesFixed(alloc, a, a.Float64Values(), codes, sel, all, nullCode), nil
	case *array.Date32:
		return takeCodesFixed(alloc, a, a.Date32Values(), codes, sel, all, nullCode), nil
	case *array.Timestamp:
		return takeCodesFixed(alloc, a, a.TimestampValues(), codes, sel, all, nullCode), nil
	case *array.Decimal128:
		return takeCodesFixed(alloc, a, a.Values(), codes, sel, all, nullCode), nil
	}
	return takeCodesGeneral(alloc, dict, codes, sel, all)
}

// takeCodesGeneral resolves the codes of the selected rows, then gathers them with Take.
func takeCodesGeneral(alloc memory.Allocator, dict arrow.Array, codes, sel []int32, all bool) (arrow.Array, error) {
	if all {
		return Take(alloc, dict, codes)
	}
	idx := make([]int32, len(sel))
	for i, j := range sel {
		idx[i] = codes[j]
	}
	return Take(alloc, dict, idx)
}

func takeCodesFixed[T fixed](alloc memory.Allocator, dict arrow.Array, vals []T, codes, sel []int32, all bool, nullCode int32) arrow.Array {
	n := len(sel)
	if all {
		n = len(codes)
	}
	var zero T
	data := bmem.NewUninitBuffer(alloc, n*int(unsafe.Sizeof(zero))) // every value written below
	out := arrow.GetData[T](data.Bytes())[:n]
	nulls := 0
	if all {
		codes = codes[:n]
		for i, c := range codes {
			out[i] = vals[c]
			if c == nullCode {
				nulls++
			}
		}
	} else {
		for i, j := range sel {
			c := codes[j]
			out[i] = vals[c]
			if c == nullCode {
				nulls++
			}
		}
	}
	var validity *memory.Buffer
	if nulls > 0 {
		validity = codeValidity(alloc, codes, sel, all, n, nullCode)
	}
	d := array.NewData(dict.DataType(), n, []*memory.Buffer{validity, data}, nil, nulls, 0)
	defer d.Release()
	if validity != nil {
		validity.Release()
	}
	data.Release()
	return array.MakeFromData(d)
}

// codeValidity is the bitmap of the n selected rows (all: the n codes) whose code is not nullCode.
func codeValidity(alloc memory.Allocator, codes, sel []int32, all bool, n int, nullCode int32) *memory.Buffer {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	clear(bits)
	for i := 0; i < n; i++ {
		j := i
		if !all {
			j = int(sel[i])
		}
		if codes[j] != nullCode {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return buf
}
