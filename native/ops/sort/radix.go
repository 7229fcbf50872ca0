package sort

import (
	"slices"
)

// The permutation sort. Rows are entries (a prefix, the row's index in the key stores, the
// buffered batch holding it); sorting moves 16-byte entries, never the rows.
//
// A range of entries that are equal on keys [0, k) is sorted on key k like an MSD radix sort
// over normalised keys: nulls are split off first (stably, to the front or back as the null
// ordering says), then each non-null entry gets a 64-bit prefix whose unsigned order is Spark's
// order of the key (keys.go), and a stable LSD radix sort orders the range by prefix, skipping
// the byte positions on which all prefixes agree (small integers, booleans and dates need one or
// two passes). A run of equal prefixes is then either equal on key k (recurse on key k+1) or, for
// strings longer than a prefix and wide decimals, needs the next prefix of the same key (recurse at
// depth+1). Ranges too short for radix passes to pay are sorted by comparing prefixes instead.
// No step compares rows through a comparator: the typed work is all in the prefix encoders.
//
// Every step is stable (the comparison sort breaks prefix ties by row index), so the result is the
// stable sort: rows equal on every key keep their input order. Spark does not promise an order
// among ties (its spills merge runs in any order); a stable one is valid and deterministic.

// entry is one row being sorted.
type entry struct {
	p   uint64 // the prefix at the current level
	row int32  // index in the key stores (the buffer's row number)
	src uint32 // the buffered batch holding the row
}

// entrySize is the Go heap of one entry; a sort holds two (entries and radix scratch) per row.
const entrySize = 16

// smallRun is the range length up to which a comparison sort of the prefixes beats radix passes
// (each costs clearing and summing 256 buckets on top of the moves).
const smallRun = 64

type sorter struct {
	keys       []keyStore
	flips      []uint64 // all ones for a descending key
	nullsFirst []bool
	hist       [8][256]uint32
}

// prepare sets the keys up for a sort.
func (s *sorter) prepare(keys []keyStore, orders []Order) {
	s.keys = keys
	s.flips, s.nullsFirst = s.flips[:0], s.nullsFirst[:0]
	for _, o := range orders {
		var flip uint64
		if o.Descending {
			flip = ^uint64(0)
		}
		s.flips = append(s.flips, flip)
		s.nullsFirst = append(s.nullsFirst, o.NullsFirst)
	}
}

// sortRange sorts ents, whose rows are equal on keys before k and share the prefixes of key k
// before depth; tmp is scratch of the same length. Entries arrive in increasing row order.
func (s *sorter) sortRange(ents, tmp []entry, k, depth int) {
	if len(ents) < 2 || k == len(s.keys) {
		return
	}
	key := s.keys[k]
	if depth == 0 {
		if nulls := key.nulls(); nulls != nil {
			ents, tmp = s.splitNulls(ents, tmp, nulls, k)
			if len(ents) < 2 {
				return
			}
		}
	}
	flip := s.flips[k]
	key.fill(ents, depth, flip)
	if len(ents) <= smallRun {
		sortByPrefix(ents)
	} else {
		s.radix(ents, tmp)
	}
	for i := 0; i < len(ents); {
		p := ents[i].p
		j := i + 1
		for j < len(ents) && ents[j].p == p {
			j++
		}
		if j-i > 1 {
			if key.refine(p, depth, flip) {
				s.sortRange(ents[i:j], tmp[i:j], k, depth+1)
			} else {
				s.sortRange(ents[i:j], tmp[i:j], k+1, 0)
			}
		}
		i = j
	}
}

// sortByPrefix sorts a short range by (prefix, row), which is its stable sort by prefix: the
// entries arrive in row order.
func sortByPrefix(ents []entry) {
	if len(ents) > 16 {
		slices.SortFunc(ents, func(a, b entry) int {
			if a.p != b.p {
				if a.p < b.p {
					return -1
				}
				return 1
			}
			return int(a.row) - int(b.row)
		})
		return
	}
	// Insertion sort: stable, and linear on the already ordered ranges that ties produce.
	for i := 1; i < len(ents); i++ {
		e := ents[i]
		j := i
		for j > 0 && ents[j-1].p > e.p {
			ents[j] = ents[j-1]
			j--
		}
		ents[j] = e
	}
}

// splitNulls moves the entries whose key k is null to the front or back (stably), sorts them on
// the next keys, and returns the non-null part and its scratch.
func (s *sorter) splitNulls(ents, tmp []entry, nulls []bool, k int) ([]entry, []entry) {
	nn := 0
	for i := range ents {
		if nulls[ents[i].row] {
			nn++
		}
	}
	if nn == 0 {
		return ents, tmp
	}
	nullsFirst := s.nullsFirst[k]
	ni, vi := 0, nn
	if !nullsFirst {
		ni, vi = len(ents)-nn, 0
	}
	for _, e := range ents {
		if nulls[e.row] {
			tmp[ni] = e
			ni++
		} else {
			tmp[vi] = e
			vi++
		}
	}
	copy(ents, tmp)
	if nullsFirst {
		s.sortRange(ents[:nn], tmp[:nn], k+1, 0)
		return ents[nn:], tmp[nn:]
	}
	m := len(ents) - nn
	s.sortRange(ents[m:], tmp[m:], k+1, 0)
	return ents[:m], tmp[:m]
}

// radix sorts ents by prefix, stably: least significant byte first, one counting pass per byte
// position that is not the same in every prefix (all eight histograms come from one read).
func (s *sorter) radix(ents, tmp []entry) {
	n := uint32(len(ents))
	h := &s.hist
	*h = [8][256]uint32{}
	for i := range ents {
		p := ents[i].p
		h[0][byte(p)]++
		h[1][byte(p>>8)]++
		h[2][byte(p>>16)]++
		h[3][byte(p>>24)]++
		h[4][byte(p>>32)]++
		h[5][byte(p>>40)]++
		h[6][byte(p>>48)]++
		h[7][byte(p>>56)]++
	}
	src, dst := ents, tmp
	for pass := 0; pass < 8; pass++ {
		shift := uint(8 * pass)
		c := &h[pass]
		if c[byte(src[0].p>>shift)] == n {
			continue // every prefix has this byte
		}
		var sum uint32
		for b := range c {
			cnt := c[b]
			c[b] = sum
			sum += cnt
		}
		for _, e := range src {
			b := byte(e.p >> shift)
			dst[c[b]] = e
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
}
