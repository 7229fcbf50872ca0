package memory

import (
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// checked returns a checking allocator whatever BOLIDE_MEMCHECK says, so that these tests run in
// both modes, and undoes at cleanup what its deliberate misuse leaves behind (recorded violations,
// registration), which memtest.Main would otherwise report.
func checked(t *testing.T) *TaskAllocator {
	t.Helper()
	violations.Lock()
	kept, total := len(violations.kept), violations.total
	violations.Unlock()
	a := newCheckedAllocator(nil)
	t.Cleanup(func() {
		violations.Lock()
		violations.kept, violations.total = violations.kept[:kept], total
		violations.Unlock()
		a.mu.Lock()
		unregisterLocked(a)
		a.mu.Unlock()
	})
	return a
}

// violation runs f, which must panic with a violation of kind, and returns it.
func violation(t *testing.T, kind ViolationKind, f func()) (v *Violation) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, _ := r.(error)
		if !errors.As(err, &v) || v.Kind != kind {
			t.Fatalf("want a %v panic, got %v", kind, r)
		}
	}()
	f()
	return nil
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("report lacks %q:\n%s", sub, s)
		}
	}
}

func registeredNow(a *TaskAllocator) bool {
	registry.Lock()
	defer registry.Unlock()
	_, ok := registry.m[a]
	return ok
}

// The helpers below exist to be named in the reports.

func allocateColumn(a *TaskAllocator, n int) []byte { return a.Allocate(n) }

func releaseColumn(a *TaskAllocator, b []byte) { a.Free(b) }

func TestCheckingFollowsTheEnvironment(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "true": true, "0": false, "false": false, "": true} {
		if got := checkingFromEnv(v); got != want {
			t.Errorf("BOLIDE_MEMCHECK=%q: checking %v, want %v", v, got, want)
		}
	}
	if Checking() != checkingFromEnv(os.Getenv("BOLIDE_MEMCHECK")) {
		t.Errorf("Checking() = %v does not follow BOLIDE_MEMCHECK=%q", Checking(), os.Getenv("BOLIDE_MEMCHECK"))
	}
	if a := NewTaskAllocator(nil); (a.chk != nil) != Checking() {
		t.Errorf("NewTaskAllocator: checking %v, mode %v", a.chk != nil, Checking())
	}
}

// A read after free sees the poison, pooled (>= 4 KiB) and unpooled buffers alike; a write after
// free is reported with both stacks when the buffer leaves the quarantine.
func TestUseAfterFree(t *testing.T) {
	for _, size := range []int{100, 100 << 10} {
		a := checked(t)
		b := allocateColumn(a, size)
		for i := range b {
			b[i] = 7
		}
		releaseColumn(a, b)
		for i, x := range b[:cap(b)] { // read after free: deliberate, the buffer is quarantined
			if x != Poison {
				t.Fatalf("size %d: byte %d after free is %#x, want the poison", size, i, x)
			}
		}
		b[size/2] = 1 // write after free
		v := violation(t, WriteAfterFree, func() { flushQuarantine(a) })
		if v.Offset != size/2 || v.Changed != 1 || v.Found != 1 || v.Size != cap(b) {
			t.Errorf("size %d: offset %d changed %d found %#x size %d", size, v.Offset, v.Changed, v.Found, v.Size)
		}
		mustContain(t, v.Error(), "write after free", "allocated at:", "allocateColumn", "freed at:",
			"releaseColumn", "detected at:", "flushQuarantine")
		if a.Err() != v {
			t.Errorf("Err() = %v, want the violation", a.Err())
		}
	}
}

// A pooled buffer written after it left the quarantine is caught when it leaves the pool, and not
// handed out again.
func TestWriteAfterFreeInThePool(t *testing.T) {
	a := checked(t)
	defer SetPanicOnViolation(SetPanicOnViolation(false))
	b := allocateColumn(a, 64<<10)
	releaseColumn(a, b)
	flushQuarantine(a) // b is now pooled
	b[0] = 0
	c := a.Allocate(64 << 10) // no panic: recorded
	if &c[0] == &b[0] {
		t.Errorf("the corrupted buffer was reused")
	}
	var v *Violation
	if !errors.As(a.Err(), &v) || v.Kind != WriteAfterFree {
		t.Fatalf("Err() = %v, want a write after free", a.Err())
	}
	if vs := Violations(); len(vs) == 0 || vs[len(vs)-1] != v {
		t.Errorf("violation not in Violations()")
	}
	a.Free(c)
	a.ReleaseAll()
	if a.Used() != 0 {
		t.Errorf("used %d after ReleaseAll", a.Used())
	}
}

