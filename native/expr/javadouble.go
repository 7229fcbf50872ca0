package expr

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync/atomic"
)

// Java's Double.toString and Float.toString, which Spark's casts to string print and its casts
// from double to decimal parse (Decimal(double) is BigDecimal(Double.toString(d))). The digits
// depend on the JVM:
//   - Java 19 and later (JDK-4511638): the shortest decimal that rounds to the value, at least
//     two digits, the closest one (ties to an even digit) among those. strconv finds the same
//     shortest digits.
//   - Java 17 and 18: FloatingDecimal.dtoa, which is not always shortest ("2.0E-3" prints as
//     "0.002" but 1.0E23 as "9.999999999999999E22"). It is reproduced here step by step: the
//     long arithmetic of integral values, the estimate of the decimal exponent in double
//     arithmetic, and the digit loop in int, long or big integer arithmetic, each with its own
//     stopping test and overflow behaviour.
// Both print the digits the same way: plain between 10^-3 and 10^7 with at least one
// fractional digit, else d.dddE[-]n.

// javaVersion is the feature version of the JVM the engine runs in (Runtime.version().feature()),
// set by the JNI layer when the library loads; 0 (unknown) until then.
var javaVersion atomic.Int32

// SetJavaVersion records the feature version of the JVM that loaded the engine.
func SetJavaVersion(v int) { javaVersion.Store(int32(v)) }

// JavaVersion is the feature version of the JVM that loaded the engine, 0 when unknown.
func JavaVersion() int { return int(javaVersion.Load()) }

// javaToStringUnknown says why a cast printing or parsing Java's Double.toString cannot be native.
func javaToStringUnknown() string {
	if JavaVersion() == 0 {
		return "the JVM's version, on which Double.toString's digits depend, is unknown"
	}
	return ""
}

// javaFloatDigits holds the result of a conversion: the value is 0.d1d2...dn x 10^decExp.
type javaFloatDigits struct {
	buf    [24]byte
	first  int // index of d1 in buf
	n      int
	decExp int
	neg    bool
	// exact and roundedUp are FloatingDecimal's decimalDigitsExact() and digitsRoundedUp(),
	// which java.text.DigitList reads to round a trailing '5' (formatnumber.go): the digits are
	// the exact value, or were rounded up from it; both false when they were truncated (and for
	// the integral easy case, where Java never sets them).
	exact, roundedUp bool
	// Scratch big integers for FloatingDecimal's big integer path.
	b, s, m, tens, t big.Int
}

func (d *javaFloatDigits) digits() []byte { return d.buf[d.first : d.first+d.n] }

