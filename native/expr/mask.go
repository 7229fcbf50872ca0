package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// Spark evaluates row by row and skips sub-expressions whose value cannot matter: the right side
// of a null-intolerant operator when the left is null, the dividend when the divisor is null or
// (outside ANSI) zero, the right side of AND/OR once the left decides, untaken branches. Bolide
// evaluates whole batches, so an expression that can raise a data error (ANSI overflow, division
// by zero) must raise it only on rows Spark would have evaluated. Composite expressions pass
// down an "active" bitmap (nil = every row) naming those rows; fallible kernels raise errors on
// active rows only and produce nulls elsewhere.
type masked interface {
	evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error)
}

// evalActive evaluates e on the rows named by active (nil: all rows).
func evalActive(ctx *exec.TaskContext, b *columnar.Batch, e Expr, active []byte) (arrow.Array, error) {
	if m, ok := e.(masked); ok && active != nil {
		return m.evalMasked(ctx, b, active)
	}
	return e.Eval(ctx, b)
}

func evalOperandActive(ctx *exec.TaskContext, b *columnar.Batch, e Expr, active []byte) (operand, error) {
	if c, ok := e.(constExpr); ok {
		return operand{arr: c.constArray(), scalar: true}, nil
	}
	if active == nil {
		return evalOperand(ctx, b, e)
	}
	a, err := evalActive(ctx, b, e, active)
	if err != nil {
		return operand{}, err
	}
	return operand{arr: a, owned: true}, nil
}

// isActive reads bit i of an active bitmap (nil: all active).
func isActive(active []byte, i int) bool {
	return active == nil || bitutil.BitIsSet(active, i)
}

// andActiveValid returns active AND the validity of o (Go heap, n bits).
func andActiveValid(active []byte, o operand, n int) []byte {
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	if active != nil {
		copy(out, active)
	} else {
		bitutil.SetBitsTo(out, 0, int64(n), true)
	}
	if o.scalar {
		if isNullAt(o.arr, 0) {
			clear(out)
		}
		return out
	}
	if bm, off := validity(o.arr); bm != nil {
		bitutil.BitmapAnd(out, bm, 0, int64(off), out, 0, int64(n))
	}
	return out
}

// rowValid reports whether operand o is non-null at row i.
func (o operand) valid(i int) bool {
	if o.scalar {
		return !isNullAt(o.arr, 0)
	}
	return !isNullAt(o.arr, i)
}

// evalLeftThenRight evaluates the operands of a null-intolerant binary expression the way Spark
// does: the left on the active rows, the right (when it may fail) only where the left is non-null.
// The caller releases both operands.
func evalLeftThenRight(ctx *exec.TaskContext, b *columnar.Batch, left, right Expr, active []byte) (lo, ro operand, err error) {
	if lo, err = evalOperandActive(ctx, b, left, active); err != nil {
		return lo, ro, err
	}
	ract := active
	if mayFail(right) {
		ract = andActiveValid(active, lo, b.NumRows)
	}
	if ro, err = evalOperandActive(ctx, b, right, ract); err != nil {
		lo.release()
	}
	return lo, ro, err
}
