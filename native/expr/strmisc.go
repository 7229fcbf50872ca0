package expr

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// More string functions of stringExpressions.scala, collectionOperations.scala (Reverse) and
// mathExpressions.scala (Hex, Unhex, Bin), over UTF8_BINARY strings, as UTF8String computes them
// (code points by numBytesForFirstByte, so invalid UTF-8 counts as in Spark; a truncated code
// point at a string's end is cut there, as the engine's Substring does):
//   - Ascii: the first code point as Java decodes it (U+FFFD for an invalid sequence), 0 for "".
//   - Chr of a long: "" below 0, else the character (n & 0xFF) (U+0000 for 0), as UTF-8.
//   - Reverse of a string: its code points in reverse order (arrays are refused).
//   - SoundEx: UTF8String.soundex, ASCII letters only (a string not starting with one is returned
//     unchanged).
//   - Hex: of a long, its two's complement in uppercase hex without leading zeros ("0" for 0); of
//     a binary or string, two uppercase digits per byte. Unhex: hex digits to bytes (an odd count
//     takes the first digit alone), null on any other character; the failOnError form
//     (to_binary) is refused.
//   - Bin of a long: its two's complement in binary without leading zeros.
//   - StringLocate (locate, position): 0 when start is null or below 1, null when substr or str
//     is null, else the 1-based code point position of the first occurrence at or after code
//     point start - 1, 0 when none (an empty substr gives 1).
//   - SubstringIndex: UTF8String.subStringIndex, bytewise (overlapping occurrences count).
//   - Levenshtein: code point edit distance; with a threshold, -1 when the distance exceeds it
//     (commons-text's limitedCompare as UTF8String runs it); only a non-nullable threshold
//     (Spark's interpreted and generated code differ on a null one).

func init() {
	Register("Ascii", "ascii(str): the first code point of a UTF8_BINARY string (U+FFFD for invalid UTF-8), 0 for ''", translateAscii)
	Register("Chr", "chr(n) of a long: '' for n < 0, else the character n & 0xFF (U+0000 for 0)", translateChr)
	Register("Reverse", "reverse(str) of a UTF8_BINARY string: code points reversed (arrays refused)", translateReverse)
	Register("SoundEx", "soundex(str) of a UTF8_BINARY string: Spark's American Soundex over ASCII letters; unchanged when str does not start with a letter", translateSoundEx)
	Register("Hex", "hex(x) of a long (two's complement, no leading zeros), binary or UTF8_BINARY string (two uppercase digits a byte)", translateHex)
	Register("Unhex", "unhex(str): the bytes of a hex string (an odd digit count keeps the first digit alone), null for any non-hex character; the failOnError form refused", translateUnhex)
	Register("Bin", "bin(x) of a long: two's complement in binary, no leading zeros", translateBin)
	Register("StringLocate", "locate(substr, str, start) of UTF8_BINARY strings: 1-based code point position at or after start, 0 if none or start < 1 or null start; null if substr or str is null", translateLocate)
	Register("SubstringIndex", "substring_index(str, delim, count) of UTF8_BINARY strings: before the count-th delim (from the right for a negative count), bytewise", translateSubstringIndex)
	Register("Levenshtein", "levenshtein(l, r[, threshold]) of UTF8_BINARY strings: code point edit distance; -1 above a (non-nullable) threshold", translateLevenshtein)
}

// stringChild translates a child that must be a UTF8_BINARY string.
func stringChild(pe *plan.Expr, field string, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(c.Type()) {
		return nil, unsupported("%s of %s is not supported natively (UTF8_BINARY strings only)", plan.ShortClass(pe.Class), c.Type())
	}
	return c, nil
}

func longChild(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Long {
		return nil, unsupported("%s of %s is not supported natively (long expected)", plan.ShortClass(pe.Class), c.Type())
	}
	return c, nil
}

