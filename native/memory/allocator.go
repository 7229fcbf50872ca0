// Package memory owns native memory: every buffer a task allocates comes from C memory (so that
// the JVM may keep it after a call returns, see shared/go-in-jvm.md) through an allocator that
// counts it and reserves it, in large chunks, from Spark's TaskMemoryManager.
//
// Because freed buffers are pooled and reused, a use-after-free or a double free does not crash:
// it silently hands the same memory to two columns. The checking mode (see Checking, on by
// default in test binaries and set with BOLIDE_MEMCHECK) tracks every allocation, poisons and
// quarantines freed buffers, and reports double frees, foreign frees, writes after free and leaks
// with the stacks that allocated and freed the buffer; the memtest package turns leftover leaks and
// violations into a failed test run.
package memory

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// Reserver asks Spark for execution memory. Reserve returns how many bytes Spark granted (which may
// be fewer than asked); Unreserve gives bytes back.
type Reserver interface {
	Reserve(bytes int64) (int64, error)
	Unreserve(bytes int64)
}

// StorageReserver reserves Spark's off-heap storage memory (MemoryManager.acquireStorageMemory),
// for what outlives a task: the broadcast build sides the tasks of an executor share, which Spark
// would keep in its block manager. ReserveStorage reports whether Spark granted all of bytes.
// The calls reach the JVM, so they may only run within a JNI call (on a task thread).
type StorageReserver interface {
	ReserveStorage(bytes int64) (bool, error)
	ReleaseStorage(bytes int64)
}

// DefaultChunk is the granularity of reservations from Spark when the pool's size is unknown:
// reserving per batch would cost an upcall per batch.
const DefaultChunk = 8 << 20

// MinChunk is the smallest reservation granularity, for small pools.
const MinChunk = 256 << 10

// ChunkFor returns the reservation granularity for an off-heap pool of pool bytes (0: unknown):
// a 32nd of the pool, between MinChunk and DefaultChunk, so that a task holds little more than it
// uses (it keeps up to two chunks of slack) even when the pool is small; 8 MiB chunks against a
// 16 MiB pool would be half of it.
func ChunkFor(pool int64) int64 {
	if pool <= 0 {
		return DefaultChunk
	}
	return min(max(pool/32, MinChunk), DefaultChunk)
}

// poolLimitFor returns how many bytes of freed buffers a task keeps for reuse: they stay reserved
// from Spark, so a small pool keeps few (an eighth of it).
func poolLimitFor(pool int64) int64 {
	if pool <= 0 {
		return maxPoolBytes
	}
	return min(pool/8, maxPoolBytes)
}

// ErrOutOfMemory is returned (wrapped) when Spark refuses a reservation.
type ErrOutOfMemory struct {
	Wanted, Granted, Used int64
}

func (e *ErrOutOfMemory) Error() string {
	return fmt.Sprintf("Bolide could not reserve %d bytes of off-heap execution memory from Spark "+
		"(granted %d, task already uses %d); raise spark.memory.offHeap.size", e.Wanted, e.Granted, e.Used)
}

// TaskAllocator is an arrow memory.Allocator over C memory that accounts to one task. It is safe
// for concurrent use: arrays may be released by the JVM on another thread.
type TaskAllocator struct {
	c        *mallocator.Mallocator
	reserver Reserver
	chunk    int64
	// maxPooled bounds the freed bytes kept in pool.
	maxPooled int64

	mu       sync.Mutex
	used     int64 // bytes currently held in C memory: handed out plus pooled
	reserved int64 // bytes currently reserved from Spark
	peak     int64
	failed   error // sticky: the first reservation failure
	// failedLive: when the reservation was refused, the live bytes (pool and quarantine
	// excluded) were already over what Spark had granted. Dropping the cache of freed buffers
	// cannot answer such a refusal, even once the live bytes have fallen back (the batch that
	// overran was released): the task did use memory it was refused, so only a spill may clear it.
	failedLive bool

	// pool keeps freed buffers by power-of-two size class for reuse within the task: a fresh
	// calloc of a batch-sized buffer (~128 KiB) gets new mmap'd, zero-faulted pages every time,
	// which cost ~40% of scan CPU; clearing a reused buffer is several times cheaper.
	pool   [maxClass + 1][][]byte
	pooled int64
	closed bool

	// chk is non-nil in checking mode (check.go). It is fixed at construction so that production
	// pays a single, always-taken-the-same-way branch per call.
	chk *checker
}

const (
	minClass     = 12 // 4 KiB: smaller buffers are cheap to calloc
	maxClass     = 23 // 8 MiB
	maxPoolBytes = 64 << 20
)

// sizeClass returns the pool class of a buffer capacity, or -1 when it is not poolable.
func sizeClass(c int) int {
	if c < 1<<minClass || c > 1<<maxClass || c&(c-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(c))
}

// classFor returns the class to allocate a request of size bytes from, or -1.
func classFor(size int) int {
	if size < 1<<minClass || size > 1<<maxClass {
		return -1
	}
	return bits.Len(uint(size - 1))
}

