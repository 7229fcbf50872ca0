package aggregate

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// MaxBy and MinBy (MaxByAndMinBy.scala: max_by(x, y), min_by(x, y)): buffers
// valueWithExtremumOrdering (x's type) and extremumOrdering (y's type), both initially null. A
// row (or a partial buffer) whose ordering is null changes nothing; the first non-null ordering
// takes its row's value, null or not; after that a row takes the value unless the kept ordering
// is strictly greater (max_by; strictly less for min_by) than the row's, so among equal orderings
// the last one seen wins the value, while the kept ordering, greatest(kept, new) (least), stays
// the first of equals (-0.0 and 0.0 are equal, NaN is greater than every number). The result is
// the value. Orderings of integral, floating, decimal, date and timestamp types are native; values
// of every type firstLast stores.

func init() {
	registerFunction("MaxBy", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newMaxMinBy(fn, c, true) })
	registerFunction("MinBy", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newMaxMinBy(fn, c, false) })
}

func newMaxMinBy(fn *plan.Expr, c *fnContext, isMax bool) (*fnSpec, error) {
	name := "min_by"
	if isMax {
		name = "max_by"
	}
	ve, err := fn.Child("valueExpr")
	if err != nil {
		return nil, err
	}
	vt, err := ve.Type()
	if err != nil {
		return nil, err
	}
	oe, err := fn.Child("orderingExpr")
	if err != nil {
		return nil, err
	}
	ot, err := oe.Type()
	if err != nil {
		return nil, err
	}
	store := valueStoreFor(vt)
	if store == nil {
		return nil, refuse("aggregate function %s of a %s value is not supported natively", name, vt)
	}
	val, err := bindInput(ve, c)
	if err != nil {
		return nil, err
	}
	// The value is evaluated for every row here, where Spark's CaseWhen may evaluate it only for
	// the rows it takes: a value that can raise an error stays in Spark.
	if val != nil && val.e != nil && expr.MayFail(val.e) {
		return nil, refuse("aggregate function %s of a value that can raise an error (%s) is not supported natively",
			name, val.e)
	}
	ord, err := bindInput(oe, c)
	if err != nil {
		return nil, err
	}
	var mk func() function
	switch ot.Kind {
	case sparktype.Byte:
		mk = func() function { return newMaxMinByState[int8, sparkOrder[int8]](val, ord, vt, ot, isMax, store()) }
	case sparktype.Short:
		mk = func() function { return newMaxMinByState[int16, sparkOrder[int16]](val, ord, vt, ot, isMax, store()) }
	case sparktype.Int, sparktype.Date:
		mk = func() function { return newMaxMinByState[int32, sparkOrder[int32]](val, ord, vt, ot, isMax, store()) }
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		mk = func() function { return newMaxMinByState[int64, sparkOrder[int64]](val, ord, vt, ot, isMax, store()) }
	case sparktype.Float:
		mk = func() function {
			return newMaxMinByState[float32, sparkOrder[float32]](val, ord, vt, ot, isMax, store())
		}
	case sparktype.Double:
		mk = func() function {
			return newMaxMinByState[float64, sparkOrder[float64]](val, ord, vt, ot, isMax, store())
		}
	case sparktype.Decimal:
		mk = func() function {
			return newMaxMinByState[decimal128.Num, decimalOrder](val, ord, vt, ot, isMax, store())
		}
	default:
		return nil, refuse("aggregate function %s ordered by %s is not supported natively", name, ot)
	}
	return &fnSpec{name: name, bufTypes: []sparktype.Type{vt, ot}, resultType: vt, newState: mk}, nil
}

// order is Spark's ordering of one type: greater(a, b) is a > b.
type order[T any] interface{ greater(a, b T) bool }

type sparkOrder[T ordered] struct{}

func (sparkOrder[T]) greater(a, b T) bool { return sparkGreater(a, b) }

// decimalOrder compares decimals of one type (the same scale) by their unscaled values.
type decimalOrder struct{}

func (decimalOrder) greater(a, b decimal128.Num) bool { return decLess(b, a) }

type maxMinBy[T arrow.FixedWidthType, O order[T]] struct {
	val, ord *input
	vt, ot   sparktype.Type
	max      bool
	cmp      O
	ords     []T
	has      []bool
	picks
}

func newMaxMinByState[T arrow.FixedWidthType, O order[T]](val, ord *input, vt, ot sparktype.Type, isMax bool,
	s valueStore) *maxMinBy[T, O] {
	return &maxMinBy[T, O]{val: val, ord: ord, vt: vt, ot: ot, max: isMax, picks: picks{store: s}}
}

func (f *maxMinBy[T, O]) bufferTypes() []sparktype.Type { return []sparktype.Type{f.vt, f.ot} }

func (f *maxMinBy[T, O]) grow(n int) {
	f.picks.grow(n)
	var zero T
	f.ords = growSlice(f.ords, n, zero)
	f.has = growSlice(f.has, n, false)
}

func (f *maxMinBy[T, O]) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	ord, err := f.ord.eval(ctx, b)
	if err != nil {
		return err
	}
	defer ord.Release()
	val, err := f.val.eval(ctx, b)
	if err != nil {
		return err
	}
	defer val.Release()
	return f.fold(val, ord, gids)
}

// merge folds partial buffers by the same rule as rows: a buffer is a (value, ordering) pair.
func (f *maxMinBy[T, O]) merge(cols []arrow.Array, gids []uint32) error {
	return f.fold(cols[0], cols[1], gids)
}

// fold takes, per row with a non-null ordering, the row's value where the rule says so, then
// copies the taken values once.
func (f *maxMinBy[T, O]) fold(val, ord arrow.Array, gids []uint32) error {
	ords := fixedValues[T](ord)
	if len(ords) < len(gids) {
		return fmt.Errorf("max_by/min_by: ordering column of %d values for %d rows", len(ords), len(gids))
	}
	bits, off := validity(ord)
	cur, has := f.ords, f.has
	if f.max {
		for i, g := range gids {
			if !bitSet(bits, off, i) {
				continue
			}
			o := ords[i]
			switch {
			case !has[g]:
				cur[g], has[g] = o, true
				f.choose(g, i)
			case !f.cmp.greater(cur[g], o):
				if f.cmp.greater(o, cur[g]) {
					cur[g] = o
				}
				f.choose(g, i)
			}
		}
	} else {
		for i, g := range gids {
			if !bitSet(bits, off, i) {
				continue
			}
			o := ords[i]
			switch {
			case !has[g]:
				cur[g], has[g] = o, true
				f.choose(g, i)
			case !f.cmp.greater(o, cur[g]):
				if f.cmp.greater(cur[g], o) {
					cur[g] = o
				}
				f.choose(g, i)
			}
		}
	}
	return f.apply(val)
}

func (f *maxMinBy[T, O]) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{f.store.build(alloc, lo, hi), buildFixed(alloc, f.ot, f.ords[lo:hi], f.has[lo:hi])}, nil
}

func (f *maxMinBy[T, O]) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return f.store.build(alloc, lo, hi), nil
}
