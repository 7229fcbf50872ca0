package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Ceil and Floor with one argument (what ceil(x) and floor(x) build), as mathExpressions.scala:
//   - long: the value itself;
//   - double: Math.ceil/Math.floor, exact in IEEE arithmetic in both Java and Go, then Java's
//     (long) conversion: NaN gives 0, values beyond the long range saturate;
//   - decimal(p, s): Decimal.ceil/floor, the value rounded to scale 0 towards +/- infinity, as
//     decimal(min(p - s + 1, 38), 0) (always wide enough).
// With a scale argument Spark builds RoundCeil/RoundFloor, which are not native.

func init() {
	Register("Ceil", "ceil(x) of a long, double (Java's saturating conversion to long) or decimal (to scale 0)", roundingTranslator(true))
	Register("Floor", "floor(x) of a long, double (Java's saturating conversion to long) or decimal (to scale 0)", roundingTranslator(false))
}

type ceilFloor struct {
	ceil  bool
	child Expr
	typ   sparktype.Type
}

func (e *ceilFloor) Type() sparktype.Type { return e.typ }
func (e *ceilFloor) mayFail() bool        { return mayFail(e.child) }
func (e *ceilFloor) String() string {
	if e.ceil {
		return fmt.Sprintf("ceil(%s)", e.child)
	}
	return fmt.Sprintf("floor(%s)", e.child)
}

func roundingTranslator(ceil bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		t, err := pe.Type()
		if err != nil {
			return nil, err
		}
		in := c.Type()
		ok := false
		switch in.Kind {
		case sparktype.Long, sparktype.Double:
			ok = t.Kind == sparktype.Long
		case sparktype.Decimal:
			ok = t.Kind == sparktype.Decimal && t.Scale == 0 && t.Precision == min(in.Precision-in.Scale+1, 38)
			if in.Scale == 0 {
				ok = t.Equal(in)
			}
		}
		if !ok {
			return nil, unsupported("%s of %s returning %s is not supported natively", cls, in, t)
		}
		return &ceilFloor{ceil: ceil, child: c, typ: t}, nil
	}
}