// NewTaskAllocator returns an allocator for a pool of unknown size; reserver may be nil (unit
// tests, driver-side planning). In checking mode (Checking) the allocator tracks its buffers and
// is registered for CheckAll.
func NewTaskAllocator(r Reserver) *TaskAllocator { return NewTaskAllocatorFor(r, 0) }

// NewTaskAllocatorFor returns an allocator that reserves from an off-heap pool of pool bytes
// (0: unknown), in chunks of ChunkFor(pool).
func NewTaskAllocatorFor(r Reserver, pool int64) *TaskAllocator {
	a := &TaskAllocator{c: mallocator.NewMallocator(), reserver: r, chunk: ChunkFor(pool), maxPooled: poolLimitFor(pool)}
	if checking {
		a.initChecking()
	}
	return a
}

// Chunk returns the reservation granularity.
func (a *TaskAllocator) Chunk() int64 { return a.chunk }

var _ memory.Allocator = (*TaskAllocator)(nil)

func (a *TaskAllocator) grow(n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used += n
	if a.used > a.peak {
		a.peak = a.used
	}
	if a.reserver == nil || a.used <= a.reserved {
		return
	}
	want := ((a.used-a.reserved)/a.chunk + 1) * a.chunk
	got, err := a.reserver.Reserve(want)
	a.reserved += got
	if err == nil && a.used > a.reserved {
		err = &ErrOutOfMemory{Wanted: want, Granted: got, Used: a.used - n}
	}
	if err != nil && a.failed == nil {
		a.failed = err
		a.failedLive = a.liveLocked() > a.reserved
	}
}

// liveLocked returns the bytes handed out and not yet freed: used minus the pooled and, in
// checking mode, quarantined buffers.
func (a *TaskAllocator) liveLocked() int64 {
	u := a.used - a.pooled
	if a.chk != nil {
		u -= a.chk.qbytes
	}
	return u
}

// shrink only counts: Free may run on any JVM thread (Arrow's release callback), where no upcall
// into Spark is allowed. Reservations are given back by Settle on the task thread.
func (a *TaskAllocator) shrink(n int64) {
	a.mu.Lock()
	a.used -= n
	a.mu.Unlock()
}

// Settle gives reservations beyond one chunk of slack back to Spark. Call it on the task thread
// (between batches), never from a release callback.
func (a *TaskAllocator) Settle() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reserver != nil && a.reserved-a.used > 2*a.chunk {
		give := ((a.reserved - a.used - a.chunk) / a.chunk) * a.chunk
		a.reserver.Unreserve(give)
		a.reserved -= give
	}
}

// Allocate implements memory.Allocator. Memory is zeroed, as arrow-go expects.
func (a *TaskAllocator) Allocate(size int) []byte {
	if a.chk != nil {
		return a.allocateChecked(size)
	}
	cl := classFor(size)
	if cl < 0 {
		b := a.c.Allocate(size)
		a.grow(int64(cap(b)))
		return b
	}
	a.mu.Lock()
	if n := len(a.pool[cl]); n > 0 {
		b := a.pool[cl][n-1]
		a.pool[cl] = a.pool[cl][:n-1]
		a.pooled -= int64(cap(b))
		a.mu.Unlock()
		b = b[:size]
		clear(b)
		return b
	}
	a.mu.Unlock()
	b := a.c.Allocate(1 << cl)
	a.grow(int64(cap(b)))
	return b[:size]
}

// Lasting returns an allocator over a for buffers that stay until the operator ends (a join's
// build side, a sort's buffered rows): they are allocated at their exact size, not rounded up to a
// pool class. Rounded, such copies took up to twice their size (a broadcast build of 15,000
// customers took 4.6 MiB for 2.4 MiB of rows), and a task in a small pool failed for it. Their
// buffers are freed as any other.
func (a *TaskAllocator) Lasting() memory.Allocator {
	if a == nil {
		return memory.DefaultAllocator
	}
	return lasting{a}
}

type lasting struct{ a *TaskAllocator }

func (l lasting) Allocate(size int) []byte { return l.a.allocateExact(size) }

func (l lasting) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return l.a.Reallocate(size, b)
	}
	nb := l.a.allocateExact(size)
	copy(nb, b)
	l.a.Free(b)
	return nb
}

func (l lasting) Free(b []byte) { l.a.Free(b) }

// allocateExact allocates size bytes from C, never from the pool.
func (a *TaskAllocator) allocateExact(size int) []byte {
	b := a.c.Allocate(size)
	a.grow(int64(cap(b)))
	if a.chk != nil {
		a.mu.Lock()
		a.trackLocked(b, callers())
		a.mu.Unlock()
	}
	return b
}

