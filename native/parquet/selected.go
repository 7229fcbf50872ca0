package parquet

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"
)

// Late materialization, the reader's half (the filter's is in package ops). A batch's columns can
// be read three ways besides whole (column.read):
//   - skip: the cursor moves past the rows without converting a value;
//   - codes: a dictionary-encoded column gives its dictionary indexes, one per row, and its
//     dictionary once per row group as an Arrow array (with a null entry last, a null row's code),
//     so that a predicate is evaluated once per distinct value;
//   - readSelected: only the rows that survived a filter are converted. A dictionary is then
//     converted entry by entry when few rows are wanted (a price column's dictionary holds about
//     as many values as its row group has rows), not as a whole.

// selectiveDecoder is a decoder that converts only some rows of a batch.
type selectiveDecoder interface {
	readSelected(c *cursor, n int, sel []int32, mem memory.Allocator) (arrow.Array, error)
}

// dictDecoder is a decoder that gives the current dictionary as an Arrow array of the column's
// type, with one null entry after the dictionary's values.
type dictDecoder interface {
	dictArray(c *cursor, mem memory.Allocator) (arrow.Array, error)
}

// skip moves the column past n rows without decoding their values.
func (c *column) skip(n int, mem memory.Allocator) error {
	if c.nest != nil {
		a, err := c.nest.read(n, mem)
		if a != nil {
			a.Release()
		}
		return err
	}
	if c.leaf == nil {
		return nil
	}
	return c.cur.skip(n)
}

// selective reports whether readSelected converts the selected rows only (a flat column whose
// decoder is a selectiveDecoder) rather than decoding the whole batch and gathering.
func (c *column) selective() bool {
	_, ok := c.dec.(selectiveDecoder)
	return ok && c.nest == nil && c.leaf != nil
}

// readSelected decodes the rows sel (increasing, below n) of the next n rows.
func (c *column) readSelected(n int, sel []int32, mem memory.Allocator) (arrow.Array, error) {
	if c.leaf == nil && c.nest == nil {
		return array.MakeArrayOfNull(mem, c.dt, len(sel)), nil
	}
	if sd, ok := c.dec.(selectiveDecoder); ok && c.nest == nil {
		return sd.readSelected(&c.cur, n, sel, mem)
	}
	a, err := c.read(n, mem)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return columnar.Take(mem, a, sel)
}

// codes reads the next n rows as dictionary codes, into dst (len n) or as a view of the page's
// own indexes (valid until the column's next read), when the column's pages are
// dictionary-encoded: dict is the dictionary (cached per row group), a null row's code its last
// entry. ok is false, and nothing is read, when the next page is not dictionary-encoded. When a
// page that is not comes after pages that were (parquet-mr falls back to plain encoding when a
// dictionary grows too big), the rows are decoded as values instead, returned as arr.
func (c *column) codes(n int, dst []int32, mem memory.Allocator) (codes []int32, dict arrow.Array, ok bool, arr arrow.Array, err error) {
	dd, isDict := c.dec.(dictDecoder)
	if c.nest != nil || c.leaf == nil || !isDict {
		return nil, nil, false, nil, nil
	}
	cur := &c.cur
	var of *dictionary
	var nd uint32
	if err := cur.flushSkip(); err != nil {
		return nil, nil, false, nil, err
	}
	for pos := 0; pos < n; {
		if cur.row == cur.nrows {
			if err := cur.load(); err != nil {
				return nil, nil, false, nil, err
			}
		}
		if cur.idx == nil || (of != nil && cur.dict != of) {
			if pos == 0 {
				return nil, nil, false, nil, nil
			}
			arr, err := c.codesThenValues(dict, dst[:pos], n-pos, mem)
			return nil, nil, false, arr, err
		}
		if of == nil {
			if dict, err = c.dictFor(dd, mem); err != nil {
				return nil, nil, false, nil, err
			}
			of = cur.dict
			nd = uint32(dict.Len() - 1)
		}
		ch, err := cur.advance(n - pos)
		if err != nil {
			return nil, nil, false, nil, err
		}
		idx := cur.idx[cur.val : cur.val+ch.m]
		if pos == 0 && ch.k == n && ch.m == ch.k {
			// The whole batch in one page without nulls: the page's indexes are the codes.
			if !codesBelow(idx, nd) {
				return nil, nil, false, nil, fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", nd, pq.ErrCorrupted)
			}
			cur.consume(ch)
			return idx, dict, true, nil, nil
		}
		out := dst[pos : pos+ch.k]
		bad := false
		if ch.m == ch.k {
			// A batch across pages: copied, then checked as a whole (a check per code in the
			// copy's loop cost more than both).
			copy(out, idx)
			bad = !codesBelow(out, nd)
		} else {
			j := 0
			for i, lv := range ch.def {
				if lv == cur.maxDef {
					x := idx[j]
					j++
					bad = bad || uint32(x) >= nd
					out[i] = x
				} else {
					out[i] = int32(nd)
				}
			}
		}
		if bad {
			return nil, nil, false, nil, fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", nd, pq.ErrCorrupted)
		}
		cur.consume(ch)
		pos += ch.k
	}
	return dst[:n], dict, true, nil, nil
}

