package expr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// String functions of stringExpressions.scala over UTF8_BINARY strings (type "string"; collated
// strings have another type name and are refused), on the UTF-8 bytes as UTF8String holds them:
//   - StartsWith, EndsWith, Contains: UTF8String.startsWith/endsWith/contains, bytewise; an empty
//     right side always matches.
//   - Substring: UTF8String.substringSQL (code points) and ByteArray.subStringSQL (binary), with
//     their exact int arithmetic (1-based pos, 0 taken as 1, negative pos from the end, clamped
//     start + len, len <= 0 gives "").
//   - Length: UTF8String.numChars (code points) for strings, the byte count for binary.
// Code points are counted as UTF8String counts them: by the length its first byte announces
// (numBytesForFirstByte), so invalid UTF-8 counts exactly as in Spark.
//
// Upper and Lower are deliberately not supported: Spark 4 maps non-ASCII strings with ICU (or
// Java's String.toUpperCase), whose special casings ('ß' -> "SS", final sigma, ...) Go's unicode
// package does not reproduce.

func init() {
	Register("StartsWith", "startswith(l, r) on UTF8_BINARY strings: bytewise prefix test; null if either side is null", strPredTranslator(predStartsWith))
	Register("EndsWith", "endswith(l, r) on UTF8_BINARY strings: bytewise suffix test; null if either side is null", strPredTranslator(predEndsWith))
	Register("Contains", "contains(l, r) on UTF8_BINARY strings: bytewise substring test; null if either side is null", strPredTranslator(predContains))
	Register("Substring", "substring(str, pos, len) of a string (code points) or binary (bytes): Spark's 1-based pos (0 as 1, negative from the end), len < 1 gives empty; null if any argument is null", translateSubstring)
	Register("Length", "length(str): code points of a string (as UTF8String.numChars counts them), bytes of a binary", translateLength)
}

// binaryCollation reports whether t is Spark's default-collation (UTF8_BINARY) string type.
func binaryCollation(t sparktype.Type) bool {
	return t.Kind == sparktype.String && t.Name == "string"
}

// utf8Width is UTF8String.numBytesForFirstByte: the byte length of a code point announced by its
// first byte; 1 for bytes that cannot start one (continuation bytes, C0, C1, F5..FF).
var utf8Width = func() (w [256]uint8) {
	for b := range w {
		switch {
		case b >= 0xC2 && b <= 0xDF:
			w[b] = 2
		case b >= 0xE0 && b <= 0xEF:
			w[b] = 3
		case b >= 0xF0 && b <= 0xF4:
			w[b] = 4
		default:
			w[b] = 1
		}
	}
	return
}()

// isASCII reports whether every byte of b is below 0x80.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// numChars is UTF8String.numChars.
func numChars(s []byte) int {
	// The ASCII prefix first, eight bytes at a time and then byte by byte: one char per byte, and
	// no load that depends on the previous one as the width table's walk does. The exact walk
	// resumes at the first byte >= 0x80, a char boundary since every byte before it is ASCII.
	i := asciiPrefix(s)
	n := i
	for ; i < len(s); i += int(utf8Width[s[i]]) {
		n++
	}
	return n
}

// asciiPrefix returns the length of the longest prefix of s whose bytes are all below 0x80.
func asciiPrefix(s []byte) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	return i
}

// operandBytes returns the offsets and data of a string/binary operand, with the index mask.
func operandBytes(o operand) ([]int32, []byte, int) {
	offs, data := binaryParts(o.arr)
	return offs, data, o.mask()
}

// ---- StartsWith, EndsWith, Contains ----

type predOp uint8

const (
	predStartsWith predOp = iota
	predEndsWith
	predContains
)

var predNames = [...]string{predStartsWith: "startswith", predEndsWith: "endswith", predContains: "contains"}

type strPred struct {
	op          predOp
	left, right Expr
}

func (e *strPred) Type() sparktype.Type { return sparktype.BooleanType }
func (e *strPred) mayFail() bool        { return mayFail(e.left) || mayFail(e.right) }
func (e *strPred) String() string {
	return fmt.Sprintf("%s(%s, %s)", predNames[e.op], e.left, e.right)
}

