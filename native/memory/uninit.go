package memory

import "github.com/apache/arrow-go/v18/arrow/memory"

// AllocateUninit is Allocate for a buffer its caller overwrites completely before anyone reads
// it (a decoded column's values, a gather's output): a buffer reused from the pool is not
// zeroed first. Zeroing every output buffer of a scan was a few percent of TPC-H Q1's CPU. In
// checking mode the buffer is filled with Poison instead, so that a caller that leaves a byte
// unwritten shows in its tests as a wrong value rather than a lucky zero.
func (a *TaskAllocator) AllocateUninit(size int) []byte {
	if a.chk != nil {
		b := a.allocateChecked(size)
		for i := range b {
			b[i] = Poison
		}
		return b
	}
	cl := classFor(size)
	if cl < 0 {
		return a.Allocate(size)
	}
	a.mu.Lock()
	if n := len(a.pool[cl]); n > 0 {
		b := a.pool[cl][n-1]
		a.pool[cl] = a.pool[cl][:n-1]
		a.pooled -= int64(cap(b))
		a.mu.Unlock()
		return b[:size]
	}
	a.mu.Unlock()
	return a.Allocate(size)
}

// NewUninitBuffer returns a buffer of n bytes from mem whose contents are undefined when mem
// is a TaskAllocator (AllocateUninit), zero otherwise. The caller must write every byte before
// the buffer is read; the buffer is not resizable. Release frees it through mem.
func NewUninitBuffer(mem memory.Allocator, n int) *memory.Buffer {
	if a, ok := mem.(*TaskAllocator); ok && n > 0 {
		return memory.NewBufferWithAllocator(a.AllocateUninit(n), mem)
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}
