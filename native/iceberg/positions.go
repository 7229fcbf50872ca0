package iceberg

import (
	"slices"
)

// Positions is a sorted set of deleted row positions of one data file: the union of its positional
// delete files and its deletion vector.
type Positions struct {
	sorted []int64
}

// Len is the number of deleted positions.
func (p *Positions) Len() int {
	if p == nil {
		return 0
	}
	return len(p.sorted)
}

// newPositions sorts and deduplicates (one position may be deleted by several delete files).
func newPositions(ps []int64) *Positions {
	slices.Sort(ps)
	return &Positions{sorted: slices.Compact(ps)}
}

// union merges sets (either may be nil).
func union(a, b *Positions) *Positions {
	switch {
	case a.Len() == 0:
		return b
	case b.Len() == 0:
		return a
	}
	out := make([]int64, 0, len(a.sorted)+len(b.sorted))
	out = append(append(out, a.sorted...), b.sorted...)
	return newPositions(out)
}

// cursor walks a Positions set over batches of increasing row positions.
type cursor struct {
	set  []int64
	next int // index of the first deleted position not below the last batch's start
}

func newCursor(p *Positions) *cursor {
	if p == nil {
		return &cursor{}
	}
	return &cursor{set: p.sorted}
}

// mark sets deleted[i] for every deleted position start+i, i < n, and reports how many. Batches
// arrive in increasing position order within a file, but a split may start anywhere: the cursor
// seeks with a binary search when it falls behind.
func (c *cursor) mark(start int64, n int, deleted []bool) int {
	if len(c.set) == 0 {
		return 0
	}
	if c.next >= len(c.set) || c.set[c.next] < start || c.next > 0 && c.set[c.next-1] >= start {
		c.next, _ = slices.BinarySearch(c.set, start)
	}
	end := start + int64(n)
	count := 0
	for c.next < len(c.set) && c.set[c.next] < end {
		deleted[c.set[c.next]-start] = true
		c.next++
		count++
	}
	return count
}
