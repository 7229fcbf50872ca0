package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Like (regexpExpressions.scala). Spark turns the pattern into a Java regex with
// StringUtils.escapeLikeRegex — '%' becomes ".*", '_' becomes ".", the escape character followed
// by '_', '%' or itself stands for that character, every other character is quoted, and "(?s)"
// (DOTALL) lets both wildcards match line terminators — and matches it against the whole of
// UTF8String.toString (Matcher.matches). An escape character before any other character, or at
// the end of the pattern, makes Spark raise an error (escapeLikeRegex throws): such patterns are
// refused natively and Spark raises it.
//
// Only a literal pattern is supported; it is compiled once at translation into a wildcard matcher
// over code points, with prefix/suffix/contains/equality fast paths. Code points are those of
// Java's UTF-8 decoding (new String(bytes, UTF_8)): each malformed sequence is one U+FFFD, with
// the JDK's lengths for malformed sequences (javaRune). A literal without U+FFFD matches exactly
// where its UTF-8 bytes occur (a malformed sequence only ever swallows continuation bytes, which
// never start a valid character), so literals are compared bytewise; a pattern holding U+FFFD
// compares decoded code points instead.

func init() {
	Register("Like", "str LIKE pattern [ESCAPE c] on UTF8_BINARY strings with a literal pattern: Spark's escapeLikeRegex semantics ('%' any code points incl. newlines, '_' one code point, escape before '_', '%' or itself); patterns Spark rejects are refused", translateLike)
}

type likeKind uint8

const (
	likeGeneral  likeKind = iota
	likeAny               // only '%': every string
	likeEquals            // no wildcard
	likePrefix            // lit%
	likeSuffix            // %lit
	likeContains          // %lit%
)

// likeElem is a literal run or (lit == nil) a run of skip '_' wildcards.
type likeElem struct {
	lit   []byte // UTF-8 of the literal code points
	runes []rune // the same code points (compared one by one in replacement mode)
	skip  int
}

// likePart is a '%'-free stretch of the pattern; units is its length in code points.
type likePart struct {
	elems []likeElem
	units int
}

type likeMatcher struct {
	kind     likeKind
	lit      []byte // fast kinds
	parts    []likePart
	leading  bool // the pattern starts with '%'
	trailing bool // the pattern ends with '%'
	repl     bool // a literal holds U+FFFD: compare decoded code points
}

type like struct {
	left    Expr
	pattern string // as decoded, for String()
	escape  rune
	isNull  bool // null pattern: every row is null
	m       likeMatcher
}

func (e *like) Type() sparktype.Type { return sparktype.BooleanType }
func (e *like) mayFail() bool        { return mayFail(e.left) }
func (e *like) String() string {
	if e.escape == '\\' {
		return fmt.Sprintf("%s LIKE %q", e.left, e.pattern)
	}
	return fmt.Sprintf("%s LIKE %q ESCAPE %q", e.left, e.pattern, e.escape)
}

func translateLike(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	l, err := translateChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	r, err := translateChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(l.Type()) || !binaryCollation(r.Type()) {
		return nil, unsupported("Like of %s and %s is not supported natively (UTF8_BINARY strings only)", l.Type(), r.Type())
	}
	lit, ok := r.(*Literal)
	if !ok {
		return nil, unsupported("Like with a non-literal pattern (%s) is not supported natively", r)
	}
	esc, err := likeEscapeChar(pe)
	if err != nil {
		return nil, err
	}
	e := &like{left: l, escape: esc}
	if lit.IsNull() {
		e.isNull = true
		e.pattern = "null"
		return e, nil
	}
	offs, data := binaryParts(lit.constArray())
	p := data[offs[0]:offs[1]]
	if e.m, e.pattern, err = compileLike(p, esc); err != nil {
		return nil, err
	}
	return e, nil
}

// likeEscapeChar reads Like's escapeChar, a Scala Char the encoder writes as a one-character
// string.
func likeEscapeChar(pe *plan.Expr) (rune, error) {
	raw, err := pe.Raw("escapeChar")
	if err != nil {
		return 0, err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, unsupported("Like: escapeChar is not encoded as a character (%s)", truncate(string(raw), 80))
	}
	r, size := utf8.DecodeRuneInString(s)
	if size != len(s) || size == 0 || r == utf8.RuneError || r > 0xFFFF || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, unsupported("Like with escape character %q is not supported natively", s)
	}
	return r, nil
}

