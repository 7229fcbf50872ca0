package exec

import (
	"sync"
	"testing"

	"github.com/bolide-dev/bolide/native/memory"
)

type countingSpiller struct {
	calls int
	frees bool
}

func (s *countingSpiller) SpillNow() (bool, error) { s.calls++; return s.frees, nil }

// limited grants reservations up to limit bytes.
type limited struct{ limit, reserved int64 }

func (l *limited) Reserve(n int64) (int64, error) {
	got := min(n, l.limit-l.reserved)
	l.reserved += got
	return got, nil
}
func (l *limited) Unreserve(n int64) { l.reserved -= n }

// TestRelieveMemoryOnRequest: a spill request, made from other goroutines while the task runs,
// makes the next safe point spill once, with no refused reservation; without one, and without a
// request, the spillers are left alone.
func TestRelieveMemoryOnRequest(t *testing.T) {
	r := &limited{limit: 64 << 20}
	ctx := &TaskContext{Alloc: memory.NewTaskAllocatorFor(r, 64<<20)}
	defer ctx.Alloc.ReleaseAll()
	s := &countingSpiller{frees: true}
	ctx.Spillers = append(ctx.Spillers, s)
	if err := ctx.RelieveMemory(); err != nil || s.calls != 0 {
		t.Fatalf("no request, no refusal: %d spills, %v", s.calls, err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); ctx.RequestSpill() }()
	}
	wg.Wait()
	if !ctx.SpillRequested() {
		t.Fatal("request not seen")
	}
	if err := ctx.RelieveMemory(); err != nil || s.calls != 1 {
		t.Fatalf("after requests: %d spills, %v", s.calls, err)
	}
	if ctx.SpillRequested() {
		t.Error("request not taken")
	}
	if err := ctx.RelieveMemory(); err != nil || s.calls != 1 {
		t.Fatalf("request answered twice: %d spills, %v", s.calls, err)
	}
	// A refused reservation still makes it spill, and a spill that freed memory forgets it.
	r.limit = 0
	ctx.Alloc.Account(1 << 20)
	if !ctx.Alloc.OutOfMemory() {
		t.Fatal("no refusal")
	}
	if err := ctx.RelieveMemory(); err != nil || s.calls != 2 || ctx.Alloc.OutOfMemory() {
		t.Fatalf("after a refusal: %d spills, %v, out of memory %v", s.calls, err, ctx.Alloc.OutOfMemory())
	}
	ctx.Alloc.Account(-(1 << 20))
}
