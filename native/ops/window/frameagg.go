package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Aggregates over the frames that start at the partition's first row: the running frames (ROWS
// or RANGE UNBOUNDED PRECEDING AND CURRENT ROW) and the whole partition. Spark evaluates all of
// them by adding the partition's rows in order into one buffer (the growing frame, or the
// unbounded frame computed once per partition), so the aggregate of a frame is the running
// aggregate at the frame's last row: computing the running aggregate once and reading it at each
// row's frame end gives Spark's values, doubles included (same additions in the same order).

// AggOp is an aggregate function computed over a frame.
type AggOp uint8

const (
	AggCount AggOp = iota
	AggSum
	AggMin
	AggMax
	AggAvg
	// AggFirst, AggLast, AggNth pick a row of the frame (pick.go).
	AggFirst
	AggLast
	AggNth
)

func (o AggOp) String() string {
	return [...]string{"count", "sum", "min", "max", "avg", "first_value", "last_value", "nth_value"}[o]
}

// Frame is the frame of an aggregate.
type Frame uint8

const (
	// FrameRunningRows: ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
	FrameRunningRows Frame = iota
	// FrameRunningRange: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (to the last peer).
	FrameRunningRange
	// FramePartition: UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING.
	FramePartition
)

var (
	longType   = sparktype.Type{Kind: sparktype.Long, Name: "bigint"}
	doubleType = sparktype.Type{Kind: sparktype.Double, Name: "double"}
)

func integral(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
		return true
	}
	return false
}

// aggResultType is Spark's result type of op over in (ok false: not computed natively).
func aggResultType(op AggOp, in sparktype.Type) (sparktype.Type, bool) {
	floating := in.Kind == sparktype.Float || in.Kind == sparktype.Double
	switch op {
	case AggFirst, AggLast, AggNth:
		return in, in.Arrow() != nil
	case AggCount:
		return longType, true
	case AggSum:
		if integral(in) {
			return longType, true
		}
		if floating {
			return doubleType, true
		}
	case AggAvg:
		if integral(in) || floating {
			return doubleType, true
		}
	case AggMin, AggMax:
		// Floating min/max are left to Spark: its Greatest/Least treat NaN and -0.0 by ordering
		// rules not reproduced here.
		if integral(in) {
			return in, true
		}
	}
	return sparktype.Type{}, false
}

// running is the running aggregate after each row of a segment (restarting at each partition).
type running struct {
	ints  []int64
	flts  []float64
	cnts  []int64
	valid []bool
}

// widen appends a column of an integral or floating type widened to int64 or float64.
func widen(a arrow.Array, ints []int64, flts []float64) ([]int64, []float64, error) {
	switch c := a.(type) {
	case *array.Int8:
		for _, v := range c.Int8Values() {
			ints = append(ints, int64(v))
		}
	case *array.Int16:
		for _, v := range c.Int16Values() {
			ints = append(ints, int64(v))
		}
	case *array.Int32:
		for _, v := range c.Int32Values() {
			ints = append(ints, int64(v))
		}
	case *array.Int64:
		ints = append(ints, c.Int64Values()...)
	case *array.Float32:
		for _, v := range c.Float32Values() {
			flts = append(flts, float64(v))
		}
	case *array.Float64:
		flts = append(flts, c.Float64Values()...)
	default:
		return nil, nil, fmt.Errorf("window aggregate over Arrow type %s", a.DataType())
	}
	return ints, flts, nil
}

// aggAcc is the running aggregate of one function over a partition's rows, added in order.
type aggAcc struct {
	f *Function
	// floating: the aggregate adds doubles (Spark's average adds its input cast to double,
	// integers included).
	floating bool
	cnt, si  int64
	sf       float64
	has      bool
}

func newAggAcc(f *Function) aggAcc {
	in := f.Input.Type().Kind
	return aggAcc{f: f, floating: f.Agg != AggCount && (in == sparktype.Float || in == sparktype.Double || f.Agg == AggAvg)}
}

func newRunning(n int, floating bool) *running {
	run := &running{valid: make([]bool, n), cnts: make([]int64, n)}
	if floating {
		run.flts = make([]float64, n)
	} else {
		run.ints = make([]int64, n)
	}
	return run
}

// copyRow sets row i of r to row j of from.
func (r *running) copyRow(i int, from *running, j int) {
	r.cnts[i], r.valid[i] = from.cnts[j], from.valid[j]
	if r.flts != nil {
		r.flts[i] = from.flts[j]
	} else {
		r.ints[i] = from.ints[j]
	}
}