// codesBelow reports whether every index is below nd.
func codesBelow(idx []int32, nd uint32) bool {
	return columnar.CodesBelow(idx, int(nd))
}

// codesThenValues builds the batch's column from the codes read so far and the values of the
// rest rows.
func (c *column) codesThenValues(dict arrow.Array, codes []int32, rest int, mem memory.Allocator) (arrow.Array, error) {
	head, err := columnar.Take(mem, dict, codes)
	if err != nil {
		return nil, err
	}
	defer head.Release()
	tail, err := c.dec.read(&c.cur, rest, mem)
	if err != nil {
		return nil, err
	}
	defer tail.Release()
	return array.Concatenate([]arrow.Array{head, tail}, mem)
}

// dictFor returns the current page's dictionary as an Arrow array, built once per dictionary.
func (c *column) dictFor(dd dictDecoder, mem memory.Allocator) (arrow.Array, error) {
	if c.dictArr != nil && c.dictArrOf == c.cur.dict {
		return c.dictArr, nil
	}
	c.releaseDict()
	a, err := dd.dictArray(&c.cur, mem)
	if err != nil {
		return nil, err
	}
	c.dictArr, c.dictArrOf = a, c.cur.dict
	return a, nil
}

func (c *column) releaseDict() {
	if c.dictArr != nil {
		c.dictArr.Release()
		c.dictArr, c.dictArrOf = nil, nil
	}
}

// valueIndexes writes, for each selected row of a chunk (rows, relative to the chunk's first row
// base), the index of its value among the chunk's values, or -1 when the row is null.
func valueIndexes(ch chunk, maxDef byte, rows []int32, base int32, dst []int32) {
	if ch.m == ch.k {
		for q, r := range rows {
			dst[q] = r - base
		}
		return
	}
	cnt, p := int32(0), int32(0)
	for q, r := range rows {
		r -= base
		for ; p < r; p++ {
			if ch.def[p] == maxDef {
				cnt++
			}
		}
		if ch.def[r] == maxDef {
			dst[q] = cnt
		} else {
			dst[q] = -1
		}
	}
}

// selWalk splits an increasing selection over the chunks of a batch.
type selWalk struct {
	sel []int32
	j   int
}

// gap is the number of rows from pos on, before the next selected row (or the batch's end n).
func (w *selWalk) gap(pos, n int) int {
	if w.j < len(w.sel) {
		return int(w.sel[w.j]) - pos
	}
	return n - pos
}

// next returns the selected rows below end.
func (w *selWalk) next(end int) []int32 {
	e := len(w.sel)
	if e > w.j && int(w.sel[e-1]) >= end {
		// Not every remaining row: the first at or past end, by binary search (a dense
		// selection's chunk holds thousands of rows).
		lo, hi := w.j, e-1 // sel[hi] >= end
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if int(w.sel[m]) < end {
				lo = m + 1
			} else {
				hi = m
			}
		}
		e = lo
	}
	rows := w.sel[w.j:e]
	w.j = e
	return rows
}

// picked is the selected rows of one chunk, handed to a decoder's pick.
type picked struct {
	ch   chunk
	at   int     // the position in sel of the first one
	rows []int32 // the rows, relative to the batch
	base int32   // the batch row of the chunk's first row
	// vi is the rows' value indexes among the chunk's values (-1: a null row), or nil when the
	// chunk has no null row: a row's value index is then row-base, which the hot loops compute
	// as they go instead of reading it from a slice written first.
	vi []int32
}

// indexes returns the value indexes, written to *buf when the chunk has no null row.
func (p *picked) indexes(buf *[]int32) []int32 {
	if p.vi != nil {
		return p.vi
	}
	*buf = grow(*buf, len(p.rows))
	vi := (*buf)[:len(p.rows)]
	for q, r := range p.rows {
		vi[q] = r - p.base
	}
	return vi
}

// walkSelected moves the cursor over the next n rows, skipping the stretches without a
// selected row, and calls pick for each chunk of a page that holds selected rows; their
// validity goes to valid.
func walkSelected(c *cursor, n int, sel []int32, vidx *[]int32, valid *selValidity, mem memory.Allocator,
	pick func(p *picked) error) error {
	var p picked
	w := selWalk{sel: sel}
	for pos := 0; pos < n; {
		if g := w.gap(pos, n); g > 0 {
			if err := c.skip(g); err != nil {
				return err
			}
			pos += g
			continue
		}
		ch, err := c.advance(n - pos)
		if err != nil {
			return err
		}
		at := w.j
		if rows := w.next(pos + ch.k); len(rows) > 0 {
			p = picked{ch: ch, at: at, rows: rows, base: int32(pos)}
			if ch.m != ch.k {
				*vidx = grow(*vidx, len(rows))
				p.vi = (*vidx)[:len(rows)]
				valueIndexes(ch, c.maxDef, rows, int32(pos), p.vi)
			}
			if err := pick(&p); err != nil {
				return err
			}
			if p.vi != nil {
				valid.add(mem, at, p.vi, len(sel))
			}
		}
		c.consume(ch)
		pos += ch.k
	}
	return nil
}

// selValidity is the validity bitmap of a selected read: nil until the first null.
type selValidity struct {
	buf   *memory.Buffer
	bits  []byte
	nulls int
}

func (v *selValidity) add(mem memory.Allocator, at int, vi []int32, total int) {
	for q, x := range vi {
		if x >= 0 {
			continue
		}
		if v.buf == nil {
			v.buf = newBuffer(mem, int(bitutil.BytesForBits(int64(total))))
			v.bits = v.buf.Bytes()
			bitutil.SetBitsTo(v.bits, 0, int64(total), true)
		}
		bitutil.ClearBit(v.bits, at+q)
		v.nulls++
	}
}

// ---- fixed width ----------------------------------------------------------------------------

func (d *fixedDecoder[T]) readSelected(c *cursor, n int, sel []int32, mem memory.Allocator) (arrow.Array, error) {
	var zero T
	m := len(sel)
	vb := newOutBuffer(mem, m*int(unsafe.Sizeof(zero)))
	out := viewAs[T](vb.Bytes(), m)
	var valid selValidity
	fail := func(err error) (arrow.Array, error) {
		vb.Release()
		releaseBuf(valid.buf)
		return nil, err
	}
	err := walkSelected(c, n, sel, &d.vidx, &valid, mem, func(p *picked) error {
		return d.pick(c, p, out[p.at:p.at+len(p.rows)], m, n)
	})
	if err != nil {
		return fail(err)
	}
	return makeArray(d.dt, m, valid.nulls, valid.buf, vb), nil
}

