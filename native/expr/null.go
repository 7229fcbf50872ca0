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

func init() {
	Register("IsNull", "x IS NULL (never null)", nullTranslator(true))
	Register("IsNotNull", "x IS NOT NULL (never null)", nullTranslator(false))
}

type isNull struct {
	child  Expr
	isNull bool
}

func (e *isNull) Type() sparktype.Type { return sparktype.BooleanType }
func (e *isNull) mayFail() bool        { return mayFail(e.child) }
func (e *isNull) String() string {
	if e.isNull {
		return fmt.Sprintf("isnull(%s)", e.child)
	}
	return fmt.Sprintf("isnotnull(%s)", e.child)
}

func nullTranslator(want bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		return &isNull{child: c, isNull: want}, nil
	}
}

func (e *isNull) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *isNull) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	o, err := evalOperandActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer o.release()
	obuf, out := newBitmap(ctx.Alloc, n)
	switch {
	case o.scalar:
		if isNullAt(o.arr, 0) == e.isNull {
			bitutil.SetBitsTo(out, 0, int64(n), true)
		}
	case o.arr.NullN() == 0:
		if !e.isNull {
			bitutil.SetBitsTo(out, 0, int64(n), true)
		}
	case o.arr.NullN() == n:
		if e.isNull {
			bitutil.SetBitsTo(out, 0, int64(n), true)
		}
	default:
		bm, off := validity(o.arr)
		if e.isNull {
			bitutil.InvertBitmap(bm, off, n, out, 0)
		} else {
			bitutil.CopyBitmap(bm, off, n, out, 0)
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, nil, obuf, 0), nil
}
