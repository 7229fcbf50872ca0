package shuffle

import (
	"encoding/binary"
	"fmt"
)

// metaReader reads a block's column metadata (bytes and varints) with bounds checks. The first
// error sticks: every later read returns zero, so a parser checks err once per column.
type metaReader struct {
	b   []byte
	pos int
	err error
}

func (r *metaReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *metaReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.fail("past the end of the %d-byte payload", len(r.b))
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

func (r *metaReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.pos += n
	return v
}

func (r *metaReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.pos += n
	return v
}

// count reads a uvarint that must be at most limit (a row count, a byte count).
func (r *metaReader) count(what string, limit int) int {
	v := r.uvarint()
	if r.err == nil && v > uint64(limit) {
		r.fail("%s %d over %d", what, v, limit)
		return 0
	}
	return int(v)
}

// intStream reads the form of an integer stream (see intStream.appendMeta).
func (r *metaReader) intStream() intStream {
	b := r.byte()
	s := intStream{mode: b >> 4, width: b & 15}
	if r.err == nil && (s.mode > streamDelta || s.width > 8) {
		r.fail("integer stream of form %d and width %d", s.mode, s.width)
		return s
	}
	s.base = r.varint()
	if s.mode == streamDelta {
		s.dmin = r.varint()
	}
	return s
}
