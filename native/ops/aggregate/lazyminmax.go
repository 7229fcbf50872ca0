package aggregate

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// Min and max over dictionary codes. An aggregate without grouping keys right above a scan reads
// the scan's batches undecoded (columnar.Lazy, as the late filter does): a min or max of a plain
// column asks for the column's dictionary codes and only marks which entries of the row group's
// dictionary its rows use; the extreme is taken over those entries once, when the dictionary
// changes or the input ends, by the function's own merge (so Spark's ordering, and which of equal
// values stays, are the materialized path's). A full scan's min/max then costs a store per row
// rather than a value decoded and compared per row. The other functions read the columns they
// need, decoded for the live rows only; columns nobody reads are never decoded.
//
// A batch whose column is not all dictionary-encoded (PLAIN pages, a chunk falling back to PLAIN
// mid-way) is decoded and updated as before, after the entries marked so far are folded in, so
// that rows are still offered in their order.

var errCorruptCodes = errors.New("min/max: a dictionary code outside its dictionary")

// codesInput is a function's input column that may be read as codes.
type codesInput struct {
	col int
	// ordered: the order in which entries were first used matters (floats: values equal in
	// Spark's ordering with different bits, of which the first seen is kept).
	ordered bool
}

// codedFn is the marks of one min/max over the current dictionary.
type codedFn struct {
	fn int // index into the operator's functions
	in *codesInput
	// dict is the dictionary the marks refer to (held); nil when nothing is marked.
	dict arrow.Array
	// used has 1 for the entries some live row used (unordered functions).
	used []byte
	// full: every entry that fold offers (the valid ones) is marked, so marking more changes
	// nothing and mark only checks the codes. A small dictionary (flags, dates, quantities) is
	// full after a batch or two, and then stays so for the rest of its row group.
	full bool
	// lastNull: the dictionary's only null entry is its last one (the Lazy.Codes convention),
	// or it has none; the others are not checked for fullness, and fold reads no validity.
	lastNull bool
	// first has, per entry, 1 + the input position of the first live row that used it (ordered
	// functions); 0 when none did.
	first []int64
}

// lazyInput is the state of an aggregate reading its child lazily.
type lazyInput struct {
	src   exec.LazyOperator
	coded []*codedFn
	width int
	// pos counts the live rows read, for codedFn.first.
	pos int64
	// skip marks, per function, that the current batch was read as codes (reused).
	skip []bool
	// scratch for the fold: the entries to offer, and the group ids (all 0).
	idx  []int32
	gids []uint32
}

// planLazy decides whether the operator reads its child lazily: no grouping keys, a scan below
// that allows it, every function updating from input rows with known columns, and some min or
// max of a column.
func (h *HashAggregate) planLazy() *lazyInput {
	src, ok := h.child.(exec.LazyOperator)
	if !ok || !src.LazyOK() || len(h.keys) > 0 {
		return nil
	}
	l := &lazyInput{src: src, width: len(h.child.Schema()), skip: make([]bool, len(h.fns))}
	for i, f := range h.fns {
		if !f.mode.updates() || !f.readsOK {
			return nil
		}
		if f.codes != nil && f.filter == nil {
			l.coded = append(l.coded, &codedFn{fn: i, in: f.codes})
		}
	}
	if len(l.coded) == 0 {
		return nil
	}
	return l
}

