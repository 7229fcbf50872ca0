package columnar

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Gathers over many sources: Take for operators that hold rows in several batches (a hash join's
// build side, a sort's buffered input). Each output row names its source batch and its row there,
// and may be null (NullRef: an outer join's missing side). Also the typed views of Arrow buffers
// these loops read, which operators use for their own typed key loops instead of casting buffers.

// RowRef names row Row of source Src of a gather.
type RowRef struct {
	Src, Row uint32
}

// NullSrc in RowRef.Src makes the gathered row null.
const NullSrc = math.MaxUint32

// NullRef is the row reference that gathers a null.
var NullRef = RowRef{Src: NullSrc}

// Gather builds a column of the rows refs (in that order) of srcs, columns of one Arrow type,
// allocated from alloc. A ref with Src == NullSrc gives a null.
func Gather(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) (arrow.Array, error) {
	if len(srcs) == 0 {
		for _, r := range refs {
			if r.Src != NullSrc {
				return nil, fmt.Errorf("gather: row reference to source %d of none", r.Src)
			}
		}
		return nil, fmt.Errorf("gather: no source columns to take the type from")
	}
	dt := srcs[0].DataType()
	for _, s := range srcs[1:] {
		if !arrow.TypeEqual(s.DataType(), dt) {
			return nil, fmt.Errorf("gather: sources of types %s and %s", dt, s.DataType())
		}
	}
	switch srcs[0].(type) {
	case *array.Int8:
		return gatherFixed[int8](alloc, srcs, refs), nil
	case *array.Int16:
		return gatherFixed[int16](alloc, srcs, refs), nil
	case *array.Int32, *array.Date32:
		return gatherFixed[int32](alloc, srcs, refs), nil
	case *array.Int64, *array.Timestamp:
		return gatherFixed[int64](alloc, srcs, refs), nil
	case *array.Float32:
		return gatherFixed[float32](alloc, srcs, refs), nil
	case *array.Float64:
		return gatherFixed[float64](alloc, srcs, refs), nil
	case *array.Decimal128:
		return gatherFixed[decimal128.Num](alloc, srcs, refs), nil
	case *array.Boolean:
		return gatherBool(alloc, srcs, refs), nil
	case *array.String, *array.Binary:
		return gatherBinary(alloc, srcs, refs)
	case *array.Null:
		return array.NewNull(len(refs)), nil
	case *array.Struct:
		return gatherStruct(alloc, srcs, refs)
	case *array.List, *array.Map:
		return gatherList(alloc, srcs, refs)
	}
	return nil, fmt.Errorf("gather: unsupported array type %s", dt)
}

// Values returns the values of a fixed-width column as a typed slice, the array's offset applied
// (nil for an empty column). T must match the layout (int32 for int32 and date32, int64 for int64
// and timestamps, decimal128.Num for decimals).
func Values[T any](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if d.Len() == 0 || len(bufs) < 2 || bufs[1] == nil {
		return nil
	}
	return reinterpret[T](bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
}

// ValidityBits returns a column's validity bitmap and the bit of its row 0, or nil when no row is
// null.
func ValidityBits(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	d := a.Data()
	if b := d.Buffers()[0]; b != nil {
		return b.Bytes(), d.Offset()
	}
	// Nulls without a bitmap: every row is null (a Null-typed column).
	return make([]byte, bitutil.BytesForBits(int64(d.Len()))), 0
}

// BoolBits returns a boolean column's value bitmap and the bit of its row 0.
func BoolBits(a arrow.Array) ([]byte, int) {
	d := a.Data()
	if d.Len() == 0 || d.Buffers()[1] == nil {
		return nil, 0
	}
	return d.Buffers()[1].Bytes(), d.Offset()
}

// BinaryParts returns the offsets (Len()+1 of them, the array's offset applied, absolute into
// data) and the data buffer of a string or binary column: row i is data[offs[i]:offs[i+1]].
func BinaryParts(a arrow.Array) ([]int32, []byte) {
	d := a.Data()
	bufs := d.Buffers()
	if d.Len() == 0 || bufs[1] == nil {
		return []int32{0}, nil
	}
	offs := reinterpret[int32](bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()+1]
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return offs, data
}

func reinterpret[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// gatherValidity builds the output validity bitmap, or nil when no gathered row is null.
func gatherValidity(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) (*memory.Buffer, int) {
	bits := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	some := false
	for i, s := range srcs {
		bits[i], offs[i] = ValidityBits(s)
		some = some || bits[i] != nil
	}
	if !some {
		hasNullRef := false
		for _, r := range refs {
			if r.Src == NullSrc {
				hasNullRef = true
				break
			}
		}
		if !hasNullRef {
			return nil, 0
		}
	}
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(len(refs)))))
	out := buf.Bytes()
	nulls := 0
	for i, r := range refs {
		if r.Src == NullSrc {
			nulls++
			continue
		}
		if b := bits[r.Src]; b == nil || bitutil.BitIsSet(b, offs[r.Src]+int(r.Row)) {
			bitutil.SetBit(out, i)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

func finishGather(dt arrow.DataType, n int, validity *memory.Buffer, nulls int, bufs ...*memory.Buffer) arrow.Array {
	d := array.NewData(dt, n, append([]*memory.Buffer{validity}, bufs...), nil, nulls, 0)
	defer d.Release()
	if validity != nil {
		validity.Release()
	}
	for _, b := range bufs {
		b.Release()
	}
	return array.MakeFromData(d)
}

func gatherFixed[T any](alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) arrow.Array {
	vals := make([][]T, len(srcs))
	for i, s := range srcs {
		vals[i] = Values[T](s)
	}
	validity, nulls := gatherValidity(alloc, srcs, refs)
	var z T
	data := memory.NewResizableBuffer(alloc)
	data.Resize(len(refs) * int(unsafe.Sizeof(z)))
	out := reinterpret[T](data.Bytes())
	if validity == nil {
		// No null row at all, so no NullRef either: the branch-free loop.
		for i, r := range refs {
			out[i] = vals[r.Src][r.Row]
		}
	} else {
		for i, r := range refs {
			if r.Src != NullSrc {
				out[i] = vals[r.Src][r.Row]
			}
			// A null row keeps the zero the allocator cleared the buffer to.
		}
	}
	return finishGather(srcs[0].DataType(), len(refs), validity, nulls, data)
}

func gatherBool(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) arrow.Array {
	bits := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	for i, s := range srcs {
		bits[i], offs[i] = BoolBits(s)
	}
	validity, nulls := gatherValidity(alloc, srcs, refs)
	data := memory.NewResizableBuffer(alloc)
	data.Resize(int(bitutil.BytesForBits(int64(len(refs)))))
	out := data.Bytes()
	for i, r := range refs {
		if r.Src != NullSrc && bitutil.BitIsSet(bits[r.Src], offs[r.Src]+int(r.Row)) {
			bitutil.SetBit(out, i)
		}
	}
	return finishGather(srcs[0].DataType(), len(refs), validity, nulls, data)
}

func gatherBinary(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) (arrow.Array, error) {
	offs := make([][]int32, len(srcs))
	datas := make([][]byte, len(srcs))
	for i, s := range srcs {
		offs[i], datas[i] = BinaryParts(s)
	}
	total := 0
	for _, r := range refs {
		if r.Src != NullSrc {
			o := offs[r.Src]
			total += int(o[r.Row+1] - o[r.Row])
		}
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("gather: %d bytes of %s values in one batch exceed Arrow's 2 GiB limit",
			total, srcs[0].DataType())
	}
	validity, nulls := gatherValidity(alloc, srcs, refs)
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((len(refs) + 1) * 4)
	outOff := reinterpret[int32](offBuf.Bytes())
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(total)
	out := dataBuf.Bytes()
	w := 0
	for i, r := range refs {
		outOff[i] = int32(w)
		if r.Src != NullSrc {
			o := offs[r.Src]
			w += copy(out[w:], datas[r.Src][o[r.Row]:o[r.Row+1]])
		}
	}
	outOff[len(refs)] = int32(w)
	return finishGather(srcs[0].DataType(), len(refs), validity, nulls, offBuf, dataBuf), nil
}
