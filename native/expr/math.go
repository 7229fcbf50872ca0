package expr

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Math functions of mathExpressions.scala and arithmetic.scala that need no floating-point
// library (whose last bits Go's math and Java's Math/StrictMath need not share):
//   - Abs: integers (ANSI: the minimum int or long raises MathUtils.negateExact's
//     ARITHMETIC_OVERFLOW, as IntegerExactNumeric.abs does; byte and short in ANSI mode are
//     refused; otherwise the minimum stays, wrapped, as Java's), decimals, and floats as Java 17's Math.abs computes them
//     (a <= 0 ? 0 - a : a, which keeps a NaN's bits).
//   - IsNaN: true for a NaN float or double, false for anything else, null included.
//   - Greatest, Least: the largest (smallest) non-null argument, null when all are null, under
//     Spark's ordering: a NaN above every number, -0.0 equal to 0.0, ties keeping the earlier
//     argument (Greatest folds with ordering.gt, Least with ordering.lt).

func init() {
	Register("Abs", "abs(x) over byte/short/int/long/float/double/decimal; ANSI (failOnError) raises ARITHMETIC_OVERFLOW on the minimum int or long (byte and short refused in ANSI mode)", translateAbs)
	Register("IsNaN", "isnan(x) of a float or double: true for NaN, false otherwise (null included)", translateIsNaN)
	Register("Greatest", "greatest(a, b, ...) over integers, floats (NaN largest), decimals, dates, timestamps and UTF8_BINARY strings: the largest non-null argument", extremeTranslator(true))
	Register("Least", "least(a, b, ...) over the same types as greatest: the smallest non-null argument", extremeTranslator(false))
}

// ---- Abs ----

type abs struct {
	child Expr
	ansi  bool
	typ   sparktype.Type
}

func (e *abs) Type() sparktype.Type { return e.typ }
func (e *abs) mayFail() bool        { return e.ansi && e.typ.IsIntegral() || mayFail(e.child) }
func (e *abs) String() string       { return fmt.Sprintf("abs(%s)", e.child) }

func translateAbs(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	t := c.Type()
	if !t.IsNumeric() {
		return nil, unsupported("Abs of %s is not supported natively", t)
	}
	ansi := false
	if pe.Has("failOnError") {
		if ansi, err = pe.Bool("failOnError"); err != nil {
			return nil, err
		}
	}
	if ansi && (t.Kind == sparktype.Byte || t.Kind == sparktype.Short) {
		// ByteExactNumeric/ShortExactNumeric.negate raise their own message, not checked here.
		return nil, unsupported("Abs of %s in ANSI mode is not supported natively", t)
	}
	return &abs{child: c, ansi: ansi, typ: t}, nil
}

func (e *abs) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *abs) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
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
		out, err = absInt[int8](e, &k, in, "")
	case sparktype.Short:
		out, err = absInt[int16](e, &k, in, "")
	case sparktype.Int:
		out, err = absInt[int32](e, &k, in, "integer overflow")
	case sparktype.Long:
		out, err = absInt[int64](e, &k, in, "long overflow")
	case sparktype.Float:
		out = absFloat[float32](&k, e.typ, in)
	case sparktype.Double:
		out = absFloat[float64](&k, e.typ, in)
	default:
		a := values[decimal128.Num](in)
		obuf, o := newFixed[decimal128.Num](k.alloc, n)
		for i := range o {
			o[i] = a[i].Abs()
		}
		out = finish(e.typ.Arrow(), n, k.vbuf, obuf, k.nulls)
	}
	if err != nil && k.vbuf != nil {
		k.vbuf.Release()
	}
	return out, err
}

