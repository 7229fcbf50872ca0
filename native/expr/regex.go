package expr

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The regular expression functions of regexpExpressions.scala over UTF8_BINARY strings, with a
// literal pattern that regexsafe.go proves to mean the same in Java and Go:
//   - RLike (rlike, regexp, regexp_like): Matcher.find.
//   - RegExpExtract: group idx (a literal) of the first match, "" when none or the group did not
//     take part; an idx outside [0, groups] is refused (Spark raises its error on a match).
//   - RegExpInStr: 1 + the UTF-16 index (Java's String index) of the first match, 0 when none.
//   - RegExpReplace with position 1: every match replaced, Java's replacement syntax ($n with
//     Java's greedy group-number parsing, \x for x) expanded here; a replacement Java rejects is
//     refused, and so is a pattern that can match the empty string (Java's find loop and Go's
//     differ on empty matches next to a previous match and inside surrogate pairs).
// Each row is matched as Spark matches UTF8String.toString: a row that is not valid UTF-8 is
// decoded first (every malformed sequence one U+FFFD, as the JDK decodes it), and the text that
// replace and extract return comes from that decoded row, as Spark re-encodes its Java string.

func init() {
	Register("RLike", "str RLIKE regexp (rlike, regexp, regexp_like) with a literal Java regular expression in the safe subset of regexsafe.go (others refused, naming the construct); invalid UTF-8 matched as U+FFFD like Spark", translateRLike)
	Register("RegExpExtract", "regexp_extract(str, regexp, idx) with a literal regexp in the safe subset (regexsafe.go) and a literal idx within the pattern's groups: the group of the first match, '' if none", translateRegExpExtract)
	Register("RegExpInStr", "regexp_instr(str, regexp) with a literal regexp in the safe subset (regexsafe.go): 1 + the UTF-16 index of the first match, 0 if none", translateRegExpInStr)
	Register("RegExpReplace", "regexp_replace(str, regexp, rep[, 1]) with a literal regexp in the safe subset (regexsafe.go) that cannot match '', a literal replacement (Java's $n and \\ escapes) and position 1", translateRegExpReplace)
}

// regexProgram is a checked, compiled pattern.
type regexProgram struct {
	info *regexInfo
	re   *regexp.Regexp
	text string // the Java pattern, for String()
}

// regexStringArg returns a literal string child's value decoded as Java decodes it, or isNull.
func regexStringArg(pe *plan.Expr, field string, conf *plan.Conf, what string) (s string, isNull bool, err error) {
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return "", false, err
	}
	if !binaryCollation(c.Type()) {
		return "", false, unsupported("%s: %s of type %s is not supported natively (UTF8_BINARY strings only)", plan.ShortClass(pe.Class), what, c.Type())
	}
	lit, ok := c.(*Literal)
	if !ok {
		return "", false, unsupported("%s with a non-literal %s (%s) is not supported natively", plan.ShortClass(pe.Class), what, c)
	}
	if lit.IsNull() {
		return "", true, nil
	}
	offs, data := binaryParts(lit.constArray())
	return string(javaDecode(nil, data[offs[0]:offs[1]])), false, nil
}

// regexIntArg returns a literal int child's value, or isNull.
func regexIntArg(pe *plan.Expr, field string, conf *plan.Conf, what string) (v int32, isNull bool, err error) {
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return 0, false, err
	}
	lit, ok := c.(*Literal)
	if !ok || c.Type().Kind != sparktype.Int {
		return 0, false, unsupported("%s with a non-literal or non-int %s (%s) is not supported natively", plan.ShortClass(pe.Class), what, c)
	}
	if lit.IsNull() {
		return 0, true, nil
	}
	return values[int32](lit.constArray())[0], false, nil
}

func compileRegex(pattern string) (*regexProgram, error) {
	info, err := checkJavaRegex(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(info.goSyntax)
	if err != nil {
		return nil, regexRefuse(pattern, "%v", err)
	}
	return &regexProgram{info: info, re: re, text: pattern}, nil
}

// javaDecode appends s to dst as Java's UTF-8 decoding and re-encoding leaves it: valid UTF-8
// unchanged, each malformed sequence U+FFFD.
func javaDecode(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			dst = append(dst, s[i])
			i++
			continue
		}
		r, w := javaRune(s, i)
		if r == utf8.RuneError {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+w]...)
		}
		i += w
	}
	return dst
}

// finalTerminator is the byte length of the line terminator s ends with (\r\n as one), or 0.
func finalTerminator(s []byte) int {
	n := len(s)
	switch {
	case n == 0:
		return 0
	case s[n-1] == '\n':
		if n >= 2 && s[n-2] == '\r' {
			return 2
		}
		return 1
	case s[n-1] == '\r':
		return 1
	case n >= 2 && s[n-2] == 0xC2 && s[n-1] == 0x85:
		return 2
	case n >= 3 && s[n-3] == 0xE2 && s[n-2] == 0x80 && (s[n-1] == 0xA8 || s[n-1] == 0xA9):
		return 3
	}
	return 0
}

