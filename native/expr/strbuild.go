package expr

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// String functions that build strings, and byte sizes, over UTF8_BINARY strings:
//   - StringTrim, StringTrimLeft, StringTrimRight without a trim string (with one: strtrim.go): UTF8String.trim,
//     trimLeft, trimRight, which remove ASCII spaces (0x20) only, not other whitespace.
//   - Concat of strings: null if any argument is null (every argument is evaluated, as Spark's).
//   - ConcatWs of a separator and strings: null only if the separator is; null arguments are
//     skipped (arrays of strings are refused).
//   - OctetLength, BitLength of a string or binary: its bytes, times 8 for bits.

func init() {
	Register("StringTrim", "trim(str): str without leading and trailing ASCII spaces (0x20) only, as UTF8String.trim; with a trim string, its code points removed from both ends (strtrim.go)", trimTranslator(trimBoth))
	Register("StringTrimLeft", "ltrim(str): str without leading ASCII spaces; with a trim string, its code points removed from the start", trimTranslator(trimLeft))
	Register("StringTrimRight", "rtrim(str): str without trailing ASCII spaces; with a trim string, its code points removed from the end", trimTranslator(trimRight))
	Register("Concat", "concat(s1, s2, ...) of strings: null if any is null (binary and arrays refused)", translateConcat)
	Register("ConcatWs", "concat_ws(sep, s1, s2, ...) of strings: null arguments skipped, null if sep is null (array arguments refused)", translateConcatWs)
	Register("OctetLength", "octet_length(s): bytes of a string or binary", byteLengthTranslator(1))
	Register("BitLength", "bit_length(s): bits (8 per byte) of a string or binary", byteLengthTranslator(8))
}

// ---- trim family ----

type trimSide uint8

const (
	trimBoth trimSide = iota
	trimLeft
	trimRight
)

var trimNames = [...]string{trimBoth: "trim", trimLeft: "ltrim", trimRight: "rtrim"}

type strTrim struct {
	side  trimSide
	child Expr
}

func (e *strTrim) Type() sparktype.Type { return e.child.Type() }
func (e *strTrim) mayFail() bool        { return mayFail(e.child) }
func (e *strTrim) String() string       { return fmt.Sprintf("%s(%s)", trimNames[e.side], e.child) }

// isNullField reports whether a constructor field is absent or null (a Scala None).
func isNullField(pe *plan.Expr, name string) bool {
	raw, ok := pe.Fields[name]
	return !ok || raw == nil || string(raw) == "null"
}

func trimTranslator(side trimSide) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		if !isNullField(pe, "trimStr") {
			return translateTrimWith(pe, side, conf) // strtrim.go
		}
		c, err := translateChild(pe, "srcStr", conf)
		if err != nil {
			return nil, err
		}
		if !binaryCollation(c.Type()) {
			return nil, unsupported("%s of %s is not supported natively (UTF8_BINARY strings only)", cls, c.Type())
		}
		return &strTrim{side: side, child: c}, nil
	}
}

func (e *strTrim) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strTrim) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
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
	startBuf, starts := newFixed[int32](ctx.Alloc, n)
	defer startBuf.Release()
	offBuf, out := newFixed[int32](ctx.Alloc, n+1)
	out[0] = 0
	total := int32(0)
	for i := 0; i < n; i++ {
		s, t := offs[i], offs[i+1]
		if e.side != trimRight {
			for s < t && data[s] == ' ' {
				s++
			}
		}
		if e.side != trimLeft {
			for t > s && data[t-1] == ' ' {
				t--
			}
		}
		starts[i] = s
		total += t - s // at most the input's bytes: no overflow
		out[i+1] = total
	}
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(int(total))
	dst := dataBuf.Bytes()
	for i := 0; i < n; i++ {
		copy(dst[out[i]:out[i+1]], data[starts[i]:])
	}
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}

// ---- Concat, ConcatWs ----

type concat struct {
	sep  Expr // ConcatWs: the separator; nil for Concat
	args []Expr
}

func (e *concat) Type() sparktype.Type { return sparktype.StringType }
func (e *concat) mayFail() bool {
	if e.sep != nil && mayFail(e.sep) {
		return true
	}
	for _, a := range e.args {
		if mayFail(a) {
			return true
		}
	}
	return false
}

func (e *concat) String() string {
	parts := make([]string, 0, len(e.args)+1)
	if e.sep != nil {
		parts = append(parts, e.sep.String())
	}
	for _, a := range e.args {
		parts = append(parts, a.String())
	}
	if e.sep != nil {
		return "concat_ws(" + strings.Join(parts, ", ") + ")"
	}
	return "concat(" + strings.Join(parts, ", ") + ")"
}

func translateConcat(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	args, err := translateChildren(pe, "children", conf)
	if err != nil {
		return nil, err
	}
	for _, a := range args {
		if !binaryCollation(a.Type()) {
			return nil, unsupported("Concat of %s is not supported natively (UTF8_BINARY strings only)", a.Type())
		}
	}
	return &concat{args: args}, nil
}