// pick converts the selected values of a chunk into dst; wanted is the number of rows the
// whole batch selects, of its n.
func (d *fixedDecoder[T]) pick(c *cursor, p *picked, dst []T, wanted, n int) error {
	var zero T
	ch := p.ch
	if c.idx != nil {
		idx := c.idx[c.val : c.val+ch.m]
		if d.fromI64 && p.vi == nil {
			raw := &c.dict.vals
			if !gatherWiden(any(dst).([]decimal128.Num), p.rows, p.base, idx, viewAs[int64](raw.data, raw.n)) {
				return fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", raw.n, pq.ErrCorrupted)
			}
			return nil
		}
		// Converting the whole dictionary pays when the batches of its row group want about as
		// many rows as it has values, which a batch that wants most of its rows predicts (a
		// price column's dictionary is larger than a batch, but not than the row group).
		if d.dictOf != c.dict && (wanted*8 >= c.dict.vals.n || 2*wanted >= n) {
			if err := d.loadDict(c); err != nil {
				return err
			}
		}
		if d.dictOf == c.dict {
			nd := uint32(len(d.dict))
			if p.vi == nil {
				if !gatherRows(dst, p.rows, p.base, idx, d.dict) {
					return fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", nd, pq.ErrCorrupted)
				}
				return nil
			}
			for q, v := range p.vi {
				if v < 0 {
					dst[q] = zero
					continue
				}
				x := uint32(idx[v])
				if x >= nd {
					return fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", nd, pq.ErrCorrupted)
				}
				dst[q] = d.dict[x]
			}
			return nil
		}
		raw := &c.dict.vals
		for q, v := range p.indexes(&d.vidx2) {
			if v < 0 {
				dst[q] = zero
				continue
			}
			x := int(idx[v])
			if x < 0 || x >= raw.n {
				return fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", raw.n, pq.ErrCorrupted)
			}
			if err := d.conv(dst[q:q+1], raw, x, x+1); err != nil {
				return err
			}
		}
		return nil
	}
	if len(p.rows) == ch.k && ch.m == ch.k {
		// Every value of the chunk (a dense selection's chunk without a gap): converted
		// straight into dst.
		return d.conv(dst, &c.vals, c.val, c.val+ch.m)
	}
	vi := p.indexes(&d.vidx2)
	if len(vi)*4 >= ch.m {
		d.scratch = grow(d.scratch, ch.m)
		if err := d.conv(d.scratch, &c.vals, c.val, c.val+ch.m); err != nil {
			return err
		}
		for q, v := range vi {
			if v < 0 {
				dst[q] = zero
			} else {
				dst[q] = d.scratch[v]
			}
		}
		return nil
	}
	for q, v := range vi {
		if v < 0 {
			dst[q] = zero
			continue
		}
		x := c.val + int(v)
		if err := d.conv(dst[q:q+1], &c.vals, x, x+1); err != nil {
			return err
		}
	}
	return nil
}

// gatherWiden is gatherRows from an INT64 dictionary, widening to decimal128 (fixedDecoder.fromI64).
func gatherWiden(dst []decimal128.Num, rows []int32, base int32, idx []int32, dict []int64) bool {
	nd := uint32(len(dict))
	dst = dst[:len(rows)]
	for q, r := range rows {
		x := uint32(idx[r-base])
		if x >= nd {
			return false
		}
		dst[q] = widenI64(dict[x])
	}
	return true
}

// gatherRows writes dict[idx[r-base]] for each selected row r of a chunk without null rows
// to dst; false when an index is out of the dictionary.
func gatherRows[T any](dst []T, rows []int32, base int32, idx []int32, dict []T) bool {
	nd := uint32(len(dict))
	dst = dst[:len(rows)]
	for q, r := range rows {
		x := uint32(idx[r-base])
		if x >= nd {
			return false
		}
		dst[q] = dict[x]
	}
	return true
}

