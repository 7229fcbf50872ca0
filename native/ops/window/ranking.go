package window

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/exec"
)

// The ranking functions (RowNumber, Rank, DenseRank, NTile, PercentRank, CumeDist), computed in
// one typed pass over a segment's rows.

// rankState walks a segment's rows: the position of the current row in its partition and peer
// group, and the sizes of both.
type rankState struct {
	seg                  *segment
	part, peer           int // indexes into seg.partSizes, seg.peerSizes
	rowInPart            int // 0-based
	rank, dense          int // 1-based rank and dense rank of the current row
	partSize, peerEndRow int // peerEndRow: rows of the partition up to the end of the peer group
}

// advance moves to the next row, given its flags.
func (s *rankState) advance(newPart, newPeer bool) {
	if newPart {
		s.partSize = s.seg.partSizes[s.part]
		s.part++
		s.rowInPart = 0
		s.dense = 0
		s.peerEndRow = 0
	} else {
		s.rowInPart++
	}
	if newPeer {
		s.rank = s.rowInPart + 1
		s.dense++
		s.peerEndRow += s.seg.peerSizes[s.peer]
		s.peer++
	}
}

// computeRanking fills one column per piece with f's values.
func (f *Function) computeRanking(ctx *exec.TaskContext, seg *segment) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(seg.pieces))
	st := rankState{seg: seg}
	for pi, p := range seg.pieces {
		n := p.b.NumRows
		if f.Kind == PercentRank || f.Kind == CumeDist {
			col, vals := float64Column(ctx.Alloc, n)
			out[pi] = col
			for r := 0; r < n; r++ {
				st.advance(p.newPart[r], p.newPeer[r])
				if f.Kind == CumeDist {
					vals[r] = float64(st.peerEndRow) / float64(st.partSize)
				} else if st.partSize > 1 {
					vals[r] = float64(st.rank-1) / float64(st.partSize-1)
				} else {
					vals[r] = 0
				}
			}
			continue
		}
		col, vals := int32Column(ctx.Alloc, n)
		out[pi] = col
		for r := 0; r < n; r++ {
			st.advance(p.newPart[r], p.newPeer[r])
			switch f.Kind {
			case RowNumber:
				vals[r] = int32(st.rowInPart + 1)
			case Rank:
				vals[r] = int32(st.rank)
			case DenseRank:
				vals[r] = int32(st.dense)
			case NTile:
				vals[r] = int32(ntile(st.rowInPart, st.partSize, f.Buckets))
			}
		}
	}
	return out, nil
}

// ntile is Spark's NTile bucket of row r (0-based) of a partition of n rows in k buckets: the first
// n%k buckets hold n/k+1 rows, the others n/k.
func ntile(r, n int, k int64) int {
	if int64(n) < k {
		return r + 1
	}
	size, pad := n/int(k), n%int(k)
	if r < pad*(size+1) {
		return r/(size+1) + 1
	}
	return pad + (r-pad*(size+1))/size + 1
}
