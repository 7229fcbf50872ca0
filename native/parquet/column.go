package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	bmem "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// rawVals are the dense (non-null) values of a page or a dictionary as parquet-go decoded them:
// PLAIN little-endian bytes for fixed-width types, bits for BOOLEAN, values + offsets for
// BYTE_ARRAY.
type rawVals struct {
	data    []byte
	offsets []uint32
	size    int // FIXED_LEN_BYTE_ARRAY width
	n       int // number of values available
	// prefixed: BYTE_ARRAY values left where a PLAIN page has them, each after its 4-byte
	// length: value i is data[offsets[i]+4 : offsets[i+1]] (pages.go indexByteArray), so that
	// they are copied once, from the page into the batch.
	prefixed bool
}

// dictionary is a column chunk's dictionary: its values as decoded (PLAIN), vals.n of them.
type dictionary struct {
	vals rawVals
}

// cursor walks the pages of one column chunk.
type cursor struct {
	pages  pq.Pages
	page   pq.Page
	leaf   *leafInfo
	width  int // physWidth
	maxDef byte

	def    []byte // definition levels of the page (nil when required)
	nrows  int    // rows in the page
	row    int    // next row of the page
	val    int    // next value (index into vals or idx)
	vals   rawVals
	idx    []int32       // dictionary indexes, when the page is dictionary-encoded
	dict   *dictionary   // the column chunk's dictionary (a new one per chunk: decoders key on it)
	pqDict pq.Dictionary // parquet-go's, which dict wraps
	bools  *rleBools     // BOOLEAN columns: decodes the values of RLE pages (see rleBools)
	nest   *levelStream  // a leaf of a nested column: levels and slots (nested.go)
	// own reads the chunk's pages instead of parquet-go (pages.go), when useOwn.
	own      *pageReader
	useOwn   bool
	skipRows int // rows to move past before the next read (skip)
}

func (c *cursor) start(pages pq.Pages) {
	c.stop()
	c.pages = pages
}

// startOwn reads the chunk's pages with the cursor's own page reader.
func (c *cursor) startOwn(ra io.ReaderAt, md *format.ColumnMetaData, window int64) {
	c.stop()
	if c.own == nil {
		c.own = pageReaders.Get().(*pageReader)
	}
	c.own.start(ra, c.leaf, md, window)
	c.useOwn = true
}

func (c *cursor) stop() {
	c.useOwn, c.skipRows = false, 0
	if c.page != nil {
		pq.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	c.def, c.idx, c.dict, c.pqDict, c.vals = nil, nil, nil, nil, rawVals{}
	c.nrows, c.row, c.val = 0, 0, 0
	if c.bools != nil {
		c.bools.stop()
	}
}

// load moves to the next page that has rows.
func (c *cursor) load() error {
	if c.page != nil {
		pq.Release(c.page)
		c.page = nil
	}
	if c.useOwn {
		return c.loadOwn()
	}
	if c.pages == nil {
		return errEOFInChunk
	}
	for {
		p, err := c.pages.ReadPage()
		if err != nil {
			if isEOF(err) {
				return errEOFInChunk
			}
			return err
		}
		var rle []byte // the values of an RLE-encoded BOOLEAN page, decoded here
		isRLE := false
		if c.bools != nil { // in step with every page parquet-go returns
			if rle, isRLE, err = c.bools.next(int(p.NumValues()-p.NumNulls()), c.maxDef); err != nil {
				pq.Release(p)
				return err
			}
		}
		n := int(p.NumRows())
		if c.nest != nil {
			n = int(p.NumValues())
		}
		if n <= 0 {
			pq.Release(p)
			continue
		}
		c.page = p
		c.nrows, c.row, c.val = n, 0, 0
		c.def = nil
		if c.nest != nil {
			if err := c.nest.page(c, p); err != nil {
				return err
			}
		} else if c.maxDef > 0 {
			c.def = p.DefinitionLevels()
			if len(c.def) != n {
				return fmt.Errorf("page has %d rows but %d definition levels: %w", n, len(c.def), pq.ErrCorrupted)
			}
		}
		pv := p.Data()
		data, offsets := pv.Data()
		if d := p.Dictionary(); d != nil {
			if d != c.pqDict {
				dv := d.Page().Data()
				data, offsets := dv.Data()
				raw := makeRaw(c.leaf, c.width, data, offsets)
				raw.n = min(raw.n, d.Len())
				c.dict, c.pqDict = &dictionary{vals: raw}, d
			}
			c.idx = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(data))), len(data)/4)
			c.vals = rawVals{n: len(c.idx), size: c.leaf.typeLen}
		} else {
			c.idx = nil
			c.vals = makeRaw(c.leaf, c.width, data, offsets)
			if isRLE {
				c.vals = rawVals{data: rle, n: int(p.NumValues() - p.NumNulls())}
			}
		}
		return nil
	}
}

// loadOwn moves to the next page with rows, read by the cursor's own page reader.
func (c *cursor) loadOwn() error {
	pg, err := c.own.next(c)
	if err != nil {
		return err
	}
	c.nrows, c.row, c.val = pg.n, 0, 0
	c.def = pg.def
	if pg.idx != nil {
		c.idx = pg.idx
		c.vals = rawVals{n: len(pg.idx), size: c.leaf.typeLen}
	} else {
		c.idx = nil
		c.vals = pg.vals
	}
	return nil
}

func makeRaw(l *leafInfo, width int, data []byte, offsets []uint32) rawVals {
	v := rawVals{data: data, offsets: offsets, size: l.typeLen}
	switch {
	case l.phys == format.Boolean:
		v.n = len(data) * 8
	case l.phys == format.ByteArray:
		if len(offsets) > 0 {
			v.n = len(offsets) - 1
		}
	case width > 0:
		v.n = len(data) / width
	}
	return v
}

// chunk is the part of a page that goes into the current batch: k rows holding m values.
type chunk struct {
	def  []byte // nil when the column is required
	k, m int
}

// advance returns the next chunk of at most want rows, loading a page when needed.
func (c *cursor) advance(want int) (chunk, error) {
	if c.skipRows > 0 {
		if err := c.flushSkip(); err != nil {
			return chunk{}, err
		}
	}
	if c.row == c.nrows {
		if err := c.load(); err != nil {
			return chunk{}, err
		}
	}
	k := min(want, c.nrows-c.row)
	ch := chunk{k: k, m: k}
	if c.def != nil {
		ch.def = c.def[c.row : c.row+k]
		ch.m = countDefined(ch.def, c.maxDef)
	}
	if c.val+ch.m > c.vals.n {
		return chunk{}, fmt.Errorf("page declares %d values but holds %d: %w", c.val+ch.m, c.vals.n, pq.ErrCorrupted)
	}
	return ch, nil
}

