package exec

import (
	"fmt"
	"runtime/debug"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Guarded wraps an operator so that its errors and panics name it: a user reading a failed task
// sees "BolideFilter: ..." rather than a bare Go message. It also counts what the operator returns
// and, when the task has a Meter, times it (see OpMetrics), for the operator's Spark node.
type Guarded struct {
	Name string
	// ID is the plan node id of the operator's Spark node (plan.Node.ID).
	ID    int
	Inner Operator

	meter         *Meter
	span          span
	rows, batches int64
}

func (g *Guarded) Schema() []sparktype.Field { return g.Inner.Schema() }

func (g *Guarded) Open(ctx *TaskContext) (err error) {
	if ctx != nil && ctx.Meter != nil && g.meter == nil {
		g.meter = ctx.Meter
		g.meter.guards = append(g.meter.guards, g)
	}
	if g.meter != nil {
		caller, start := g.meter.enter(&g.span)
		defer g.meter.leave(&g.span, caller, start)
	}
	defer g.recover(&err)
	if err = g.Inner.Open(ctx); err != nil {
		err = g.wrap(err)
	}
	return err
}

func (g *Guarded) Next() (b *columnar.Batch, err error) {
	if g.meter != nil {
		caller, start := g.meter.enter(&g.span)
		defer g.meter.leave(&g.span, caller, start)
	}
	defer g.recover(&err)
	b, err = g.Inner.Next()
	if err != nil {
		err = g.wrap(err)
	} else if b != nil && b.NumRows > 0 {
		g.rows += int64(b.NumRows)
		g.batches++
	}
	return b, err
}

// LazyOK reports whether the wrapped operator hands out lazy batches.
func (g *Guarded) LazyOK() bool {
	l, ok := g.Inner.(LazyOperator)
	return ok && l.LazyOK()
}

// NextLazy is Next for an operator that hands out lazy batches: its live rows are counted as
// its output. The decoding a consumer asks of the batch is timed as the consumer's.
func (g *Guarded) NextLazy() (l columnar.Lazy, err error) {
	if g.meter != nil {
		caller, start := g.meter.enter(&g.span)
		defer g.meter.leave(&g.span, caller, start)
	}
	defer g.recover(&err)
	inner, ok := g.Inner.(LazyOperator)
	if !ok {
		return nil, g.wrap(fmt.Errorf("%T hands out no lazy batches", g.Inner))
	}
	l, err = inner.NextLazy()
	if err != nil {
		return nil, g.wrap(err)
	}
	if l != nil {
		rows := l.NumRows()
		if live := l.Live(); live != nil {
			rows = len(live)
		}
		if rows > 0 {
			g.rows += int64(rows)
			g.batches++
		}
	}
	return l, nil
}

func (g *Guarded) Close() { g.Inner.Close() }

// Metrics returns what the operator did so far.
func (g *Guarded) Metrics() OpMetrics {
	m := OpMetrics{ID: g.ID, Rows: g.rows, Batches: g.batches, Nanos: g.span.total - g.span.children}
	if s, ok := g.Inner.(Spiller); ok {
		m.SpilledMem, m.SpilledDisk = s.SpillMetrics()
	}
	return m
}

func (g *Guarded) recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s panicked: %v\n%s", g.Name, r, debug.Stack())
	}
}

// wrap prefixes the operator name once (children already named their own errors).
func (g *Guarded) wrap(err error) error {
	if _, named := err.(*namedError); named {
		return err
	}
	return &namedError{op: g.Name, err: err}
}

type namedError struct {
	op  string
	err error
}

func (e *namedError) Error() string { return e.op + ": " + e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }
