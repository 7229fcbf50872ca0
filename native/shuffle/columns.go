package shuffle

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
)

// The writer's pending rows: per column, one growable typed buffer per partition, which the rows
// of each input batch are scattered into (typed loops over a selection of the batch's rows, one
// call per column, partition and batch) and which become the columns of a block without a copy.
//
// Why not columnar.Take into per-partition batches: with P partitions a batch would be cut into
// P x columns small arrays (three allocations each, ~40 rows apiece at P = 200), and every block
// would then concatenate its ~BlockRows/40 pieces; scattering copies each value once, into
// buffers that are reused from block to block.

// colWriter holds one column's pending rows for every partition.
type colWriter interface {
	// setSource makes a the column that the next appends read (a typed view, once per batch).
	setSource(a arrow.Array)
	// appendSel appends the source rows sel to partition p.
	appendSel(p int, sel []int32) error
	// appendRange appends the source rows [lo, hi) to partition p.
	appendRange(p, lo, hi int) error
	// array returns partition p's pending rows as an array over the pending memory (valid until
	// the next append or reset of p).
	array(p int) arrow.Array
	// reset empties partition p, keeping its capacity unless free is set.
	reset(p int, free bool)
	// partBytes is the capacity partition p holds (the writer tracks the total by the changes).
	partBytes(p int) int64
}

// partOverhead is the Go heap a colWriter holds per partition besides the buffers: its
// partition's struct (slice headers and counters).
func partOverhead(c column) int64 {
	switch c.layout {
	case layoutBool:
		return int64(unsafe.Sizeof(boolPending{}))
	case layoutBinary:
		return int64(unsafe.Sizeof(binaryPending{}))
	}
	return int64(unsafe.Sizeof(fixedPending[int64]{}))
}

func newColWriter(c column, parts, blockRows int) colWriter {
	switch c.layout {
	case layoutBool:
		return &boolWriter{typ: c.typ, parts: make([]boolPending, parts), blockRows: blockRows}
	case layoutBinary:
		return &binaryWriter{typ: c.typ, parts: make([]binaryPending, parts), blockRows: blockRows}
	}
	switch c.width {
	case 1:
		return newFixedWriter(c, parts, blockRows, arrow.Int8Traits.CastToBytes)
	case 2:
		return newFixedWriter(c, parts, blockRows, arrow.Int16Traits.CastToBytes)
	case 4:
		return newFixedWriter(c, parts, blockRows, arrow.Int32Traits.CastToBytes)
	case 8:
		return newFixedWriter(c, parts, blockRows, arrow.Int64Traits.CastToBytes)
	}
	return newFixedWriter(c, parts, blockRows, arrow.Decimal128Traits.CastToBytes)
}

// growCap returns a capacity for need elements: doubling from at least 64, not beyond limit
// unless need is larger.
func growCap(have, need, limit int) int {
	c := max(2*have, 64)
	if c > limit {
		c = limit
	}
	return max(c, need)
}