// skip moves the cursor n rows on without decoding them. With the cursor's own page reader the
// move is only noted: the next read makes it, skipping the whole pages in between by their
// headers (never decompressed), so that a page whose rows nobody reads is never decoded.
func (c *cursor) skip(n int) error {
	if c.useOwn {
		c.skipRows += n
		return nil
	}
	for n > 0 {
		ch, err := c.advance(n)
		if err != nil {
			return err
		}
		c.consume(ch)
		n -= ch.k
	}
	return nil
}

// flushSkip makes the move skip noted.
func (c *cursor) flushSkip() error {
	for c.skipRows > 0 {
		if c.row < c.nrows {
			k := min(c.skipRows, c.nrows-c.row)
			ch := chunk{k: k, m: k}
			if c.def != nil {
				ch.m = countDefined(c.def[c.row:c.row+k], c.maxDef)
			}
			c.consume(ch)
			c.skipRows -= k
			continue
		}
		k, err := c.own.skipPages(c.skipRows)
		if err != nil {
			return err
		}
		if c.skipRows -= k; c.skipRows == 0 {
			break
		}
		if err := c.load(); err != nil {
			return err
		}
	}
	return nil
}

func (c *cursor) consume(ch chunk) {
	c.row += ch.k
	c.val += ch.m
}

// countDefined counts the levels equal to maxDef: the non-null values among def's rows.
func countDefined(def []byte, maxDef byte) int {
	n, i := 0, 0
	if maxDef == 1 {
		// Eight levels at a time: x has a zero byte where a level is 1; the high bit of each
		// byte of z is set exactly where x's byte is zero (no borrow crosses bytes: the
		// addition works on 7 bits). Exact whatever the levels (parquet-go's are unchecked).
		const lo7, ones = 0x7F7F7F7F7F7F7F7F, 0x0101010101010101
		for ; i+8 <= len(def); i += 8 {
			x := binary.LittleEndian.Uint64(def[i:]) ^ ones
			z := ^((x&lo7 + lo7) | x | lo7)
			n += bits.OnesCount64(z)
		}
	}
	for _, d := range def[i:] {
		if d == maxDef {
			n++
		}
	}
	return n
}

// setValid sets the validity bits [pos, pos+len(def)) from definition levels.
func setValid(bits []byte, pos int, def []byte, maxDef byte) {
	for i, d := range def {
		if d == maxDef {
			j := pos + i
			bits[j>>3] |= 1 << (j & 7)
		}
	}
}

// decoder fills one output array from a cursor.
type decoder interface {
	read(c *cursor, n int, mem memory.Allocator) (arrow.Array, error)
	release()
}

// column is one output column of a reader.
type column struct {
	field sparktype.Field
	dt    arrow.DataType
	leaf  *leafInfo // nil when the column is absent from the file
	conv  conv
	up    int32 // decimals: the power of ten widening multiplies by (see widen.go)
	cur   cursor
	dec   decoder
	nest  *nestedColumn // a struct, array or map column (nested.go)
	// dictArr is the current dictionary as an Arrow array (selected.go), built for dictionary
	// codes; dictArrOf is the dictionary it was built from.
	dictArr   arrow.Array
	dictArrOf *dictionary
}

func (c *column) init() {
	c.cur.leaf = c.leaf
	c.cur.width = physWidth(c.leaf)
	c.cur.maxDef = c.leaf.maxDef
	c.dec = newDecoder(c.conv, c.dt, c.up)
}

// start moves the column to a new chunk; it reports whether the chunk's pages are read by the
// cursor's own page reader (when own allows it).
func (c *column) start(fc *pq.FileColumnChunk, md *format.ColumnMetaData, own bool, window int64) bool {
	if own && c.cur.nest == nil && ownPages(c.leaf, md) {
		c.cur.startOwn(fc.File(), md, window)
		return true
	}
	c.cur.start(fc.Pages())
	if c.leaf.phys == format.Boolean {
		if c.cur.bools == nil {
			c.cur.bools = &rleBools{}
		}
		c.cur.bools.start(fc.File(), md)
	}
	return false
}

func (c *column) stop() {
	c.releaseDict()
	c.cur.stop()
	if c.nest != nil {
		c.nest.stop()
	}
}

func (c *column) releaseScratch() {
	if c.nest != nil {
		c.nest.releaseScratch()
	}
	if c.dec != nil {
		c.dec.release()
	}
	c.cur.bools = nil
	if c.cur.own != nil {
		// The reader is done: nothing views its buffers past the chunk they hold (the next
		// chunk's pages overwrite them anyway), so the next file's reader takes them.
		c.cur.own.detach()
		pageReaders.Put(c.cur.own)
		c.cur.own = nil
	}
}

func (c *column) read(n int, mem memory.Allocator) (arrow.Array, error) {
	if c.nest != nil {
		return c.nest.read(n, mem)
	}
	if c.leaf == nil {
		return array.MakeArrayOfNull(mem, c.dt, n), nil
	}
	return c.dec.read(&c.cur, n, mem)
}

