package expr

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Conv (conv(num, fromBase, toBase)) as Spark 4.1's NumberConverter.convert computes it (the
// MySQL/Hive algorithm through a 64-bit unsigned value): null for a base outside [2, 36] (by
// absolute value for toBase) or a num empty once Conv trimmed its spaces; a leading '-' is taken off; the digits are read
// up to the first byte that is not a digit of fromBase (non-ASCII bytes never are); on overflow
// the value is -1 (all ones), or with ansiEnabled ARITHMETIC_OVERFLOW ("Overflow in function
// conv()"). A positive toBase prints the value unsigned (a negative input negated first, -1
// staying -1); a negative toBase prints it signed. Digits are uppercase.

func init() {
	Register("Conv", "conv(num, fromBase, toBase) of a UTF8_BINARY string and ints: NumberConverter's unsigned 64-bit conversion (null for bases outside 2..36; -1 on overflow, ARITHMETIC_OVERFLOW with ansiEnabled)", translateConv)
}

type conv struct {
	namedCall
	ansi bool
	typ  sparktype.Type
}

func (e *conv) Type() sparktype.Type { return e.typ }
func (e *conv) mayFail() bool        { return e.ansi || e.namedCall.mayFail() }

func translateConv(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	num, err := stringChild(pe, "numExpr", conf)
	if err != nil {
		return nil, err
	}
	from, err := translateChild(pe, "fromBaseExpr", conf)
	if err != nil {
		return nil, err
	}
	to, err := translateChild(pe, "toBaseExpr", conf)
	if err != nil {
		return nil, err
	}
	if from.Type().Kind != sparktype.Int || to.Type().Kind != sparktype.Int {
		return nil, unsupported("Conv with bases of %s and %s is not supported natively (ints)", from.Type(), to.Type())
	}
	ansi, err := pe.Bool("ansiEnabled")
	if err != nil {
		return nil, err
	}
	return &conv{namedCall: namedCall{name: "conv", args: []Expr{num, from, to}}, ansi: ansi, typ: t}, nil
}

// digitOf is Character.digit of an ASCII byte in base 36 (36 for any other byte).
var digitOf = func() (d [256]byte) {
	for i := range d {
		switch c := byte(i); {
		case c >= '0' && c <= '9':
			d[i] = c - '0'
		case c >= 'a' && c <= 'z':
			d[i] = c - 'a' + 10
		case c >= 'A' && c <= 'Z':
			d[i] = c - 'A' + 10
		default:
			d[i] = 36
		}
	}
	return
}()

// trimSpaces is UTF8String.trim, which Conv.nullSafeEval applies before NumberConverter: spaces
// (0x20 only) off both ends.
func trimSpaces(n []byte) []byte {
	for len(n) > 0 && n[0] == ' ' {
		n = n[1:]
	}
	for len(n) > 0 && n[len(n)-1] == ' ' {
		n = n[:len(n)-1]
	}
	return n
}

// convRow appends NumberConverter.convert(n, from, to) to dst; ok is false for a null result.
func convRow(dst, n []byte, from, to int32, ansi bool) ([]byte, bool, error) {
	if from < 2 || from > 36 || to < -36 || to > 36 || (to > -2 && to < 2) || len(n) == 0 {
		return dst, false, nil
	}
	negative := n[0] == '-'
	if negative {
		n = n[1:]
	}
	// encode: NumberConverter compares signed longs against an unsigned bound.
	radix := uint64(from)
	bound := int64((^uint64(0) - radix) / radix) // divideUnsigned(-1 - radix, radix)
	var v int64
	for _, c := range n {
		d := digitOf[c]
		if uint64(d) >= radix {
			break
		}
		if v < 0 {
			if ansi {
				return dst, false, exec.ArithmeticOverflow("Overflow in function conv()", "")
			}
			v = -1
			break
		}
		if v >= bound && int64((uint64(-1-int64(d)))/radix) < v {
			if ansi {
				return dst, false, exec.ArithmeticOverflow("Overflow in function conv()", "")
			}
			v = -1
			break
		}
		v = v*int64(radix) + int64(d)
	}
	if negative && to > 0 {
		if v < 0 {
			v = -1
		} else {
			v = -v
		}
	}
	if to < 0 && v < 0 {
		v = -v
		negative = true
	}
	base := uint64(to)
	if to < 0 {
		base = uint64(-to)
	}
	var buf [65]byte
	i := len(buf)
	u := uint64(v)
	for u != 0 {
		q, r := bits.Div64(0, u, base)
		i--
		buf[i] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r]
		u = q
	}
	if i == len(buf) {
		i--
		buf[i] = '0'
	}
	if negative && to < 0 {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...), true, nil
}

func (e *conv) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *conv) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
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
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	offs, data, sm := operandBytes(ops[0])
	from, fm := values[int32](ops[1].arr), ops[1].mask()
	to, tm := values[int32](ops[2].arr), ops[2].mask()
	out, err := newBytesOut(ctx.Alloc, n, int64(n)*66)
	if err != nil {
		if k.vbuf != nil {
			k.vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	for i := 0; i < n; i++ {
		if !k.rowValid(i) || (active != nil && active[i>>3]&(1<<(i&7)) == 0) {
			out.endRow(i)
			continue
		}
		j := i & sm
		res, ok, err := convRow(out.room()[:0], trimSpaces(data[offs[j]:offs[j+1]]), from[i&fm], to[i&tm], e.ansi)
		if err != nil {
			out.release()
			if k.vbuf != nil {
				k.vbuf.Release()
			}
			return nil, err
		}
		if !ok {
			k.setNull(i)
			res = res[:0]
		}
		out.end(i, len(res))
	}
	return out.finish(dt, n, k.vbuf, k.nulls), nil
}
