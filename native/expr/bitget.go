package expr

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// BitwiseGet (bit_get, getbit): bit pos of an integral value as a byte, in every mode; a position
// outside [0, bits) raises INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE (BitwiseGetUtil.checkPosition)
// on any evaluated row, ANSI or not.

func init() {
	Register("BitwiseGet", "bit_get(x, pos) / getbit of byte/short/int/long: (x >> pos) & 1 as a byte; pos outside [0, bits) raises INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE", translateBitwiseGet)
}

type bitGet struct {
	left, right Expr
	bits        int32
}

func (e *bitGet) Type() sparktype.Type { return sparktype.ByteType }
func (e *bitGet) String() string       { return fmt.Sprintf("bit_get(%s, %s)", e.left, e.right) }
func (e *bitGet) mayFail() bool        { return true }

func translateBitwiseGet(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	l, err := translateChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	r, err := translateChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	if r.Type().Kind != sparktype.Int {
		return nil, unsupported("BitwiseGet with a %s position is not supported natively", r.Type())
	}
	bits := map[sparktype.Kind]int32{sparktype.Byte: 8, sparktype.Short: 16, sparktype.Int: 32, sparktype.Long: 64}[l.Type().Kind]
	if bits == 0 {
		return nil, unsupported("BitwiseGet of %s is not supported natively", l.Type())
	}
	return &bitGet{left: l, right: r, bits: bits}, nil
}

func (e *bitGet) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *bitGet) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, e.left, e.right)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	lo, ro := ops[0], ops[1]
	dt := arrow.PrimitiveTypes.Int8
	if n == 0 || ro.nullScalar() || lo.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls, _ := binaryValidity(ctx.Alloc, n, lo, ro)
	var x []int64
	switch e.bits {
	case 8:
		x = widen(values[int8](lo.arr))
	case 16:
		x = widen(values[int16](lo.arr))
	case 32:
		x = widen(values[int32](lo.arr))
	default:
		x = values[int64](lo.arr)
	}
	lm := lo.mask()
	pos, pm := values[int32](ro.arr), ro.mask()
	obuf, out := newFixed[int8](ctx.Alloc, n)
	for i := range out {
		out[i] = 0
		if !validRow(vbuf, i) || (active != nil && active[i>>3]&(1<<(i&7)) == 0) {
			continue
		}
		p := pos[i&pm]
		if p < 0 || p >= e.bits {
			if vbuf != nil {
				vbuf.Release()
			}
			obuf.Release()
			return nil, &exec.SparkError{Class: "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE", Exception: "illegal-argument",
				Params: map[string]string{"parameter": "`pos`", "functionName": "`bit_get`",
					"upper": strconv.Itoa(int(e.bits)), "invalidValue": strconv.Itoa(int(p))}}
		}
		out[i] = int8((x[i&lm] >> p) & 1)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// widen copies small integers to int64 (one batch; Spark reads them as Number.longValue).
func widen[T int8 | int16 | int32](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
