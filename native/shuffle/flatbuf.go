package shuffle

import (
	"encoding/binary"
	"fmt"
)

// A bounds-checked reader of the two FlatBuffers tables of an Arrow IPC record-batch message
// (format/Message.fbs): the reader builds a block's columns from it itself, because arrow-go's
// loader (behind ipc.Reader) trusts the metadata and panics, leaking what it already sliced, on a
// bad offset. Every read checks its bounds and returns an error, so garbage never panics.
//
//	table Message     { version: short; header: MessageHeader (union: type byte + table);
//	                    bodyLength: long; custom_metadata: [KeyValue]; }
//	table RecordBatch { length: long; nodes: [FieldNode]; buffers: [Buffer];
//	                    compression: BodyCompression; variadicBufferCounts: [long]; }
//	struct FieldNode  { length: long; null_count: long; }
//	struct Buffer     { offset: long; length: long; }

// Field slots of the tables above (a union takes two: its type, then its value).
const (
	fbMessageVersion    = 0
	fbMessageHeaderType = 1
	fbMessageHeader     = 2
	fbMessageBodyLength = 3

	fbBatchLength      = 0
	fbBatchNodes       = 1
	fbBatchBuffers     = 2
	fbBatchCompression = 3

	fbHeaderRecordBatch = 3 // MessageHeader.RecordBatch
	fbMetadataV4        = 3 // MetadataVersion.V4, the first with the current layout
)

type fbTable struct {
	buf []byte
	pos int
}

func fbU32(buf []byte, pos int) (uint32, error) {
	if pos < 0 || pos+4 > len(buf) {
		return 0, fmt.Errorf("metadata offset %d out of its %d bytes", pos, len(buf))
	}
	return binary.LittleEndian.Uint32(buf[pos:]), nil
}

// fbRoot returns the root table of a finished buffer.
func fbRoot(buf []byte) (fbTable, error) {
	off, err := fbU32(buf, 0)
	if err != nil {
		return fbTable{}, err
	}
	return fbTable{buf: buf, pos: int(off)}, nil
}

// field returns the position of a field, or 0 when the table does not store it.
func (t fbTable) field(slot int) (int, error) {
	so, err := fbU32(t.buf, t.pos)
	if err != nil {
		return 0, err
	}
	vt := t.pos - int(int32(so))
	if vt < 0 || vt+4 > len(t.buf) {
		return 0, fmt.Errorf("metadata vtable at %d out of its %d bytes", vt, len(t.buf))
	}
	vtLen := int(binary.LittleEndian.Uint16(t.buf[vt:]))
	at := 4 + 2*slot
	if at+2 > vtLen {
		return 0, nil
	}
	if vt+at+2 > len(t.buf) {
		return 0, fmt.Errorf("metadata vtable at %d out of its %d bytes", vt, len(t.buf))
	}
	fo := int(binary.LittleEndian.Uint16(t.buf[vt+at:]))
	if fo == 0 {
		return 0, nil
	}
	return t.pos + fo, nil
}

func (t fbTable) scalar(slot, size int) (uint64, error) {
	p, err := t.field(slot)
	if err != nil || p == 0 {
		return 0, err
	}
	if p+size > len(t.buf) {
		return 0, fmt.Errorf("metadata field at %d out of its %d bytes", p, len(t.buf))
	}
	switch size {
	case 1:
		return uint64(t.buf[p]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(t.buf[p:])), nil
	default:
		return binary.LittleEndian.Uint64(t.buf[p:]), nil
	}
}

// table follows an offset field to its table; ok is false when the field is absent.
func (t fbTable) table(slot int) (fbTable, bool, error) {
	p, err := t.field(slot)
	if err != nil || p == 0 {
		return fbTable{}, false, err
	}
	off, err := fbU32(t.buf, p)
	if err != nil {
		return fbTable{}, false, err
	}
	return fbTable{buf: t.buf, pos: p + int(off)}, true, nil
}

// structs returns the bytes of a vector of n structs of the given size (nil when absent).
func (t fbTable) structs(slot, size int) ([]byte, int, error) {
	p, err := t.field(slot)
	if err != nil || p == 0 {
		return nil, 0, err
	}
	off, err := fbU32(t.buf, p)
	if err != nil {
		return nil, 0, err
	}
	v := p + int(off)
	n, err := fbU32(t.buf, v)
	if err != nil {
		return nil, 0, err
	}
	if uint64(n)*uint64(size) > uint64(len(t.buf)-v-4) {
		return nil, 0, fmt.Errorf("metadata vector of %d entries out of its %d bytes", n, len(t.buf))
	}
	return t.buf[v+4 : v+4+int(n)*size], int(n), nil
}

// batchMeta is a validated record-batch message: its row count, one (length, null count) node
// per column and the (offset, length) of every buffer in the body.
type batchMeta struct {
	rows    int64
	bodyLen int64
	nodes   []byte // 16 bytes per node
	buffers []byte // 16 bytes per buffer
	nNodes  int
	nBufs   int
}

func (m *batchMeta) node(i int) (length, nulls int64) {
	b := m.nodes[16*i:]
	return int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
}

func (m *batchMeta) buffer(i int) (offset, length int64) {
	b := m.buffers[16*i:]
	return int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
}

// parseBatchMeta reads a Message flatbuffer that must hold an uncompressed RecordBatch.
func parseBatchMeta(meta []byte) (*batchMeta, error) {
	msg, err := fbRoot(meta)
	if err != nil {
		return nil, err
	}
	v, err := msg.scalar(fbMessageVersion, 2)
	if err != nil {
		return nil, err
	}
	if int16(v) < fbMetadataV4 {
		return nil, fmt.Errorf("IPC metadata version %d, expected V4 or later", int16(v))
	}
	ht, err := msg.scalar(fbMessageHeaderType, 1)
	if err != nil {
		return nil, err
	}
	if ht != fbHeaderRecordBatch {
		return nil, fmt.Errorf("IPC message of type %d, expected a record batch (%d)", ht, fbHeaderRecordBatch)
	}
	bl, err := msg.scalar(fbMessageBodyLength, 8)
	if err != nil {
		return nil, err
	}
	rb, ok, err := msg.table(fbMessageHeader)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("IPC record batch message without its header")
	}
	m := &batchMeta{bodyLen: int64(bl)}
	rows, err := rb.scalar(fbBatchLength, 8)
	if err != nil {
		return nil, err
	}
	m.rows = int64(rows)
	if m.nodes, m.nNodes, err = rb.structs(fbBatchNodes, 16); err != nil {
		return nil, err
	}
	if m.buffers, m.nBufs, err = rb.structs(fbBatchBuffers, 16); err != nil {
		return nil, err
	}
	if p, err := rb.field(fbBatchCompression); err != nil || p != 0 {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("IPC record batch with buffer compression (blocks are compressed whole)")
	}
	return m, nil
}
