package window

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// The functions that pick one row of the frame: first_value, last_value (First and Last over a
// window) and nth_value (NthValue), each optionally skipping nulls. Over the frames that start at
// the partition's first row, Spark adds the rows in order and keeps the value of the row picked so
// far, so, like the other frame aggregates, the pick of a frame is the running pick at the frame's
// last row. The pick is kept as a reference to the row rather than its value, so any type works
// and nothing is copied per row; only where the rows may be gone (a spilled partition read back
// piece by piece) is the value picked in earlier pieces held, as a one-row column.

// picks reports whether the aggregate op picks a row.
func (o AggOp) picks() bool { return o == AggFirst || o == AggLast || o == AggNth }

// pickAcc is the running pick of one function over a partition's rows, fed in order.
type pickAcc struct {
	f *Function
	// cnt: the rows counted for nth_value (non-null ones when nulls are skipped).
	cnt int64
	// cur: the row picked so far (NullRef: none) among the sources of the feed.
	cur columnar.RowRef
	// held: the value picked in pieces fed earlier, one row, when those pieces are not kept (the
	// source heldSrc of a feed); nil if none.
	held arrow.Array
}

// heldSrc is the gather source index of the held value in the drain's feeds (the piece's input
// is source 0).
const heldSrc = 1

func newPickAcc(f *Function) *pickAcc { return &pickAcc{f: f, cur: columnar.NullRef} }

// feed adds the rows of c, the function's input over consecutive rows and gather source src,
// restarting at the rows newPart flags (nil: none), and records the pick after each row in refs
// (nil: only the state is kept).
func (a *pickAcc) feed(c arrow.Array, src uint32, newPart []bool, refs []columnar.RowRef) {
	f := a.f
	n := c.Len()
	var bits []byte
	off := c.Data().Offset()
	if c.NullN() > 0 {
		bits = c.NullBitmapBytes()
	}
	skip := f.IgnoreNulls && bits != nil
	for r := 0; r < n; r++ {
		if newPart != nil && newPart[r] {
			a.cnt, a.cur = 0, columnar.NullRef
		}
		if !skip || bitutil.BitIsSet(bits, off+r) {
			switch f.Agg {
			case AggFirst:
				if a.cur.Src == columnar.NullSrc {
					a.cur = columnar.RowRef{Src: src, Row: uint32(r)}
				}
			case AggLast:
				a.cur = columnar.RowRef{Src: src, Row: uint32(r)}
			case AggNth:
				a.cnt++
				if a.cnt == f.Nth {
					a.cur = columnar.RowRef{Src: src, Row: uint32(r)}
				}
			}
		}
		if refs != nil {
			refs[r] = a.cur
		}
	}
	// first_value without IGNORE NULLS picks a row even when it is null: the ref stays and
	// gathers the null. With IGNORE NULLS and no non-null row yet, nothing is picked.
}

// hold makes the pick independent of c (source 0 of a drain feed, about to be dropped): a pick in
// c is copied into held, and the pick then refers to held.
func (a *pickAcc) hold(alloc memory.Allocator, c arrow.Array) error {
	if a.cur.Src != 0 {
		return nil
	}
	srcs := []arrow.Array{c}
	if a.held != nil {
		srcs = append(srcs, a.held)
	}
	v, err := columnar.Gather(alloc, srcs, []columnar.RowRef{a.cur})
	if err != nil {
		return err
	}
	a.release()
	a.held, a.cur = v, columnar.RowRef{Src: heldSrc}
	return nil
}

// sources returns the gather sources of a drain feed over c: c, then held if any.
func (a *pickAcc) sources(c arrow.Array) []arrow.Array {
	if a.held == nil {
		return []arrow.Array{c}
	}
	return []arrow.Array{c, a.held}
}

func (a *pickAcc) release() {
	if a.held != nil {
		a.held.Release()
		a.held = nil
	}
}

// computePick computes f (a picking aggregate) over seg: the running pick over the pieces'
// inputs, all kept as the gather's sources, read at each row's frame end.
func (f *Function) computePick(ctx *exec.TaskContext, seg *segment) ([]arrow.Array, error) {
	srcs := make([]arrow.Array, 0, len(seg.pieces))
	defer func() { releaseAll(srcs) }()
	for _, p := range seg.pieces {
		c, err := f.Input.Eval(ctx, p.b)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, c)
	}
	acc := newPickAcc(f)
	run := make([]columnar.RowRef, seg.rows)
	for pi, p := range seg.pieces {
		acc.feed(srcs[pi], uint32(pi), p.newPart, run[seg.starts[pi]:seg.starts[pi]+p.b.NumRows])
	}
	out := make([]arrow.Array, len(seg.pieces))
	st := rankState{seg: seg}
	g, partStart := 0, 0
	for pi, p := range seg.pieces {
		rows := p.b.NumRows
		refs := make([]columnar.RowRef, rows)
		for r := 0; r < rows; r++ {
			st.advance(p.newPart[r], p.newPeer[r])
			if p.newPart[r] {
				partStart = g
			}
			refs[r] = run[frameEnd(f.Frame, g, partStart, &st)]
			g++
		}
		col, err := columnar.Gather(ctx.Alloc, srcs, refs)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[pi] = col
	}
	return out, nil
}

