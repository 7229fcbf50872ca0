package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// StringLPad and StringRPad (lpad, rpad of strings; binary pads are StaticInvoke calls Spark plans
// separately) as UTF8String.lpad/rpad, counting code points as numBytesForFirstByte does:
//   - spaces = len - numChars(str); when spaces <= 0 or pad is empty the result is the first
//     len code points of str (empty for len <= 0);
//   - otherwise pad repeated spaces / numChars(pad) times, then the first spaces % numChars(pad)
//     code points of pad, before (lpad) or after (rpad) str.
// Null if any argument is null. A truncated code point at the end of str or pad (invalid UTF-8)
// is cut at the string's end, as the engine's Substring does (UTF8String reads past its end).

func init() {
	Register("StringLPad", "lpad(str, len, pad) of UTF8_BINARY strings: str left-padded with pad (repeated, cut) to len code points, or cut to len; len <= 0 gives ''; an empty pad only cuts", padTranslator(true))
	Register("StringRPad", "rpad(str, len, pad) of UTF8_BINARY strings: str right-padded to len code points, as lpad", padTranslator(false))
}

type strPad struct {
	left          bool
	str, len, pad Expr
}

func (e *strPad) Type() sparktype.Type { return e.str.Type() }
func (e *strPad) mayFail() bool        { return mayFail(e.str) || mayFail(e.len) || mayFail(e.pad) }
func (e *strPad) String() string {
	name := "rpad"
	if e.left {
		name = "lpad"
	}
	return fmt.Sprintf("%s(%s, %s, %s)", name, e.str, e.len, e.pad)
}

func padTranslator(left bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		s, err := translateChild(pe, "str", conf)
		if err != nil {
			return nil, err
		}
		l, err := translateChild(pe, "len", conf)
		if err != nil {
			return nil, err
		}
		p, err := translateChild(pe, "pad", conf)
		if err != nil {
			return nil, err
		}
		if !binaryCollation(s.Type()) || !binaryCollation(p.Type()) {
			return nil, unsupported("%s of %s with pad %s is not supported natively (UTF8_BINARY strings only)", cls, s.Type(), p.Type())
		}
		if l.Type().Kind != sparktype.Int {
			return nil, unsupported("%s with a length of type %s is not supported natively (int expected)", cls, l.Type())
		}
		return &strPad{left: left, str: s, len: l, pad: p}, nil
	}
}

// prefixChars returns the bytes of the first n code points of s (all of s when it has fewer); a
// truncated last code point ends at len(s).
func prefixChars(s []byte, n int) []byte {
	p, _ := prefixCharsCount(s, n)
	return p
}

// prefixCharsCount is prefixChars and the number of code points in the prefix: numChars(s) when
// the prefix is all of s.
func prefixCharsCount(s []byte, n int) ([]byte, int) {
	if n <= 0 {
		return s[:0], 0
	}
	// An ASCII prefix of at least n bytes (or all of s) holds the first n chars byte for byte.
	i := asciiPrefix(s[:min(n, len(s))])
	if i >= n || i == len(s) {
		return s[:i], i
	}
	c := i // chars so far: one per ASCII byte
	for i < len(s) && c < n {
		i += int(utf8Width[s[i]])
		c++
	}
	return s[:min(i, len(s))], c
}

func (e *strPad) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *strPad) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.str, e.len, e.pad)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	so, lo, po := ops[0], ops[1], ops[2]
	dt := e.Type().Arrow()
	if n == 0 || so.nullScalar() || lo.nullScalar() || po.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	sOff, sData, sm := operandBytes(so)
	lens, lm := values[int32](lo.arr), lo.mask()
	pOff, pData, pm := operandBytes(po)
	out, err := newBytesOut(ctx.Alloc, n, int64(sOff[len(sOff)-1]-sOff[0]))
	if err != nil {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, err
	}
	// A constant pad repeated into a run: a row's padding (count pads, then a prefix of one) is
	// a prefix of that run, one copy instead of one per pad. lpad(code, 12, '0') appended its
	// one-byte pad up to a dozen times per row, each a call to memmove.
	var runBuf [256]byte
	var run []byte
	if pm == 0 {
		if p := pData[pOff[0]:pOff[1]]; len(p) > 0 {
			k := copy(runBuf[:], p)
			for ; 2*k <= len(runBuf); k *= 2 { // doubling keeps whole pads
				copy(runBuf[k:], runBuf[:k])
			}
			for ; k > 0 && k+len(p) <= len(runBuf); k += len(p) {
				copy(runBuf[k:], p)
			}
			if len(p) > len(runBuf) {
				k = 0 // not even one whole pad
			}
			run = runBuf[:k]
		}
	}
	constPadChars := -1 // a constant pad's characters, counted once
	if pm == 0 {
		constPadChars = numChars(pData[pOff[0]:pOff[1]])
	}
	for i := 0; i < n; i++ {
		if !validRow(vbuf, i) {
			out.endRow(i)
			continue
		}
		s := sData[sOff[i&sm]:sOff[i&sm+1]]
		pad := pData[pOff[i&pm]:pOff[i&pm+1]]
		length := int(lens[i&lm])
		// The first length characters first: when bytes are left after them, s is longer than
		// length and that prefix is the result, found without counting the rest of s (fn30's
		// rpad(s, 8, '*') cuts about half its strings). Else the prefix is all of s and its
		// count the characters to pad up from, in the same walk over s.
		cut, nc := prefixCharsCount(s, length)
		spaces := 0
		if len(cut) == len(s) && len(pad) > 0 {
			spaces = length - nc // nc is numChars(s) here
		}
		if spaces <= 0 {
			if err := out.ensure(len(cut)); err != nil {
				return e.fail(out, vbuf, err)
			}
			out.append(cut)
			out.endRow(i)
			continue
		}
		padChars := constPadChars
		if pm != 0 {
			padChars = numChars(pad)
		}
		count := spaces / padChars
		remain := prefixChars(pad, spaces-padChars*count)
		if err := out.ensure(len(s) + len(pad)*count + len(remain)); err != nil {
			return e.fail(out, vbuf, err)
		}
		if !e.left {
			out.append(s)
		}
		if fill := len(pad)*count + len(remain); fill <= len(run) {
			out.append(run[:fill])
		} else {
			for k := 0; k < count; k++ {
				out.append(pad)
			}
			out.append(remain)
		}
		if e.left {
			out.append(s)
		}
		out.endRow(i)
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

func (e *strPad) fail(out *bytesOut, vbuf *memory.Buffer, err error) (arrow.Array, error) {
	out.release()
	if vbuf != nil {
		vbuf.Release()
	}
	return nil, fmt.Errorf("%s: %w", e, err)
}
