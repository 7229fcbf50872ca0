package aggregate

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Typed access to Arrow columns and typed construction of output columns. Aggregation state lives
// in Go slices; everything handed to the parent is built here from the task's C allocator.

// fixedValues views the values of a fixed-width column as a typed slice (offset applied).
func fixedValues[T arrow.FixedWidthType](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || d.Len() == 0 {
		return nil
	}
	return arrow.GetData[T](bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
}

// validity returns the column's validity bitmap and bit offset, or nil when it has no nulls.
func validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	d := a.Data()
	return d.Buffers()[0].Bytes(), d.Offset()
}

// boolBits returns the value bitmap of a boolean column and its bit offset.
func boolBits(a arrow.Array) ([]byte, int) {
	d := a.Data()
	return d.Buffers()[1].Bytes(), d.Offset()
}

// binaryParts returns the offsets (absolute, one per row plus one) and the whole data buffer of
// a string or binary column, so that row i is data[offs[i]:offs[i+1]] even for a sliced column.
func binaryParts(a arrow.Array) ([]int32, []byte, error) {
	switch a.(type) {
	case *array.String, *array.Binary:
	default:
		return nil, nil, fmt.Errorf("expected a string or binary column, got %s", a.DataType())
	}
	d := a.Data()
	bufs := d.Buffers()
	if d.Len() == 0 || bufs[1] == nil {
		return make([]int32, 1), nil, nil
	}
	offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()+1]
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return offs, data, nil
}

// fixedOut builds a fixed-width column of n values in C memory.
type fixedOut[T arrow.FixedWidthType] struct {
	vals  *memory.Buffer
	valid *memory.Buffer
	V     []T
	bits  []byte
	nulls int
	n     int
}

func newFixedOut[T arrow.FixedWidthType](alloc memory.Allocator, n int) *fixedOut[T] {
	o := &fixedOut[T]{vals: memory.NewResizableBuffer(alloc), n: n}
	var zero T
	o.vals.Resize(n * sizeOfT(zero))
	o.V = arrow.GetData[T](o.vals.Bytes())[:n]
	return o
}

func sizeOfT[T arrow.FixedWidthType](v T) int {
	switch any(v).(type) {
	case int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32, float32, arrow.Date32:
		return 4
	case int64, uint64, float64, arrow.Timestamp:
		return 8
	}
	return 16 // decimal128.Num
}

func (o *fixedOut[T]) setNull(alloc memory.Allocator, i int) {
	if o.valid == nil {
		o.valid = memory.NewResizableBuffer(alloc)
		o.valid.Resize(int(bitutil.BytesForBits(int64(o.n))))
		o.bits = o.valid.Bytes()
		for j := range o.bits {
			o.bits[j] = 0xff
		}
	}
	bitutil.ClearBit(o.bits, i)
	o.nulls++
	var zero T
	o.V[i] = zero
}

func (o *fixedOut[T]) finish(dt arrow.DataType) arrow.Array {
	d := array.NewData(dt, o.n, []*memory.Buffer{o.valid, o.vals}, nil, o.nulls, 0)
	defer d.Release()
	o.vals.Release()
	if o.valid != nil {
		o.valid.Release()
	}
	return array.MakeFromData(d)
}

// buildFixed copies vals into a new column; has (may be nil) marks the non-null entries.
func buildFixed[T arrow.FixedWidthType](alloc memory.Allocator, t sparktype.Type, vals []T, has []bool) arrow.Array {
	o := newFixedOut[T](alloc, len(vals))
	copy(o.V, vals)
	if has != nil {
		for i, h := range has {
			if !h {
				o.setNull(alloc, i)
			}
		}
	}
	return o.finish(t.Arrow())
}

// buildBool builds a boolean column; has (may be nil) marks the non-null entries.
func buildBool(alloc memory.Allocator, vals []bool, has []bool) arrow.Array {
	n := len(vals)
	vb := memory.NewResizableBuffer(alloc)
	vb.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := vb.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	var valid *memory.Buffer
	nulls := 0
	for i, v := range vals {
		if v {
			bitutil.SetBit(bits, i)
		}
	}
	if has != nil {
		for i, h := range has {
			if !h {
				if valid == nil {
					valid = memory.NewResizableBuffer(alloc)
					valid.Resize(int(bitutil.BytesForBits(int64(n))))
					vbits := valid.Bytes()
					for j := range vbits {
						vbits[j] = 0xff
					}
				}
				bitutil.ClearBit(valid.Bytes(), i)
				bitutil.ClearBit(bits, i)
				nulls++
			}
		}
	}
	d := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, vb}, nil, nulls, 0)
	defer d.Release()
	vb.Release()
	if valid != nil {
		valid.Release()
	}
	return array.MakeFromData(d)
}

// buildBinary builds a string or binary column from Go strings; has (may be nil) marks non-nulls.
func buildBinary(alloc memory.Allocator, t sparktype.Type, vals []string, has []bool) arrow.Array {
	n := len(vals)
	total := 0
	for _, v := range vals {
		total += len(v)
	}
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	var valid *memory.Buffer
	nulls := 0
	pos := 0
	for i, v := range vals {
		offs[i] = int32(pos)
		if has != nil && !has[i] {
			if valid == nil {
				valid = memory.NewResizableBuffer(alloc)
				valid.Resize(int(bitutil.BytesForBits(int64(n))))
				vbits := valid.Bytes()
				for j := range vbits {
					vbits[j] = 0xff
				}
			}
			bitutil.ClearBit(valid.Bytes(), i)
			nulls++
			continue
		}
		pos += copy(data[pos:], v)
	}
	offs[n] = int32(pos)
	d := array.NewData(t.Arrow(), n, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0)
	defer d.Release()
	offBuf.Release()
	dataBuf.Release()
	if valid != nil {
		valid.Release()
	}
	return array.MakeFromData(d)
}

// growSlice extends s to n entries, filling new ones with v.
func growSlice[T any](s []T, n int, v T) []T {
	for len(s) < n {
		s = append(s, v)
	}
	return s
}
