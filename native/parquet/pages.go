package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pageReader reads the pages of one flat column chunk itself, into buffers it reuses from page
// to page and chunk to chunk. parquet-go's page reader allocates a new buffer for every
// dictionary (a price column's dictionary is about as large as its row group's values) and for
// every page's values, and copies the file's bytes through a bufio.Reader; its garbage was a
// tenth of a filtered scan's time. Flat columns whose pages are PLAIN or dictionary-encoded, with
// RLE or BIT_PACKED definition levels, are read here; the others (nested and BOOLEAN columns, DELTA
// and BYTE_STREAM_SPLIT encodings) by parquet-go. (parquet-go v0.32.0 reads a v1 page's BIT_PACKED
// levels as if a length prefixed them, as RLE ones are: it misreads the pages of old files that
// have them, which only this reader reads right.)
//
// Page checksums are not verified: Spark's reader (parquet-mr, parquet.page.verify-checksum.enabled
// false by default) does not verify them either, and a file Spark reads must read here too.
//
// The file's bytes are read a window at a time (the whole chunk when the reader's budget allows,
// else at least windowBytes, a whole page at least), so a page's header and body come in one
// read, and an uncompressed page's values are a view of the window until the next page.
type pageReader struct {
	ra     io.ReaderAt
	leaf   *leafInfo
	maxDef byte
	codec  compress.Codec // nil when uncompressed
	end    int64          // the chunk's end in the file
	off    int64          // the next page header's offset

	win    []byte // the file's bytes [winOff, winOff+len(win))
	winOff int64
	buf    []byte // win's storage
	winMax int64  // bytes a window read takes (at least what is asked for)

	hdr  thrift.BytesReader
	dec  *thrift.Decoder
	page []byte // a decompressed page
	dbuf []byte // the decompressed dictionary page
	dval []byte // a BYTE_ARRAY dictionary's values
	doff []uint32
	levs []byte
	idx  []int32
	bval []byte // a BYTE_ARRAY page's values
	boff []uint32
}

const windowBytes = 256 << 10

// pageReaders keeps page readers, with their window and page buffers, from one file's reader to
// the next: a task reads its files one after another, and each file's reader would otherwise
// allocate a window and page buffers per column (Go heap, about 2.5 MB a file for TPC-H Q6's four
// columns). Inside an executor every Go GC cycle also stops the other tasks' Go code, so the
// garbage cost more than its allocation. The pool lets go of buffers no reader took for two GC
// cycles.
var pageReaders = sync.Pool{New: func() any { return new(pageReader) }}

// detach drops what ties p to its file and chunk, keeping its buffers (emptied) for the next.
func (p *pageReader) detach() {
	p.ra, p.leaf, p.codec = nil, nil, nil
	p.win, p.winOff, p.off, p.end = nil, 0, 0, 0
	p.buf = p.buf[:0]
}

// readBudget is the window bytes a reader may hold over all its columns (Go heap, outside the
// task's accounted memory, hence small): a column's chunk is read whole when its share allows, in
// windows of its share otherwise. Fewer, larger reads cost less, but what mattered more was bytes
// read twice, which bytes() no longer does: a dictionary page larger than a window was read twice
// and every page across a window's end had its start read again (a third of the decode scan's
// bytes over TPC-H SF1 lineitem, whose chunks are at most 1.5 MB). The budget holds once per task
// running (the pooled readers keep their windows), hence 8 MB: 4 MB cost the decode scan about
// 1-2% of its CPU against 16 MB.
const readBudget = 8 << 20

// windowFor is the window of each of ncols columns' page readers.
func windowFor(ncols int) int64 {
	return max(windowBytes, readBudget/int64(max(ncols, 1)))
}

// noIndexes marks a dictionary-encoded page without values (all null) as dictionary-encoded.
var noIndexes = []int32{}