// consumeLazy reads one batch of the child into r; false at the end of the input (the marks
// then folded in).
func (h *HashAggregate) consumeLazy(r *aggRun) (bool, error) {
	lz := h.st.lazy
	l, err := lz.src.NextLazy()
	if err != nil {
		return false, err
	}
	if l == nil {
		for _, c := range lz.coded {
			if err := h.fold(r, c); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	err = h.addLazy(r, l)
	l.Release()
	return true, err
}

// addLazy folds one lazy batch into r.
func (h *HashAggregate) addLazy(r *aggRun, l columnar.Lazy) error {
	lz := h.st.lazy
	live := l.Live()
	rows := l.NumRows()
	if live != nil {
		rows = len(live)
	}
	if rows == 0 {
		return nil
	}
	clear(lz.skip)
	for _, c := range lz.coded {
		codes, dict, ok, err := l.Codes(c.in.col)
		if err != nil {
			return err
		}
		if !ok {
			// Decoded below: what was marked goes first.
			if err := h.fold(r, c); err != nil {
				return err
			}
			continue
		}
		if dict != c.dict {
			if err := h.fold(r, c); err != nil {
				return err
			}
			c.hold(dict)
		}
		if !c.mark(codes, live, l.NumRows(), lz.pos) {
			return errCorruptCodes
		}
		lz.skip[c.fn] = true
	}
	lz.pos += int64(rows)
	b := &columnar.Batch{Cols: make([]arrow.Array, lz.width), NumRows: rows}
	defer b.Release()
	rest := false
	for i, f := range h.fns {
		if lz.skip[i] {
			continue
		}
		rest = true
		for _, o := range f.reads {
			if b.Cols[o] != nil {
				continue
			}
			var err error
			if live == nil {
				b.Cols[o], err = l.Column(o)
			} else {
				b.Cols[o], err = l.Take(o, live)
			}
			if err != nil {
				return err
			}
		}
	}
	if !rest {
		return nil
	}
	return h.addBatchSkip(r, b, lz.skip)
}

// hold makes dict the dictionary of the marks (none marked).
func (c *codedFn) hold(dict arrow.Array) {
	dict.Retain()
	c.dict = dict
	n := dict.Len()
	c.full = false
	nn := dict.NullN()
	c.lastNull = nn == 0 || nn == 1 && dict.IsNull(n-1)
	if c.in.ordered {
		c.first = slices.Grow(c.first[:0], n)[:n]
		clear(c.first)
	} else {
		c.used = slices.Grow(c.used[:0], n)[:n]
		clear(c.used)
	}
}

// mark records the entries the live rows of a batch of n rows use (every row when live is nil);
// base is the input position of its first live row. False when a code is outside the dictionary.
func (c *codedFn) mark(codes []int32, live []int32, n int, base int64) bool {
	if len(codes) < n {
		return false
	}
	ok := true
	if !c.in.ordered {
		used := c.used
		if live == nil {
			if c.full {
				return columnar.CodesBelow(codes[:n], len(used))
			}
			for _, x := range codes[:n] {
				if uint32(x) < uint32(len(used)) {
					used[x] = 1
				} else {
					ok = false
				}
			}
			c.checkFull(n)
			return ok
		}
		if c.full {
			for _, i := range live {
				ok = ok && uint32(codes[i]) < uint32(len(used))
			}
			return ok
		}
		for _, i := range live {
			if x := codes[i]; uint32(x) < uint32(len(used)) {
				used[x] = 1
			} else {
				ok = false
			}
		}
		c.checkFull(len(live))
		return ok
	}
	first := c.first
	p := base + 1
	if live == nil {
		for _, x := range codes[:n] {
			if uint32(x) < uint32(len(first)) {
				if first[x] == 0 {
					first[x] = p
				}
			} else {
				ok = false
			}
			p++
		}
		return ok
	}
	for _, i := range live {
		if x := codes[i]; uint32(x) < uint32(len(first)) {
			if first[x] == 0 {
				first[x] = p
			}
		} else {
			ok = false
		}
		p++
	}
	return ok
}

// checkFull sets full when every entry but a last null one is marked, after a batch that marked
// rows codes; it looks only when the dictionary is no larger than that batch, so that looking
// costs less than the marks did, eight entries at a time.
func (c *codedFn) checkFull(rows int) {
	used := c.used
	if !c.lastNull || len(used) > rows || len(used) == 0 {
		return
	}
	used = used[:len(used)-1] // the null entry, or a value fold offers only when marked
	if c.dict.NullN() == 0 {
		used = c.used
	}
	const ones = 0x0101010101010101
	i := 0
	for ; i+8 <= len(used); i += 8 {
		if binary.LittleEndian.Uint64(used[i:]) != ones {
			return
		}
	}
	for _, u := range used[i:] {
		if u == 0 {
			return
		}
	}
	c.full = true
}

// fold offers the non-null entries c marked to its function (in the order rows first used them
// when that matters) through the function's merge, and drops the marks.
func (h *HashAggregate) fold(r *aggRun, c *codedFn) error {
	dict := c.dict
	if dict == nil {
		return nil
	}
	defer c.drop()
	lz := h.st.lazy
	bits, off := validity(dict)
	idx := lz.idx[:0]
	if c.in.ordered {
		for i, p := range c.first {
			if p != 0 && bitSet(bits, off, i) {
				idx = append(idx, int32(i))
			}
		}
		slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(c.first[a], c.first[b]) })
	} else if c.lastNull {
		// The valid entries are those before a last null one: no validity to read, and, as a
		// mark is 0 or 1, each entry is written and kept by the count of marks alone (no branch
		// to mispredict on a dictionary half used).
		used := c.used
		if dict.NullN() > 0 {
			used = used[:len(used)-1]
		}
		idx = slices.Grow(idx, len(used))[:len(used)]
		k := 0
		for i, u := range used {
			idx[k] = int32(i)
			k += int(u)
		}
		idx = idx[:k]
	} else {
		for i, u := range c.used {
			if u != 0 && bitSet(bits, off, i) {
				idx = append(idx, int32(i))
			}
		}
	}
	lz.idx = idx
	if len(idx) == 0 {
		return nil
	}
	var vals arrow.Array
	if !c.in.ordered && int(idx[len(idx)-1]) == len(idx)-1 {
		// Every entry up to the last used one (a dictionary's values all used, its null
		// entry last): the dictionary itself.
		vals = array.NewSlice(dict, 0, int64(len(idx)))
	} else {
		var err error
		if vals, err = columnar.Take(h.st.ctx.Alloc, dict, idx); err != nil {
			return err
		}
	}
	defer vals.Release()
	if cap(lz.gids) < len(idx) {
		lz.gids = make([]uint32, len(idx))
	}
	f := r.fns[c.fn]
	f.grow(r.table.numGroups())
	return f.merge([]arrow.Array{vals}, lz.gids[:len(idx)])
}

// memSize is the Go-heap bytes the marks and the fold's scratch hold: one byte (unordered) or one
// int64 (ordered) per entry of each current dictionary, counted in the task's memory like the
// group table, since a dictionary may have up to a page's worth of entries.
func (l *lazyInput) memSize() int64 {
	n := int64(cap(l.idx))*4 + int64(cap(l.gids))*4 + int64(cap(l.skip))
	for _, c := range l.coded {
		n += int64(cap(c.used)) + int64(cap(c.first))*8
	}
	return n
}

// drop releases the dictionary of the marks.
func (c *codedFn) drop() {
	if c.dict != nil {
		c.dict.Release()
		c.dict = nil
	}
}

// release drops what the lazy input holds (at Close, or after an error).
func (l *lazyInput) release() {
	for _, c := range l.coded {
		c.drop()
	}
}
