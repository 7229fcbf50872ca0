package objstore

import (
	"context"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Readahead sizing (variables so tests can shrink them). Parquet reads a column chunk front to
// back in pieces of the reader's buffer (64 KiB) or of a page, one chunk per projected column,
// the chunks of a row group interleaved. Each such stream gets its own window: a read outside
// every window fetches minWindow bytes from its offset, and a read that continues right where a
// window ends fetches twice that window's size, up to maxWindow. A stream therefore costs a few
// requests per chunk however small its reads are, and a random read costs one minWindow request.
//
// Windows share windowBudget: a new one is at most the budget divided among the streams reading
// at once, so that many columns read together do not evict each other's windows before they are
// read; windows read to their end are evicted first. Without announcements the streams are
// counted as the windows not yet read to their end, and windows start small. A reader that knows
// what it will read says so with WillRead (the Parquet reader announces, per row group, the
// column chunks it will decode): a window inside such an extent starts at its share of the
// budget (or the rest of the extent, if less) and never reaches past the extent's end, into
// bytes nobody reads, except the first window of a run of adjacent extents announced together
// (the column chunks of a row group, a few KiB apart at most), which starts at the run's start
// and may span several: the streams that start next find their first bytes there.
var (
	minWindow    int64 = 256 << 10
	maxWindow    int64 = 8 << 20
	windowBudget int64 = 32 << 20 // bytes of readahead windows one file keeps
	prefetchJobs       = 4        // concurrent background fetches of one file (Prefetch)
)

// fetchFunc reads exactly len(p) bytes at off from the object, or fails.
type fetchFunc func(ctx context.Context, p []byte, off int64) error

// window is bytes [off, off+n) of the object, being fetched until done is closed; then data holds
// them, or err says why not (the window is then dropped, so a later read retries).
type window struct {
	off, n  int64
	span    int64 // the size it was meant to have before clipping: the window after it doubles this
	data    []byte
	done    chan struct{}
	err     error
	ready   bool // data is there (guarded by readahead.mu, unlike data itself, published by done)
	pinned  bool // the tail or the whole object: never evicted, not in the budget
	lastUse uint64
	// consumed: a read reached the window's end, so its stream has moved on (set without the
	// lock by readers, read under it by eviction).
	consumed atomic.Bool
}

// extent is a range a reader announced it will read front to back (WillRead), by one of
// streams readers at once; group numbers the announcement.
type extent struct {
	off, end int64
	streams  int64
	group    int
}

// readahead serves ReadAt of a remote object from windows of it: sorted, disjoint, fetched by one
// reader while concurrent readers of the same bytes wait for that fetch.
type readahead struct {
	ctx   context.Context
	fetch fetchFunc
	size  int64

	mu      sync.Mutex
	wins    []*window
	extents []extent // sorted by off, disjoint
	groups  int      // announcements so far
	cached  int64    // bytes of unpinned windows, fetched or being fetched
	clock   uint64
	bg      sync.WaitGroup // background fetches of Prefetch
	jobs    chan struct{}
}

func newReadahead(ctx context.Context, fetch fetchFunc, size int64) *readahead {
	return &readahead{ctx: ctx, fetch: fetch, size: size, jobs: make(chan struct{}, prefetchJobs)}
}

// pin adds bytes already fetched, kept until the file is closed.
func (ra *readahead) pin(off int64, data []byte) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	i := ra.search(off)
	w := &window{off: off, n: int64(len(data)), span: maxWindow, data: data, done: make(chan struct{}), ready: true, pinned: true}
	close(w.done)
	ra.wins = slices.Insert(ra.wins, i, w)
}

// search returns the index of the first window that ends after pos.
func (ra *readahead) search(pos int64) int {
	return sort.Search(len(ra.wins), func(i int) bool { return ra.wins[i].off+ra.wins[i].n > pos })
}

// readAt is ReadAt for 0 <= off: os.File's semantics (a read reaching the end returns io.EOF
// with the bytes up to it).
func (ra *readahead) readAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if off >= ra.size {
		return 0, io.EOF
	}
	want := int(min(int64(len(p)), ra.size-off))
	if int64(want) >= maxWindow && !ra.covered(off, int64(want)) {
		// As large as any window: the caller's buffer is the window, nothing worth keeping.
		if err := ra.fetch(ra.ctx, p[:want], off); err != nil {
			return 0, err
		}
	} else {
		for n := 0; n < want; {
			pos := off + int64(n)
			w, mine := ra.window(pos, int64(want-n))
			if mine {
				ra.load(w)
			}
			<-w.done
			if w.err != nil {
				return n, w.err
			}
			c := copy(p[n:want], w.data[pos-w.off:])
			if pos+int64(c) == w.off+w.n {
				w.consumed.Store(true)
			}
			n += c
		}
	}
	if want < len(p) {
		return want, io.EOF
	}
	return want, nil
}

