package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// timestamp_seconds, timestamp_millis and timestamp_micros build a TimestampType (microseconds
// since the epoch, UTC) from a count since the epoch. No time zone is involved. Their failures
// do not depend on the eval mode, which is why every mode shares one kernel:
//   - integral input (SecondsToTimestamp, and MillisToTimestamp, MicrosToTimestamp which take
//     integral input only): Math.multiplyExact(v, scale), an ArithmeticException ("long
//     overflow") past the long range, in ANSI and legacy mode alike.
//   - decimal seconds: BigDecimal.multiply(10^6).longValueExact(), which fails when the product
//     keeps a fraction (more than 6 decimals: "Rounding necessary") or leaves the long range.
//   - float/double seconds: (long)(x * 1e6) in double arithmetic (Java's conversion saturates),
//     NaN and infinities null.

func init() {
	Register("SecondsToTimestamp", "timestamp_seconds(n): n seconds after the epoch; integral and decimal n fail past the long range (and decimals with a fraction of a microsecond), float/double n saturate, NaN/Inf null", translateToTimestamp(1_000_000))
	Register("MillisToTimestamp", "timestamp_millis(n): n milliseconds after the epoch (integral n; fails past the long range)", translateToTimestamp(1_000))
	Register("MicrosToTimestamp", "timestamp_micros(n): n microseconds after the epoch (integral n)", translateToTimestamp(1))
}

type toTimestamp struct {
	name  string
	scale int64 // microseconds per unit
	child Expr
}

func (e *toTimestamp) Type() sparktype.Type { return sparktype.TimestampType }
func (e *toTimestamp) mayFail() bool {
	switch e.child.Type().Kind {
	case sparktype.Long:
		return e.scale != 1 || mayFail(e.child)
	case sparktype.Decimal:
		return true
	}
	return mayFail(e.child) // ints times at most 10^6 fit in a long; doubles saturate
}
func (e *toTimestamp) String() string { return fmt.Sprintf("%s(%s)", e.name, e.child) }

func translateToTimestamp(scale int64) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		switch c.Type().Kind {
		case sparktype.Long, sparktype.Int, sparktype.Short, sparktype.Byte:
		case sparktype.Float, sparktype.Double, sparktype.Decimal:
			if scale != 1_000_000 {
				return nil, unsupported("%s of %s is not supported natively", cls, c.Type())
			}
		default:
			return nil, unsupported("%s of %s is not supported natively", cls, c.Type())
		}
		name := map[int64]string{1_000_000: "timestamp_seconds", 1_000: "timestamp_millis", 1: "timestamp_micros"}[scale]
		return &toTimestamp{name: name, scale: scale, child: c}, nil
	}
}

func (e *toTimestamp) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *toTimestamp) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := sparktype.TimestampType.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	fail := func(i int, v any, why string) (arrow.Array, error) {
		obuf.Release()
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, fmt.Errorf("%s(%v): %s (Spark fails with java.lang.ArithmeticException)", e.name, v, why)
	}
	switch e.child.Type().Kind {
	case sparktype.Byte:
		scaleMicros(out, values[int8](in), e.scale)
	case sparktype.Short:
		scaleMicros(out, values[int16](in), e.scale)
	case sparktype.Int:
		scaleMicros(out, values[int32](in), e.scale)
	case sparktype.Long:
		src := values[int64](in)
		if e.scale == 1 {
			copy(out, src)
			break
		}
		lim := math.MaxInt64 / e.scale
		for i, v := range src {
			if (v > lim || v < -lim) && rowFails(vbuf, active, i) {
				// -lim*scale is the smallest multiple in range: MinInt64 is no multiple of 10^k.
				return fail(i, v, "long overflow")
			}
			out[i] = v * e.scale
		}
	case sparktype.Float, sparktype.Double:
		bad := 0
		if e.child.Type().Kind == sparktype.Float {
			for i, f := range values[float32](in) {
				out[i] = javaLong(float64(f) * 1e6)
				if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
					bad++
				}
			}
		} else {
			for i, d := range values[float64](in) {
				out[i] = javaLong(d * 1e6)
				if math.IsNaN(d) || math.IsInf(d, 0) {
					bad++
				}
			}
		}
		if bad > 0 { // NaN and infinities are null
			if vbuf != nil {
				vbuf.Release()
			}
			var vb []byte
			vbuf, vb = copyValidity(ctx.Alloc, in, n)
			for i := 0; i < n; i++ {
				var x float64
				if e.child.Type().Kind == sparktype.Float {
					x = float64(values[float32](in)[i])
				} else {
					x = values[float64](in)[i]
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					bitutil.ClearBit(vb, i)
				}
			}
			nulls = countNulls(vb, n)
		}
	case sparktype.Decimal:
		s := int(e.child.Type().Scale)
		src := values[decimal128.Num](in)
		for i, v := range src {
			r, why := decimalMicros(v, s)
			if why != "" && rowFails(vbuf, active, i) {
				return fail(i, decimalString(v, s), why)
			}
			out[i] = r
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// scaleMicros multiplies ints by at most 10^6: always within the long range.
func scaleMicros[T int8 | int16 | int32](out []int64, src []T, scale int64) {
	for i, v := range src {
		out[i] = int64(v) * scale
	}
}

// decimalMicros is BigDecimal(unscaled v, scale s).multiply(10^6).longValueExact(), with the
// reason longValueExact would fail ("" when it does not).
func decimalMicros(v decimal128.Num, s int) (int64, string) {
	if s > 6 {
		q, r := v.Div(decimal128.FromU64(pow10u64[s-6]))
		if r != (decimal128.Num{}) {
			return 0, "Rounding necessary"
		}
		x, ok := i64(q)
		if !ok {
			return 0, "Overflow"
		}
		return x, ""
	}
	x, ok := i64(v)
	if !ok {
		return 0, "Overflow"
	}
	f := int64(pow10u64[6-s])
	hi, lo := bits.Mul64(uint64(absI64(x)), uint64(f))
	if hi != 0 || lo > math.MaxInt64 {
		if x < 0 && hi == 0 && lo == 1<<63 {
			return math.MinInt64, ""
		}
		return 0, "Overflow"
	}
	if x < 0 {
		return -int64(lo), ""
	}
	return int64(lo), ""
}

func absI64(x int64) int64 {
	if x < 0 {
		return -x // MinInt64 stays negative: its uint64 is 2^63, as wanted
	}
	return x
}

func decimalString(v decimal128.Num, s int) string {
	return plainString(numToBig(new(big.Int), v), int32(s))
}
