package expr

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Spark compiles regular expressions with java.util.regex; Go has RE2. A pattern runs natively
// only when the checker below proves that it means the same in both, and it is then rewritten
// into Go syntax that spells out Java's meaning. Anything outside the subset is refused at
// translation time with the construct named, so the expression stays in Spark.
//
// The subset (without flags: Pattern.compile(p) as Spark calls it):
//   - literal characters, any code point (supplementary ones are one character in both engines,
//     as Java matches code points of the UTF-16 string);
//   - escapes \t \n \r \f \a \e, \xhh, \uhhhh, \x{h..h} (not surrogates), and a backslash
//     before any non-alphanumeric ASCII character (that character);
//   - '.' as Java's: any character but \n \r \u0085 \u2028 \u2029 (Go's excludes only \n);
//   - \d \D \w \W \s \S with Java's ASCII meanings (\s includes \x0B, unlike Go's \s);
//   - character classes [..] and [^..] of characters, escapes, ranges and \d\w\s\D\W\S; a '-'
//     first or last is literal; refused: nested classes, '&&' intersections, ']' first (Java
//     reads it differently from Go), a '-' next to a class escape;
//   - groups (..) and (?:..), alternation, quantifiers * + ? {n} {n,} {n,m} (at most 1000, Go's
//     limit) with an optional lazy '?';
//   - '^' and \A: start of input; \z: end of input;
//   - '$' only as the very last token of the pattern, outside groups and alternation, and only
//     when nothing in the pattern can match a line terminator: Java's '$' also matches before a
//     final line terminator (\n, \r\n, \r, \u0085, \u2028, \u2029), which then is emulated by
//     matching against the input without that terminator (see regexProgram.find).
// Refused (named in the reason): embedded flags (?i) etc. (case folding differs beyond ASCII),
// lookaround, atomic and named groups, possessive quantifiers, backreferences, \b \B (Java's
// word boundary is Unicode-aware, \w is not), \p{..} classes, \Q..\E, \G, \Z, \R, \X, \h, \v,
// octal and control escapes, '{' that does not start a valid repetition (Java rejects it), a
// dangling quantifier (Java rejects it).
//
// Input: Spark matches UTF8String.toString, so invalid UTF-8 becomes U+FFFD (one per malformed
// sequence, as the JDK decodes it) before matching, and any extracted or replaced text is
// re-encoded from that string. The kernels sanitize such rows (javaRune) before matching, which
// reproduces both the match and the output bytes. Leftmost-first matching: Go's regexp (not its
// POSIX mode) prefers alternatives and quantifier paths in the same order as Java's backtracking,
// so on this subset the first match and its groups are Java's.

// regexInfo is a checked pattern: its Go translation and the facts the kernels need.
type regexInfo struct {
	goSyntax string // the whole pattern, '$' (if any) as \z
	groups   int    // capturing groups
	// finalDollar: the pattern ends with Java's '$' (and nothing can match a line terminator).
	finalDollar bool
	// nullable: the pattern can match the empty string.
	nullable bool
}

type regexParser struct {
	src        []rune
	pos        int
	out        strings.Builder
	groups     int
	depth      int
	consumesLT bool // some atom can match a line terminator
}

func regexRefuse(pat string, format string, args ...any) error {
	return unsupported("regular expression %q: %s (Java and Go regular expressions differ or Java rejects it; it runs in Spark)", pat, fmt.Sprintf(format, args...))
}

// checkJavaRegex parses pattern (code points as Java decodes them) and returns its Go form.
func checkJavaRegex(pattern string) (*regexInfo, error) {
	p := &regexParser{src: []rune(pattern)}
	info := &regexInfo{}
	src := p.src
	if n := len(src); n > 0 && src[n-1] == '$' && !escapedAt(src, n-1) {
		info.finalDollar = true
		p.src = src[:n-1]
	}
	if err := p.alternation(); err != nil {
		return nil, regexRefuse(pattern, "%v", err)
	}
	if p.pos < len(p.src) {
		return nil, regexRefuse(pattern, "unbalanced ')' at %d", p.pos)
	}
	if info.finalDollar {
		if p.consumesLT {
			return nil, regexRefuse(pattern, "'$' with an element that can match a line terminator (Java's '$' also matches before a final line terminator)")
		}
		// The top level must be one alternative: '$' binds to the last alternative only.
		if topLevelAlternation(p.src) {
			return nil, regexRefuse(pattern, "'$' after a top-level '|'")
		}
		p.out.WriteString(`\z`)
	}
	info.goSyntax = p.out.String()
	info.groups = p.groups
	re, err := regexp.Compile(info.goSyntax)
	if err != nil {
		return nil, regexRefuse(pattern, "Go cannot compile its translation (%v)", err)
	}
	if re.NumSubexp() != info.groups {
		return nil, regexRefuse(pattern, "group count differs")
	}
	info.nullable = nullableSomewhere(info.goSyntax)
	return info, nil
}

