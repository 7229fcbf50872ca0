package join

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
)

// Broadcast build sides shared by the tasks of an executor.
//
// Every task of a broadcast hash join reads the same build side. Built per task, each task paid
// for decoding the broadcast, copying its rows and inserting them into a hash table (in TPC-H q8 at
// SF1 the builds took four times the CPU of the probes), and each task's memory held its own copy,
// which is what made q21 spill in a small pool. Spark builds its relation once per executor and
// keeps it in the block manager's storage memory; so does this: the first task that needs a
// (broadcast, build) pair builds it as before, then publishes it, reserving its bytes as off-heap
// storage memory, and the tasks after it probe the same table, which no one writes any more (a
// probe brings its own scratch, stream.keySc). A task that finds the pair being built by another
// task waits for it (tasks of a stage start together, so without waiting every task of the first
// wave built its own copy: on two cores, q8's builds took a fifth of its task time), but only
// while the builder makes progress: the builder may itself wait in Spark's execution memory pool
// for memory the waiter holds, and a waiter that saw no new build batch for sharedStall builds
// its own copy, as before, so the two can never deadlock.
//
// A published build outlives its tasks: once no task uses it, it stays cached for the next tasks
// of the stage (idle), within a cap (a quarter of the off-heap pool); idle builds beyond the cap,
// the least recently used first, are dropped, and so are all idle builds when any task of the
// executor runs short of memory (its refused reservation or Spark's spill request, through the
// spiller every task has: RegisterSharedIdle), and before a memory report (DropIdleShared).

// SharedBuild marks a join whose build side is a native broadcast that the executor's tasks may
// share: Input is the block input the build child reads, Key identifies the build (its keys and
// columns) among the joins over the same broadcast.
type SharedBuild struct {
	Input int
	Key   string
}

type sharedKey struct {
	broadcast int64
	build     string
}

// sharedEntry is one published (or being built) build side.
type sharedEntry struct {
	key   sharedKey
	ready bool       // published: rows may be probed
	rows  *buildRows // the build; immutable once published
	alloc *memory.TaskAllocator
	bytes int64 // storage memory reserved for it
	refs  int   // tasks probing it
	used  uint64
	// done is closed once the build is published or abandoned (under shared's lock: closed).
	done   chan struct{}
	closed bool
	// progress counts the batches the builder has added, for the tasks waiting on it.
	progress atomic.Int64
}

// sharedStall is how long a task waits for another task's build without seeing it add a batch.
const sharedStall = 500 * time.Millisecond

var shared struct {
	sync.Mutex
	m         map[sharedKey]*sharedEntry
	idleBytes int64
	tick      uint64
	// builds counts the builds published, for tests.
	builds int64
}

// sharedIdleCap is how many bytes of idle builds the executor keeps for the next tasks: a quarter
// of the pool (a task short of memory drops them all anyway).
func sharedIdleCap(pool int64) int64 {
	if pool <= 0 {
		return 64 << 20
	}
	return pool / 4
}

// acquireShared returns the published build for key with a reference taken (nil if none), or,
// when nobody builds it yet, claims it: owner is then true and the caller must publish or abandon.
// When another task is building it, pending is that build (awaitShared), and e is nil.
func acquireShared(key sharedKey) (e *sharedEntry, owner bool, pending *sharedEntry) {
	shared.Lock()
	defer shared.Unlock()
	if shared.m == nil {
		shared.m = map[sharedKey]*sharedEntry{}
	}
	if e := shared.m[key]; e != nil {
		if !e.ready {
			return nil, false, e
		}
		if e.refs == 0 {
			shared.idleBytes -= e.bytes
		}
		e.refs++
		return e, false, nil
	}
	e = &sharedEntry{key: key, done: make(chan struct{})}
	shared.m[key] = e
	return e, true, nil
}

// awaitShared waits until the pending build is published or abandoned (true: acquire again), or
// until its builder has added no batch for sharedStall (false: build a private copy).
func awaitShared(p *sharedEntry) bool {
	last := p.progress.Load()
	t := time.NewTimer(sharedStall)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return true
		case <-t.C:
			now := p.progress.Load()
			if now == last {
				return false
			}
			last = now
			t.Reset(sharedStall)
		}
	}
}

// closeLocked wakes the tasks waiting on e, once; shared's lock is held.
func (e *sharedEntry) closeLocked() {
	if !e.closed {
		e.closed = true
		close(e.done)
	}
}

// abandonShared gives up a claim: the key is free for a later task to build.
func abandonShared(e *sharedEntry) {
	shared.Lock()
	defer shared.Unlock()
	if shared.m[e.key] == e {
		delete(shared.m, e.key)
	}
	e.closeLocked()
}