// ownPages reports whether the chunk of a flat column can be read by pageReader.
//
// BIT_PACKED is accepted: parquet-mr (Spark, Hive, Iceberg) lists it in the encodings of every
// chunk of v1 pages, for the repetition levels of a non-repeated column (which take no byte) or
// the definition levels of a required one; old writers used it for definition levels too, which
// next decodes. It is deprecated for values and no writer known encodes values with it; when the
// chunk's page encoding statistics say one did, the chunk goes to parquet-go (a page that does
// without saying so fails in values, as any page in an encoding not read here).
func ownPages(l *leafInfo, md *format.ColumnMetaData) bool {
	if l.phys == format.Boolean || l.maxDef > 1 {
		return false
	}
	for _, e := range md.Encoding {
		switch e {
		case format.Plain, format.PlainDictionary, format.RLEDictionary, format.RLE, format.BitPacked:
		default:
			return false
		}
	}
	for _, s := range md.EncodingStats {
		if s.Encoding == format.BitPacked && s.Count > 0 && (s.PageType == format.DataPage || s.PageType == format.DataPageV2) {
			return false
		}
	}
	switch md.Codec {
	case format.Uncompressed, format.Snappy, format.Gzip, format.Zstd, format.Brotli:
		return true
	}
	return false
}

func (p *pageReader) start(ra io.ReaderAt, l *leafInfo, md *format.ColumnMetaData, window int64) {
	p.ra, p.leaf, p.maxDef = ra, l, l.maxDef
	p.off = md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < p.off {
		p.off = md.DictionaryPageOffset
	}
	p.end = p.off + md.TotalCompressedSize
	p.winMax = window
	if window <= 0 {
		p.winMax = windowBytes
	}
	p.codec = nil
	if md.Codec != format.Uncompressed {
		p.codec = pq.LookupCompressionCodec(md.Codec)
	}
	p.win, p.winOff = nil, p.off
	if p.dec == nil {
		p.hdr = (&thrift.CompactProtocol{}).NewReaderFromBytes(nil)
		p.dec = thrift.NewDecoder(p.hdr)
	}
}

// bytes returns the file's bytes [off, off+n) (fewer at the chunk's end), reading a new window
// when the current one does not hold them.
func (p *pageReader) bytes(off int64, n int) ([]byte, error) {
	winEnd := p.winOff + int64(len(p.win))
	if off >= p.winOff && off+int64(n) <= winEnd {
		return p.win[off-p.winOff : off-p.winOff+int64(n)], nil
	}
	size := max(int64(n), p.winMax)
	if off+size > p.end {
		size = p.end - off
	}
	if size < int64(n) {
		return nil, fmt.Errorf("page of %d bytes at offset %d past its column chunk's end (%d): %w", n, off, p.end, pq.ErrCorrupted)
	}
	// What the window holds from off on (a page that runs past its end) moves to the new
	// window's front rather than being read again.
	var kept []byte
	if off >= p.winOff && off < winEnd {
		kept = p.win[off-p.winOff:]
	}
	if int64(cap(p.buf)) < size {
		nb := make([]byte, size, size+size/4)
		copy(nb, kept)
		p.buf = nb
	} else {
		p.buf = p.buf[:size]
		copy(p.buf, kept)
	}
	keep := len(kept)
	if m, err := p.ra.ReadAt(p.buf[keep:], off+int64(keep)); m < len(p.buf)-keep {
		p.win = nil
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read %d bytes at offset %d: %w", len(p.buf)-keep, off+int64(keep), err)
	}
	p.win, p.winOff = p.buf, off
	return p.win[:n], nil
}

// header reads the page header at p.off and returns it with the page's compressed body.
func (p *pageReader) header() (*format.PageHeader, []byte, error) {
	h, hl, err := p.peekHeader()
	if err != nil {
		return nil, nil, err
	}
	body, err := p.bytes(p.off+hl, int(h.CompressedPageSize))
	if err != nil {
		return nil, nil, err
	}
	p.off += hl + int64(h.CompressedPageSize)
	return h, body, nil
}

// peekHeader reads the page header at p.off and returns it with its length; p.off stays.
func (p *pageReader) peekHeader() (*format.PageHeader, int64, error) {
	for want := 4 << 10; ; want *= 4 {
		avail := int(min(int64(want), p.end-p.off))
		if avail <= 0 {
			return nil, 0, errEOFInChunk
		}
		b, err := p.bytes(p.off, avail)
		if err != nil {
			return nil, 0, err
		}
		var h format.PageHeader
		p.hdr.ResetBytes(b)
		if err := p.dec.Decode(&h); err != nil {
			if avail == want && want < 16<<20 {
				continue // a header longer than the bytes read (large statistics)
			}
			return nil, 0, fmt.Errorf("page header at offset %d: %v: %w", p.off, err, pq.ErrCorrupted)
		}
		hl := int64(p.hdr.(interface{ BytesRead() int }).BytesRead())
		size := int64(h.CompressedPageSize)
		if size < 0 || h.UncompressedPageSize < 0 || p.off+hl+size > p.end {
			return nil, 0, fmt.Errorf("page of %d bytes at offset %d past its column chunk's end (%d): %w",
				size, p.off, p.end, pq.ErrCorrupted)
		}
		return &h, hl, nil
	}
}

