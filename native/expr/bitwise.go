package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Bitwise operators (bitwiseExpressions.scala: BitwiseAnd, BitwiseOr, BitwiseXor over byte,
// short, int, long; both sides of the result's type) and shifts (mathExpressions.scala:
// ShiftLeft, ShiftRight, ShiftRightUnsigned: an int or long value shifted by an int, Java's
// operators, so the amount is taken modulo 32 or 64). Null if either side is null; never an
// error. Spark's grouping(col) is ShiftRight and BitwiseAnd over the grouping id.

type bitOp uint8

const (
	bitAnd bitOp = iota
	bitOr
	bitXor
	shiftLeft
	shiftRight
	shiftRightUnsigned
)

var bitInfo = [...]struct{ class, symbol string }{
	bitAnd: {"BitwiseAnd", "&"}, bitOr: {"BitwiseOr", "|"}, bitXor: {"BitwiseXor", "^"},
	shiftLeft: {"ShiftLeft", "<<"}, shiftRight: {"ShiftRight", ">>"}, shiftRightUnsigned: {"ShiftRightUnsigned", ">>>"},
}

func init() {
	for _, op := range []bitOp{bitAnd, bitOr, bitXor} {
		sym := bitInfo[op].symbol
		if op == bitOr {
			sym = `\|` // the support document is a markdown table
		}
		Register(bitInfo[op].class, "left "+sym+" right over byte/short/int/long", bitTranslator(op))
	}
	for _, op := range []bitOp{shiftLeft, shiftRight, shiftRightUnsigned} {
		Register(bitInfo[op].class, "int or long "+bitInfo[op].symbol+" int (Java: the amount modulo 32 or 64)",
			bitTranslator(op))
	}
}

type bitwise struct {
	op          bitOp
	typ         sparktype.Type
	left, right Expr
}

func (e *bitwise) Type() sparktype.Type { return e.typ }
func (e *bitwise) mayFail() bool        { return mayFail(e.left) || mayFail(e.right) }
func (e *bitwise) String() string {
	return fmt.Sprintf("(%s %s %s)", e.left, bitInfo[e.op].symbol, e.right)
}

func bitTranslator(op bitOp) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		t, err := pe.Type()
		if err != nil {
			return nil, err
		}
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		lt, rt := l.Type(), r.Type()
		ok := lt.Equal(t)
		if op >= shiftLeft {
			ok = ok && (t.Kind == sparktype.Int || t.Kind == sparktype.Long) && rt.Kind == sparktype.Int
		} else {
			ok = ok && t.IsIntegral() && rt.Equal(t)
		}
		if !ok {
			return nil, unsupported("%s of %s and %s returning %s is not supported natively", bitInfo[op].class, lt, rt, t)
		}
		return &bitwise{op: op, typ: t, left: l, right: r}, nil
	}
}

func (e *bitwise) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *bitwise) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	lo, ro, err := evalLeftThenRight(ctx, b, e.left, e.right, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	defer ro.release()
	n := b.NumRows
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		if vbuf != nil {
			vbuf.Release()
		}
		return allNull(ctx.Alloc, e.typ.Arrow(), n), nil
	}
	dt := e.typ.Arrow()
	switch e.typ.Kind {
	case sparktype.Byte:
		return finish(dt, n, vbuf, bitKernel[int8](ctx, e.op, lo, ro, n), nulls), nil
	case sparktype.Short:
		return finish(dt, n, vbuf, bitKernel[int16](ctx, e.op, lo, ro, n), nulls), nil
	case sparktype.Int:
		if e.op >= shiftLeft {
			return finish(dt, n, vbuf, shiftKernel[int32, uint32](ctx, e.op, lo, ro, n, 31), nulls), nil
		}
		return finish(dt, n, vbuf, bitKernel[int32](ctx, e.op, lo, ro, n), nulls), nil
	case sparktype.Long:
		if e.op >= shiftLeft {
			return finish(dt, n, vbuf, shiftKernel[int64, uint64](ctx, e.op, lo, ro, n, 63), nulls), nil
		}
		return finish(dt, n, vbuf, bitKernel[int64](ctx, e.op, lo, ro, n), nulls), nil
	}
	if vbuf != nil {
		vbuf.Release()
	}
	return nil, fmt.Errorf("%s: unexpected type %s", e, e.typ)
}

// bitKernel computes every row (null rows too: their values are never read).
func bitKernel[T integer](ctx *exec.TaskContext, op bitOp, lo, ro operand, n int) *memory.Buffer {
	a, b := values[T](lo.arr), values[T](ro.arr)
	am, bm := lo.mask(), ro.mask()
	obuf, out := newFixed[T](ctx.Alloc, n)
	switch op {
	case bitAnd:
		for i := range out {
			out[i] = a[i&am] & b[i&bm]
		}
	case bitOr:
		for i := range out {
			out[i] = a[i&am] | b[i&bm]
		}
	default:
		for i := range out {
			out[i] = a[i&am] ^ b[i&bm]
		}
	}
	return obuf
}

// shiftKernel shifts values of T by int amounts masked to the width (Java's << >> >>>); U is T's
// unsigned twin for >>>.
func shiftKernel[T int32 | int64, U uint32 | uint64](ctx *exec.TaskContext, op bitOp, lo, ro operand, n int, width int32) *memory.Buffer {
	a, b := values[T](lo.arr), values[int32](ro.arr)
	am, bm := lo.mask(), ro.mask()
	obuf, out := newFixed[T](ctx.Alloc, n)
	switch op {
	case shiftLeft:
		for i := range out {
			out[i] = a[i&am] << uint(b[i&bm]&width)
		}
	case shiftRight:
		for i := range out {
			out[i] = a[i&am] >> uint(b[i&bm]&width)
		}
	default:
		for i := range out {
			out[i] = T(U(a[i&am]) >> uint(b[i&bm]&width))
		}
	}
	return obuf
}
