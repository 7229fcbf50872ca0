package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Unary math and bit functions whose results Go computes exactly as Java does:
//   - Sqrt (mathExpressions.scala, java.lang.Math.sqrt): IEEE 754 square root, correctly rounded
//     in both languages; a double argument (Spark casts others to double).
//   - Signum (Math.signum): the argument itself for a zero (keeping -0.0) or NaN, else +-1.0;
//     interval arguments are refused.
//   - BitwiseNot (~x) over byte, short, int, long.
//   - BitwiseCount (bit_count): Long.bitCount of the argument sign-extended to a long (so
//     bit_count(-1) is 64 for every integral type), 1 or 0 for a boolean.
//   - Factorial of an int: a long, null outside 0..20.
//   - EulerNumber (e()) and Pi (pi()): the doubles Math.E and Math.PI (Spark folds them into
//     literals before planning, so these rarely reach the engine).

func init() {
	Register("Sqrt", "sqrt(x) of a double: IEEE square root (as java.lang.Math.sqrt); NaN for negatives", unaryDoubleTranslator("sqrt", math.Sqrt))
	Register("Signum", "signum(x) of a double: -1.0, 1.0, or x itself for zeros (-0.0 kept) and NaN; intervals refused", unaryDoubleTranslator("signum", javaSignum))
	Register("BitwiseNot", "~x over byte/short/int/long", translateBitwiseNot)
	Register("BitwiseCount", "bit_count(x): set bits of an integral sign-extended to 64 bits (bit_count(-1) = 64), 1/0 for a boolean", translateBitCount)
	Register("Factorial", "factorial(n) of an int: a long, null outside 0..20", translateFactorial)
	Register("EulerNumber", "e(): Math.E", constDouble(math.E))
	Register("Pi", "pi(): Math.PI", constDouble(math.Pi))
}

// javaSignum is java.lang.Math.signum(double).
func javaSignum(d float64) float64 {
	if d == 0 || d != d {
		return d
	}
	return math.Copysign(1, d)
}

func constDouble(v float64) Translator {
	return func(pe *plan.Expr, _ *plan.Conf) (Expr, error) {
		l, err := newLiteral(sparktype.DoubleType, json.RawMessage(fmt.Sprintf(`{"bits":%d}`, int64(math.Float64bits(v)))))
		if err != nil {
			return nil, err
		}
		l.text = plan.ShortClass(pe.Class) + "()"
		return l, nil
	}
}

// ---- unary kernels ----

// unaryNum is a null-intolerant function of one numeric or boolean argument: kernel computes
// every row (null rows too: their values are never read) and may null more rows through k.
type unaryNum struct {
	name   string
	child  Expr
	typ    sparktype.Type
	kernel func(k *kernelArgs, in arrow.Array) *memory.Buffer
}

func (e *unaryNum) Type() sparktype.Type { return e.typ }
func (e *unaryNum) mayFail() bool        { return mayFail(e.child) }
func (e *unaryNum) String() string       { return fmt.Sprintf("%s(%s)", e.name, e.child) }

func (e *unaryNum) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *unaryNum) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	obuf := e.kernel(&k, in)
	return finish(dt, n, k.vbuf, obuf, k.nulls), nil
}

// mapValues applies f to every value of in (a fixed-width column of T).
func mapValues[T, R any](alloc memory.Allocator, in arrow.Array, f func(T) R) *memory.Buffer {
	a := values[T](in)
	obuf, out := newFixed[R](alloc, len(a))
	for i, x := range a {
		out[i] = f(x)
	}
	return obuf
}

func unaryDoubleTranslator(name string, f func(float64) float64) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Double {
			return nil, unsupported("%s of %s is not supported natively (double expected)", plan.ShortClass(pe.Class), c.Type())
		}
		return &unaryNum{name: name, child: c, typ: sparktype.DoubleType, kernel: func(k *kernelArgs, in arrow.Array) *memory.Buffer {
			return mapValues(k.alloc, in, f)
		}}, nil
	}
}

// ---- BitwiseNot ----

func notKernel[T integer](k *kernelArgs, in arrow.Array) *memory.Buffer {
	return mapValues(k.alloc, in, func(x T) T { return ^x })
}

func translateBitwiseNot(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	e := &unaryNum{name: "~", child: c, typ: c.Type()}
	switch c.Type().Kind {
	case sparktype.Byte:
		e.kernel = notKernel[int8]
	case sparktype.Short:
		e.kernel = notKernel[int16]
	case sparktype.Int:
		e.kernel = notKernel[int32]
	case sparktype.Long:
		e.kernel = notKernel[int64]
	default:
		return nil, unsupported("BitwiseNot of %s is not supported natively", c.Type())
	}
	return e, nil
}

// ---- BitwiseCount ----

func bitCountKernel[T integer](k *kernelArgs, in arrow.Array) *memory.Buffer {
	return mapValues(k.alloc, in, func(x T) int32 { return int32(bits.OnesCount64(uint64(int64(x)))) })
}

func translateBitCount(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	e := &unaryNum{name: "bit_count", child: c, typ: sparktype.IntType}
	switch c.Type().Kind {
	case sparktype.Byte:
		e.kernel = bitCountKernel[int8]
	case sparktype.Short:
		e.kernel = bitCountKernel[int16]
	case sparktype.Int:
		e.kernel = bitCountKernel[int32]
	case sparktype.Long:
		e.kernel = bitCountKernel[int64]
	case sparktype.Boolean:
		e.kernel = func(k *kernelArgs, in arrow.Array) *memory.Buffer {
			obuf, out := newFixed[int32](k.alloc, k.n)
			d := in.Data()
			bm, off := d.Buffers()[1].Bytes(), d.Offset()
			for i := range out {
				out[i] = int32(bm[(off+i)>>3] >> ((off + i) & 7) & 1)
			}
			return obuf
		}
	default:
		return nil, unsupported("BitwiseCount of %s is not supported natively", c.Type())
	}
	return e, nil
}

// ---- Factorial ----

var factorials = func() (f [21]int64) {
	f[0] = 1
	for i := 1; i < len(f); i++ {
		f[i] = f[i-1] * int64(i)
	}
	return
}()

func translateFactorial(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Int {
		return nil, unsupported("Factorial of %s is not supported natively (int expected)", c.Type())
	}
	return &unaryNum{name: "factorial", child: c, typ: sparktype.LongType, kernel: func(k *kernelArgs, in arrow.Array) *memory.Buffer {
		a := values[int32](in)
		obuf, out := newFixed[int64](k.alloc, len(a))
		for i, x := range a {
			if x < 0 || x > 20 {
				out[i] = 0
				k.setNull(i)
				continue
			}
			out[i] = factorials[x]
		}
		return obuf
	}}, nil
}
