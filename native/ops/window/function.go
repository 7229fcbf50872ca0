package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Kind is a window function the operator computes.
type Kind uint8

const (
	RowNumber Kind = iota
	Rank
	DenseRank
	PercentRank
	CumeDist
	NTile
	// Offset is Lag and Lead: the input at a fixed row offset within the partition.
	Offset
	// Aggregate is an aggregate function over a frame (frameagg.go).
	Aggregate
)

func (k Kind) String() string {
	return [...]string{"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag/lead", "aggregate"}[k]
}

// Function is one window function of the operator.
type Function struct {
	Kind Kind
	// Buckets is NTile's bucket count (> 0).
	Buckets int64
	// For Offset: the input, the row offset (Lead: +k, Lag: -k, never 0) and the value taken when
	// the row at that offset is outside the partition (nil: null), of the input's type.
	Input   expr.Expr
	Rows    int64
	Default any
	// For Aggregate: the function (over Input) and its frame.
	Agg   AggOp
	Frame Frame
	// Ansi: an integral sum raises Spark's ARITHMETIC_OVERFLOW instead of wrapping.
	Ansi bool
	// For AggFirst, AggLast, AggNth: skip null inputs (IGNORE NULLS), and nth_value's n (>= 1).
	IgnoreNulls bool
	Nth         int64
}

func (f *Function) resultType() sparktype.Type {
	switch f.Kind {
	case PercentRank, CumeDist:
		return sparktype.Type{Kind: sparktype.Double, Name: "double"}
	case Offset:
		return f.Input.Type()
	case Aggregate:
		t, _ := aggResultType(f.Agg, f.Input.Type())
		return t
	}
	return sparktype.Type{Kind: sparktype.Int, Name: "integer"}
}

func (f *Function) check() error {
	switch f.Kind {
	case NTile:
		if f.Buckets <= 0 {
			return fmt.Errorf("ntile with %d buckets", f.Buckets)
		}
	case Offset:
		if f.Input == nil || f.Rows == 0 {
			return fmt.Errorf("lag/lead needs an input and a nonzero offset")
		}
		if f.Input.Type().Arrow() == nil {
			return fmt.Errorf("lag/lead of type %s is not supported natively", f.Input.Type())
		}
	case Aggregate:
		if f.Input == nil {
			return fmt.Errorf("window aggregate without an input")
		}
		if f.Agg == AggNth && f.Nth < 1 {
			return fmt.Errorf("nth_value with offset %d", f.Nth)
		}
		if _, ok := aggResultType(f.Agg, f.Input.Type()); !ok {
			return fmt.Errorf("window %s over %s is not supported natively", f.Agg, f.Input.Type())
		}
	}
	return nil
}

// compute returns f's column for every piece of seg.
func (f *Function) compute(ctx *exec.TaskContext, seg *segment) ([]arrow.Array, error) {
	switch f.Kind {
	case Offset:
		return f.computeOffset(ctx, seg)
	case Aggregate:
		return f.computeAggregate(ctx, seg)
	}
	return f.computeRanking(ctx, seg)
}

// computeOffset gathers, for every row, the input of the row Rows away in its partition, or the
// default.
func (f *Function) computeOffset(ctx *exec.TaskContext, seg *segment) ([]arrow.Array, error) {
	srcs := make([]arrow.Array, 0, len(seg.pieces)+1)
	defer func() { releaseAll(srcs) }()
	for _, p := range seg.pieces {
		c, err := f.Input.Eval(ctx, p.b)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, c)
	}
	def := columnar.NullRef
	if f.Default != nil {
		c, err := columnar.Constant(ctx.Alloc, f.Input.Type(), f.Default, 1)
		if err != nil {
			return nil, err
		}
		def = columnar.RowRef{Src: uint32(len(srcs)), Row: 0}
		srcs = append(srcs, c)
	}
	out := make([]arrow.Array, len(seg.pieces))
	var refs []columnar.RowRef
	part, partStart, partEnd := 0, 0, 0
	tp := 0 // the piece holding the target row: targets only move forward
	for pi, p := range seg.pieces {
		n := p.b.NumRows
		refs = refs[:0]
		for r := 0; r < n; r++ {
			g := seg.starts[pi] + r
			if p.newPart[r] {
				partStart = g
				partEnd = g + seg.partSizes[part]
				part++
			}
			t := int64(g) + f.Rows
			if t < int64(partStart) || t >= int64(partEnd) {
				refs = append(refs, def)
				continue
			}
			for tp+1 < len(seg.pieces) && seg.starts[tp+1] <= int(t) {
				tp++
			}
			for tp > 0 && seg.starts[tp] > int(t) {
				tp--
			}
			refs = append(refs, columnar.RowRef{Src: uint32(tp), Row: uint32(int(t) - seg.starts[tp])})
		}
		col, err := columnar.Gather(ctx.Alloc, srcs, refs)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[pi] = col
	}
	return out, nil
}
