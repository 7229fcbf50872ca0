package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// doubleToDecimalBinary is the first try of a cast from double to decimal(p, s): Spark rounds
// (HALF_UP) the decimal value of Double.toString(f), and that text, whatever the JVM's version
// prints, reads back as f, so its value lies in f's rounding interval, within half an ulp of f.
// Rounding to scale s gives the same answer for every value of that interval unless a rounding
// boundary (a half unit of 10^-s) falls in it, so when the exact binary value f = m x 2^e is
// farther than that from every boundary, rounding m x 2^e itself is Spark's answer, and it costs
// one 64x64 multiply and shifts instead of generating Double.toString's digits (fn30's
// CAST(x AS DECIMAL(14, 3)) spent most of its time there). The margin taken is two ulps, four
// times the interval's half width, so a text that strays a little outside the interval (an old
// JVM's FloatingDecimal is not always the closest) still cannot change the answer.
//
// ok is false when the value is too close to a boundary, is an integer beyond 2^52 (no fraction to
// round), needs a scale above 18, or does not fit precision p: the caller then takes the digits
// path, which decides those exactly and builds the overflow error's text.
func doubleToDecimalBinary(f float64, p, s int32) (decimal128.Num, bool) {
	if s < 0 || s > 18 {
		return decimal128.Num{}, false
	}
	b := math.Float64bits(f)
	neg := b>>63 != 0
	exp := int(b>>52) & 0x7ff
	m := b & (1<<52 - 1)
	switch exp {
	case 0x7ff:
		return decimal128.Num{}, false // NaN and infinities: the caller's
	case 0:
		if m == 0 {
			return decimal128.Num{}, true // both zeros: zero at any scale
		}
		exp = 1 // subnormal: m x 2^-1074
	default:
		m |= 1 << 52
	}
	sh := 1075 - exp // f = m x 2^-sh
	if sh <= 0 {
		return decimal128.Num{}, false
	}
	pw := pow10u64[s]
	margin := 2 * pw // two ulps of f, in units of N = m x 10^s (one ulp of f is 10^s)
	// |f| x 10^s = N / 2^sh with N = m x 10^s < 2^113: quotient q, remainder r, half = 2^(sh-1).
	nhi, nlo := bits.Mul64(m, pw)
	var q, rhi, rlo, hhi, hlo uint64
	switch {
	case sh >= 128:
		// q = 0 and r = N < 2^113, at least 2^126 below half: rounds to zero, far from the boundary.
		return decimal128.Num{}, true
	case sh >= 64:
		q = nhi >> (sh - 64)
		rhi, rlo = nhi&(1<<(sh-64)-1), nlo
		if sh == 64 {
			hlo = 1 << 63
		} else {
			hhi = 1 << (sh - 65)
		}
	default:
		if nhi>>sh != 0 {
			return decimal128.Num{}, false // a quotient past 64 bits: left to the digits path
		}
		q = nlo>>sh | nhi<<(64-sh)
		rlo = nlo & (1<<sh - 1)
		hlo = 1 << (sh - 1)
	}
	// dist = |r - half| as 128 bits; at most margin means too close to call.
	up := rhi > hhi || (rhi == hhi && rlo >= hlo)
	var dhi, dlo uint64
	if up {
		var br uint64
		dlo, br = bits.Sub64(rlo, hlo, 0)
		dhi, _ = bits.Sub64(rhi, hhi, br)
	} else {
		var br uint64
		dlo, br = bits.Sub64(hlo, rlo, 0)
		dhi, _ = bits.Sub64(hhi, rhi, br)
	}
	if dhi == 0 && dlo <= margin {
		return decimal128.Num{}, false
	}
	if up {
		q++ // HALF_UP on the magnitude
	}
	y := decimal128.FromU64(q)
	if !fitsPrecision(y, p) {
		return decimal128.Num{}, false
	}
	if neg {
		y = y.Negate()
	}
	return y, true
}
