package aggregate

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Average (Average.scala, Average(child, evalMode)): buffers sum and count: long, initial 0 and 0.
//   - numeric non-decimal input: sum: double; sum += cast(child as double) (0 for nulls), count
//     += 1 for non-nulls; result Divide(sum, count) as double in LEGACY mode: null when count = 0.
//   - decimal(p,s): sum: decimal(min(38,p+10), s) with Sum's overflow-to-null buffer semantics;
//     result type decimal(min(38,p+4), min(38,s+4)): null when count = 0, else
//     DecimalDivideWithOverflowCheck: a null (overflowed) sum is null or, in ANSI,
//     ARITHMETIC_OVERFLOW "Overflow in sum of decimals" (try_avg); otherwise sum / count computed
//     to scale 39 rounding down, then rounded HALF_UP to the result scale (equal to rounding the
//     exact quotient HALF_UP), over the result precision -> null or NUMERIC_VALUE_OUT_OF_RANGE.
func init() { registerFunction("Average", newAverage) }

func newAverage(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	mode, err := evalModeOf(fn)
	if err != nil {
		return nil, err
	}
	ansi := mode == "ANSI"
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	switch {
	case t.IsIntegral() || t.IsFloating():
		return &fnSpec{name: "avg", bufTypes: []sparktype.Type{sparktype.DoubleType, sparktype.LongType},
			resultType: sparktype.DoubleType,
			newState:   func() function { return &avgDouble{in: in} }}, nil
	case t.Kind == sparktype.Decimal:
		st := sparktype.DecimalOf(min(sparktype.MaxDecimalPrecision, t.Precision+10), t.Scale)
		rt := sparktype.DecimalOf(min(sparktype.MaxDecimalPrecision, t.Precision+4), min(sparktype.MaxDecimalPrecision, t.Scale+4))
		return &fnSpec{name: "avg", bufTypes: []sparktype.Type{st, sparktype.LongType}, resultType: rt,
			newState: func() function {
				return &avgDecimal{in: in, ansi: ansi, st: st, rt: rt, acc: newDecSum(st, c.singleGroup), rows: c.rows}
			}}, nil
	}
	return nil, refuse("aggregate function avg over %s is not supported natively", t)
}

type avgDouble struct {
	in     *input
	sums   []float64
	counts []int64
}

func (f *avgDouble) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.DoubleType, sparktype.LongType}
}

func (f *avgDouble) grow(n int) {
	f.sums = growSlice(f.sums, n, 0)
	f.counts = growSlice(f.counts, n, 0)
}

func (f *avgDouble) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	bits, off := validity(col)
	switch col.(type) {
	case *array.Int8:
		avgInto(f.sums, f.counts, gids, fixedValues[int8](col), bits, off)
	case *array.Int16:
		avgInto(f.sums, f.counts, gids, fixedValues[int16](col), bits, off)
	case *array.Int32:
		avgInto(f.sums, f.counts, gids, fixedValues[int32](col), bits, off)
	case *array.Int64:
		avgInto(f.sums, f.counts, gids, fixedValues[int64](col), bits, off)
	case *array.Float32:
		avgInto(f.sums, f.counts, gids, fixedValues[float32](col), bits, off)
	case *array.Float64:
		avgInto(f.sums, f.counts, gids, fixedValues[float64](col), bits, off)
	default:
		return fmt.Errorf("avg: unexpected input column %s", col.DataType())
	}
	return nil
}

// avgInto adds cast(v as double) and counts non-null rows. Spark adds 0.0 for a null row, which
// never changes a sum that starts at +0.0, so null rows are skipped.
func avgInto[T int8 | int16 | int32 | int64 | float32 | float64](sums []float64, counts []int64,
	gids []uint32, vals []T, bits []byte, off int) {
	vals = vals[:len(gids)]
	if bits == nil {
		for i, g := range gids {
			sums[g] += float64(vals[i])
			counts[g]++
		}
		return
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			sums[g] += float64(vals[i])
			counts[g]++
		}
	}
}

func (f *avgDouble) merge(cols []arrow.Array, gids []uint32) error {
	sums, counts := fixedValues[float64](cols[0]), fixedValues[int64](cols[1])
	sbits, soff := validity(cols[0])
	cbits, coff := validity(cols[1])
	for i, g := range gids {
		// add(sum.left, sum.right) is null if either is; Spark's buffers are never null here.
		if bitSet(sbits, soff, i) {
			f.sums[g] += sums[i]
		}
		if bitSet(cbits, coff, i) {
			f.counts[g] += counts[i]
		}
	}
	return nil
}

