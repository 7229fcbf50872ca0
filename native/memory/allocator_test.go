package memory

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
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

func TestChunkScalesWithThePool(t *testing.T) {
	for _, c := range []struct{ pool, want int64 }{
		{0, DefaultChunk}, {16 << 20, 512 << 10}, {1 << 20, MinChunk}, {4 << 30, DefaultChunk}, {128 << 20, 4 << 20},
	} {
		if got := ChunkFor(c.pool); got != c.want {
			t.Errorf("ChunkFor(%d) = %d, want %d", c.pool, got, c.want)
		}
	}
	// Against a 16 MiB pool a task reserves what it uses, rounded up to 512 KiB.
	r := &fakeReserver{limit: 16 << 20}
	a := NewTaskAllocatorFor(r, 16<<20)
	b := a.Allocate(100 << 10)
	if r.reserved != 512<<10 {
		t.Errorf("reserved %d for 128 KiB, want one 512 KiB chunk", r.reserved)
	}
	a.Free(b)
	a.ReleaseAll()
}

// TestSpillerClearsOutOfMemory: a refused reservation is sticky until the operator that freed
// memory clears it; trimmed pooled buffers and settled reservations go back to Spark.
func TestSpillerClearsOutOfMemory(t *testing.T) {
	r := &fakeReserver{limit: 1 << 20}
	a := NewTaskAllocatorFor(r, 4<<20) // 256 KiB chunks
	var bs [][]byte
	for range 12 { // 12 x 128 KiB > 1 MiB
		bs = append(bs, a.Allocate(128<<10))
	}
	if !a.OutOfMemory() || a.Err() == nil {
		t.Fatalf("no out-of-memory error over the limit (err %v)", a.Err())
	}
	for _, b := range bs {
		a.Free(b)
	}
	a.Trim()
	if !a.ClearOutOfMemory() || a.Err() != nil || a.OutOfMemory() {
		t.Fatalf("out-of-memory not cleared: %v", a.Err())
	}
	a.Settle()
	if r.reserved > 2*a.Chunk() {
		t.Errorf("%d bytes still reserved after trim and settle", r.reserved)
	}
	b := a.Allocate(128 << 10) // fits again
	if a.Err() != nil {
		t.Errorf("allocation after spilling failed: %v", a.Err())
	}
	a.Free(b)
	a.ReleaseAll()
	if r.reserved != 0 {
		t.Errorf("%d bytes reserved after ReleaseAll", r.reserved)
	}
}

// TestTrimToFit: a refusal caused by freed buffers the allocator keeps (pooled, or quarantined in
// checking mode, both counted as used) is forgotten once they are dropped, when the live buffers
// fit the reservation; one caused by live buffers stays.
func TestTrimToFit(t *testing.T) {
	r := &fakeReserver{limit: 1 << 20}
	a := NewTaskAllocatorFor(r, 8<<20) // 256 KiB chunks, 1 MiB of freed buffers pooled at most
	defer a.ReleaseAll()
	if a.TrimToFit() {
		t.Fatal("TrimToFit without a refusal")
	}
	// Allocate and free 128 KiB buffers one after the other: the freed ones pile up (pooled
	// buffers are reused, quarantined ones are not) until Spark refuses.
	var live [][]byte
	for i := 0; i < 64 && !a.OutOfMemory(); i++ {
		b := a.Allocate(128 << 10)
		if i%8 == 0 {
			live = append(live, b)
		} else {
			a.Free(b)
		}
	}
	if a.chk != nil && !a.OutOfMemory() {
		t.Fatal("checking mode: the quarantine never made Spark refuse")
	}
	if a.OutOfMemory() {
		if !a.TrimToFit() || a.Err() != nil {
			t.Fatalf("refusal not answered by trimming: %v (used %d, reserved %d)", a.Err(), a.Used(), a.Reserved())
		}
	}
	// Live buffers over the limit: trimming cannot help.
	for !a.OutOfMemory() {
		live = append(live, a.Allocate(128<<10))
	}
	if a.TrimToFit() || a.Err() == nil {
		t.Fatalf("refusal by live buffers forgotten (used %d, reserved %d)", a.Used(), a.Reserved())
	}
	// Nor once the overrun is freed: the task held memory Spark had refused (a scan's batch that
	// overran and was released before the next safe point). Only a spill may clear it.
	for _, b := range live {
		a.Free(b)
	}
	if a.TrimToFit() || a.Err() == nil {
		t.Fatalf("refusal by live buffers forgotten once they were freed (used %d, reserved %d)", a.Used(), a.Reserved())
	}
	if !a.ClearOutOfMemory() || a.Err() != nil {
		t.Fatal("ClearOutOfMemory (after a spill) must forget the refusal")
	}
}

func TestLastingBuffersAreExact(t *testing.T) {
	for _, checked := range []bool{false, true} {
		var a *TaskAllocator
		if checked {
			a = newCheckedAllocator(nil)
		} else {
			a = &TaskAllocator{c: mallocator.NewMallocator(), chunk: DefaultChunk, maxPooled: maxPoolBytes}
		}
		l := a.Lasting()
		b := l.Allocate(100<<10 + 1)
		if len(b) != 100<<10+1 || cap(b) != 100<<10+1 {
			t.Fatalf("checked %v: len %d cap %d, want exactly %d", checked, len(b), cap(b), 100<<10+1)
		}
		if got := a.Used(); got != 100<<10+1 {
			t.Fatalf("checked %v: used %d", checked, got)
		}
		b = l.Reallocate(300<<10, b)
		if cap(b) != 300<<10 {
			t.Fatalf("checked %v: reallocated cap %d", checked, cap(b))
		}
		l.Free(b)
		if got := a.Used(); got != 0 {
			t.Fatalf("checked %v: used %d after free", checked, got)
		}
		a.ReleaseAll()
	}
	if (*TaskAllocator)(nil).Lasting() == nil {
		t.Fatal("a nil allocator's Lasting must be usable")
	}
}