// covered reports whether one window holds all of [off, off+n).
func (ra *readahead) covered(off, n int64) bool {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	i := ra.search(off)
	return i < len(ra.wins) && ra.wins[i].off <= off && off+n <= ra.wins[i].off+ra.wins[i].n
}

// window returns the window holding pos, or makes one starting there; mine says the caller must
// load it. need is how much the caller wants from pos: the window is at least that long unless
// the object or the next window ends it first.
func (ra *readahead) window(pos, need int64) (w *window, mine bool) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	ra.clock++
	i := ra.search(pos)
	if i < len(ra.wins) && ra.wins[i].off <= pos {
		w = ra.wins[i]
		w.lastUse = ra.clock
		return w, false
	}
	active := ra.activeStreams()
	limit := windowCap(active)
	span := minWindow
	if i > 0 && ra.wins[i-1].off+ra.wins[i-1].n == pos { // a stream reading on past its window
		span = min(2*ra.wins[i-1].span, limit)
	}
	start, end := pos, ra.size
	if x, ok := ra.extentAt(pos); ok { // all of it will be read, nothing after it
		e := ra.extents[x]
		limit = windowCap(max(active, e.streams))
		span = min(e.end-pos, limit)
		end = e.end
		// The first read of a run of adjacent extents need not be at its start (the Parquet
		// reader starts with the first column of the projection, wherever it lies): fetch from
		// the start if that fits, the other streams of the run read those bytes next.
		if off, rend := ra.run(x); ra.untouched(off, rend) && pos-off+max(span, need) <= limit {
			start, span, end = off, max(min(rend-off, limit), pos-off+need), rend
		}
	}
	span = max(span, need)
	end = min(end, start+span)
	if i < len(ra.wins) {
		end = min(end, ra.wins[i].off)
	}
	w = &window{off: start, n: end - start, span: span, done: make(chan struct{}), lastUse: ra.clock}
	ra.wins = slices.Insert(ra.wins, i, w)
	ra.cached += w.n
	ra.evict(w)
	return w, true
}

// activeStreams counts the streams reading now, the one asking included: the windows not read
// to their end, plus one (ra.mu held).
func (ra *readahead) activeStreams() int64 {
	active := int64(1)
	for _, w := range ra.wins {
		if !w.pinned && !w.consumed.Load() {
			active++
		}
	}
	return active
}

// windowCap is the largest window for one of streams streams.
func windowCap(streams int64) int64 {
	return max(min(maxWindow, windowBudget/max(streams, 1)), minWindow)
}

// extentAt returns the index of the announced extent holding pos (ra.mu held).
func (ra *readahead) extentAt(pos int64) (int, bool) {
	i := sort.Search(len(ra.extents), func(i int) bool { return ra.extents[i].end > pos })
	return i, i < len(ra.extents) && ra.extents[i].off <= pos
}

// run returns the span of the extents of x's announcement that are adjacent to it, directly or
// through each other: at most extentGap between one's end and the next one's start (ra.mu held).
func (ra *readahead) run(x int) (off, end int64) {
	es := ra.extents
	i, j := x, x
	for i > 0 && es[i-1].group == es[x].group && es[i-1].end+extentGap >= es[i].off {
		i--
	}
	for j+1 < len(es) && es[j+1].group == es[x].group && es[j].end+extentGap >= es[j+1].off {
		j++
	}
	return es[i].off, es[j].end
}

// extentGap is the largest gap between two announced extents that one window may span: reading
// a few KiB nobody asked for costs less than a request.
const extentGap = 16 << 10

// untouched reports whether no window holds any byte of [off, end) (ra.mu held).
func (ra *readahead) untouched(off, end int64) bool {
	i := ra.search(off)
	return i == len(ra.wins) || ra.wins[i].off >= end
}

