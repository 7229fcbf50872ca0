package expr

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Cast from string to float and double, after Cast.castToFloat/castToDouble:
// java.lang.Float/Double.parseDouble of str.toString, and where that throws,
// processFloatingPointSpecialLiterals ("inf", "+inf", "infinity", "+infinity", "-inf",
// "-infinity", "nan", trimmed and case-insensitive); otherwise null, or CAST_INVALID_INPUT in
// ANSI mode (TRY casts to float and double are LEGACY casts in Spark).
//
// Java's grammar (FloatingDecimal.readJavaFormatString) is mirrored here step by step:
// String.trim, a sign, then "NaN" or "Infinity" exactly, or a hexadecimal literal
// (0x...p..., HexFloatPattern), or ASCII digits with at most one '.', an optional exponent and
// one optional f/F/d/D suffix. Java 8 and later round the decimal value correctly (a big
// integer correction loop) and so does strconv.ParseFloat, so the value is handed to it in a
// normalized form: the digits and a decimal exponent within its range (the exponent a string
// spells can be far larger than strconv reads exactly). Hexadecimal literals are rounded to
// nearest-even from all their bits by both.

var (
	javaNaN64 = math.Float64frombits(0x7ff8000000000000) // Double.NaN's bits
	javaNaN32 = math.Float32frombits(0x7fc00000)         // Float.NaN's bits
)

// floatBuf is the scratch space of one kernel: the digits read, and the normalized literal
// handed to ParseFloat.
type floatBuf struct{ digits, out []byte }

// parseJavaFloat is Double.parseDouble (bitSize 64) or Float.parseFloat (32) of s as Java
// decodes it; ok is false where Java throws NumberFormatException.
func (fb *floatBuf) parseJavaFloat(s []byte, bitSize int) (float64, bool) {
	s = trimJava(s)
	n := len(s)
	if n == 0 {
		return 0, false
	}
	i := 0
	neg, signSeen := false, false
	if s[0] == '-' || s[0] == '+' {
		neg, signSeen = s[0] == '-', true
		i++
	}
	if i == n {
		return 0, false
	}
	switch c := s[i]; {
	case c == 'N':
		if string(s[i:]) == "NaN" {
			return math.NaN(), true
		}
		return 0, false
	case c == 'I':
		if string(s[i:]) == "Infinity" {
			return math.Inf(boolSign(neg)), true
		}
		return 0, false
	case c == '0' && i+1 < n && (s[i+1] == 'x' || s[i+1] == 'X'):
		return fb.parseJavaHex(s, bitSize)
	}
	start := i // Java's decPt discounts the sign
	_ = signSeen
	nLeadZero, nDigits, nTrailZero := 0, 0, 0
	decSeen := false
	decPt := 0
	digits := fb.digits[:0]
	for ; i < n; i++ {
		c := s[i]
		if c == '0' {
			nLeadZero++
		} else if c == '.' {
			if decSeen {
				return 0, false
			}
			decPt, decSeen = i-start, true
		} else {
			break
		}
	}
	for ; i < n; i++ {
		c := s[i]
		switch {
		case c >= '1' && c <= '9':
			digits = append(digits, c)
			nDigits++
			nTrailZero = 0
		case c == '0':
			digits = append(digits, c)
			nDigits++
			nTrailZero++
		case c == '.':
			if decSeen {
				return 0, false
			}
			decPt, decSeen = i-start, true
		default:
			goto digitsDone
		}
	}
digitsDone:
	nDigits -= nTrailZero
	digits = digits[:nDigits]
	isZero := nDigits == 0
	if isZero && nLeadZero == 0 {
		return 0, false // no digit at all
	}
	var decExp int64
	if decSeen {
		decExp = int64(decPt - nLeadZero)
	} else {
		decExp = int64(nDigits + nTrailZero)
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i == n {
			return 0, false
		}
		expSign := int64(1)
		if s[i] == '-' || s[i] == '+' {
			if s[i] == '-' {
				expSign = -1
			}
			i++
		}
		expAt := i
		// Java reads the exponent into an int and clamps it (expLimit) when it overflows or is
		// larger than any finite, non-zero result allows; the clamp gives the same infinity or
		// zero as the exact exponent, so an int64 saturating at the clamp is enough here.
		expLimit := int64(324 + nDigits + nTrailZero)
		var expVal int64
		overflow := false
		for i < n {
			if expVal >= math.MaxInt32/10 {
				overflow = true // Java checks before each character, digit or not
			}
			c := s[i]
			if c < '0' || c > '9' {
				break
			}
			i++
			if expVal <= math.MaxInt32 { // Java's int wraps; past here only overflow matters
				expVal = expVal*10 + int64(c-'0')
			}
		}
		if i == expAt {
			return 0, false
		}
		if overflow || expVal > expLimit {
			if !overflow && expSign == 1 && decExp < 0 && expVal+decExp < expLimit {
				decExp += expVal
			} else {
				decExp = expSign * expLimit
			}
		} else {
			decExp += expSign * expVal
		}
	}
	if i < n && (i != n-1 || (s[i] != 'f' && s[i] != 'F' && s[i] != 'd' && s[i] != 'D')) {
		return 0, false
	}
	if isZero {
		return math.Copysign(0, float64(boolSign(neg))), true
	}
	// The value is 0.<digits> x 10^decExp. Far outside the finite range, settle it here so the
	// exponent handed to ParseFloat stays small.
	switch {
	case decExp > 400:
		return math.Inf(boolSign(neg)), true
	case decExp < -400:
		return math.Copysign(0, float64(boolSign(neg))), true
	}
	fb.digits = digits
	buf := fb.out[:0]
	if neg {
		buf = append(buf, '-')
	}
	buf = append(buf, '0', '.')
	buf = append(buf, digits...)
	buf = append(buf, 'e')
	buf = strconv.AppendInt(buf, decExp, 10)
	fb.out = buf
	v, err := strconv.ParseFloat(unsafe.String(&buf[0], len(buf)), bitSize)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return v, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func boolSign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseJavaHex matches FloatingDecimal.HexFloatPattern,
// ([-+])?0[xX](((hex+)\.?)|((hex*)\.(hex+)))[pP]([-+])?(digit+)[fFdD]?, over the whole trimmed
// string, and rounds the value to nearest-even. An exponent beyond int range gives a signed
// infinity or zero, as Java does.
func (fb *floatBuf) parseJavaHex(s []byte, bitSize int) (float64, bool) {
	i, n := 0, len(s)
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i++
	}
	i += 2 // "0x", checked by the caller
	mant := fb.digits[:0]
	intDigits, fracDigits := 0, 0
	for ; i < n && isHexDigit(s[i]); i++ {
		mant = append(mant, s[i])
		intDigits++
	}
	if i < n && s[i] == '.' {
		i++
		for ; i < n && isHexDigit(s[i]); i++ {
			mant = append(mant, s[i])
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 || i == n || (s[i] != 'p' && s[i] != 'P') {
		return 0, false
	}
	i++
	expNeg := false
	if i < n && (s[i] == '-' || s[i] == '+') {
		expNeg = s[i] == '-'
		i++
	}
	expAt := i
	var e int64
	for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
		if e <= math.MaxInt32 {
			e = e*10 + int64(s[i]-'0')
		}
	}
	if i == expAt {
		return 0, false
	}
	if i < n && (i != n-1 || (s[i] != 'f' && s[i] != 'F' && s[i] != 'd' && s[i] != 'D')) {
		return 0, false
	}
	// Strip leading zeros: the value is 0.<mant> x 16^(intDigits) x 2^e.
	lead := 0
	for lead < len(mant) && mant[lead] == '0' {
		lead++
	}
	zero := copysignZero(neg)
	if lead == len(mant) {
		return zero, true
	}
	if e > math.MaxInt32 { // Integer.parseInt of the exponent fails
		if expNeg {
			return zero, true
		}
		return math.Inf(boolSign(neg)), true
	}
	if expNeg {
		e = -e
	}
	sig := mant[lead:]
	// value = 0.<sig> x 2^(4*(intDigits-lead) + e)
	top := 4*int64(intDigits-lead) + e
	switch {
	case top > 1100:
		return math.Inf(boolSign(neg)), true
	case top < -1200:
		return zero, true
	}
	fb.digits = mant
	buf := fb.out[:0]
	if neg {
		buf = append(buf, '-')
	}
	buf = append(buf, "0x0."...)
	buf = append(buf, sig...)
	buf = append(buf, 'p')
	buf = strconv.AppendInt(buf, top, 10)
	fb.out = buf
	v, err := strconv.ParseFloat(unsafe.String(&buf[0], len(buf)), bitSize)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return v, true
}

func copysignZero(neg bool) float64 {
	if neg {
		return math.Copysign(0, -1)
	}
	return 0
}

// sparkFloatSpecial is Cast.processFloatingPointSpecialLiterals: trim, lower case (no other
// character lower-cases to these ASCII letters), then the names PostgreSQL accepts.
func sparkFloatSpecial(s []byte) (float64, bool) {
	s = trimJava(s)
	if len(s) > 9 {
		return 0, false
	}
	var low [9]byte
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(s)]) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

