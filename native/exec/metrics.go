package exec

import (
	"time"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// OpMetrics is what one native operator did in one task, as the JVM shows it on the operator's
// Spark node (numOutputRows, numOutputBatches, its own time).
type OpMetrics struct {
	// ID is the plan node id the JVM numbered the block's nodes with (plan.Node.ID).
	ID int
	// Rows and Batches count the non-empty batches the operator returned (empty ones are never
	// handed on to Spark either).
	Rows, Batches int64
	// Nanos is the operator's own time in Open and Next: the time its children (native operators
	// and the block's input leaves) spent inside those calls is not part of it, so the operators
	// of a block add up to the block's time rather than counting the scan once per ancestor.
	Nanos int64
	// SpilledMem and SpilledDisk are the bytes the operator spilled: their in-memory (Arrow) size,
	// Spark's memory bytes spilled and "spill size", and their size on disk.
	SpilledMem, SpilledDisk int64
}

// MetricLongs is how many longs of OpMetrics the JVM reads per operator.
const MetricLongs = 6

// Spiller is an operator that can spill; it reports what it spilled (kept after Close).
type Spiller interface {
	SpillMetrics() (memBytes, diskBytes int64)
}

// Meter is one task's clock and registry of its block's operators. Guards register when opened;
// the JVM reads Snapshot once, at the end of the task. The clock is read twice per Open and per
// Next of each guard, so per batch, never per row. A task's operators run on one thread at a
// time, so the Meter needs no lock.
type Meter struct {
	guards []*Guarded
	// running is the span of the call in progress, innermost first: the time of each call is
	// added to its caller's children time.
	running *span
}

// NewMeter returns an empty meter for one task.
func NewMeter() *Meter { return &Meter{} }

// span is the time spent in one operator's calls, and how much of it went to its children.
type span struct {
	total, children int64
}

// epoch makes clock readings monotonic nanoseconds: time.Since on a time with a monotonic
// reading reads only the monotonic clock (time.Now reads the wall clock too).
var epoch = time.Now()

func now() int64 { return int64(time.Since(epoch)) }

// enter starts timing s; the caller passes the results to leave.
func (m *Meter) enter(s *span) (caller *span, start int64) {
	caller, m.running = m.running, s
	return caller, now()
}

// leave ends the call started by enter, on errors and panics too (the caller's time must not
// absorb the rest of a failed child's call).
func (m *Meter) leave(s, caller *span, start int64) {
	d := now() - start
	s.total += d
	if caller != nil {
		caller.children += d
	}
	m.running = caller
}

// Snapshot returns the metrics of every operator opened so far, in the order they were opened.
func (m *Meter) Snapshot() []OpMetrics {
	if m == nil {
		return nil
	}
	out := make([]OpMetrics, len(m.guards))
	for i, g := range m.guards {
		out[i] = g.Metrics()
	}
	return out
}

// Excluded times a leaf of a block whose time belongs to no native operator of the block: an
// input from Spark (the Spark child's own work, or fetching a native shuffle's blocks and
// decoding them). Its parent's own time excludes it; it reports nothing. Errors and panics pass
// through to the parent's guard, which names them as before.
type Excluded struct {
	Inner Operator
	meter *Meter
	span  span
}

func (e *Excluded) Schema() []sparktype.Field { return e.Inner.Schema() }

func (e *Excluded) Open(ctx *TaskContext) error {
	if ctx != nil && ctx.Meter != nil {
		e.meter = ctx.Meter
		caller, start := e.meter.enter(&e.span)
		defer e.meter.leave(&e.span, caller, start)
	}
	return e.Inner.Open(ctx)
}

func (e *Excluded) Next() (*columnar.Batch, error) {
	if e.meter != nil {
		caller, start := e.meter.enter(&e.span)
		defer e.meter.leave(&e.span, caller, start)
	}
	return e.Inner.Next()
}

func (e *Excluded) Close() { e.Inner.Close() }