func (d *fixedDecoder[T]) dictArray(c *cursor, mem memory.Allocator) (arrow.Array, error) {
	var zero T
	if c.dict == d.dictOf {
		nd := len(d.dict)
		vb := newOutBuffer(mem, (nd+1)*int(unsafe.Sizeof(zero)))
		out := viewAs[T](vb.Bytes(), nd+1)
		copy(out, d.dict)
		out[nd] = zero
		return makeArray(d.dt, nd+1, 1, dictValidity(mem, nd), vb), nil
	}
	// Not converted yet: converted straight into the array (a column read as codes only never
	// needs the decoder's own copy; a price column's dictionary is as large as its row group).
	raw := &c.dict.vals
	nd := raw.n
	vb := newOutBuffer(mem, (nd+1)*int(unsafe.Sizeof(zero)))
	out := viewAs[T](vb.Bytes(), nd+1)
	if err := d.conv(out[:nd], raw, 0, nd); err != nil {
		vb.Release()
		return nil, err
	}
	out[nd] = zero
	return makeArray(d.dt, nd+1, 1, dictValidity(mem, nd), vb), nil
}

// dictValidity is the validity of a dictionary array: nd valid entries, then the null one.
func dictValidity(mem memory.Allocator, nd int) *memory.Buffer {
	b := newOutBuffer(mem, int(bitutil.BytesForBits(int64(nd+1))))
	bits := b.Bytes()
	clear(bits)
	bitutil.SetBitsTo(bits, 0, int64(nd), true)
	return b
}

// ---- strings and binary -----------------------------------------------------------------------

func (d *bytesDecoder) readSelected(c *cursor, n int, sel []int32, mem memory.Allocator) (arrow.Array, error) {
	m := len(sel)
	ob := newOutBuffer(mem, (m+1)*4)
	offs := viewAs[int32](ob.Bytes(), m+1)
	offs[0] = 0
	sink := newByteSink(mem, max(64, m*max(d.avgBytes, 8)))
	var valid selValidity
	fail := func(err error) (arrow.Array, error) {
		ob.Release()
		sink.buf.Release()
		releaseBuf(valid.buf)
		return nil, err
	}
	err := walkSelected(c, n, sel, &d.vidx, &valid, mem, func(p *picked) error {
		return d.pick(c, p, offs[p.at:p.at+len(p.rows)+1], &sink)
	})
	if err != nil {
		return fail(err)
	}
	sink.buf.ResizeNoShrink(sink.n)
	if m > 0 {
		d.avgBytes = sink.n/m + 1
	}
	return makeArray(d.dt, m, valid.nulls, valid.buf, ob, sink.buf), nil
}

// pick appends the values vi of the chunk (-1: a null row, no bytes); offs[0] is set, offs[1:]
// receive the row ends.
func (d *bytesDecoder) pick(c *cursor, p *picked, offs []int32, sink *byteSink) error {
	ch := p.ch
	var data []byte
	var voffs []uint32
	var nv uint32
	size := 0
	skip := uint32(0) // bytes before each value (rawVals.prefixed)
	var idx []int32
	switch {
	case c.idx != nil:
		if c.dict != d.dictOf {
			if err := d.loadDict(c); err != nil {
				return err
			}
		}
		idx = c.idx[c.val : c.val+ch.m]
		data, voffs, nv = d.dictData, d.dictOffs, uint32(d.dictN)
		if d.fixed {
			size = d.size
		}
	case d.fixed:
		data, size, nv = c.vals.data, c.vals.size, uint32(c.vals.n)
	default:
		data, voffs, nv = c.vals.data, c.vals.offsets, uint32(c.vals.n)
		if c.vals.prefixed {
			skip = 4
		}
	}
	if idx != nil && size == 0 && p.vi == nil && d.uniform >= 0 && d.uniform <= 8 {
		return d.pickUniform(idx, p.rows, p.base, offs, sink)
	}
	vi := p.indexes(&d.vidx2)
	cur := int64(offs[0])
	for q, v := range vi {
		if v >= 0 {
			x := uint32(c.val) + uint32(v)
			if idx != nil {
				x = uint32(idx[v])
			}
			if x >= nv {
				return fmt.Errorf("value %d out of range (%d values): %w", x, nv, pq.ErrCorrupted)
			}
			var b []byte
			if size > 0 {
				b = data[int(x)*size : int(x)*size+size]
			} else {
				lo, hi := voffs[x]+skip, voffs[x+1]
				if lo > hi || int(hi) > len(data) {
					return fmt.Errorf("byte array offsets out of range: %w", pq.ErrCorrupted)
				}
				b = data[lo:hi]
			}
			cur += int64(len(b))
			if cur > math.MaxInt32 {
				return errOffsetOverflow
			}
			if len(b) <= 8 {
				// short values (flags, codes): avoid a memmove call
				out := sink.grab(len(b))
				for q, bb := range b {
					out[q] = bb
				}
			} else {
				sink.append(b)
			}
		}
		offs[q+1] = int32(cur)
	}
	return nil
}