func newDecoder(cv conv, dt arrow.DataType, up int32) decoder {
	switch cv {
	case cvBool:
		return &boolDecoder{}
	case cvBytes:
		return &bytesDecoder{dt: dt}
	case cvFLBABytes:
		return &bytesDecoder{dt: dt, fixed: true}
	case cvUUID:
		return &uuidDecoder{raw: bytesDecoder{dt: arrow.BinaryTypes.Binary, fixed: true}}
	case cvI32:
		return &fixedDecoder[int32]{dt: dt, conv: convCopy[int32]}
	case cvI32toI8:
		return &fixedDecoder[int8]{dt: dt, conv: convInt32[int8]}
	case cvI32toI16:
		return &fixedDecoder[int16]{dt: dt, conv: convInt32[int16]}
	case cvI32toI64:
		return &fixedDecoder[int64]{dt: dt, conv: convInt32[int64]}
	case cvU32toI64:
		return &fixedDecoder[int64]{dt: dt, conv: convUint32toI64}
	case cvI32toF64:
		return &fixedDecoder[float64]{dt: dt, conv: convInt32[float64]}
	case cvI64:
		return &fixedDecoder[int64]{dt: dt, conv: convCopy[int64]}
	case cvI64Millis:
		return &fixedDecoder[int64]{dt: dt, conv: convMillis}
	case cvF32:
		return &fixedDecoder[float32]{dt: dt, conv: convCopy[float32]}
	case cvF32toF64:
		return &fixedDecoder[float64]{dt: dt, conv: convF32toF64}
	case cvF64:
		return &fixedDecoder[float64]{dt: dt, conv: convCopy[float64]}
	case cvDecI32:
		return &fixedDecoder[decimal128.Num]{dt: dt, conv: rescaled(convDecI32, up)}
	case cvDecI64:
		return &fixedDecoder[decimal128.Num]{dt: dt, conv: rescaled(convDecI64, up), fromI64: up == 0}
	case cvDecU64:
		return &fixedDecoder[decimal128.Num]{dt: dt, conv: convDecU64}
	case cvDecFLBA:
		return &fixedDecoder[decimal128.Num]{dt: dt, conv: rescaled(convDecFLBA, up)}
	case cvDecBA:
		return &fixedDecoder[decimal128.Num]{dt: dt, conv: rescaled(convDecBA, up)}
	case cvInt96:
		return &fixedDecoder[int64]{dt: dt, conv: convInt96}
	case cvDateToNTZ:
		return &fixedDecoder[int64]{dt: dt, conv: convDateToNTZ}
	}
	panic(fmt.Sprintf("parquet: no decoder for conversion %d", cv))
}

// ---- buffers -------------------------------------------------------------------------------

// newOutBuffer is newBuffer for an output its decoder overwrites completely (values, offsets):
// not zeroed first (bmem.NewUninitBuffer).
func newOutBuffer(mem memory.Allocator, n int) *memory.Buffer {
	return bmem.NewUninitBuffer(mem, n)
}

func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

func releaseBuf(b *memory.Buffer) {
	if b != nil {
		b.Release()
	}
}

