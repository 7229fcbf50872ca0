package expr

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// UTF-8 validity and the other string functions that Spark 4.1 rewrites into calls of UTF8String
// methods (Invoke) or of ExpressionImplUtils' static methods (StaticInvoke), over UTF8_BINARY
// strings, null in, null out (the calls propagate nulls):
//   - is_valid_utf8 (Invoke of isValid): well-formed UTF-8 by Unicode's Table 3-7 (no overlong
//     forms, surrogates or code points above U+10FFFF), as utf8.Valid checks.
//   - make_valid_utf8 (Invoke of makeValid): each maximal invalid subpart replaced by U+FFFD
//     (validRune, strcase.go).
//   - try_validate_utf8 (ExpressionImplUtils.tryValidateUTF8String): the string when valid, else
//     null. validate_utf8 (validateUTF8String) raises INVALID_UTF8_STRING on an invalid string
//     and stays in Spark.
//   - luhn_check (ExpressionImplUtils.isLuhnNumber): the Luhn checksum over the string's UTF-16
//     chars as Java decodes it (javaRune), each of which must be a Unicode decimal digit
//     (Character.isDigit, with its digit value); false for ''.
//   - quote (ExpressionImplUtils.quote): the string as Java decodes it, each ' escaped as \',
//     between single quotes.

const implUtils = "org.apache.spark.sql.catalyst.expressions.ExpressionImplUtils"

func init() {
	Register("Invoke", "a UTF8String method called on a string (is_valid_utf8 and make_valid_utf8 are Invoke of isValid and makeValid): natively only those two, on UTF8_BINARY strings", translateInvoke)
	registerCall("Spark's ExpressionImplUtils string functions", "try_validate_utf8 (tryValidateUTF8String: the string when valid UTF-8, else null), luhn_check (isLuhnNumber: Luhn checksum of Unicode decimal digits, false for ''), quote (the string in single quotes, ' escaped as \\', invalid UTF-8 as U+FFFD) of UTF8_BINARY strings; validate_utf8 (raises INVALID_UTF8_STRING) stays in Spark",
		translateImplUtils, implUtils)
}

func translateInvoke(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	fn, err := pe.String("functionName")
	if err != nil {
		return nil, err
	}
	if args, err := pe.Children("arguments"); err != nil || len(args) != 0 {
		return nil, unsupported("Invoke of %s with arguments is not supported natively", fn)
	}
	target, err := translateChild(pe, "targetObject", conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(target.Type()) {
		return nil, unsupported("Invoke of %s on %s is not supported natively (UTF8_BINARY string methods isValid and makeValid only)", fn, target.Type())
	}
	switch fn {
	case "isValid":
		return &strBool{name: "is_valid_utf8", child: target, fn: utf8.Valid}, nil
	case "makeValid":
		return &bytesFn{name: "make_valid_utf8", child: target, typ: target.Type(), maxLen: func(n int) int { return 3 * n }, fn: makeValidInto}, nil
	}
	return nil, unsupported("Invoke of UTF8String.%s is not supported natively (isValid and makeValid only)", fn)
}

func translateImplUtils(c *call, conf *plan.Conf) (Expr, error) {
	if err := c.checkArity(1); err != nil {
		return nil, err
	}
	if c.method == "validateUTF8String" {
		return nil, unsupported("validate_utf8 raises INVALID_UTF8_STRING on invalid UTF-8, which is not supported natively")
	}
	arg, err := Translate(c.args[0], conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(arg.Type()) {
		return nil, unsupported("ExpressionImplUtils.%s of %s is not supported natively (UTF8_BINARY strings only)", c.method, arg.Type())
	}
	switch c.method {
	case "tryValidateUTF8String":
		return &bytesFn{name: "try_validate_utf8", child: arg, typ: arg.Type(), maxLen: func(n int) int { return n }, fn: func(dst, s []byte) (int, bool) {
			if !utf8.Valid(s) {
				return 0, false
			}
			return copy(dst, s), true
		}}, nil
	case "isLuhnNumber":
		return &strBool{name: "luhn_check", child: arg, fn: isLuhnNumber}, nil
	case "quote":
		if !defaultString(c.typ) {
			return nil, unsupported("quote returning %s is not supported natively", c.typ)
		}
		return &bytesFn{name: "quote", child: arg, typ: c.typ, maxLen: func(n int) int { return 3*n + 2 }, fn: quoteInto}, nil
	}
	return nil, unsupported("StaticInvoke of ExpressionImplUtils.%s is not supported natively", c.method)
}

// makeValidInto writes UTF8String.makeValid of s.
func makeValidInto(dst, s []byte) (int, bool) {
	if isASCII(s) || utf8.Valid(s) {
		return copy(dst, s), true
	}
	m := 0
	for i := 0; i < len(s); {
		r, w := validRune(s, i)
		if r == utf8.RuneError { // an invalid subpart, or U+FFFD itself: the same 3 bytes
			m += utf8.EncodeRune(dst[m:], r)
		} else {
			m += copy(dst[m:], s[i:i+w])
		}
		i += w
	}
	return m, true
}

// quoteInto writes ExpressionImplUtils.quote of s: "'" + s.replaceAll("'", "\\'") + "'".
func quoteInto(dst, s []byte) (int, bool) {
	m := 0
	dst[m] = '\''
	m++
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c == '\'' {
				dst[m] = '\\'
				m++
			}
			dst[m] = c
			m++
			i++
			continue
		}
		r, w := javaRune(s, i)
		m += utf8.EncodeRune(dst[m:], r)
		i += w
	}
	dst[m] = '\''
	return m + 1, true
}

// isLuhnNumber is ExpressionImplUtils.isLuhnNumber: over the UTF-16 chars of s as Java decodes
// it, right to left, every char a decimal digit (a supplementary character's surrogates are
// not), every second one doubled and its digits summed; true when the sum ends in 0.
func isLuhnNumber(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	sum, second := 0, false
	for i := len(s); i > 0; {
		// Walk back to the start of the last code point: ASCII digits are the common case.
		c := s[i-1]
		var d int
		if c < 0x80 {
			if c < '0' || c > '9' {
				return false
			}
			d = int(c - '0')
			i--
		} else {
			// Decode from the start of the string to find the code point ending at i (rare).
			r, start := lastJavaRune(s[:i])
			// Character.isDigit and getNumericValue agree with Character.digit(c, 10) on
			// decimal digits (castdecimal.go's table); a supplementary code point is two
			// chars, neither a digit.
			if d = javaDigit(r); d < 0 {
				return false
			}
			i = start
		}
		if second {
			d *= 2
		}
		sum += d%10 + d/10
		second = !second
	}
	return sum%10 == 0
}

// lastJavaRune decodes s as Java does and returns its last code point and where it starts.
func lastJavaRune(s []byte) (rune, int) {
	var r rune
	start := 0
	for i := 0; i < len(s); {
		var w int
		r, w = javaRune(s, i)
		start = i
		i += w
	}
	return r, start
}

// strBool is a null-intolerant predicate of one string.
type strBool struct {
	name  string
	child Expr
	fn    func([]byte) bool
}

func (e *strBool) Type() sparktype.Type { return sparktype.BooleanType }
func (e *strBool) mayFail() bool        { return mayFail(e.child) }
func (e *strBool) String() string       { return fmt.Sprintf("%s(%s)", e.name, e.child) }

func (e *strBool) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strBool) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.FixedWidthTypes.Boolean
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	obuf, out := newBitmap(ctx.Alloc, n)
	for i := 0; i < n; i++ {
		if validRow(vbuf, i) && e.fn(data[offs[i]:offs[i+1]]) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
