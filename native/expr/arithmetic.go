package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Binary arithmetic, after Spark's arithmetic.scala (Add, Subtract, Multiply, Divide, Remainder, Pmod):
//   - byte/short/int/long: LEGACY wraps (Java), ANSI raises ARITHMETIC_OVERFLOW (int/long,
//     MathUtils.*Exact: message "integer overflow"/"long overflow", alternative naming try_add,
//     try_subtract, try_multiply) or BINARY_ARITHMETIC_OVERFLOW (byte/short), TRY gives null.
//   - float/double: IEEE (Java) semantics, never an error.
//   - Divide (double, decimal) and Remainder: a null or zero divisor gives null, except in ANSI
//     where a zero divisor with a non-null dividend raises DIVIDE_BY_ZERO (REMAINDER_BY_ZERO for
//     Remainder). Divide's TRY mode behaves as LEGACY (Divide.failOnError is ANSI only).
//   - decimal: see decimal.go; the result type is the expression's own dataType.

type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv
	opRem
	opPmod
)

var arithInfo = [...]struct{ class, symbol, try string }{
	opAdd:  {"Add", "+", "try_add"},
	opSub:  {"Subtract", "-", "try_subtract"},
	opMul:  {"Multiply", "*", "try_multiply"},
	opDiv:  {"Divide", "/", "try_divide"},
	opRem:  {"Remainder", "%", "try_remainder"},
	opPmod: {"Pmod", "pmod", ""},
}

func init() {
	Register("Add", "left + right over byte/short/int/long/float/double/decimal; LEGACY wraps, ANSI raises overflow errors, TRY gives null", arithTranslator(opAdd))
	Register("Subtract", "left - right over byte/short/int/long/float/double/decimal; same overflow rules as Add", arithTranslator(opSub))
	Register("Multiply", "left * right over byte/short/int/long/float/double/decimal (decimal rounded like Spark: 38 digits, then the result scale)", arithTranslator(opMul))
	Register("Divide", "left / right over double/decimal; zero divisor gives null, DIVIDE_BY_ZERO in ANSI", arithTranslator(opDiv))
	Register("Pmod", "pmod(left, right) over byte/short/int/long/float/double: r = left % right, (r + right) % right when r < 0 (Java arithmetic); zero divisor gives null, DIVIDE_BY_ZERO in ANSI; decimals and TRY mode refused", arithTranslator(opPmod))
	Register("Remainder", "left % right (Java sign rules) over byte/short/int/long/float/double/decimal; zero divisor gives null, REMAINDER_BY_ZERO in ANSI; TRY mode refused", arithTranslator(opRem))
}

type arith struct {
	op          arithOp
	mode        evalMode
	typ         sparktype.Type
	left, right Expr
	dec         *decOp // decimal operands
}

func (e *arith) Type() sparktype.Type { return e.typ }
func (e *arith) String() string {
	return fmt.Sprintf("(%s %s %s)", e.left, arithInfo[e.op].symbol, e.right)
}

func (e *arith) mayFail() bool {
	if mayFail(e.left) || mayFail(e.right) {
		return true
	}
	if e.mode != modeANSI {
		return false
	}
	if e.op == opDiv || e.op == opRem || e.op == opPmod {
		return true // division by zero
	}
	return !e.typ.IsFloating()
}

func arithTranslator(op arithOp) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := arithInfo[op].class
		mode, err := exprEvalMode(pe)
		if err != nil {
			return nil, err
		}
		t, err := pe.Type()
		if err != nil {
			return nil, err
		}
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		lt, rt := l.Type(), r.Type()
		e := &arith{op: op, mode: mode, typ: t, left: l, right: r}
		if (op == opRem || op == opPmod) && mode == modeTry {
			return nil, unsupported("%s in TRY mode is not supported natively", name)
		}
		if op == opPmod && t.Kind == sparktype.Decimal {
			return nil, unsupported("Pmod of decimals is not supported natively")
		}
		switch {
		case t.Kind == sparktype.Decimal:
			if lt.Kind != sparktype.Decimal || rt.Kind != sparktype.Decimal {
				return nil, unsupported("%s of %s and %s returning %s is not supported natively", name, lt, rt, t)
			}
			d, err := newDecOp(op, lt, rt, t)
			if err != nil {
				return nil, err
			}
			e.dec = d
		case t.IsIntegral() || t.IsFloating():
			if !lt.Equal(t) || !rt.Equal(t) {
				return nil, unsupported("%s of %s and %s returning %s is not supported natively", name, lt, rt, t)
			}
			if op == opDiv && t.Kind != sparktype.Double {
				return nil, unsupported("Divide returning %s is not supported natively", t)
			}
		default:
			return nil, unsupported("%s returning %s is not supported natively", name, t)
		}
		return e, nil
	}
}

