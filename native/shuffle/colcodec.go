package shuffle

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
)

// Column encodings: per block, each column is stored in the form that takes the fewest bytes
// among those its type allows (doc.go has the layout). The first byte of a column's metadata:
const (
	encNull    = 0 // every row is null: no streams
	encPlain   = 1 // the values as Arrow lays them out: floats, booleans, incompressible integers
	encInts    = 2 // an integer stream: integral types, dates, timestamps, decimals fitting a long
	encStrings = 3 // the lengths as an integer stream, then the bytes
	encDict    = 4 // the entries' lengths (integer stream), the entries' bytes, a code per row
)

// colPlan is how one column of one block is stored: what its metadata says.
type colPlan struct {
	enc     uint8
	nulls   int
	vals    intStream // encInts: the values; encStrings: the lengths; encDict: the codes
	lens    intStream // encDict: the entries' lengths
	entries int       // encDict: distinct values
	dictLen int       // encDict: bytes of the entries
	dataLen int       // encStrings, encDict: bytes of the column's values
}

func bitmapBytes(rows int) int { return int(bitutil.BytesForBits(int64(rows))) }

// appendMeta appends the column's metadata: the encoding, the null count, the streams' forms.
func (p *colPlan) appendMeta(b []byte) []byte {
	b = append(b, p.enc)
	if p.enc == encNull {
		return b
	}
	b = binary.AppendUvarint(b, uint64(p.nulls))
	switch p.enc {
	case encInts:
		b = p.vals.appendMeta(b)
	case encStrings:
		b = p.vals.appendMeta(b)
		b = binary.AppendUvarint(b, uint64(p.dataLen))
	case encDict:
		b = binary.AppendUvarint(b, uint64(p.entries))
		b = p.lens.appendMeta(b)
		b = binary.AppendUvarint(b, uint64(p.dictLen))
		b = p.vals.appendMeta(b)
		b = binary.AppendUvarint(b, uint64(p.dataLen))
	}
	return b
}

// readPlan reads a column's metadata (see appendMeta), checking it against the column's type.
func (r *metaReader) readPlan(c column, rows int) colPlan {
	p := colPlan{enc: r.byte()}
	if r.err != nil {
		return p
	}
	if p.enc == encNull {
		p.nulls = rows
		return p
	}
	p.nulls = r.count("null count", rows)
	switch {
	case p.enc == encPlain && c.layout != layoutBinary:
	case p.enc == encInts && c.ints:
		p.vals = r.intStream()
	case p.enc == encStrings && c.layout == layoutBinary:
		p.vals = r.intStream()
		p.dataLen = r.count("string bytes", maxFrameBytes)
	case p.enc == encDict && c.layout == layoutBinary:
		p.entries = r.count("dictionary entries", rows)
		p.lens = r.intStream()
		p.dictLen = r.count("dictionary bytes", maxFrameBytes)
		p.vals = r.intStream()
		p.dataLen = r.count("string bytes", maxFrameBytes)
		// Each row is one entry: bounds what the codes may expand to before they are read.
		if r.err == nil && int64(p.dataLen) > int64(rows)*int64(p.dictLen) {
			r.fail("%d string bytes from a dictionary of %d bytes in %d rows", p.dataLen, p.dictLen, rows)
		}
	default:
		r.fail("encoding %d for a column of type %s", p.enc, c.typ)
	}
	return p
}

// streamBytes is the size of the column's streams in a block of rows.
func (p *colPlan) streamBytes(c column, rows int) int {
	if p.enc == encNull {
		return 0
	}
	n := 0
	if p.nulls > 0 {
		n = bitmapBytes(rows)
	}
	switch p.enc {
	case encPlain:
		if c.layout == layoutBool {
			n += bitmapBytes(rows)
		} else {
			n += rows * c.width
		}
	case encInts:
		n += p.vals.size(rows)
	case encStrings:
		n += p.vals.size(rows) + p.dataLen
	case encDict:
		n += p.lens.size(p.entries) + p.dictLen + p.vals.size(rows)
	}
	return n
}

// arrowBytes are the sizes of the column's decoded Arrow buffers: validity (0 without nulls),
// values (offsets for strings) and, for strings, data.
func (p *colPlan) arrowBytes(c column, rows int) (validity, values, data int) {
	if p.nulls > 0 {
		validity = bitmapBytes(rows)
	}
	switch c.layout {
	case layoutBool:
		values = bitmapBytes(rows)
	case layoutBinary:
		values, data = 4*(rows+1), p.dataLen
	default:
		values = rows * c.width
	}
	return validity, values, data
}

// ---- encoding ----

// colEncoder plans and writes one column of the writer's blocks; its scratch is reused.
type colEncoder struct {
	c    column
	plan colPlan
	src  arrow.Array // the block's column, between plan and emit
	lows []int64     // a decimal column's values, when they all fit a long
	lens []int32     // a string column's lengths
	dict dictBuilder
}

