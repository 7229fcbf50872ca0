package expr

import (
	"fmt"
	"math/bits"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
)

// Cast from string to decimal(p, s), after Cast.castToDecimal and Decimal.fromString /
// fromStringANSI: new java.math.BigDecimal(str.toString.trim), then
//   - more than 38 integral digits (precision - scale of the BigDecimal, "0e50" included): null,
//     or NUMERIC_OUT_OF_SUPPORTED_RANGE in ANSI mode;
//   - otherwise rounded HALF_UP to scale s; more than p digits: null, or (ANSI)
//     NUMERIC_VALUE_OUT_OF_RANGE with the unrounded value's plain string;
//   - a string BigDecimal rejects: null, or (ANSI) CAST_INVALID_INPUT.
// TRY casts to decimal are LEGACY casts in Spark (canUseLegacyCastForTryCast). BigDecimal's
// grammar is Java's: String.trim (chars <= U+0020), a sign, digits with at most one '.', an
// exponent (e or E, a sign, at most 10 significant digits, an int), the scale must stay an int;
// digits include every Unicode decimal digit of the BMP (Character.isDigit on UTF-16 chars: a
// supplementary digit is two surrogates, not a digit). With
// spark.sql.legacy.allowNegativeScaleOfDecimal the rules change: refused.

// bmpDigitZero lists the first code point (digit zero) of each run of ten BMP decimal digits
// beyond ASCII. The BMP's digit set is the same in Java 17 to 25 and in Go's Unicode tables
// (checked when this was written: 36 runs, each aligned on its zero).
var bmpDigitZero = func() []rune {
	var z []rune
	for _, r := range unicode.Nd.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += 10 {
			if c >= 0x80 {
				z = append(z, c)
			}
		}
	}
	return z
}()