// frameEnd is the segment row ending the frame of segment row g (st at g, its partition starting
// at partStart).
func frameEnd(fr Frame, g, partStart int, st *rankState) int {
	switch fr {
	case FrameRunningRange:
		return partStart + st.peerEndRow - 1
	case FramePartition:
		return partStart + st.partSize - 1
	}
	return g
}

// final returns the pick as a one-row column of type dt (null if nothing was picked); the pick
// must be held (no feed since the last hold).
func (a *pickAcc) final(alloc memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	if a.cur.Src == columnar.NullSrc || a.held == nil {
		return array.MakeArrayOfNull(alloc, dt, 1), nil
	}
	a.held.Retain()
	return a.held, nil
}

// pickedGroups are the values a RANGE-frame pick had at the ends of the peer groups the lookahead
// found, in chunks (one per piece read ahead), the first skip values already passed.
type pickedGroups struct {
	chunks []arrow.Array
	skip   int
}

func (p *pickedGroups) add(c arrow.Array) { p.chunks = append(p.chunks, c) }

// dropFirst forgets the first k values.
func (p *pickedGroups) dropFirst(k int) {
	p.skip += k
	for len(p.chunks) > 0 && p.skip >= p.chunks[0].Len() {
		p.skip -= p.chunks[0].Len()
		p.chunks[0].Release()
		p.chunks[0] = nil
		p.chunks = p.chunks[1:]
	}
}

// ref returns the gather reference (among chunks) of the k-th value not dropped.
func (p *pickedGroups) ref(k int) columnar.RowRef {
	k += p.skip
	for q, c := range p.chunks {
		if k < c.Len() {
			return columnar.RowRef{Src: uint32(q), Row: uint32(k)}
		}
		k -= c.Len()
	}
	return columnar.NullRef
}

func (p *pickedGroups) release() {
	releaseAll(p.chunks)
	p.chunks, p.skip = nil, 0
}

// advancePicks feeds a piece read ahead (b, with its peer flags) to the RANGE-frame picks and
// notes their values at the ends of the peer groups the piece closes (a peer start at row r ends
// the group before it: the pick after row r-1, or before the piece when r is 0).
func (la *lookahead) advancePicks(d *drain, b *columnar.Batch, flags *array.Boolean) error {
	w := d.w
	n := b.NumRows
	for i, acc := range la.pick {
		if acc == nil {
			continue
		}
		c, err := w.funcs[i].Input.Eval(w.ctx, b)
		if err != nil {
			return err
		}
		before := acc.cur
		refs := make([]columnar.RowRef, n)
		acc.feed(c, 0, nil, refs)
		var ends []columnar.RowRef
		for r := 0; r < n; r++ {
			if !flags.Value(r) || la.rows+r == 0 {
				continue
			}
			if r == 0 {
				ends = append(ends, before)
			} else {
				ends = append(ends, refs[r-1])
			}
		}
		if len(ends) > 0 {
			v, err := columnar.Gather(w.ctx.Alloc, acc.sources(c), ends)
			if err != nil {
				c.Release()
				return err
			}
			la.picked[i].add(v)
		}
		err = acc.hold(w.ctx.Alloc, c)
		c.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// pickColumn computes picking function i over the drain's head piece hp (groups: each row's
// peer group among the lookahead's).
func (d *drain) pickColumn(i int, f *Function, hp *loadedPiece, groups []int) (arrow.Array, error) {
	alloc := d.w.ctx.Alloc
	n := hp.b.NumRows
	refs := make([]columnar.RowRef, n)
	var srcs []arrow.Array
	switch f.Frame {
	case FramePartition:
		acc := d.partPick[i]
		if acc.cur.Src == columnar.NullSrc || acc.held == nil {
			return array.MakeArrayOfNull(alloc, f.Input.Type().Arrow(), n), nil
		}
		srcs = []arrow.Array{acc.held} // refs all {0, 0}
	case FrameRunningRows:
		srcs = []arrow.Array{hp.inputs[i]}
		if hp.pickHeld[i] != nil {
			srcs = append(srcs, hp.pickHeld[i])
		}
		refs = hp.pickRefs[i]
	case FrameRunningRange:
		pg := &d.la.picked[i]
		srcs = pg.chunks
		for r := range refs {
			refs[r] = pg.ref(groups[r])
		}
	}
	return columnar.Gather(alloc, srcs, refs)
}
