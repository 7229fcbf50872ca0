package expr

import (
	"fmt"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// to_number / try_to_number (ToNumber, TryToNumber) with a literal format, as Spark 4.1's
// ToNumberParser reads it: the format (already validated by Spark's analysis) becomes tokens —
// digit runs ('0' exactly as many digits before the decimal point, '9' at most as many), '.'/'D',
// ','/'G', '$', 'S', 'MI', 'PR' — with the runs and separators of each side of the decimal point
// grouped; the result is decimal(all digits, digits after the point). Each input is matched
// against the tokens over its Java characters (UTF8String.toString: invalid UTF-8 is U+FFFD, a
// supplementary character two surrogates that match nothing): digit groups take digits
// (Character.isDigit, so other scripts' decimal digits count with their value, as
// java.math.BigDecimal reads them), commas and Character.isWhitespace characters, and the digits
// per comma-separated group are checked against the format from the right; signs, '$', the
// brackets and the point are optional or required as the parser has them. A mismatch (or no digit
// at all) raises INVALID_FORMAT.MISMATCH_INPUT for to_number and is null for try_to_number.

func init() {
	Register("ToNumber", "to_number(str, fmt) with a literal format (0 9 . D , G $ S MI PR): decimal(precision, scale) from the format; a mismatch raises INVALID_FORMAT.MISMATCH_INPUT", translateToNumber)
	Register("TryToNumber", "try_to_number(str, fmt) with a literal format: as to_number, null on a mismatch", translateToNumber)
}

type toNumKind uint8

const (
	toNumGroup toNumKind = iota
	toNumPoint
	toNumDollar
	toNumSign  // S
	toNumMinus // MI
	toNumOpen  // PR's '<'
	toNumClose // PR's '>'
)

// toNumToken is a format token; a group lists its digit runs from the right: exact (for '0'
// before the point) or at most n digits.
type toNumToken struct {
	kind  toNumKind
	runs  []int
	exact []bool
}

type toNumber struct {
	child       Expr
	format      string
	isNull      bool
	errorOnFail bool
	tokens      []toNumToken
	precision   int
	scale       int
	typ         sparktype.Type
}

// toNumTokens tokenizes a (valid) format as ToNumberParser.formatTokens does.
func toNumTokens(format []rune) ([]toNumToken, int, int, error) {
	type raw struct {
		kind  byte // 'd' digits, ',', '.', '$', 'S', 'M', '<', '>'
		n     int
		exact bool
	}
	var toks []raw
	reachedPoint := false
	for i := 0; i < len(format); {
		switch c := format[i]; {
		case c == '0' || c == '9':
			start := i
			for i++; i < len(format) && (format[i] == '0' || format[i] == '9'); i++ {
			}
			toks = append(toks, raw{kind: 'd', n: i - start, exact: c == '0' && !reachedPoint})
		case c == '.' || c == 'D':
			toks = append(toks, raw{kind: '.'})
			reachedPoint = true
			i++
		case c == ',' || c == 'G':
			toks = append(toks, raw{kind: ','})
			i++
		case c == '$':
			toks = append(toks, raw{kind: '$'})
			i++
		case c == 'S':
			toks = append(toks, raw{kind: 'S'})
			i++
		case c == 'M' && i+1 < len(format) && format[i+1] == 'I':
			toks = append(toks, raw{kind: 'M'})
			i += 2
		case c == 'P' && i+1 < len(format) && format[i+1] == 'R':
			toks = append([]raw{{kind: '<'}}, toks...)
			toks = append(toks, raw{kind: '>'})
			i += 2
		default:
			return nil, 0, 0, unsupported("to_number: format %q has the unrecognized character %q", string(format), c)
		}
	}
	var out []toNumToken
	var cur *toNumToken
	precision, scale := 0, 0
	afterPoint := false
	for _, t := range toks {
		switch t.kind {
		case 'd', ',':
			if cur == nil {
				out = append(out, toNumToken{kind: toNumGroup})
				cur = &out[len(out)-1]
			}
			if t.kind == 'd' {
				// Runs are kept from the right, as the parser reverses them.
				cur.runs = append([]int{t.n}, cur.runs...)
				cur.exact = append([]bool{t.exact}, cur.exact...)
				precision += t.n
				if afterPoint {
					scale += t.n
				}
			}
			continue
		}
		cur = nil
		k := map[byte]toNumKind{'.': toNumPoint, '$': toNumDollar, 'S': toNumSign, 'M': toNumMinus, '<': toNumOpen, '>': toNumClose}[t.kind]
		if k == toNumPoint {
			afterPoint = true
		}
		out = append(out, toNumToken{kind: k})
	}
	return out, precision, scale, nil
}

func translateToNumber(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	short := plan.ShortClass(pe.Class)
	child, err := stringChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	format, isNull, err := regexStringArg(pe, "right", conf, "format")
	if err != nil {
		return nil, err
	}
	e := &toNumber{child: child, format: format, isNull: isNull, errorOnFail: short == "ToNumber", typ: t}
	if isNull {
		return e, nil
	}
	if t.Kind != sparktype.Decimal {
		return nil, unsupported("%s returning %s is not supported natively", short, t)
	}
	if e.tokens, e.precision, e.scale, err = toNumTokens([]rune(format)); err != nil {
		return nil, err
	}
	for _, tok := range e.tokens {
		if tok.kind == toNumGroup {
			break
		}
		if tok.kind == toNumPoint {
			// Digits before a point that the input lacks then count as integral digits, which
			// the decimal type may not hold: Spark raises an overflow (even in try_to_number).
			return nil, unsupported("%s: format %q without digits before the decimal point is not supported natively", short, format)
		}
	}
	if e.precision < 1 || e.precision > 38 || int(t.Precision) != e.precision || int(t.Scale) != e.scale {
		return nil, unsupported("%s: format %q gives decimal(%d,%d), the plan says %s", short, format, e.precision, e.scale, t)
	}
	return e, nil
}

func (e *toNumber) Type() sparktype.Type { return e.typ }
func (e *toNumber) mayFail() bool        { return e.errorOnFail || mayFail(e.child) }
func (e *toNumber) String() string {
	name := "try_to_number"
	if e.errorOnFail {
		name = "to_number"
	}
	return fmt.Sprintf("%s(%s, %q)", name, e.child, e.format)
}

func (e *toNumber) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// evalMasked parses the rows named by active (nil: all); the others are zero and raise no error.
func (e *toNumber) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || e.isNull || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, _ := copyValidity(ctx.Alloc, in, n)
	valid := vbuf.Bytes()
	obuf, out := newFixed[decimal128.Num](ctx.Alloc, n)
	offs, data := binaryParts(in)
	p := toNumParser{tokens: e.tokens, scale: e.scale}
	for i := 0; i < n; i++ {
		out[i] = decimal128.Num{}
		if valid[i>>3]&(1<<(i&7)) == 0 || !isActive(active, i) {
			continue
		}
		s := data[offs[i]:offs[i+1]]
		v, ok := p.parse(s)
		if !ok {
			if e.errorOnFail {
				obuf.Release()
				vbuf.Release()
				return nil, &exec.SparkError{Class: "INVALID_FORMAT.MISMATCH_INPUT", Exception: "illegal-argument",
					Params: map[string]string{"inputType": `"STRING"`, "input": javaString(s), "format": e.format}}
			}
			valid[i>>3] &^= 1 << (i & 7)
			continue
		}
		out[i] = v
	}
	return finish(dt, n, vbuf, obuf, countNulls(valid, n)), nil
}

