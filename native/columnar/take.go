package columnar

import (
	"fmt"
	mbits "math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	bmem "github.com/bolide-dev/bolide/native/memory"
)

// Take gathers the rows sel (increasing or not) of arr into a new array allocated from alloc.
// It is the compaction step of a selection: typed loops, one per physical layout.
func Take(alloc memory.Allocator, arr arrow.Array, sel []int32) (arrow.Array, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return takeFixed(alloc, a, a.Int8Values(), sel), nil
	case *array.Int16:
		return takeFixed(alloc, a, a.Int16Values(), sel), nil
	case *array.Int32:
		return takeFixed(alloc, a, a.Int32Values(), sel), nil
	case *array.Int64:
		return takeFixed(alloc, a, a.Int64Values(), sel), nil
	case *array.Float32:
		return takeFixed(alloc, a, a.Float32Values(), sel), nil
	case *array.Float64:
		return takeFixed(alloc, a, a.Float64Values(), sel), nil
	case *array.Date32:
		return takeFixed(alloc, a, a.Date32Values(), sel), nil
	case *array.Timestamp:
		return takeFixed(alloc, a, a.TimestampValues(), sel), nil
	case *array.Decimal128:
		return takeFixed(alloc, a, a.Values(), sel), nil
	case *array.Boolean:
		return takeBool(alloc, a, sel), nil
	case *array.String:
		return takeBinary(alloc, a, a.ValueOffsets(), a.ValueBytes(), sel), nil
	case *array.Binary:
		return takeBinary(alloc, a, a.ValueOffsets(), a.ValueBytes(), sel), nil
	case *array.Null:
		return array.NewNull(len(sel)), nil
	case *array.Struct:
		return takeStruct(alloc, a, sel)
	case *array.Map:
		return takeList(alloc, a, listOffsets(a), a.ListValues(), sel)
	case *array.List:
		return takeList(alloc, a, listOffsets(a), a.ListValues(), sel)
	}
	return nil, fmt.Errorf("take: unsupported array type %s", arr.DataType())
}

type fixed interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64 | decimal128.Num
}

// takeValidity builds the output validity bitmap, or nil when no selected row is null. It reads
// the source bitmap directly and writes the output a byte (eight rows) at a time: a dictionary
// expansion calls it for every row of a batch whose dictionary holds a null entry, even when no
// row refers to it, so it must cost no more than the value gather beside it.
func takeValidity(alloc memory.Allocator, arr arrow.Array, sel []int32) (*memory.Buffer, int) {
	bits, off := ValidityBits(arr)
	if bits == nil {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(len(sel)))))
	out := buf.Bytes()
	valid := 0
	full := len(sel) &^ 7
	for i := 0; i < full; i += 8 {
		s := sel[i : i+8 : i+8]
		var b byte
		for k, j := range s {
			p := off + int(j)
			b |= (bits[p>>3] >> (p & 7) & 1) << k
		}
		out[i>>3] = b
		valid += mbits.OnesCount8(b)
	}
	if full < len(sel) {
		var b byte
		for k, j := range sel[full:] {
			p := off + int(j)
			b |= (bits[p>>3] >> (p & 7) & 1) << k
		}
		out[full>>3] = b
		valid += mbits.OnesCount8(b)
	}
	nulls := len(sel) - valid
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

func takeFixed[T fixed](alloc memory.Allocator, arr arrow.Array, vals []T, sel []int32) arrow.Array {
	validity, nulls := takeValidity(alloc, arr, sel)
	var zero T
	data := bmem.NewUninitBuffer(alloc, len(sel)*int(unsafe.Sizeof(zero))) // every value written below
	out := arrow.GetData[T](data.Bytes())
	for i, j := range sel {
		out[i] = vals[j]
	}
	d := array.NewData(arr.DataType(), len(sel), []*memory.Buffer{validity, data}, nil, nulls, 0)
	defer d.Release()
	if validity != nil {
		validity.Release()
	}
	data.Release()
	return array.MakeFromData(d)
}

func takeBool(alloc memory.Allocator, a *array.Boolean, sel []int32) arrow.Array {
	validity, nulls := takeValidity(alloc, a, sel)
	data := memory.NewResizableBuffer(alloc)
	data.Resize(int(bitutil.BytesForBits(int64(len(sel)))))
	bits := data.Bytes()
	for i, j := range sel {
		bitutil.SetBitTo(bits, i, a.Value(int(j)))
	}
	d := array.NewData(a.DataType(), len(sel), []*memory.Buffer{validity, data}, nil, nulls, 0)
	defer d.Release()
	if validity != nil {
		validity.Release()
	}
	data.Release()
	return array.MakeFromData(d)
}

func takeBinary(alloc memory.Allocator, arr arrow.Array, offsets []int32, bytes []byte, sel []int32) arrow.Array {
	validity, nulls := takeValidity(alloc, arr, sel)
	offBuf := bmem.NewUninitBuffer(alloc, (len(sel)+1)*4) // every offset written below
	outOff := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	total := 0
	for i, j := range sel {
		outOff[i] = int32(total)
		total += int(offsets[j+1] - offsets[j])
	}
	outOff[len(sel)] = int32(total)
	dataBuf := bmem.NewUninitBuffer(alloc, total) // every byte written below
	out := dataBuf.Bytes()
	// ValueBytes starts at the first offset of the (possibly sliced) array.
	base := offsets[0]
	for i, j := range sel {
		src := bytes[offsets[j]-base : offsets[j+1]-base]
		if len(src) <= 8 {
			// Short values (flags, codes): a byte loop beats a call to memmove per value, which
			// was most of TPC-H Q1's gather of its two 1-byte columns.
			dst := out[outOff[i]:outOff[i+1]]
			for k := range dst {
				dst[k] = src[k]
			}
			continue
		}
		copy(out[outOff[i]:outOff[i+1]], src)
	}
	d := array.NewData(arr.DataType(), len(sel), []*memory.Buffer{validity, offBuf, dataBuf}, nil, nulls, 0)
	defer d.Release()
	if validity != nil {
		validity.Release()
	}
	offBuf.Release()
	dataBuf.Release()
	return array.MakeFromData(d)
}

// SelectTrue returns the row indices where a boolean column is true (null counts as false), into
// sel[:0] reused by the caller.
func SelectTrue(pred *array.Boolean, sel []int32) []int32 {
	sel = sel[:0]
	n := pred.Len()
	if pred.NullN() == 0 {
		for i := 0; i < n; i++ {
			if pred.Value(i) {
				sel = append(sel, int32(i))
			}
		}
		return sel
	}
	for i := 0; i < n; i++ {
		if pred.IsValid(i) && pred.Value(i) {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// Compact returns arr with zero offsets at every level: arr itself (retained) when it and all its
// children already start at their buffers' beginning, else a copy. Arrow Java's C Data import does
// not accept offsets, so sliced columns (and nested columns whose children are slices) are
// compacted before they cross to the JVM.
func Compact(alloc memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	if !hasOffset(arr.Data()) {
		arr.Retain()
		return arr, nil
	}
	sel := make([]int32, arr.Len())
	for i := range sel {
		sel[i] = int32(i)
	}
	return Take(alloc, arr, sel)
}

// hasOffset reports whether d or any of its descendants starts at a nonzero offset.
func hasOffset(d arrow.ArrayData) bool {
	if d.Offset() != 0 {
		return true
	}
	for _, c := range d.Children() {
		if hasOffset(c) {
			return true
		}
	}
	return false
}