func newColEncoder(c column) colEncoder { return colEncoder{c: c, dict: newDictBuilder()} }

// planColumn picks the encoding of a's rows (the whole array, rows > 0 of them).
func (e *colEncoder) planColumn(a arrow.Array, rows int) {
	e.src = a
	nulls := a.NullN()
	if nulls == rows {
		e.plan = colPlan{enc: encNull, nulls: rows}
		return
	}
	e.plan = colPlan{enc: encPlain, nulls: nulls}
	c := e.c
	switch {
	case c.layout == layoutBinary:
		e.planStrings(a)
	case !c.ints:
	case c.width == 1:
		planFixedInts(&e.plan, columnar.Values[int8](a))
	case c.width == 2:
		planFixedInts(&e.plan, columnar.Values[int16](a))
	case c.width == 4:
		planFixedInts(&e.plan, columnar.Values[int32](a))
	case c.width == 8:
		planFixedInts(&e.plan, columnar.Values[int64](a))
	case c.width == 16:
		if lows, ok := decimalLows(e.lows[:0], columnar.Values[decimal128.Num](a)); ok {
			e.lows = lows
			e.plan.enc, e.plan.vals = encInts, planInts(lows)
		}
	}
}

// planFixedInts stores v as an integer stream when that takes fewer bytes than the values do.
func planFixedInts[T integer](p *colPlan, v []T) {
	if s := planInts(v); int(s.width) < sizeOf[T]() {
		p.enc, p.vals = encInts, s
	}
}

// decimalLows appends the decimals' low words to dst, or returns false when one does not fit a
// long (precision up to 18 always does; sums of them usually do).
func decimalLows(dst []int64, v []decimal128.Num) ([]int64, bool) {
	for _, x := range v {
		lo := int64(x.LowBits())
		if x.HighBits() != lo>>63 {
			return dst, false
		}
		dst = append(dst, lo)
	}
	return dst, true
}

// planStrings picks lengths and bytes, or a dictionary when its entries and codes take at most
// half as many bytes: decoding a dictionary copies row by row, so it must pay clearly.
func (e *colEncoder) planStrings(a arrow.Array) {
	offs, data := columnar.BinaryParts(a)
	rows := len(offs) - 1
	e.lens = lengths(e.lens, offs)
	p := &e.plan
	p.enc, p.vals, p.dataLen = encStrings, planInts(e.lens), int(offs[rows]-offs[0])
	limit := min(rows/2, maxDictEntries)
	if limit < 2 {
		return
	}
	plainCost := p.dataLen + p.vals.size(rows)
	n := e.dict.build(offs, data, limit)
	if n <= 0 {
		return
	}
	lens := e.dict.lens
	dictLen := 0
	for _, l := range lens {
		dictLen += int(l)
	}
	ls, cs := planInts(lens), planInts(e.dict.codes)
	if cost := dictLen + ls.size(n) + cs.size(rows); 2*cost <= plainCost {
		p.enc, p.entries, p.lens, p.dictLen, p.vals = encDict, n, ls, dictLen, cs
	}
}

// lengths fills dst with the lengths of the rows of offs.
func lengths(dst []int32, offs []int32) []int32 {
	n := len(offs) - 1
	if cap(dst) < n {
		dst = make([]int32, n, max(n, 2*cap(dst)))
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = offs[i+1] - offs[i]
	}
	return dst
}

// emit writes the column's streams into dst, exactly plan.streamBytes long.
func (e *colEncoder) emit(dst []byte, rows int) {
	p, a, c := &e.plan, e.src, e.c
	e.src = nil
	if p.enc == encNull {
		return
	}
	if p.nulls > 0 {
		bits, off := columnar.ValidityBits(a)
		n := bitmapBytes(rows)
		copyBits(dst[:n], bits, off, rows)
		dst = dst[n:]
	}
	switch p.enc {
	case encPlain:
		if c.layout == layoutBool {
			bits, off := columnar.BoolBits(a)
			copyBits(dst, bits, off, rows)
			return
		}
		d := a.Data()
		copy(dst, d.Buffers()[1].Bytes()[d.Offset()*c.width:])
	case encInts:
		switch c.width {
		case 1:
			putInts(dst, columnar.Values[int8](a), p.vals)
		case 2:
			putInts(dst, columnar.Values[int16](a), p.vals)
		case 4:
			putInts(dst, columnar.Values[int32](a), p.vals)
		case 8:
			putInts(dst, columnar.Values[int64](a), p.vals)
		case 16:
			putInts(dst, e.lows, p.vals)
			e.lows = e.lows[:0]
		}
	case encStrings:
		offs, data := columnar.BinaryParts(a)
		n := p.vals.size(rows)
		putInts(dst[:n], e.lens, p.vals)
		copy(dst[n:], data[offs[0]:offs[rows]])
	case encDict:
		_, data := columnar.BinaryParts(a)
		d := &e.dict
		n := p.lens.size(p.entries)
		putInts(dst[:n], d.lens, p.lens)
		pos := n
		for i, s := range d.starts {
			pos += copy(dst[pos:], data[s:s+d.lens[i]])
		}
		putInts(dst[pos:], d.codes, p.vals)
	}
}