// publishShared makes b, built by the claiming task into alloc, the shared build: its bytes are
// reserved as storage memory and leave the task's account. It reports false (and leaves b the
// task's, still accounted to it) when Spark refuses the storage memory.
func publishShared(ctx *exec.TaskContext, e *sharedEntry, b *buildRows, alloc *memory.TaskAllocator) (bool, error) {
	bytes := b.memSize() + alloc.Used()
	ok, err := ctx.Storage.ReserveStorage(bytes)
	if err != nil || !ok {
		abandonShared(e)
		return false, err
	}
	if ctx.Alloc != nil {
		ctx.Alloc.Account(-b.accounted)
	}
	b.accounted, b.ctx, b.own = 0, nil, nil
	shared.Lock()
	e.rows, e.alloc, e.bytes, e.ready, e.refs = b, alloc, bytes, true, 1
	shared.builds++
	e.closeLocked()
	shared.Unlock()
	return true, nil
}

// releaseShared drops a task's reference; the build stays cached, idle, within the cap.
func releaseShared(ctx *exec.TaskContext, e *sharedEntry) {
	shared.Lock()
	e.refs--
	if e.refs > 0 {
		shared.Unlock()
		return
	}
	shared.tick++
	e.used = shared.tick
	shared.idleBytes += e.bytes
	victims := evictIdleLocked(sharedIdleCap(ctx.Pool))
	shared.Unlock()
	freeShared(ctx.Storage, victims)
}

// evictIdleLocked removes idle builds, least recently used first, until the idle ones take at most
// limit bytes, and returns them for freeShared (outside the lock: it calls the JVM).
func evictIdleLocked(limit int64) []*sharedEntry {
	var victims []*sharedEntry
	for shared.idleBytes > limit {
		var lru *sharedEntry
		for _, e := range shared.m {
			if e.ready && e.refs == 0 && (lru == nil || e.used < lru.used) {
				lru = e
			}
		}
		if lru == nil {
			break
		}
		delete(shared.m, lru.key)
		shared.idleBytes -= lru.bytes
		victims = append(victims, lru)
	}
	return victims
}

func freeShared(storage memory.StorageReserver, victims []*sharedEntry) {
	for _, e := range victims {
		e.rows.release()
		e.alloc.ReleaseAll()
		if storage != nil {
			storage.ReleaseStorage(e.bytes)
		}
	}
}

// DropIdleShared frees every cached build no task uses and returns the bytes released.
func DropIdleShared(storage memory.StorageReserver) int64 {
	shared.Lock()
	victims := evictIdleLocked(0)
	shared.Unlock()
	var n int64
	for _, e := range victims {
		n += e.bytes
	}
	freeShared(storage, victims)
	return n
}

// SharedBuilds returns how many builds were published since the process started (tests).
func SharedBuilds() int64 {
	shared.Lock()
	defer shared.Unlock()
	return shared.builds
}

// sharedIdle is the spiller a task registers once it uses shared builds: when the task runs short
// of memory, the idle builds go first.
type sharedIdle struct{ ctx *exec.TaskContext }

func (s sharedIdle) SpillNow() (bool, error) { return DropIdleShared(s.ctx.Storage) > 0, nil }

// RegisterSharedIdle adds the idle-build spiller to a task, once: every task of an executor with
// shared builds has it, so that the memory idle builds hold never fails a task that could have
// had it.
func RegisterSharedIdle(ctx *exec.TaskContext) {
	for _, s := range ctx.Spillers {
		if _, ok := s.(sharedIdle); ok {
			return
		}
	}
	ctx.Spillers = append(ctx.Spillers, sharedIdle{ctx})
}

// newSharedAlloc returns the allocator of a build meant to be shared: it reserves nothing itself
// (the task accounts for it while building, storage memory once published).
func newSharedAlloc(pool int64) *memory.TaskAllocator { return memory.NewTaskAllocatorFor(nil, pool) }

// sharedKeyFor returns the key of the join's build in this task, or false when it is not shared.
func (h *HashJoin) sharedKeyFor(ctx *exec.TaskContext) (sharedKey, bool) {
	s := h.spec.Shared
	if s == nil || ctx.Storage == nil || h.buildOuter || h.prefixed {
		return sharedKey{}, false
	}
	id, ok := ctx.Broadcasts[s.Input]
	if !ok {
		return sharedKey{}, false
	}
	return sharedKey{broadcast: id, build: fmt.Sprintf("%s|keep=%v|keys=%v", s.Key, h.keep, h.st.build.withKeys)}, true
}