func strPredTranslator(op predOp) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		if !binaryCollation(l.Type()) || !binaryCollation(r.Type()) {
			return nil, unsupported("%s of %s and %s is not supported natively (UTF8_BINARY strings only)",
				plan.ShortClass(pe.Class), l.Type(), r.Type())
		}
		return &strPred{op: op, left: l, right: r}, nil
	}
}

func (e *strPred) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strPred) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, ro, err := evalLeftThenRight(ctx, b, e.left, e.right, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	defer ro.release()
	dt := arrow.FixedWidthTypes.Boolean
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newBitmap(ctx.Alloc, n)
	lOff, lData, lm := operandBytes(lo)
	rOff, rData, rm := operandBytes(ro)
	if ro.scalar {
		pat := rData[rOff[0]:rOff[1]]
		switch e.op {
		case predStartsWith:
			for i := 0; i < n; i++ {
				j := i & lm
				out[i>>3] |= b2u(bytes.HasPrefix(lData[lOff[j]:lOff[j+1]], pat)) << (i & 7)
			}
		case predEndsWith:
			for i := 0; i < n; i++ {
				j := i & lm
				out[i>>3] |= b2u(bytes.HasSuffix(lData[lOff[j]:lOff[j+1]], pat)) << (i & 7)
			}
		case predContains:
			for i := 0; i < n; i++ {
				j := i & lm
				out[i>>3] |= b2u(bytes.Contains(lData[lOff[j]:lOff[j+1]], pat)) << (i & 7)
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	for i := 0; i < n; i++ {
		j, k := i&lm, i&rm
		l, r := lData[lOff[j]:lOff[j+1]], rData[rOff[k]:rOff[k+1]]
		var v bool
		switch e.op {
		case predStartsWith:
			v = bytes.HasPrefix(l, r)
		case predEndsWith:
			v = bytes.HasSuffix(l, r)
		default:
			v = bytes.Contains(l, r)
		}
		out[i>>3] |= b2u(v) << (i & 7)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- Substring ----

type substring struct {
	str, pos, len Expr
	typ           sparktype.Type
	binary        bool
}

func (e *substring) Type() sparktype.Type { return e.typ }
func (e *substring) mayFail() bool        { return mayFail(e.str) || mayFail(e.pos) || mayFail(e.len) }
func (e *substring) String() string {
	return fmt.Sprintf("substring(%s, %s, %s)", e.str, e.pos, e.len)
}

func translateSubstring(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := translateChild(pe, "str", conf)
	if err != nil {
		return nil, err
	}
	p, err := translateChild(pe, "pos", conf)
	if err != nil {
		return nil, err
	}
	l, err := translateChild(pe, "len", conf)
	if err != nil {
		return nil, err
	}
	st := s.Type()
	if !binaryCollation(st) && st.Kind != sparktype.Binary {
		return nil, unsupported("Substring of %s is not supported natively", st)
	}
	if p.Type().Kind != sparktype.Int || l.Type().Kind != sparktype.Int {
		return nil, unsupported("Substring with pos %s and len %s is not supported natively (int expected)", p.Type(), l.Type())
	}
	return &substring{str: s, pos: p, len: l, typ: st, binary: st.Kind == sparktype.Binary}, nil
}

func (e *substring) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *substring) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	// Spark evaluates str, then pos where str is non-null, then len where both are.
	so, err := evalOperandActive(ctx, b, e.str, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	pact := active
	if mayFail(e.pos) {
		pact = andActiveValid(active, so, n)
	}
	po, err := evalOperandActive(ctx, b, e.pos, pact)
	if err != nil {
		return nil, err
	}
	defer po.release()
	lact := active
	if mayFail(e.len) {
		lact = andActiveValid(andActiveValid(active, so, n), po, n)
	}
	lo, err := evalOperandActive(ctx, b, e.len, lact)
	if err != nil {
		return nil, err
	}
	defer lo.release()

	dt := e.typ.Arrow()
	if n == 0 || so.nullScalar() || po.nullScalar() || lo.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	var cols []arrow.Array
	for _, o := range []operand{so, po, lo} {
		if !o.scalar {
			cols = append(cols, o.arr)
		}
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, cols...)

	sOff, sData, sm := operandBytes(so)
	pos, pm := values[int32](po.arr), po.mask()
	lens, lm := values[int32](lo.arr), lo.mask()

	// Pass 1: the byte range of every row's result (starts kept aside), and the output offsets.
	startBuf, starts := newFixed[int32](ctx.Alloc, n)
	defer startBuf.Release()
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	offs[0] = 0
	var total int64
	ascii := !e.binary && isASCII(sData[sOff[0]:sOff[len(sOff)-1]])
	for i := 0; i < n; i++ {
		j := i & sm
		s := sData[sOff[j]:sOff[j+1]]
		var from, to int
		switch {
		case e.binary:
			var ok bool
			if from, to, ok = binarySubstringSQL(len(s), pos[i&pm], lens[i&lm]); !ok {
				if validRow(vbuf, i) && isActive(active, i) {
					offBuf.Release()
					if vbuf != nil {
						vbuf.Release()
					}
					// Spark pads the copy with zeros up to a ~2 GB array (Arrays.copyOfRange).
					return nil, fmt.Errorf("substring of a %d-byte binary at pos %d, len %d: Spark would build a result of about 2^31 bytes", len(s), pos[i&pm], lens[i&lm])
				}
				from, to = 0, 0
			}
		case ascii:
			from, to = asciiSubstringSQL(len(s), pos[i&pm], lens[i&lm])
		default:
			from, to = utf8SubstringSQL(s, pos[i&pm], lens[i&lm])
		}
		starts[i] = int32(sOff[j]) + int32(from)
		total += int64(to - from)
		if total > math.MaxInt32 {
			offBuf.Release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("substring result exceeds %d bytes in one batch", math.MaxInt32)
		}
		offs[i+1] = int32(total)
	}
	// Pass 2: copy.
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(int(total))
	data := dataBuf.Bytes()
	for i := 0; i < n; i++ {
		copy(data[offs[i]:offs[i+1]], sData[starts[i]:])
	}
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}

func validRow(vbuf *memory.Buffer, i int) bool {
	return vbuf == nil || vbuf.Bytes()[i>>3]&(1<<(i&7)) != 0
}

// finishBytes wraps string/binary buffers into an array; it takes over the buffer references.
func finishBytes(dt arrow.DataType, n int, vbuf *memory.Buffer, nulls int, offBuf, dataBuf *memory.Buffer) arrow.Array {
	if nulls == 0 && vbuf != nil {
		vbuf.Release()
		vbuf = nil
	}
	d := array.NewData(dt, n, []*memory.Buffer{vbuf, offBuf, dataBuf}, nil, nulls, 0)
	if vbuf != nil {
		vbuf.Release()
	}
	offBuf.Release()
	dataBuf.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// sqlStartEnd is the code point range [start, end) of UTF8String.substringSQL before clamping:
// start from pos (1-based, 0 as 1, negative from the end of numChars), end = start + len
// saturated to the int range.
func sqlStartEnd(numChars int, pos, length int32) (int32, int32) {
	var start int32
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = int32(numChars) + pos // cannot overflow: numChars >= 0
	}
	end := int64(start) + int64(length)
	switch {
	case end > math.MaxInt32:
		end = math.MaxInt32
	case end < math.MinInt32:
		end = math.MinInt32
	}
	return start, int32(end)
}

// utf8SubstringSQL returns the byte range of UTF8String.substringSQL(pos, length) in s.
func utf8SubstringSQL(s []byte, pos, length int32) (int, int) {
	nc := 0
	if pos < 0 {
		nc = numChars(s)
	}
	start, end := sqlStartEnd(nc, pos, length)
	// UTF8String.substring(start, until): empty when until <= start or start >= numBytes; a
	// negative start counts from 0 (the character counter starts at 0, not at start).
	if end <= start || int(start) >= len(s) {
		return 0, 0
	}
	i, c := 0, int32(0)
	for i < len(s) && c < start {
		i += int(utf8Width[s[i]])
		c++
	}
	j := i
	for i < len(s) && c < end {
		i += int(utf8Width[s[i]])
		c++
	}
	// A truncated last code point makes UTF8String read past its end; stop at the end instead.
	if i > len(s) {
		i = len(s)
	}
	if j > i {
		j = i
	}
	return j, i
}

// asciiSubstringSQL is utf8SubstringSQL for an ASCII string (one byte per code point).
func asciiSubstringSQL(n int, pos, length int32) (int, int) {
	start, end := sqlStartEnd(n, pos, length)
	if end <= start || int(start) >= n {
		return 0, 0
	}
	from := max(int(start), 0)
	return from, max(min(int(end), n), from)
}

// binarySubstringSQL is ByteArray.subStringSQL with its Java int arithmetic (wrapping). ok is
// false in the one corner (len near Integer.MIN_VALUE) where Spark's range ends past the array,
// which Arrays.copyOfRange would pad to a ~2 GB result.
func binarySubstringSQL(n int, pos, length int32) (from, to int, ok bool) {
	bl := int32(n)
	if pos > bl {
		return 0, 0, true
	}
	var start, end int32
	if pos > 0 {
		start = pos - 1
	} else if pos < 0 {
		start = bl + pos
	}
	if bl-start < length {
		end = bl
	} else {
		end = start + length
	}
	start = max(start, 0)
	if start >= end {
		return 0, 0, true
	}
	if end > bl {
		return 0, 0, false
	}
	return int(start), int(end), true
}

// ---- Length ----

type length struct {
	child  Expr
	binary bool
}

func (e *length) Type() sparktype.Type { return sparktype.IntType }
func (e *length) mayFail() bool        { return mayFail(e.child) }
func (e *length) String() string       { return fmt.Sprintf("length(%s)", e.child) }

func translateLength(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	t := c.Type()
	if !binaryCollation(t) && t.Kind != sparktype.Binary {
		return nil, unsupported("Length of %s is not supported natively", t)
	}
	return &length{child: c, binary: t.Kind == sparktype.Binary}, nil
}

func (e *length) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *length) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.PrimitiveTypes.Int32
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	if e.binary || isASCII(data[offs[0]:offs[n]]) {
		for i := range out {
			out[i] = offs[i+1] - offs[i]
		}
	} else {
		for i := range out {
			out[i] = int32(numChars(data[offs[i]:offs[i+1]]))
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- StringInstr ----

// instr(str, substr) is UTF8String.indexOf(substr, 0) + 1: the 1-based code point position of the
// first occurrence starting at a code point boundary (as numBytesForFirstByte walks them), 0 when
// there is none, 1 for an empty substr.
type strInstr struct{ str, sub Expr }

func (e *strInstr) Type() sparktype.Type { return sparktype.IntType }
func (e *strInstr) mayFail() bool        { return mayFail(e.str) || mayFail(e.sub) }
func (e *strInstr) String() string       { return fmt.Sprintf("instr(%s, %s)", e.str, e.sub) }

func init() {
	Register("StringInstr", "instr(str, substr) on UTF8_BINARY strings: 1-based code point position of the first occurrence, 0 if none", translateInstr)
}

func translateInstr(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := translateChild(pe, "str", conf)
	if err != nil {
		return nil, err
	}
	q, err := translateChild(pe, "substr", conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(s.Type()) || !binaryCollation(q.Type()) {
		return nil, unsupported("StringInstr of %s and %s is not supported natively (UTF8_BINARY strings only)", s.Type(), q.Type())
	}
	return &strInstr{str: s, sub: q}, nil
}

func (e *strInstr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strInstr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, qo, err := evalLeftThenRight(ctx, b, e.str, e.sub, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	defer qo.release()
	dt := arrow.PrimitiveTypes.Int32
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, so, qo)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	sOff, sData, sm := operandBytes(so)
	qOff, qData, qm := operandBytes(qo)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	for i := range out {
		s := sData[sOff[i&sm]:sOff[i&sm+1]]
		q := qData[qOff[i&qm]:qOff[i&qm+1]]
		out[i] = int32(indexOfChars(s, q)) + 1
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// indexOfChars is UTF8String.indexOf(v, 0): the code point index of the first match of v at a
// code point boundary, 0 for an empty v, -1 for none.
func indexOfChars(s, v []byte) int {
	if len(v) == 0 {
		return 0
	}
	k := bytes.Index(s, v)
	if k < 0 {
		return -1
	}
	if isASCII(s[:k]) {
		return k // every byte before the match is a code point and a boundary
	}
	for i, c := 0, 0; i < len(s); c++ {
		if i+len(v) > len(s) {
			return -1
		}
		if bytes.Equal(s[i:i+len(v)], v) {
			return c
		}
		i += int(utf8Width[s[i]])
	}
	return -1
}