// copyBits copies rows bits starting at bit off of src to the start of dst.
func copyBits(dst, src []byte, off, rows int) {
	if off == 0 {
		copy(dst, src[:bitmapBytes(rows)])
		return
	}
	bitutil.CopyBitmap(src, off, rows, dst, 0)
}

func (e *colEncoder) memSize() int64 {
	return int64(cap(e.lows)*8+cap(e.lens)*4) + e.dict.memSize()
}

// ---- decoding ----

// decodeColumn fills a column's zeroed Arrow buffers (validity, values, data: the sizes
// arrowBytes gives) from its streams src (exactly streamBytes long). dictOffs is scratch.
func decodeColumn(p *colPlan, c column, rows int, src, validity, values, data []byte, dictOffs *[]int32) error {
	if p.enc == encNull {
		return nil // all null: the zeroed buffers are right (offsets of empty strings)
	}
	if p.nulls > 0 {
		n := bitmapBytes(rows)
		copy(validity, src[:n])
		if set := bitutil.CountSetBits(validity, 0, rows); set != rows-p.nulls {
			return fmt.Errorf("validity bitmap has %d nulls, the metadata says %d", rows-set, p.nulls)
		}
		src = src[n:]
	}
	switch p.enc {
	case encPlain:
		copy(values, src)
	case encInts:
		switch c.width {
		case 1:
			getInts(columnar.View[int8](values), src, p.vals)
		case 2:
			getInts(columnar.View[int16](values), src, p.vals)
		case 4:
			getInts(columnar.View[int32](values), src, p.vals)
		case 8:
			getInts(columnar.View[int64](values), src, p.vals)
		case 16:
			// The longs into the first half, then widened in place from the last one down.
			w := columnar.View[int64](values)
			getInts(w[:rows], src, p.vals)
			for i := rows - 1; i >= 0; i-- {
				lo := w[i]
				w[2*i], w[2*i+1] = lo, lo>>63
			}
		}
	case encStrings:
		offs := columnar.View[int32](values)
		n := p.vals.size(rows)
		getInts(offs[1:], src[:n], p.vals)
		if !lengthsToOffsets(offs, p.dataLen) {
			return fmt.Errorf("string lengths are negative or do not add up to the %d bytes", p.dataLen)
		}
		copy(data, src[n:])
	case encDict:
		if cap(*dictOffs) < p.entries+1 {
			*dictOffs = make([]int32, p.entries+1)
		}
		doffs := (*dictOffs)[:p.entries+1]
		n := p.lens.size(p.entries)
		getInts(doffs[1:], src[:n], p.lens)
		if !lengthsToOffsets(doffs, p.dictLen) {
			return fmt.Errorf("dictionary entry lengths are negative or do not add up to its %d bytes", p.dictLen)
		}
		dict := src[n : n+p.dictLen]
		offs := columnar.View[int32](values)
		getInts(offs[1:], src[n+p.dictLen:], p.vals)
		if !gatherDict(offs, data, dict, doffs) {
			return fmt.Errorf("dictionary codes out of its %d entries or not adding up to the %d string bytes", p.entries, p.dataLen)
		}
	}
	return nil
}

// lengthsToOffsets turns offs[1:], lengths, into offsets from 0 in place; false when a length is
// negative or they do not add up to total (then no offset passes total, none decreases).
func lengthsToOffsets(offs []int32, total int) bool {
	var acc int64
	var neg int32
	for i, l := range offs[1:] {
		neg |= l
		acc += int64(l)
		offs[i+1] = int32(acc)
	}
	offs[0] = 0
	return neg >= 0 && acc == int64(total)
}

// gatherDict replaces offs[1:], codes, by the offsets of their entries copied one after another
// into data; false when a code is out of the dictionary or the entries do not fill data exactly.
func gatherDict(offs []int32, data, dict []byte, doffs []int32) bool {
	entries := uint32(len(doffs) - 1)
	end := 0
	for i, c := range offs[1:] {
		if uint32(c) >= entries {
			return false
		}
		e := dict[doffs[c]:doffs[c+1]]
		if len(e) > len(data)-end {
			return false
		}
		end += copy(data[end:], e)
		offs[i+1] = int32(end)
	}
	offs[0] = 0
	return end == len(data)
}