// toNumParser holds one batch's scratch state.
type toNumParser struct {
	tokens        []toNumToken
	scale         int
	chars         []rune // the input's Java characters (surrogates as themselves)
	before, after []byte // digit values
	sizes         []int  // digits per comma-separated group, the last group first
}

// parse is ToNumberParser.parse of s; ok false on a mismatch.
func (p *toNumParser) parse(s []byte) (decimal128.Num, bool) {
	p.chars = p.chars[:0]
	for i := 0; i < len(s); {
		r, w := javaRune(s, i)
		if r > 0xFFFF {
			r1, r2 := utf16Surrogates(r)
			p.chars = append(p.chars, r1, r2)
		} else {
			p.chars = append(p.chars, r)
		}
		i += w
	}
	p.before, p.after = p.before[:0], p.after[:0]
	in := p.chars
	reachedPoint, opened, closed, negate := false, false, false, false
	idx := 0
	for ti := range p.tokens {
		t := &p.tokens[ti]
		has := idx < len(in)
		var c rune
		if has {
			c = in[idx]
		}
		switch t.kind {
		case toNumGroup:
			var ok bool
			if idx, ok = p.groups(t, idx, reachedPoint); !ok {
				return decimal128.Num{}, false
			}
		case toNumPoint:
			if has && c == '.' {
				reachedPoint = true
				idx++
			}
		case toNumDollar:
			if has {
				if c != '$' {
					return decimal128.Num{}, false
				}
				idx++
			}
		case toNumSign:
			if has && (c == '+' || c == '-') {
				negate = negate != (c == '-')
				idx++
			}
		case toNumMinus:
			if has && c == '-' {
				negate = !negate
				idx++
			}
		case toNumOpen:
			if has && c == '<' {
				if opened {
					return decimal128.Num{}, false
				}
				opened = true
				idx++
			}
		case toNumClose:
			if has && c == '>' {
				if !opened {
					return decimal128.Num{}, false
				}
				closed = true
				negate = !negate
				idx++
			}
		}
	}
	if idx < len(in) || opened != closed || len(p.before) == 0 && len(p.after) == 0 {
		return decimal128.Num{}, false
	}
	// The digits (at most the format's precision of them), the fraction padded to the scale.
	v := decimal128.Num{}
	ten := decimal128.FromU64(10)
	for _, d := range p.before {
		v = v.Mul(ten).Add(decimal128.FromU64(uint64(d)))
	}
	for _, d := range p.after {
		v = v.Mul(ten).Add(decimal128.FromU64(uint64(d)))
	}
	for k := len(p.after); k < p.scale; k++ {
		v = v.Mul(ten)
	}
	if negate {
		v = v.Negate()
	}
	return v, true
}