// decompress returns src decompressed into *dst (reused), or src itself when uncompressed.
func (p *pageReader) decompress(dst *[]byte, src []byte, size int32) ([]byte, error) {
	if p.codec == nil {
		return src, nil
	}
	if n := int(size); cap(*dst) < n && n <= maxPresized {
		// Room to spare: the next row group's dictionary or page is often a little larger,
		// and the codec would allocate (and zero) a buffer of exactly its size for each.
		*dst = make([]byte, 0, n+n/8)
	}
	out, err := p.codec.Decode((*dst)[:0], src)
	if err != nil {
		return nil, fmt.Errorf("decompress a page: %v: %w", err, pq.ErrCorrupted)
	}
	*dst = out
	if len(out) != int(size) {
		return nil, fmt.Errorf("page decompressed to %d bytes, its header says %d: %w", len(out), size, pq.ErrCorrupted)
	}
	return out, nil
}

// maxPresized is the largest buffer sized from a page header's word before its page is
// decompressed (a damaged header must not allocate gigabytes; the codec sizes larger pages).
const maxPresized = 64 << 20

// page is one decoded data page: n rows, their definition levels (nil when the column is
// required) and their values, as dictionary indexes or as values.
type page struct {
	n    int
	def  []byte
	ndef int // levels in def at the column's maximum: non-null values
	idx  []int32
	vals rawVals
}

// next reads the next data page with rows, after any dictionary page before it (which becomes
// c.dict).
func (p *pageReader) next(c *cursor) (pg page, err error) {
	for {
		pageOff := p.off
		h, body, err := p.header()
		if err != nil {
			return page{}, err
		}
		switch h.Type {
		case format.DictionaryPage:
			if c.dict, err = p.dictionary(h, body); err != nil {
				return page{}, err
			}
		case format.DataPage:
			dh := &h.DataPageHeader.V
			data, err := p.decompress(&p.page, body, h.UncompressedPageSize)
			if err != nil {
				return page{}, err
			}
			n := int(dh.NumValues)
			if n <= 0 {
				continue
			}
			pg.n = n
			// A flat column has no repetition level: none is written, whatever the header's
			// encoding for them says (parquet-mr says BIT_PACKED).
			if p.maxDef > 0 {
				if data, err = p.levelsV1(&pg, dh, data); err != nil {
					return page{}, fmt.Errorf("data page at offset %d: %w", pageOff, err)
				}
			}
			err = p.values(&pg, dh.Encoding, data, c)
			return pg, err
		case format.DataPageV2:
			dh := &h.DataPageHeaderV2.V
			n := int(dh.NumRows)
			if dh.NumValues != dh.NumRows {
				return page{}, fmt.Errorf("a flat column's page has %d values in %d rows: %w", dh.NumValues, dh.NumRows, pq.ErrCorrupted)
			}
			rl, dl := int64(dh.RepetitionLevelsByteLength), int64(dh.DefinitionLevelsByteLength)
			if rl != 0 || dl < 0 || dl > int64(len(body)) {
				return page{}, fmt.Errorf("levels past the page: %w", pq.ErrCorrupted)
			}
			if n <= 0 {
				continue
			}
			pg.n = n
			if p.maxDef > 0 {
				if err = p.levels(&pg, body[:dl]); err != nil {
					return page{}, err
				}
			}
			data := body[dl:]
			if !dh.IsCompressed.Valid || dh.IsCompressed.V {
				if data, err = p.decompress(&p.page, data, h.UncompressedPageSize-int32(dl)); err != nil {
					return page{}, err
				}
			}
			err = p.values(&pg, dh.Encoding, data, c)
			return pg, err
		}
		// index pages carry nothing to read
	}
}