// find returns the submatch indices of the first match in s (valid UTF-8), as Java finds it.
func (p *regexProgram) find(s []byte) []int {
	if p.info.finalDollar {
		// Java's '$' matches at the end or before a final line terminator; nothing in the
		// pattern can match a terminator, so a match ends before it, or is empty at the end.
		if t := finalTerminator(s); t > 0 {
			if m := p.re.FindSubmatchIndex(s[:len(s)-t]); m != nil {
				return m
			}
		}
	}
	return p.re.FindSubmatchIndex(s)
}

// matches reports whether the pattern is found in s (valid UTF-8).
func (p *regexProgram) matches(s []byte) bool {
	if p.info.finalDollar {
		if t := finalTerminator(s); t > 0 && p.re.Match(s[:len(s)-t]) {
			return true
		}
	}
	return p.re.Match(s)
}

// regexFn is one of the functions above: a string subject and literal other arguments.
type regexFn struct {
	kind    string // "rlike", "regexp_extract", "regexp_instr", "regexp_replace"
	subject Expr
	prog    *regexProgram
	isNull  bool // a literal argument is null: every row is null
	typ     sparktype.Type
	idx     int           // regexp_extract
	rep     []replacePart // regexp_replace
	repText string        // regexp_replace, for String()
}

// replacePart is a literal piece of an expanded replacement, or (group >= 0) a group reference.
type replacePart struct {
	lit   []byte
	group int
}

func (e *regexFn) Type() sparktype.Type { return e.typ }
func (e *regexFn) mayFail() bool        { return mayFail(e.subject) }
func (e *regexFn) String() string {
	pat := "null"
	if e.prog != nil {
		pat = fmt.Sprintf("%q", e.prog.text)
	}
	switch e.kind {
	case "regexp_extract":
		return fmt.Sprintf("regexp_extract(%s, %s, %d)", e.subject, pat, e.idx)
	case "regexp_replace":
		return fmt.Sprintf("regexp_replace(%s, %s, %q)", e.subject, pat, e.repText)
	}
	return fmt.Sprintf("%s(%s, %s)", e.kind, e.subject, pat)
}

// translateRegexCommon reads the subject and the literal pattern.
func translateRegexCommon(pe *plan.Expr, conf *plan.Conf, kind, subjectField, patternField string, typ sparktype.Type) (*regexFn, error) {
	subj, err := stringChild(pe, subjectField, conf)
	if err != nil {
		return nil, err
	}
	pat, isNull, err := regexStringArg(pe, patternField, conf, "pattern")
	if err != nil {
		return nil, err
	}
	e := &regexFn{kind: kind, subject: subj, typ: typ, isNull: isNull}
	if !isNull {
		if e.prog, err = compileRegex(pat); err != nil {
			return nil, unsupported("%s: %v", plan.ShortClass(pe.Class), err)
		}
	}
	return e, nil
}

func translateRLike(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	return translateRegexCommon(pe, conf, "rlike", "left", "right", sparktype.BooleanType)
}

func translateRegExpExtract(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	e, err := translateRegexCommon(pe, conf, "regexp_extract", "subject", "regexp", t)
	if err != nil {
		return nil, err
	}
	idx, idxNull, err := regexIntArg(pe, "idx", conf, "group index")
	if err != nil {
		return nil, err
	}
	e.isNull = e.isNull || idxNull
	e.idx = int(idx)
	if !e.isNull && (idx < 0 || int(idx) > e.prog.info.groups) {
		return nil, unsupported("regexp_extract: group index %d is outside the %d groups of %q (Spark raises an error on a match)", idx, e.prog.info.groups, e.prog.text)
	}
	return e, nil
}

func translateRegExpInStr(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	e, err := translateRegexCommon(pe, conf, "regexp_instr", "subject", "regexp", sparktype.IntType)
	if err != nil {
		return nil, err
	}
	_, idxNull, err := regexIntArg(pe, "idx", conf, "index")
	if err != nil {
		return nil, err
	}
	e.isNull = e.isNull || idxNull
	return e, nil
}

func translateRegExpReplace(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	e, err := translateRegexCommon(pe, conf, "regexp_replace", "subject", "regexp", t)
	if err != nil {
		return nil, err
	}
	rep, repNull, err := regexStringArg(pe, "rep", conf, "replacement")
	if err != nil {
		return nil, err
	}
	pos, posNull, err := regexIntArg(pe, "pos", conf, "position")
	if err != nil {
		return nil, err
	}
	e.isNull = e.isNull || repNull || posNull
	if e.isNull {
		return e, nil
	}
	if pos != 1 {
		return nil, unsupported("regexp_replace with position %d is not supported natively (only 1)", pos)
	}
	if e.prog.info.nullable {
		return nil, unsupported("RegExpReplace: %v", regexRefuse(e.prog.text, "a pattern that can match the empty string"))
	}
	e.repText = rep
	if e.rep, err = parseJavaReplacement(rep, e.prog.info.groups); err != nil {
		return nil, err
	}
	return e, nil
}

