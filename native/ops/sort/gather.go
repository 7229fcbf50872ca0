package sort

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
)

// The output gathers: columnar.Take over many sources. Sorted rows come from every buffered batch,
// so each output column is built by one typed loop that reads, per entry, row
// (e.row - starts[e.src]) of source batch e.src.

// gatherBatch builds a batch of the rows ents, in that order, from the buffered batches.
func gatherBatch(alloc memory.Allocator, batches []*columnar.Batch, starts []int, ncols int, ents []entry) (*columnar.Batch, error) {
	cols := make([]arrow.Array, ncols)
	srcs := make([]arrow.Array, len(batches))
	for c := range cols {
		for i, b := range batches {
			srcs[i] = b.Cols[c]
		}
		col, err := gatherColumn(alloc, srcs, starts, ents)
		if err != nil {
			columnar.NewBatch(cols[:c], 0).Release()
			return nil, err
		}
		cols[c] = col
	}
	return columnar.NewBatch(cols, len(ents)), nil
}

func gatherColumn(alloc memory.Allocator, srcs []arrow.Array, starts []int, ents []entry) (arrow.Array, error) {
	switch srcs[0].(type) {
	case *array.Int8:
		return gatherFixed[int8](alloc, srcs, starts, ents), nil
	case *array.Int16:
		return gatherFixed[int16](alloc, srcs, starts, ents), nil
	case *array.Int32, *array.Date32:
		return gatherFixed[int32](alloc, srcs, starts, ents), nil
	case *array.Int64, *array.Timestamp:
		return gatherFixed[int64](alloc, srcs, starts, ents), nil
	case *array.Float32:
		return gatherFixed[float32](alloc, srcs, starts, ents), nil
	case *array.Float64:
		return gatherFixed[float64](alloc, srcs, starts, ents), nil
	case *array.Decimal128:
		return gatherFixed[decimal128.Num](alloc, srcs, starts, ents), nil
	case *array.Boolean:
		return gatherBool(alloc, srcs, starts, ents), nil
	case *array.String, *array.Binary:
		return gatherBinary(alloc, srcs, starts, ents)
	case *array.Null:
		return array.NewNull(len(ents)), nil
	}
	return nil, fmt.Errorf("sort: cannot gather a column of type %s", srcs[0].DataType())
}

// gatherValidity builds the output validity bitmap, or nil when no gathered row is null.
func gatherValidity(alloc memory.Allocator, srcs []arrow.Array, starts []int, ents []entry) (*memory.Buffer, int) {
	bits := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	some := false
	for i, s := range srcs {
		bits[i], offs[i] = validityBits(s)
		some = some || bits[i] != nil
	}
	if !some {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(len(ents)))))
	out := buf.Bytes()
	nulls := 0
	for i, e := range ents {
		b := bits[e.src]
		if b == nil || bitutil.BitIsSet(b, offs[e.src]+int(e.row)-starts[e.src]) {
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

func finish(dt arrow.DataType, n int, validity *memory.Buffer, nulls int, bufs ...*memory.Buffer) arrow.Array {
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

func gatherFixed[T any](alloc memory.Allocator, srcs []arrow.Array, starts []int, ents []entry) arrow.Array {
	vals := make([][]T, len(srcs))
	for i, s := range srcs {
		vals[i] = fixedValues[T](s)
	}
	validity, nulls := gatherValidity(alloc, srcs, starts, ents)
	var z T
	data := memory.NewResizableBuffer(alloc)
	data.Resize(len(ents) * int(unsafe.Sizeof(z)))
	out := reinterpret[T](data.Bytes())
	for i, e := range ents {
		out[i] = vals[e.src][int(e.row)-starts[e.src]]
	}
	return finish(srcs[0].DataType(), len(ents), validity, nulls, data)
}

func gatherBool(alloc memory.Allocator, srcs []arrow.Array, starts []int, ents []entry) arrow.Array {
	bits := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	for i, s := range srcs {
		if s.Len() > 0 {
			bits[i], offs[i] = s.Data().Buffers()[1].Bytes(), s.Data().Offset()
		}
	}
	validity, nulls := gatherValidity(alloc, srcs, starts, ents)
	data := memory.NewResizableBuffer(alloc)
	data.Resize(int(bitutil.BytesForBits(int64(len(ents)))))
	out := data.Bytes()
	for i, e := range ents {
		if bitutil.BitIsSet(bits[e.src], offs[e.src]+int(e.row)-starts[e.src]) {
			bitutil.SetBit(out, i)
		}
	}
	return finish(srcs[0].DataType(), len(ents), validity, nulls, data)
}

func gatherBinary(alloc memory.Allocator, srcs []arrow.Array, starts []int, ents []entry) (arrow.Array, error) {
	offs := make([][]int32, len(srcs))
	datas := make([][]byte, len(srcs))
	for i, s := range srcs {
		offs[i], datas[i] = binaryParts(s)
	}
	total := 0
	for _, e := range ents {
		o, r := offs[e.src], int(e.row)-starts[e.src]
		total += int(o[r+1] - o[r])
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("sort: %d bytes of %s values in one output batch exceed Arrow's 2 GiB limit",
			total, srcs[0].DataType())
	}
	validity, nulls := gatherValidity(alloc, srcs, starts, ents)
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((len(ents) + 1) * 4)
	outOff := reinterpret[int32](offBuf.Bytes())
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(total)
	out := dataBuf.Bytes()
	w := 0
	for i, e := range ents {
		o, r := offs[e.src], int(e.row)-starts[e.src]
		outOff[i] = int32(w)
		w += copy(out[w:], datas[e.src][o[r]:o[r+1]])
	}
	outOff[len(ents)] = int32(w)
	return finish(srcs[0].DataType(), len(ents), validity, nulls, offBuf, dataBuf), nil
}