func viewAs[T any](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// makeArray wraps buffers into an array, taking over the caller's references.
func makeArray(dt arrow.DataType, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	a := array.MakeFromData(d)
	d.Release()
	for _, b := range bufs {
		releaseBuf(b)
	}
	return a
}

// validity accumulates the validity bitmap of a batch under construction.
type validity struct {
	buf   *memory.Buffer
	bits  []byte
	nulls int
}

func newValidity(c *cursor, n int, mem memory.Allocator) validity {
	if c.maxDef == 0 {
		return validity{}
	}
	b := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	bits := b.Bytes()
	clear(bits)
	return validity{buf: b, bits: bits}
}

func (v *validity) add(pos int, ch chunk, maxDef byte) {
	if v.bits == nil {
		return
	}
	if ch.m == ch.k {
		bitutil.SetBitsTo(v.bits, int64(pos), int64(ch.k), true)
		return
	}
	setValid(v.bits, pos, ch.def, maxDef)
	v.nulls += ch.k - ch.m
}

// finish returns the bitmap to use (nil when there are no nulls).
func (v *validity) finish() *memory.Buffer {
	if v.buf != nil && v.nulls == 0 {
		v.buf.Release()
		v.buf = nil
	}
	return v.buf
}

// ---- fixed-width output --------------------------------------------------------------------

// convFunc converts the dense values [from, to) of v into dst (len(dst) == to-from).
type convFunc[T any] func(dst []T, v *rawVals, from, to int) error

type fixedDecoder[T any] struct {
	dt      arrow.DataType
	conv    convFunc[T]
	dictOf  *dictionary
	dict    []T
	scratch []T
	vidx    []int32 // readSelected (selected.go): the selected rows' value indexes
	vidx2   []int32 // the same for a chunk without nulls, when a path wants them as a slice
	// fromI64: T is decimal128.Num read from INT64 without rescaling, so a dictionary page's
	// rows are widened straight from the dictionary's INT64 values: half the bytes of a
	// converted dictionary to fetch at random (a price column's dictionary is as large as its
	// row group), and no conversion of the dictionary.
	fromI64 bool
}

func (d *fixedDecoder[T]) release() {
	d.dictOf, d.dict, d.scratch, d.vidx, d.vidx2 = nil, nil, nil, nil, nil
}

func (d *fixedDecoder[T]) loadDict(c *cursor) error {
	if c.dict == d.dictOf {
		return nil
	}
	d.dictOf = nil
	raw := &c.dict.vals
	n := raw.n
	d.dict = grow(d.dict, n)
	if err := d.conv(d.dict, raw, 0, n); err != nil {
		return err
	}
	d.dictOf = c.dict
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

func (d *fixedDecoder[T]) read(c *cursor, n int, mem memory.Allocator) (arrow.Array, error) {
	var zero T
	vb := newOutBuffer(mem, n*int(unsafe.Sizeof(zero)))
	out := viewAs[T](vb.Bytes(), n)
	valid := newValidity(c, n, mem)
	fail := func(err error) (arrow.Array, error) {
		vb.Release()
		releaseBuf(valid.buf)
		return nil, err
	}
	for pos := 0; pos < n; {
		ch, err := c.advance(n - pos)
		if err != nil {
			return fail(err)
		}
		dst := out[pos : pos+ch.k]
		switch {
		case c.idx != nil && d.fromI64 && ch.m == ch.k:
			raw := &c.dict.vals
			if !gatherWidenAll(any(dst).([]decimal128.Num), c.idx[c.val:c.val+ch.m], viewAs[int64](raw.data, raw.n)) {
				return fail(fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", raw.n, pq.ErrCorrupted))
			}
		case c.idx != nil:
			if err := d.loadDict(c); err != nil {
				return fail(err)
			}
			idx := c.idx[c.val : c.val+ch.m]
			var ok bool
			if ch.m == ch.k {
				ok = gather(dst, idx, d.dict)
			} else {
				ok = gatherSpread(dst, ch.def, c.maxDef, idx, d.dict)
			}
			if !ok {
				return fail(fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", len(d.dict), pq.ErrCorrupted))
			}
		case ch.m == ch.k:
			if err := d.conv(dst, &c.vals, c.val, c.val+ch.m); err != nil {
				return fail(err)
			}
		default:
			d.scratch = grow(d.scratch, ch.m)
			if err := d.conv(d.scratch, &c.vals, c.val, c.val+ch.m); err != nil {
				return fail(err)
			}
			spread(dst, ch.def, c.maxDef, d.scratch)
		}
		valid.add(pos, ch, c.maxDef)
		c.consume(ch)
		pos += ch.k
	}
	vbuf := valid.finish()
	return makeArray(d.dt, n, valid.nulls, vbuf, vb), nil
}

// spread writes the dense src to the defined positions of dst, zero elsewhere.
func spread[T any](dst []T, def []byte, maxDef byte, src []T) {
	var zero T
	j := 0
	for i, lv := range def {
		if lv == maxDef {
			dst[i] = src[j]
			j++
		} else {
			dst[i] = zero
		}
	}
}

func gather[T any](dst []T, idx []int32, dict []T) bool {
	n := uint32(len(dict))
	dst = dst[:len(idx)]
	for i, x := range idx {
		if uint32(x) >= n {
			return false
		}
		dst[i] = dict[x]
	}
	return true
}

// gatherWidenAll is gather from an INT64 dictionary, widening to decimal128 (fromI64).
func gatherWidenAll(dst []decimal128.Num, idx []int32, dict []int64) bool {
	n := uint32(len(dict))
	dst = dst[:len(idx)]
	for i, x := range idx {
		if uint32(x) >= n {
			return false
		}
		dst[i] = widenI64(dict[x])
	}
	return true
}

func gatherSpread[T any](dst []T, def []byte, maxDef byte, idx []int32, dict []T) bool {
	var zero T
	n := uint32(len(dict))
	j := 0
	for i, lv := range def {
		if lv == maxDef {
			x := uint32(idx[j])
			if x >= n {
				return false
			}
			dst[i] = dict[x]
			j++
		} else {
			dst[i] = zero
		}
	}
	return true
}

// ---- conversions ---------------------------------------------------------------------------

func convCopy[T int32 | int64 | float32 | float64](dst []T, v *rawVals, from, to int) error {
	src := viewAs[T](v.data, v.n)
	copy(dst, src[from:to])
	return nil
}

func convInt32[T int8 | int16 | int64 | float64](dst []T, v *rawVals, from, to int) error {
	src := viewAs[int32](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = T(x)
	}
	return nil
}

func convUint32toI64(dst []int64, v *rawVals, from, to int) error {
	src := viewAs[uint32](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = int64(x)
	}
	return nil
}

func convF32toF64(dst []float64, v *rawVals, from, to int) error {
	src := viewAs[float32](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = float64(x)
	}
	return nil
}

const maxMillis = math.MaxInt64 / 1000

func convMillis(dst []int64, v *rawVals, from, to int) error {
	src := viewAs[int64](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		if x > maxMillis || x < -maxMillis {
			return fmt.Errorf("timestamp %d ms overflows microseconds", x)
		}
		dst[i] = x * 1000
	}
	return nil
}

func convDecI32(dst []decimal128.Num, v *rawVals, from, to int) error {
	src := viewAs[int32](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = decimal128.FromI64(int64(x))
	}
	return nil
}

func convDecI64(dst []decimal128.Num, v *rawVals, from, to int) error {
	src := viewAs[int64](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = widenI64(x)
	}
	return nil
}

// widenI64 is decimal128.FromI64 without its branches: the high word is the sign extension.
func widenI64(x int64) decimal128.Num { return decimal128.New(x>>63, uint64(x)) }

func convDecU64(dst []decimal128.Num, v *rawVals, from, to int) error {
	src := viewAs[uint64](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = decimal128.FromU64(x)
	}
	return nil
}

// decimalFromBE decodes a big-endian two's complement integer of at most 16 bytes (longer
// values must be sign extensions).
func decimalFromBE(b []byte) (decimal128.Num, bool) {
	if len(b) == 0 {
		return decimal128.Num{}, true
	}
	if len(b) > 16 {
		ext := byte(0)
		if b[0]&0x80 != 0 {
			ext = 0xff
		}
		for _, x := range b[:len(b)-16] {
			if x != ext {
				return decimal128.Num{}, false
			}
		}
		b = b[len(b)-16:]
		if (b[0]&0x80 != 0) != (ext == 0xff) {
			return decimal128.Num{}, false
		}
	}
	var hi, lo uint64
	if b[0]&0x80 != 0 {
		hi, lo = math.MaxUint64, math.MaxUint64
	}
	for _, x := range b {
		hi = hi<<8 | lo>>56
		lo = lo<<8 | uint64(x)
	}
	return decimal128.New(int64(hi), lo), true
}

func convDecFLBA(dst []decimal128.Num, v *rawVals, from, to int) error {
	s := v.size
	if s <= 0 || s > 16 {
		return fmt.Errorf("decimal FIXED_LEN_BYTE_ARRAY(%d) is not supported", s)
	}
	data := v.data[from*s : to*s]
	dst = dst[:to-from]
	for i := range dst {
		dst[i], _ = decimalFromBE(data[i*s : i*s+s])
	}
	return nil
}

func convDecBA(dst []decimal128.Num, v *rawVals, from, to int) error {
	offs := v.offsets
	skip := uint32(0)
	if v.prefixed {
		skip = 4 // each value's length before it
	}
	dst = dst[:to-from]
	for i := range dst {
		lo, hi := offs[from+i]+skip, offs[from+i+1]
		if lo > hi || int(hi) > len(v.data) {
			return fmt.Errorf("byte array offsets out of range: %w", pq.ErrCorrupted)
		}
		x, ok := decimalFromBE(v.data[lo:hi])
		if !ok {
			return fmt.Errorf("decimal of %d bytes does not fit in 128 bits", hi-lo)
		}
		dst[i] = x
	}
	return nil
}

const (
	julianDayOfEpoch = 2440588
	microsPerDay     = 86400 * 1000 * 1000
)

// int96Micros decodes Parquet's legacy INT96 timestamp: 8 bytes of nanoseconds within the day,
// then 4 bytes of Julian day, both little endian (Spark's DateTimeUtils.fromJulianDay).
func int96Micros(b []byte) int64 {
	nanos := int64(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
	day := int32(uint32(b[8]) | uint32(b[9])<<8 | uint32(b[10])<<16 | uint32(b[11])<<24)
	return (int64(day)-julianDayOfEpoch)*microsPerDay + nanos/1000
}

func convInt96(dst []int64, v *rawVals, from, to int) error {
	data := v.data[from*12 : to*12]
	dst = dst[:to-from]
	for i := range dst {
		dst[i] = int96Micros(data[i*12 : i*12+12])
	}
	return nil
}

// ---- booleans ------------------------------------------------------------------------------

type boolDecoder struct {
	dictOf  *dictionary
	dict    []bool
	scratch []bool
}

func (d *boolDecoder) release() { d.dictOf, d.dict, d.scratch = nil, nil, nil }

func (d *boolDecoder) read(c *cursor, n int, mem memory.Allocator) (arrow.Array, error) {
	vb := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	out := vb.Bytes()
	clear(out)
	valid := newValidity(c, n, mem)
	fail := func(err error) (arrow.Array, error) {
		vb.Release()
		releaseBuf(valid.buf)
		return nil, err
	}
	for pos := 0; pos < n; {
		ch, err := c.advance(n - pos)
		if err != nil {
			return fail(err)
		}
		var dense []bool
		switch {
		case c.idx != nil:
			if c.dict != d.dictOf {
				dv := c.dict.vals.data
				m := min(c.dict.vals.n, len(dv)*8)
				d.dict = grow(d.dict, m)
				for i := range d.dict {
					d.dict[i] = bitutil.BitIsSet(dv, i)
				}
				d.dictOf = c.dict
			}
			d.scratch = grow(d.scratch, ch.m)
			if !gather(d.scratch, c.idx[c.val:c.val+ch.m], d.dict) {
				return fail(fmt.Errorf("dictionary index out of range: %w", pq.ErrCorrupted))
			}
			dense = d.scratch
		case ch.m == ch.k:
			bitutil.CopyBitmap(c.vals.data, c.val, ch.k, out, pos)
		default:
			j := c.val
			for i, lv := range ch.def {
				if lv == c.maxDef {
					if bitutil.BitIsSet(c.vals.data, j) {
						bitutil.SetBit(out, pos+i)
					}
					j++
				}
			}
		}
		if dense != nil {
			j := 0
			for i := 0; i < ch.k; i++ {
				if ch.def == nil || ch.def[i] == c.maxDef {
					if dense[j] {
						bitutil.SetBit(out, pos+i)
					}
					j++
				}
			}
		}
		valid.add(pos, ch, c.maxDef)
		c.consume(ch)
		pos += ch.k
	}
	vbuf := valid.finish()
	return makeArray(arrow.FixedWidthTypes.Boolean, n, valid.nulls, vbuf, vb), nil
}

// ---- strings and binary --------------------------------------------------------------------

type bytesDecoder struct {
	dt       arrow.DataType
	fixed    bool // FIXED_LEN_BYTE_ARRAY source
	avgBytes int  // bytes per row of the previous batch, to size the data buffer

	dictOf   *dictionary // validated dictionary
	dictData []byte
	dictOffs []uint32
	dictN    int
	size     int
	uniform  int // the length of every dictionary value, -1 when they differ
	// The dictionary's values zero-padded to 16 or 32 bytes (padW), when none is longer and the
	// dictionary is not large: each row is then one fixed-size copy, see fromPadded.
	pad16  [][16]byte
	pad32  [][32]byte
	padW   int // 16, 32, or 0 when there is no padded table
	padMax int // the longest value
	padL   []uint8
	vidx   []int32 // readSelected: the selected rows' value indexes
	vidx2  []int32 // the same for a chunk without nulls, when a path wants them as a slice
}

func (d *bytesDecoder) release() {
	d.dictOf, d.dictData, d.dictOffs, d.vidx, d.vidx2 = nil, nil, nil, nil, nil
	d.pad16, d.pad32, d.padL, d.padW = nil, nil, nil, 0
}

// byteSink appends value bytes to an allocator buffer that grows geometrically. Its buffers
// are not zeroed (every byte below n is written, and only those are read): clearing them cost
// as much as a string column's copy.
type byteSink struct {
	mem memory.Allocator
	buf *memory.Buffer
	n   int
}

func newByteSink(mem memory.Allocator, size int) byteSink {
	return byteSink{mem: mem, buf: bmem.NewUninitBuffer(mem, size)}
}

// unGrab returns the last n bytes of a grab.
func (s *byteSink) unGrab(n int) { s.n -= n }

func (s *byteSink) append(b []byte) {
	copy(s.grab(len(b)), b)
}

// grab reserves n bytes and returns them.
func (s *byteSink) grab(n int) []byte {
	if s.n+n > s.buf.Len() {
		nb := bmem.NewUninitBuffer(s.mem, max(s.n+n, 2*s.buf.Len()))
		copy(nb.Bytes(), s.buf.Bytes()[:s.n])
		s.buf.Release()
		s.buf = nb
	}
	b := s.buf.Buf()[s.n : s.n+n]
	s.n += n
	return b
}

func (d *bytesDecoder) read(c *cursor, n int, mem memory.Allocator) (arrow.Array, error) {
	ob := newOutBuffer(mem, (n+1)*4)
	offs := viewAs[int32](ob.Bytes(), n+1)
	offs[0] = 0
	sink := newByteSink(mem, max(64, n*max(d.avgBytes, 8)))
	valid := newValidity(c, n, mem)
	fail := func(err error) (arrow.Array, error) {
		ob.Release()
		sink.buf.Release()
		releaseBuf(valid.buf)
		return nil, err
	}
	for pos := 0; pos < n; {
		ch, err := c.advance(n - pos)
		if err != nil {
			return fail(err)
		}
		var err2 error
		switch {
		case c.idx != nil:
			err2 = d.fromDict(c, ch, offs[pos:pos+ch.k+1], &sink)
		case d.fixed:
			err2 = d.fromFixed(c, ch, offs[pos:pos+ch.k+1], &sink)
		default:
			err2 = d.fromPlain(c, ch, offs[pos:pos+ch.k+1], &sink)
		}
		if err2 != nil {
			return fail(err2)
		}
		valid.add(pos, ch, c.maxDef)
		c.consume(ch)
		pos += ch.k
	}
	sink.buf.ResizeNoShrink(sink.n)
	d.avgBytes = sink.n/n + 1
	vbuf := valid.finish()
	return makeArray(d.dt, n, valid.nulls, vbuf, ob, sink.buf), nil
}

var errOffsetOverflow = fmt.Errorf("a batch holds more than 2 GiB of string data; lower the batch size")

// fromPlain copies the chunk's values in one block and rebases the offsets; offs[0] is already
// set and offs[1:] receive the row ends.
func (d *bytesDecoder) fromPlain(c *cursor, ch chunk, offs []int32, sink *byteSink) error {
	if ch.m == 0 {
		// All nulls: a page without a single value may come with no offsets at all (arrow-rs
		// writes such pages for all-null row groups).
		for i := 1; i <= ch.k; i++ {
			offs[i] = offs[0]
		}
		return nil
	}
	if c.vals.prefixed {
		return d.fromPrefixed(c, ch, offs, sink)
	}
	src := c.vals.offsets
	lo, hi := src[c.val], src[c.val+ch.m]
	if lo > hi || int(hi) > len(c.vals.data) {
		return fmt.Errorf("byte array offsets out of range: %w", pq.ErrCorrupted)
	}
	base := int64(offs[0]) - int64(lo)
	if base+int64(hi) > math.MaxInt32 {
		return errOffsetOverflow
	}
	sink.append(c.vals.data[lo:hi])
	b := int32(base)
	if ch.def == nil {
		s := src[c.val+1 : c.val+ch.m+1]
		o := offs[1 : len(s)+1]
		for i, x := range s {
			o[i] = b + int32(x)
		}
		return nil
	}
	j := c.val
	cur := offs[0]
	for i, lv := range ch.def {
		if lv == c.maxDef {
			j++
			cur = b + int32(src[j])
		}
		offs[i+1] = cur
	}
	return nil
}

// fromPrefixed is fromPlain for values left in their PLAIN page (rawVals.prefixed): each is
// copied from the page into the sink, the only copy of its bytes.
func (d *bytesDecoder) fromPrefixed(c *cursor, ch chunk, offs []int32, sink *byteSink) error {
	src := c.vals.offsets[c.val : c.val+ch.m+1]
	data := c.vals.data
	// The values' bytes: the span less the lengths (indexByteArray checked every span).
	total := int64(src[ch.m]-src[0]) - 4*int64(ch.m)
	base := int64(offs[0])
	if base+total > math.MaxInt32 {
		return errOffsetOverflow
	}
	// 32 bytes of slack past the values, which copyShort may overwrite.
	out := sink.grab(int(total) + 32)
	sink.unGrab(32)
	w := 0
	if ch.def == nil {
		o := offs[1 : ch.m+1]
		for i := range o {
			w += copyShort(out[w:], data, int(src[i]+4), int(src[i+1]))
			o[i] = int32(base) + int32(w)
		}
		return nil
	}
	j := 0
	cur := offs[0]
	for i, lv := range ch.def {
		if lv == c.maxDef {
			w += copyShort(out[w:], data, int(src[j]+4), int(src[j+1]))
			j++
			cur = int32(base) + int32(w)
		}
		offs[i+1] = cur
	}
	return nil
}

// copyShort copies data[a:b] to dst and returns its length. A value of up to 32 bytes (a
// comment, a name) is moved as two 16-byte blocks, without a call to memmove, when dst and data
// have 32 bytes from its start: the bytes past it that it writes are the next value's, or slack.
func copyShort(dst, data []byte, a, b int) int {
	n := b - a
	if n <= 32 && a+32 <= len(data) && len(dst) >= 32 {
		*(*[16]byte)(dst) = *(*[16]byte)(data[a:])
		if n > 16 {
			*(*[16]byte)(dst[16:]) = *(*[16]byte)(data[a+16:])
		}
		return n
	}
	return copy(dst, data[a:b])
}

func (d *bytesDecoder) fromFixed(c *cursor, ch chunk, offs []int32, sink *byteSink) error {
	s := c.vals.size
	if int64(offs[0])+int64(ch.m)*int64(s) > math.MaxInt32 {
		return errOffsetOverflow
	}
	sink.append(c.vals.data[c.val*s : (c.val+ch.m)*s])
	cur := offs[0]
	for i := 0; i < ch.k; i++ {
		if ch.def == nil || ch.def[i] == c.maxDef {
			cur += int32(s)
		}
		offs[i+1] = cur
	}
	return nil
}

func (d *bytesDecoder) fromDict(c *cursor, ch chunk, offs []int32, sink *byteSink) error {
	if c.dict != d.dictOf {
		if err := d.loadDict(c); err != nil {
			return err
		}
	}
	idx := c.idx[c.val : c.val+ch.m]
	if d.padW > 0 && !(d.uniform >= 0 && d.uniform <= 8 && ch.m == ch.k) {
		if done, err := d.fromPadded(c, ch, idx, offs, sink); done || err != nil {
			return err
		}
	}
	// pass 1: bounds and total size, so that pass 2 copies without capacity checks
	dn := uint32(d.dictN)
	total := 0
	if d.fixed {
		for _, x := range idx {
			if uint32(x) >= dn {
				return fmt.Errorf("dictionary index %d out of range (dictionary has %d values): %w", x, dn, pq.ErrCorrupted)
			}
		}
		total = len(idx) * d.size
	} else {
		doffs := d.dictOffs
		for _, x := range idx {
			if uint32(x) >= dn {
				return fmt.Errorf("dictionary index %d out of range (dictionary has %d values): %w", x, dn, pq.ErrCorrupted)
			}
			total += int(doffs[x+1] - doffs[x])
		}
	}
	if int64(offs[0])+int64(total) > math.MaxInt32 {
		return errOffsetOverflow
	}
	out := sink.grab(total)
	ddata := d.dictData
	if l := d.uniform; l >= 0 && l <= 8 && ch.m == ch.k && !d.fixed {
		expandUniform(out, ddata[d.dictOffs[0]:], idx, l)
		base := offs[0]
		for i := range idx {
			offs[i+1] = base + int32((i+1)*l)
		}
		return nil
	}
	base := offs[0]
	w := 0
	j := 0
	if d.fixed {
		s := d.size
		for i := 0; i < ch.k; i++ {
			if ch.def == nil || ch.def[i] == c.maxDef {
				x := int(idx[j])
				j++
				w += copy(out[w:], ddata[x*s:x*s+s])
			}
			offs[i+1] = base + int32(w)
		}
		return nil
	}
	doffs := d.dictOffs
	for i := 0; i < ch.k; i++ {
		if ch.def == nil || ch.def[i] == c.maxDef {
			x := idx[j]
			j++
			v := ddata[doffs[x]:doffs[x+1]]
			if len(v) <= 8 && w+8 <= len(out) {
				// short values (flags, codes): avoid a memmove call
				for q, bb := range v {
					out[w+q] = bb
				}
				w += len(v)
			} else {
				w += copy(out[w:], v)
			}
		}
		offs[i+1] = base + int32(w)
	}
	return nil
}

// fromPadded expands the codes idx of a chunk in one pass over the padded dictionary: each
// value is one 16- or 32-byte store (a few instructions, where a copy of its exact length was a
// memmove call or a byte loop) into a buffer reserved for the longest value plus one store's
// slack; the slack and what the rows did not use go back to the sink. done is false when that
// reservation could pass the 2 GiB offset limit: the exact path then decides.
func (d *bytesDecoder) fromPadded(c *cursor, ch chunk, idx []int32, offs []int32, sink *byteSink) (done bool, err error) {
	bound := len(idx)*d.padMax + d.padW
	if int64(offs[0])+int64(bound) > math.MaxInt32 {
		return false, nil
	}
	out := sink.grab(bound)
	var w int
	var ok bool
	if d.padW == 16 {
		w, ok = expandPadded(out, d.pad16, d.padL, idx, offs[:ch.k+1], ch.def, c.maxDef)
	} else {
		w, ok = expandPadded(out, d.pad32, d.padL, idx, offs[:ch.k+1], ch.def, c.maxDef)
	}
	sink.unGrab(bound - w)
	if !ok {
		return true, fmt.Errorf("dictionary index out of range (dictionary has %d values): %w", d.dictN, pq.ErrCorrupted)
	}
	return true, nil
}

// expandPadded writes the values of the codes idx, each a whole padded entry of pad, to out at
// the running end of the previous one, and the row ends to offs[1:] (rows whose level is below
// maxDef, when def is not nil, are null: no value). It returns the bytes written, and false at a
// code outside pad. out holds len(idx) of the longest value, plus one entry.
func expandPadded[E [16]byte | [32]byte](out []byte, pad []E, lens []uint8, idx, offs []int32, def []byte, maxDef byte) (int, bool) {
	base := offs[0]
	lens = lens[:len(pad)]
	w := 0
	if def == nil {
		offs = offs[1 : len(idx)+1]
		for i, x := range idx {
			if uint32(x) >= uint32(len(pad)) {
				return w, false
			}
			e := pad[x]
			_ = out[w+len(e)-1] // holds: w is at most the previous rows' longest values
			*(*E)(unsafe.Pointer(&out[w])) = e
			w += int(lens[x])
			offs[i] = base + int32(w)
		}
		return w, true
	}
	j := 0
	for i, lv := range def {
		if lv == maxDef {
			if j >= len(idx) || uint32(idx[j]) >= uint32(len(pad)) {
				return w, false
			}
			x := idx[j]
			j++
			e := pad[x]
			_ = out[w+len(e)-1] // holds: w is at most the previous rows' longest values
			*(*E)(unsafe.Pointer(&out[w])) = e
			w += int(lens[x])
		}
		offs[i+1] = base + int32(w)
	}
	return w, true
}

// expandUniform writes the dictionary values idx (all l bytes long, packed in vals) to out.
func expandUniform(out, vals []byte, idx []int32, l int) {
	switch l {
	case 0:
	case 1:
		out = out[:len(idx)]
		for i, x := range idx {
			out[i] = vals[x]
		}
	default:
		for i, x := range idx {
			copy(out[i*l:i*l+l], vals[int(x)*l:int(x)*l+l])
		}
	}
}

// loadDict validates the dictionary of the current page once.
func (d *bytesDecoder) loadDict(c *cursor) error {
	d.dictOf = nil
	data, offsets := c.dict.vals.data, c.dict.vals.offsets
	n := c.dict.vals.n
	if d.fixed {
		d.size = c.leaf.typeLen
		if d.size > 0 {
			n = min(n, len(data)/d.size)
		} else {
			n = 0
		}
	} else {
		if len(offsets) == 0 {
			n = 0
		} else {
			n = min(n, len(offsets)-1)
		}
		prev := uint32(0)
		for _, o := range offsets[:min(n+1, len(offsets))] {
			if o < prev || int(o) > len(data) {
				return fmt.Errorf("dictionary offsets out of range: %w", pq.ErrCorrupted)
			}
			prev = o
		}
	}
	d.dictData, d.dictOffs, d.dictN = data, offsets, n
	// A dictionary of values of one length (flags, codes) is expanded by a stride.
	d.uniform = -1
	if !d.fixed && n > 0 {
		l := offsets[1] - offsets[0]
		d.uniform = int(l)
		for k := 1; k < n; k++ {
			if offsets[k+1]-offsets[k] != l {
				d.uniform = -1
				break
			}
		}
	}
	d.buildPadded(n)
	d.dictOf = c.dict
	return nil
}

// maxPadded is the most dictionary values given a padded table: a larger dictionary is rarely
// read through enough rows to repay building it.
const maxPadded = 1 << 16

// buildPadded makes the padded table of the dictionary just validated, when its values are
// short enough.
func (d *bytesDecoder) buildPadded(n int) {
	d.padW = 0
	if d.fixed || n == 0 || n > maxPadded {
		return
	}
	offsets := d.dictOffs
	longest := uint32(0)
	for k := 0; k < n; k++ {
		longest = max(longest, offsets[k+1]-offsets[k])
	}
	if longest > 32 {
		return
	}
	d.padMax = int(longest)
	d.padL = grow(d.padL, n)
	for k := 0; k < n; k++ {
		d.padL[k] = uint8(offsets[k+1] - offsets[k])
	}
	if longest <= 16 {
		d.pad16 = grow(d.pad16, n)
		for k := range d.pad16 {
			d.pad16[k] = [16]byte{}
			copy(d.pad16[k][:], d.dictData[offsets[k]:offsets[k+1]])
		}
		d.padW = 16
		return
	}
	d.pad32 = grow(d.pad32, n)
	for k := range d.pad32 {
		d.pad32[k] = [32]byte{}
		copy(d.pad32[k][:], d.dictData[offsets[k]:offsets[k+1]])
	}
	d.padW = 32
}

// ---- RLE booleans --------------------------------------------------------------------------

// rleBools decodes the values of RLE-encoded BOOLEAN data pages itself. parquet-go (v0.32.0)
// expands each RLE run a byte at a time: a run of n equal values becomes n/8 bytes holding the
// run's value byte (0x01 for true, so seven in eight trues read as false), and a run whose length
// is not a multiple of 8 shifts every value after it. Its own writer only writes runs of whole
// bytes of 0x00 or 0xff, which that reads back; writers that follow the spec (Arrow C++ with
// pyarrow's data_page_version="2.0", parquet-mr's and arrow-rs's v2 pages) read back wrong. So the
// chunk's page headers are walked in step with parquet-go's pages, and the values of RLE pages are
// decoded here; parquet-go still supplies the levels and decodes every other page.
type rleBools struct {
	file  *pq.File
	off   int64
	size  int64
	codec compress.Codec // nil when uncompressed
	chunk []byte         // the chunk's bytes, read at the first page (booleans are small)
	read  bool
	pos   int // next page header in chunk
	hdr   thrift.BytesReader
	dec   *thrift.Decoder
	buf   []byte // a decompressed page
	bits  []byte // the decoded values
}

func (r *rleBools) start(f *pq.File, md *format.ColumnMetaData) {
	r.file, r.size, r.read, r.pos = f, md.TotalCompressedSize, false, 0
	r.off = md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < r.off {
		r.off = md.DictionaryPageOffset
	}
	r.codec = nil
	if md.Codec != format.Uncompressed {
		r.codec = pq.LookupCompressionCodec(md.Codec)
	}
}

func (r *rleBools) stop() { r.file = nil }

// next moves to the next data page and, when its values are RLE-encoded, returns them decoded:
// n bits (n = the page's non-null values).
func (r *rleBools) next(n int, maxDef byte) ([]byte, bool, error) {
	if r.file == nil {
		return nil, false, nil
	}
	if !r.read {
		r.chunk = grow(r.chunk, int(r.size))
		if _, err := r.file.ReadAt(r.chunk, r.off); err != nil {
			return nil, false, err
		}
		if r.hdr == nil {
			r.hdr = (&thrift.CompactProtocol{}).NewReaderFromBytes(nil)
			r.dec = thrift.NewDecoder(r.hdr)
		}
		r.read = true
	}
	for {
		if r.pos >= len(r.chunk) {
			return nil, false, fmt.Errorf("BOOLEAN column chunk: more pages than page headers: %w", pq.ErrCorrupted)
		}
		var h format.PageHeader
		r.hdr.ResetBytes(r.chunk[r.pos:])
		if err := r.dec.Decode(&h); err != nil {
			return nil, false, fmt.Errorf("BOOLEAN column chunk: page header: %v: %w", err, pq.ErrCorrupted)
		}
		start := r.pos + r.hdr.(interface{ BytesRead() int }).BytesRead()
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > int64(len(r.chunk)-start) {
			return nil, false, fmt.Errorf("BOOLEAN page of %d bytes past its column chunk: %w", h.CompressedPageSize, pq.ErrCorrupted)
		}
		r.pos = start + int(h.CompressedPageSize)
		page := r.chunk[start:r.pos]
		switch h.Type {
		case format.DataPage:
			dh := &h.DataPageHeader.V
			if dh.Encoding != format.RLE {
				return nil, false, nil
			}
			data, err := r.decompress(page)
			if err != nil {
				return nil, false, err
			}
			if maxDef > 0 { // v1 levels come first, inside the compressed data
				switch dh.DefinitionLevelEncoding {
				case format.BitPacked: // deprecated: bit width 1 for a top-level column
					data = data[min(len(data), (int(dh.NumValues)+7)/8):]
				default: // RLE, prefixed by its length
					if len(data) < 4 || int64(binary.LittleEndian.Uint32(data)) > int64(len(data)-4) {
						return nil, false, fmt.Errorf("BOOLEAN page: definition levels past the page: %w", pq.ErrCorrupted)
					}
					data = data[4+binary.LittleEndian.Uint32(data):]
				}
			}
			return r.decode(data, n)
		case format.DataPageV2:
			dh := &h.DataPageHeaderV2.V
			if dh.Encoding != format.RLE {
				return nil, false, nil
			}
			lv := int64(dh.RepetitionLevelsByteLength) + int64(dh.DefinitionLevelsByteLength)
			if dh.RepetitionLevelsByteLength < 0 || dh.DefinitionLevelsByteLength < 0 || lv > int64(len(page)) {
				return nil, false, fmt.Errorf("BOOLEAN page: levels past the page: %w", pq.ErrCorrupted)
			}
			data := page[lv:] // v2 levels are never compressed
			if !dh.IsCompressed.Valid || dh.IsCompressed.V {
				var err error
				if data, err = r.decompress(data); err != nil {
					return nil, false, err
				}
			}
			return r.decode(data, n)
		}
		// dictionary and index pages: parquet-go does not return them
	}
}

func (r *rleBools) decompress(b []byte) ([]byte, error) {
	if r.codec == nil {
		return b, nil
	}
	out, err := r.codec.Decode(r.buf[:0], b)
	if err != nil {
		return nil, fmt.Errorf("BOOLEAN page: %v: %w", err, pq.ErrCorrupted)
	}
	r.buf = out
	return out, nil
}

// decode reads n booleans of the RLE / bit-packing hybrid at bit width 1, after its 4-byte length.
func (r *rleBools) decode(src []byte, n int) ([]byte, bool, error) {
	if len(src) < 4 || int64(binary.LittleEndian.Uint32(src)) > int64(len(src)-4) {
		return nil, false, fmt.Errorf("BOOLEAN page: RLE data past the page: %w", pq.ErrCorrupted)
	}
	src = src[4 : 4+binary.LittleEndian.Uint32(src)]
	bits := grow(r.bits, int(bitutil.BytesForBits(int64(n))))
	clear(bits)
	r.bits = bits
	for i, pos := 0, 0; pos < n; {
		u, k := binary.Uvarint(src[i:])
		if k <= 0 {
			return nil, false, fmt.Errorf("BOOLEAN page: %d of %d RLE values: %w", pos, n, pq.ErrCorrupted)
		}
		i += k
		if u&1 == 1 { // bit-packed: u>>1 groups of 8 values, a byte each
			g := u >> 1
			if g > uint64(len(src)-i) {
				return nil, false, fmt.Errorf("BOOLEAN page: bit-packed run past the page: %w", pq.ErrCorrupted)
			}
			m := min(int(g)*8, n-pos)
			bitutil.CopyBitmap(src[i:], 0, m, bits, pos)
			i += int(g)
			pos += m
			continue
		}
		if i >= len(src) { // a run: its value in one byte
			return nil, false, fmt.Errorf("BOOLEAN page: RLE run past the page: %w", pq.ErrCorrupted)
		}
		m := int(min(u>>1, uint64(n-pos)))
		if src[i]&1 == 1 {
			bitutil.SetBitsTo(bits, int64(pos), int64(m), true)
		}
		i++
		pos += m
	}
	return bits, true, nil
}