// javaDigit is Character.digit(c, 10) for a char (c <= 0xFFFF): -1 for a non-digit.
func javaDigit(c rune) int {
	if c >= '0' && c <= '9' {
		return int(c - '0')
	}
	if c < 0x80 || c > 0xFFFF {
		return -1
	}
	lo, hi := 0, len(bmpDigitZero)
	for lo < hi {
		m := (lo + hi) / 2
		if bmpDigitZero[m] <= c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || c-bmpDigitZero[lo-1] > 9 {
		return -1
	}
	return int(c - bmpDigitZero[lo-1])
}

// bigTenPowOverflow is the smallest n for which Java 17's BigInteger.TEN.pow(n) reports an
// overflow (bitLength 4 * n / 32 > MAX_MAG_LENGTH = 2^26), found by running it: BigDecimal's
// setScale dropping that many digits throws instead of rounding to zero.
const bigTenPowOverflow = 536870920

// trimJava is String.trim on UTF-8: bytes <= 0x20 at both ends (each is a char of its own).
func trimJava(s []byte) []byte {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// javaDecimal is a parsed java.math.BigDecimal: the unscaled value's ASCII digits without
// leading zeros (empty for zero), its sign and scale.
type javaDecimal struct {
	digits []byte
	neg    bool
	scale  int32
}

// precision is BigDecimal.precision: the unscaled value's digits, 1 for zero.
func (d *javaDecimal) precision() int64 { return int64(max(len(d.digits), 1)) }

// plain is BigDecimal.toPlainString of the value as Decimal.set keeps it (a negative scale
// rescaled to 0).
func (d *javaDecimal) plain() string {
	ds := string(d.digits)
	if ds == "" {
		ds = "0"
	}
	var out []byte
	if d.neg && len(d.digits) > 0 {
		out = append(out, '-')
	}
	s := int(d.scale)
	switch {
	case s <= 0:
		out = append(out, ds...)
		if len(d.digits) > 0 {
			for range -s {
				out = append(out, '0')
			}
		}
	case len(ds) > s:
		out = append(out, ds[:len(ds)-s]...)
		out = append(out, '.')
		out = append(out, ds[len(ds)-s:]...)
	default:
		out = append(out, "0."...)
		for range s - len(ds) {
			out = append(out, '0')
		}
		out = append(out, ds...)
	}
	return string(out)
}

// parseJavaBigDecimal is new BigDecimal(trimmed string); buf is reused for the digits.
func parseJavaBigDecimal(s []byte, buf []byte) (javaDecimal, bool) {
	d := javaDecimal{digits: buf[:0]}
	s = trimJava(s)
	if len(s) == 0 {
		return d, false
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		d.neg = s[0] == '-'
		i = 1
	}
	dot, sawDigit := false, false
	var scl, exp int64
	for i < len(s) {
		c, n := javaRune(s, i)
		if c == '.' {
			if dot {
				return d, false
			}
			dot = true
			i += n
			continue
		}
		if c == 'e' || c == 'E' {
			var ok bool
			if exp, ok = parseJavaExponent(s[i+1:]); !ok {
				return d, false
			}
			break
		}
		v := javaDigit(c)
		if v < 0 {
			return d, false
		}
		sawDigit = true
		if v != 0 || len(d.digits) > 0 {
			d.digits = append(d.digits, byte('0'+v))
		}
		if dot {
			scl++
		}
		i += n
	}
	if !sawDigit {
		return d, false
	}
	sc := scl - exp
	if sc != int64(int32(sc)) {
		return d, false // "Scale out of range."
	}
	d.scale = int32(sc)
	return d, true
}

// parseJavaExponent is BigDecimal.parseExp over the characters after 'e': a sign, then digits;
// leading zeros are skipped only while more than 10 characters remain, then at most 10 may; the
// value must fit an int.
func parseJavaExponent(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Java counts UTF-16 chars; a char that is not a digit fails whatever the count, so
	// counting code points decides the same strings.
	chars := make([]rune, 0, 16)
	for i := 0; i < len(s); {
		c, n := javaRune(s, i)
		if javaDigit(c) < 0 {
			return 0, false
		}
		chars = append(chars, c)
		i += n
	}
	if len(chars) == 0 {
		return 0, false
	}
	for len(chars) > 10 && javaDigit(chars[0]) == 0 {
		chars = chars[1:]
	}
	if len(chars) > 10 {
		return 0, false
	}
	var e int64
	for _, c := range chars {
		e = e*10 + int64(javaDigit(c))
	}
	if neg {
		e = -e
	}
	if e != int64(int32(e)) {
		return 0, false // "Exponent overflow."
	}
	return e, true
}

// roundToScale rounds d HALF_UP to scale s and returns the unscaled result if it has at most p
// digits (Decimal.changePrecision).
func (d *javaDecimal) roundToScale(p, s int32) (decimal128.Num, bool) {
	k := int64(d.scale) - int64(s) // digits to drop (negative: zeros to append)
	ds := d.digits
	if len(ds) == 0 {
		return decimal128.Num{}, true
	}
	if k >= int64(len(ds)) {
		// |value| < 0.1 * 10^-s rounds to zero (HALF_UP needs the first dropped digit >= 5,
		// which only exists when k == len).
		if k == int64(len(ds)) && len(ds) > 0 && ds[0] >= '5' {
			return signed(decimal128.FromU64(1), d.neg), p >= 1
		}
		return decimal128.Num{}, true
	}
	keep := int64(len(ds)) - k // > 0
	if keep > int64(p) {
		// The kept digits start with a non-zero digit: at least 10^p even before rounding.
		return decimal128.Num{}, false
	}
	var hi, lo uint64 // keep <= 38 digits: below 2^127
	n := min(keep, int64(len(ds)))
	for _, c := range ds[:n] {
		hi, lo = mulAdd10(hi, lo, uint64(c-'0'))
	}
	for range keep - n { // k < 0: the value gains zeros
		hi, lo = mulAdd10(hi, lo, 0)
	}
	if k > 0 && ds[keep] >= '5' { // HALF_UP: the first dropped digit decides
		hi, lo = addOne(hi, lo)
	}
	v := decimal128.New(int64(hi), lo)
	if !fitsPrecision(v, p) { // 99.5 -> 100: the carry added a digit
		return decimal128.Num{}, false
	}
	return signed(v, d.neg), true
}

func addOne(hi, lo uint64) (uint64, uint64) {
	lo, c := bits.Add64(lo, 1, 0)
	return hi + c, lo
}

// mulAdd10 is (hi, lo) * 10 + d in 128 bits (callers stay below 10^39).
func mulAdd10(hi, lo, d uint64) (uint64, uint64) {
	h, l := bits.Mul64(lo, 10)
	l, c := bits.Add64(l, d, 0)
	return hi*10 + h + c, l
}

func signed(v decimal128.Num, neg bool) decimal128.Num {
	if neg {
		return v.Negate()
	}
	return v
}

// stringToDecimalRefusal says why a string to decimal cast cannot be native under conf.
func stringToDecimalRefusal(conf *plan.Conf) string {
	if conf != nil && conf.Settings["spark.sql.legacy.allowNegativeScaleOfDecimal"] == "true" {
		return "spark.sql.legacy.allowNegativeScaleOfDecimal changes how strings parse as decimals"
	}
	return ""
}

func castStringToDecimal(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	offs, data := binaryParts(in)
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	p, sc := c.to.Precision, c.to.Scale
	ansi := c.mode == modeANSI
	var buf [64]byte
	for i := range out {
		out[i] = decimal128.Num{}
		if !k.rowValid(i) {
			continue
		}
		s := data[offs[i]:offs[i+1]]
		d, ok := parseJavaBigDecimal(s, buf[:0])
		var err error
		switch {
		case !ok:
			err = exec.CastInvalidInput(sqlStringLiteral(s), `"`+sqlTypeName(c.to)+`"`)
		case int32(d.precision())-d.scale < 0 && d.scale < 0,
			len(d.digits) > 0 && int64(d.scale)-int64(sc) >= bigTenPowOverflow:
			// Spark computes precision - scale in int arithmetic: a scale near Int.MinValue
			// wraps it negative, passes the range check, and rescaling to scale 0 then throws
			// BigInteger's ArithmeticException in every mode (no error class). So does
			// rounding away that many digits (BigInteger.TEN.pow overflows).
			if isActive(k.active, i) {
				obuf.Release()
				return nil, fmt.Errorf("cast %s to %s: BigInteger would overflow supported range", sqlStringLiteral(s), sqlTypeName(c.to))
			}
			k.setNull(i)
			continue
		case int32(d.precision())-d.scale > 38:
			err = exec.NumericOutOfSupportedRange(javaString(s))
		default:
			var v decimal128.Num
			if v, ok = d.roundToScale(p, sc); ok {
				out[i] = v
				continue
			}
			err = exec.NumericValueOutOfRange(d.plain(), p, sc)
		}
		if ansi && isActive(k.active, i) {
			obuf.Release()
			return nil, err
		}
		k.setNull(i)
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}