// nullableSomewhere reports whether the pattern can match the empty string at some position:
// it can when its form with anchors made empty matches "" (any doubt counts as nullable).
func nullableSomewhere(goSyntax string) bool {
	t, err := syntax.Parse(goSyntax, syntax.Perl)
	if err != nil {
		return true
	}
	var strip func(*syntax.Regexp)
	strip = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
			r.Op = syntax.OpEmptyMatch
		}
		for _, s := range r.Sub {
			strip(s)
		}
	}
	strip(t)
	re, err := regexp.Compile(t.String())
	return err != nil || re.MatchString("")
}

// escapedAt reports whether src[i] is preceded by an odd number of backslashes.
func escapedAt(src []rune, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// topLevelAlternation reports whether src (already accepted) has a '|' outside groups and classes.
func topLevelAlternation(src []rune) bool {
	depth, inClass := 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(src) && src[i+1] == '^' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			return true
		}
	}
	return false
}

func (p *regexParser) peek() (rune, bool) {
	if p.pos < len(p.src) {
		return p.src[p.pos], true
	}
	return 0, false
}

func (p *regexParser) alternation() error {
	for {
		if err := p.sequence(); err != nil {
			return err
		}
		c, ok := p.peek()
		if !ok || c != '|' {
			return nil
		}
		p.pos++
		p.out.WriteByte('|')
	}
}

func (p *regexParser) sequence() error {
	for {
		c, ok := p.peek()
		if !ok || c == '|' || c == ')' {
			if c == ')' && p.depth == 0 {
				return fmt.Errorf("unbalanced ')'")
			}
			return nil
		}
		quantifiable, err := p.atom()
		if err != nil {
			return err
		}
		if err := p.quantifier(quantifiable); err != nil {
			return err
		}
	}
}

const lineTerminators = "\n\r\u0085\u2028\u2029"

func isLineTerminator(r rune) bool { return strings.ContainsRune(lineTerminators, r) }

// atom translates one atom; it reports whether a quantifier may follow.
func (p *regexParser) atom() (bool, error) {
	c := p.src[p.pos]
	switch c {
	case '(':
		p.pos++
		if n, ok := p.peek(); ok && n == '?' {
			if p.pos+1 < len(p.src) && p.src[p.pos+1] == ':' {
				p.pos += 2
				p.out.WriteString("(?:")
			} else {
				return false, fmt.Errorf("group construct '(?' other than '(?:' (flags, lookaround, atomic or named group)")
			}
		} else {
			p.groups++
			p.out.WriteByte('(')
		}
		p.depth++
		if err := p.alternation(); err != nil {
			return false, err
		}
		if n, ok := p.peek(); !ok || n != ')' {
			return false, fmt.Errorf("unclosed group")
		}
		p.pos++
		p.depth--
		p.out.WriteByte(')')
		return true, nil
	case '[':
		return true, p.class()
	case '.':
		p.pos++
		p.out.WriteString(`[^\n\r\x{85}\x{2028}\x{2029}]`)
		return true, nil
	case '^':
		p.pos++
		p.out.WriteString(`\A`)
		return false, nil
	case '$':
		return false, fmt.Errorf("'$' other than as the last character of the pattern")
	case '*', '+', '?':
		return false, fmt.Errorf("dangling quantifier %q", c)
	case '{':
		return false, fmt.Errorf("'{' outside a repetition")
	case '\\':
		return p.escape()
	}
	p.pos++
	p.literal(c)
	return true, nil
}

func (p *regexParser) literal(c rune) {
	if isLineTerminator(c) {
		p.consumesLT = true
	}
	p.out.WriteString(goLiteral(c))
}

