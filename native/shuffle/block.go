package shuffle

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The block format (see doc.go for the layout): a frame header, then the codec-compressed Arrow
// IPC encapsulated record-batch message. Encoding goes through arrow-go's ipc payload writer;
// decoding validates the message (flatbuf.go) and slices the column buffers out of the one
// decompressed buffer, so a decoded block is zero-copy and freed when its last column is released.

// FrameLengthSize is the size of the length prefix that starts every frame.
const FrameLengthSize = 4

const (
	frameMagic0  = 'B'
	frameMagic1  = 'S'
	frameVersion = 1

	offMagic   = 4
	offVersion = 6
	offCodec   = 7
	offCols    = 8
	offRows    = 10
	offRawLen  = 14
	offSchema  = 18
	offCRC     = 22
	headerSize = 26 // including the length prefix

	ipcContinuation = 0xFFFFFFFF
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
	width  int // bytes per value, layoutFixed only
	code   byte
}

// buffers is the number of IPC buffers of the column.
func (c column) buffers() int {
	if c.layout == layoutBinary {
		return 3
	}
	return 2
}

// columnOf maps a Spark type to its block column; an error names a type blocks cannot carry.
// The codes are part of the format (the schema fingerprint): never renumber them.
func columnOf(f sparktype.Field) (column, error) {
	t := f.Type
	c := column{typ: t.Arrow()}
	switch t.Kind {
	case sparktype.Boolean:
		c.layout, c.code = layoutBool, 1
	case sparktype.Byte:
		c.width, c.code = 1, 2
	case sparktype.Short:
		c.width, c.code = 2, 3
	case sparktype.Int:
		c.width, c.code = 4, 4
	case sparktype.Long:
		c.width, c.code = 8, 5
	case sparktype.Float:
		c.width, c.code = 4, 6
	case sparktype.Double:
		c.width, c.code = 8, 7
	case sparktype.Decimal:
		c.width, c.code = 16, 8
	case sparktype.String:
		c.layout, c.code = layoutBinary, 9
	case sparktype.Binary:
		c.layout, c.code = layoutBinary, 10
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
	alloc  memory.Allocator
	schema *blockSchema
	comp   *compressor
	raw    sliceWriter // the uncompressed IPC message
	frame  []byte      // header + compressed payload
}

// sliceWriter is an io.Writer appending to a reused slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// encode writes the frame of a block of rows (> 0) and returns it, valid until the next call.
func (e *blockEncoder) encode(cols []arrow.Array, rows int) ([]byte, error) {
	rec := array.NewRecordBatch(e.schema.arrow, cols, int64(rows))
	defer rec.Release()
	p, err := ipc.GetRecordBatchPayload(rec, ipc.WithAllocator(e.alloc))
	if err != nil {
		return nil, fmt.Errorf("encode shuffle block: %w", err)
	}
	e.raw.b = e.raw.b[:0]
	_, err = p.WritePayload(&e.raw)
	p.Release()
	if err != nil {
		return nil, fmt.Errorf("encode shuffle block: %w", err)
	}
	if len(e.raw.b) > maxFrameBytes-headerSize {
		return nil, fmt.Errorf("shuffle block of %d rows encodes to %d bytes, over the %d-byte block limit",
			rows, len(e.raw.b), maxFrameBytes-headerSize)
	}
	frame := e.frame[:0]
	frame = append(frame, make([]byte, headerSize)...)
	frame, used, err := e.comp.compress(frame, e.raw.b)
	if err != nil {
		return nil, fmt.Errorf("compress shuffle block: %w", err)
	}
	e.frame = frame
	h := frame[:headerSize]
	binary.LittleEndian.PutUint32(h, uint32(len(frame)-FrameLengthSize))
	h[offMagic], h[offMagic+1], h[offVersion], h[offCodec] = frameMagic0, frameMagic1, frameVersion, byte(used)
	binary.LittleEndian.PutUint16(h[offCols:], uint16(len(cols)))
	binary.LittleEndian.PutUint32(h[offRows:], uint32(rows))
	binary.LittleEndian.PutUint32(h[offRawLen:], uint32(len(e.raw.b)))
	binary.LittleEndian.PutUint32(h[offSchema:], e.schema.fingerprint)
	binary.LittleEndian.PutUint32(h[offCRC:], frameCRC(frame))
	return frame, nil
}

func (e *blockEncoder) memSize() int64 { return int64(cap(e.raw.b) + cap(e.frame)) }

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

// decodeFrame decodes a frame into a batch whose columns view one buffer from alloc. Nothing of
// the batch references frame.
func decodeFrame(alloc memory.Allocator, frame []byte, s *blockSchema) (*columnar.Batch, error) {
	h, err := checkFrame(frame, s)
	if err != nil {
		return nil, err
	}
	buf := memory.NewResizableBuffer(alloc)
	defer buf.Release()
	buf.Resize(h.rawLen)
	raw := buf.Bytes()
	if err := decompress(h.codec, raw, frame[headerSize:]); err != nil {
		return nil, err
	}
	if len(raw) < 8 || binary.LittleEndian.Uint32(raw) != ipcContinuation {
		return nil, fmt.Errorf("payload is not an Arrow IPC message (no continuation marker)")
	}
	metaLen := int(int32(binary.LittleEndian.Uint32(raw[4:])))
	if metaLen <= 0 || metaLen%8 != 0 || metaLen > len(raw)-8 {
		return nil, fmt.Errorf("IPC metadata length %d in a payload of %d bytes", metaLen, len(raw))
	}
	meta, err := parseBatchMeta(raw[8 : 8+metaLen])
	if err != nil {
		return nil, fmt.Errorf("IPC metadata: %w", err)
	}
	bodyStart := 8 + metaLen
	if meta.bodyLen < 0 || meta.bodyLen > int64(len(raw)-bodyStart) {
		return nil, fmt.Errorf("IPC body of %d bytes in a payload with %d after the metadata", meta.bodyLen, len(raw)-bodyStart)
	}
	if meta.rows != int64(h.rows) {
		return nil, fmt.Errorf("IPC record batch of %d rows, header says %d", meta.rows, h.rows)
	}
	if meta.nNodes != len(s.cols) {
		return nil, fmt.Errorf("IPC record batch of %d columns, expected %d", meta.nNodes, len(s.cols))
	}
	nb := 0
	for _, c := range s.cols {
		nb += c.buffers()
	}
	if meta.nBufs != nb {
		return nil, fmt.Errorf("IPC record batch with %d buffers, the schema %s needs %d", meta.nBufs, s.describe(), nb)
	}
	d := &blockDecoder{buf: buf, body: raw[bodyStart : bodyStart+int(meta.bodyLen)], bodyStart: bodyStart, meta: meta, rows: h.rows}
	cols := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		a, err := d.column(i, c)
		if err != nil {
			columnar.NewBatch(cols[:i], 0).Release()
			return nil, fmt.Errorf("column %d (%s %s): %w", i, s.fields[i].Name, s.fields[i].Type, err)
		}
		cols[i] = a
	}
	return columnar.NewBatch(cols, h.rows), nil
}

