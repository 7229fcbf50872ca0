package aggregate

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Bitwise aggregates (bitwiseAggregates.scala): bit_and, bit_or and bit_xor over an integral
// child. The buffer is one value of the child's type, initially null; a non-null input (or
// partial buffer) replaces a null buffer and is otherwise combined with it, so the result is null
// only for a group without a non-null value. The operators are associative and commutative: the
// order of rows and of partial buffers cannot change a result.

type bitOp uint8

const (
	bitAnd bitOp = iota
	bitOr
	bitXor
)

var bitOpNames = [...]string{bitAnd: "bit_and", bitOr: "bit_or", bitXor: "bit_xor"}

func init() {
	registerFunction("BitAndAgg", bitAggBuilder(bitAnd))
	registerFunction("BitOrAgg", bitAggBuilder(bitOr))
	registerFunction("BitXorAgg", bitAggBuilder(bitXor))
}

func bitAggBuilder(op bitOp) fnBuilder {
	return func(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
		child, t, err := singleChild(fn)
		if err != nil {
			return nil, err
		}
		in, err := bindInput(child, c)
		if err != nil {
			return nil, err
		}
		var mk func() function
		switch t.Kind {
		case sparktype.Byte:
			mk = func() function { return &bitAgg[int8]{in: in, t: t, op: op} }
		case sparktype.Short:
			mk = func() function { return &bitAgg[int16]{in: in, t: t, op: op} }
		case sparktype.Int:
			mk = func() function { return &bitAgg[int32]{in: in, t: t, op: op} }
		case sparktype.Long:
			mk = func() function { return &bitAgg[int64]{in: in, t: t, op: op} }
		default:
			return nil, refuse("aggregate function %s over %s is not supported natively", bitOpNames[op], t)
		}
		return &fnSpec{name: bitOpNames[op], bufTypes: []sparktype.Type{t}, resultType: t, newState: mk}, nil
	}
}

type integral interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type bitAgg[T integral] struct {
	in   *input
	t    sparktype.Type
	op   bitOp
	vals []T
	has  []bool
}

func (f *bitAgg[T]) bufferTypes() []sparktype.Type { return []sparktype.Type{f.t} }

func (f *bitAgg[T]) grow(n int) {
	f.vals = growSlice(f.vals, n, 0)
	f.has = growSlice(f.has, n, false)
}

func (f *bitAgg[T]) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

// merge folds values (input rows or partial buffers: the same rule) into their groups, one loop
// per operator so that the loop body has no branch on it.
func (f *bitAgg[T]) merge(cols []arrow.Array, gids []uint32) error {
	vals := fixedValues[T](cols[0])
	if len(vals) < len(gids) {
		return fmt.Errorf("%s: column of %d values for %d rows", bitOpNames[f.op], len(vals), len(gids))
	}
	bits, off := validity(cols[0])
	cur, has := f.vals, f.has
	switch f.op {
	case bitAnd:
		for i, g := range gids {
			if bitSet(bits, off, i) {
				if has[g] {
					cur[g] &= vals[i]
				} else {
					cur[g], has[g] = vals[i], true
				}
			}
		}
	case bitOr:
		for i, g := range gids {
			if bitSet(bits, off, i) {
				cur[g] |= vals[i] // a null buffer holds 0, the identity of |
				has[g] = true
			}
		}
	default:
		for i, g := range gids {
			if bitSet(bits, off, i) {
				cur[g] ^= vals[i] // and of ^
				has[g] = true
			}
		}
	}
	return nil
}

func (f *bitAgg[T]) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

func (f *bitAgg[T]) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, f.t, f.vals[lo:hi], f.has[lo:hi]), nil
}
