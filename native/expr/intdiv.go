package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// IntegralDivide (div) of longs, as DivModLike evaluates it: the divisor first; a null divisor,
// or a zero one outside ANSI mode, gives null without looking at the dividend; in ANSI mode a
// zero divisor with a non-null dividend raises DIVIDE_BY_ZERO and Long.MinValue div -1 raises
// ARITHMETIC_OVERFLOW ("Overflow in integral divide", try_divide); in LEGACY mode that quotient
// wraps to Long.MinValue as Java's (and Go's) division does. Decimal operands and TRY mode are
// refused.

func init() {
	Register("IntegralDivide", "left div right of longs (truncated quotient); null or (non-ANSI) zero divisor gives null; ANSI: DIVIDE_BY_ZERO and ARITHMETIC_OVERFLOW for Long.MinValue div -1; decimals and TRY refused", translateIntegralDivide)
}

type intDiv struct {
	left, right Expr
	ansi        bool
}

func (e *intDiv) Type() sparktype.Type { return sparktype.LongType }
func (e *intDiv) String() string       { return fmt.Sprintf("(%s div %s)", e.left, e.right) }
func (e *intDiv) mayFail() bool        { return e.ansi || mayFail(e.left) || mayFail(e.right) }

func translateIntegralDivide(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	mode, err := exprEvalMode(pe)
	if err != nil {
		return nil, err
	}
	if mode == modeTry {
		return nil, unsupported("IntegralDivide in TRY mode is not supported natively")
	}
	l, err := translateChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	r, err := translateChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	if l.Type().Kind != sparktype.Long || r.Type().Kind != sparktype.Long {
		return nil, unsupported("IntegralDivide of %s and %s is not supported natively (longs only)", l.Type(), r.Type())
	}
	if mode != modeANSI && mayFail(l) {
		// Spark skips the dividend where the divisor is zero; a failing dividend could fail there.
		return nil, unsupported("IntegralDivide with a dividend that may fail (%s) outside ANSI mode is not supported natively", l)
	}
	return &intDiv{left: l, right: r, ansi: mode == modeANSI}, nil
}

func (e *intDiv) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *intDiv) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.right, e.left)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	ro, lo := ops[0], ops[1]
	dt := arrow.PrimitiveTypes.Int64
	if n == 0 || ro.nullScalar() || lo.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, valid := newBitmap(ctx.Alloc, n)
	bitutil.SetBitsTo(valid, 0, int64(n), true)
	for _, o := range ops {
		if bm, off := validity(o.arr); !o.scalar && bm != nil {
			bitutil.BitmapAnd(valid, bm, 0, int64(off), valid, 0, int64(n))
		}
	}
	if active != nil {
		bitutil.BitmapAnd(valid, active, 0, 0, valid, 0, int64(n))
	}
	lv, lm := values[int64](lo.arr), lo.mask()
	rv, rm := values[int64](ro.arr), ro.mask()
	obuf, out := newFixed[int64](ctx.Alloc, n)
	fail := func(err error) (arrow.Array, error) {
		vbuf.Release()
		obuf.Release()
		return nil, err
	}
	for i := range out {
		out[i] = 0
		if valid[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		x, y := lv[i&lm], rv[i&rm]
		switch {
		case y == 0:
			if e.ansi {
				return fail(exec.DivideByZero())
			}
			bitutil.ClearBit(valid, i)
		case y == -1 && x == math.MinInt64 && e.ansi:
			return fail(exec.ArithmeticOverflow("Overflow in integral divide", " Use 'try_divide' to tolerate overflow and return NULL instead."))
		default:
			out[i] = x / y
		}
	}
	return finish(dt, n, vbuf, obuf, countNulls(valid, n)), nil
}
