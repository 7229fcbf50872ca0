package expr

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Casts from strings to integral types and to boolean, after Cast.scala, UTF8String.toLong /
// toInt (Hive's LazyLong) and StringUtils.isTrueString:
//   - both trim bytes 0x00-0x20 and 0x7F at both ends (UTF8String.isWhitespaceOrISOControl of a
//     signed byte: multi-byte UTF-8 is never trimmed);
//   - integral: an optional sign, ASCII digits, accumulated negatively so that MIN_VALUE parses;
//     LEGACY also accepts a '.' and a fraction of digits, which is dropped ("1.9" -> 1, "." ->
//     0); byte and short parse as int, then must fit. ANSI and TRY accept no fraction (toIntExact);
//     ANSI raises CAST_INVALID_INPUT, LEGACY and TRY give null;
//   - boolean: t, true, y, yes, 1 / f, false, n, no, 0, ASCII case-insensitive (no other
//     character lower-cases to these in Java); otherwise null or (ANSI) CAST_INVALID_INPUT.

// isSparkSpace is UTF8String.isWhitespaceOrISOControl of one byte.
func isSparkSpace(b byte) bool { return b <= 0x20 || b == 0x7F }

// trimSpark returns the bounds of s without the bytes isSparkSpace trims (UTF8String.trimAll).
func trimSpark(s []byte) []byte {
	i, j := 0, len(s)
	for i < j && isSparkSpace(s[i]) {
		i++
	}
	for j > i && isSparkSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// sqlStringLiteral is Spark's toSQLValue of a string: the text as Java decodes the UTF-8,
// backslashes and single quotes escaped, in single quotes.
func sqlStringLiteral(s []byte) string {
	t := javaString(s)
	t = strings.ReplaceAll(t, `\`, `\\`)
	t = strings.ReplaceAll(t, `'`, `\'`)
	return "'" + t + "'"
}

// parseSparkLong is UTF8String.toLong(allowDecimal): the same steps, so the same strings fail.
func parseSparkLong(s []byte, allowDecimal bool) (int64, bool) {
	return parseSparkIntegral[int64](s, allowDecimal, math.MinInt64)
}

// parseSparkInt is UTF8String.toInt(allowDecimal), in int32 arithmetic like Java's.
func parseSparkInt(s []byte, allowDecimal bool) (int32, bool) {
	return parseSparkIntegral[int32](s, allowDecimal, math.MinInt32)
}

// parseSparkIntegral is UTF8String's toLong and toInt in T's arithmetic, whose smallest value is
// minValue.
func parseSparkIntegral[T int32 | int64](s []byte, allowDecimal bool, minValue T) (T, bool) {
	s = trimSpark(s)
	if len(s) == 0 {
		return 0, false
	}
	i := 0
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		if len(s) == 1 {
			return 0, false
		}
		i = 1
	}
	stop := minValue / 10
	var r T
	for i < len(s) {
		b := s[i]
		i++
		if b == '.' && allowDecimal {
			break // the fraction is checked below and dropped
		}
		if b < '0' || b > '9' {
			return 0, false
		}
		if r < stop {
			return 0, false
		}
		r = r*10 - T(b-'0') // negative accumulation: the smallest value has the larger magnitude
		if r > 0 {
			return 0, false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	if !neg {
		r = -r
		if r < 0 {
			return 0, false
		}
	}
	return r, true
}

// rejectString answers row i, whose string s does not parse as c.to: Spark's CAST_INVALID_INPUT in
// ANSI mode on a row the expression evaluates, else null.
func (c *cast) rejectString(k *kernelArgs, i int, s []byte) error {
	if c.mode == modeANSI && isActive(k.active, i) {
		return exec.CastInvalidInput(sqlStringLiteral(s), `"`+sqlTypeName(c.to)+`"`)
	}
	k.setNull(i)
	return nil
}

// castStringToIntegral parses each string as c.to; failures are null, or CAST_INVALID_INPUT on
// an active row in ANSI mode.
func castStringToIntegral(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	switch c.to.Kind {
	case sparktype.Byte:
		return stringToIntegral[int8](c, k, in)
	case sparktype.Short:
		return stringToIntegral[int16](c, k, in)
	case sparktype.Int:
		return stringToIntegral[int32](c, k, in)
	}
	return stringToIntegral[int64](c, k, in)
}

func stringToIntegral[T integer](c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	offs, data := binaryParts(in)
	allowDecimal := c.mode == modeLegacy // toLongExact / toIntExact accept no fraction
	obuf, out := newFixed[T](k.alloc, k.n)
	long := c.to.Kind == sparktype.Long
	for i := range out {
		out[i] = 0
		if !k.rowValid(i) {
			continue
		}
		s := data[offs[i]:offs[i+1]]
		var v int64
		var ok bool
		if long {
			v, ok = parseSparkLong(s, allowDecimal)
		} else {
			var v32 int32
			v32, ok = parseSparkInt(s, allowDecimal)
			v = int64(v32)
			ok = ok && int64(T(v)) == v // toShort / toByte: the int must fit
		}
		if ok {
			out[i] = T(v)
			continue
		}
		if err := c.rejectString(k, i, s); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

// parseSparkBoolean is StringUtils.isTrueString / isFalseString: ok is false for neither.
func parseSparkBoolean(s []byte) (v, ok bool) {
	s = trimSpark(s)
	if len(s) == 0 || len(s) > 5 {
		return false, false
	}
	var buf [5]byte
	for i, b := range s {
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		buf[i] = b
	}
	switch string(buf[:len(s)]) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

func castStringToBoolean(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	offs, data := binaryParts(in)
	obuf, out := newBitmap(k.alloc, k.n)
	for i := 0; i < k.n; i++ {
		if !k.rowValid(i) {
			continue
		}
		s := data[offs[i]:offs[i+1]]
		v, ok := parseSparkBoolean(s)
		if ok {
			out[i>>3] |= b2u(v) << (i & 7)
			continue
		}
		if err := c.rejectString(k, i, s); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, k.n, k.vbuf, obuf, k.nulls), nil
}
