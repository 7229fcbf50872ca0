package expr

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// A JSON token stream that accepts and rejects exactly what Spark's JSON functions see through
// Jackson 2.21 (the version Spark 4.1.3 ships), built with ALLOW_UNESCAPED_CONTROL_CHARS and
// ALLOW_SINGLE_QUOTES and fed the row through a UTF-8 InputStreamReader:
//   - malformed UTF-8 inside strings becomes U+FFFD the way Java's decoder cuts it (javaRune);
//     outside strings any non-ASCII byte is an unexpected character anyway;
//   - whitespace is space, tab, CR and LF only; no comments, unquoted names, trailing commas,
//     leading zeros, leading '+' or '.', NaN or Infinity;
//   - strings may be single- or double-quoted, hold raw control characters, and escape \' in
//     both kinds; \u escapes may leave unpaired surrogates, kept as their 3-byte (WTF-8) form
//     while a well-formed pair becomes one 4-byte code point, so text compares as Java Strings
//     compare;
//   - StreamReadConstraints: nesting deeper than 1000, an integer of more than 1000 digits, a
//     float of more than 1000 digits (integer, fraction and exponent digits together), a field
//     name of more than 50000 chars are errors even in skipped values;
//   - a string value longer than 20000000 chars is an error where its text is read (written out),
//     not where it is skipped;
//   - a root scalar number must be followed by whitespace or the end; true, false and null must
//     not run into a Java identifier character; anything after a complete root value is never
//     read (Spark reads one value).
// Jackson reads a string's content lazily, but every string Spark's evaluation steps over is
// completed by the next token read, so decoding eagerly rejects the same rows.

type jsonTok uint8

const (
	tokNone jsonTok = iota // before the first token, or the end of the input at the root
	tokStartObject
	tokEndObject
	tokStartArray
	tokEndArray
	tokFieldName
	tokString
	tokInt
	tokFloat
	tokTrue
	tokFalse
	tokNull
)

const (
	jsonMaxString     = 20_000_000 // chars of a string value read (a skipped one is not checked)
	jsonMaxDepth      = 1000
	jsonMaxNumberLen  = 1000
	jsonMaxNameLength = 50000
)

// errJSON is any input Jackson refuses: the JSON functions answer null for the row.
var errJSON = errors.New("malformed JSON")

type jsonScanner struct {
	in    []byte
	pos   int
	tok   jsonTok
	text  []byte // decoded string or field name (WTF-8); number text
	stack []byte // open containers: '{' or '['
	first bool   // the last token opened a container
}

func (p *jsonScanner) reset(in []byte) {
	p.in, p.pos, p.tok, p.text, p.stack, p.first = in, 0, tokNone, p.text[:0], p.stack[:0], false
}

// skipWS skips JSON whitespace; it returns the next byte, or -1 at the end, or an error for a
// control character Jackson refuses between tokens.
func (p *jsonScanner) skipWS() (int, error) {
	for p.pos < len(p.in) {
		c := p.in[p.pos]
		if c > ' ' {
			return int(c), nil
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return 0, errJSON
		}
		p.pos++
	}
	return -1, nil
}

// next reads the next token into p.tok.
func (p *jsonScanner) next() error {
	if len(p.stack) == 0 {
		if p.tok != tokNone {
			// Spark never reads past the root value; treat it as the end.
			p.tok = tokNone
			return nil
		}
		c, err := p.skipWS()
		if err != nil {
			return err
		}
		if c < 0 {
			return nil
		}
		return p.value(true)
	}
	top := p.stack[len(p.stack)-1]
	c, err := p.skipWS()
	if err != nil {
		return err
	}
	if c < 0 {
		return errJSON
	}
	if top == '{' {
		if p.tok == tokFieldName {
			if c != ':' {
				return errJSON
			}
			p.pos++
			if c, err = p.skipWS(); err != nil {
				return err
			}
			if c < 0 {
				return errJSON
			}
			return p.value(false)
		}
		if c == '}' {
			p.pos++
			p.close(tokEndObject)
			return nil
		}
		if !p.first {
			if c != ',' {
				return errJSON
			}
			p.pos++
			if c, err = p.skipWS(); err != nil {
				return err
			}
		}
		if c != '"' && c != '\'' {
			return errJSON
		}
		if err := p.str(byte(c)); err != nil {
			return err
		}
		if len(p.text) > jsonMaxNameLength && utf16Len(p.text) > jsonMaxNameLength {
			return errJSON
		}
		p.tok, p.first = tokFieldName, false
		return nil
	}
	if c == ']' {
		p.pos++
		p.close(tokEndArray)
		return nil
	}
	if !p.first {
		if c != ',' {
			return errJSON
		}
		p.pos++
		if c, err = p.skipWS(); err != nil {
			return err
		}
		if c < 0 {
			return errJSON
		}
	}
	return p.value(false)
}

func (p *jsonScanner) close(t jsonTok) {
	p.stack = p.stack[:len(p.stack)-1]
	p.tok, p.first = t, false
}

// value reads a value starting at p.pos (not whitespace, not the end).
func (p *jsonScanner) value(root bool) error {
	c := p.in[p.pos]
	p.first = false
	switch {
	case c == '"' || c == '\'':
		p.tok = tokString
		return p.str(c)
	case c == '{' || c == '[':
		if len(p.stack) >= jsonMaxDepth {
			return errJSON
		}
		p.pos++
		p.stack = append(p.stack, c)
		p.tok, p.first = tokStartArray, true
		if c == '{' {
			p.tok = tokStartObject
		}
		return nil
	case c == 't':
		return p.literal("true", tokTrue)
	case c == 'f':
		return p.literal("false", tokFalse)
	case c == 'n':
		return p.literal("null", tokNull)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(root)
	}
	return errJSON
}

