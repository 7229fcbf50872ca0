package expr

import (
	"math"
	"strconv"
	"unsafe"
)

// jsonGen writes what Jackson's generators write when Spark's JSON functions copy values out:
//   - separators come from the write context: ',' between array elements and object fields, ':'
//     after a name, ' ' between root values; writeRaw adds none and does not count as a value;
//   - strings and names escape '"', '\\' and chars below 0x20 (\b \t \n \f \r, else \u00XX in
//     uppercase hex); the UTF-8 generator (utf8 true: the one Spark's result bytes come from)
//     also escapes every surrogate char, so a non-BMP code point comes out as two \uXXXX, while
//     the Writer-based one Spark buffers wildcard matches in keeps chars as they are;
//   - raw text written to the UTF-8 generator re-encodes surrogate pairs, and an unpaired
//     surrogate is an error (the row's result is null);
//   - integers print their value ("-0" prints "0"), floats Double.toString of the parsed double,
//     an infinite one as the string "Infinity" (QUOTE_NON_NUMERIC_NUMBERS).
type jsonGen struct {
	buf  []byte
	utf8 bool
	ctx  []genCtx
	jd   javaFloatDigits
	ver  int // Java feature version (Double.toString's digits)
}

type genCtx struct {
	kind  byte // 0 root, '[' or '{'
	count int
}

func (g *jsonGen) reset(utf8 bool, ver int) {
	g.buf, g.utf8, g.ver = g.buf[:0], utf8, ver
	g.ctx = append(g.ctx[:0], genCtx{})
}

// valuePrefix writes the separator before a value.
func (g *jsonGen) valuePrefix() {
	c := &g.ctx[len(g.ctx)-1]
	switch c.kind {
	case '[':
		if c.count > 0 {
			g.buf = append(g.buf, ',')
		}
		c.count++
	case 0:
		if c.count > 0 {
			g.buf = append(g.buf, ' ')
		}
		c.count++
	}
	// In an object the name wrote the ':'.
}

func (g *jsonGen) startArray() {
	g.valuePrefix()
	g.buf = append(g.buf, '[')
	g.ctx = append(g.ctx, genCtx{kind: '['})
}

func (g *jsonGen) startObject() {
	g.valuePrefix()
	g.buf = append(g.buf, '{')
	g.ctx = append(g.ctx, genCtx{kind: '{'})
}

func (g *jsonGen) end(close byte) {
	g.buf = append(g.buf, close)
	if len(g.ctx) > 1 {
		g.ctx = g.ctx[:len(g.ctx)-1]
	}
}

func (g *jsonGen) fieldName(name []byte) {
	c := &g.ctx[len(g.ctx)-1]
	if c.count > 0 {
		g.buf = append(g.buf, ',')
	}
	c.count++
	g.quoted(name)
	g.buf = append(g.buf, ':')
}

func (g *jsonGen) str(s []byte) {
	g.valuePrefix()
	g.quoted(s)
}

func (g *jsonGen) escapeUnit(u rune) {
	g.buf = append(g.buf, '\\', 'u', upperHex[u>>12&0xF], upperHex[u>>8&0xF], upperHex[u>>4&0xF], upperHex[u&0xF])
}

// quoted writes s (WTF-8) as a JSON string.
func (g *jsonGen) quoted(s []byte) {
	b := append(g.buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && (c < 0x80 || !g.utf8) {
			j := i + 1
			for j < len(s) {
				d := s[j]
				if d < 0x20 || d == '"' || d == '\\' || (d >= 0x80 && g.utf8) {
					break
				}
				j++
			}
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			switch c {
			case '\b':
				b = append(b, '\\', 'b')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\f':
				b = append(b, '\\', 'f')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
			}
			i++
		case c >= 0xF0: // non-BMP: a surrogate pair, each escaped
			r := rune(c&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
			r -= 0x10000
			g.buf = b
			g.escapeUnit(0xD800 + r>>10)
			g.escapeUnit(0xDC00 + r&0x3FF)
			b = g.buf
			i += 4
		case c == 0xED && s[i+1] >= 0xA0: // unpaired surrogate
			g.buf = b
			g.escapeUnit(rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F))
			b = g.buf
			i += 3
		default:
			n := 2
			if c >= 0xE0 {
				n = 3
			}
			b = append(b, s[i:i+n]...)
			i += n
		}
	}
	g.buf = append(b, '"')
}

// raw is writeRaw: text as is, no separator; the UTF-8 generator refuses unpaired surrogates.
func (g *jsonGen) raw(s []byte) error {
	if g.utf8 && hasSurrogate(s) {
		return errJSON
	}
	g.buf = append(g.buf, s...)
	return nil
}

// rawValue is writeRawValue: raw text that counts as a value.
func (g *jsonGen) rawValue(s []byte) error {
	g.valuePrefix()
	return g.raw(s)
}

// hasSurrogate reports whether WTF-8 text holds an unpaired surrogate (ED A0..BF xx).
func hasSurrogate(s []byte) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 {
			return true
		}
	}
	return false
}

func (g *jsonGen) intText(s []byte) {
	g.valuePrefix()
	if len(s) == 2 && s[0] == '-' && s[1] == '0' {
		s = s[1:]
	}
	g.buf = append(g.buf, s...)
}

func (g *jsonGen) floatText(s []byte) {
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
	if err != nil && !math.IsInf(f, 0) {
		// Unreachable: the scanner admits JSON number syntax only.
		f = math.NaN()
	}
	if math.IsInf(f, 0) || f != f {
		g.valuePrefix()
		g.buf = append(g.buf, '"')
		g.buf = g.jd.appendJava(g.buf, f, 64, g.ver)
		g.buf = append(g.buf, '"')
		return
	}
	g.valuePrefix()
	g.buf = g.jd.appendJava(g.buf, f, 64, g.ver)
}

func (g *jsonGen) word(w string) {
	g.valuePrefix()
	g.buf = append(g.buf, w...)
}

// copyCurrent is JsonGenerator.copyCurrentStructure: the current token and, for a container,
// everything up to its end.
func (g *jsonGen) copyCurrent(p *jsonScanner) error {
	switch p.tok {
	case tokFieldName:
		g.fieldName(p.text)
		if err := p.next(); err != nil {
			return err
		}
		return g.copyCurrent(p)
	case tokStartObject, tokStartArray:
		depth := len(p.stack) - 1
		for {
			switch p.tok {
			case tokStartObject:
				g.startObject()
			case tokStartArray:
				g.startArray()
			case tokEndObject:
				g.end('}')
			case tokEndArray:
				g.end(']')
			case tokFieldName:
				g.fieldName(p.text)
			default:
				if err := g.copyScalar(p); err != nil {
					return err
				}
			}
			if len(p.stack) == depth {
				return nil
			}
			if err := p.next(); err != nil {
				return err
			}
		}
	}
	return g.copyScalar(p)
}

func (g *jsonGen) copyScalar(p *jsonScanner) error {
	switch p.tok {
	case tokString:
		t, err := p.stringText()
		if err != nil {
			return err
		}
		g.str(t)
	case tokInt:
		g.intText(p.text)
	case tokFloat:
		g.floatText(p.text)
	case tokTrue:
		g.word("true")
	case tokFalse:
		g.word("false")
	case tokNull:
		g.word("null")
	default:
		return errJSON // no current event to copy
	}
	return nil
}