type blockDecoder struct {
	buf       *memory.Buffer // the decompressed payload
	body      []byte
	bodyStart int
	meta      *batchMeta
	rows      int
	nextBuf   int
}

// span returns the next buffer's bytes after checking it lies in the body, 8-byte aligned (the
// typed views of its values need it), and holds at least min bytes.
func (d *blockDecoder) span(min int) (off, n int, err error) {
	o, l := d.meta.buffer(d.nextBuf)
	d.nextBuf++
	if o < 0 || l < 0 || o > int64(len(d.body)) || l > int64(len(d.body))-o {
		return 0, 0, fmt.Errorf("buffer [%d, +%d) outside the %d-byte body", o, l, len(d.body))
	}
	if o%8 != 0 {
		return 0, 0, fmt.Errorf("buffer at offset %d is not 8-byte aligned", o)
	}
	if l < int64(min) {
		return 0, 0, fmt.Errorf("buffer of %d bytes, %d rows need %d", l, d.rows, min)
	}
	return int(o), int(l), nil
}

// slice is a reference-counted view of the body (an empty buffer for zero bytes).
func (d *blockDecoder) slice(off, n int) *memory.Buffer {
	if n == 0 {
		return memory.NewBufferBytes(nil)
	}
	return memory.SliceBuffer(d.buf, d.bodyStart+off, n)
}

func (d *blockDecoder) column(i int, c column) (arrow.Array, error) {
	length, nulls := d.meta.node(i)
	if length != int64(d.rows) {
		return nil, fmt.Errorf("%d rows in a block of %d", length, d.rows)
	}
	if nulls < 0 || nulls > length {
		return nil, fmt.Errorf("null count %d for %d rows", nulls, length)
	}
	rows, bitmapBytes := d.rows, int(bitutil.BytesForBits(int64(d.rows)))
	vo, vn, err := d.span(0)
	if err != nil {
		return nil, fmt.Errorf("validity: %w", err)
	}
	if nulls > 0 {
		if vn < bitmapBytes {
			return nil, fmt.Errorf("validity bitmap of %d bytes for %d rows", vn, rows)
		}
		if set := bitutil.CountSetBits(d.body[vo:vo+vn], 0, rows); set != rows-int(nulls) {
			return nil, fmt.Errorf("validity bitmap has %d nulls, the metadata says %d", rows-set, nulls)
		}
	}
	var bufs []*memory.Buffer
	switch c.layout {
	case layoutFixed, layoutBool:
		need := rows * c.width
		if c.layout == layoutBool {
			need = bitmapBytes
		}
		o, n, err := d.span(need)
		if err != nil {
			return nil, fmt.Errorf("values: %w", err)
		}
		bufs = []*memory.Buffer{nil, d.slice(o, n)}
	case layoutBinary:
		oo, on, err := d.span((rows + 1) * 4)
		if err != nil {
			return nil, fmt.Errorf("offsets: %w", err)
		}
		do, dn, err := d.span(0)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		// Checked before the array exists: arrow-go panics on offsets beyond the data.
		offs := arrow.Int32Traits.CastFromBytes(d.body[oo : oo+on])
		if offs[0] < 0 {
			return nil, fmt.Errorf("first offset %d", offs[0])
		}
		for r := 0; r < rows; r++ {
			if offs[r+1] < offs[r] {
				return nil, fmt.Errorf("offsets decrease at row %d (%d, %d)", r, offs[r], offs[r+1])
			}
		}
		if int(offs[rows]) > dn {
			return nil, fmt.Errorf("offsets reach %d in a data buffer of %d bytes", offs[rows], dn)
		}
		bufs = []*memory.Buffer{nil, d.slice(oo, on), d.slice(do, dn)}
	}
	if nulls > 0 {
		bufs[0] = d.slice(vo, vn)
	}
	data := array.NewData(c.typ, rows, bufs, nil, int(nulls), 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(data)
	data.Release()
	return a, nil
}