func (e *ceilFloor) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *ceilFloor) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	dt := e.typ.Arrow()
	switch e.child.Type().Kind {
	case sparktype.Long:
		obuf, out := newFixed[int64](ctx.Alloc, n)
		copy(out, values[int64](in))
		return finish(dt, n, vbuf, obuf, nulls), nil
	case sparktype.Double:
		obuf, out := newFixed[int64](ctx.Alloc, n)
		src := values[float64](in)
		if e.ceil {
			for i, x := range src {
				out[i] = javaLong(math.Ceil(x))
			}
		} else {
			for i, x := range src {
				out[i] = javaLong(math.Floor(x))
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	obuf, out := newFixed[decimal128.Num](ctx.Alloc, n)
	scale := e.child.Type().Scale
	src := values[decimal128.Num](in)
	if scale == 0 {
		copy(out, src)
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	div := decimal128.FromU64(pow10u64[min(scale, 19)])
	for i, x := range src {
		out[i] = roundToInteger(x, scale, div, e.ceil)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// javaLong is Java's (long) conversion of a double: NaN is 0, out-of-range values saturate.
func javaLong(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 9223372036854775807:
		return math.MaxInt64
	case x <= -9223372036854775808:
		return math.MinInt64
	}
	return int64(x)
}

// roundToInteger divides the unscaled x by 10^scale, rounding towards +infinity (ceil) or
// -infinity (floor). div is 10^scale when scale <= 19.
func roundToInteger(x decimal128.Num, scale int32, div decimal128.Num, ceil bool) decimal128.Num {
	if scale <= 18 && (x.HighBits() == 0 && x.LowBits() <= math.MaxInt64 || x.HighBits() == -1 && x.LowBits() > math.MaxInt64) {
		v, d := int64(x.LowBits()), int64(div.LowBits())
		q, r := v/d, v%d
		if ceil && r > 0 {
			q++
		} else if !ceil && r < 0 {
			q--
		}
		return decimal128.FromI64(q)
	}
	d := div
	if scale > 19 {
		d = decimal128.FromBigInt(pow10Big(int(scale)))
	}
	q, r := x.Div(d) // truncates towards zero
	if ceil && r.Sign() > 0 {
		q = q.Add(decimal128.FromI64(1))
	} else if !ceil && r.Sign() < 0 {
		q = q.Sub(decimal128.FromI64(1))
	}
	return q
}

// ---- Round (HALF_UP) of decimals ----

// Round(child, scale) of a decimal(p, s) with a literal scale 0 <= scale: Decimal.toPrecision to
// the result scale min(s, scale), ROUND_HALF_UP (ties away from zero), as
// decimal(min(p - s + 1 + that scale, 38), that scale), which always holds the result. Negative
// scales and floating-point rounding (Spark rounds the double's shortest decimal string) are
// refused.
type roundDecimal struct {
	child    Expr
	typ      sparktype.Type
	drop     int32 // digits removed: input scale - result scale
	halfEven bool  // BRound (bround.go): ROUND_HALF_EVEN instead of HALF_UP
}

func (e *roundDecimal) Type() sparktype.Type { return e.typ }
func (e *roundDecimal) mayFail() bool        { return mayFail(e.child) }
func (e *roundDecimal) String() string {
	name := "round"
	if e.halfEven {
		name = "bround"
	}
	return fmt.Sprintf("%s(%s, %d)", name, e.child, e.typ.Scale)
}

func init() {
	Register("Round", "round(x, d) of a decimal with a literal d >= 0: HALF_UP to scale min(s, d); other types and negative d refused", translateRound)
}

func translateRound(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	in := c.Type()
	if in.Kind != sparktype.Decimal {
		return nil, unsupported("Round of %s is not supported natively", in)
	}
	sc, err := translateChild(pe, "scale", conf)
	if err != nil {
		return nil, err
	}
	lit, ok := sc.(*Literal)
	if !ok || sc.Type().Kind != sparktype.Int || lit.IsNull() {
		return nil, unsupported("Round with a scale that is not an int literal is not supported natively")
	}
	scale := int32(literalInt(lit))
	if scale < 0 {
		return nil, unsupported("Round to a negative scale is not supported natively")
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	rs := min(in.Scale, scale)
	if t.Kind != sparktype.Decimal || t.Scale != rs || t.Precision != min(in.Precision-in.Scale+1+rs, 38) {
		return nil, unsupported("Round of %s returning %s is not supported natively", in, t)
	}
	return &roundDecimal{child: c, typ: t, drop: in.Scale - rs}, nil
}

func (e *roundDecimal) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *roundDecimal) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[decimal128.Num](ctx.Alloc, n)
	src := values[decimal128.Num](in)
	switch {
	case e.drop == 0:
		copy(out, src)
	case e.halfEven:
		for i, x := range src {
			out[i] = roundHalfEven(x, e.drop)
		}
	default:
		for i, x := range src {
			out[i] = roundHalfUp(x, e.drop)
		}
	}
	return finish(e.typ.Arrow(), n, vbuf, obuf, nulls), nil
}

// roundHalfUp divides the unscaled x by 10^k, rounding half away from zero.
func roundHalfUp(x decimal128.Num, k int32) decimal128.Num {
	if k <= 18 && (x.HighBits() == 0 && x.LowBits() <= math.MaxInt64 || x.HighBits() == -1 && x.LowBits() > math.MaxInt64) {
		v, d := int64(x.LowBits()), int64(pow10u64[k])
		q, r := v/d, v%d
		if r >= (d+1)/2 {
			q++
		} else if -r >= (d+1)/2 {
			q--
		}
		return decimal128.FromI64(q)
	}
	d := decimal128.FromBigInt(pow10Big(int(k)))
	q, r := x.Div(d) // truncates towards zero
	twice := r.Abs().Mul(decimal128.FromI64(2))
	if twice.Cmp(d) >= 0 {
		if x.Sign() < 0 {
			q = q.Sub(decimal128.FromI64(1))
		} else {
			q = q.Add(decimal128.FromI64(1))
		}
	}
	return q
}
