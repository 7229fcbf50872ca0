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
		r.n = histogram(r.n, gids, r.ng)
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

// histogram returns the rows per group of gids (groups below ng) in buf's storage. Consecutive
// rows count into four interleaved tables: with few groups the same counter comes back every few
// rows, and one table would make each row wait for the store of an earlier row of its group.
func histogram(buf []int64, gids []uint32, ng int) []int64 {
	if cap(buf) < 4*ng {
		buf = make([]int64, 4*ng)
	}
	buf = buf[:4*ng]
	clear(buf)
	h0, h1, h2, h3 := buf[:ng], buf[ng:2*ng], buf[2*ng:3*ng], buf[3*ng:]
	i := 0
	for ; i+4 <= len(gids); i += 4 {
		h0[gids[i]]++
		h1[gids[i+1]]++
		h2[gids[i+2]]++
		h3[gids[i+3]]++
	}
	for ; i < len(gids); i++ {
		h0[gids[i]]++
	}
	h1, h2, h3 = h1[:len(h0)], h2[:len(h0)], h3[:len(h0)]
	for g := range h0 {
		h0[g] += h1[g] + h2[g] + h3[g]
	}
	return h0
}
