package aggregate

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Count (Count.scala): buffer count: long (non-null), initial 0; a row counts when every nullable
// child is non-null (count(*) is Count(Literal 1), whose child is never null); merge adds; the
// result is the count.
func init() { registerFunction("Count", newCount) }

func newCount(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	children, err := fn.Children("children")
	if err != nil {
		return nil, err
	}
	var ins []*input
	for _, ch := range children {
		if !ch.Nullable || !c.mode.updates() {
			continue
		}
		in, err := newInput(ch, c, false)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	return &fnSpec{
		name:       "count",
		bufTypes:   []sparktype.Type{sparktype.LongType},
		resultType: sparktype.LongType,
		newState:   func() function { return &count{ins: ins} },
	}, nil
}

type count struct {
	ins    []*input
	counts []int64
}

func (f *count) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.LongType} }
func (f *count) grow(n int)                    { f.counts = growSlice(f.counts, n, 0) }

func (f *count) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	counts := f.counts
	if len(f.ins) == 0 {
		for _, g := range gids {
			counts[g]++
		}
		return nil
	}
	cols := make([]arrow.Array, len(f.ins))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	anyNulls := false
	for i, in := range f.ins {
		c, err := in.eval(ctx, b)
		if err != nil {
			return err
		}
		cols[i] = c
		anyNulls = anyNulls || c.NullN() > 0
	}
	if !anyNulls {
		for _, g := range gids {
			counts[g]++
		}
		return nil
	}
	if len(cols) == 1 {
		bits, off := validity(cols[0])
		for i, g := range gids {
			if bitSet(bits, off, i) {
				counts[g]++
			}
		}
		return nil
	}
	ok := make([]bool, len(gids))
	for i := range ok {
		ok[i] = true
	}
	for _, c := range cols {
		bits, off := validity(c)
		if bits == nil {
			continue
		}
		for i := range ok {
			if !bitSet(bits, off, i) {
				ok[i] = false
			}
		}
	}
	for i, g := range gids {
		if ok[i] {
			counts[g]++
		}
	}
	return nil
}

func (f *count) merge(cols []arrow.Array, gids []uint32) error {
	vals := fixedValues[int64](cols[0])
	bits, off := validity(cols[0])
	counts := f.counts
	if bits == nil {
		for i, g := range gids {
			counts[g] += vals[i]
		}
		return nil
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			counts[g] += vals[i]
		}
	}
	return nil
}

func (f *count) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{buildFixed(alloc, sparktype.LongType, f.counts[lo:hi], nil)}, nil
}

func (f *count) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, sparktype.LongType, f.counts[lo:hi], nil), nil
}
