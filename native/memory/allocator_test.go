package memory

import (
	"errors"
	"testing"
)

type fakeReserver struct {
	limit, reserved int64
	calls           int
}

func (f *fakeReserver) Reserve(n int64) (int64, error) {
	f.calls++
	got := min(n, f.limit-f.reserved)
	f.reserved += got
	return got, nil
}

func (f *fakeReserver) Unreserve(n int64) { f.reserved -= n }

// flushQuarantine pushes every freed buffer of a checking allocator out of its quarantine (into
// the pool if it fits) by freeing as many tiny buffers, so that tests of reuse hold in both modes.
func flushQuarantine(a *TaskAllocator) {
	if a.chk == nil {
		return
	}
	for range quarantineCount {
		a.Free(a.Allocate(1))
	}
}

func TestPooledBuffersAreReusedAndZeroed(t *testing.T) {
	a := NewTaskAllocator(nil)
	b := a.Allocate(100 << 10)
	if len(b) != 100<<10 || cap(b) != 128<<10 {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	for i := range b {
		b[i] = 0xff
	}
	a.Free(b)
	if a.Used() != 0 {
		t.Fatalf("used %d after free", a.Used())
	}
	flushQuarantine(a)
	c := a.Allocate(90 << 10)
	if &c[0] != &b[0] {
		t.Errorf("buffer of the same class not reused")
	}
	for i, x := range c {
		if x != 0 {
			t.Fatalf("reused buffer not zeroed at %d", i)
		}
	}
	c = a.Reallocate(120<<10, c) // within capacity: same buffer, extension zeroed
	if &c[0] != &b[0] || c[len(c)-1] != 0 {
		t.Errorf("reallocate within capacity moved or did not zero")
	}
	a.Free(c)
	small := a.Allocate(10)
	a.Free(small)
	a.ReleaseAll()
	if a.Used() != 0 {
		t.Errorf("used %d after ReleaseAll", a.Used())
	}
}

func TestReservesInChunksAndFailsClearly(t *testing.T) {
	r := &fakeReserver{limit: 3 * DefaultChunk}
	a := NewTaskAllocator(r)
	var bufs [][]byte
	for i := 0; i < 16; i++ {
		bufs = append(bufs, a.Allocate(1<<20))
	}
	if r.calls > 3 || a.Err() != nil {
		t.Fatalf("%d reservation upcalls for 16 MiB (chunk 8 MiB), err %v", r.calls, a.Err())
	}
	bufs = append(bufs, a.Allocate(16<<20))
	var oom *ErrOutOfMemory
	if !errors.As(a.Err(), &oom) {
		t.Fatalf("want ErrOutOfMemory, got %v", a.Err())
	}
	for _, b := range bufs {
		a.Free(b)
	}
	a.Settle()
	a.ReleaseAll()
	if r.reserved != 0 {
		t.Errorf("%d bytes still reserved after ReleaseAll", r.reserved)
	}
}