// skipPages moves past whole data pages of at most rows rows in all, without decompressing them,
// and returns how many rows they held. It stops before a page that would take it past rows (and
// reads a dictionary page on its way: later pages need it).
func (p *pageReader) skipPages(rows int) (int, error) {
	skipped := 0
	for p.off < p.end {
		h, hl, err := p.peekHeader()
		if err != nil {
			return skipped, err
		}
		n := 0
		switch h.Type {
		case format.DictionaryPage:
			return skipped, nil // next() reads it: the pages after it need it
		case format.DataPage:
			n = int(h.DataPageHeader.V.NumValues)
		case format.DataPageV2:
			n = int(h.DataPageHeaderV2.V.NumRows)
		}
		if n < 0 || skipped+n > rows {
			return skipped, nil
		}
		skipped += n
		p.off += hl + int64(h.CompressedPageSize)
	}
	return skipped, nil
}

// levelsV1 decodes the definition levels at the start of a v1 page's data into pg.def and
// returns the data after them. RLE levels (the RLE / bit-packing hybrid) are prefixed by their
// length in bytes; BIT_PACKED ones are not: they take exactly as many bytes as the page's levels
// fill.
func (p *pageReader) levelsV1(pg *page, dh *format.DataPageHeader, data []byte) (rest []byte, err error) {
	switch dh.DefinitionLevelEncoding {
	case format.RLE:
		if len(data) < 4 || int64(binary.LittleEndian.Uint32(data)) > int64(len(data)-4) {
			return nil, fmt.Errorf("definition levels past the page: %w", pq.ErrCorrupted)
		}
		ln := binary.LittleEndian.Uint32(data)
		err = p.levels(pg, data[4:4+ln])
		return data[4+ln:], err
	case format.BitPacked:
		w := bits.Len8(p.maxDef)
		ln := (pg.n*w + 7) / 8
		if ln > len(data) {
			return nil, fmt.Errorf("%d BIT_PACKED definition levels of %d bits take %d bytes, the page has %d: %w",
				pg.n, w, ln, len(data), pq.ErrCorrupted)
		}
		p.levs = unpackLevelsMSB(p.levs, data[:ln], pg.n, w)
		if pg.ndef, err = p.checkLevels(p.levs); err != nil {
			return nil, err
		}
		pg.def = p.levs
		return data[ln:], nil
	}
	return nil, fmt.Errorf("definition levels in %s encoding are not read natively: %w",
		dh.DefinitionLevelEncoding, pq.ErrCorrupted)
}

// unpackLevelsMSB unpacks n levels of w bits (1 to 8) from src in the deprecated BIT_PACKED
// layout, into dst (reused): values packed from the most significant bit of the first byte on,
// unlike the RLE / bit-packing hybrid's runs, which start at the least significant bit. src holds
// at least (n*w+7)/8 bytes.
func unpackLevelsMSB(dst, src []byte, n, w int) []byte {
	dst = grow(dst, n)
	if w == 1 { // the only width of a flat column's levels
		for i := range dst {
			dst[i] = src[i>>3] >> (7 - i&7) & 1
		}
		return dst
	}
	mask := uint16(1)<<w - 1
	for i := range dst {
		// A value starts at bit s of its byte (from the top) and, as w <= 8, ends within the
		// next one: read the two as a 16-bit big-endian word.
		at := i * w
		b, s := at>>3, at&7
		v := uint16(src[b]) << 8
		if b+1 < len(src) {
			v |= uint16(src[b+1])
		}
		dst[i] = byte(v >> (16 - s - w) & mask)
	}
	return dst
}

// levels decodes the definition levels of a page's pg.n rows (RLE / bit-packed hybrid, maxDef's
// width) into pg.def, and counts the defined ones into pg.ndef.
func (p *pageReader) levels(pg *page, src []byte) error {
	n := pg.n
	enc := rle.Encoding{BitWidth: bits.Len8(p.maxDef)}
	var lv []byte
	err := noPanic(func() (err error) { lv, err = enc.DecodeLevels(p.levs[:0], src); return })
	if err != nil {
		return fmt.Errorf("definition levels: %v: %w", err, pq.ErrCorrupted)
	}
	p.levs = lv
	if len(lv) < n {
		return fmt.Errorf("page has %d rows but %d definition levels: %w", n, len(lv), pq.ErrCorrupted)
	}
	if pg.ndef, err = p.checkLevels(lv[:n]); err != nil {
		return err
	}
	pg.def = lv[:n]
	return nil
}

