package expr

import (
	"encoding/json"
	"fmt"

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
	if t.Kind == sparktype.Unsupported || t.Nested() {
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
	if !t.Supported() {
		return nil, unsupported("literal of type %s is not supported natively", t)
	}
	v, err := plan.DecodeValue(raw, t)
	if err != nil {
		return nil, bad(err)
	}
	switch x := v.(type) {
	case int64:
		if (t.Kind == sparktype.Byte && x != int64(int8(x))) || (t.Kind == sparktype.Short && x != int64(int16(x))) ||
			((t.Kind == sparktype.Int || t.Kind == sparktype.Date) && x != int64(int32(x))) {
			return nil, bad(fmt.Errorf("out of range"))
		}
		l.text = fmt.Sprint(x)
	case float64:
		if t.Kind == sparktype.Float {
			l.text = fmt.Sprint(float32(x))
		} else {
			l.text = fmt.Sprint(x)
		}
	case decimal128.Num:
		if !x.FitsInPrecision(t.Precision) {
			return nil, bad(fmt.Errorf("value exceeds precision %d", t.Precision))
		}
		l.text = plainString(x.BigInt(), t.Scale)
	case string:
		l.text = fmt.Sprintf("%q", x)
	case []byte:
		l.text = fmt.Sprintf("X'%X'", x)
	default:
		l.text = fmt.Sprint(x)
	}
	if l.one, err = columnar.Constant(mem, t, v, 1); err != nil {
		return nil, err
	}
	return l, nil
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
