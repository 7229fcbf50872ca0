package expr

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// String functions of stringExpressions.scala that edit or search UTF8_BINARY strings, as
// UTF8String computes them:
//   - FindInSet (find_in_set(word, set)): UTF8String.findInSet, bytewise: the 1-based position of
//     word among set's comma-separated items, 0 when absent or when word holds a comma.
//   - StringSpace (space(n)): n ASCII spaces, '' for n <= 0.
//   - StringTranslate (translate(src, from, to)): StringTranslate.buildDict and
//     UTF8String.translate: the three strings decoded as Java does (each malformed UTF-8 sequence
//     one U+FFFD); each code point of from maps (its first occurrence wins) to the code point of to
//     at the same position, or is deleted when to is shorter (or holds U+0000 there).
//   - Overlay of strings (overlay(input PLACING replace FROM pos [FOR len])): Overlay.calculate,
//     input.substringSQL(1, pos - 1) + replace + input.substringSQL(pos + len, MAX), len being
//     replace's code points when negative, pos + len wrapping as Java ints do (binary refused).

func init() {
	Register("FindInSet", "find_in_set(word, set) of UTF8_BINARY strings: the 1-based position of word among set's comma-separated items (bytewise), 0 when absent or when word holds a comma", translateFindInSet)
	Register("StringSpace", "space(n): n spaces, '' for n <= 0", translateSpace)
	Register("StringTranslate", "translate(src, from, to) of UTF8_BINARY strings: code points of from replaced by those of to at the same position, deleted past its end (invalid UTF-8 as U+FFFD, as Java decodes it)", translateTranslate)
	Register("Overlay", "overlay(input PLACING replace FROM pos [FOR len]) of UTF8_BINARY strings: code point positions as substring's (binary refused)", translateOverlay)
}

// ---- FindInSet ----

func translateFindInSet(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	w, err := stringChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	s, err := stringChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	return &strInt{namedCall: namedCall{name: "find_in_set", args: []Expr{w, s}}, fn: func(v [][]byte, _ []int32, _ *[]int32) int32 {
		return findInSet(v[0], v[1])
	}}, nil
}

// findInSet is UTF8String.findInSet(word) of set.
func findInSet(word, set []byte) int32 {
	if bytes.IndexByte(word, ',') >= 0 {
		return 0
	}
	n := int32(1)
	for {
		i := bytes.IndexByte(set, ',')
		if i < 0 {
			if bytes.Equal(set, word) {
				return n
			}
			return 0
		}
		if bytes.Equal(set[:i], word) {
			return n
		}
		set = set[i+1:]
		n++
	}
}

// ---- strEdit: a null-intolerant function of strings and ints returning a string ----

// editArgs holds one row's arguments: the string ones, then the int ones, in argument order
// within each kind.
type editArgs struct {
	strs [][]byte
	ints []int32
	dict translateDict // translate's, per evaluation (an expression may run in parallel tasks)
	pos  []int32       // trim's code point starts, likewise
}

type strEdit struct {
	namedCall // args: evaluated left to right; strings and ints
	typ       sparktype.Type
	// row appends the result of one row to out (after out.ensure for its size).
	row func(out *bytesOut, a *editArgs) error
}

func (e *strEdit) Type() sparktype.Type { return e.typ }