func absInt[T integer](e *abs, k *kernelArgs, in arrow.Array, msg string) (arrow.Array, error) {
	a := values[T](in)
	obuf, out := newFixed[T](k.alloc, k.n)
	var o T
	for i, x := range a {
		m := x >> (8*sizeOf[T]() - 1) // all ones for a negative x
		r := (x ^ m) - m
		out[i] = r
		o |= r // negative only for the minimum value
	}
	if e.ansi && o < 0 {
		for i, r := range out {
			if r < 0 && k.rowValid(i) {
				if isActive(k.active, i) {
					obuf.Release()
					return nil, exec.ArithmeticOverflow(msg, "")
				}
				k.setNull(i)
			}
		}
	}
	return finish(e.typ.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

func sizeOf[T integer]() T {
	var z T
	switch any(z).(type) {
	case int8:
		return 1
	case int16:
		return 2
	case int32:
		return 4
	}
	return 8
}

func absFloat[T float](k *kernelArgs, t sparktype.Type, in arrow.Array) arrow.Array {
	a := values[T](in)
	obuf, out := newFixed[T](k.alloc, k.n)
	for i, x := range a {
		if x <= 0 {
			x = 0 - x
		}
		out[i] = x
	}
	return finish(t.Arrow(), k.n, k.vbuf, obuf, k.nulls)
}

// ---- IsNaN ----

type isNaN struct{ child Expr }

func (e *isNaN) Type() sparktype.Type { return sparktype.BooleanType }
func (e *isNaN) mayFail() bool        { return mayFail(e.child) }
func (e *isNaN) String() string       { return fmt.Sprintf("isnan(%s)", e.child) }

func translateIsNaN(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if k := c.Type().Kind; k != sparktype.Float && k != sparktype.Double {
		return nil, unsupported("IsNaN of %s is not supported natively", c.Type())
	}
	return &isNaN{child: c}, nil
}

func (e *isNaN) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *isNaN) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	obuf, out := newBitmap(ctx.Alloc, n)
	valid, off := validity(in)
	if e.child.Type().Kind == sparktype.Float {
		for i, x := range values[float32](in) {
			if x != x && validAt(valid, off, i) {
				bitutil.SetBit(out, i)
			}
		}
	} else {
		for i, x := range values[float64](in) {
			if x != x && validAt(valid, off, i) {
				bitutil.SetBit(out, i)
			}
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, nil, obuf, 0), nil
}

// ---- Greatest, Least ----

type extreme struct {
	greatest bool
	args     []Expr
	typ      sparktype.Type
}

func (e *extreme) Type() sparktype.Type { return e.typ }
func (e *extreme) mayFail() bool {
	for _, a := range e.args {
		if mayFail(a) {
			return true
		}
	}
	return false
}

func (e *extreme) String() string {
	parts := make([]string, len(e.args))
	for i, a := range e.args {
		parts[i] = a.String()
	}
	name := "least"
	if e.greatest {
		name = "greatest"
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

func extremeTranslator(greatest bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		args, err := translateChildren(pe, "children", conf)
		if err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return nil, fmt.Errorf("%s without arguments", cls)
		}
		t := args[0].Type()
		switch t.Kind {
		case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Float, sparktype.Double,
			sparktype.Decimal, sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
		case sparktype.String:
			if !binaryCollation(t) {
				return nil, unsupported("%s of %s is not supported natively (UTF8_BINARY strings only)", cls, t)
			}
		default:
			return nil, unsupported("%s of %s is not supported natively", cls, t)
		}
		for _, a := range args[1:] {
			if !a.Type().Equal(t) {
				return nil, unsupported("%s of %s and %s is not supported natively", cls, t, a.Type())
			}
		}
		return &extreme{greatest: greatest, args: args, typ: t}, nil
	}
}

func (e *extreme) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *extreme) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	// Every argument is evaluated on every row, as Spark's fold does.
	cols := make([]arrow.Array, 0, len(e.args))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, a := range e.args {
		c, err := evalActive(ctx, b, a, active)
		if err != nil {
			return nil, err
		}
		if c.Len() != n {
			c.Release()
			return nil, fmt.Errorf("%s returned %d rows for a batch of %d", a, c.Len(), n)
		}
		cols = append(cols, c)
	}
	refs := make([]columnar.RowRef, n)
	for i := range refs {
		refs[i] = columnar.NullRef
	}
	// sign: keep the candidate when compare(candidate, current)*sign > 0.
	sign := -1
	if e.greatest {
		sign = 1
	}
	switch e.typ.Kind {
	case sparktype.Byte:
		pickOrdered(refs, typedCols[int8](cols), cols, sign)
	case sparktype.Short:
		pickOrdered(refs, typedCols[int16](cols), cols, sign)
	case sparktype.Int, sparktype.Date:
		pickOrdered(refs, typedCols[int32](cols), cols, sign)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		pickOrdered(refs, typedCols[int64](cols), cols, sign)
	case sparktype.Float:
		pickFloat(refs, typedCols[float32](cols), cols, sign)
	case sparktype.Double:
		pickFloat(refs, typedCols[float64](cols), cols, sign)
	case sparktype.Decimal:
		pickDecimal(refs, typedCols[decimal128.Num](cols), cols, sign)
	default:
		pickBytes(refs, cols, sign)
	}
	return columnar.Gather(ctx.Alloc, cols, refs)
}