// checkLevels checks that no level is above the column's maximum and returns how many are at it
// (defined values). A run of the RLE hybrid stores its value in a whole byte, so a damaged page
// can hold any level: it must fail here, not index past the page's values.
func (p *pageReader) checkLevels(lv []byte) (int, error) {
	if p.maxDef == 1 {
		// Every flat nullable column: one pass, eight levels at a time. Levels of 0 and 1 only
		// leave the bits 0xFE of every byte clear, and then a word's set bits are its 1s.
		var bad uint64
		n, i := 0, 0
		for ; i+8 <= len(lv); i += 8 {
			w := binary.LittleEndian.Uint64(lv[i:])
			bad |= w
			n += bits.OnesCount64(w)
		}
		for _, d := range lv[i:] {
			bad |= uint64(d)
			n += int(d)
		}
		if bad&0xFEFEFEFEFEFEFEFE == 0 {
			return n, nil
		}
	}
	n := 0
	for _, d := range lv {
		if d > p.maxDef {
			return 0, fmt.Errorf("definition level %d above the column's maximum %d: %w", d, p.maxDef, pq.ErrCorrupted)
		}
		if d == p.maxDef {
			n++
		}
	}
	return n, nil
}

// values decodes a data page's values.
func (p *pageReader) values(pg *page, enc format.Encoding, data []byte, c *cursor) error {
	m := pg.n
	if pg.def != nil {
		if m = pg.ndef; m == pg.n {
			// No null in the page (a nullable column without nulls, the common case): its rows
			// take the paths of a required column, with no level to look at.
			pg.def = nil
		}
	}
	switch enc {
	case format.RLEDictionary, format.PlainDictionary:
		if c.dict == nil {
			return fmt.Errorf("dictionary-encoded page without a dictionary: %w", pq.ErrCorrupted)
		}
		idx := noIndexes
		var err error
		if len(data) > 0 {
			if data[0] > 32 {
				return fmt.Errorf("dictionary indexes of %d bits: %w", data[0], pq.ErrCorrupted)
			}
			if n := pg.n + 8; cap(p.idx) < n {
				// As for decompress: the decoder grows its output by doubling, from the
				// previous page's size, a copy and an allocation for most pages a little
				// larger than all before them (the last group of 8 may be padding).
				p.idx = make([]int32, 0, n+n/8)
			}
			err = noPanic(func() (err error) { idx, err = (&rle.DictionaryEncoding{}).DecodeInt32(p.idx[:0], data); return })
			if err != nil {
				return fmt.Errorf("dictionary indexes: %v: %w", err, pq.ErrCorrupted)
			}
			p.idx = idx
		}
		if len(idx) < m {
			return fmt.Errorf("page declares %d values but holds %d: %w", m, len(idx), pq.ErrCorrupted)
		}
		if m == 0 {
			idx = noIndexes
		}
		pg.idx = idx[:m]
		return nil
	case format.Plain:
		v, err := p.plain(data, &p.bval, &p.boff, true)
		if err != nil {
			return err
		}
		if v.n < m {
			return fmt.Errorf("page declares %d values but holds %d: %w", m, v.n, pq.ErrCorrupted)
		}
		pg.vals = v
		return nil
	}
	return fmt.Errorf("values in %s encoding are not read natively: %w", enc, pq.ErrCorrupted)
}

// plain decodes PLAIN values: fixed-width ones are a view of data; BYTE_ARRAY ones of a data
// page (inPage) too, indexed into *off (rawVals.prefixed: the batch copies them from the page,
// once); those of a dictionary, which outlives its page's buffer, are copied into *val with
// their offsets into *off (both reused).
func (p *pageReader) plain(data []byte, val *[]byte, off *[]uint32, inPage bool) (rawVals, error) {
	l := p.leaf
	if l.phys != format.ByteArray {
		return makeRaw(l, physWidth(l), data, nil), nil
	}
	if inPage {
		o, err := indexByteArray(data, (*off)[:0])
		if err != nil {
			return rawVals{}, err
		}
		*off = o
		return rawVals{data: data, offsets: o, n: len(o) - 1, prefixed: true}, nil
	}
	// A dictionary's values are packed without their lengths, in one pass that checks each
	// length and moves values of up to 64 bytes in 16-byte blocks (parquet-go's decoder called
	// memmove per value: a comment dictionary has 40k of them, of 10 to 43 bytes).
	if uint64(len(data)) > math.MaxUint32 {
		return rawVals{}, fmt.Errorf("a page of %d bytes: %w", len(data), pq.ErrCorrupted)
	}
	v := grow(*val, len(data)+64) // the values take less than the page; slack for copyDictValue
	*val = v
	o := append((*off)[:0], 0)
	w := 0
	for pos := 0; pos < len(data); {
		if len(data)-pos < 4 {
			return rawVals{}, fmt.Errorf("byte array value %d: a length of %d bytes at the page's end: %w",
				len(o)-1, len(data)-pos, pq.ErrCorrupted)
		}
		n := int(binary.LittleEndian.Uint32(data[pos:]))
		if n > len(data)-pos-4 || n < 0 {
			return rawVals{}, fmt.Errorf("byte array value %d of %d bytes runs past the page's end (%d bytes left): %w",
				len(o)-1, n, len(data)-pos-4, pq.ErrCorrupted)
		}
		w += copyDictValue(v[w:], data, pos+4, pos+4+n)
		pos += 4 + n
		o = append(o, uint32(w))
	}
	*off = o
	return makeRaw(l, 0, v[:w], o), nil
}

