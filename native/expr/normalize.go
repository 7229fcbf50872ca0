package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// NormalizeNaNAndZero and KnownFloatingPointNormalized (NormalizeFloatingNumbers.scala): Spark
// wraps float/double grouping and join keys so that every NaN becomes the canonical NaN
// (Float.NaN / Double.NaN) and -0.0 becomes 0.0.

func init() {
	Register("NormalizeNaNAndZero", "float/double: canonical NaN, -0.0 -> 0.0 (grouping and join keys)", translateNormalize)
	Register("KnownFloatingPointNormalized", "marker around normalized keys; evaluates its child", func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		return translateChild(pe, "child", conf)
	})
}

type normalize struct {
	child Expr
	typ   sparktype.Type
}

func (e *normalize) Type() sparktype.Type { return e.typ }
func (e *normalize) String() string       { return fmt.Sprintf("normalizenanandzero(%s)", e.child) }
func (e *normalize) mayFail() bool        { return mayFail(e.child) }

func translateNormalize(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	t := c.Type()
	if !t.IsFloating() {
		return nil, unsupported("NormalizeNaNAndZero of %s is not supported natively", t)
	}
	return &normalize{child: c, typ: t}, nil
}

func (e *normalize) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *normalize) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	if e.typ.Kind == sparktype.Float {
		a := values[float32](in)
		obuf, out := newFixed[float32](ctx.Alloc, n)
		nan := math.Float32frombits(0x7fc00000) // java.lang.Float.NaN
		for i, x := range a {
			switch {
			case x != x:
				x = nan
			case x == 0:
				x = 0
			}
			out[i] = x
		}
		return finish(in.DataType(), n, vbuf, obuf, nulls), nil
	}
	a := values[float64](in)
	obuf, out := newFixed[float64](ctx.Alloc, n)
	nan := math.Float64frombits(0x7ff8000000000000) // java.lang.Double.NaN (Go's math.NaN differs)
	for i, x := range a {
		switch {
		case x != x:
			x = nan
		case x == 0:
			x = 0
		}
		out[i] = x
	}
	return finish(in.DataType(), n, vbuf, obuf, nulls), nil
}
