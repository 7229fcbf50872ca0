package window

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// segment is a run of whole partitions, as pieces, with the sizes of its partitions and peer
// groups in row order (the functions walk the rows with cursors into these).
type segment struct {
	pieces    []piece
	starts    []int // starts[i]: the segment row of pieces[i]'s first row
	rows      int
	partSizes []int
	peerSizes []int
}

func newSegment(pieces []piece) *segment {
	s := &segment{pieces: pieces, starts: make([]int, len(pieces))}
	for i, p := range pieces {
		s.starts[i] = s.rows
		s.rows += p.b.NumRows
		for r := range p.newPart {
			if p.newPart[r] {
				s.partSizes = append(s.partSizes, 0)
			}
			if p.newPeer[r] {
				s.peerSizes = append(s.peerSizes, 0)
			}
			s.partSizes[len(s.partSizes)-1]++
			s.peerSizes[len(s.peerSizes)-1]++
		}
	}
	return s
}

// int32Column and float64Column allocate a column of n non-null values from alloc and return it
// with its values to fill.
func int32Column(alloc memory.Allocator, n int) (arrow.Array, []int32) {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(n * 4)
	vals := arrow.Int32Traits.CastFromBytes(buf.Bytes())[:n]
	d := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	a := array.MakeFromData(d)
	d.Release()
	buf.Release()
	return a, vals
}

func float64Column(alloc memory.Allocator, n int) (arrow.Array, []float64) {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(n * 8)
	vals := arrow.Float64Traits.CastFromBytes(buf.Bytes())[:n]
	d := array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	a := array.MakeFromData(d)
	d.Release()
	buf.Release()
	return a, vals
}
