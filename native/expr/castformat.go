package expr

import (
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Casts of numbers and booleans to strings, after ToStringBase.castToString: the value's
// toString. Integers print their digits, booleans "true" and "false", floats and doubles
// Java's Float.toString and Double.toString (javadouble.go, for the Java version the engine
// runs in), decimals BigDecimal.toString in LEGACY mode (scientific notation when the
// exponent is below -6: 0 at scale 8 is "0E-8") and BigDecimal.toPlainString in ANSI and TRY
// modes (Cast.useDecimalPlainString is ansiEnabled, which try_cast sets). A decimal type with a
// negative scale (spark.sql.legacy.allowNegativeScaleOfDecimal) is refused.

func castIntegralToString(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	switch c.from.Kind {
	case sparktype.Byte:
		v := values[int8](in)
		return buildStrings(k, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(v[i]), 10) }, 4)
	case sparktype.Short:
		v := values[int16](in)
		return buildStrings(k, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(v[i]), 10) }, 6)
	case sparktype.Int:
		v := values[int32](in)
		return buildStrings(k, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(v[i]), 10) }, 8)
	}
	v := values[int64](in)
	return buildStrings(k, func(dst []byte, i int) []byte { return strconv.AppendInt(dst, v[i], 10) }, 12)
}

func castBooleanToString(_ *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	d := in.Data()
	bm, off := d.Buffers()[1].Bytes(), d.Offset()
	return buildStrings(k, func(dst []byte, i int) []byte {
		if bitutil.BitIsSet(bm, off+i) {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	}, 5)
}

func castFloatingToString(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	ver := JavaVersion()
	var d javaFloatDigits
	if c.from.Kind == sparktype.Float {
		v := values[float32](in)
		return buildStrings(k, func(dst []byte, i int) []byte { return d.appendJava(dst, float64(v[i]), 32, ver) }, 10)
	}
	v := values[float64](in)
	return buildStrings(k, func(dst []byte, i int) []byte { return d.appendJava(dst, v[i], 64, ver) }, 18)
}

func castDecimalToString(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	v := values[decimal128.Num](in)
	scale := int(c.from.Scale)
	plain := c.mode != modeLegacy
	var bx big.Int
	var digits [48]byte
	small := scale <= smallDecimalMaxScale
	return buildStrings(k, func(dst []byte, i int) []byte {
		x := v[i]
		if u, ok := i64(x); ok && small {
			return appendSmallDecimal(dst, u, scale)
		}
		neg := x.Sign() < 0
		var ds []byte
		if u, ok := i64(x); ok {
			if u < 0 {
				ds = strconv.AppendUint(digits[:0], uint64(-u), 10) // -MinInt64 wraps to itself: as uint64 it is right
			} else {
				ds = strconv.AppendUint(digits[:0], uint64(u), 10)
			}
		} else {
			numToBig(&bx, x)
			bx.Abs(&bx)
			ds = bx.Append(digits[:0], 10)
		}
		return appendBigDecimal(dst, neg, ds, scale, plain)
	}, int(c.from.Precision)+3)
}

// smallDecimalMaxScale bounds the scales appendSmallDecimal takes: up to 6, a decimal's
// BigDecimal.toString is never in scientific notation (that needs an adjusted exponent below -6,
// i.e. more fraction digits than 6 plus the digits of the unscaled value), so it is
// toPlainString in both cast modes.
const smallDecimalMaxScale = 6

// appendSmallDecimal appends BigDecimal.toPlainString of a decimal whose unscaled value u fits
// a long, with scale 0 <= scale <= smallDecimalMaxScale: the digits written from the last one
// back into a small buffer, the point and leading zeros ("0.05") at their places, without formatting the digits first and copying them around the point as
// appendBigDecimal does for any decimal (CAST(dec AS STRING) of short decimals is common).
func appendSmallDecimal(dst []byte, u int64, scale int) []byte {
	var buf [24]byte // 19 digits, the point and the sign
	i := len(buf)
	x := uint64(u)
	if u < 0 {
		x = -x // two's complement: right for MinInt64 too
	}
	for range scale {
		i--
		buf[i] = byte('0' + x%10)
		x /= 10
	}
	if scale > 0 {
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			break
		}
	}
	if u < 0 {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

// appendBigDecimal appends BigDecimal.toPlainString (plain) or BigDecimal.toString of the value
// with unscaled digits ds (no sign, no leading zeros, "0" for zero) and scale >= 0.
func appendBigDecimal(dst []byte, neg bool, ds []byte, scale int, plain bool) []byte {
	if neg {
		dst = append(dst, '-')
	}
	if scale == 0 {
		return append(dst, ds...)
	}
	adjusted := len(ds) - 1 - scale
	if plain || adjusted >= -6 {
		if pad := scale - len(ds); pad >= 0 { // 0.00ddd
			dst = append(dst, '0', '.')
			for range pad {
				dst = append(dst, '0')
			}
			return append(dst, ds...)
		}
		dst = append(dst, ds[:len(ds)-scale]...)
		dst = append(dst, '.')
		return append(dst, ds[len(ds)-scale:]...)
	}
	// Scientific notation: d.dddE-n (adjusted is negative here).
	dst = append(dst, ds[0])
	if len(ds) > 1 {
		dst = append(dst, '.')
		dst = append(dst, ds[1:]...)
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(adjusted), 10)
}