func TestDoubleFree(t *testing.T) {
	for _, size := range []int{100, 100 << 10} {
		a := checked(t)
		b := allocateColumn(a, size)
		releaseColumn(a, b)
		v := violation(t, DoubleFree, func() { a.Free(b) })
		mustContain(t, v.Error(), "double free", "allocated at:", "allocateColumn", "first freed at:",
			"releaseColumn", "freed again at:", "TestDoubleFree")
		// Still reported once the buffer left the quarantine (into the pool or back to C).
		flushQuarantine(a)
		violation(t, DoubleFree, func() { a.Free(b) })
	}
}

// Recording instead of panicking: what the JNI library does, since Free may run on a JVM thread.
// The second free must not hand the buffer out twice.
func TestDoubleFreeRecordedWithoutPanic(t *testing.T) {
	a := checked(t)
	defer SetPanicOnViolation(SetPanicOnViolation(false))
	b := a.Allocate(100 << 10)
	a.Free(b)
	a.Free(b)
	var v *Violation
	if !errors.As(a.Err(), &v) || v.Kind != DoubleFree {
		t.Fatalf("Err() = %v, want a double free", a.Err())
	}
	flushQuarantine(a)
	x, y := a.Allocate(100<<10), a.Allocate(100<<10)
	if &x[0] == &y[0] {
		t.Fatalf("a double-freed buffer was handed out twice")
	}
	a.Free(x)
	a.Free(y)
	if _, n := a.Live(); n != 0 {
		t.Errorf("%d live", n)
	}
}

func TestForeignFree(t *testing.T) {
	a, other := checked(t), checked(t)
	b := a.Allocate(100 << 10)
	mine := other.Allocate(10)
	for name, f := range map[string][]byte{"Go memory": make([]byte, 10), "a sub-slice": b[64:], "another allocator's": mine} {
		v := violation(t, ForeignFree, func() { a.Free(f) })
		if v.Alloc != nil {
			t.Errorf("%s: allocation stack for a foreign pointer", name)
		}
		mustContain(t, v.Error(), "never handed out", "TestForeignFree")
	}
	a.Free(nil) // a no-op, as in mallocator
	violation(t, CapacityMismatch, func() { a.Free(b[:10:10]) })
	other.Free(mine)
}

func TestReallocateKeepsTracking(t *testing.T) {
	a := checked(t)
	b := a.Allocate(3000)
	b[0] = 42
	c := a.Reallocate(5000, b) // moves: b is freed
	if bytes, n := a.Live(); n != 1 || bytes != int64(cap(c)) || c[0] != 42 {
		t.Fatalf("live %d (%d bytes), c[0] %d", n, bytes, c[0])
	}
	v := violation(t, DoubleFree, func() { a.Free(b) })
	mustContain(t, v.Error(), "first freed at:", "TestReallocateKeepsTracking")
	violation(t, ReallocateNotLive, func() { a.Reallocate(10, b) })
	c = a.Reallocate(6000, c) // within capacity: same buffer, still live
	a.Free(c)
	if _, n := a.Live(); n != 0 {
		t.Errorf("%d live after free", n)
	}
}

func allocateAndForget(a *TaskAllocator) [][]byte {
	var bufs [][]byte
	for range 2 {
		bufs = append(bufs, a.Allocate(100<<10)) // one site
	}
	return append(bufs, a.Allocate(10))
}

