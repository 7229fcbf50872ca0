package aggregate

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Sum (Sum.scala, Spark 4.1: Sum(child, evalContext: NumericEvalContext)):
//   - integral input: buffer sum: long, initial null; sum = coalesce(sum, 0) + cast(child as long)
//     (Add in the eval mode: ANSI raises ARITHMETIC_OVERFLOW "long overflow", LEGACY wraps).
//   - float/double input: buffer sum: double, initial null.
//   - decimal(p,s) input: buffers sum: decimal(min(38,p+10), s) initial 0 and isEmpty: boolean
//     initial true. Adds do not check overflow (DecimalAddNoOverflowCheck), but a grouped
//     aggregation stores each running sum in an UnsafeRow whose setDecimal turns a value over the
//     buffer precision (> 18) into null: null with isEmpty=false means overflow and stays null. The
//     result is If(isEmpty, null, CheckOverflowInSum(sum)): overflow -> null (LEGACY, TRY) or
//     ARITHMETIC_OVERFLOW "Overflow in sum of decimals" (ANSI); a non-null sum over the precision
//     (possible without grouping keys, where buffers are unchecked local variables) -> null or
//     NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION.
func init() { registerFunction("Sum", newSum) }

func newSum(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
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
	case t.IsIntegral():
		if mode == "TRY" {
			return nil, refuse("try_sum over %s is not supported natively", t)
		}
		return &fnSpec{name: "sum", bufTypes: []sparktype.Type{sparktype.LongType}, resultType: sparktype.LongType,
			newState: func() function { return &sumLong{in: in, ansi: ansi} }}, nil
	case t.IsFloating():
		return &fnSpec{name: "sum", bufTypes: []sparktype.Type{sparktype.DoubleType}, resultType: sparktype.DoubleType,
			newState: func() function { return &sumDouble{in: in} }}, nil
	case t.Kind == sparktype.Decimal:
		rt := sparktype.DecimalOf(min(sparktype.MaxDecimalPrecision, t.Precision+10), t.Scale)
		return &fnSpec{name: "sum", bufTypes: []sparktype.Type{rt, sparktype.BooleanType}, resultType: rt,
			newState: func() function {
				return &sumDecimal{in: in, ansi: ansi, rt: rt, acc: newDecSum(rt, c.singleGroup), rows: c.rows}
			}}, nil
	}
	return nil, refuse("aggregate function sum over %s is not supported natively", t)
}

// --- long sums ---

type sumLong struct {
	in   *input
	ansi bool
	sums []int64
	seen []bool // sum is non-null
}

func (f *sumLong) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.LongType} }
func (f *sumLong) grow(n int) {
	f.sums = growSlice(f.sums, n, 0)
	f.seen = growSlice(f.seen, n, false)
}

func longOverflow() error {
	return exec.ArithmeticOverflow("long overflow", " Use 'try_add' to tolerate overflow and return NULL instead.")
}

func (f *sumLong) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	bits, off := validity(col)
	var ovf bool
	switch col.(type) {
	case *array.Int8:
		ovf = sumInts(f.sums, f.seen, gids, fixedValues[int8](col), bits, off, f.ansi)
	case *array.Int16:
		ovf = sumInts(f.sums, f.seen, gids, fixedValues[int16](col), bits, off, f.ansi)
	case *array.Int32:
		ovf = sumInts(f.sums, f.seen, gids, fixedValues[int32](col), bits, off, f.ansi)
	case *array.Int64:
		ovf = sumInts(f.sums, f.seen, gids, fixedValues[int64](col), bits, off, f.ansi)
	default:
		return fmt.Errorf("sum: unexpected input column %s", col.DataType())
	}
	if ovf {
		return longOverflow()
	}
	return nil
}

// sumInts adds vals into sums by group; with ansi it stops at the first overflow (reported true).
func sumInts[T int8 | int16 | int32 | int64](sums []int64, seen []bool, gids []uint32, vals []T,
	bits []byte, off int, ansi bool) bool {
	vals = vals[:len(gids)]
	switch {
	case !ansi && bits == nil:
		for i, g := range gids {
			sums[g] += int64(vals[i])
			seen[g] = true
		}
	case !ansi:
		for i, g := range gids {
			if bitSet(bits, off, i) {
				sums[g] += int64(vals[i])
				seen[g] = true
			}
		}
	default:
		for i, g := range gids {
			if bits != nil && !bitSet(bits, off, i) {
				continue
			}
			a, v := sums[g], int64(vals[i])
			r := a + v
			if (a^r)&(v^r) < 0 {
				return true
			}
			sums[g] = r
			seen[g] = true
		}
	}
	return false
}

func (f *sumLong) merge(cols []arrow.Array, gids []uint32) error {
	bits, off := validity(cols[0])
	if sumInts(f.sums, f.seen, gids, fixedValues[int64](cols[0]), bits, off, f.ansi) {
		return longOverflow()
	}
	return nil
}

func (f *sumLong) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{buildFixed(alloc, sparktype.LongType, f.sums[lo:hi], f.seen[lo:hi])}, nil
}

func (f *sumLong) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, sparktype.LongType, f.sums[lo:hi], f.seen[lo:hi]), nil
}

// --- double sums ---

type sumDouble struct {
	in   *input
	sums []float64
	seen []bool
}

