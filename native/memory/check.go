package memory

// Checking mode. The pool makes a use-after-free or a double free silent: a buffer released twice
// sits in the pool twice and is handed to two columns, which then overwrite each other. In checking
// mode every live buffer is tracked with the stack that allocated it; a freed buffer is filled
// with Poison and held in a FIFO quarantine before it may be reused (pooled) or given back to C,
// and its poison is verified when it leaves the quarantine, leaves the pool and at CheckAll. All
// of it sits behind TaskAllocator.chk, so an allocator built with checking off pays one branch.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
)

// Poison is the byte every freed buffer is filled with in checking mode. A read after free sees
// runs of it (0xA5A5... is no plausible length, offset or small number); a write after free breaks
// it and is reported when the buffer leaves the quarantine. It is the byte glibc writes into freed
// memory with GLIBC_TUNABLES=glibc.malloc.perturb=165, so both tools leave the same traces.
const Poison byte = 0xA5

const (
	// The quarantine bounds trade detection for memory: a write after free is caught if it happens
	// before the buffer is reused or given back to C, which takes at least the allocator's next
	// 1024 frees or 32 MiB of frees (a pooled buffer is verified again when it leaves the pool).
	// They are per allocator, and only in checking mode. The bytes are bounded by what the normal
	// mode pools too (an eighth of the off-heap pool): quarantined bytes stay reserved from Spark,
	// and a small pool shared by two native blocks of a task (a broadcast encoder and the block it
	// reads) must not run out in checking mode only, where one block's refusal cannot trim the
	// other's quarantine.
	quarantineCount = 1024
	quarantineBytes = 32 << 20
	// historyCount buffers already given back to C are remembered, so that freeing one of them
	// again is reported as a double free with both stacks rather than as a foreign pointer.
	historyCount = 1024
	// stackDepth frames are kept per stack: deep enough to reach the test or operator through
	// arrow-go's builder and buffer layers.
	stackDepth = 40
	// maxViolationsKept bounds the global list in a long-running JVM that records violations
	// instead of panicking; the total is still counted.
	maxViolationsKept = 100
)

// checking is read once: allocators built while it is on stay checked for their whole life and
// those built while it is off never pay for it, so it must not change under running tasks.
var checking = checkingFromEnv(os.Getenv("BOLIDE_MEMCHECK"))

func checkingFromEnv(v string) bool {
	if v != "" {
		on, err := strconv.ParseBool(v)
		if err == nil {
			return on
		}
		fmt.Fprintf(os.Stderr, "bolide: ignoring BOLIDE_MEMCHECK=%q (want 1/true or 0/false)\n", v)
	}
	// Tests are where the checks pay off and cost nothing that matters; a production library
	// (loaded into a JVM) is not a test binary.
	return testing.Testing()
}

// Checking reports whether allocators are built in checking mode: BOLIDE_MEMCHECK=1/true turns it
// on, 0/false off; without the variable it is on in Go test binaries and off otherwise. It is
// decided once, at package initialisation.
func Checking() bool { return checking }

// noPanic is inverted so that the zero value means "panic", the right default for Go tests.
var noPanic atomic.Bool

// SetPanicOnViolation chooses what a violation does: panic (the default: a Go test fails at the
// faulty call) or, with false, only record it in Violations and in the allocator's Err. The JNI
// library sets false because Free runs on arbitrary JVM threads from Arrow release callbacks, where
// a Go panic would kill the JVM. It returns the previous setting.
func SetPanicOnViolation(on bool) (previous bool) { return !noPanic.Swap(!on) }

// ViolationKind classifies a Violation.
type ViolationKind int

const (
	// DoubleFree: Free of a buffer that was already freed.
	DoubleFree ViolationKind = iota + 1
	// ForeignFree: Free of a pointer this allocator never handed out (a sub-slice, another
	// allocator's or Go memory).
	ForeignFree
	// WriteAfterFree: a freed buffer's poison changed before the buffer was reused or returned.
	WriteAfterFree
	// ReallocateNotLive: Reallocate of a buffer that is freed or was never handed out.
	ReallocateNotLive
	// CapacityMismatch: Free of a live buffer whose capacity differs from the allocation's (a
	// resliced buffer would be pooled in the wrong size class).
	CapacityMismatch
)