func (e *arith) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *arith) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	divmod := e.op == opDiv || e.op == opRem || e.op == opPmod
	var lo, ro operand
	var err error
	if divmod {
		// Spark evaluates the divisor first and skips the dividend when the divisor is null
		// or (outside ANSI) zero.
		if ro, err = evalOperandActive(ctx, b, e.right, active); err != nil {
			return nil, err
		}
		defer ro.release()
		var lact []byte
		if mayFail(e.left) {
			lact = andActiveValid(active, ro, n)
			if e.mode != modeANSI {
				andNonZero(lact, ro, e.typ, n)
			}
		}
		if lo, err = evalOperandActive(ctx, b, e.left, lact); err != nil {
			return nil, err
		}
		defer lo.release()
	} else {
		if lo, err = evalOperandActive(ctx, b, e.left, active); err != nil {
			return nil, err
		}
		defer lo.release()
		var ract []byte
		if mayFail(e.right) {
			ract = andActiveValid(active, lo, n)
		}
		if ro, err = evalOperandActive(ctx, b, e.right, ract); err != nil {
			return nil, err
		}
		defer ro.release()
	}
	dt := e.typ.Arrow()
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	k := kernelArgs{alloc: ctx.Alloc, n: n, l: lo, r: ro, vbuf: vbuf, nulls: nulls, active: active}
	var out arrow.Array
	switch e.typ.Kind {
	case sparktype.Byte:
		out, err = intKernel[int8](e, &k)
	case sparktype.Short:
		out, err = intKernel[int16](e, &k)
	case sparktype.Int:
		out, err = intKernel[int32](e, &k)
	case sparktype.Long:
		out, err = intKernel[int64](e, &k)
	case sparktype.Float:
		out, err = floatKernel[float32](e, &k)
	case sparktype.Double:
		out, err = floatKernel[float64](e, &k)
	case sparktype.Decimal:
		out, err = decKernel(e, &k)
	default:
		err = fmt.Errorf("%s: unexpected type %s", e, e.typ)
	}
	if err != nil && k.vbuf != nil {
		k.vbuf.Release()
	}
	return out, err
}

// andNonZero clears bits of act where the divisor o is zero.
func andNonZero(act []byte, o operand, t sparktype.Type, n int) {
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(act, i) && isZeroAt(o, t, i) {
			bitutil.ClearBit(act, i)
		}
	}
}

func isZeroAt(o operand, t sparktype.Type, i int) bool {
	if o.scalar {
		i = 0
	}
	switch t.Kind {
	case sparktype.Byte:
		return values[int8](o.arr)[i] == 0
	case sparktype.Short:
		return values[int16](o.arr)[i] == 0
	case sparktype.Int:
		return values[int32](o.arr)[i] == 0
	case sparktype.Long:
		return values[int64](o.arr)[i] == 0
	case sparktype.Float:
		return values[float32](o.arr)[i] == 0
	case sparktype.Double:
		return values[float64](o.arr)[i] == 0
	case sparktype.Decimal:
		n := values[decimal128.Num](o.arr)[i]
		return n.LowBits() == 0 && n.HighBits() == 0
	}
	return false
}

type kernelArgs struct {
	alloc  memory.Allocator
	n      int
	l, r   operand
	vbuf   *memory.Buffer // result validity (nil: all valid so far)
	nulls  int
	active []byte
}

// validBits returns the result validity bitmap, creating an all-valid one when needed.
func (k *kernelArgs) validBits() []byte {
	if k.vbuf == nil {
		var b []byte
		k.vbuf, b = newBitmap(k.alloc, k.n)
		bitutil.SetBitsTo(b, 0, int64(k.n), true)
		k.nulls = 0
	}
	return k.vbuf.Bytes()
}