// validAt reads a validity bitmap from validity() (nil: all valid) at row i of an array at off.
func validAt(valid []byte, off, i int) bool { return valid == nil || bitutil.BitIsSet(valid, off+i) }

func typedCols[T any](cols []arrow.Array) [][]T {
	out := make([][]T, len(cols))
	for i, c := range cols {
		out[i] = values[T](c)
	}
	return out
}

// The pick loops fold the arguments in order: a row's ref moves to argument ci when its value is
// non-null and beats (compare * sign > 0) the current one, so ties keep the earlier argument.

func pickOrdered[T cmp.Ordered](refs []columnar.RowRef, vals [][]T, cols []arrow.Array, sign int) {
	for ci, cand := range vals {
		valid, off := validity(cols[ci])
		for i, x := range cand {
			if !validAt(valid, off, i) {
				continue
			}
			r := refs[i]
			if r.Src == columnar.NullSrc || cmp.Compare(x, vals[r.Src][i])*sign > 0 {
				refs[i] = columnar.RowRef{Src: uint32(ci), Row: uint32(i)}
			}
		}
	}
}

// compareFloat is SQLOrderingUtil.compareDoubles: equal values (-0.0 and 0.0 too) compare 0,
// otherwise Double.compare (every NaN equal, above every number).
func compareFloat[T float](x, y T) int {
	switch {
	case x == y:
		return 0
	case x != x:
		if y != y {
			return 0
		}
		return 1
	case y != y:
		return -1
	case x < y:
		return -1
	}
	return 1
}

func pickFloat[T float](refs []columnar.RowRef, vals [][]T, cols []arrow.Array, sign int) {
	for ci, cand := range vals {
		valid, off := validity(cols[ci])
		for i, x := range cand {
			if !validAt(valid, off, i) {
				continue
			}
			r := refs[i]
			if r.Src == columnar.NullSrc || compareFloat(x, vals[r.Src][i])*sign > 0 {
				refs[i] = columnar.RowRef{Src: uint32(ci), Row: uint32(i)}
			}
		}
	}
}

func pickDecimal(refs []columnar.RowRef, vals [][]decimal128.Num, cols []arrow.Array, sign int) {
	for ci, cand := range vals {
		valid, off := validity(cols[ci])
		for i, x := range cand {
			if !validAt(valid, off, i) {
				continue
			}
			r := refs[i]
			if r.Src == columnar.NullSrc || x.Cmp(vals[r.Src][i])*sign > 0 {
				refs[i] = columnar.RowRef{Src: uint32(ci), Row: uint32(i)}
			}
		}
	}
}

func pickBytes(refs []columnar.RowRef, cols []arrow.Array, sign int) {
	offs := make([][]int32, len(cols))
	data := make([][]byte, len(cols))
	for i, c := range cols {
		offs[i], data[i] = binaryParts(c)
	}
	for ci, c := range cols {
		valid, off := validity(c)
		o, d := offs[ci], data[ci]
		for i := 0; i < c.Len(); i++ {
			if !validAt(valid, off, i) {
				continue
			}
			if r := refs[i]; r.Src != columnar.NullSrc {
				ro, rd := offs[r.Src], data[r.Src]
				if bytes.Compare(d[o[i]:o[i+1]], rd[ro[i]:ro[i+1]])*sign <= 0 {
					continue
				}
			}
			refs[i] = columnar.RowRef{Src: uint32(ci), Row: uint32(i)}
		}
	}
}