func translateConcatWs(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	all, err := translateChildren(pe, "children", conf)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("ConcatWs without a separator")
	}
	for _, a := range all {
		if !binaryCollation(a.Type()) {
			return nil, unsupported("ConcatWs of %s is not supported natively (UTF8_BINARY strings only)", a.Type())
		}
	}
	return &concat{sep: all[0], args: all[1:]}, nil
}

func (e *concat) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *concat) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	exprs := e.args
	if e.sep != nil {
		exprs = append([]Expr{e.sep}, e.args...)
	}
	ops := make([]operand, 0, len(exprs))
	defer func() {
		for _, o := range ops {
			o.release()
		}
	}()
	for _, x := range exprs {
		o, err := evalOperandActive(ctx, b, x, active)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	dt := arrow.BinaryTypes.String
	if n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	type part struct {
		offs []int32
		data []byte
		mask int
		arr  arrow.Array
	}
	parts := make([]part, len(ops))
	for i, o := range ops {
		offs, data, m := operandBytes(o)
		parts[i] = part{offs, data, m, o.arr}
	}
	// The result is null where Concat has a null argument, or where ConcatWs's separator is.
	var vbuf *memory.Buffer
	var nulls int
	if e.sep != nil {
		if ops[0].nullScalar() {
			return allNull(ctx.Alloc, dt, n), nil
		}
		vbuf, nulls = andValidity(ctx.Alloc, n, nonScalar(ops[:1])...)
	} else {
		for _, o := range ops {
			if o.nullScalar() {
				return allNull(ctx.Alloc, dt, n), nil
			}
		}
		vbuf, nulls = andValidity(ctx.Alloc, n, nonScalar(ops)...)
	}
	// Pass 1: sizes. ConcatWs puts the separator between the non-null arguments only.
	offBuf, out := newFixed[int32](ctx.Alloc, n+1)
	out[0] = 0
	var total int64
	for i := 0; i < n; i++ {
		if validRow(vbuf, i) {
			if e.sep == nil {
				for _, p := range parts {
					j := i & p.mask
					total += int64(p.offs[j+1] - p.offs[j])
				}
			} else {
				j := i & parts[0].mask
				sepLen := int64(parts[0].offs[j+1] - parts[0].offs[j])
				k := 0
				for _, p := range parts[1:] {
					j := i & p.mask
					if p.arr.IsNull(j) {
						continue
					}
					if k > 0 {
						total += sepLen
					}
					total += int64(p.offs[j+1] - p.offs[j])
					k++
				}
			}
		}
		if total > math.MaxInt32 {
			offBuf.Release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("%s: result exceeds %d bytes in one batch", e.String(), math.MaxInt32)
		}
		out[i+1] = int32(total)
	}
	// Pass 2: copy.
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(int(total))
	dst := dataBuf.Bytes()
	for i := 0; i < n; i++ {
		if out[i] == out[i+1] {
			continue
		}
		w := int(out[i])
		if e.sep == nil {
			for _, p := range parts {
				j := i & p.mask
				w += copy(dst[w:], p.data[p.offs[j]:p.offs[j+1]])
			}
			continue
		}
		j := i & parts[0].mask
		sep := parts[0].data[parts[0].offs[j]:parts[0].offs[j+1]]
		k := 0
		for _, p := range parts[1:] {
			j := i & p.mask
			if p.arr.IsNull(j) {
				continue
			}
			if k > 0 {
				w += copy(dst[w:], sep)
			}
			w += copy(dst[w:], p.data[p.offs[j]:p.offs[j+1]])
			k++
		}
	}
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}

// nonScalar returns the column operands' arrays (constants are handled before).
func nonScalar(ops []operand) []arrow.Array {
	var out []arrow.Array
	for _, o := range ops {
		if !o.scalar {
			out = append(out, o.arr)
		}
	}
	return out
}

// ---- OctetLength, BitLength ----

type byteLength struct {
	mul   int32
	child Expr
}

func (e *byteLength) Type() sparktype.Type { return sparktype.IntType }
func (e *byteLength) mayFail() bool        { return mayFail(e.child) }
func (e *byteLength) String() string {
	if e.mul == 8 {
		return fmt.Sprintf("bit_length(%s)", e.child)
	}
	return fmt.Sprintf("octet_length(%s)", e.child)
}

func byteLengthTranslator(mul int32) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if t := c.Type(); !binaryCollation(t) && t.Kind != sparktype.Binary {
			return nil, unsupported("%s of %s is not supported natively", plan.ShortClass(pe.Class), t)
		}
		return &byteLength{mul: mul, child: c}, nil
	}
}