// feed adds the rows of c (the function's input over consecutive rows), restarting at the rows
// newPart flags (nil: none), and records the running aggregate after each row in run[at:] (run
// nil: only the state is kept).
func (a *aggAcc) feed(c arrow.Array, newPart []bool, run *running, at int) error {
	f := a.f
	var ints []int64
	var flts []float64
	if f.Agg != AggCount { // count reads only nulls, of any type
		var err error
		if ints, flts, err = widen(c, nil, nil); err != nil {
			return err
		}
		if a.floating && ints != nil {
			flts = make([]float64, len(ints))
			for i, v := range ints {
				flts[i] = float64(v)
			}
			ints = nil
		}
	}
	for r := 0; r < c.Len(); r++ {
		if newPart != nil && newPart[r] {
			a.cnt, a.si, a.sf, a.has = 0, 0, 0, false
		}
		if !c.IsNull(r) {
			a.cnt++
			if f.Agg == AggCount {
				// nothing but the count
			} else if a.floating {
				// Spark: coalesce(coalesce(sum, 0) + x, sum), so the first value is added to 0.0.
				a.sf += flts[r]
			} else {
				v := ints[r]
				switch {
				case f.Agg == AggSum:
					s := a.si + v // Spark's LEGACY long addition wraps; ANSI raises
					if f.Ansi && ((a.si > 0 && v > 0 && s < 0) || (a.si < 0 && v < 0 && s >= 0)) {
						return exec.ArithmeticOverflow("long overflow",
							" Use 'try_add' to tolerate overflow and return NULL instead.")
					}
					a.si = s
				case !a.has, f.Agg == AggMin && v < a.si, f.Agg == AggMax && v > a.si:
					a.si = v
				}
			}
			a.has = true
		}
		if run != nil {
			g := at + r
			run.cnts[g], run.valid[g] = a.cnt, a.has
			if a.floating {
				run.flts[g] = a.sf
			} else {
				run.ints[g] = a.si
			}
		}
	}
	return nil
}

// state returns the aggregate of the rows fed so far as a one-row running.
func (a *aggAcc) state() *running {
	run := newRunning(1, a.floating)
	run.cnts[0], run.valid[0] = a.cnt, a.has
	if a.floating {
		run.flts[0] = a.sf
	} else {
		run.ints[0] = a.si
	}
	return run
}

// computeAggregate computes f (Kind Aggregate) over seg.
func (f *Function) computeAggregate(ctx *exec.TaskContext, seg *segment) ([]arrow.Array, error) {
	if f.Agg.picks() {
		return f.computePick(ctx, seg)
	}
	// The running aggregate after each row.
	acc := newAggAcc(f)
	floating := acc.floating
	run := newRunning(seg.rows, floating)
	for pi, p := range seg.pieces {
		c, err := f.Input.Eval(ctx, p.b)
		if err != nil {
			return nil, err
		}
		err = acc.feed(c, p.newPart, run, seg.starts[pi])
		c.Release()
		if err != nil {
			return nil, err
		}
	}
	// Each row reads the running aggregate at its frame's last row.
	out := make([]arrow.Array, len(seg.pieces))
	st := rankState{seg: seg}
	g := 0
	partStart := 0
	for pi, p := range seg.pieces {
		rows := p.b.NumRows
		idx := make([]int, rows)
		for r := 0; r < rows; r++ {
			st.advance(p.newPart[r], p.newPeer[r])
			if p.newPart[r] {
				partStart = g
			}
			switch f.Frame {
			case FrameRunningRows:
				idx[r] = g
			case FrameRunningRange:
				idx[r] = partStart + st.peerEndRow - 1
			case FramePartition:
				idx[r] = partStart + st.partSize - 1
			}
			g++
		}
		col, err := f.aggColumn(ctx.Alloc, run, idx, floating)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[pi] = col
	}
	return out, nil
}

// aggColumn builds the result column of the rows whose frames end at idx.
func (f *Function) aggColumn(alloc memory.Allocator, run *running, idx []int, floating bool) (arrow.Array, error) {
	rt := f.resultType()
	b := array.NewBuilder(alloc, rt.Arrow())
	defer b.Release()
	b.Reserve(len(idx))
	switch bb := b.(type) {
	case *array.Int64Builder:
		for _, i := range idx {
			switch {
			case f.Agg == AggCount:
				bb.UnsafeAppend(run.cnts[i])
			case !run.valid[i]:
				bb.UnsafeAppendBoolToBitmap(false)
			default:
				bb.UnsafeAppend(run.ints[i])
			}
		}
	case *array.Float64Builder:
		for _, i := range idx {
			switch {
			case !run.valid[i]:
				bb.UnsafeAppendBoolToBitmap(false)
			case f.Agg == AggAvg:
				bb.UnsafeAppend(run.flts[i] / float64(run.cnts[i]))
			default:
				bb.UnsafeAppend(run.flts[i])
			}
		}
	case *array.Int32Builder:
		for _, i := range idx {
			if !run.valid[i] {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(int32(run.ints[i]))
			}
		}
	case *array.Int16Builder:
		for _, i := range idx {
			if !run.valid[i] {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(int16(run.ints[i]))
			}
		}
	case *array.Int8Builder:
		for _, i := range idx {
			if !run.valid[i] {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(int8(run.ints[i]))
			}
		}
	default:
		return nil, fmt.Errorf("window aggregate result of type %s", rt)
	}
	return b.NewArray(), nil
}
