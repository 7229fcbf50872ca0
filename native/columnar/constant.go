package columnar

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Constant builds a column of n copies of v (a value in plan.DecodeValue's Go form; nil = null).
func Constant(alloc memory.Allocator, t sparktype.Type, v any, n int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(alloc, t.Arrow(), n), nil
	}
	switch t.Kind {
	case sparktype.Boolean:
		b := array.NewBooleanBuilder(alloc)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(v.(bool))
		}
		return b.NewArray(), nil
	case sparktype.Byte:
		return fill[int8](alloc, t, int8(v.(int64)), n), nil
	case sparktype.Short:
		return fill[int16](alloc, t, int16(v.(int64)), n), nil
	case sparktype.Int, sparktype.Date:
		return fill[int32](alloc, t, int32(v.(int64)), n), nil
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return fill[int64](alloc, t, v.(int64), n), nil
	case sparktype.Float:
		return fill[float32](alloc, t, float32(v.(float64)), n), nil
	case sparktype.Double:
		return fill[float64](alloc, t, v.(float64), n), nil
	case sparktype.Decimal:
		return fill[decimal128.Num](alloc, t, v.(decimal128.Num), n), nil
	case sparktype.String, sparktype.Binary:
		var bs []byte
		if s, ok := v.(string); ok {
			bs = []byte(s)
		} else {
			bs = v.([]byte)
		}
		offBuf := memory.NewResizableBuffer(alloc)
		offBuf.Resize((n + 1) * 4)
		offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
		dataBuf := memory.NewResizableBuffer(alloc)
		dataBuf.Resize(n * len(bs))
		data := dataBuf.Bytes()
		for i := 0; i < n; i++ {
			offs[i] = int32(i * len(bs))
			copy(data[i*len(bs):], bs)
		}
		offs[n] = int32(n * len(bs))
		d := array.NewData(t.Arrow(), n, []*memory.Buffer{nil, offBuf, dataBuf}, nil, 0, 0)
		defer d.Release()
		offBuf.Release()
		dataBuf.Release()
		return array.MakeFromData(d), nil
	}
	return nil, fmt.Errorf("constant column of type %s is not supported", t)
}

func fill[T fixed](alloc memory.Allocator, t sparktype.Type, v T, n int) arrow.Array {
	buf := memory.NewResizableBuffer(alloc)
	var zero T
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	out := arrow.GetData[T](buf.Bytes())
	for i := range out[:n] {
		out[i] = v
	}
	d := array.NewData(t.Arrow(), n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer d.Release()
	buf.Release()
	return array.MakeFromData(d)
}