func (e *byteLength) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *byteLength) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
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
	offs, _ := binaryParts(in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	for i := range out {
		out[i] = (offs[i+1] - offs[i]) * e.mul // Java int arithmetic, as Spark's numBytes * 8
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- StringReplace, StringRepeat ----

// StringReplace is UTF8String.replace: every non-overlapping occurrence of search, left to right,
// bytewise; an empty search (or source) leaves the source as it is. StringRepeat is
// UTF8String.repeat: times <= 0 gives "".
type strReplace struct {
	src, search, repl Expr // repl nil: StringRepeat, with search holding the times
	repeat            bool
}

func (e *strReplace) Type() sparktype.Type { return sparktype.StringType }
func (e *strReplace) mayFail() bool {
	return mayFail(e.src) || mayFail(e.search) || e.repl != nil && mayFail(e.repl)
}

func (e *strReplace) String() string {
	if e.repeat {
		return fmt.Sprintf("repeat(%s, %s)", e.src, e.search)
	}
	return fmt.Sprintf("replace(%s, %s, %s)", e.src, e.search, e.repl)
}

func init() {
	Register("StringReplace", "replace(str, search, rep) of UTF8_BINARY strings: every non-overlapping occurrence, bytewise; an empty search changes nothing", translateReplace)
	Register("StringRepeat", "repeat(str, n): str n times, \"\" for n <= 0", translateRepeat)
}

func translateReplace(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	var args [3]Expr
	for i, f := range []string{"srcExpr", "searchExpr", "replaceExpr"} {
		a, err := translateChild(pe, f, conf)
		if err != nil {
			return nil, err
		}
		if !binaryCollation(a.Type()) {
			return nil, unsupported("StringReplace of %s is not supported natively (UTF8_BINARY strings only)", a.Type())
		}
		args[i] = a
	}
	return &strReplace{src: args[0], search: args[1], repl: args[2]}, nil
}

func translateRepeat(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := translateChild(pe, "str", conf)
	if err != nil {
		return nil, err
	}
	n, err := translateChild(pe, "times", conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(s.Type()) || n.Type().Kind != sparktype.Int {
		return nil, unsupported("StringRepeat of %s and %s is not supported natively", s.Type(), n.Type())
	}
	return &strReplace{src: s, search: n, repeat: true}, nil
}

func (e *strReplace) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strReplace) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	exprs := []Expr{e.src, e.search}
	if e.repl != nil {
		exprs = append(exprs, e.repl)
	}
	ops := make([]operand, 0, 3)
	defer func() {
		for _, o := range ops {
			o.release()
		}
	}()
	for _, x := range exprs {
		o, err := evalOperandActive(ctx, b, x, active)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	dt := arrow.BinaryTypes.String
	for _, o := range ops {
		if o.nullScalar() {
			return allNull(ctx.Alloc, dt, n), nil
		}
	}
	if n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	sOff, sData, sm := operandBytes(ops[0])
	// The other operands' views, taken once per batch: repeat's counts, or replace's search and
	// replacement strings.
	var times []int32
	var tm int
	var qOff, rOff []int32
	var qData, rData []byte
	var qm, rm int
	if e.repeat {
		times, tm = values[int32](ops[1].arr), ops[1].mask()
	} else {
		qOff, qData, qm = operandBytes(ops[1])
		rOff, rData, rm = operandBytes(ops[2])
	}
	offBuf, out := newFixed[int32](ctx.Alloc, n+1)
	out[0] = 0
	var buf []byte // Go heap scratch: the results, copied into the Arrow buffer at the end
	fail := func(err error) (arrow.Array, error) {
		offBuf.Release()
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		if validRow(vbuf, i) {
			j := i & sm
			s := sData[sOff[j]:sOff[j+1]]
			if e.repeat {
				if times := times[i&tm]; times > 0 {
					if int64(len(s))*int64(times) > math.MaxInt32 {
						// UTF8String.repeat: Math.multiplyExact(numBytes, times).
						return fail(fmt.Errorf("%s: a %d-byte string repeated %d times exceeds 2^31 bytes", e, len(s), times))
					}
					for k := int32(0); k < times; k++ {
						buf = append(buf, s...)
					}
				}
			} else {
				q := qData[qOff[i&qm]:qOff[i&qm+1]]
				r := rData[rOff[i&rm]:rOff[i&rm+1]]
				buf = appendReplaced(buf, s, q, r)
			}
		}
		if len(buf) > math.MaxInt32 {
			return fail(fmt.Errorf("%s: result exceeds %d bytes in one batch", e, math.MaxInt32))
		}
		out[i+1] = int32(len(buf))
	}
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(len(buf))
	copy(dataBuf.Bytes(), buf)
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}

// appendReplaced appends s with every non-overlapping occurrence of q replaced by r.
func appendReplaced(dst, s, q, r []byte) []byte {
	if len(s) == 0 || len(q) == 0 {
		return append(dst, s...)
	}
	for {
		k := bytes.Index(s, q)
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(append(dst, s[:k]...), r...)
		s = s[k+len(q):]
	}
}
