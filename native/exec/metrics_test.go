package exec

import (
	"errors"
	"testing"
	"time"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// stage passes its child's batches on (or, as a leaf, returns batches of the given sizes),
// sleeping before each call returns: work of a known length.
type stage struct {
	child    Operator
	sizes    []int
	openWork time.Duration
	nextWork time.Duration
	fail     error
}

func (s *stage) Schema() []sparktype.Field { return nil }
func (s *stage) Close()                    {}

func (s *stage) Open(ctx *TaskContext) error {
	time.Sleep(s.openWork)
	if s.child != nil {
		return s.child.Open(ctx)
	}
	return nil
}

func (s *stage) Next() (*columnar.Batch, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	var b *columnar.Batch
	if s.child != nil {
		var err error
		if b, err = s.child.Next(); err != nil || b == nil {
			return nil, err
		}
	} else {
		if len(s.sizes) == 0 {
			return nil, nil
		}
		b = columnar.NewBatch(nil, s.sizes[0])
		s.sizes = s.sizes[1:]
	}
	time.Sleep(s.nextWork)
	return b, nil
}

func drain(t *testing.T, op Operator) {
	t.Helper()
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return
		}
		b.Release()
	}
}

// Each guard counts the non-empty batches its operator returns and its own time: the time its
// children spend (guards and excluded inputs alike) is not its own. A Spark input that takes
// 50 ms a batch would otherwise show up in both operators above it.
func TestMeterCountsOwnTime(t *testing.T) {
	const inputWork, filterWork, aggOpen = 50 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond
	input := &Excluded{Inner: &stage{sizes: []int{3, 0, 5}, nextWork: inputWork}}
	filter := &Guarded{Name: "BolideFilter", ID: 1, Inner: &stage{child: input, nextWork: filterWork}}
	agg := &Guarded{Name: "BolideHashAggregate", ID: 0, Inner: &stage{child: filter, openWork: aggOpen}}
	m := NewMeter()
	if err := agg.Open(&TaskContext{Meter: m}); err != nil {
		t.Fatal(err)
	}
	drain(t, agg)
	agg.Close()
	if m.running != nil {
		t.Fatal("clock stack not unwound")
	}

	got := m.Snapshot()
	if len(got) != 2 || got[0].ID != 0 || got[1].ID != 1 {
		t.Fatalf("want the two guards in open order, got %+v", got)
	}
	for _, g := range got {
		if g.Rows != 8 || g.Batches != 2 {
			t.Errorf("operator %d: %d rows in %d batches, want 8 rows in 2 (the empty batch not counted)", g.ID, g.Rows, g.Batches)
		}
	}
	aggOwn, filterOwn := time.Duration(got[0].Nanos), time.Duration(got[1].Nanos)
	// Lower bounds are the work done; the upper bound is below the input's time alone (150 ms),
	// which neither may include, whatever the sleeps overshoot on a loaded machine.
	if filterOwn < 3*filterWork || filterOwn >= 3*inputWork {
		t.Errorf("filter's own time %v: want its 3 x %v of work without the input's 3 x %v", filterOwn, filterWork, inputWork)
	}
	if aggOwn < aggOpen || aggOwn >= 3*inputWork {
		t.Errorf("aggregate's own time %v: want its %v of Open, without its children's", aggOwn, aggOpen)
	}
	if time.Duration(input.span.total) < 3*inputWork {
		t.Errorf("input timed %v, want at least 3 x %v", time.Duration(input.span.total), inputWork)
	}
	// What the guards saw adds up: the top's whole time is everyone's own time plus the input's.
	if whole := agg.span.total; whole != got[0].Nanos+got[1].Nanos+input.span.total {
		t.Errorf("top's time %d != own times %d + %d + input %d", whole, got[0].Nanos, got[1].Nanos, input.span.total)
	}
}

// A failing or panicking child leaves the clock as it found it, and the caller's time still
// excludes the child's.
func TestMeterUnwindsOnFailure(t *testing.T) {
	m := NewMeter()
	ctx := &TaskContext{Meter: m}
	boom := errors.New("boom")
	inner := &Guarded{Name: "BolideProject", ID: 1, Inner: &stage{fail: boom}}
	outer := &Guarded{Name: "BolideFilter", ID: 0, Inner: &stage{child: inner}}
	if err := outer.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := outer.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	panicking := &Guarded{Name: "BolideScan", ID: 2, Inner: &panicky{}}
	top := &Guarded{Name: "BolideProject", ID: 3, Inner: &stage{child: panicking}}
	if err := top.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := top.Next(); err == nil {
		t.Fatal("panic not turned into an error")
	}
	if m.running != nil {
		t.Fatal("clock stack not unwound after a failure")
	}
	for _, g := range m.Snapshot() {
		if g.Nanos < 0 || g.Rows != 0 {
			t.Errorf("operator %d: %+v", g.ID, g)
		}
	}
}

// Without a meter (planning, tests) guards still count rows, and time nothing.
func TestGuardedWithoutMeter(t *testing.T) {
	g := &Guarded{Name: "BolideFilter", Inner: &stage{sizes: []int{4, 4}}}
	if err := g.Open(&TaskContext{}); err != nil {
		t.Fatal(err)
	}
	drain(t, g)
	if m := g.Metrics(); m.Rows != 8 || m.Batches != 2 || m.Nanos != 0 {
		t.Errorf("got %+v", m)
	}
	var none *Meter
	if none.Snapshot() != nil {
		t.Error("a nil meter has no operators")
	}
}

// The cost of a guard's clock per call (twice per Next): compare with BenchmarkGuardedNoMeter.
func BenchmarkGuardedNext(b *testing.B) {
	benchGuard(b, &TaskContext{Meter: NewMeter()})
}

func BenchmarkGuardedNoMeter(b *testing.B) {
	benchGuard(b, &TaskContext{})
}

// endless returns the same batch forever.
type endless struct{ b *columnar.Batch }

func (e *endless) Schema() []sparktype.Field      { return nil }
func (e *endless) Open(*TaskContext) error        { return nil }
func (e *endless) Close()                         {}
func (e *endless) Next() (*columnar.Batch, error) { return e.b, nil }

func benchGuard(b *testing.B, ctx *TaskContext) {
	g := &Guarded{Name: "BolideFilter", Inner: &Guarded{Name: "BolideScan", Inner: &endless{b: columnar.NewBatch(nil, 8192)}}}
	if err := g.Open(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/guarded-call")
}