// groups is parseDigitGroups: it consumes digits, commas and whitespace from idx and checks the
// digits per group against the format's runs, from the right.
func (p *toNumParser) groups(t *toNumToken, idx int, reachedPoint bool) (int, bool) {
	in := p.chars
	p.sizes = p.sizes[:0]
	cur := 0
	for ; idx < len(in); idx++ {
		c := in[idx]
		if c <= 0xFFFF && unb64JavaWhitespace(c) {
			continue
		}
		if d, ok := toNumDigit(c); ok {
			cur++
			if reachedPoint {
				p.after = append(p.after, d)
			} else {
				p.before = append(p.before, d)
			}
			continue
		}
		p.sizes = append(p.sizes, cur) // groups are appended left to right; read from the end
		cur = 0
		if c != ',' {
			break
		}
	}
	if idx == len(in) {
		p.sizes = append(p.sizes, cur)
	}
	if len(p.sizes) > len(t.runs) {
		return idx, false
	}
	for k, want := range t.runs {
		got := 0
		if k < len(p.sizes) {
			got = p.sizes[len(p.sizes)-1-k]
		}
		if t.exact[k] && got != want || got > want {
			return idx, false
		}
	}
	return idx, true
}

// toNumDigit is Character.isDigit of a Java character and the value BigDecimal gives it.
func toNumDigit(c rune) (byte, bool) {
	if c >= '0' && c <= '9' {
		return byte(c - '0'), true
	}
	if c < 0x80 || c > 0xFFFF || c >= 0xD800 && c <= 0xDFFF || !unicode.Is(unicode.Nd, c) {
		return 0, false
	}
	// Decimal digits come in runs of ten from a zero; the BMP table lists each run (or
	// adjacent runs) as one range starting at a zero.
	for _, r := range unicode.Nd.R16 {
		if uint16(c) >= r.Lo && uint16(c) <= r.Hi {
			return byte((uint16(c) - r.Lo) % 10), true
		}
	}
	return 0, false
}

// utf16Surrogates splits a supplementary code point into its UTF-16 surrogates.
func utf16Surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}
