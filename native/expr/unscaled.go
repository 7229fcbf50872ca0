package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// UnscaledValue and MakeDecimal (decimalExpressions.scala): Spark's DecimalAggregates rule sums and
// averages small decimals (precision + 10 <= 18) as longs of their unscaled values and turns the
// result back into a decimal, so both appear in aggregates over decimal(p <= 8, s).

func init() {
	Register("UnscaledValue", "decimal(p <= 18) -> long unscaled value (Spark's small-decimal aggregates)",
		translateUnscaled)
	Register("MakeDecimal", "long unscaled value -> decimal(p <= 18, s); null on overflow, or Spark's error when nullOnOverflow is false",
		translateMakeDecimal)
}

type unscaledValue struct{ child Expr }

func (e *unscaledValue) Type() sparktype.Type { return sparktype.LongType }
func (e *unscaledValue) String() string       { return fmt.Sprintf("UnscaledValue(%s)", e.child) }
func (e *unscaledValue) mayFail() bool        { return mayFail(e.child) }

func translateUnscaled(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if t := c.Type(); t.Kind != sparktype.Decimal || t.Precision > 18 {
		return nil, unsupported("UnscaledValue of %s is not supported natively", t)
	}
	return &unscaledValue{child: c}, nil
}

func (e *unscaledValue) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	in, err := e.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	for i, x := range values[decimal128.Num](in) {
		// precision <= 18: the value fits the low word, sign included.
		out[i] = int64(x.LowBits())
	}
	return finish(arrow.PrimitiveTypes.Int64, n, vbuf, obuf, nulls), nil
}

type makeDecimal struct {
	child          Expr
	typ            sparktype.Type
	nullOnOverflow bool
	bound          int64 // 10^precision
}

func (e *makeDecimal) Type() sparktype.Type { return e.typ }
func (e *makeDecimal) String() string       { return fmt.Sprintf("MakeDecimal(%s, %s)", e.child, e.typ) }
func (e *makeDecimal) mayFail() bool        { return !e.nullOnOverflow || mayFail(e.child) }

func translateMakeDecimal(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Long {
		return nil, unsupported("MakeDecimal of %s is not supported natively", c.Type())
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind != sparktype.Decimal || t.Precision > 18 {
		return nil, unsupported("MakeDecimal to %s is not supported natively", t)
	}
	nullOnOverflow, err := pe.Bool("nullOnOverflow")
	if err != nil {
		return nil, err
	}
	bound := int64(1)
	for i := int32(0); i < t.Precision; i++ {
		bound *= 10
	}
	return &makeDecimal{child: c, typ: t, nullOnOverflow: nullOnOverflow, bound: bound}, nil
}

func (e *makeDecimal) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	in, err := e.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, valid := copyValidity(ctx.Alloc, in, n)
	obuf, out := newFixed[decimal128.Num](ctx.Alloc, n)
	for i, x := range values[int64](in) {
		out[i] = decimal128.FromI64(x)
		if (x >= e.bound || x <= -e.bound) && bitutil.BitIsSet(valid, i) {
			if !e.nullOnOverflow {
				vbuf.Release()
				obuf.Release()
				return nil, exec.NumericValueOutOfRange(decimal128.FromI64(x).ToString(e.typ.Scale),
					e.typ.Precision, e.typ.Scale)
			}
			bitutil.ClearBit(valid, i)
		}
	}
	return finish(e.typ.Arrow(), n, vbuf, obuf, countNulls(valid, n)), nil
}
