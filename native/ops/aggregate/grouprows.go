package aggregate

import "github.com/bolide-dev/bolide/native/columnar"

// groupRows counts, once per input batch, the rows of each group. With few groups (TPC-H Q1 has
// four) every avg's count, every decimal sum's isEmpty flag and every count(*) over a batch
// without nulls is the same walk of the grouping codes; the histogram does that walk once and
// each function then folds it in O(groups) instead of O(rows).
type groupRows struct {
	b    *columnar.Batch
	gids []uint32
	ng   int
	done bool
	ok   bool
	n    []int64 // rows per group, len ng (when ok)
}

// noGroupRows turns the histogram off (tests compare against the per-row walks).
var noGroupRows bool

// reset starts a new batch (nil: none): its grouping codes and the number of groups.
func (r *groupRows) reset(b *columnar.Batch, gids []uint32, ng int) {
	r.b, r.gids, r.ng, r.done, r.ok = b, gids, ng, false, false
}

// counts returns the rows per group of batch b with codes gids, or nil when the histogram does
// not pay (more groups than a fraction of the rows) or b, gids are not the batch reset to (a
// FILTER clause's subset of rows).
func (r *groupRows) counts(b *columnar.Batch, gids []uint32) []int64 {
	if noGroupRows || r == nil || b == nil || b != r.b || len(gids) != len(r.gids) || len(gids) == 0 || &gids[0] != &r.gids[0] {
		return nil
	}
	if !r.done {
		r.done = true
		// Folding costs O(groups) per function; the walk it replaces costs O(rows).
		if r.ng > len(gids)/8 {
			return nil
		}
		r.ok = true
		if cap(r.n) < r.ng {
			r.n = make([]int64, r.ng)
		}
		n := r.n[:r.ng]
		clear(n)
		for _, g := range gids {
			n[g]++
		}
		r.n = n
	}
	if !r.ok {
		return nil
	}
	return r.n
}

// addCounts adds the rows per group h (from groupRows.counts) to counts.
func addCounts(counts, h []int64) {
	counts = counts[:len(h)]
	for g, c := range h {
		counts[g] += c
	}
}
