package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// WidthBucket (mathExpressions.scala): width_bucket(value, min, max, n), the bucket of value in
// an equi-width histogram of n buckets over [min, max) (or (max, min] when min > max), 0 below
// and n+1 above. Null, as in WidthBucket.computeBucketNumber, when n <= 0 or n is
// Long.MaxValue, value is NaN, min == max, or min or max is NaN or infinite. The bucket inside
// the range is Java's (long)(n.toDouble * (value - lower) / (upper - lower)) + 1: the same IEEE
// operations in the same order, and Java's saturating double-to-long conversion.

func init() {
	Register("WidthBucket", "width_bucket(value, min, max, n) of doubles and a long: Spark's computeBucketNumber", translateWidthBucket)
}

type widthBucket struct {
	args [4]Expr // value, minValue, maxValue, numBucket
}

func translateWidthBucket(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	var e widthBucket
	for i, f := range []string{"value", "minValue", "maxValue", "numBucket"} {
		c, err := translateChild(pe, f, conf)
		if err != nil {
			return nil, err
		}
		want := sparktype.Double
		if i == 3 {
			want = sparktype.Long
		}
		if c.Type().Kind != want {
			return nil, unsupported("WidthBucket's %s of %s is not supported natively", f, c.Type())
		}
		e.args[i] = c
	}
	return &e, nil
}

func (e *widthBucket) Type() sparktype.Type { return sparktype.LongType }
func (e *widthBucket) String() string {
	return fmt.Sprintf("width_bucket(%s, %s, %s, %s)", e.args[0], e.args[1], e.args[2], e.args[3])
}

func (e *widthBucket) mayFail() bool {
	for _, a := range e.args {
		if mayFail(a) {
			return true
		}
	}
	return false
}

func (e *widthBucket) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *widthBucket) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	var ops [4]operand
	defer func() {
		for _, o := range ops {
			o.release()
		}
	}()
	// Spark evaluates the arguments in order and stops at the first null: a later argument
	// that can fail is evaluated only on rows where the earlier ones are non-null.
	act := active
	for i, a := range e.args {
		if i > 0 && mayFail(a) {
			act = andActiveValid(act, ops[i-1], n)
		}
		o, err := evalOperandActive(ctx, b, a, act)
		if err != nil {
			return nil, err
		}
		ops[i] = o
	}
	dt := arrow.PrimitiveTypes.Int64
	var arrs []arrow.Array
	for _, o := range ops {
		if o.nullScalar() || n == 0 {
			return allNull(ctx.Alloc, dt, n), nil
		}
		if !o.scalar {
			arrs = append(arrs, o.arr)
		}
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, arrs...)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	v, lo, hi, nb := values[float64](ops[0].arr), values[float64](ops[1].arr), values[float64](ops[2].arr), values[int64](ops[3].arr)
	vm, lm, hm, nm := ops[0].mask(), ops[1].mask(), ops[2].mask(), ops[3].mask()
	obuf, out := newFixed[int64](ctx.Alloc, n)
	for i := range out {
		r, ok := bucketNumber(v[i&vm], lo[i&lm], hi[i&hm], nb[i&nm])
		out[i] = r
		if !ok {
			k.setNull(i)
		}
	}
	return finish(dt, n, k.vbuf, obuf, k.nulls), nil
}

// bucketNumber is WidthBucket.computeBucketNumber; ok=false is its null.
func bucketNumber(value, min, max float64, numBucket int64) (int64, bool) {
	if numBucket <= 0 || numBucket == math.MaxInt64 || value != value || min == max ||
		min != min || math.IsInf(min, 0) || max != max || math.IsInf(max, 0) {
		return 0, false
	}
	lower, upper := min, max // min != max and neither is NaN: no -0.0/0.0 or NaN subtleties
	if max < min {
		lower, upper = max, min
	}
	nbd := float64(numBucket)
	if min < max {
		switch {
		case value < lower:
			return 0, true
		case value >= upper:
			return numBucket + 1, true
		}
		return javaD2L(float64(nbd*(value-lower))/(upper-lower)) + 1, true
	}
	switch {
	case value > upper:
		return 0, true
	case value <= lower:
		return numBucket + 1, true
	}
	return javaD2L(float64(nbd*(upper-value))/(upper-lower)) + 1, true
}