// compileLike follows StringUtils.escapeLikeRegex, which (in Spark 4.1) walks the pattern's code
// points; the escape character is a BMP char.
func compileLike(pat []byte, esc rune) (likeMatcher, string, error) {
	var m likeMatcher
	var runes []rune
	for i := 0; i < len(pat); {
		r, w := javaRune(pat, i)
		runes = append(runes, r)
		i += w
	}
	text := string(runes)
	const tokAny, tokOne = -1, -2 // '%', '_'
	var toks []rune
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		switch {
		case c == esc && i+1 < len(runes):
			i++
			n := runes[i]
			if n != '_' && n != '%' && n != esc {
				return m, text, unsupported("Like pattern %q: the escape character is not allowed to precede %q (Spark raises an error)", text, n)
			}
			toks = append(toks, n)
		case c == esc:
			return m, text, unsupported("Like pattern %q ends with the escape character (Spark raises an error)", text)
		case c == '_':
			toks = append(toks, tokOne)
		case c == '%':
			toks = append(toks, tokAny)
		default:
			toks = append(toks, c)
		}
	}
	// Split at '%' (runs of '%' are one) into parts of literal runs and '_' runs.
	hasAny := false
	var cur likePart
	var litRunes []rune
	flushLit := func() {
		if len(litRunes) > 0 {
			cur.elems = append(cur.elems, likeElem{lit: []byte(string(litRunes)), runes: litRunes})
			cur.units += len(litRunes)
			litRunes = nil
		}
	}
	flushPart := func() {
		flushLit()
		if len(cur.elems) > 0 {
			m.parts = append(m.parts, cur)
		}
		cur = likePart{}
	}
	for k, t := range toks {
		switch t {
		case tokAny:
			hasAny = true
			if k == 0 {
				m.leading = true
			}
			if k == len(toks)-1 {
				m.trailing = true
			}
			flushPart()
		case tokOne:
			flushLit()
			if n := len(cur.elems); n > 0 && cur.elems[n-1].lit == nil {
				cur.elems[n-1].skip++
			} else {
				cur.elems = append(cur.elems, likeElem{skip: 1})
			}
			cur.units++
		default:
			if t == utf8.RuneError {
				m.repl = true
			}
			litRunes = append(litRunes, t)
		}
	}
	flushPart()
	if !hasAny && len(m.parts) == 0 {
		m.parts = []likePart{{}} // the empty pattern: matches only ""
	}
	// Fast kinds (bytewise, so not in replacement mode).
	pureLit := len(m.parts) == 1 && len(m.parts[0].elems) == 1 && m.parts[0].elems[0].lit != nil
	switch {
	case m.repl:
	case hasAny && len(m.parts) == 0:
		m.kind = likeAny
	case !hasAny && (len(m.parts[0].elems) == 0 || pureLit):
		m.kind = likeEquals
		if pureLit {
			m.lit = m.parts[0].elems[0].lit
		}
	case pureLit && !m.leading && m.trailing:
		m.kind, m.lit = likePrefix, m.parts[0].elems[0].lit
	case pureLit && m.leading && !m.trailing:
		m.kind, m.lit = likeSuffix, m.parts[0].elems[0].lit
	case pureLit && m.leading && m.trailing:
		m.kind, m.lit = likeContains, m.parts[0].elems[0].lit
	}
	return m, text, nil
}

// javaRune decodes the code point at s[i] as the JDK's UTF-8 decoder (String(byte[], UTF_8),
// behind UTF8String.toString) does: a malformed sequence becomes one U+FFFD, its length being
// the JDK's (the maximal valid prefix, except that an encoded surrogate ED A0..BF xx is one
// malformed sequence of 3 bytes, and a truncated sequence at the end of the input takes the rest).
// It returns the code point and the number of bytes it spans.
func javaRune(s []byte, i int) (rune, int) {
	b1 := s[i]
	if b1 < 0x80 {
		return rune(b1), 1
	}
	const repl = utf8.RuneError
	n := len(s) - i
	cont := func(b byte) bool { return b&0xC0 == 0x80 }
	switch {
	case b1 >= 0xC2 && b1 <= 0xDF:
		if n >= 2 && cont(s[i+1]) {
			return rune(b1&0x1F)<<6 | rune(s[i+1]&0x3F), 2
		}
		return repl, 1
	case b1 >= 0xE0 && b1 <= 0xEF:
		if n >= 3 {
			b2, b3 := s[i+1], s[i+2]
			if (b1 == 0xE0 && b2&0xE0 == 0x80) || !cont(b2) {
				return repl, 1
			}
			if !cont(b3) {
				return repl, 2
			}
			c := rune(b1&0x0F)<<12 | rune(b2&0x3F)<<6 | rune(b3&0x3F)
			if c >= 0xD800 && c <= 0xDFFF {
				return repl, 3
			}
			return c, 3
		}
		if n == 2 && !((b1 == 0xE0 && s[i+1]&0xE0 == 0x80) || !cont(s[i+1])) {
			return repl, 2 // truncated at the end: the decoder stops
		}
		return repl, 1
	case b1 >= 0xF0 && b1 <= 0xF7:
		if n >= 4 {
			b2, b3, b4 := s[i+1], s[i+2], s[i+3]
			uc := rune(b1&0x07)<<18 | rune(b2&0x3F)<<12 | rune(b3&0x3F)<<6 | rune(b4&0x3F)
			if cont(b2) && cont(b3) && cont(b4) && uc >= 0x10000 && uc <= 0x10FFFF {
				return uc, 4
			}
			if b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && b2&0xF0 != 0x80) || !cont(b2) {
				return repl, 1
			}
			if !cont(b3) {
				return repl, 2
			}
			return repl, 3
		}
		if b1 > 0xF4 || n == 1 {
			return repl, 1
		}
		b2 := s[i+1]
		if (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && b2&0xF0 != 0x80) || !cont(b2) {
			return repl, 1
		}
		if n == 3 && cont(s[i+2]) {
			return repl, 3 // truncated at the end: the decoder stops
		}
		return repl, 2
	}
	return repl, 1
}

