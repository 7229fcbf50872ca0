package memory

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AllocateUninit reuses pooled buffers as Allocate does, counts them alike, and in checking mode
// fills them with Poison; NewUninitBuffer frees through the allocator, and falls back to a zeroed
// resizable buffer for other allocators.
func TestAllocateUninit(t *testing.T) {
	a := NewTaskAllocator(nil)
	b := a.Allocate(100 << 10)
	a.Free(b)
	flushQuarantine(a)
	c := a.AllocateUninit(90 << 10)
	if len(c) != 90<<10 || cap(c) != 128<<10 || &c[0] != &b[0] {
		t.Fatalf("len %d cap %d, reused %v", len(c), cap(c), &c[0] == &b[0])
	}
	if a.chk != nil && (c[0] != Poison || c[len(c)-1] != Poison) {
		t.Errorf("checking mode: an uninitialized buffer is not poisoned")
	}
	if a.Used() != 128<<10 {
		t.Errorf("used %d", a.Used())
	}
	a.Free(c)
	buf := NewUninitBuffer(a, 5000)
	if buf.Len() != 5000 || a.Used() == 0 {
		t.Fatalf("buffer len %d, used %d", buf.Len(), a.Used())
	}
	buf.Release()
	if a.Used() != 0 {
		t.Errorf("%d bytes live after release", a.Used())
	}
	a.ReleaseAll()
	if a.Used() != 0 {
		t.Errorf("used %d after ReleaseAll", a.Used())
	}
	g := memory.NewCheckedAllocator(memory.NewGoAllocator())
	gb := NewUninitBuffer(g, 100)
	if gb.Len() != 100 || gb.Bytes()[99] != 0 {
		t.Errorf("fallback buffer: len %d", gb.Len())
	}
	gb.Release()
	g.AssertSize(t, 0)
}