func defaultStringResult(pe *plan.Expr) (sparktype.Type, error) {
	t, err := pe.Type()
	if err != nil {
		return t, err
	}
	if !defaultString(t) {
		return t, unsupported("%s returning %s is not supported natively (UTF8_BINARY strings only)", plan.ShortClass(pe.Class), t)
	}
	return t, nil
}

// ---- Ascii ----

func translateAscii(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := stringChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	return &strInt{namedCall: namedCall{name: "ascii", args: []Expr{c}}, fn: func(v [][]byte, _ []int32, _ *[]int32) int32 {
		s := v[0]
		if len(s) == 0 {
			return 0
		}
		// UTF8String.substring(0, 1) then Java's decoder: Go's DecodeRune gives U+FFFD for the
		// same invalid sequences (overlong, surrogate, above U+10FFFF, truncated).
		r, _ := utf8.DecodeRune(s[:min(int(utf8Width[s[0]]), len(s))])
		return int32(r)
	}}, nil
}

// strInt is a null-intolerant function of strings (and ints) returning an int.
type strInt struct {
	namedCall // args: strings, then ints
	fn        func(strs [][]byte, ints []int32, scratch *[]int32) int32
	nstr      int
}

func (e *strInt) Type() sparktype.Type { return sparktype.IntType }

// namedCall is a function's name and arguments, for the functions whose failure and text are
// their arguments'.
type namedCall struct {
	name string
	args []Expr
}

func (c *namedCall) mayFail() bool {
	for _, a := range c.args {
		if mayFail(a) {
			return true
		}
	}
	return false
}

func (c *namedCall) String() string {
	s := c.name + "("
	for i, a := range c.args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s + ")"
}

