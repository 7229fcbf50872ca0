package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

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
	if small {
		return buildSmallDecimalStrings(k, v, scale, func(dst []byte, i int) []byte {
			var ds []byte
			numToBig(&bx, v[i])
			bx.Abs(&bx)
			ds = bx.Append(digits[:0], 10)
			return appendBigDecimal(dst, v[i].Sign() < 0, ds, scale, plain)
		})
	}
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

// smallDecimalMaxLen bounds putSmallDecimal's output: 19 digits, the point and the sign.
const smallDecimalMaxLen = 24

// buildSmallDecimalStrings is buildStrings for CAST(decimal AS STRING) with a scale up to
// smallDecimalMaxScale (fn30's CAST(dec AS STRING) of a decimal(12, 2)): a row whose unscaled
// value fits a long is written by putSmallDecimal straight into the result's bytes, the others
// by wide(dst, i) as buildStrings would. That saves, per row, the call through a func value and
// two copies (digits to a scratch buffer, to the row, to the result) of buildStrings.
func buildSmallDecimalStrings(k *kernelArgs, v []decimal128.Num, scale int, wide func(dst []byte, i int) []byte) (arrow.Array, error) {
	offBuf, offs := newFixed[int32](k.alloc, k.n+1)
	dataBuf := memory.NewResizableBuffer(k.alloc)
	dataBuf.Reserve(max(k.n*12, 64))
	// As in buildStrings: write only below len(Buf()), never into the slice's spare capacity.
	data := dataBuf.Buf()[:0:len(dataBuf.Buf())]
	var scratch [64]byte
	offs[0] = 0
	v = v[:k.n]
	for i := range v {
		if k.rowValid(i) {
			u, ok := i64(v[i])
			var row []byte
			if !ok {
				row = wide(scratch[:0], i)
			}
			if need := len(data) + max(len(row), smallDecimalMaxLen); need > cap(data) {
				if need > math.MaxInt32 {
					offBuf.Release()
					dataBuf.Release()
					return nil, fmt.Errorf("cast to string: result exceeds %d bytes in one batch", math.MaxInt32)
				}
				dataBuf.Reserve(max(2*cap(data), need)) // keeps the bytes written
				data = dataBuf.Buf()[:len(data):len(dataBuf.Buf())]
			}
			if ok {
				data = data[:len(data)+putSmallDecimal(data[len(data):cap(data)], u, scale)]
			} else {
				data = append(data, row...)
			}
		}
		offs[i+1] = int32(len(data))
	}
	dataBuf.ResizeNoShrink(len(data))
	return finishBytes(arrow.BinaryTypes.String, k.n, k.vbuf, k.nulls, offBuf, dataBuf), nil
}

// digitPairs holds "00" to "99": two digits per division by 100 halve the divisions (each a
// multiply, a shift and a subtract, one after the other) of writing a number digit by digit.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// putSmallDecimal writes appendSmallDecimal(nil, u, scale) to the start of dst (at least
// smallDecimalMaxLen bytes) and returns its length: the length first (the digits of |u| from its
// bit length, at least scale + 1 of them for the leading "0."), then the characters from the last
// one back, two digits at a time.
func putSmallDecimal(dst []byte, u int64, scale int) int {
	x := uint64(u)
	if u < 0 {
		x = -x // two's complement: right for MinInt64 too
	}
	nd := bits.Len64(x) * 1233 >> 12 // log10(2) ~ 1233/4096: the digit count or one less
	if x >= pow10u64[nd] {           // 10^0 to 10^19 (decimal.go)
		nd++
	}
	total := max(nd, scale+1)
	if scale > 0 {
		total++ // the point
	}
	if u < 0 {
		total++
	}
	dst = dst[:total]
	p := total
	s := scale
	for ; s >= 2; s -= 2 {
		q := x / 100
		r := 2 * (x - 100*q)
		p -= 2
		dst[p], dst[p+1] = digitPairs[r], digitPairs[r+1]
		x = q
	}
	if s == 1 {
		q := x / 10
		p--
		dst[p] = byte('0' + x - 10*q)
		x = q
	}
	if scale > 0 {
		p--
		dst[p] = '.'
	}
	for x >= 100 {
		q := x / 100
		r := 2 * (x - 100*q)
		p -= 2
		dst[p], dst[p+1] = digitPairs[r], digitPairs[r+1]
		x = q
	}
	if x >= 10 {
		p -= 2
		dst[p], dst[p+1] = digitPairs[2*x], digitPairs[2*x+1]
	} else {
		p--
		dst[p] = byte('0' + x)
	}
	if u < 0 {
		p--
		dst[p] = '-'
	}
	return total
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
