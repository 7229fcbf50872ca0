package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register("Literal", "constant of any supported type, including typed nulls and NULL (void)", translateLiteral)
}

// Literal is a constant. It keeps its value as a one-row Arrow array (Go heap memory, never
// handed to the JVM) that kernels read directly; Eval materializes it to the batch's row count.
type Literal struct {
	typ   sparktype.Type
	one   arrow.Array
	isNil bool
	text  string
}

func (l *Literal) Type() sparktype.Type    { return l.typ }
func (l *Literal) String() string          { return l.text }
func (l *Literal) constArray() arrow.Array { return l.one }

// IsNull reports whether the literal is NULL.
func (l *Literal) IsNull() bool { return l.isNil }

func translateLiteral(e *plan.Expr, _ *plan.Conf) (Expr, error) {
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind == sparktype.Unsupported {
		return nil, unsupported("literal of type %s is not supported natively", t)
	}
	raw, err := e.Raw("value")
	if err != nil {
		return nil, err
	}
	return newLiteral(t, raw)
}

func isJSONNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// newLiteral decodes an encoded literal value (see plan/wire.go) of type t.
func newLiteral(t sparktype.Type, raw json.RawMessage) (*Literal, error) {
	mem := memory.DefaultAllocator
	l := &Literal{typ: t}
	if t.Kind == sparktype.Null || isJSONNull(raw) {
		l.isNil = true
		l.one = allNull(mem, t.Arrow(), 1)
		l.text = "null"
		return l, nil
	}
	bad := func(err error) error { return fmt.Errorf("literal of type %s: bad value %s: %v", t, raw, err) }
	switch t.Kind {
	case sparktype.Boolean:
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, bad(err)
		}
		bld := array.NewBooleanBuilder(mem)
		bld.Append(v)
		l.one = bld.NewArray()
		l.text = fmt.Sprint(v)
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ:
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, bad(err)
		}
		var ok bool
		switch t.Kind {
		case sparktype.Byte:
			ok = v == int64(int8(v))
			l.one = oneFixed(t, int8(v))
		case sparktype.Short:
			ok = v == int64(int16(v))
			l.one = oneFixed(t, int16(v))
		case sparktype.Int, sparktype.Date:
			ok = v == int64(int32(v))
			l.one = oneFixed(t, int32(v))
		default:
			ok = true
			l.one = oneFixed(t, v)
		}
		if !ok {
			return nil, bad(fmt.Errorf("out of range"))
		}
		l.text = fmt.Sprint(v)
	case sparktype.Float, sparktype.Double:
		var fb plan.FloatBits
		if err := json.Unmarshal(raw, &fb); err != nil || fb.Bits == nil {
			return nil, bad(fmt.Errorf("expected {\"bits\": ...}"))
		}
		if t.Kind == sparktype.Float {
			f := math.Float32frombits(uint32(*fb.Bits))
			l.one = oneFixed(t, f)
			l.text = fmt.Sprint(f)
		} else {
			f := math.Float64frombits(uint64(*fb.Bits))
			l.one = oneFixed(t, f)
			l.text = fmt.Sprint(f)
		}
	case sparktype.Decimal:
		var dv plan.DecimalValue
		if err := json.Unmarshal(raw, &dv); err != nil {
			return nil, bad(err)
		}
		u, ok := new(big.Int).SetString(dv.Unscaled, 10)
		if !ok {
			return nil, bad(fmt.Errorf("unscaled %q", dv.Unscaled))
		}
		// Spark's Literal holds a Decimal whose scale may differ from the type's only in
		// corrupt plans; rescale defensively (exactly, or refuse).
		if dv.Scale != t.Scale {
			r, exact := rescaleBig(u, dv.Scale, t.Scale)
			if !exact {
				return nil, bad(fmt.Errorf("scale %d does not match type", dv.Scale))
			}
			u = r
		}
		if digitsBig(u) > int(t.Precision) {
			return nil, bad(fmt.Errorf("value exceeds precision %d", t.Precision))
		}
		l.one = oneFixed(t, decimal128.FromBigInt(u))
		l.text = plainString(u, t.Scale)
	case sparktype.String, sparktype.Binary:
		var bv plan.BytesValue
		if err := json.Unmarshal(raw, &bv); err != nil {
			return nil, bad(err)
		}
		if t.Kind == sparktype.String {
			bld := array.NewStringBuilder(mem)
			bld.BinaryBuilder.Append(bv.B64)
			l.one = bld.NewArray()
			l.text = fmt.Sprintf("%q", bv.B64)
		} else {
			bld := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			bld.Append(bv.B64)
			l.one = bld.NewArray()
			l.text = fmt.Sprintf("X'%X'", bv.B64)
		}
	default:
		return nil, unsupported("literal of type %s is not supported natively", t)
	}
	return l, nil
}

func oneFixed[T any](t sparktype.Type, v T) arrow.Array {
	buf, vals := newFixed[T](memory.DefaultAllocator, 1)
	vals[0] = v
	return finish(t.Arrow(), 1, nil, buf, 0)
}

func (l *Literal) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return broadcast(ctx.Alloc, l.one, b.NumRows), nil
}

// broadcast repeats the single value of a one-row array n times.
func broadcast(alloc memory.Allocator, one arrow.Array, n int) arrow.Array {
	if isNullAt(one, 0) {
		return allNull(alloc, one.DataType(), n)
	}
	switch a := one.(type) {
	case *array.Boolean:
		buf, bm := newBitmap(alloc, n)
		if a.Value(0) {
			for i := range bm {
				bm[i] = 0xff
			}
		}
		return finish(one.DataType(), n, nil, buf, 0)
	case *array.String:
		return repeatBytes(alloc, one.DataType(), []byte(a.Value(0)), n)
	case *array.Binary:
		return repeatBytes(alloc, one.DataType(), a.Value(0), n)
	case *array.Int8:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Int16:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Int32:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Date32:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Int64:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Timestamp:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Float32:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Float64:
		return fill(alloc, one.DataType(), a.Value(0), n)
	case *array.Decimal128:
		return fill(alloc, one.DataType(), a.Value(0), n)
	}
	panic(fmt.Sprintf("expr: broadcast of %s", one.DataType()))
}

func fill[T any](alloc memory.Allocator, dt arrow.DataType, v T, n int) arrow.Array {
	buf, vals := newFixed[T](alloc, n)
	for i := range vals {
		vals[i] = v
	}
	return finish(dt, n, nil, buf, 0)
}

func repeatBytes(alloc memory.Allocator, dt arrow.DataType, v []byte, n int) arrow.Array {
	offBuf, offs := newFixed[int32](alloc, n+1)
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(len(v) * n)
	data := dataBuf.Bytes()
	for i := 0; i < n; i++ {
		offs[i] = int32(i * len(v))
		copy(data[i*len(v):], v)
	}
	offs[n] = int32(n * len(v))
	d := array.NewData(dt, n, []*memory.Buffer{nil, offBuf, dataBuf}, nil, 0, 0)
	offBuf.Release()
	dataBuf.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a
}