// unitWidth is the byte length of the code point (as Java decodes it) at s[i].
func unitWidth(s []byte, i int) int {
	if s[i] < 0x80 {
		return 1
	}
	_, w := javaRune(s, i)
	return w
}

// matchAt matches part at byte p of s (a code point boundary); it returns the end.
func (m *likeMatcher) matchAt(s []byte, p int, part *likePart) (int, bool) {
	for k := range part.elems {
		el := &part.elems[k]
		if el.lit == nil {
			for j := 0; j < el.skip; j++ {
				if p >= len(s) {
					return 0, false
				}
				p += unitWidth(s, p)
			}
			continue
		}
		if !m.repl {
			if !bytes.HasPrefix(s[p:], el.lit) {
				return 0, false
			}
			p += len(el.lit)
			continue
		}
		for _, r := range el.runes {
			if p >= len(s) {
				return 0, false
			}
			c, w := javaRune(s, p)
			if c != r {
				return 0, false
			}
			p += w
		}
	}
	return p, true
}

// find returns the end of the leftmost match of part at or after byte p.
func (m *likeMatcher) find(s []byte, p int, part *likePart) (int, bool) {
	first := &part.elems[0]
	if !m.repl && first.lit != nil {
		for p <= len(s) {
			idx := bytes.Index(s[p:], first.lit)
			if idx < 0 {
				return 0, false
			}
			q := p + idx
			if end, ok := m.matchAt(s, q, part); ok {
				return end, true
			}
			p = q + unitWidth(s, q)
		}
		return 0, false
	}
	for p < len(s) {
		if end, ok := m.matchAt(s, p, part); ok {
			return end, true
		}
		p += unitWidth(s, p)
	}
	return 0, false
}

// match reports whether s matches the whole pattern.
func (m *likeMatcher) match(s []byte) bool {
	switch m.kind {
	case likeAny:
		return true
	case likeEquals:
		return bytes.Equal(s, m.lit)
	case likePrefix:
		return bytes.HasPrefix(s, m.lit)
	case likeSuffix:
		return bytes.HasSuffix(s, m.lit)
	case likeContains:
		return bytes.Contains(s, m.lit)
	}
	parts := m.parts
	p := 0
	if !m.leading {
		end, ok := m.matchAt(s, 0, &parts[0])
		if !ok {
			return false
		}
		if len(parts) == 1 && !m.trailing {
			return end == len(s)
		}
		p, parts = end, parts[1:]
	}
	var last *likePart
	if !m.trailing && len(parts) > 0 {
		last, parts = &parts[len(parts)-1], parts[:len(parts)-1]
	}
	for k := range parts {
		end, ok := m.find(s, p, &parts[k])
		if !ok {
			return false
		}
		p = end
	}
	if last == nil {
		return true
	}
	// The last part takes exactly the last last.units code points.
	units := 0
	for i := p; i < len(s); i += unitWidth(s, i) {
		units++
	}
	if units < last.units {
		return false
	}
	for j := 0; j < units-last.units; j++ {
		p += unitWidth(s, p)
	}
	end, ok := m.matchAt(s, p, last)
	return ok && end == len(s)
}

func (e *like) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *like) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, err := evalOperandActive(ctx, b, e.left, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	dt := arrow.FixedWidthTypes.Boolean
	if n == 0 || e.isNull || lo.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	var vbuf *memory.Buffer
	nulls := 0
	if !lo.scalar {
		vbuf, nulls = andValidity(ctx.Alloc, n, lo.arr)
	}
	obuf, out := newBitmap(ctx.Alloc, n)
	offs, data, lm := operandBytes(lo)
	m := &e.m
	switch m.kind {
	case likeAny:
		bitutil.SetBitsTo(out, 0, int64(n), true)
	case likeEquals:
		for i := 0; i < n; i++ {
			j := i & lm
			out[i>>3] |= b2u(bytes.Equal(data[offs[j]:offs[j+1]], m.lit)) << (i & 7)
		}
	case likePrefix:
		for i := 0; i < n; i++ {
			j := i & lm
			out[i>>3] |= b2u(bytes.HasPrefix(data[offs[j]:offs[j+1]], m.lit)) << (i & 7)
		}
	case likeSuffix:
		for i := 0; i < n; i++ {
			j := i & lm
			out[i>>3] |= b2u(bytes.HasSuffix(data[offs[j]:offs[j+1]], m.lit)) << (i & 7)
		}
	case likeContains:
		for i := 0; i < n; i++ {
			j := i & lm
			out[i>>3] |= b2u(bytes.Contains(data[offs[j]:offs[j+1]], m.lit)) << (i & 7)
		}
	default:
		for i := 0; i < n; i++ {
			j := i & lm
			out[i>>3] |= b2u(m.match(data[offs[j]:offs[j+1]])) << (i & 7)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