// pickUniform is pick for a dictionary of short values of one length (flags such as TPC-H's
// l_returnflag, codes) and a chunk without null rows (row r's value is idx[r-base]): the output size is known up front, the
// offsets are a stride, and each value is copied by a byte loop, without a memmove call.
func (d *bytesDecoder) pickUniform(idx, rows []int32, base int32, offs []int32, sink *byteSink) error {
	l := d.uniform
	start := int64(offs[0])
	if start+int64(len(rows)*l) > math.MaxInt32 {
		return errOffsetOverflow
	}
	out := sink.grab(len(rows) * l)
	vals := d.dictData[d.dictOffs[0]:]
	nd := uint32(d.dictN)
	if uint64(len(vals)) < uint64(nd)*uint64(l) {
		return fmt.Errorf("dictionary values out of range: %w", pq.ErrCorrupted)
	}
	o := offs[1 : len(rows)+1]
	b := int32(start)
	if l == 1 {
		out = out[:len(rows)]
		for q, r := range rows {
			x := uint32(idx[r-base])
			if x >= nd {
				return fmt.Errorf("value %d out of range (%d values): %w", x, nd, pq.ErrCorrupted)
			}
			out[q] = vals[x]
			o[q] = b + int32(q+1)
		}
		return nil
	}
	for q, r := range rows {
		x := uint32(idx[r-base])
		if x >= nd {
			return fmt.Errorf("value %d out of range (%d values): %w", x, nd, pq.ErrCorrupted)
		}
		src := vals[int(x)*l : int(x)*l+l]
		dst := out[q*l : q*l+l]
		for k := range dst {
			dst[k] = src[k]
		}
		o[q] = b + int32((q+1)*l)
	}
	return nil
}

func (d *bytesDecoder) dictArray(c *cursor, mem memory.Allocator) (arrow.Array, error) {
	if c.dict != d.dictOf {
		if err := d.loadDict(c); err != nil {
			return nil, err
		}
	}
	nd := d.dictN
	ob := newOutBuffer(mem, (nd+2)*4)
	offs := viewAs[int32](ob.Bytes(), nd+2)
	var vals []byte
	if d.fixed {
		vals = d.dictData[:nd*d.size]
		for i := 0; i <= nd; i++ {
			offs[i] = int32(i * d.size)
		}
	} else if nd > 0 {
		lo := d.dictOffs[0]
		vals = d.dictData[lo:d.dictOffs[nd]]
		for i := 0; i <= nd; i++ {
			offs[i] = int32(d.dictOffs[i] - lo)
		}
	} else {
		offs[0] = 0
	}
	if int64(len(vals)) > math.MaxInt32 {
		ob.Release()
		return nil, errOffsetOverflow
	}
	offs[nd+1] = offs[nd]
	db := newOutBuffer(mem, len(vals))
	copy(db.Bytes(), vals)
	return makeArray(d.dt, nd+1, 1, dictValidity(mem, nd), ob, db), nil
}