func (f *avgDouble) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{buildFixed(alloc, sparktype.DoubleType, f.sums[lo:hi], nil),
		buildFixed(alloc, sparktype.LongType, f.counts[lo:hi], nil)}, nil
}

func (f *avgDouble) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[float64](alloc, hi-lo)
	for g := lo; g < hi; g++ {
		if f.counts[g] == 0 {
			o.setNull(alloc, g-lo)
			continue
		}
		o.V[g-lo] = f.sums[g] / float64(f.counts[g])
	}
	return o.finish(arrow.PrimitiveTypes.Float64), nil
}

type avgDecimal struct {
	in     *input
	ansi   bool
	st, rt sparktype.Type
	acc    *decSum
	counts []int64
	rows   *groupRows
	// borrowed: acc is another function's, which adds the input to it (shareDecSums).
	borrowed bool
}

func (f *avgDecimal) decAcc() (*decSum, *input) { return f.acc, f.in }
func (f *avgDecimal) borrowAcc(acc *decSum)     { f.acc, f.borrowed = acc, true }

func (f *avgDecimal) bufferTypes() []sparktype.Type {
	return []sparktype.Type{f.st, sparktype.LongType}
}

func (f *avgDecimal) grow(n int) {
	f.acc.grow(n)
	f.counts = growSlice(f.counts, n, 0)
}

func (f *avgDecimal) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	if !f.borrowed {
		if vals, bound, ok := f.in.eval64(b); ok {
			f.acc.addInt64(vals, bound, gids)
			f.count(nil, 0, b, gids)
			return nil
		}
	}
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	bits, off := validity(col)
	if !f.borrowed {
		f.acc.addColumn(fixedValues[decimal128.Num](col), bits, off, gids)
	}
	f.count(bits, off, b, gids)
	return nil
}

// count counts the rows with a non-null value per group.
func (f *avgDecimal) count(bits []byte, off int, b *columnar.Batch, gids []uint32) {
	counts := f.counts
	if bits == nil {
		if h := f.rows.counts(b, gids); h != nil {
			addCounts(counts, h)
			return
		}
		for _, g := range gids {
			counts[g]++
		}
		return
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			counts[g]++
		}
	}
}

func (f *avgDecimal) merge(cols []arrow.Array, gids []uint32) error {
	if f.borrowed {
		return errSharedMerge
	}
	sums, counts := fixedValues[decimal128.Num](cols[0]), fixedValues[int64](cols[1])
	sbits, soff := validity(cols[0])
	cbits, coff := validity(cols[1])
	for i, g := range gids {
		if bitSet(cbits, coff, i) {
			f.counts[g] += counts[i]
		}
		if !bitSet(sbits, soff, i) { // add(sum.left, null) = null: the overflow sticks
			f.acc.setOverflow(g)
			continue
		}
		f.acc.addOne(g, sums[i])
	}
	return nil
}

func (f *avgDecimal) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{f.acc.bufferColumn(alloc, lo, hi),
		buildFixed(alloc, sparktype.LongType, f.counts[lo:hi], nil)}, nil
}

func (f *avgDecimal) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[decimal128.Num](alloc, hi-lo)
	fail := func(err error) (arrow.Array, error) {
		o.finish(f.rt.Arrow()).Release()
		return nil, err
	}
	scaleUp := bigPow10[f.rt.Scale-f.st.Scale]
	for g := lo; g < hi; g++ {
		if f.counts[g] == 0 {
			o.setNull(alloc, g-lo)
			continue
		}
		n, fits, exact, ovf := f.acc.value(g)
		if ovf {
			if f.ansi {
				return fail(exec.DecimalSumOverflow("try_avg"))
			}
			o.setNull(alloc, g-lo)
			continue
		}
		var sum *big.Int
		if fits {
			sum = n.BigInt()
		} else {
			sum = exact // only without grouping keys: the unchecked exact sum
		}
		cnt := big.NewInt(f.counts[g])
		q := divHalfUp(new(big.Int).Mul(sum, scaleUp), cnt)
		if !bigFits(q, f.rt.Precision) {
			if f.ansi {
				// The value Spark reports is the quotient at scale 39, rounded down.
				t := new(big.Int).Quo(new(big.Int).Mul(sum, bigPow10[39-f.st.Scale]), cnt)
				return fail(exec.NumericValueOutOfRange(plainString(t, 39), f.rt.Precision, f.rt.Scale))
			}
			o.setNull(alloc, g-lo)
			continue
		}
		o.V[g-lo] = decimal128.FromBigInt(q)
	}
	return o.finish(f.rt.Arrow()), nil
}