func (e *strEdit) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strEdit) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.args...)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	dt := e.typ.Arrow()
	for _, o := range ops {
		if o.nullScalar() {
			return allNull(ctx.Alloc, dt, n), nil
		}
	}
	if n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	type sv struct {
		offs []int32
		data []byte
		m    int
	}
	type iv struct {
		v []int32
		m int
	}
	var svs []sv
	var ivs []iv
	var size int64
	for _, o := range ops {
		if o.arr.DataType().ID() == arrow.INT32 {
			ivs = append(ivs, iv{values[int32](o.arr), o.mask()})
			continue
		}
		offs, data, m := operandBytes(o)
		svs = append(svs, sv{offs, data, m})
	}
	// The first string argument's bytes: the usual size of the result (rows grow it as needed).
	if len(svs) > 0 && svs[0].m != 0 {
		size = int64(svs[0].offs[n] - svs[0].offs[0])
	}
	a := &editArgs{strs: make([][]byte, len(svs)), ints: make([]int32, len(ivs))}
	out, err := newBytesOut(ctx.Alloc, n, size)
	if err != nil {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	for i := 0; i < n; i++ {
		if !validRow(vbuf, i) {
			out.endRow(i)
			continue
		}
		for k, v := range svs {
			j := i & v.m
			a.strs[k] = v.data[v.offs[j]:v.offs[j+1]]
		}
		for k, v := range ivs {
			a.ints[k] = v.v[i&v.m]
		}
		if err := e.row(out, a); err != nil {
			out.release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out.endRow(i)
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

func intChild(pe *plan.Expr, field string, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Int {
		return nil, unsupported("%s of %s is not supported natively (int expected)", plan.ShortClass(pe.Class), c.Type())
	}
	return c, nil
}

// ---- StringSpace ----

var spaces = bytes.Repeat([]byte{' '}, 4096)

func translateSpace(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	c, err := intChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	return &strEdit{namedCall: namedCall{name: "space", args: []Expr{c}}, typ: t, row: func(out *bytesOut, a *editArgs) error {
		k := int(a.ints[0])
		if k <= 0 {
			return nil
		}
		if err := out.ensure(k); err != nil {
			return err
		}
		for k > 0 {
			m := min(k, len(spaces))
			out.append(spaces[:m])
			k -= m
		}
		return nil
	}}, nil
}

// ---- StringTranslate ----

// translateDict is StringTranslate.buildDict of one (from, to) pair: per code point of from, the
// code point it becomes, translateDelete to drop it, translateKeep when from lacks it.
type translateDict struct {
	from, to []byte // the strings it was built from (copies), to reuse it while they repeat
	built    bool
	ascii    [128]rune
	other    map[rune]rune
}

const (
	translateKeep   = -1
	translateDelete = -2
)

func (d *translateDict) build(from, to []byte) {
	if d.built && bytes.Equal(from, d.from) && bytes.Equal(to, d.to) {
		return
	}
	d.built = true
	d.from, d.to = append(d.from[:0], from...), append(d.to[:0], to...)
	for i := range d.ascii {
		d.ascii[i] = translateKeep
	}
	if d.other == nil {
		d.other = map[rune]rune{}
	}
	clear(d.other)
	j := 0
	for i := 0; i < len(from); {
		m, w := javaRune(from, i)
		i += w
		rep := rune(translateDelete)
		if j < len(to) {
			r, w := javaRune(to, j)
			j += w
			if r != 0 { // UTF8String.translate drops a character mapped to "\0" too
				rep = r
			}
		}
		if m < 0x80 {
			if d.ascii[m] == translateKeep {
				d.ascii[m] = rep
			}
		} else if _, ok := d.other[m]; !ok {
			d.other[m] = rep
		}
	}
}

func translateTranslate(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	var args []Expr
	for _, f := range []string{"srcExpr", "matchingExpr", "replaceExpr"} {
		c, err := stringChild(pe, f, conf)
		if err != nil {
			return nil, err
		}
		args = append(args, c)
	}
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	return &strEdit{namedCall: namedCall{name: "translate", args: args}, typ: t, row: func(out *bytesOut, a *editArgs) error {
		s, d := a.strs[0], &a.dict
		d.build(a.strs[1], a.strs[2])
		// A code point takes at most 4 bytes; an invalid byte becomes U+FFFD (3).
		if err := out.ensure(4 * len(s)); err != nil {
			return err
		}
		dst := out.room()
		m := 0
		for i := 0; i < len(s); {
			var r rune
			if c := s[i]; c < 0x80 {
				r = d.ascii[c]
				i++
				if r == translateKeep {
					dst[m] = c
					m++
					continue
				}
			} else {
				var w int
				r, w = javaRune(s, i)
				i += w
				if x, ok := d.other[r]; ok {
					r = x
				}
			}
			if r != translateDelete {
				m += utf8.EncodeRune(dst[m:], r)
			}
		}
		out.used += m
		return nil
	}}, nil
}

// ---- Overlay ----

func translateOverlay(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	in, err := translateChild(pe, "input", conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(in.Type()) {
		return nil, unsupported("Overlay of %s is not supported natively (UTF8_BINARY strings only)", in.Type())
	}
	rep, err := stringChild(pe, "replace", conf)
	if err != nil {
		return nil, err
	}
	pos, err := intChild(pe, "pos", conf)
	if err != nil {
		return nil, err
	}
	ln, err := intChild(pe, "len", conf)
	if err != nil {
		return nil, err
	}
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	return &strEdit{namedCall: namedCall{name: "overlay", args: []Expr{in, rep, pos, ln}}, typ: t, row: func(out *bytesOut, a *editArgs) error {
		s, r := a.strs[0], a.strs[1]
		p, l := a.ints[0], a.ints[1]
		if l < 0 {
			l = int32(numChars(r))
		}
		f1, t1 := utf8SubstringSQL(s, 1, p-1)
		f2, t2 := utf8SubstringSQL(s, p+l, 1<<31-1) // p + l wraps as in Java
		if err := out.ensure(t1 - f1 + len(r) + t2 - f2); err != nil {
			return err
		}
		out.append(s[f1:t1])
		out.append(r)
		out.append(s[f2:t2])
		return nil
	}}, nil
}