func (e *strInt) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strInt) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.args...)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	dt := arrow.PrimitiveTypes.Int32
	for _, o := range ops {
		if o.nullScalar() {
			return allNull(ctx.Alloc, dt, n), nil
		}
	}
	if n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	nstr := len(e.args)
	if e.nstr > 0 {
		nstr = e.nstr
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	type sv struct {
		offs []int32
		data []byte
		m    int
	}
	svs := make([]sv, nstr)
	for i := range svs {
		svs[i].offs, svs[i].data, svs[i].m = operandBytes(ops[i])
	}
	type iv struct {
		v []int32
		m int
	}
	ivs := make([]iv, len(ops)-nstr)
	for i := range ivs {
		ivs[i] = iv{values[int32](ops[nstr+i].arr), ops[nstr+i].mask()}
	}
	strs := make([][]byte, nstr)
	ints := make([]int32, len(ivs))
	var scratch []int32
	obuf, out := newFixed[int32](ctx.Alloc, n)
	for i := range out {
		if !validRow(vbuf, i) {
			out[i] = 0
			continue
		}
		for k, v := range svs {
			j := i & v.m
			strs[k] = v.data[v.offs[j]:v.offs[j+1]]
		}
		for k, v := range ivs {
			ints[k] = v.v[i&v.m]
		}
		out[i] = e.fn(strs, ints, &scratch)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- Chr, Bin, Hex of a long ----

func translateChr(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	c, err := longChild(pe, conf)
	if err != nil {
		return nil, err
	}
	return &bytesFn{name: "chr", child: c, typ: t, maxLen: func(int) int { return 2 }, longFn: func(dst []byte, v int64) int {
		if v < 0 {
			return 0
		}
		return utf8.EncodeRune(dst, rune(v&0xFF))
	}}, nil
}

func translateBin(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	c, err := longChild(pe, conf)
	if err != nil {
		return nil, err
	}
	return &bytesFn{name: "bin", child: c, typ: t, maxLen: func(int) int { return 64 }, longFn: func(dst []byte, v int64) int {
		return radixDigits(dst, uint64(v), 1)
	}}, nil
}

const upperHex = "0123456789ABCDEF"

// radixDigits writes u in base 2^shift (1: binary, 4: hex) without leading zeros ("0" for 0).
func radixDigits(dst []byte, u uint64, shift uint) int {
	if u == 0 {
		dst[0] = '0'
		return 1
	}
	n := (64 - bits.LeadingZeros64(u) + int(shift) - 1) / int(shift)
	mask := uint64(1)<<shift - 1
	for i := n - 1; i >= 0; i-- {
		dst[i] = upperHex[u&mask]
		u >>= shift
	}
	return n
}

// ---- Hex, Unhex ----

func translateHex(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	ct := c.Type()
	switch {
	case ct.Kind == sparktype.Long && defaultString(t):
		return &bytesFn{name: "hex", child: c, typ: t, maxLen: func(int) int { return 16 }, longFn: func(dst []byte, v int64) int {
			return radixDigits(dst, uint64(v), 4)
		}}, nil
	case (ct.Kind == sparktype.Binary || binaryCollation(ct)) && defaultString(t):
		return &bytesFn{name: "hex", child: c, typ: t, maxLen: func(n int) int { return 2 * n }, fn: func(dst, s []byte) (int, bool) {
			for i, x := range s {
				dst[2*i], dst[2*i+1] = upperHex[x>>4], upperHex[x&15]
			}
			return 2 * len(s), true
		}}, nil
	}
	return nil, unsupported("Hex of %s returning %s is not supported natively", ct, t)
}

var unhexDigit = func() (d [256]int8) {
	for i := range d {
		d[i] = -1
	}
	for i := 0; i < 10; i++ {
		d['0'+i] = int8(i)
	}
	for i := 0; i < 6; i++ {
		d['A'+i], d['a'+i] = int8(10+i), int8(10+i)
	}
	return
}()

func translateUnhex(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	if pe.Has("failOnError") {
		if f, err := pe.Bool("failOnError"); err != nil {
			return nil, err
		} else if f {
			return nil, unsupported("Unhex with failOnError (to_binary) is not supported natively")
		}
	}
	c, err := stringChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	return &bytesFn{name: "unhex", child: c, typ: sparktype.BinaryType, maxLen: func(n int) int { return n/2 + 1 }, fn: func(dst, s []byte) (int, bool) {
		m := 0
		if len(s)&1 != 0 {
			d := unhexDigit[s[0]]
			if d < 0 {
				return 0, false
			}
			dst[0] = byte(d)
			s, m = s[1:], 1
		}
		for i := 0; i+1 < len(s); i += 2 {
			h, l := unhexDigit[s[i]], unhexDigit[s[i+1]]
			if h < 0 || l < 0 {
				return 0, false
			}
			dst[m] = byte(h)<<4 | byte(l)
			m++
		}
		return m, true
	}}, nil
}

// ---- Reverse, SoundEx ----

func translateReverse(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := stringChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	return &bytesFn{name: "reverse", child: c, typ: c.Type(), maxLen: func(n int) int { return n }, fn: func(dst, s []byte) (int, bool) {
		n := len(s)
		if isASCII(s) {
			for i, x := range s {
				dst[n-1-i] = x
			}
			return n, true
		}
		for i := 0; i < n; {
			w := min(int(utf8Width[s[i]]), n-i)
			copy(dst[n-i-w:], s[i:i+w])
			i += w
		}
		return n, true
	}}, nil
}

// soundexCode is UTF8String's US_ENGLISH_MAPPING for 'A'..'Z' ('7': ignored, '0': a vowel).
const soundexCode = "01230127022455012623017202"

func translateSoundEx(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	c, err := stringChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	return &bytesFn{name: "soundex", child: c, typ: t, maxLen: func(n int) int { return max(n, 4) }, fn: func(dst, s []byte) (int, bool) {
		if len(s) == 0 {
			return 0, true
		}
		upper := func(b byte) (byte, bool) {
			if 'a' <= b && b <= 'z' {
				return b - 32, true
			}
			return b, 'A' <= b && b <= 'Z'
		}
		first, ok := upper(s[0])
		if !ok {
			return copy(dst, s), true
		}
		sx := dst[:4]
		sx[0], sx[1], sx[2], sx[3] = first, '0', '0', '0'
		k := 1
		last := soundexCode[first-'A']
		for _, b := range s[1:] {
			u, ok := upper(b)
			if !ok {
				last = '0'
				continue
			}
			code := soundexCode[u-'A']
			if code == '7' {
				continue
			}
			if code != '0' && code != last {
				sx[k] = code
				k++
				if k > 3 {
					break
				}
			}
			last = code
		}
		return 4, true
	}}, nil
}

// ---- StringLocate ----

type strLocate struct{ substr, str, start Expr }

func (e *strLocate) Type() sparktype.Type { return sparktype.IntType }
func (e *strLocate) mayFail() bool        { return mayFail(e.substr) || mayFail(e.str) || mayFail(e.start) }
func (e *strLocate) String() string {
	return fmt.Sprintf("locate(%s, %s, %s)", e.substr, e.str, e.start)
}

func translateLocate(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	q, err := stringChild(pe, "substr", conf)
	if err != nil {
		return nil, err
	}
	s, err := stringChild(pe, "str", conf)
	if err != nil {
		return nil, err
	}
	st, err := translateChild(pe, "start", conf)
	if err != nil {
		return nil, err
	}
	if st.Type().Kind != sparktype.Int {
		return nil, unsupported("StringLocate with a start of type %s is not supported natively (int expected)", st.Type())
	}
	return &strLocate{substr: q, str: s, start: st}, nil
}

// indexOfFrom is UTF8String.indexOf(v, start): the code point index of the first match of v
// at a code point boundary at or after code point start; 0 for an empty v; -1 for none.
func indexOfFrom(s, v []byte, start int) int {
	if len(v) == 0 {
		return 0
	}
	i, c := 0, 0
	for i < len(s) && c < start {
		i += int(utf8Width[s[i]])
		c++
	}
	if i >= len(s) {
		return -1
	}
	k := indexOfChars(s[i:], v)
	if k < 0 {
		return -1
	}
	return c + k
}

func (e *strLocate) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strLocate) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	// Spark evaluates start, then substr where start is non-null, then str where substr is.
	ops, err := evalInOrder(ctx, b, active, e.start, e.substr, e.str)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	to, qo, so := ops[0], ops[1], ops[2]
	dt := arrow.PrimitiveTypes.Int32
	obuf, out := newFixed[int32](ctx.Alloc, n)
	clear(out)
	if n == 0 || to.nullScalar() {
		return finish(dt, n, nil, obuf, 0), nil
	}
	// Null where start is non-null and substr or str is null.
	vbuf, vb := newBitmap(ctx.Alloc, n)
	nulls := 0
	starts, tm := values[int32](to.arr), to.mask()
	qOff, qData, qm := operandBytes(qo)
	sOff, sData, sm := operandBytes(so)
	for i := range out {
		if !to.valid(i & tm) {
			vb[i>>3] |= 1 << (i & 7)
			continue
		}
		if !qo.valid(i&qm) || !so.valid(i&sm) {
			vb[i>>3] &^= 1 << (i & 7)
			nulls++
			continue
		}
		vb[i>>3] |= 1 << (i & 7)
		if start := starts[i&tm]; start >= 1 {
			q := qData[qOff[i&qm]:qOff[i&qm+1]]
			s := sData[sOff[i&sm]:sOff[i&sm+1]]
			out[i] = int32(indexOfFrom(s, q, int(start-1)) + 1)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- SubstringIndex ----

type substringIndex struct{ str, delim, count Expr }

func (e *substringIndex) Type() sparktype.Type { return e.str.Type() }

// mayFail: a count of Integer.MIN_VALUE fails, unless the count is a literal of another value.
func (e *substringIndex) mayFail() bool {
	if c, ok := e.count.(constExpr); ok {
		a := c.constArray()
		if isNullAt(a, 0) || values[int32](a)[0] != math.MinInt32 {
			return mayFail(e.str) || mayFail(e.delim)
		}
	}
	return true
}
func (e *substringIndex) String() string {
	return fmt.Sprintf("substring_index(%s, %s, %s)", e.str, e.delim, e.count)
}

func translateSubstringIndex(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := stringChild(pe, "strExpr", conf)
	if err != nil {
		return nil, err
	}
	d, err := stringChild(pe, "delimExpr", conf)
	if err != nil {
		return nil, err
	}
	c, err := translateChild(pe, "countExpr", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Int {
		return nil, unsupported("SubstringIndex with a count of type %s is not supported natively (int expected)", c.Type())
	}
	return &substringIndex{str: s, delim: d, count: c}, nil
}

// subStringIndex is UTF8String.subStringIndex: the byte range of the result in s, or ok false
// where Spark fails (a count of Integer.MIN_VALUE, which it cannot negate).
func subStringIndex(s, d []byte, count int32) (from, to int, ok bool) {
	if len(d) == 0 || count == 0 {
		return 0, 0, true
	}
	if count > 0 {
		idx := -1
		for ; count > 0; count-- {
			k := bytes.Index(s[idx+1:], d)
			if k < 0 {
				return 0, len(s), true
			}
			idx += 1 + k
		}
		return 0, idx, true
	}
	if count == math.MinInt32 {
		// -count stays negative: Spark skips the search and allocates a negative-size array.
		return 0, 0, false
	}
	idx := len(s) - len(d) + 1
	for count = -count; count > 0; count-- {
		start := idx - 1 // rfind from start down to 0
		if start < 0 {
			return 0, len(s), true
		}
		idx = bytes.LastIndex(s[:start+len(d)], d)
		if idx < 0 {
			return 0, len(s), true
		}
	}
	return idx + len(d), len(s), true
}

func (e *substringIndex) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *substringIndex) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.str, e.delim, e.count)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	so, do, co := ops[0], ops[1], ops[2]
	dt := e.Type().Arrow()
	if n == 0 || so.nullScalar() || do.nullScalar() || co.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	sOff, sData, sm := operandBytes(so)
	dOff, dData, dm := operandBytes(do)
	counts, cm := values[int32](co.arr), co.mask()
	out, err := newBytesOut(ctx.Alloc, n, int64(sOff[len(sOff)-1]-sOff[0]))
	if err != nil {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		if validRow(vbuf, i) {
			s := sData[sOff[i&sm]:sOff[i&sm+1]]
			d := dData[dOff[i&dm]:dOff[i&dm+1]]
			from, to, ok := subStringIndex(s, d, counts[i&cm])
			if !ok {
				if isActive(active, i) {
					out.release()
					if vbuf != nil {
						vbuf.Release()
					}
					return nil, fmt.Errorf("%s: a count of %d fails in Spark (NegativeArraySizeException)", e, math.MinInt32)
				}
				from, to = 0, 0
			}
			if err := out.ensure(to - from); err != nil {
				out.release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, fmt.Errorf("%s: %w", e, err)
			}
			out.append(s[from:to])
		}
		out.endRow(i)
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

// ---- Levenshtein ----

func translateLevenshtein(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	l, err := stringChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	r, err := stringChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	e := &strInt{namedCall: namedCall{name: "levenshtein", args: []Expr{l, r}}}
	if isNullField(pe, "threshold") {
		e.fn = func(v [][]byte, _ []int32, scratch *[]int32) int32 {
			return levenshtein(v[0], v[1], scratch)
		}
		return e, nil
	}
	tp, err := pe.Child("threshold")
	if err != nil {
		return nil, err
	}
	if tp.Nullable {
		return nil, unsupported("Levenshtein with a nullable threshold is not supported natively (Spark's interpreted and generated code differ on a null threshold)")
	}
	th, err := Translate(tp, conf)
	if err != nil {
		return nil, err
	}
	if th.Type().Kind != sparktype.Int {
		return nil, unsupported("Levenshtein with a threshold of type %s is not supported natively (int expected)", th.Type())
	}
	e.args = append(e.args, th)
	e.nstr = 2
	e.fn = func(v [][]byte, t []int32, scratch *[]int32) int32 {
		return levenshteinLimited(v[0], v[1], t[0], scratch)
	}
	return e, nil
}

// charStarts appends the byte offsets of the code points of s (numBytesForFirstByte) to dst.
func charStarts(dst []int32, s []byte) []int32 {
	for i := 0; i < len(s); i += int(utf8Width[s[i]]) {
		dst = append(dst, int32(i))
	}
	return dst
}

// sameChar reports whether the code point at s[i:] equals the one at t[j:] as UTF8String
// compares them: the bytes of t's code point, both cut at their string's end.
func sameChar(s []byte, i int32, t []byte, j int32) bool {
	if s[i] != t[j] {
		return false
	}
	w := int32(utf8Width[t[j]])
	return bytes.Equal(s[i:min(int(i+w), len(s))], t[j:min(int(j+w), len(t))])
}

// levSetup orders a and b as UTF8String does (s the one with fewer code points, a first on a
// tie) and lays out, in *scratch (reused between rows), their code point offsets and the two
// rows p and d of the distance table.
func levSetup(a, b []byte, scratch *[]int32) (s, t []byte, ps, pt, p, d []int32) {
	na, nb := numChars(a), numChars(b)
	s, t = a, b
	if na > nb {
		s, t, na, nb = b, a, nb, na
	}
	need := na + nb + 2*(na+1)
	if cap(*scratch) < need {
		*scratch = make([]int32, need)
	}
	buf := (*scratch)[:need]
	ps = charStarts(buf[:0:na], s)
	pt = charStarts(buf[na:na:na+nb], t)
	p = buf[na+nb : na+nb+na+1]
	d = buf[na+nb+na+1:]
	return
}

// levenshtein is UTF8String.levenshteinDistance (commons-text's unlimitedCompare over code
// points).
func levenshtein(a, b []byte, scratch *[]int32) int32 {
	s, t, ps, pt, p, d := levSetup(a, b, scratch)
	n, m := len(ps), len(pt)
	if n == 0 {
		return int32(m)
	}
	for i := range p {
		p[i] = int32(i)
	}
	for j := 0; j < m; j++ {
		d[0] = int32(j + 1)
		for i := 0; i < n; i++ {
			cost := int32(1)
			if sameChar(s, ps[i], t, pt[j]) {
				cost = 0
			}
			d[i+1] = min(d[i]+1, p[i+1]+1, p[i]+cost)
		}
		p, d = d, p
	}
	return p[n]
}

// levenshteinLimited is UTF8String.levenshteinDistance(other, threshold) (commons-text's
// limitedCompare): the distance when it is at most threshold, else -1, computed on the diagonal
// band of the table with Java's int arithmetic.
func levenshteinLimited(a, b []byte, threshold int32, scratch *[]int32) int32 {
	s, t, ps, pt, p, d := levSetup(a, b, scratch)
	n, m := int32(len(ps)), int32(len(pt))
	if n == 0 {
		if m <= threshold {
			return m
		}
		return -1
	}
	if m-n > threshold {
		return -1
	}
	const maxInt = math.MaxInt32
	boundary := min(n, threshold) + 1
	for i := range p {
		if int32(i) < boundary {
			p[i] = int32(i)
		} else {
			p[i] = maxInt
		}
		d[i] = maxInt
	}
	for j := int32(0); j < m; j++ {
		d[0] = j + 1
		lo := max(1, j+1-threshold) // threshold >= 0 here: no overflow
		hi := n
		if j+1 <= maxInt-threshold {
			hi = min(n, j+1+threshold)
		}
		if lo > 1 {
			d[lo-1] = maxInt
		}
		lower := int32(maxInt)
		for i := lo; i <= hi; i++ {
			if sameChar(s, ps[i-1], t, pt[j]) {
				d[i] = p[i-1]
			} else {
				d[i] = 1 + min(d[i-1], p[i], p[i-1]) // wraps as Java's int does
			}
			lower = min(lower, d[i])
		}
		if lower > threshold {
			return -1
		}
		p, d = d, p
	}
	if p[n] <= threshold {
		return p[n]
	}
	return -1
}
