package aggregate

import (
	"math/big"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// 128-bit two's complement helpers for decimal sums. Spark's decimals hold at most 38 digits, so a
// sum of two of them fits in 128 bits except near the extremes, which add128 reports.

// add128 adds two signed 128-bit values; ovf reports a signed overflow.
func add128(alo uint64, ahi int64, blo uint64, bhi int64) (lo uint64, hi int64, ovf bool) {
	lo, c := bits.Add64(alo, blo, 0)
	h, _ := bits.Add64(uint64(ahi), uint64(bhi), c)
	hi = int64(h)
	ovf = (ahi >= 0) == (bhi >= 0) && (hi >= 0) != (ahi >= 0)
	return lo, hi, ovf
}

// pow10Lo/pow10Hi hold 10^i as 128-bit values, i in [0, 38].
var pow10Lo, pow10Hi [39]uint64

func init() {
	p := big.NewInt(1)
	ten := big.NewInt(10)
	for i := 0; i <= 38; i++ {
		n := decimal128.FromBigInt(p)
		pow10Lo[i], pow10Hi[i] = n.LowBits(), uint64(n.HighBits())
		p.Mul(p, ten)
	}
}

// fitsPrecision reports whether |x| < 10^p (x a signed 128-bit value).
func fitsPrecision(lo uint64, hi int64, p int32) bool {
	if hi < 0 { // negate
		var b uint64
		lo, b = bits.Sub64(0, lo, 0)
		h, _ := bits.Sub64(0, uint64(hi), b)
		hi = int64(h)
		if hi < 0 { // -2^127
			return false
		}
	}
	plo, phi := pow10Lo[p], pow10Hi[p]
	return uint64(hi) < phi || (uint64(hi) == phi && lo < plo)
}

// wideSum is an exact 192-bit accumulator, used where Spark keeps a decimal sum in an unbounded
// java.math.BigDecimal (aggregation without grouping keys keeps its buffer in local variables).
type wideSum struct {
	w0, w1, w2 uint64
}

func (s *wideSum) add(lo uint64, hi int64) {
	var c uint64
	s.w0, c = bits.Add64(s.w0, lo, 0)
	s.w1, c = bits.Add64(s.w1, uint64(hi), c)
	s.w2, _ = bits.Add64(s.w2, uint64(hi>>63), c)
}

func (s *wideSum) big() *big.Int {
	neg := int64(s.w2) < 0
	w0, w1, w2 := s.w0, s.w1, s.w2
	if neg { // two's complement negate
		var b uint64
		w0, b = bits.Sub64(0, w0, 0)
		w1, b = bits.Sub64(0, w1, b)
		w2, _ = bits.Sub64(0, w2, b)
	}
	v := new(big.Int).SetUint64(w2)
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(w1))
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(w0))
	if neg {
		v.Neg(v)
	}
	return v
}

func num128ToBig(lo uint64, hi int64) *big.Int {
	return decimal128.New(hi, lo).BigInt()
}

var bigPow10 [80]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range bigPow10 {
		bigPow10[i] = new(big.Int).Set(p)
		p = new(big.Int).Mul(p, big.NewInt(10))
	}
}

// bigFits reports whether |v| < 10^p.
func bigFits(v *big.Int, p int32) bool {
	return new(big.Int).Abs(v).Cmp(bigPow10[p]) < 0
}

// plainString renders an unscaled value at a scale like java.math.BigDecimal.toPlainString.
func plainString(unscaled *big.Int, scale int32) string {
	s := new(big.Int).Abs(unscaled).String()
	neg := unscaled.Sign() < 0
	if scale > 0 {
		if len(s) <= int(scale) {
			s = strings.Repeat("0", int(scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// divHalfUp returns num / den rounded half away from zero (java.math.RoundingMode.HALF_UP).
func divHalfUp(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(den)) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