// parseJavaReplacement splits a replacement as Matcher.appendReplacement reads it: '\' takes
// the next character literally; '$' then a digit refers to a group, further digits joining the
// number while it stays within the pattern's groups. What Java rejects is refused.
func parseJavaReplacement(rep string, groups int) ([]replacePart, error) {
	rs := []rune(rep)
	var parts []replacePart
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, replacePart{lit: lit, group: -1})
			lit = nil
		}
	}
	for i := 0; i < len(rs); {
		c := rs[i]
		switch c {
		case '\\':
			if i+1 >= len(rs) {
				return nil, unsupported("regexp_replace: replacement %q ends with '\\' (Java rejects it)", rep)
			}
			lit = utf8.AppendRune(lit, rs[i+1])
			i += 2
		case '$':
			if i+1 >= len(rs) || rs[i+1] < '0' || rs[i+1] > '9' {
				return nil, unsupported("regexp_replace: replacement %q has '$' without a group number (Java rejects it or needs named groups)", rep)
			}
			ref := int(rs[i+1] - '0')
			i += 2
			for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
				n := ref*10 + int(rs[i]-'0')
				if n > groups {
					break
				}
				ref = n
				i++
			}
			if ref > groups {
				return nil, unsupported("regexp_replace: replacement %q refers to group %d of a pattern with %d groups (Java raises an error)", rep, ref, groups)
			}
			flush()
			parts = append(parts, replacePart{group: ref})
		default:
			lit = utf8.AppendRune(lit, c)
			i++
		}
	}
	flush()
	return parts, nil
}

func (e *regexFn) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *regexFn) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, err := evalOperandActive(ctx, b, e.subject, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	dt := e.typ.Arrow()
	if n == 0 || e.isNull || so.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	var vbuf *memory.Buffer
	nulls := 0
	if !so.scalar {
		vbuf, nulls = andValidity(ctx.Alloc, n, so.arr)
	}
	offs, data, lm := operandBytes(so)
	var scratch []byte
	row := func(i int) []byte {
		j := i & lm
		s := data[offs[j]:offs[j+1]]
		if !utf8.Valid(s) {
			scratch = javaDecode(scratch[:0], s)
			return scratch
		}
		return s
	}
	p := e.prog
	switch e.kind {
	case "rlike":
		obuf, out := newBitmap(ctx.Alloc, n)
		for i := 0; i < n; i++ {
			if validRow(vbuf, i) && p.matches(row(i)) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	case "regexp_instr":
		obuf, out := newFixed[int32](ctx.Alloc, n)
		for i := 0; i < n; i++ {
			out[i] = 0
			if !validRow(vbuf, i) {
				continue
			}
			s := row(i)
			if m := p.find(s); m != nil {
				out[i] = int32(utf16Len(s[:m[0]])) + 1
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	// String results: at most the input (extract) or grown as needed (replace).
	capacity := int64(len(data))
	if so.scalar {
		capacity = int64(offs[1]-offs[0]) * int64(n)
	}
	out, err := newBytesOut(ctx.Alloc, n, capacity+int64(n))
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
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	put := func(b []byte) error {
		if err := out.ensure(len(b)); err != nil {
			return err
		}
		out.append(b)
		return nil
	}
	for i := 0; i < n; i++ {
		if !validRow(vbuf, i) {
			out.endRow(i)
			continue
		}
		s := row(i)
		if e.kind == "regexp_extract" {
			if m := p.find(s); m != nil && m[2*e.idx] >= 0 {
				if err := put(s[m[2*e.idx]:m[2*e.idx+1]]); err != nil {
					return fail(err)
				}
			}
			out.endRow(i)
			continue
		}
		if err := e.replaceRow(s, put); err != nil {
			return fail(err)
		}
		out.endRow(i)
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

// replaceRow writes s with every match replaced (the pattern never matches "").
func (e *regexFn) replaceRow(s []byte, put func([]byte) error) error {
	var ms [][]int
	if e.prog.info.finalDollar {
		if m := e.prog.find(s); m != nil {
			ms = [][]int{m}
		}
	} else {
		ms = e.prog.re.FindAllSubmatchIndex(s, -1)
	}
	prev := 0
	for _, m := range ms {
		if err := put(s[prev:m[0]]); err != nil {
			return err
		}
		for _, part := range e.rep {
			if part.group < 0 {
				if err := put(part.lit); err != nil {
					return err
				}
			} else if g := part.group; m[2*g] >= 0 {
				if err := put(s[m[2*g]:m[2*g+1]]); err != nil {
					return err
				}
			}
		}
		prev = m[1]
	}
	return put(s[prev:])
}

// utf16Len is the length in UTF-16 code units of valid UTF-8 s.
func utf16Len(s []byte) int {
	n := 0
	for _, c := range s {
		switch {
		case c < 0x80 || c >= 0xC0 && c < 0xF0:
			n++ // one unit per character up to U+FFFF (counted at its lead byte)
		case c >= 0xF0:
			n += 2
		}
	}
	return n
}