func (k ViolationKind) String() string {
	switch k {
	case DoubleFree:
		return "double free"
	case ForeignFree:
		return "free of a foreign pointer"
	case WriteAfterFree:
		return "write after free"
	case ReallocateNotLive:
		return "reallocate of a freed or foreign buffer"
	case CapacityMismatch:
		return "free with a wrong capacity"
	}
	return "ViolationKind(" + strconv.Itoa(int(k)) + ")"
}

// Violation is a misuse of a checking allocator's memory. The stacks are program counters as
// returned by runtime.Callers; Error formats them.
type Violation struct {
	Kind      ViolationKind
	Allocator int     // the allocator's number, as in CheckAll's report
	Addr      uintptr // the buffer's base address
	Size      int     // its capacity as allocated (for ForeignFree: the capacity passed)
	// WriteAfterFree: the first changed byte's offset and value, and how many bytes changed.
	Offset, Changed int
	Found           byte
	// CapacityMismatch: the capacity passed to Free.
	FreedCap int
	Alloc    []uintptr // where the buffer was allocated (nil if unknown)
	Free     []uintptr // where it was (first) freed (nil if unknown)
	At       []uintptr // where the violation was detected
}

func (v *Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bolide memory: %s: ", v.Kind)
	switch v.Kind {
	case DoubleFree:
		fmt.Fprintf(&b, "the %d-byte buffer at %#x was freed again", v.Size, v.Addr)
	case ForeignFree:
		fmt.Fprintf(&b, "%#x (capacity %d) was never handed out by this allocator "+
			"(a sub-slice, another allocator's buffer or Go memory?)", v.Addr, v.Size)
	case WriteAfterFree:
		fmt.Fprintf(&b, "%d of the %d bytes of the buffer at %#x changed after it was freed "+
			"(first at offset %d: %#02x instead of the poison %#02x)",
			v.Changed, v.Size, v.Addr, v.Offset, v.Found, Poison)
	case ReallocateNotLive:
		fmt.Fprintf(&b, "the buffer at %#x (capacity %d) is not live", v.Addr, v.Size)
	case CapacityMismatch:
		fmt.Fprintf(&b, "the buffer at %#x was allocated with capacity %d but freed with capacity %d",
			v.Addr, v.Size, v.FreedCap)
	}
	fmt.Fprintf(&b, " (allocator #%d)\n", v.Allocator)
	section := func(title string, pcs []uintptr) {
		if pcs != nil {
			b.WriteString(title + ":\n")
			writeStack(&b, pcs, "\t")
		}
	}
	section("allocated at", v.Alloc)
	switch v.Kind {
	case DoubleFree:
		section("first freed at", v.Free)
		section("freed again at", v.At)
	case WriteAfterFree:
		section("freed at", v.Free)
		section("detected at", v.At)
	case ReallocateNotLive:
		section("freed at", v.Free)
		section("reallocated at", v.At)
	default:
		section("freed at", v.At)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var violations struct {
	sync.Mutex
	kept  []*Violation
	total int
}

func recordViolations(vs []*Violation) {
	violations.Lock()
	defer violations.Unlock()
	violations.total += len(vs)
	for _, v := range vs {
		if len(violations.kept) < maxViolationsKept {
			violations.kept = append(violations.kept, v)
		}
	}
}

// Violations returns the violations recorded so far by every checking allocator (the first 100),
// whether or not they panicked.
func Violations() []*Violation {
	violations.Lock()
	defer violations.Unlock()
	return slices.Clone(violations.kept)
}

// registry holds the checking allocators that may still have something to report. An allocator
// leaves it when it is closed (ReleaseAll) with nothing live, or when its last buffer is freed
// after it closed (the JVM releasing a batch late), so a long-running JVM keeps only open tasks'
// allocators and leaky ones. Lock order: an allocator's mu, then registry's.
var registry struct {
	sync.Mutex
	nextID int
	m      map[*TaskAllocator]struct{}
}

// registerLocked and unregisterLocked are called with a.mu held (or before a is shared), which
// keeps a.chk.registered in step with the registry.
func registerLocked(a *TaskAllocator) {
	registry.Lock()
	defer registry.Unlock()
	if registry.m == nil {
		registry.m = make(map[*TaskAllocator]struct{})
	}
	registry.m[a] = struct{}{}
	a.chk.registered = true
}

func unregisterLocked(a *TaskAllocator) {
	registry.Lock()
	defer registry.Unlock()
	delete(registry.m, a)
	a.chk.registered = false
}

func registered() []*TaskAllocator {
	registry.Lock()
	defer registry.Unlock()
	as := make([]*TaskAllocator, 0, len(registry.m))
	for a := range registry.m {
		as = append(as, a)
	}
	slices.SortFunc(as, func(x, y *TaskAllocator) int { return cmp.Compare(x.chk.id, y.chk.id) })
	return as
}

// record is one buffer of a checking allocator: live, or freed and still held (quarantined or
// pooled), or given back to C (history).
type record struct {
	buf     []byte // the whole buffer as handed out, capacity included
	alloc   []uintptr
	free    []uintptr
	corrupt bool // a write after free was reported: never reuse or free it again
}

// checker is a checking allocator's state, guarded by the allocator's mu.
type checker struct {
	id         int
	created    []uintptr
	registered bool

	live      map[uintptr]*record
	liveBytes int64
	// freed holds the records of poisoned buffers still owned by the allocator: those in the
	// quarantine and those in the pool.
	freed      map[uintptr]*record
	quarantine fifo[*record]
	qbytes     int64
	// gone remembers the last historyCount buffers given back to C or abandoned after a write
	// after free (in order, in goneOrder).
	gone      map[uintptr]*record
	goneOrder fifo[*record]

	closedLive      int // live allocations left when ReleaseAll ran; -1 before
	closedLiveBytes int64
}

// newCheckedAllocator returns a checking allocator whatever the mode (tests).
func newCheckedAllocator(r Reserver) *TaskAllocator {
	a := &TaskAllocator{c: mallocator.NewMallocator(), reserver: r, chunk: DefaultChunk, maxPooled: maxPoolBytes}
	a.initChecking()
	return a
}

func (a *TaskAllocator) initChecking() {
	a.chk = &checker{
		created: callers(), live: make(map[uintptr]*record), freed: make(map[uintptr]*record),
		gone: make(map[uintptr]*record), closedLive: -1,
	}
	registry.Lock()
	registry.nextID++
	a.chk.id = registry.nextID
	registry.Unlock()
	registerLocked(a)
}

// trimChecked empties the quarantine and the pool back to C, verifying their poison.
func (a *TaskAllocator) trimChecked() {
	stack := callers()
	c := a.chk
	var vs []*Violation
	var toC [][]byte
	defer a.report(true, &vs)
	a.mu.Lock()
	for c.quarantine.len() > 0 {
		toC = a.evictLocked(stack, &vs, toC)
	}
	for cl := range a.pool {
		for _, b := range a.pool[cl] {
			toC = a.retireLocked(c.freed[addr(b)], stack, &vs, toC)
		}
		a.pool[cl] = nil
	}
	a.pooled = 0
	a.mu.Unlock()
	for _, x := range toC {
		a.c.Free(x)
	}
}

// addr is a buffer's identity: its base address (0 for nil).
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

func (a *TaskAllocator) allocateChecked(size int) []byte {
	stack := callers()
	c := a.chk
	var vs []*Violation
	defer a.report(true, &vs)
	if cl := classFor(size); cl >= 0 {
		a.mu.Lock()
		for len(a.pool[cl]) > 0 {
			n := len(a.pool[cl])
			b := a.pool[cl][n-1]
			a.pool[cl][n-1] = nil
			a.pool[cl] = a.pool[cl][:n-1]
			a.pooled -= int64(cap(b))
			rec := c.freed[addr(b)]
			delete(c.freed, addr(b))
			if a.damagedLocked(rec, stack, &vs) {
				a.used -= int64(cap(b)) // abandoned: see retireLocked
				a.rememberLocked(rec)
				continue
			}
			a.trackLocked(b, stack)
			a.mu.Unlock()
			b = b[:size]
			clear(b)
			return b
		}
		a.mu.Unlock()
		b := a.c.Allocate(1 << cl)
		a.grow(int64(cap(b)))
		a.mu.Lock()
		a.trackLocked(b, stack)
		a.mu.Unlock()
		return b[:size]
	}
	b := a.c.Allocate(size)
	a.grow(int64(cap(b)))
	a.mu.Lock()
	a.trackLocked(b, stack)
	a.mu.Unlock()
	return b
}

// trackLocked records b as live. The address may be in the history: C reused it.
func (a *TaskAllocator) trackLocked(b []byte, stack []uintptr) {
	c := a.chk
	p := addr(b)
	c.live[p] = &record{buf: b[:cap(b)], alloc: stack}
	c.liveBytes += int64(cap(b))
	delete(c.gone, p)
	if !c.registered { // allocating after the allocator left the registry (after ReleaseAll)
		registerLocked(a)
	}
}

func (a *TaskAllocator) freeChecked(b []byte) {
	p := addr(b)
	if p == 0 {
		return // Free(nil) is a no-op, as in mallocator
	}
	stack := callers()
	c := a.chk
	var vs []*Violation
	var toC [][]byte
	defer a.report(true, &vs)
	a.mu.Lock()
	rec := c.live[p]
	if rec == nil {
		a.mu.Unlock()
		vs = append(vs, a.notLive(ForeignFree, DoubleFree, b, stack))
		return
	}
	n := cap(rec.buf)
	if cap(b) != n {
		vs = append(vs, &Violation{Kind: CapacityMismatch, Allocator: c.id, Addr: p, Size: n,
			FreedCap: cap(b), Alloc: rec.alloc, At: stack})
	}
	delete(c.live, p)
	c.liveBytes -= int64(n)
	rec.free = stack
	poison(rec.buf)
	c.freed[p] = rec
	c.quarantine.push(rec)
	c.qbytes += int64(n)
	for c.quarantine.len() > quarantineCount || c.qbytes > min(quarantineBytes, a.maxPooled) {
		toC = a.evictLocked(stack, &vs, toC)
	}
	if a.closed && len(c.live) == 0 {
		// The JVM released the last batch of a closed task: nothing more can be freed here, so
		// verify and return what is held and leave the registry.
		for c.quarantine.len() > 0 {
			toC = a.evictLocked(stack, &vs, toC)
		}
		unregisterLocked(a)
	}
	a.mu.Unlock()
	for _, x := range toC {
		a.c.Free(x)
	}
}

// notLive builds the violation for a buffer the allocator does not have live: kind if it is
// unknown, known if it was freed before (with that allocation's stacks).
func (a *TaskAllocator) notLive(unknown, known ViolationKind, b []byte, stack []uintptr) *Violation {
	p := addr(b)
	v := &Violation{Kind: unknown, Allocator: a.chk.id, Addr: p, Size: cap(b), At: stack}
	a.mu.Lock()
	defer a.mu.Unlock()
	rec := a.chk.freed[p]
	if rec == nil {
		rec = a.chk.gone[p]
	}
	if rec != nil {
		v.Kind, v.Size, v.Alloc, v.Free = known, cap(rec.buf), rec.alloc, rec.free
	}
	return v
}

// evictLocked takes the oldest buffer out of the quarantine: into the pool if it fits, else into
// toC (to be given back to C once the lock is released).
func (a *TaskAllocator) evictLocked(at []uintptr, vs *[]*Violation, toC [][]byte) [][]byte {
	c := a.chk
	rec := c.quarantine.pop()
	n := cap(rec.buf)
	c.qbytes -= int64(n)
	if cl := sizeClass(n); cl >= 0 && !a.closed && a.pooled+int64(n) <= a.maxPooled && !rec.corrupt {
		if !a.damagedLocked(rec, at, vs) {
			a.pool[cl] = append(a.pool[cl], rec.buf) // still poisoned, still in freed
			a.pooled += int64(n)
			return toC
		}
	}
	return a.retireLocked(rec, at, vs, toC)
}

// retireLocked gives a freed buffer back to C, after verifying its poison. A buffer written after
// free is abandoned instead: whoever still writes to it would otherwise corrupt malloc's data or
// the next owner's; losing it is the safer failure once the violation is reported.
func (a *TaskAllocator) retireLocked(rec *record, at []uintptr, vs *[]*Violation, toC [][]byte) [][]byte {
	delete(a.chk.freed, addr(rec.buf))
	a.used -= int64(cap(rec.buf))
	a.rememberLocked(rec)
	if a.damagedLocked(rec, at, vs) {
		return toC
	}
	return append(toC, rec.buf)
}

// rememberLocked keeps the record of a buffer that left the allocator (back to C, or abandoned)
// in the bounded history, so that freeing it again is reported as a double free.
func (a *TaskAllocator) rememberLocked(rec *record) {
	c := a.chk
	c.gone[addr(rec.buf)] = rec
	c.goneOrder.push(rec)
	for c.goneOrder.len() > historyCount {
		old := c.goneOrder.pop()
		if q := addr(old.buf); c.gone[q] == old {
			delete(c.gone, q)
		}
	}
}

// damagedLocked reports whether a freed buffer was written after free, appending a violation the
// first time it is seen.
func (a *TaskAllocator) damagedLocked(rec *record, at []uintptr, vs *[]*Violation) bool {
	if rec.corrupt {
		return true
	}
	first, changed := poisonDamage(rec.buf)
	if changed == 0 {
		return false
	}
	rec.corrupt = true
	*vs = append(*vs, &Violation{Kind: WriteAfterFree, Allocator: a.chk.id, Addr: addr(rec.buf),
		Size: cap(rec.buf), Offset: first, Changed: changed, Found: rec.buf[first], Alloc: rec.alloc,
		Free: rec.free, At: at})
	return true
}

func (a *TaskAllocator) reallocateChecked(size int, b []byte) []byte {
	if size <= cap(b) {
		if p := addr(b); p != 0 {
			a.mu.Lock()
			live := a.chk.live[p] != nil
			a.mu.Unlock()
			if !live {
				vs := []*Violation{a.notLive(ReallocateNotLive, ReallocateNotLive, b, callers())}
				a.report(true, &vs)
			}
		}
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.allocateChecked(size)
	copy(nb, b)
	a.freeChecked(b)
	return nb
}

func (a *TaskAllocator) releaseAllChecked() {
	stack := callers()
	c := a.chk
	var vs []*Violation
	var toC [][]byte
	defer a.report(true, &vs)
	a.mu.Lock()
	a.closed = true
	for c.quarantine.len() > 0 {
		toC = a.evictLocked(stack, &vs, toC) // closed: nothing goes back to the pool
	}
	for cl := range a.pool {
		for _, b := range a.pool[cl] {
			toC = a.retireLocked(c.freed[addr(b)], stack, &vs, toC)
		}
		a.pool[cl] = nil
	}
	a.pooled = 0
	a.unreserveAllLocked()
	c.closedLive, c.closedLiveBytes = len(c.live), c.liveBytes
	if len(c.live) == 0 {
		unregisterLocked(a)
	}
	a.mu.Unlock()
	for _, x := range toC {
		a.c.Free(x)
	}
}

// report records violations (globally and as the allocator's sticky error) and, if allowed and
// configured, panics with the first. It runs deferred, with a.mu released, so that a panic leaves
// the allocator consistent.
func (a *TaskAllocator) report(mayPanic bool, vs *[]*Violation) {
	if len(*vs) == 0 {
		return
	}
	a.mu.Lock()
	if a.failed == nil {
		a.failed = (*vs)[0]
	}
	a.mu.Unlock()
	recordViolations(*vs)
	if mayPanic && !noPanic.Load() {
		if len(*vs) > 1 {
			panic(fmt.Errorf("%w\n(and %d more violations, see memory.Violations)", (*vs)[0], len(*vs)-1))
		}
		panic((*vs)[0])
	}
}

// Live returns the bytes and number of buffers handed out and not freed (pooled and quarantined
// buffers excluded). Without checking the allocator does not track buffers: it returns Used() and
// a count of -1.
func (a *TaskAllocator) Live() (bytes int64, count int) {
	if a.chk == nil {
		return a.Used(), -1
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.chk.liveBytes, len(a.chk.live)
}

// LeakReport lists the live buffers grouped by allocation stack, largest first, or returns "" if
// there are none.
func (a *TaskAllocator) LeakReport() string {
	if a.chk == nil {
		return "memory checking is off for this allocator (BOLIDE_MEMCHECK)"
	}
	l := a.leaks()
	if l.count == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(l.header(a.chk.id))
	b.WriteString("; created at:\n")
	writeStack(&b, a.chk.created, "\t")
	for _, s := range l.sites {
		fmt.Fprintf(&b, "  %s, %d bytes, allocated at:\n%s", plural(s.count, "allocation"), s.bytes, s.stack)
	}
	return b.String()
}

type leakSite struct {
	stack string // printed
	count int
	bytes int64
}

type leaks struct {
	count, closedLive      int
	bytes, closedLiveBytes int64
	sites                  []*leakSite // largest first
}

func (l *leaks) header(id int) string {
	h := fmt.Sprintf("allocator #%d has %s (%d bytes)", id, plural(l.count, "live allocation"), l.bytes)
	if l.closedLive >= 0 {
		return h + fmt.Sprintf("; ReleaseAll left %d live (%d bytes)", l.closedLive, l.closedLiveBytes)
	}
	return h + "; never closed (ReleaseAll)"
}

func (a *TaskAllocator) leaks() *leaks {
	a.mu.Lock()
	c := a.chk
	l := &leaks{count: len(c.live), bytes: c.liveBytes, closedLive: c.closedLive, closedLiveBytes: c.closedLiveBytes}
	recs := make([]*record, 0, len(c.live))
	for _, rec := range c.live {
		recs = append(recs, rec)
	}
	a.mu.Unlock()
	// Grouped by printed stack, not by program counters: two calls on one line are one site.
	sites := map[string]*leakSite{}
	for _, rec := range recs {
		var b strings.Builder
		writeStack(&b, rec.alloc, "\t")
		k := b.String()
		s := sites[k]
		if s == nil {
			s = &leakSite{stack: k}
			sites[k] = s
			l.sites = append(l.sites, s)
		}
		s.count++
		s.bytes += int64(cap(rec.buf))
	}
	slices.SortFunc(l.sites, func(x, y *leakSite) int {
		return cmp.Or(cmp.Compare(y.bytes, x.bytes), cmp.Compare(y.count, x.count), strings.Compare(x.stack, y.stack))
	})
	return l
}

// scanFreed verifies the poison of every buffer the allocator holds freed, recording (never
// panicking: CheckAll returns the report) any write after free not yet seen.
func (a *TaskAllocator) scanFreed() {
	at := callers()
	var vs []*Violation
	defer a.report(false, &vs)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, rec := range a.chk.freed {
		a.damagedLocked(rec, at, &vs)
	}
}

// CheckAll verifies every registered checking allocator and returns nil, or an error whose message
// reports each recorded violation and each allocator's live buffers by allocation site. It first
// verifies the poison of the buffers the allocators still hold freed, so that a write after free
// into a buffer that never left the quarantine is found too. Call it when the allocations should
// all have been freed (memtest.Main calls it after a package's tests).
func CheckAll() error {
	type leaky struct {
		a *TaskAllocator
		l *leaks
	}
	var ls []leaky
	for _, a := range registered() {
		a.scanFreed()
		if l := a.leaks(); l.count > 0 {
			ls = append(ls, leaky{a, l})
		}
	}
	violations.Lock()
	kept, total := slices.Clone(violations.kept), violations.total
	violations.Unlock()
	if len(ls) == 0 && total == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "bolide memory check: %s, %s with live allocations\n", plural(total, "violation"),
		plural(len(ls), "allocator"))
	for i, v := range kept {
		fmt.Fprintf(&b, "--- violation %d:\n%s\n", i+1, v.Error())
	}
	if total > len(kept) {
		fmt.Fprintf(&b, "--- (%d more violations not kept)\n", total-len(kept))
	}
	// A leaky test helper leaks in every test that uses it: detail the first allocators, then sum
	// up the others by the function that created them, so that the report stays readable.
	const detailed = 5
	for _, x := range ls[:min(detailed, len(ls))] {
		b.WriteString("--- leak: " + x.a.LeakReport())
	}
	type group struct {
		site          string
		allocators, n int
		bytes         int64
		callers       []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, x := range ls[min(detailed, len(ls)):] {
		fs := ownFrames(x.a.chk.created)
		site, caller := "(no Bolide frame)", ""
		if len(fs) > 0 {
			site = frameString(fs[0])
		}
		if len(fs) > 1 {
			caller = strings.TrimPrefix(fs[1].Function, ownPrefix)
		}
		g := byKey[site]
		if g == nil {
			g = &group{site: site}
			byKey[site] = g
			groups = append(groups, g)
		}
		g.allocators++
		g.n += x.l.count
		g.bytes += x.l.bytes
		if caller != "" && !slices.Contains(g.callers, caller) {
			g.callers = append(g.callers, caller)
		}
	}
	for _, g := range groups {
		fmt.Fprintf(&b, "--- and %s created at %s with %s (%d bytes)", plural(g.allocators, "more leaky allocator"),
			g.site, plural(g.n, "live allocation"), g.bytes)
		if len(g.callers) > 0 {
			const named = 8
			fmt.Fprintf(&b, ", called by %s", strings.Join(g.callers[:min(named, len(g.callers))], ", "))
			if len(g.callers) > named {
				fmt.Fprintf(&b, " and %d more", len(g.callers)-named)
			}
		}
		b.WriteString("\n")
	}
	return errors.New(strings.TrimSuffix(b.String(), "\n"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// poisonBlock is a run of Poison to copy from and compare against (bytes.Equal is vectorised),
// built on first use so that production never touches it.
var poisonBlock = sync.OnceValue(func() []byte { return bytes.Repeat([]byte{Poison}, 64<<10) })

func poison(b []byte) {
	blk := poisonBlock()
	for len(b) > 0 {
		b = b[copy(b, blk):]
	}
}

// poisonDamage returns the offset of the first byte of b that is not Poison and how many are not.
func poisonDamage(b []byte) (first, changed int) {
	blk := poisonBlock()
	first = -1
	for off := 0; off < len(b); off += len(blk) {
		chunk := b[off:min(off+len(blk), len(b))]
		if bytes.Equal(chunk, blk[:len(chunk)]) {
			continue
		}
		for i, x := range chunk {
			if x != Poison {
				if first < 0 {
					first = off + i
				}
				changed++
			}
		}
	}
	return first, changed
}

// callers returns the stack of its caller's caller onwards (the allocator's own frames are cut
// when printing, see writeStack).
func callers() []uintptr {
	pcs := make([]uintptr, stackDepth)
	return pcs[:runtime.Callers(3, pcs)]
}

// selfPkg prefixes the allocator's own frames, trimmed from the top of printed stacks; ownPrefix
// Bolide's, which are printed in full while runs of other frames (arrow-go's builders and buffers)
// are folded into the outermost one, the call Bolide made.
var (
	selfPkg   = reflect.TypeFor[TaskAllocator]().PkgPath() + "."
	ownPrefix = path.Dir(reflect.TypeFor[TaskAllocator]().PkgPath()) + "/"
)

func isSelf(fn string) bool {
	rest, ok := strings.CutPrefix(fn, selfPkg)
	return ok && (strings.HasPrefix(rest, "(*TaskAllocator).") || rest == "NewTaskAllocator" ||
		rest == "newCheckedAllocator" || rest == "CheckAll")
}

// frames symbolises pcs without the allocator's own leading frames and without the test runner's
// or runtime's trailing ones (no allocation happens in package testing).
func frames(pcs []uintptr) []runtime.Frame {
	var fs []runtime.Frame
	it := runtime.CallersFrames(pcs)
	for {
		f, more := it.Next()
		if strings.HasPrefix(f.Function, "testing.") || f.Function == "runtime.goexit" || f.Function == "runtime.main" {
			break // the test or benchmark runner
		}
		if len(fs) > 0 || !isSelf(f.Function) {
			fs = append(fs, f)
		}
		if !more {
			break
		}
	}
	return fs
}

// writeStack prints pcs one frame per line pair like a Go traceback, folding runs of frames from
// outside Bolide (see ownPrefix).
func writeStack(b *strings.Builder, pcs []uintptr, indent string) {
	fs := frames(pcs)
	for i := 0; i < len(fs); i++ {
		f, folded := fs[i], 0
		for !strings.HasPrefix(f.Function, ownPrefix) && i+1 < len(fs) && !strings.HasPrefix(fs[i+1].Function, ownPrefix) {
			i++
			f = fs[i]
			folded++
		}
		note := ""
		if folded > 0 {
			note = fmt.Sprintf(" (and %s it called)", plural(folded, "frame"))
		}
		fmt.Fprintf(b, "%s%s%s\n%s\t%s:%d\n", indent, f.Function, note, indent, f.File, f.Line)
	}
	if len(fs) == 0 {
		b.WriteString(indent + "(no stack)\n")
	}
}

// ownFrames returns the Bolide frames of pcs (see frames), innermost first.
func ownFrames(pcs []uintptr) []runtime.Frame {
	var fs []runtime.Frame
	for _, f := range frames(pcs) {
		if strings.HasPrefix(f.Function, ownPrefix) {
			fs = append(fs, f)
		}
	}
	return fs
}

func frameString(f runtime.Frame) string {
	return fmt.Sprintf("%s (%s:%d)", strings.TrimPrefix(f.Function, ownPrefix), path.Base(f.File), f.Line)
}

// fifo is a queue over a slice that is compacted as its head advances.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }

func (q *fifo[T]) push(x T) { q.items = append(q.items, x) }

func (q *fifo[T]) pop() T {
	var zero T
	x := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= 256 && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return x
}