func TestLeakReport(t *testing.T) {
	a := checked(t)
	bufs := allocateAndForget(a)
	if bytes, n := a.Live(); n != 3 || bytes != 2*128<<10+10 {
		t.Fatalf("live %d (%d bytes)", n, bytes)
	}
	r := a.LeakReport()
	mustContain(t, r, "3 live allocations", "never closed", "2 allocations, 262144 bytes", "1 allocation, 10 bytes",
		"allocateAndForget", "created at:\n\tgithub.com/bolide-dev/bolide/native/memory.checked")
	err := CheckAll()
	if err == nil {
		t.Fatal("CheckAll found no leak")
	}
	mustContain(t, err.Error(), "allocateAndForget")
	releaseColumn(a, bufs[0])
	a.ReleaseAll() // two still live: the JVM may hold them; the allocator stays registered
	if !registeredNow(a) || !strings.Contains(a.LeakReport(), "ReleaseAll left 2 live") {
		t.Fatalf("closed with live buffers but not reported:\n%s", a.LeakReport())
	}
	a.Free(bufs[1])
	a.Free(bufs[2]) // the last one: the allocator leaves the registry
	if registeredNow(a) || a.LeakReport() != "" || a.Used() != 0 {
		t.Errorf("registered %v, used %d, report %q", registeredNow(a), a.Used(), a.LeakReport())
	}
	if err := CheckAll(); err != nil {
		t.Errorf("CheckAll after the leak was fixed: %v", err)
	}
}

func TestReleaseAllDrainsQuarantineAndPool(t *testing.T) {
	a := checked(t)
	var bufs [][]byte
	for i := range 40 {
		bufs = append(bufs, a.Allocate(4<<10<<(i%8)))
	}
	for _, b := range bufs {
		a.Free(b)
	}
	flushQuarantine(a)
	for _, b := range bufs[:3] {
		a.Free(a.Allocate(len(b))) // some pooled, some quarantined
	}
	bufs[5][0] = 0 // write after free, sitting in the pool
	v := violation(t, WriteAfterFree, a.ReleaseAll)
	mustContain(t, v.Error(), "detected at:", "TestReleaseAllDrainsQuarantineAndPool")
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used != 0 || a.pooled != 0 || a.chk.qbytes != 0 || len(a.chk.freed) != 0 || a.chk.quarantine.len() != 0 {
		t.Errorf("after ReleaseAll: used %d pooled %d quarantined %d freed %d", a.used, a.pooled, a.chk.qbytes, len(a.chk.freed))
	}
	if a.chk.registered || a.chk.closedLive != 0 {
		t.Errorf("clean close: registered %v, closedLive %d", a.chk.registered, a.chk.closedLive)
	}
}

// A write after free into a buffer that never leaves the quarantine is found by CheckAll.
func TestCheckAllScansTheQuarantine(t *testing.T) {
	a := checked(t)
	b := a.Allocate(100)
	a.Free(b)
	b[99] = 0
	err := CheckAll()
	if err == nil {
		t.Fatal("CheckAll missed a write after free")
	}
	mustContain(t, err.Error(), "write after free", "1 violation,", "offset 99")
	if vs := Violations(); len(vs) == 0 || vs[len(vs)-1].Kind != WriteAfterFree {
		t.Errorf("not recorded")
	}
	flushQuarantine(a) // reported once only
	if vs := Violations(); len(vs) != 1 {
		t.Errorf("%d violations, want 1", len(vs))
	}
}

// Arrays are released by JVM threads while the task thread allocates: run with -race.
func TestCheckingIsSafeForConcurrentUse(t *testing.T) {
	a := checked(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var held [][]byte
			for i := range 2000 {
				held = append(held, a.Reallocate(100+(i*g)%20000, a.Allocate(50)))
				if len(held) > 8 {
					a.Free(held[0])
					held = slices.Delete(held, 0, 1)
				}
			}
			for _, b := range held {
				a.Free(b)
			}
		})
	}
	wg.Wait()
	if bytes, n := a.Live(); n != 0 || bytes != 0 || a.Err() != nil {
		t.Fatalf("live %d (%d bytes), err %v", n, bytes, a.Err())
	}
	a.ReleaseAll()
	if a.Used() != 0 {
		t.Errorf("used %d", a.Used())
	}
}

// The quarantine of a small pool's allocator holds no more than the normal mode pools (an eighth
// of the pool): quarantined bytes stay reserved, and checking must not need a bigger pool.
func TestQuarantineIsBoundedByThePool(t *testing.T) {
	a := checked(t)
	a.maxPooled = poolLimitFor(16 << 20) // a 16 MiB pool: 2 MiB
	for range 64 {
		a.Free(a.Allocate(256 << 10))
	}
	a.mu.Lock()
	q := a.chk.qbytes
	a.mu.Unlock()
	if q > 2<<20 {
		t.Errorf("%d bytes quarantined with a 16 MiB pool, want at most 2 MiB", q)
	}
	if q == 0 {
		t.Error("nothing quarantined")
	}
	a.ReleaseAll()
}