// willRead records that each range {offset, length} will be read front to back, all of them at
// once (one stream each). A range that overlaps one announced before is dropped (announcements
// are hints: the first one stays).
func (ra *readahead) willRead(ranges [][2]int64) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	ra.groups++
	for _, r := range ranges {
		off, end := max(r[0], 0), min(r[0]+r[1], ra.size)
		if off >= end {
			continue
		}
		e := extent{off: off, end: end, streams: int64(len(ranges)), group: ra.groups}
		i := sort.Search(len(ra.extents), func(i int) bool { return ra.extents[i].end > e.off })
		if i < len(ra.extents) && ra.extents[i].off < e.end {
			continue
		}
		ra.extents = slices.Insert(ra.extents, i, e)
	}
}

// load fetches w and publishes the outcome to every reader waiting for it.
func (ra *readahead) load(w *window) {
	buf := make([]byte, w.n)
	err := ra.fetch(ra.ctx, buf, w.off)
	ra.mu.Lock()
	if err != nil {
		w.err = err
		ra.remove(w)
	} else {
		w.data, w.ready = buf, true
	}
	ra.mu.Unlock()
	close(w.done)
}

// remove drops w from the windows (ra.mu held).
func (ra *readahead) remove(w *window) {
	for i := ra.search(w.off); i < len(ra.wins) && ra.wins[i].off <= w.off; i++ {
		if ra.wins[i] == w {
			ra.wins = slices.Delete(ra.wins, i, i+1)
			if !w.pinned {
				ra.cached -= w.n
			}
			return
		}
	}
}

// evict drops fetched windows, except keep, until the budget holds (ra.mu held): first those
// read to their end, then the least recently used. Windows still being fetched stay: the budget
// can be exceeded by those alone, by at most one window per concurrent reader plus the
// Prefetch jobs.
func (ra *readahead) evict(keep *window) {
	for ra.cached > windowBudget {
		var lru *window
		for _, w := range ra.wins {
			if !w.ready || w.pinned || w == keep {
				continue
			}
			if lru == nil || w.consumed.Load() && !lru.consumed.Load() ||
				w.consumed.Load() == lru.consumed.Load() && w.lastUse < lru.lastUse {
				lru = w
			}
		}
		if lru == nil {
			return
		}
		ra.remove(lru)
	}
}

// prefetch starts background fetches of the parts of [off, off+length) no window holds, in
// windows of at most maxWindow, as far as the budget allows without evicting anything: a hint
// must not throw away bytes a reader is using.
func (ra *readahead) prefetch(off, length int64) {
	off, end := max(off, 0), min(off+length, ra.size)
	var todo []*window
	ra.mu.Lock()
	ra.clock++
	for pos := off; pos < end; {
		i := ra.search(pos)
		if i < len(ra.wins) && ra.wins[i].off <= pos {
			pos = ra.wins[i].off + ra.wins[i].n
			continue
		}
		wend := min(pos+maxWindow, end)
		if i < len(ra.wins) {
			wend = min(wend, ra.wins[i].off)
		}
		if ra.cached+(wend-pos) > windowBudget {
			break
		}
		w := &window{off: pos, n: wend - pos, span: maxWindow, done: make(chan struct{}), lastUse: ra.clock}
		ra.wins = slices.Insert(ra.wins, i, w)
		ra.cached += w.n
		todo = append(todo, w)
		pos = wend
	}
	ra.mu.Unlock()
	for _, w := range todo {
		ra.bg.Add(1)
		go func() {
			defer ra.bg.Done()
			ra.jobs <- struct{}{}
			defer func() { <-ra.jobs }()
			ra.load(w)
		}()
	}
}

// loadAll fetches the whole object into one pinned window, when nothing but the tail has been
// fetched yet (a Prefetcher does this before handing the file out).
func (ra *readahead) loadAll() error {
	ra.mu.Lock()
	rest := ra.size
	switch {
	case len(ra.wins) == 1 && ra.wins[0].pinned && ra.wins[0].off+ra.wins[0].n == ra.size:
		rest = ra.wins[0].off
	case len(ra.wins) > 0:
		ra.mu.Unlock()
		return nil
	}
	ra.mu.Unlock()
	if rest == 0 {
		return nil
	}
	buf := make([]byte, rest)
	if err := ra.fetch(ra.ctx, buf, 0); err != nil {
		return err
	}
	ra.pin(0, buf)
	return nil
}

// release waits for the background fetches (the context is cancelled by then) and drops every
// window.
func (ra *readahead) release() {
	ra.bg.Wait()
	ra.mu.Lock()
	ra.wins, ra.cached = nil, 0
	ra.mu.Unlock()
}