// copyDictValue copies data[a:b] to dst and returns its length: a value of up to 64 bytes in
// 16-byte blocks, without a call to memmove, when dst and data have 64 bytes from its start (the
// bytes past it that it writes are the next value's, or slack).
func copyDictValue(dst, data []byte, a, b int) int {
	n := b - a
	if n > 64 || a+64 > len(data) || len(dst) < 64 {
		return copy(dst, data[a:b])
	}
	src := data[a : a+64]
	dst = dst[:64]
	*(*[16]byte)(dst) = *(*[16]byte)(src)
	if n > 16 {
		*(*[16]byte)(dst[16:]) = *(*[16]byte)(src[16:])
		if n > 32 {
			*(*[16]byte)(dst[32:]) = *(*[16]byte)(src[32:])
			if n > 48 {
				*(*[16]byte)(dst[48:]) = *(*[16]byte)(src[48:])
			}
		}
	}
	return n
}

// indexByteArray appends to off the position of each PLAIN BYTE_ARRAY value of data (its 4-byte
// little-endian length, then its bytes), and the end of the last one: value i is
// data[off[i]+4 : off[i+1]]. Every length is checked against the page's end.
func indexByteArray(data []byte, off []uint32) ([]uint32, error) {
	if uint64(len(data)) > math.MaxUint32 {
		return nil, fmt.Errorf("a page of %d bytes: %w", len(data), pq.ErrCorrupted)
	}
	off = append(off, 0)
	for pos := 0; pos < len(data); {
		if len(data)-pos < 4 {
			return nil, fmt.Errorf("byte array value %d: a length of %d bytes at the page's end: %w",
				len(off)-1, len(data)-pos, pq.ErrCorrupted)
		}
		n := binary.LittleEndian.Uint32(data[pos:])
		if uint64(n) > uint64(len(data)-pos-4) {
			return nil, fmt.Errorf("byte array value %d of %d bytes runs past the page's end (%d bytes left): %w",
				len(off)-1, n, len(data)-pos-4, pq.ErrCorrupted)
		}
		pos += 4 + int(n)
		off = append(off, uint32(pos))
	}
	return off, nil
}

// dictionary decodes a dictionary page into a new dictionary (over buffers the reader reuses
// from chunk to chunk: the previous chunk's dictionary is no longer read).
func (p *pageReader) dictionary(h *format.PageHeader, body []byte) (*dictionary, error) {
	dh := &h.DictionaryPageHeader.V
	if dh.Encoding != format.Plain && dh.Encoding != format.PlainDictionary {
		return nil, fmt.Errorf("dictionary in %s encoding: %w", dh.Encoding, pq.ErrCorrupted)
	}
	data := body
	if p.codec != nil {
		var err error
		if data, err = p.decompress(&p.dbuf, body, h.UncompressedPageSize); err != nil {
			return nil, err
		}
	} else {
		// The window moves on with the next page; the dictionary must stay.
		p.dbuf = append(p.dbuf[:0], body...)
		data = p.dbuf
	}
	v, err := p.plain(data, &p.dval, &p.doff, false)
	if err != nil {
		return nil, err
	}
	if n := int(dh.NumValues); n >= 0 && n < v.n {
		v.n = n
	}
	return &dictionary{vals: v}, nil
}

// noPanic runs a parquet-go decoder, whose bounds checks on damaged input panic, as an error (so
// that the batch under construction is released on the way out).
func noPanic(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return f()
}