func castStringToFloating(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	if c.to.Kind == sparktype.Float {
		// float32(v) is exact: ParseFloat(.., 32) rounded it.
		return stringToFloating[float32](c, k, in, 32, javaNaN32)
	}
	return stringToFloating[float64](c, k, in, 64, javaNaN64)
}

// stringToFloating parses each string as a T of bitSize bits; Java's NaN is nan.
func stringToFloating[T float32 | float64](c *cast, k *kernelArgs, in arrow.Array, bitSize int, nan T) (arrow.Array, error) {
	offs, data := binaryParts(in)
	fb := floatBuf{digits: make([]byte, 0, 64), out: make([]byte, 0, 80)}
	obuf, out := newFixed[T](k.alloc, k.n)
	for i := range out {
		out[i] = 0
		if !k.rowValid(i) {
			continue
		}
		v, ok, err := c.parseFloating(k, i, &fb, data[offs[i]:offs[i+1]], bitSize)
		if err != nil {
			obuf.Release()
			return nil, err
		}
		switch {
		case !ok:
		case v != v:
			out[i] = nan
		default:
			out[i] = T(v)
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

// parseFloating parses row i; a string neither Java nor the special names accept is null, or
// CAST_INVALID_INPUT on an active row in ANSI mode.
func (c *cast) parseFloating(k *kernelArgs, i int, fb *floatBuf, s []byte, bitSize int) (float64, bool, error) {
	if v, ok := fb.parseJavaFloat(s, bitSize); ok {
		return v, true, nil
	}
	if v, ok := sparkFloatSpecial(s); ok {
		return v, true, nil
	}
	return 0, false, c.rejectString(k, i, s)
}
