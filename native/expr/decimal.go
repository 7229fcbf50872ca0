package expr

import (
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Decimal helpers. Spark computes decimal arithmetic on java.math.BigDecimal (Decimal.scala):
//   - + and -: exact, then Decimal.toPrecision(p, s, HALF_UP)
//   - *: BigDecimal.multiply(MathContext(38, HALF_UP)) -- rounded to 38 significant digits --
//     then toPrecision(p, s, HALF_UP): two roundings, replicated here
//   - /: BigDecimal.divide(divisor, scale 38, HALF_UP), then toPrecision(p, s, HALF_UP)
//   - %: BigDecimal.remainder(divisor, MathContext(38)) -- exact when the integral quotient has at
//     most 38 digits (the translator refuses operand types where it could have more)
// A value that does not fit precision p after rounding is null (LEGACY/TRY) or
// NUMERIC_VALUE_OUT_OF_RANGE (ANSI) carrying the unrounded value's plain string.

var (
	bigPow10 [80]*big.Int
	pow10u64 [20]uint64
	bigOne   = big.NewInt(1)
)

func init() {
	p := big.NewInt(1)
	for i := range bigPow10 {
		bigPow10[i] = new(big.Int).Set(p)
		p.Mul(p, big.NewInt(10))
	}
	v := uint64(1)
	for i := range pow10u64 {
		pow10u64[i] = v
		v *= 10
	}
}

// digitsBig returns the number of decimal digits of |u| (1 for zero).
func digitsBig(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	n := u.BitLen()*30103/100000 + 1 // estimate (log10(2) ~ 0.30103), then correct
	if n >= len(bigPow10) {
		return len(u.Text(10)) - boolInt(u.Sign() < 0)
	}
	var a big.Int
	a.Abs(u)
	for n > 1 && a.Cmp(bigPow10[n-1]) < 0 {
		n--
	}
	for n < len(bigPow10) && a.Cmp(bigPow10[n]) >= 0 {
		n++
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pow10Big(n int) *big.Int {
	if n < len(bigPow10) {
		return bigPow10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// roundHalfUpBig divides u by 10^k rounding half away from zero (BigDecimal HALF_UP), into dst.
func roundHalfUpBig(dst, u *big.Int, k int) *big.Int {
	if k <= 0 {
		return dst.Mul(u, pow10Big(-k))
	}
	d := pow10Big(k)
	var r big.Int
	dst.QuoRem(u, d, &r)
	r.Abs(&r)
	r.Lsh(&r, 1)
	if r.Cmp(d) >= 0 {
		if u.Sign() < 0 {
			dst.Sub(dst, bigOne)
		} else {
			dst.Add(dst, bigOne)
		}
	}
	return dst
}

// rescaleBig changes the scale of u exactly; exact is false when digits would be dropped.
func rescaleBig(u *big.Int, from, to int32) (*big.Int, bool) {
	if to >= from {
		return new(big.Int).Mul(u, pow10Big(int(to-from))), true
	}
	q, r := new(big.Int).QuoRem(u, pow10Big(int(from-to)), new(big.Int))
	return q, r.Sign() == 0
}

// plainString formats unscaled u at scale s like BigDecimal.toPlainString.
func plainString(u *big.Int, s int32) string {
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).Text(10)
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	switch {
	case s <= 0:
		sb.WriteString(digits)
		if digits != "0" || s < 0 {
			sb.WriteString(strings.Repeat("0", int(-s)))
		}
	case len(digits) > int(s):
		sb.WriteString(digits[:len(digits)-int(s)])
		sb.WriteByte('.')
		sb.WriteString(digits[len(digits)-int(s):])
	default:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", int(s)-len(digits)))
		sb.WriteString(digits)
	}
	return sb.String()
}

// numToBig converts a decimal128 value into dst.
func numToBig(dst *big.Int, n decimal128.Num) *big.Int {
	hi, lo := n.HighBits(), n.LowBits()
	if hi == 0 || hi == -1 {
		if (hi == 0 && lo>>63 == 0) || (hi == -1 && lo>>63 == 1) {
			return dst.SetInt64(int64(lo))
		}
	}
	neg := hi < 0
	if neg {
		n = n.Negate()
		hi, lo = n.HighBits(), n.LowBits()
	}
	var w [2]big.Word
	if bits.UintSize == 64 {
		w[0], w[1] = big.Word(lo), big.Word(uint64(hi))
		dst.SetBits(w[:])
	} else {
		dst.SetUint64(uint64(hi))
		dst.Lsh(dst, 64)
		var l big.Int
		l.SetUint64(lo)
		dst.Or(dst, &l)
	}
	if neg {
		dst.Neg(dst)
	}
	return dst
}

// i64 reports whether n fits in an int64 and returns it.
func i64(n decimal128.Num) (int64, bool) {
	hi, lo := n.HighBits(), n.LowBits()
	if (hi == 0 && lo>>63 == 0) || (hi == -1 && lo>>63 == 1) {
		return int64(lo), true
	}
	return 0, false
}

// fitsPrecision reports |n| < 10^p.
func fitsPrecision(n decimal128.Num, p int32) bool {
	return n.Abs().Less(decimal128.GetScaleMultiplier(int(p)))
}

// fitsI64Precision reports |v| < 10^p for p <= 18 (larger p always holds for an int64 that came
// from an 18-digit computation; callers check).
func fitsI64Precision(v int64, p int32) bool {
	if p >= 19 {
		return true
	}
	l := int64(pow10u64[p])
	return v < l && v > -l
}

// roundI64 divides v by 10^k (k in 1..18) rounding HALF_UP.
func roundI64(v int64, k int32) int64 {
	d := int64(pow10u64[k])
	q, r := v/d, v%d
	if r < 0 {
		if -r*2 >= d {
			q--
		}
	} else if r*2 >= d {
		q++
	}
	return q
}

// mcRound38 rounds u (at scale *s) to at most 38 significant digits, HALF_UP, like
// BigDecimal.multiply(.., MathContext(38, HALF_UP)); the scale drops by the digits removed.
func mcRound38(u *big.Int, s *int32) {
	d := digitsBig(u)
	if d <= 38 {
		return
	}
	drop := d - 38
	roundHalfUpBig(u, u, drop)
	*s -= int32(drop)
	if digitsBig(u) > 38 { // carried into a 39th digit: 10^38 -> 10^37 with one more dropped
		u.Quo(u, bigPow10[1])
		*s--
	}
}

// decOp is one decimal binary operation with fixed operand and result types.
type decOp struct {
	op                     arithOp
	p1, s1, p2, s2, rp, rs int32
	ls                     int32 // aligned scale of + - %: max(s1, s2)
	path                   uint8
}

const (
	decPathBig uint8 = iota
	decPathI64       // aligned operands and the exact result fit an int64
	decPath128       // + and -: aligned operands and the exact result fit in 38 digits
)

type decScratch struct {
	a, b, x, y big.Int
	xs         int32
}

func newDecOp(op arithOp, lt, rt, t sparktype.Type) (*decOp, error) {
	d := &decOp{op: op, p1: lt.Precision, s1: lt.Scale, p2: rt.Precision, s2: rt.Scale,
		rp: t.Precision, rs: t.Scale}
	if d.rp < 1 || d.rp > 38 || d.rs < 0 || d.rs > d.rp || d.s1 < 0 || d.s2 < 0 {
		return nil, unsupported("decimal %s with types %s, %s -> %s is not supported natively",
			arithInfo[op].class, lt, rt, t)
	}
	d.ls = max(d.s1, d.s2)
	intDigits := max(d.p1-d.s1, d.p2-d.s2)
	switch op {
	case opAdd, opSub:
		if intDigits+d.ls+1 <= 18 {
			d.path = decPathI64
		} else if intDigits+d.ls+1 <= 38 {
			d.path = decPath128
		}
	case opMul:
		if d.p1+d.p2 <= 18 {
			d.path = decPathI64
		} else if d.p1+d.p2 <= 38 && d.rs == d.s1+d.s2 {
			d.path = decPath128 // exact product fits 38 digits: no MathContext rounding
		}
	case opRem:
		// BigDecimal.remainder(.., MathContext(38)) throws when the integral quotient needs more
		// than 38 digits; refuse operand types where that can happen.
		if d.p1-d.s1+d.s2 > 38 {
			return nil, unsupported("decimal Remainder of %s by %s is not supported natively (quotient may exceed 38 digits)", lt, rt)
		}
		if intDigits+d.ls <= 18 {
			d.path = decPathI64
		}
	}
	return d, nil
}

// apply computes one value; ok is false on overflow of the result precision.
func (d *decOp) apply(s *decScratch, x, y decimal128.Num) (decimal128.Num, bool) {
	switch d.path {
	case decPathI64:
		a, _ := i64(x)
		b, _ := i64(y)
		var v int64
		var vs int32
		switch d.op {
		case opAdd, opSub:
			a *= int64(pow10u64[d.ls-d.s1])
			b *= int64(pow10u64[d.ls-d.s2])
			if d.op == opAdd {
				v = a + b
			} else {
				v = a - b
			}
			vs = d.ls
		case opMul:
			v, vs = a*b, d.s1+d.s2
		case opRem:
			a *= int64(pow10u64[d.ls-d.s1])
			b *= int64(pow10u64[d.ls-d.s2])
			v, vs = a%b, d.ls
		}
		if vs > d.rs {
			v = roundI64(v, vs-d.rs)
		} else if vs < d.rs {
			if d.rs-vs > 18 || !fitsI64Precision(v, 18-(d.rs-vs)) {
				break // fall through to the big path
			}
			v *= int64(pow10u64[d.rs-vs])
		}
		if !fitsI64Precision(v, d.rp) {
			return decimal128.Num{}, false
		}
		return decimal128.FromI64(v), true
	case decPath128:
		if d.op == opMul {
			v := x.Mul(y)
			if !fitsPrecision(v, d.rp) {
				return decimal128.Num{}, false
			}
			return v, true
		}
		a := x.Mul(decimal128.GetScaleMultiplier(int(d.ls - d.s1)))
		b := y.Mul(decimal128.GetScaleMultiplier(int(d.ls - d.s2)))
		var v decimal128.Num
		if d.op == opAdd {
			v = a.Add(b)
		} else {
			v = a.Sub(b)
		}
		if d.rs == d.ls {
			if !fitsPrecision(v, d.rp) {
				return decimal128.Num{}, false
			}
			return v, true
		}
	}
	if d.op == opMul {
		if v, fits, ok := d.mulSmall(x, y); ok {
			return v, fits
		}
	}
	return d.applyBig(s, x, y)
}

// mulSmall multiplies when both unscaled values and their product fit an int64 (a product of
// TPC-H prices and rates does, whatever the declared precisions): a product of at most 19
// digits is not rounded by MathContext(38), so only toPrecision's HALF_UP rescale and range
// check remain, done in 64 bits. ok is false when the values are too large for this path.
func (d *decOp) mulSmall(x, y decimal128.Num) (v decimal128.Num, fits, ok bool) {
	a, oka := i64(x)
	b, okb := i64(y)
	if !oka || !okb {
		return v, false, false
	}
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > math.MaxInt64 {
		return v, false, false
	}
	p := int64(lo)
	if (a < 0) != (b < 0) {
		p = -p
	}
	vs := d.s1 + d.s2
	switch {
	case vs > d.rs:
		if vs-d.rs > 18 {
			return v, false, false
		}
		p = roundI64(p, vs-d.rs)
	case vs < d.rs:
		if d.rs-vs > 18 || !fitsI64Precision(p, 18-(d.rs-vs)) {
			return v, false, false
		}
		p *= int64(pow10u64[d.rs-vs])
	}
	return decimal128.FromI64(p), fitsI64Precision(p, d.rp), true
}

// exact computes the value Spark holds before toPrecision into s.x at scale s.xs.
func (d *decOp) exact(s *decScratch, x, y decimal128.Num) {
	numToBig(&s.a, x)
	numToBig(&s.b, y)
	switch d.op {
	case opAdd, opSub, opRem:
		s.a.Mul(&s.a, pow10Big(int(d.ls-d.s1)))
		s.b.Mul(&s.b, pow10Big(int(d.ls-d.s2)))
		switch d.op {
		case opAdd:
			s.x.Add(&s.a, &s.b)
		case opSub:
			s.x.Sub(&s.a, &s.b)
		default:
			s.x.Rem(&s.a, &s.b) // truncated: sign of the dividend, like BigDecimal.remainder
		}
		s.xs = d.ls
	case opMul:
		s.x.Mul(&s.a, &s.b)
		s.xs = d.s1 + d.s2
		mcRound38(&s.x, &s.xs)
	case opDiv:
		// BigDecimal.divide(divisor, 38, HALF_UP): quotient at scale 38.
		s.a.Mul(&s.a, pow10Big(int(38-d.s1+d.s2)))
		var r big.Int
		s.x.QuoRem(&s.a, &s.b, &r)
		r.Abs(&r)
		r.Lsh(&r, 1)
		var bb big.Int
		bb.Abs(&s.b)
		if r.Cmp(&bb) >= 0 {
			if s.a.Sign()*s.b.Sign() < 0 {
				s.x.Sub(&s.x, bigOne)
			} else {
				s.x.Add(&s.x, bigOne)
			}
		}
		s.xs = 38
	}
}

func (d *decOp) applyBig(s *decScratch, x, y decimal128.Num) (decimal128.Num, bool) {
	d.exact(s, x, y)
	roundHalfUpBig(&s.y, &s.x, int(s.xs-d.rs))
	if digitsBig(&s.y) > int(d.rp) {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(&s.y), true
}

// unroundedString is the plain string of the value before toPrecision, for error messages.
func (d *decOp) unroundedString(s *decScratch, x, y decimal128.Num) string {
	d.exact(s, x, y)
	if s.xs < 0 {
		// Decimal.set(BigDecimal) rescales a negative scale to 0 (exact: an integer).
		s.x.Mul(&s.x, pow10Big(int(-s.xs)))
		s.xs = 0
	}
	return plainString(&s.x, s.xs)
}
