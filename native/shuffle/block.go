package shuffle

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The block format (see doc.go for the layout): a frame header, then the codec-compressed
// payload: every column's metadata, then every column's streams (colcodec.go). Decoding
// decompresses into the reader's scratch and decodes every column into one buffer of the task's
// allocator, which the columns' Arrow buffers slice: a block is freed when its last column is.

// FrameLengthSize is the size of the length prefix that starts every frame.
const FrameLengthSize = 4

const (
	frameMagic0  = 'B'
	frameMagic1  = 'S'
	frameVersion = 2

	offMagic   = 4
	offVersion = 6
	offCodec   = 7
	offCols    = 8
	offRows    = 10
	offRawLen  = 14
	offSchema  = 18
	offCRC     = 22
	headerSize = 26 // including the length prefix
)

// maxFrameBytes bounds a frame (and its uncompressed body): offsets inside a block are 32-bit.
const maxFrameBytes = math.MaxInt32

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameCRC is the CRC-32C of a frame's header fields after the length prefix (magic to schema) and
// of its payload.
func frameCRC(frame []byte) uint32 {
	c := crc32.Update(0, castagnoli, frame[offMagic:offCRC])
	return crc32.Update(c, castagnoli, frame[headerSize:])
}

// ---- column layouts ----

type layoutKind uint8

const (
	layoutFixed  layoutKind = iota // validity + values of width bytes
	layoutBool                     // validity + value bits
	layoutBinary                   // validity + int32 offsets + data
)

// column is what the block format knows of a column: its Arrow type and physical layout.
type column struct {
	typ    arrow.DataType
	layout layoutKind
	width  int  // bytes per value, layoutFixed only
	ints   bool // integral values (decimals: unscaled), which integer streams may store
	code   byte
}

// columnOf maps a Spark type to its block column; an error names a type blocks cannot carry.
// The codes are part of the format (the schema fingerprint): never renumber them.
func columnOf(f sparktype.Field) (column, error) {
	t := f.Type
	c := column{typ: t.Arrow(), ints: true}
	switch t.Kind {
	case sparktype.Boolean:
		c.layout, c.code, c.ints = layoutBool, 1, false
	case sparktype.Byte:
		c.width, c.code = 1, 2
	case sparktype.Short:
		c.width, c.code = 2, 3
	case sparktype.Int:
		c.width, c.code = 4, 4
	case sparktype.Long:
		c.width, c.code = 8, 5
	case sparktype.Float:
		c.width, c.code, c.ints = 4, 6, false
	case sparktype.Double:
		c.width, c.code, c.ints = 8, 7, false
	case sparktype.Decimal:
		c.width, c.code = 16, 8
	case sparktype.String:
		c.layout, c.code, c.ints = layoutBinary, 9, false
	case sparktype.Binary:
		c.layout, c.code, c.ints = layoutBinary, 10, false
	case sparktype.Date:
		c.width, c.code = 4, 11
	case sparktype.Timestamp:
		c.width, c.code = 8, 12
	case sparktype.TimestampNTZ:
		c.width, c.code = 8, 13
	default:
		return column{}, fmt.Errorf("column %s of type %s cannot be shuffled natively", f.Name, t)
	}
	return c, nil
}

// blockSchema is the block view of a Spark schema, with its fingerprint: the CRC-32C of the
// column codes (and decimal precision and scale), which a frame carries so that a reader of
// another schema fails with a clear error instead of misreading buffers.
type blockSchema struct {
	fields      []sparktype.Field
	cols        []column
	arrow       *arrow.Schema
	fingerprint uint32
}

func newBlockSchema(fields []sparktype.Field) (*blockSchema, error) {
	if len(fields) > math.MaxUint16 {
		return nil, fmt.Errorf("%d columns: a shuffle block holds at most %d", len(fields), math.MaxUint16)
	}
	s := &blockSchema{fields: fields, cols: make([]column, len(fields))}
	fp := make([]byte, 0, 3*len(fields))
	for i, f := range fields {
		c, err := columnOf(f)
		if err != nil {
			return nil, err
		}
		s.cols[i] = c
		fp = append(fp, c.code)
		if f.Type.Kind == sparktype.Decimal {
			fp = append(fp, byte(f.Type.Precision), byte(f.Type.Scale))
		}
	}
	s.fingerprint = crc32.Checksum(fp, castagnoli)
	s.arrow = sparktype.ArrowSchema(fields)
	return s, nil
}

func (s *blockSchema) describe() string {
	parts := make([]string, len(s.fields))
	for i, f := range s.fields {
		parts[i] = f.Type.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ---- encoding ----

// blockEncoder turns columns into frames; its scratch buffers are reused across blocks.
type blockEncoder struct {
	schema *blockSchema
	comp   *compressor
	cols   []colEncoder
	raw    []byte // the uncompressed payload
	frame  []byte // header + compressed payload
	arrow  int    // the Arrow bytes of the last block encoded (its columns' buffers)
}

func newBlockEncoder(s *blockSchema, comp *compressor) blockEncoder {
	e := blockEncoder{schema: s, comp: comp, cols: make([]colEncoder, len(s.cols))}
	for i, c := range s.cols {
		e.cols[i] = newColEncoder(c)
	}
	return e
}

// encode writes the frame of a block of rows (> 0) and returns it, valid until the next call.
func (e *blockEncoder) encode(cols []arrow.Array, rows int) ([]byte, error) {
	// Plan every column (metadata first), then write the streams where the plans put them.
	meta := e.raw[:0]
	streams, arrowBytes := 0, 0
	for i, a := range cols {
		ce := &e.cols[i]
		ce.planColumn(a, rows)
		meta = ce.plan.appendMeta(meta)
		streams += ce.plan.streamBytes(ce.c, rows)
		v, x, d := ce.plan.arrowBytes(ce.c, rows)
		arrowBytes += v + x + d
	}
	if size := len(meta) + streams; size > maxFrameBytes-headerSize || arrowBytes > maxFrameBytes {
		for i := range e.cols {
			e.cols[i].src = nil
		}
		return nil, fmt.Errorf("shuffle block of %d rows encodes to %d bytes (%d as Arrow), over the %d-byte block limit",
			rows, size, arrowBytes, maxFrameBytes-headerSize)
	}
	raw := grow(meta, len(meta)+streams)
	pos := len(meta)
	for i := range e.cols {
		ce := &e.cols[i]
		n := ce.plan.streamBytes(ce.c, rows)
		ce.emit(raw[pos:pos+n], rows)
		pos += n
	}
	e.raw, e.arrow = raw, arrowBytes

	frame := e.frame[:0]
	frame = append(frame, make([]byte, headerSize)...)
	frame, used, err := e.comp.compress(frame, raw)
	if err != nil {
		return nil, fmt.Errorf("compress shuffle block: %w", err)
	}
	e.frame = frame
	h := frame[:headerSize]
	binary.LittleEndian.PutUint32(h, uint32(len(frame)-FrameLengthSize))
	h[offMagic], h[offMagic+1], h[offVersion], h[offCodec] = frameMagic0, frameMagic1, frameVersion, byte(used)
	binary.LittleEndian.PutUint16(h[offCols:], uint16(len(cols)))
	binary.LittleEndian.PutUint32(h[offRows:], uint32(rows))
	binary.LittleEndian.PutUint32(h[offRawLen:], uint32(len(raw)))
	binary.LittleEndian.PutUint32(h[offSchema:], e.schema.fingerprint)
	binary.LittleEndian.PutUint32(h[offCRC:], frameCRC(frame))
	return frame, nil
}

// grow returns b extended to n bytes (contents beyond len(b) unspecified), reallocating only
// when its capacity is short.
func grow(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

func (e *blockEncoder) memSize() int64 {
	n := int64(cap(e.raw) + cap(e.frame))
	for i := range e.cols {
		n += e.cols[i].memSize()
	}
	return n
}

// release drops the scratch buffers.
func (e *blockEncoder) release() {
	e.raw, e.frame, e.cols = nil, nil, nil
}

// ---- decoding ----

// frameHeader is a checked frame header.
type frameHeader struct {
	codec  Codec
	rows   int
	rawLen int
}

// checkFrame validates a whole frame (length prefix included) against the reader's schema and
// returns its header. It reads nothing outside frame.
func checkFrame(frame []byte, s *blockSchema) (frameHeader, error) {
	var h frameHeader
	if len(frame) < FrameLengthSize {
		return h, fmt.Errorf("truncated: %d bytes, shorter than the length prefix", len(frame))
	}
	if n := binary.LittleEndian.Uint32(frame); uint64(n) != uint64(len(frame)-FrameLengthSize) {
		return h, fmt.Errorf("length prefix says %d bytes follow, the frame has %d (truncated or misaligned)",
			n, len(frame)-FrameLengthSize)
	}
	if len(frame) < headerSize {
		return h, fmt.Errorf("truncated: %d bytes, shorter than the %d-byte block header", len(frame), headerSize)
	}
	if frame[offMagic] != frameMagic0 || frame[offMagic+1] != frameMagic1 {
		return h, fmt.Errorf("bad magic %#02x%02x: not a Bolide shuffle block", frame[offMagic], frame[offMagic+1])
	}
	if v := frame[offVersion]; v != frameVersion {
		return h, fmt.Errorf("block format version %d, this reader reads version %d", v, frameVersion)
	}
	if got, want := binary.LittleEndian.Uint32(frame[offCRC:]), frameCRC(frame); got != want {
		return h, fmt.Errorf("checksum mismatch (stored %08x, computed %08x): the block is corrupt", got, want)
	}
	h.codec = Codec(frame[offCodec])
	if !h.codec.valid() {
		return h, fmt.Errorf("unknown codec %d", frame[offCodec])
	}
	if n := int(binary.LittleEndian.Uint16(frame[offCols:])); n != len(s.cols) {
		return h, fmt.Errorf("block has %d columns, the reader's schema %s has %d", n, s.describe(), len(s.cols))
	}
	if fp := binary.LittleEndian.Uint32(frame[offSchema:]); fp != s.fingerprint {
		return h, fmt.Errorf("block column types (fingerprint %08x) differ from the reader's schema %s (%08x)",
			fp, s.describe(), s.fingerprint)
	}
	h.rows = int(binary.LittleEndian.Uint32(frame[offRows:]))
	h.rawLen = int(binary.LittleEndian.Uint32(frame[offRawLen:]))
	if h.rawLen > maxFrameBytes {
		return h, fmt.Errorf("uncompressed size %d over the %d-byte block limit", h.rawLen, maxFrameBytes)
	}
	return h, nil
}

// blockDecoder decodes frames of one schema; its scratch (the decompressed payload, the column
// plans) is reused from frame to frame.
type blockDecoder struct {
	schema   *blockSchema
	raw      []byte
	plans    []colPlan
	spans    []colSpans
	dictOffs []int32
}

// colSpans are where a column's decoded buffers lie in the block's buffer (length 0: absent).
type colSpans struct {
	validity, values, data bufRange
}

// bufRange is a byte range of a buffer.
type bufRange struct{ off, n int }

func newBlockDecoder(s *blockSchema) *blockDecoder {
	return &blockDecoder{schema: s, plans: make([]colPlan, len(s.cols)), spans: make([]colSpans, len(s.cols))}
}

func (d *blockDecoder) memSize() int64 {
	return int64(cap(d.raw)+4*cap(d.dictOffs)) + int64(len(d.plans))*64
}

// arrowAlign is the alignment of every decoded buffer (arrow-go's own).
const arrowAlign = 64

// decode decodes a frame into a batch whose columns view one buffer from alloc. Nothing of the
// batch references frame.
func (d *blockDecoder) decode(alloc memory.Allocator, frame []byte) (*columnar.Batch, error) {
	s := d.schema
	h, err := checkFrame(frame, s)
	if err != nil {
		return nil, err
	}
	// A stored payload is decoded where it lies: the columns are copied out of it anyway.
	raw := frame[headerSize:]
	if h.codec != CodecNone {
		d.raw = grow(d.raw[:0], h.rawLen)
		raw = d.raw
		if err := decompress(h.codec, raw, frame[headerSize:]); err != nil {
			return nil, err
		}
	} else if len(raw) != h.rawLen {
		return nil, fmt.Errorf("stored payload of %d bytes, header says %d", len(raw), h.rawLen)
	}
	// The metadata, then the streams' bounds and the decoded buffers' layout.
	r := metaReader{b: raw}
	for i, c := range s.cols {
		at := r.pos
		d.plans[i] = r.readPlan(c, h.rows)
		if r.err != nil {
			return nil, fmt.Errorf("column %d (%s %s): metadata at byte %d: %w", i, s.fields[i].Name, s.fields[i].Type, at, r.err)
		}
	}
	streams, total := 0, 0
	for i, c := range s.cols {
		p := &d.plans[i]
		streams += p.streamBytes(c, h.rows)
		v, x, dt := p.arrowBytes(c, h.rows)
		sp := &d.spans[i]
		sp.validity, total = bufRange{total, v}, total+alignUp(v)
		sp.values, total = bufRange{total, x}, total+alignUp(x)
		sp.data, total = bufRange{total, dt}, total+alignUp(dt)
	}
	if streams != len(raw)-r.pos {
		return nil, fmt.Errorf("the columns' metadata describe %d bytes of streams for %d rows, the payload has %d",
			streams, h.rows, len(raw)-r.pos)
	}
	if total > maxFrameBytes {
		return nil, fmt.Errorf("block of %d rows decodes to %d bytes, over the %d-byte block limit", h.rows, total, maxFrameBytes)
	}
	buf := memory.NewResizableBuffer(alloc)
	defer buf.Release()
	buf.Resize(total)
	out := buf.Bytes()
	pos := r.pos
	for i, c := range s.cols {
		p, sp := &d.plans[i], &d.spans[i]
		n := p.streamBytes(c, h.rows)
		err := decodeColumn(p, c, h.rows, raw[pos:pos+n], sp.validity.of(out), sp.values.of(out), sp.data.of(out), &d.dictOffs)
		if err != nil {
			return nil, fmt.Errorf("column %d (%s %s): %w", i, s.fields[i].Name, s.fields[i].Type, err)
		}
		pos += n
	}
	cols := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		cols[i] = makeColumn(buf, c, h.rows, d.plans[i].nulls, &d.spans[i])
	}
	return columnar.NewBatch(cols, h.rows), nil
}

func alignUp(n int) int { return (n + arrowAlign - 1) &^ (arrowAlign - 1) }

func (s bufRange) of(b []byte) []byte { return b[s.off : s.off+s.n] }

// makeColumn is the array over a column's decoded buffers in buf.
func makeColumn(buf *memory.Buffer, c column, rows, nulls int, sp *colSpans) arrow.Array {
	slice := func(s bufRange) *memory.Buffer {
		if s.n == 0 {
			return memory.NewBufferBytes(nil)
		}
		return memory.SliceBuffer(buf, s.off, s.n)
	}
	var bufs []*memory.Buffer
	if c.layout == layoutBinary {
		bufs = []*memory.Buffer{nil, slice(sp.values), slice(sp.data)}
	} else {
		bufs = []*memory.Buffer{nil, slice(sp.values)}
	}
	if nulls > 0 {
		bufs[0] = slice(sp.validity)
	}
	data := array.NewData(c.typ, rows, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(data)
	data.Release()
	return a
}
