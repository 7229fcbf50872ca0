package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// And, Or, Not with SQL three-valued logic (predicates.scala): false AND x = false,
// true OR x = true, otherwise null if either side is null. Spark does not evaluate the right
// side when the left decides; the right side is evaluated on the other rows only (see mask.go).

func init() {
	Register("And", "three-valued AND; the right side only runs on rows the left does not decide", logicTranslator(true))
	Register("Or", "three-valued OR; the right side only runs on rows the left does not decide", logicTranslator(false))
	Register("Not", "boolean negation (null stays null)", translateNot)
}

type logic struct {
	and         bool
	left, right Expr
}

func (e *logic) Type() sparktype.Type { return sparktype.BooleanType }
func (e *logic) mayFail() bool        { return mayFail(e.left) || mayFail(e.right) }
func (e *logic) String() string {
	op := "OR"
	if e.and {
		op = "AND"
	}
	return fmt.Sprintf("(%s %s %s)", e.left, op, e.right)
}

func logicTranslator(and bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		if l.Type().Kind != sparktype.Boolean || r.Type().Kind != sparktype.Boolean {
			return nil, unsupported("%s of %s and %s is not supported natively", plan.ShortClass(pe.Class), l.Type(), r.Type())
		}
		return &logic{and: and, left: l, right: r}, nil
	}
}

// boolBits returns the values and validity of a boolean operand as offset-0 bitmaps of n bits
// (Go heap, temporaries).
func boolBits(o operand, n int) (val, valid []byte) {
	nb := int(bitutil.BytesForBits(int64(n)))
	val, valid = make([]byte, nb), make([]byte, nb)
	if o.scalar {
		if !isNullAt(o.arr, 0) {
			bitutil.SetBitsTo(valid, 0, int64(n), true)
			if values1Bool(o.arr) {
				bitutil.SetBitsTo(val, 0, int64(n), true)
			}
		}
		return
	}
	d := o.arr.Data()
	bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset(), n, val, 0)
	if bm, off := validity(o.arr); bm != nil {
		bitutil.CopyBitmap(bm, off, n, valid, 0)
	} else {
		bitutil.SetBitsTo(valid, 0, int64(n), true)
	}
	return
}

func values1Bool(a arrow.Array) bool {
	d := a.Data()
	return bitutil.BitIsSet(d.Buffers()[1].Bytes(), d.Offset())
}

func (e *logic) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *logic) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, err := evalOperandActive(ctx, b, e.left, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	lv, lval := boolBits(lo, n)
	var ract []byte
	if mayFail(e.right) {
		// Rows where the left side does not decide: AND -> left not false, OR -> left not true.
		ract = make([]byte, len(lv))
		for i := range ract {
			decided := lval[i] & ^lv[i] // known false
			if !e.and {
				decided = lval[i] & lv[i] // known true
			}
			a := byte(0xff)
			if active != nil {
				a = active[i]
			}
			ract[i] = a &^ decided
		}
	}
	ro, err := evalOperandActive(ctx, b, e.right, ract)
	if err != nil {
		return nil, err
	}
	defer ro.release()
	rv, rval := boolBits(ro, n)
	obuf, out := newBitmap(ctx.Alloc, n)
	vbuf, valid := newBitmap(ctx.Alloc, n)
	for i := range out {
		if e.and {
			knownFalse := (lval[i] &^ lv[i]) | (rval[i] &^ rv[i])
			valid[i] = (lval[i] & rval[i]) | knownFalse
			out[i] = lv[i] & rv[i] & lval[i] & rval[i]
		} else {
			knownTrue := (lval[i] & lv[i]) | (rval[i] & rv[i])
			valid[i] = (lval[i] & rval[i]) | knownTrue
			out[i] = knownTrue
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, vbuf, obuf, countNulls(valid, n)), nil
}

type not struct{ child Expr }

func (e *not) Type() sparktype.Type { return sparktype.BooleanType }
func (e *not) String() string       { return fmt.Sprintf("NOT %s", e.child) }
func (e *not) mayFail() bool        { return mayFail(e.child) }

func translateNot(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Boolean {
		return nil, unsupported("Not of %s is not supported natively", c.Type())
	}
	return &not{child: c}, nil
}

func (e *not) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *not) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	obuf, out := newBitmap(ctx.Alloc, n)
	d := in.Data()
	if n > 0 {
		bitutil.InvertBitmap(d.Buffers()[1].Bytes(), d.Offset(), n, out, 0)
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	return finish(arrow.FixedWidthTypes.Boolean, n, vbuf, obuf, nulls), nil
}