func (k *kernelArgs) rowValid(i int) bool {
	return k.vbuf == nil || bitutil.BitIsSet(k.vbuf.Bytes(), i)
}

func (k *kernelArgs) setNull(i int) {
	vb := k.validBits()
	if bitutil.BitIsSet(vb, i) {
		bitutil.ClearBit(vb, i)
		k.nulls++
	}
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}
type float interface{ ~float32 | ~float64 }

func intKernel[T integer](e *arith, k *kernelArgs) (arrow.Array, error) {
	a, b := values[T](k.l.arr), values[T](k.r.arr)
	am, bm := k.l.mask(), k.r.mask()
	obuf, out := newFixed[T](k.alloc, k.n)
	var ovf bool
	switch e.op {
	case opAdd:
		ovf = addLoop(a, b, am, bm, out)
	case opSub:
		ovf = subLoop(a, b, am, bm, out)
	case opMul:
		ovf = mulLoop(a, b, am, bm, out)
	case opRem, opPmod:
		for i := range out {
			y := b[i&bm]
			if y == 0 {
				out[i] = 0
				if k.rowValid(i) {
					if e.mode == modeANSI && isActive(k.active, i) {
						obuf.Release()
						return nil, e.byZero()
					}
					k.setNull(i)
				}
				continue
			}
			if e.op == opPmod {
				out[i] = pmodInt(a[i&am], y)
				continue
			}
			out[i] = a[i&am] % y // Go and Java agree: sign of the dividend, MIN % -1 == 0
		}
	}
	if ovf && e.mode != modeLegacy {
		for i := range out {
			x, y := a[i&am], b[i&bm]
			if !intOverflows(e.op, x, y) || !k.rowValid(i) {
				continue
			}
			if e.mode == modeTry {
				k.setNull(i)
				continue
			}
			if !isActive(k.active, i) {
				k.setNull(i)
				continue
			}
			obuf.Release()
			return nil, intOverflowError(e.op, x, y)
		}
	}
	return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

func addLoop[T integer](a, b []T, am, bm int, out []T) bool {
	var o T
	for i := range out {
		x, y := a[i&am], b[i&bm]
		s := x + y
		out[i] = s
		o |= (s ^ x) & (s ^ y)
	}
	return o < 0
}

func subLoop[T integer](a, b []T, am, bm int, out []T) bool {
	var o T
	for i := range out {
		x, y := a[i&am], b[i&bm]
		d := x - y
		out[i] = d
		o |= (x ^ y) & (x ^ d)
	}
	return o < 0
}

func mulLoop[T integer](a, b []T, am, bm int, out []T) bool {
	switch any(out).(type) {
	case []int64:
		a64, b64, o64 := any(a).([]int64), any(b).([]int64), any(out).([]int64)
		var ovf uint64
		for i := range o64 {
			x, y := a64[i&am], b64[i&bm]
			hi, lo := bits.Mul64(uint64(x), uint64(y))
			hi -= uint64(x>>63) & uint64(y)
			hi -= uint64(y>>63) & uint64(x)
			o64[i] = int64(lo)
			ovf |= hi ^ uint64(int64(lo)>>63)
		}
		return ovf != 0
	default:
		var ovf bool
		for i := range out {
			p := int64(a[i&am]) * int64(b[i&bm])
			out[i] = T(p)
			ovf = ovf || p != int64(T(p))
		}
		return ovf
	}
}

func intOverflows[T integer](op arithOp, x, y T) bool {
	switch op {
	case opAdd:
		s := x + y
		return (s^x)&(s^y) < 0
	case opSub:
		d := x - y
		return (x^y)&(x^d) < 0
	case opMul:
		bx, by := big.NewInt(int64(x)), big.NewInt(int64(y))
		p := bx.Mul(bx, by)
		return !p.IsInt64() || p.Int64() != int64(T(p.Int64()))
	}
	return false
}

func intOverflowError[T integer](op arithOp, x, y T) error {
	info := arithInfo[op]
	switch any(x).(type) {
	case int8, int16:
		// QueryExecutionErrors.binaryArithmeticCauseOverflowError: operands as SMALLINT literals.
		return exec.BinaryArithmeticOverflow(fmt.Sprintf("%dS", int64(x)), info.symbol,
			fmt.Sprintf("%dS", int64(y)), "`"+info.try+"`")
	case int32:
		return exec.ArithmeticOverflow("integer overflow", " Use '"+info.try+"' to tolerate overflow and return NULL instead.")
	default:
		return exec.ArithmeticOverflow("long overflow", " Use '"+info.try+"' to tolerate overflow and return NULL instead.")
	}
}

func floatKernel[T float](e *arith, k *kernelArgs) (arrow.Array, error) {
	a, b := values[T](k.l.arr), values[T](k.r.arr)
	am, bm := k.l.mask(), k.r.mask()
	obuf, out := newFixed[T](k.alloc, k.n)
	switch e.op {
	case opAdd:
		for i := range out {
			out[i] = a[i&am] + b[i&bm]
		}
	case opSub:
		for i := range out {
			out[i] = a[i&am] - b[i&bm]
		}
	case opMul:
		for i := range out {
			out[i] = a[i&am] * b[i&bm]
		}
	case opDiv, opRem, opPmod:
		for i := range out {
			x, y := a[i&am], b[i&bm]
			if y == 0 { // 0.0 and -0.0 (Decimal/numeric isZero)
				out[i] = 0
				if k.rowValid(i) {
					if e.mode == modeANSI && isActive(k.active, i) {
						obuf.Release()
						return nil, e.byZero()
					}
					k.setNull(i)
				}
				continue
			}
			switch e.op {
			case opDiv:
				out[i] = x / y
			case opRem:
				out[i] = T(math.Mod(float64(x), float64(y))) // exact, sign of the dividend (Java %)
			default:
				r := T(math.Mod(float64(x), float64(y)))
				if r < 0 {
					r = T(math.Mod(float64(r+y), float64(y))) // r + y rounded in T, as Java's
				}
				out[i] = r
			}
		}
	}
	return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

// pmodInt is Pmod.pmod: r = a % n, (r + n) % n when r < 0, in Java arithmetic: byte and short
// promoted to int (no wrap), int and long wrapping in their own width.
func pmodInt[T integer](a, n T) T {
	var z T
	switch any(z).(type) {
	case int8, int16:
		x, y := int32(a), int32(n)
		r := x % y
		if r < 0 {
			r = (r + y) % y
		}
		return T(r)
	}
	r := a % n
	if r < 0 {
		r = (r + n) % n
	}
	return r
}

// byZero is the ANSI error of a zero divisor: Spark raises REMAINDER_BY_ZERO for `%` and
// DIVIDE_BY_ZERO for `/` and pmod.
func (e *arith) byZero() *exec.SparkError {
	if e.op == opRem {
		return exec.RemainderByZero()
	}
	return exec.DivideByZero()
}

func decKernel(e *arith, k *kernelArgs) (arrow.Array, error) {
	a, b := values[decimal128.Num](k.l.arr), values[decimal128.Num](k.r.arr)
	am, bm := k.l.mask(), k.r.mask()
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	d := e.dec
	if k.vbuf == nil && decBatch(d, a, b, am, bm, out) {
		return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
	}
	s := &decScratch{}
	start := 0
	if e.op == opMul && k.vbuf == nil {
		// No null operand: products of 64-bit values in a tight loop until the first row that
		// needs the general path (a wide value, an overflow), which continues from there.
		for ; start < len(out); start++ {
			r, fits, ok := d.mulSmall(a[start&am], b[start&bm])
			if !ok || !fits {
				break
			}
			out[start] = r
		}
	}
	for i := start; i < len(out); i++ {
		out[i] = decimal128.Num{}
		if !k.rowValid(i) {
			continue
		}
		x, y := a[i&am], b[i&bm]
		if (e.op == opDiv || e.op == opRem) && y.LowBits() == 0 && y.HighBits() == 0 {
			if e.mode == modeANSI && isActive(k.active, i) {
				obuf.Release()
				return nil, e.byZero()
			}
			k.setNull(i)
			continue
		}
		r, ok := d.apply(s, x, y)
		if ok {
			out[i] = r
			continue
		}
		if e.mode == modeANSI && isActive(k.active, i) {
			obuf.Release()
			return nil, exec.NumericValueOutOfRange(d.unroundedString(s, x, y), d.rp, d.rs)
		}
		k.setNull(i)
	}
	return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

// ---- UnaryMinus ----

func init() {
	Register("UnaryMinus", "-x over byte/short/int/long/float/double/decimal; ANSI (failOnError) raises ARITHMETIC_OVERFLOW on the minimum value", translateUnaryMinus)
	Register("UnaryPositive", "+x (identity)", func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		return translateChild(pe, "child", conf)
	})
}

type unaryMinus struct {
	child Expr
	ansi  bool
	typ   sparktype.Type
}

func (e *unaryMinus) Type() sparktype.Type { return e.typ }
func (e *unaryMinus) String() string       { return fmt.Sprintf("-%s", e.child) }
func (e *unaryMinus) mayFail() bool        { return mayFail(e.child) || (e.ansi && e.typ.IsIntegral()) }

func translateUnaryMinus(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if !c.Type().Equal(t) || !t.IsNumeric() {
		return nil, unsupported("UnaryMinus of %s returning %s is not supported natively", c.Type(), t)
	}
	ansi := false
	if pe.Has("failOnError") {
		if ansi, err = pe.Bool("failOnError"); err != nil {
			return nil, err
		}
	} else if pe.Has("evalMode") {
		m, err := exprEvalMode(pe)
		if err != nil {
			return nil, err
		}
		if m == modeTry {
			return nil, unsupported("UnaryMinus in TRY mode is not supported natively")
		}
		ansi = m == modeANSI
	} else {
		return nil, fmt.Errorf("UnaryMinus has no failOnError field")
	}
	return &unaryMinus{child: c, ansi: ansi, typ: t}, nil
}

func (e *unaryMinus) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *unaryMinus) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls, active: active}
	var out arrow.Array
	switch e.typ.Kind {
	case sparktype.Byte:
		out, err = negInt[int8](e, &k, in, "byte overflow")
	case sparktype.Short:
		out, err = negInt[int16](e, &k, in, "short overflow")
	case sparktype.Int:
		out, err = negInt[int32](e, &k, in, "integer overflow")
	case sparktype.Long:
		out, err = negInt[int64](e, &k, in, "long overflow")
	case sparktype.Float:
		out = negAll[float32](&k, e.typ, in)
	case sparktype.Double:
		out = negAll[float64](&k, e.typ, in)
	case sparktype.Decimal:
		out = negDec(&k, e.typ, in)
	}
	if err != nil && k.vbuf != nil {
		k.vbuf.Release()
	}
	return out, err
}