// Reallocate implements memory.Allocator.
func (a *TaskAllocator) Reallocate(size int, b []byte) []byte {
	if a.chk != nil {
		return a.reallocateChecked(size, b)
	}
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free implements memory.Allocator. It may run on any JVM thread.
func (a *TaskAllocator) Free(b []byte) {
	if a.chk != nil {
		a.freeChecked(b)
		return
	}
	n := cap(b)
	if cl := sizeClass(n); cl >= 0 {
		a.mu.Lock()
		if !a.closed && a.pooled+int64(n) <= a.maxPooled {
			a.pool[cl] = append(a.pool[cl], b[:n])
			a.pooled += int64(n)
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
	a.c.Free(b)
	a.shrink(int64(n))
}

// Account adds (delta > 0) or removes bytes held outside this allocator, such as an operator's
// Go-heap hash table, to the task's usage: they are reserved from Spark like allocations, so a
// task over its memory fails with the same clear error instead of growing unseen.
func (a *TaskAllocator) Account(delta int64) {
	if delta > 0 {
		a.grow(delta)
	} else if delta < 0 {
		a.shrink(-delta)
	}
}

// OutOfMemory reports whether the sticky error is a refused reservation (ErrOutOfMemory), the
// failure a spilling operator may clear once it has freed memory.
func (a *TaskAllocator) OutOfMemory() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	var oom *ErrOutOfMemory
	return a.failed != nil && errors.As(a.failed, &oom)
}

// ClearOutOfMemory forgets a refused reservation after the caller freed memory (spilled): the
// next allocation over the reservation asks Spark again. Other sticky errors (memory violations,
// a Java exception in the upcall) stay. It reports whether there was one to clear.
func (a *TaskAllocator) ClearOutOfMemory() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	var oom *ErrOutOfMemory
	if a.failed != nil && errors.As(a.failed, &oom) {
		a.failed = nil
		a.failedLive = false
		return true
	}
	return false
}

// TrimToFit answers a refused reservation (OutOfMemory) without spilling: it drops the freed
// buffers kept for reuse (Trim: the pool and, in checking mode, the quarantine, which count as
// used) and, if the refusal came only from that cache (the live bytes were within the grant when
// Spark refused) and what the task now uses fits in what it holds reserved, forgets the refusal
// and reports true. A task whose live memory is within its share must not fail because of its
// own cache of freed buffers; a task whose live memory overran its share must fail (or spill),
// even if the overrun was released since: it held memory Spark had refused. It touches only the allocator's free lists, so any
// operator may call it between two allocations (the shuffle reader does, before it decodes a
// block); giving the reservation back to Spark is Settle's job, on the task thread.
func (a *TaskAllocator) TrimToFit() bool {
	if !a.OutOfMemory() {
		return false
	}
	a.Trim()
	a.mu.Lock()
	defer a.mu.Unlock()
	var oom *ErrOutOfMemory
	if a.failed != nil && errors.As(a.failed, &oom) && !a.failedLive && a.used <= a.reserved {
		a.failed = nil
		return true
	}
	return false
}

// Trim gives the pooled (and, in checking mode, quarantined) freed buffers back to C, so that
// Settle can return their reservation: a spilling operator calls it after freeing its state.
func (a *TaskAllocator) Trim() {
	if a.chk != nil {
		a.trimChecked()
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for cl := range a.pool {
		for _, b := range a.pool[cl] {
			a.c.Free(b)
			a.used -= int64(cap(b))
		}
		a.pool[cl] = nil
	}
	a.pooled = 0
}

// Reserved returns the bytes currently reserved from Spark.
func (a *TaskAllocator) Reserved() int64 { a.mu.Lock(); defer a.mu.Unlock(); return a.reserved }

// Err returns the first reservation failure or, in checking mode, memory violation (*Violation);
// operators check it once per batch so that a task over its limit, or one whose buffers were freed
// twice on a JVM thread where panicking is not allowed, fails with a clear message.
func (a *TaskAllocator) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failed
}

// Used returns the bytes handed out and not yet freed (pooled and, in checking mode, quarantined
// buffers excluded), plus bytes added by Account.
func (a *TaskAllocator) Used() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.liveLocked()
}

// Peak returns the most bytes allocated at once (pooled and quarantined buffers included).
func (a *TaskAllocator) Peak() int64 { a.mu.Lock(); defer a.mu.Unlock(); return a.peak }

// ReleaseAll returns every reservation to Spark; called when the task's plan is closed. Buffers the
// JVM still holds stay valid (they are freed on release), they are just no longer accounted.
// In checking mode it also empties the quarantine and the pool, verifying their poison, and notes
// whether live allocations remained.
func (a *TaskAllocator) ReleaseAll() {
	if a.chk != nil {
		a.releaseAllChecked()
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for cl := range a.pool {
		for _, b := range a.pool[cl] {
			a.c.Free(b)
			a.used -= int64(cap(b))
		}
		a.pool[cl] = nil
	}
	a.pooled = 0
	a.unreserveAllLocked()
}

// unreserveAllLocked gives every reservation back to Spark and forgets the reserver: after
// ReleaseAll no upcall may happen (later frees run on JVM threads). Called with a.mu held.
func (a *TaskAllocator) unreserveAllLocked() {
	if a.reserver != nil && a.reserved > 0 {
		a.reserver.Unreserve(a.reserved)
	}
	a.reserved = 0
	a.reserver = nil
}
