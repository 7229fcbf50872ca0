package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// UnBase64 (unbase64(str), and to_binary(str, 'base64') with failOnError) decodes as Spark 4.1
// does: java.util.Base64.getMimeDecoder().decode(str.toString()). The MIME decoder reads the
// string as ISO-8859-1 bytes (characters beyond U+00FF become '?'), skips every byte outside the
// base64 alphabet and stops at '=' padding, so it is run here over the UTF-8 bytes directly:
// multi-byte characters and invalid sequences consist of bytes >= 0x80, outside the alphabet, as
// the characters they decode to are. What the MIME decoder rejects (a padding in the wrong place,
// a dangling single character, alphabet characters after the padding) fails the query with
// Java's IllegalArgumentException message, as Spark lets that exception through.
//
// With failOnError (to_binary), Spark first checks UnBase64.isValidBase64 on the decoded string:
// alphabet characters, then at most two '=' (the first not before two characters of a unit),
// Character.isWhitespace characters only before the padding, nothing else, and a complete last
// unit; a failing row raises CONVERSION_INVALID_INPUT. A valid string always decodes.

func init() {
	Register("UnBase64", "unbase64(str) / to_binary(str, 'base64'): Java's MIME base64 decoder (non-alphabet bytes skipped); malformed input fails as in Spark (CONVERSION_INVALID_INPUT when failOnError)", translateUnBase64)
}

// unb64Alphabet maps a byte to its base64 value, -2 for '=', -1 outside the alphabet.
var unb64Alphabet = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(enc); i++ {
		t[enc[i]] = int8(i)
	}
	t['='] = -2
	return
}()

type unBase64 struct {
	child       Expr
	failOnError bool
}

func translateUnBase64(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind != sparktype.Binary {
		return nil, unsupported("UnBase64 returning %s is not supported natively", t)
	}
	c, err := stringChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	foe, err := pe.Bool("failOnError")
	if err != nil {
		return nil, unsupported("UnBase64 without a failOnError flag is not supported natively: %v", err)
	}
	return &unBase64{child: c, failOnError: foe}, nil
}

func (e *unBase64) Type() sparktype.Type { return sparktype.BinaryType }
func (e *unBase64) mayFail() bool        { return true }
func (e *unBase64) String() string {
	if e.failOnError {
		return fmt.Sprintf("to_binary(%s, 'base64')", e.child)
	}
	return fmt.Sprintf("unbase64(%s)", e.child)
}

func (e *unBase64) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// evalMasked decodes the rows named by active (nil: all); the others are empty and raise no
// error.
func (e *unBase64) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.Type().Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	// At most 3 bytes per 4 input bytes.
	out, err := newBytesOut(ctx.Alloc, n, int64(offs[n]-offs[0])*3/4+3)
	if err != nil {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	fail := func(err error) (arrow.Array, error) {
		out.release()
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		m := 0
		if validRow(vbuf, i) && isActive(active, i) {
			s := data[offs[i]:offs[i+1]]
			if e.failOnError && !unb64Valid(s) {
				return fail(unb64ConversionError(s))
			}
			var err error
			if m, err = unb64Decode(out.room(), s); err != nil {
				return fail(fmt.Errorf("%s: %w", e, err))
			}
		}
		out.end(i, m)
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

// unb64Decode is the MIME decoder's decode0 over s into dst (room for len(s)*3/4+3 bytes);
// its errors carry Java's IllegalArgumentException messages.
func unb64Decode(dst, s []byte) (int, error) {
	dp, bits, shift := 0, uint32(0), 18
	sp := 0
	for sp < len(s) {
		v := unb64Alphabet[s[sp]]
		sp++
		if v == -1 {
			continue
		}
		if v == -2 {
			// '=' with no pending unit, or after three characters of a unit when the next
			// byte is not '=' too, is a wrong ending; after two it ends the data.
			if shift == 6 && (sp == len(s) || func() bool { c := s[sp]; sp++; return c != '=' }()) || shift == 18 {
				return 0, fmt.Errorf("java.lang.IllegalArgumentException: Input byte array has wrong 4-byte ending unit")
			}
			break
		}
		bits |= uint32(v) << shift
		shift -= 6
		if shift < 0 {
			dst[dp], dst[dp+1], dst[dp+2] = byte(bits>>16), byte(bits>>8), byte(bits)
			dp += 3
			shift, bits = 18, 0
		}
	}
	switch shift {
	case 6:
		dst[dp] = byte(bits >> 16)
		dp++
	case 0:
		dst[dp], dst[dp+1] = byte(bits>>16), byte(bits>>8)
		dp += 2
	case 12:
		return 0, fmt.Errorf("java.lang.IllegalArgumentException: Last unit does not have enough valid bits")
	}
	// After the padding only bytes outside the alphabet ('=' included) may follow.
	for sp < len(s) {
		sp++
		if unb64Alphabet[s[sp-1]] >= 0 {
			return 0, fmt.Errorf("java.lang.IllegalArgumentException: Input byte array has incorrect ending byte at %d", sp)
		}
	}
	return dp, nil
}

// unb64Valid is UnBase64.isValidBase64 over the characters of s as Java decodes it.
func unb64Valid(s []byte) bool {
	count, padding := 0, 0
	for i := 0; i < len(s); {
		c := rune(s[i])
		w := 1
		if c >= 0x80 {
			c, w = javaRune(s, i) // U+FFFD for a malformed sequence: not valid base64
		}
		i += w
		switch {
		case c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '/' || c == '+':
			if padding != 0 {
				return false
			}
			count++
		case c == '=':
			padding++
			if padding > 2 || count%4 < 2 {
				return false
			}
		case unb64JavaWhitespace(c):
			if padding != 0 {
				return false
			}
		default:
			return false
		}
	}
	if padding > 0 {
		return (count+padding)%4 == 0
	}
	return count%4 != 1
}

// unb64JavaWhitespace is Character.isWhitespace for a BMP character (a supplementary one is two
// surrogates in Java, neither of them whitespace).
func unb64JavaWhitespace(c rune) bool {
	switch {
	case c >= 0x09 && c <= 0x0D, c >= 0x1C && c <= 0x20:
		return true
	case c == 0x1680, c >= 0x2000 && c <= 0x2006, c >= 0x2008 && c <= 0x200A,
		c == 0x2028, c == 0x2029, c == 0x205F, c == 0x3000:
		return true
	}
	return false
}

// unb64ConversionError is QueryExecutionErrors.invalidInputInConversionError(BinaryType, str,
// "BASE64", "try_to_binary").
func unb64ConversionError(s []byte) error {
	return &exec.SparkError{Class: "CONVERSION_INVALID_INPUT", Exception: "illegal-argument",
		Params: map[string]string{"str": sqlStringLiteral(s), "fmt": "'BASE64'", "targetType": `"BINARY"`,
			"suggestion": "`try_to_binary`"}}
}