func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// wrap is an array over Go memory: the buffers have no allocator, so releasing it frees nothing.
func wrap(dt arrow.DataType, rows, nulls int, bufs ...[]byte) arrow.Array {
	bs := make([]*memory.Buffer, len(bufs))
	for i, b := range bufs {
		if b != nil {
			bs[i] = memory.NewBufferBytes(b)
		}
	}
	d := array.NewData(dt, rows, bs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// ---- validity ----

// srcValidity is the validity of the source column: nil bits when no row is null.
type srcValidity struct {
	bits []byte
	off  int
}

func (s *srcValidity) set(a arrow.Array) { s.bits, s.off = columnar.ValidityBits(a) }

// pendingValidity is a partition's validity bitmap, kept only once a null arrived (active).
type pendingValidity struct {
	bits   []byte
	active bool
	nulls  int
}

func (v *pendingValidity) ensure(rows, limit int) {
	need := int(bitutil.BytesForBits(int64(rows)))
	if need > cap(v.bits) {
		nb := make([]byte, need, growCap(cap(v.bits), need, int(bitutil.BytesForBits(int64(limit)))))
		copy(nb, v.bits)
		v.bits = nb
	}
	v.bits = v.bits[:need]
}

// activate starts the bitmap with n0 valid rows.
func (v *pendingValidity) activate(n0, rows, limit int) {
	v.ensure(rows, limit)
	bitutil.SetBitsTo(v.bits, 0, int64(n0), true)
	v.active = true
}

func (v *pendingValidity) appendSel(src *srcValidity, sel []int32, n0, limit int) {
	n := n0 + len(sel)
	if src.bits == nil {
		if v.active {
			v.ensure(n, limit)
			bitutil.SetBitsTo(v.bits, int64(n0), int64(len(sel)), true)
		}
		return
	}
	if !v.active {
		v.activate(n0, n, limit)
	} else {
		v.ensure(n, limit)
	}
	bits, out := src.bits, v.bits
	nulls := 0
	for i, j := range sel {
		k := n0 + i
		if bitutil.BitIsSet(bits, src.off+int(j)) {
			out[k>>3] |= 1 << (k & 7)
		} else {
			out[k>>3] &^= 1 << (k & 7)
			nulls++
		}
	}
	v.nulls += nulls
}

func (v *pendingValidity) appendRange(src *srcValidity, lo, hi, n0, limit int) {
	n := n0 + hi - lo
	if src.bits == nil {
		if v.active {
			v.ensure(n, limit)
			bitutil.SetBitsTo(v.bits, int64(n0), int64(hi-lo), true)
		}
		return
	}
	if !v.active {
		v.activate(n0, n, limit)
	} else {
		v.ensure(n, limit)
	}
	bitutil.CopyBitmap(src.bits, src.off+lo, hi-lo, v.bits, n0)
	v.nulls += (hi - lo) - bitutil.CountSetBits(v.bits, n0, hi-lo)
}

// buffer returns the bitmap for an array and its null count (nil when no row is null).
func (v *pendingValidity) buffer() ([]byte, int) {
	if v.nulls == 0 {
		return nil, 0
	}
	return v.bits, v.nulls
}

func (v *pendingValidity) reset(free bool) {
	v.active, v.nulls = false, 0
	v.bits = v.bits[:0]
	if free {
		v.bits = nil
	}
}

// ---- fixed width ----

type fixedPending[T any] struct {
	vals []T
	pendingValidity
}

type fixedWriter[T any] struct {
	typ       arrow.DataType
	parts     []fixedPending[T]
	blockRows int
	toBytes   func([]T) []byte // arrow's CastToBytes of T
	src       []T
	valid     srcValidity
}

func newFixedWriter[T any](c column, parts, blockRows int, toBytes func([]T) []byte) *fixedWriter[T] {
	return &fixedWriter[T]{typ: c.typ, parts: make([]fixedPending[T], parts), blockRows: blockRows, toBytes: toBytes}
}

func (w *fixedWriter[T]) setSource(a arrow.Array) {
	w.src = columnar.Values[T](a)
	w.valid.set(a)
}

func (w *fixedWriter[T]) grow(p *fixedPending[T], n int) []T {
	n0 := len(p.vals)
	if n0+n > cap(p.vals) {
		nv := make([]T, n0, growCap(cap(p.vals), n0+n, w.blockRows))
		copy(nv, p.vals)
		p.vals = nv
	}
	p.vals = p.vals[:n0+n]
	return p.vals[n0:]
}

func (w *fixedWriter[T]) appendSel(pi int, sel []int32) error {
	p := &w.parts[pi]
	n0 := len(p.vals)
	out, src := w.grow(p, len(sel)), w.src
	for i, j := range sel {
		out[i] = src[j]
	}
	p.appendSel(&w.valid, sel, n0, w.blockRows)
	return nil
}

func (w *fixedWriter[T]) appendRange(pi, lo, hi int) error {
	p := &w.parts[pi]
	n0 := len(p.vals)
	copy(w.grow(p, hi-lo), w.src[lo:hi])
	p.appendRange(&w.valid, lo, hi, n0, w.blockRows)
	return nil
}

func (w *fixedWriter[T]) array(pi int) arrow.Array {
	p := &w.parts[pi]
	bits, nulls := p.buffer()
	return wrap(w.typ, len(p.vals), nulls, bits, w.toBytes(p.vals))
}

func (w *fixedWriter[T]) reset(pi int, free bool) {
	p := &w.parts[pi]
	p.pendingValidity.reset(free)
	p.vals = p.vals[:0]
	if free {
		p.vals = nil
	}
}

func (w *fixedWriter[T]) partBytes(pi int) int64 {
	p := &w.parts[pi]
	return int64(cap(p.vals))*int64(sizeOf[T]()) + int64(cap(p.bits))
}

// ---- boolean ----

type boolPending struct {
	bits []byte
	rows int
	pendingValidity
}

type boolWriter struct {
	typ       arrow.DataType
	parts     []boolPending
	blockRows int
	src       []byte
	srcOff    int
	valid     srcValidity
}

func (w *boolWriter) setSource(a arrow.Array) {
	w.src, w.srcOff = columnar.BoolBits(a)
	w.valid.set(a)
}

func (w *boolWriter) grow(p *boolPending, n int) {
	need := int(bitutil.BytesForBits(int64(p.rows + n)))
	if need > cap(p.bits) {
		nb := make([]byte, need, growCap(cap(p.bits), need, int(bitutil.BytesForBits(int64(w.blockRows)))))
		copy(nb, p.bits)
		p.bits = nb
	}
	p.bits = p.bits[:need]
}

func (w *boolWriter) appendSel(pi int, sel []int32) error {
	p := &w.parts[pi]
	n0 := p.rows
	w.grow(p, len(sel))
	for i, j := range sel {
		bitutil.SetBitTo(p.bits, n0+i, bitutil.BitIsSet(w.src, w.srcOff+int(j)))
	}
	p.rows += len(sel)
	p.appendSel(&w.valid, sel, n0, w.blockRows)
	return nil
}

func (w *boolWriter) appendRange(pi, lo, hi int) error {
	p := &w.parts[pi]
	n0 := p.rows
	w.grow(p, hi-lo)
	bitutil.CopyBitmap(w.src, w.srcOff+lo, hi-lo, p.bits, n0)
	p.rows += hi - lo
	p.appendRange(&w.valid, lo, hi, n0, w.blockRows)
	return nil
}

func (w *boolWriter) array(pi int) arrow.Array {
	p := &w.parts[pi]
	bits, nulls := p.buffer()
	return wrap(w.typ, p.rows, nulls, bits, p.bits)
}

func (w *boolWriter) reset(pi int, free bool) {
	p := &w.parts[pi]
	p.pendingValidity.reset(free)
	p.bits, p.rows = p.bits[:0], 0
	if free {
		p.bits = nil
	}
}

func (w *boolWriter) partBytes(pi int) int64 {
	return int64(cap(w.parts[pi].bits) + cap(w.parts[pi].pendingValidity.bits))
}

// ---- string and binary ----

type binaryPending struct {
	offs []int32 // rows+1 entries once a row arrived
	data []byte
	pendingValidity
}

type binaryWriter struct {
	typ       arrow.DataType
	parts     []binaryPending
	blockRows int
	srcOffs   []int32
	srcData   []byte
	valid     srcValidity
}

func (w *binaryWriter) setSource(a arrow.Array) {
	w.srcOffs, w.srcData = columnar.BinaryParts(a)
	w.valid.set(a)
}

// grow makes room for n more rows of total data bytes and returns the first new row's index.
func (w *binaryWriter) grow(p *binaryPending, n, total int) (int, error) {
	if len(p.offs) == 0 {
		p.offs = append(p.offs, 0)
	}
	n0 := len(p.offs) - 1
	if n0+1+n > cap(p.offs) {
		no := make([]int32, n0+1, growCap(cap(p.offs), n0+1+n, w.blockRows+1))
		copy(no, p.offs)
		p.offs = no
	}
	used := len(p.data)
	if used+total > math.MaxInt32 {
		return 0, fmt.Errorf("a shuffle block's %s column would hold over 2 GiB of values", w.typ)
	}
	if used+total > cap(p.data) {
		nd := make([]byte, used, max(2*cap(p.data), used+total, 1024))
		copy(nd, p.data)
		p.data = nd
	}
	return n0, nil
}

func (w *binaryWriter) appendSel(pi int, sel []int32) error {
	p := &w.parts[pi]
	offs, data := w.srcOffs, w.srcData
	total := 0
	for _, j := range sel {
		total += int(offs[j+1] - offs[j])
	}
	n0, err := w.grow(p, len(sel), total)
	if err != nil {
		return err
	}
	end := int32(len(p.data))
	out := p.data[:len(p.data)+total]
	for _, j := range sel {
		end += int32(copy(out[end:], data[offs[j]:offs[j+1]]))
		p.offs = append(p.offs, end)
	}
	p.data = out
	p.appendSel(&w.valid, sel, n0, w.blockRows)
	return nil
}

func (w *binaryWriter) appendRange(pi, lo, hi int) error {
	p := &w.parts[pi]
	offs := w.srcOffs
	total := int(offs[hi] - offs[lo])
	n0, err := w.grow(p, hi-lo, total)
	if err != nil {
		return err
	}
	base := int32(len(p.data)) - offs[lo]
	p.data = append(p.data, w.srcData[offs[lo]:offs[hi]]...)
	for _, o := range offs[lo+1 : hi+1] {
		p.offs = append(p.offs, o+base)
	}
	p.appendRange(&w.valid, lo, hi, n0, w.blockRows)
	return nil
}

func (w *binaryWriter) array(pi int) arrow.Array {
	p := &w.parts[pi]
	bits, nulls := p.buffer()
	rows := max(len(p.offs)-1, 0)
	return wrap(w.typ, rows, nulls, bits, arrow.Int32Traits.CastToBytes(p.offs), p.data)
}

func (w *binaryWriter) reset(pi int, free bool) {
	p := &w.parts[pi]
	p.pendingValidity.reset(free)
	p.offs, p.data = p.offs[:0], p.data[:0]
	if free {
		p.offs, p.data = nil, nil
	}
}

func (w *binaryWriter) partBytes(pi int) int64 {
	p := &w.parts[pi]
	return int64(cap(p.offs))*4 + int64(cap(p.data)) + int64(cap(p.bits))
}