func (f *sumDouble) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.DoubleType} }
func (f *sumDouble) grow(n int) {
	f.sums = growSlice(f.sums, n, 0)
	f.seen = growSlice(f.seen, n, false)
}

func (f *sumDouble) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

func (f *sumDouble) merge(cols []arrow.Array, gids []uint32) error {
	bits, off := validity(cols[0])
	switch cols[0].(type) {
	case *array.Float32:
		sumFloats(f.sums, f.seen, gids, fixedValues[float32](cols[0]), bits, off)
	case *array.Float64:
		sumFloats(f.sums, f.seen, gids, fixedValues[float64](cols[0]), bits, off)
	default:
		return fmt.Errorf("sum: unexpected input column %s", cols[0].DataType())
	}
	return nil
}

// sumFloats adds in row order, as Spark does (floating-point sums depend on the order).
func sumFloats[T float32 | float64](sums []float64, seen []bool, gids []uint32, vals []T, bits []byte, off int) {
	vals = vals[:len(gids)]
	if bits == nil {
		for i, g := range gids {
			sums[g] += float64(vals[i])
			seen[g] = true
		}
		return
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			sums[g] += float64(vals[i])
			seen[g] = true
		}
	}
}

func (f *sumDouble) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{buildFixed(alloc, sparktype.DoubleType, f.sums[lo:hi], f.seen[lo:hi])}, nil
}

func (f *sumDouble) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, sparktype.DoubleType, f.sums[lo:hi], f.seen[lo:hi]), nil
}

// --- decimal sums (the accumulator, decSum, is in decsum.go) ---

type sumDecimal struct {
	in    *input
	ansi  bool
	rt    sparktype.Type
	acc   *decSum
	empty []bool
	rows  *groupRows
	// borrowed: acc is another function's, which adds the input to it (shareDecSums).
	borrowed bool
}

func (f *sumDecimal) decAcc() (*decSum, *input) { return f.acc, f.in }
func (f *sumDecimal) borrowAcc(acc *decSum)     { f.acc, f.borrowed = acc, true }

func (f *sumDecimal) bufferTypes() []sparktype.Type {
	return []sparktype.Type{f.rt, sparktype.BooleanType}
}

func (f *sumDecimal) grow(n int) {
	f.acc.grow(n)
	f.empty = growSlice(f.empty, n, true)
}

func (f *sumDecimal) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	if f.borrowed {
		return f.seenOnly(ctx, b, gids)
	}
	if vals, bound, ok := f.in.eval64(b); ok {
		f.acc.addInt64(vals, bound, gids)
		f.seen(nil, 0, b, gids)
		return nil
	}
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	bits, off := validity(col)
	vals := fixedValues[decimal128.Num](col)
	f.acc.addColumn(vals, bits, off, gids)
	f.seen(bits, off, b, gids)
	return nil
}

// seenOnly is update for a sum whose accumulator another function adds to (shareDecSums).
func (f *sumDecimal) seenOnly(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	bits, off := validity(col)
	f.seen(bits, off, b, gids)
	col.Release()
	return nil
}

// seen marks the groups of the rows with a non-null value as not empty.
func (f *sumDecimal) seen(bits []byte, off int, b *columnar.Batch, gids []uint32) {
	empty := f.empty
	if bits == nil {
		if h := f.rows.counts(b, gids); h != nil {
			empty = empty[:len(h)]
			for g, c := range h {
				if c != 0 {
					empty[g] = false
				}
			}
			return
		}
		for _, g := range gids {
			empty[g] = false
		}
		return
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			empty[g] = false
		}
	}
}

func (f *sumDecimal) merge(cols []arrow.Array, gids []uint32) error {
	if f.borrowed {
		return errSharedMerge
	}
	sums := fixedValues[decimal128.Num](cols[0])
	sbits, soff := validity(cols[0])
	ebits, eoff := boolBits(cols[1])
	evalid, evoff := validity(cols[1])
	for i, g := range gids {
		inEmpty := bitSet(evalid, evoff, i) && bitSet(ebits, eoff, i)
		if !bitSet(sbits, soff, i) {
			if !inEmpty { // the partial buffer overflowed
				f.acc.setOverflow(g)
				f.empty[g] = false
			}
			continue
		}
		f.empty[g] = f.empty[g] && inEmpty
		f.acc.addOne(g, sums[i])
	}
	return nil
}

func (f *sumDecimal) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{f.acc.bufferColumn(alloc, lo, hi), buildBool(alloc, f.empty[lo:hi], nil)}, nil
}

func (f *sumDecimal) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[decimal128.Num](alloc, hi-lo)
	for g := lo; g < hi; g++ {
		if f.empty[g] {
			o.setNull(alloc, g-lo)
			continue
		}
		n, fits, exact, ovf := f.acc.value(g)
		switch {
		case fits:
			o.V[g-lo] = n
			continue
		case !f.ansi:
		case ovf:
			o.finish(f.rt.Arrow()).Release()
			return nil, exec.DecimalSumOverflow("try_sum")
		default:
			o.finish(f.rt.Arrow()).Release()
			return nil, exec.NumericValueOutOfRange(plainString(exact, f.rt.Scale), f.rt.Precision, f.rt.Scale)
		}
		o.setNull(alloc, g-lo)
	}
	return o.finish(f.rt.Arrow()), nil
}