// goLiteral spells one code point for Go's parser (inside or outside a class).
func goLiteral(c rune) string {
	if c < 0x80 && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf(`\x{%x}`, c)
		}
		return `\` + string(c)
	}
	if c >= 0x80 && c < 0xA0 {
		return fmt.Sprintf(`\x{%x}`, c)
	}
	return string(c)
}

// perl class escapes with Java's (ASCII) meanings: Go's POSIX [:space:] includes \v like Java's \s.
var perlClasses = map[rune][2]string{
	'd': {`[0-9]`, `0-9`},
	'w': {`[0-9A-Za-z_]`, `0-9A-Za-z_`},
	's': {`[[:space:]]`, `[:space:]`},
	'D': {`[^0-9]`, `[:^digit:]`},
	'W': {`[^0-9A-Za-z_]`, `[:^word:]`},
	'S': {`[^[:space:]]`, `[:^space:]`},
}

// escape translates a backslash escape outside a class.
func (p *regexParser) escape() (bool, error) {
	if p.pos+1 >= len(p.src) {
		return false, fmt.Errorf("trailing backslash")
	}
	e := p.src[p.pos+1]
	if cl, ok := perlClasses[e]; ok {
		p.pos += 2
		if e != 'd' && e != 'w' {
			p.consumesLT = true // \S holds \u0085, \u2028 and \u2029
		}
		p.out.WriteString(cl[0])
		return true, nil
	}
	switch e {
	case 'A':
		p.pos += 2
		p.out.WriteString(`\A`)
		return false, nil
	case 'z':
		p.pos += 2
		p.out.WriteString(`\z`)
		return false, nil
	}
	r, err := p.charEscape()
	if err != nil {
		return false, err
	}
	p.literal(r)
	return true, nil
}

// charEscape reads an escape standing for one character at p.pos (a backslash).
func (p *regexParser) charEscape() (rune, error) {
	e := p.src[p.pos+1]
	simple := map[rune]rune{'t': '\t', 'n': '\n', 'r': '\r', 'f': '\f', 'a': 7, 'e': 0x1B}
	if r, ok := simple[e]; ok {
		p.pos += 2
		return r, nil
	}
	hex := func(from, n int) (rune, error) {
		if from+n > len(p.src) {
			return 0, fmt.Errorf("truncated escape")
		}
		v, err := strconv.ParseUint(string(p.src[from:from+n]), 16, 32)
		if err != nil {
			return 0, fmt.Errorf("bad hexadecimal escape")
		}
		return rune(v), nil
	}
	var r rune
	var err error
	switch {
	case e == 'x' && p.pos+2 < len(p.src) && p.src[p.pos+2] == '{':
		end := p.pos + 3
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end >= len(p.src) || end == p.pos+3 || end-p.pos-3 > 8 {
			return 0, fmt.Errorf("bad \\x{...} escape")
		}
		r, err = hex(p.pos+3, end-p.pos-3)
		p.pos = end + 1
	case e == 'x':
		r, err = hex(p.pos+2, 2)
		p.pos += 4
	case e == 'u':
		r, err = hex(p.pos+2, 4)
		p.pos += 6
	case e < 0x80 && !(e >= '0' && e <= '9' || e >= 'a' && e <= 'z' || e >= 'A' && e <= 'Z'):
		p.pos += 2
		return e, nil
	default:
		return 0, fmt.Errorf("escape \\%c", e)
	}
	if err != nil {
		return 0, err
	}
	if r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, fmt.Errorf("escape of a surrogate or out-of-range code point")
	}
	return r, nil
}

// class translates [..] or [^..].
func (p *regexParser) class() error {
	p.pos++ // '['
	var b strings.Builder
	b.WriteByte('[')
	negated := false
	if c, ok := p.peek(); ok && c == '^' {
		negated = true
		p.pos++
		b.WriteByte('^')
	}
	if c, ok := p.peek(); ok && c == ']' {
		return fmt.Errorf("']' first in a character class")
	}
	type item struct {
		r     rune
		class bool
	}
	var items []item
	sawLT := false
	for {
		c, ok := p.peek()
		if !ok {
			return fmt.Errorf("unclosed character class")
		}
		if c == ']' {
			p.pos++
			break
		}
		switch {
		case c == '[':
			return fmt.Errorf("nested character class")
		case c == '&' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '&':
			return fmt.Errorf("character class intersection '&&'")
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return fmt.Errorf("trailing backslash")
			}
			e := p.src[p.pos+1]
			if cl, ok := perlClasses[e]; ok {
				p.pos += 2
				if e != 'd' && e != 'w' {
					sawLT = true
				}
				b.WriteString(cl[1])
				items = append(items, item{class: true})
				continue
			}
			r, err := p.charEscape()
			if err != nil {
				return err
			}
			items = append(items, item{r: r})
		default:
			if c == '-' && len(items) > 0 && !(p.pos+1 < len(p.src) && p.src[p.pos+1] == ']') {
				return fmt.Errorf("'-' inside a character class other than first, last or in a range")
			}
			p.pos++
			items = append(items, item{r: c})
		}
		last := items[len(items)-1]
		if last.class {
			continue
		}
		// A range a-b: the '-' is the next raw character and the end is a character.
		if n, ok := p.peek(); ok && n == '-' && !(last.r == '-' && len(items) == 1) {
			if p.pos+1 < len(p.src) && p.src[p.pos+1] == ']' {
				// "a-]": '-' literal, written with the item below.
			} else {
				p.pos++ // '-'
				if p.pos >= len(p.src) {
					return fmt.Errorf("unclosed character class")
				}
				var hi rune
				if p.src[p.pos] == '\\' {
					if p.pos+1 < len(p.src) {
						if _, isClass := perlClasses[p.src[p.pos+1]]; isClass {
							return fmt.Errorf("'-' next to a class escape")
						}
					}
					r, err := p.charEscape()
					if err != nil {
						return err
					}
					hi = r
				} else if p.src[p.pos] == '[' {
					return fmt.Errorf("nested character class")
				} else {
					hi = p.src[p.pos]
					p.pos++
				}
				if hi < last.r {
					return fmt.Errorf("illegal character range")
				}
				if last.r <= 0x2029 && hi >= '\n' {
					for _, t := range lineTerminators {
						if t >= last.r && t <= hi {
							sawLT = true
						}
					}
				}
				b.WriteString(goLiteral(last.r) + "-" + goLiteral(hi))
				items = append(items, item{class: true}) // a range: no '-' may follow as a range
				if n, ok := p.peek(); ok && n == '-' && !(p.pos+1 < len(p.src) && p.src[p.pos+1] == ']') {
					return fmt.Errorf("'-' after a range")
				}
				continue
			}
		}
		if isLineTerminator(last.r) {
			sawLT = true
		}
		b.WriteString(goLiteral(last.r))
	}
	if len(items) == 0 {
		return fmt.Errorf("empty character class")
	}
	b.WriteByte(']')
	if negated || sawLT {
		// A negated class matches line terminators unless it lists them all; be conservative.
		p.consumesLT = true
	}
	p.out.WriteString(b.String())
	return nil
}

// quantifier translates an optional quantifier after an atom.
func (p *regexParser) quantifier(quantifiable bool) error {
	c, ok := p.peek()
	if !ok {
		return nil
	}
	var q string
	switch c {
	case '*', '+', '?':
		p.pos++
		q = string(c)
	case '{':
		end := p.pos + 1
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end >= len(p.src) {
			return fmt.Errorf("'{' outside a repetition")
		}
		body := string(p.src[p.pos+1 : end])
		lo, hi, comma := body, "", false
		if i := strings.IndexByte(body, ','); i >= 0 {
			lo, hi, comma = body[:i], body[i+1:], true
		}
		n, err := strconv.Atoi(lo)
		if err != nil || n < 0 || n > 1000 || strings.ContainsAny(lo, "+-") {
			return fmt.Errorf("repetition {%s} (only {n}, {n,}, {n,m} up to 1000)", body)
		}
		if hi != "" {
			m, err := strconv.Atoi(hi)
			if err != nil || m < n || m > 1000 || strings.ContainsAny(hi, "+-") {
				return fmt.Errorf("repetition {%s} (only {n}, {n,}, {n,m} up to 1000)", body)
			}
		}
		_ = comma
		p.pos = end + 1
		q = "{" + body + "}"
	default:
		return nil
	}
	if !quantifiable {
		return fmt.Errorf("quantifier after an anchor")
	}
	if n, ok := p.peek(); ok {
		switch n {
		case '?':
			p.pos++
			q += "?"
		case '+':
			return fmt.Errorf("possessive quantifier")
		}
	}
	if n, ok := p.peek(); ok && (n == '*' || n == '+' || n == '?' || n == '{') {
		return fmt.Errorf("quantifier after a quantifier")
	}
	p.out.WriteString(q)
	return nil
}