// appendJavaDouble appends Double.toString(f) (bitSize 64) or Float.toString(float32(f)) (32)
// as the given Java version prints it.
func (d *javaFloatDigits) appendJava(dst []byte, f float64, bitSize, ver int) []byte {
	switch {
	case f != f:
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	d.javaDigits(f, bitSize, ver)
	return d.appendChars(dst)
}

// javaDigits fills d with the digits Double.toString(f) (bitSize 64) or Float.toString (32)
// prints for a finite non-zero f, as the given Java version computes them.
func (d *javaFloatDigits) javaDigits(f float64, bitSize, ver int) {
	if ver >= 19 {
		d.shortest(f, bitSize)
	} else {
		d.floatingDecimal(f, bitSize)
	}
}

// appendChars is BinaryToASCIIBuffer.getChars (the layout is the same since Java 19).
func (d *javaFloatDigits) appendChars(dst []byte) []byte {
	if d.neg {
		dst = append(dst, '-')
	}
	dg := d.digits()
	e := d.decExp
	switch {
	case e > 0 && e < 8:
		n := min(len(dg), e)
		dst = append(dst, dg[:n]...)
		if n < e {
			for range e - n {
				dst = append(dst, '0')
			}
			return append(dst, '.', '0')
		}
		dst = append(dst, '.')
		if n < len(dg) {
			return append(dst, dg[n:]...)
		}
		return append(dst, '0')
	case e <= 0 && e > -3:
		dst = append(dst, '0', '.')
		for range -e {
			dst = append(dst, '0')
		}
		return append(dst, dg...)
	}
	dst = append(dst, dg[0], '.')
	if len(dg) > 1 {
		dst = append(dst, dg[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	if e <= 0 {
		dst = append(dst, '-')
		return strconv.AppendInt(dst, int64(-e+1), 10)
	}
	return strconv.AppendInt(dst, int64(e-1), 10)
}

// shortest fills d with Java 19+'s digits: strconv's shortest round-tripping digits; a single
// digit becomes the closest decimal of two digits (Double.MIN_VALUE is 4.9E-324, not 5E-324);
// where the value lies exactly halfway between two shortest decimals, Java takes the one with
// the even last digit (Float.toString(0x1p-12f) is 2.4414062E-4), strconv may not.
func (d *javaFloatDigits) shortest(f float64, bitSize int) {
	d.neg = math.Signbit(f)
	abs := math.Abs(f)
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], abs, 'e', -1, bitSize) // d.ddde±xx
	two := len(s) < 4 || s[1] != '.'
	if two {
		s = strconv.AppendFloat(tmp[:0], abs, 'e', 1, bitSize)
	}
	n := 0
	i := 0
	for ; s[i] != 'e'; i++ {
		if s[i] != '.' {
			d.buf[n] = s[i]
			n++
		}
	}
	exp, _ := strconv.Atoi(string(s[i+1:]))
	if !two {
		exp = d.evenTie(abs, bitSize, n, exp)
	}
	for n > 1 && d.buf[n-1] == '0' { // "1.0e+00" from the two-digit form: one digit, "1.0"
		n--
	}
	d.first, d.n, d.decExp = 0, n, exp+1
}

// evenTie replaces the n shortest digits in d.buf (value d.ddd x 10^exp) by the other
// candidate of the same length when the value is exactly halfway between them, the other one
// has the even last digit and still rounds to the value. It returns the exponent.
func (d *javaFloatDigits) evenTie(abs float64, bitSize, n, exp int) int {
	if (d.buf[n-1]-'0')%2 == 0 {
		return exp
	}
	var tmp [40]byte
	// The value has n+1 significant digits ending in 5 exactly when rounding it to n+2 digits
	// gives "...50" and the n+1 digits are exact.
	s2 := strconv.AppendFloat(tmp[:0], abs, 'e', n+1, bitSize)
	m2, _, _ := cutByte(s2, 'e')
	if len(m2) < 2 || m2[len(m2)-2] != '5' || m2[len(m2)-1] != '0' {
		return exp
	}
	s1 := strconv.AppendFloat(tmp[:0], abs, 'e', n, bitSize)
	var exact, val big.Rat
	if _, ok := exact.SetString(string(s1)); !ok || exact.Cmp(val.SetFloat64(abs)) != 0 {
		return exp
	}
	// The candidates are the first n digits of s1 and that plus one unit; take the even one.
	var cand [24]byte
	c := 0
	for _, ch := range s1 {
		if ch == 'e' {
			break
		}
		if ch != '.' && c < n {
			cand[c] = ch
			c++
		}
	}
	_, es, _ := cutByte(s1, 'e')
	e1, _ := strconv.Atoi(string(es))
	if (cand[n-1]-'0')%2 != 0 {
		i := n - 1
		for i >= 0 && cand[i] == '9' {
			cand[i] = '0'
			i--
		}
		if i < 0 {
			return exp // 9.99..95: the even neighbour has another length; keep strconv's
		}
		cand[i]++
	}
	// It must still round to the value (the gap below a power of two is half the one above).
	lit := append(append(append(tmp[:0], cand[0], '.'), cand[1:n]...), 'e')
	lit = strconv.AppendInt(lit, int64(e1), 10)
	if v, err := strconv.ParseFloat(string(lit), bitSize); err != nil || v != abs {
		return exp
	}
	copy(d.buf[:n], cand[:n])
	return e1
}

func cutByte(s []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range s {
		if c == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, nil, false
}

// Constants of FloatingDecimal.
const (
	fdExpShift       = 52
	fdFractHOB       = int64(1) << fdExpShift
	fdMaxSmallBinExp = 62
	fdMinSmallBinExp = -(63 / 3)
)

var (
	fdSmall5Pow = [...]int32{1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625,
		48828125, 244140625, 1220703125}
	fdLong5Pow = func() [27]int64 {
		var p [27]int64
		p[0] = 1
		for i := 1; i < len(p); i++ {
			p[i] = p[i-1] * 5
		}
		return p
	}()
	// fdN5Bits[i] is about ceil(log2(5^i)).
	fdN5Bits = [...]int{0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42,
		45, 47, 49, 52, 54, 56, 59, 61}
	// fdInsignificant[p] is the number of decimal digits of 2^p that do not count (p < 64).
	fdInsignificant = [...]int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6,
		6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13,
		14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19}
)

// floatingDecimal fills d with Java 17's digits (FloatingDecimal.getBinaryToASCIIConverter and
// BinaryToASCIIBuffer.dtoa).
func (d *javaFloatDigits) floatingDecimal(f float64, bitSize int) {
	var binExp, nSignificantBits int
	var fractBits int64
	if bitSize == 32 {
		fb := math.Float32bits(float32(f))
		d.neg = fb>>31 != 0
		fr := int32(fb & 0x7fffff)
		be := int((fb >> 23) & 0xff)
		if be == 0 {
			lz := bits.LeadingZeros32(uint32(fr))
			shift := lz - (31 - 23)
			fr <<= shift
			be = 1 - shift
			nSignificantBits = 32 - lz
		} else {
			fr |= 1 << 23
			nSignificantBits = 24
		}
		binExp = be - 127
		fractBits = int64(fr) << (fdExpShift - 23)
	} else {
		db := math.Float64bits(f)
		d.neg = db>>63 != 0
		fractBits = int64(db & (1<<52 - 1))
		be := int((db >> 52) & 0x7ff)
		if be == 0 {
			lz := bits.LeadingZeros64(uint64(fractBits))
			shift := lz - (63 - fdExpShift)
			fractBits <<= shift
			be = 1 - shift
			nSignificantBits = 64 - lz
		} else {
			fractBits |= fdFractHOB
			nSignificantBits = fdExpShift + 1
		}
		binExp = be - 1023
	}
	d.dtoa(binExp, fractBits, nSignificantBits)
}

func (d *javaFloatDigits) dtoa(binExp int, fractBits int64, nSignificantBits int) {
	d.exact, d.roundedUp = false, false
	tailZeros := bits.TrailingZeros64(uint64(fractBits))
	nFractBits := fdExpShift + 1 - tailZeros // significant bits of fractBits
	nTinyBits := max(0, nFractBits-binExp-1) // significant bits right of the point
	if binExp <= fdMaxSmallBinExp && binExp >= fdMinSmallBinExp {
		if nTinyBits < len(fdLong5Pow) && nFractBits+fdN5Bits[nTinyBits] < 64 && nTinyBits == 0 {
			// An integer below 2^63: its digits, the insignificant ones rounded off.
			insignificant := 0
			if binExp > nSignificantBits {
				if p := binExp - nSignificantBits - 1; p > 1 && p < len(fdInsignificant) {
					insignificant = fdInsignificant[p]
				}
			}
			if binExp >= fdExpShift {
				fractBits <<= binExp - fdExpShift
			} else {
				fractBits = int64(uint64(fractBits) >> (fdExpShift - binExp))
			}
			d.developLongDigits(fractBits, insignificant)
			return
		}
	}
	decExp := fdEstimateDecExp(fractBits, binExp)
	b5 := max(0, -decExp)
	b2 := b5 + nTinyBits + binExp
	s5 := max(0, decExp)
	s2 := s5 + nTinyBits
	m5 := b5
	m2 := b2 - nSignificantBits
	fractBits = int64(uint64(fractBits) >> tailZeros)
	b2 -= nFractBits - 1
	common2 := min(b2, s2)
	b2 -= common2
	s2 -= common2
	m2 -= common2
	if nFractBits == 1 { // Java's hack for exact powers of two
		m2--
	}
	if m2 < 0 {
		b2 -= m2
		s2 -= m2
		m2 = 0
	}
	n5 := func(i int) int {
		if i < len(fdN5Bits) {
			return fdN5Bits[i]
		}
		return i * 3
	}
	bBits := nFractBits + b2 + n5(b5)
	tenSBits := s2 + 1 + n5(s5+1)
	nd := 0
	var low, high bool
	var lowDigitDifference int64
	if bBits < 64 && tenSBits < 64 {
		if bBits < 32 && tenSBits < 32 {
			// All ints: Java's int arithmetic, wrapping included.
			nd, decExp, low, high, lowDigitDifference, d.exact = dtoaDigitLoop(&d.buf,
				(int32(fractBits)*fdSmall5Pow[b5])<<b2, fdSmall5Pow[s5]<<s2, fdSmall5Pow[m5]<<m2, decExp)
		} else {
			// All longs.
			nd, decExp, low, high, lowDigitDifference, d.exact = dtoaDigitLoop(&d.buf,
				(fractBits*fdLong5Pow[b5])<<b2, fdLong5Pow[s5]<<s2, fdLong5Pow[m5]<<m2, decExp)
		}
	} else {
		// Big integers. Java scales all four by a normalization shift, which changes no
		// quotient or comparison; here they are exact: B = fractBits*5^b5*2^b2,
		// S = 5^s5*2^s2, M = 10*5^m5*2^m2 (half an ulp, times ten ahead of the first digit),
		// tenS = 10*S. High is B+M >= tenS here, not > as in the int and long paths.
		B, S, M, tenS, t := &d.b, &d.s, &d.m, &d.tens, &d.t
		pow52(S, s5, s2)
		pow52(B, b5, b2)
		B.Mul(B, t.SetInt64(fractBits))
		pow52(M, m5+1, m2+1)
		pow52(tenS, s5+1, s2+1)
		q := quoRemIteration(B, S, t)
		low = B.Cmp(M) < 0
		high = t.Add(B, M).Cmp(tenS) >= 0
		if q == 0 && !high {
			decExp--
		} else {
			d.buf[nd] = byte('0' + q)
			nd++
		}
		if decExp < -3 || decExp >= 8 {
			high, low = false, false
		}
		for !low && !high {
			q = quoRemIteration(B, S, t)
			M.Mul(M, bigTen)
			low = B.Cmp(M) < 0
			high = t.Add(B, M).Cmp(tenS) >= 0
			d.buf[nd] = byte('0' + q)
			nd++
		}
		if high && low {
			lowDigitDifference = int64(t.Lsh(B, 1).Cmp(tenS))
		}
		d.exact = B.Sign() == 0
	}
	d.decExp = decExp + 1
	d.first = 0
	d.n = nd
	if high {
		if low {
			if lowDigitDifference == 0 {
				if (d.buf[nd-1]-'0')&1 != 0 { // a tie: round to an even digit
					d.roundup()
				}
			} else if lowDigitDifference > 0 {
				d.roundup()
			}
		} else {
			d.roundup()
		}
	}
}

var bigTen = big.NewInt(10)

// pow52 sets z to 5^p5 * 2^p2.
func pow52(z *big.Int, p5, p2 int) {
	if p5 < len(fdLong5Pow) {
		z.SetInt64(fdLong5Pow[p5])
	} else {
		z.Exp(big.NewInt(5), big.NewInt(int64(p5)), nil)
	}
	z.Lsh(z, uint(p2))
}

// quoRemIteration is FDBigInteger.quoRemIteration: q = B / S, B = 10 * (B % S).
func quoRemIteration(B, S, t *big.Int) int {
	t.QuoRem(B, S, B)
	B.Mul(B, bigTen)
	return int(t.Int64())
}

// roundup adds one to the last digit, carrying; a carry out of the first digit leaves "1"
// followed by the zeros already there, one decimal exponent higher (Java keeps nDigits).
func (d *javaFloatDigits) roundup() {
	d.roundedUp = true
	i := d.first + d.n - 1
	q := d.buf[i]
	if q == '9' {
		for q == '9' && i > d.first {
			d.buf[i] = '0'
			i--
			q = d.buf[i]
		}
		if q == '9' {
			d.decExp++
			d.buf[d.first] = '1'
			return
		}
	}
	d.buf[i] = q + 1
}

// developLongDigits is the easy case of an integral value in a long: its digits with trailing
// zeros dropped, the insignificant low digits rounded off first.
func (d *javaFloatDigits) developLongDigits(lvalue int64, insignificant int) {
	decExp := 0
	if insignificant != 0 {
		pow10 := fdLong5Pow[insignificant] << insignificant
		residue := lvalue % pow10
		lvalue /= pow10
		decExp += insignificant
		if residue >= pow10>>1 {
			lvalue++
		}
	}
	digitno := len(d.buf) - 1
	c := lvalue % 10
	lvalue /= 10
	for c == 0 {
		decExp++
		c = lvalue % 10
		lvalue /= 10
	}
	for lvalue != 0 {
		d.buf[digitno] = byte('0' + c)
		digitno--
		decExp++
		c = lvalue % 10
		lvalue /= 10
	}
	d.buf[digitno] = byte('0' + c)
	d.decExp = decExp + 1
	d.first = digitno
	d.n = len(d.buf) - digitno
}

// fdEstimateDecExp is FloatingDecimal's floor(log10(value)) estimate, in the same double
// arithmetic: each product is rounded on its own (an explicit conversion keeps Go from fusing
// a multiply and an add, which Java never does).
func fdEstimateDecExp(fractBits int64, binExp int) int {
	d2 := math.Float64frombits(uint64(1023)<<52 | uint64(fractBits)&(1<<52-1))
	t1 := float64((d2 - 1.5) * 0.289529654)
	t2 := float64(t1 + 0.176091259)
	t3 := float64(float64(binExp) * 0.301029995663981)
	return int(math.Floor(t2 + t3))
}

// dtoaDigitLoop is dtoa's digit loop over B = b, S = s and M = m in Java's int (int32) or long
// (int64) arithmetic, wrapping as Java wraps. It writes the digits into buf and returns their
// count, the decimal exponent, whether the last digit is low or high, 2B - 10S and whether the
// remainder is zero (the digits are exact).
func dtoaDigitLoop[T int32 | int64](buf *[24]byte, b, s, m T, decExp int) (nd, exp int, low, high bool, lowDigitDifference int64, exact bool) {
	tens := s * 10
	q := b / s
	b = 10 * (b % s)
	m *= 10
	low = b < m
	high = b+m > tens
	if q == 0 && !high {
		decExp--
	} else {
		buf[nd] = byte('0' + q)
		nd++
	}
	if decExp < -3 || decExp >= 8 {
		high, low = false, false
	}
	for !low && !high {
		q = b / s
		b = 10 * (b % s)
		m *= 10
		if m > 0 {
			low = b < m
			high = b+m > tens
		} else {
			low, high = true, true // m overflowed
		}
		buf[nd] = byte('0' + q)
		nd++
	}
	return nd, decExp, low, high, int64((b << 1) - tens), b == 0
}