func negAll[T integer | float](k *kernelArgs, t sparktype.Type, in arrow.Array) arrow.Array {
	a := values[T](in)
	obuf, out := newFixed[T](k.alloc, k.n)
	for i := range out {
		out[i] = -a[i]
	}
	return finish(t.Arrow(), k.n, k.vbuf, obuf, k.nulls)
}

func negInt[T integer](e *unaryMinus, k *kernelArgs, in arrow.Array, msg string) (arrow.Array, error) {
	a := values[T](in)
	obuf, out := newFixed[T](k.alloc, k.n)
	var o T
	for i := range out {
		x := a[i]
		r := -x
		out[i] = r
		o |= x & r // both negative only for the minimum value
	}
	if e.ansi && o < 0 {
		for i := range out {
			if a[i] < 0 && out[i] < 0 && k.rowValid(i) {
				if isActive(k.active, i) {
					obuf.Release()
					// MathUtils.negateExact: no try_ alternative.
					return nil, exec.ArithmeticOverflow(msg, "")
				}
				k.setNull(i)
			}
		}
	}
	return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

func negDec(k *kernelArgs, t sparktype.Type, in arrow.Array) arrow.Array {
	a := values[decimal128.Num](in)
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	for i := range out {
		out[i] = a[i].Negate()
	}
	return finish(t.Arrow(), k.n, k.vbuf, obuf, k.nulls)
}
