package iceberg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/RoaringBitmap/roaring/v2"
)

// dvMagic opens every deletion-vector-v1 blob (Puffin spec).
var dvMagic = []byte{0xD1, 0xD3, 0x39, 0x64}

// decodeDeletionVector decodes a Puffin "deletion-vector-v1" blob: a big-endian length of the
// magic plus the vector, the magic, the vector as a 64-bit Roaring bitmap in its portable
// serialization (a little-endian count of 32-bit bitmaps, then for each its high 32 bits and the
// standard 32-bit Roaring serialization), and a big-endian CRC-32 of the magic and the vector.
// The blob is never compressed (the spec forbids it for this blob type).
func decodeDeletionVector(blob []byte) ([]int64, error) {
	if len(blob) < 12 {
		return nil, fmt.Errorf("deletion vector of %d bytes is too short", len(blob))
	}
	n := int(binary.BigEndian.Uint32(blob))
	if n < 4 || n+8 != len(blob) {
		return nil, fmt.Errorf("deletion vector length %d does not match its blob of %d bytes", n, len(blob))
	}
	body := blob[4 : 4+n]
	if !bytes.Equal(body[:4], dvMagic) {
		return nil, fmt.Errorf("not a deletion vector: magic %x", body[:4])
	}
	if want, got := binary.BigEndian.Uint32(blob[4+n:]), crc32.ChecksumIEEE(body); want != got {
		return nil, fmt.Errorf("deletion vector checksum mismatch (stored %08x, computed %08x)", want, got)
	}
	vec := body[4:]
	if len(vec) < 8 {
		return nil, errors.New("deletion vector: truncated bitmap count")
	}
	count := binary.LittleEndian.Uint64(vec)
	vec = vec[8:]
	if count > uint64(len(vec))/4 {
		return nil, fmt.Errorf("deletion vector: %d bitmaps cannot fit in %d bytes", count, len(vec))
	}
	var out []int64
	lastKey := int64(-1)
	for i := uint64(0); i < count; i++ {
		if len(vec) < 4 {
			return nil, errors.New("deletion vector: truncated bitmap key")
		}
		key := int64(binary.LittleEndian.Uint32(vec))
		vec = vec[4:]
		if key <= lastKey {
			return nil, fmt.Errorf("deletion vector: bitmap keys out of order (%d after %d)", key, lastKey)
		}
		lastKey = key
		bm := roaring.New()
		read, err := bm.ReadFrom(bytes.NewReader(vec))
		if err != nil {
			return nil, fmt.Errorf("deletion vector: bitmap %d: %w", i, err)
		}
		vec = vec[read:]
		if out == nil {
			out = make([]int64, 0, bm.GetCardinality())
		}
		high := key << 32
		it := bm.Iterator()
		for it.HasNext() {
			out = append(out, high|int64(it.Next()))
		}
	}
	if len(vec) != 0 {
		return nil, fmt.Errorf("deletion vector: %d bytes after the last bitmap", len(vec))
	}
	return out, nil
}