func (p *jsonScanner) literal(word string, t jsonTok) error {
	if len(p.in)-p.pos < len(word) || string(p.in[p.pos:p.pos+len(word)]) != word {
		return errJSON
	}
	p.pos += len(word)
	if p.pos < len(p.in) {
		c := p.in[p.pos]
		if c >= '0' && c != ']' && c != '}' {
			r := rune(c)
			if c >= 0x80 {
				r, _ = javaRune(p.in, p.pos)
			}
			if javaIdentifierPart(r) {
				return errJSON
			}
		}
	}
	p.tok = t
	return nil
}

// javaIdentifierPart is Character.isJavaIdentifierPart of the char after a literal (a non-BMP
// code point reaches Jackson as a high surrogate, which is not one).
func javaIdentifierPart(r rune) bool {
	switch {
	case r < 0x80:
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '$' ||
			r <= 8 || (r >= 0x0E && r <= 0x1B) || r == 0x7F
	case r <= 0x9F:
		return true
	case r > 0xFFFF:
		return false
	}
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Sc, unicode.Pc, unicode.Nd, unicode.Mn, unicode.Mc, unicode.Cf)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jsonScanner) number(root bool) error {
	in := p.in
	start := p.pos
	i := p.pos
	if in[i] == '-' {
		i++
	}
	if i >= len(in) || !isDigit(in[i]) {
		return errJSON
	}
	intStart := i
	if in[i] == '0' {
		i++
		if i < len(in) && isDigit(in[i]) {
			return errJSON // leading zeroes
		}
	} else {
		for i < len(in) && isDigit(in[i]) {
			i++
		}
	}
	digits := i - intStart
	float := false
	if i < len(in) && in[i] == '.' {
		float = true
		i++
		f := i
		for i < len(in) && isDigit(in[i]) {
			i++
		}
		if i == f {
			return errJSON
		}
		digits += i - f
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		float = true
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		f := i
		for i < len(in) && isDigit(in[i]) {
			i++
		}
		if i == f {
			return errJSON
		}
		digits += i - f
	}
	if digits > jsonMaxNumberLen {
		return errJSON
	}
	if root && i < len(in) {
		if c := in[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return errJSON
		}
	}
	p.pos = i
	p.text = append(p.text[:0], in[start:i]...)
	p.tok = tokInt
	if float {
		p.tok = tokFloat
	}
	return nil
}

var hexVal = func() (v [256]int8) {
	for i := range v {
		v[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		v[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		v[c] = int8(c - 'a' + 10)
		v[c-'a'+'A'] = int8(c - 'a' + 10)
	}
	return
}()

// hex4 reads four hex digits at i.
func hex4(in []byte, i int) (rune, bool) {
	if len(in)-i < 4 {
		return 0, false
	}
	var r rune
	for k := 0; k < 4; k++ {
		d := hexVal[in[i+k]]
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// str decodes the string opened by quote q at p.pos into p.text.
func (p *jsonScanner) str(q byte) error {
	in := p.in
	i := p.pos + 1
	out := p.text[:0]
	for {
		// Plain ASCII run.
		j := i
		for j < len(in) {
			c := in[j]
			if c == q || c == '\\' || c >= 0x80 {
				break
			}
			j++
		}
		out = append(out, in[i:j]...)
		i = j
		if i >= len(in) {
			p.text = out
			return errJSON
		}
		c := in[i]
		switch {
		case c == q:
			p.pos = i + 1
			p.text = out
			return nil
		case c >= 0x80:
			r, n := javaRune(in, i)
			if r == utf8.RuneError && n > 0 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, in[i:i+n]...)
			}
			i += n
		default: // backslash
			if i+1 >= len(in) {
				p.text = out
				return errJSON
			}
			e := in[i+1]
			i += 2
			switch e {
			case '"', '\\', '/', '\'':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(in, i)
				if !ok {
					p.text = out
					return errJSON
				}
				i += 4
				if r >= 0xD800 && r <= 0xDBFF && len(in)-i >= 6 && in[i] == '\\' && in[i+1] == 'u' {
					if lo, ok := hex4(in, i+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
						i += 6
						continue
					}
				}
				out = appendWTF8(out, r)
			default:
				p.text = out
				return errJSON
			}
		}
	}
}

// appendWTF8 appends a BMP char, an unpaired surrogate as its 3-byte form.
func appendWTF8(out []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return utf8.AppendRune(out, r)
}

// stringText is the current string value's text, or an error when Jackson refuses to read one
// that long (StreamReadConstraints.maxStringLength).
func (p *jsonScanner) stringText() ([]byte, error) {
	if len(p.text) > jsonMaxString && utf16Len(p.text) > jsonMaxString {
		return nil, errJSON
	}
	return p.text, nil
}

// skipChildren is JsonParser.skipChildren: past the end of the container the current token
// opens, nothing for any other token.
func (p *jsonScanner) skipChildren() error {
	if p.tok != tokStartObject && p.tok != tokStartArray {
		return nil
	}
	depth := len(p.stack) - 1
	for {
		if err := p.next(); err != nil {
			return err
		}
		if (p.tok == tokEndObject || p.tok == tokEndArray) && len(p.stack) == depth {
			return nil
		}
	}
}
