package sparkhash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Column kernels after Catalyst's HashExpression (expressions/hash.scala, InterpretedHashFunction.hash
// and the generated code of computeHash): hash(c1, c2, ...) starts from the seed and hashes each
// column's value with the previous result as the seed, left to right; a null value leaves the hash
// as it is. Every atomic value reaches the hash function as an int, a long or bytes:
//
//	boolean                           int 1 / 0
//	byte, short, int, date            int
//	long, timestamp, timestamp_ntz    long
//	float                             int: 0 for both zeros, else Float.floatToIntBits (one NaN)
//	double                            long: 0 for both zeros, else Double.doubleToLongBits (one NaN)
//	decimal, precision <= 18          long: the unscaled value
//	decimal, precision > 18           bytes: BigInteger.toByteArray of the unscaled value
//	string, binary                    bytes (UTF-8 for strings)
//
// A fold reads its column through typed slices, a range of valid rows at a time, so a column
// without nulls is one tight loop and no row costs an interface call or an allocation.

// maxLongDigits is Decimal.MAX_LONG_DIGITS: up to this precision Spark keeps and hashes the
// unscaled value as a long.
const maxLongDigits = 18

// Hashable reports whether values of t can be hashed here: every type native columns carry.
// (Arrays, maps, structs, intervals and collated strings never reach native columns.)
func Hashable(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Null, sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int,
		sparktype.Long, sparktype.Float, sparktype.Double, sparktype.Decimal, sparktype.String,
		sparktype.Binary, sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
		return true
	}
	return false
}

// Murmur3Fold folds column col (of Spark type t) into hashes, as Murmur3Hash does for one child:
// hashes[i] becomes the hash of row i seeded with hashes[i], and stays when row i is null.
func Murmur3Fold(t sparktype.Type, col arrow.Array, hashes []int32) error {
	c, err := open(t, col, len(hashes))
	if err != nil || c.kind == sparktype.Null {
		return err
	}
	switch c.kind {
	case sparktype.Boolean:
		c.each(func(s, e int) {
			for i := s; i < e; i++ {
				hashes[i] = Murmur3Int(int32(b2i(bitutil.BitIsSet(c.bits, c.bitsOff+i))), hashes[i])
			}
		})
	case sparktype.Byte:
		c.each(func(s, e int) { m3Ints(c.i8[s:e], hashes[s:e]) })
	case sparktype.Short:
		c.each(func(s, e int) { m3Ints(c.i16[s:e], hashes[s:e]) })
	case sparktype.Int:
		c.each(func(s, e int) { m3Ints(c.i32[s:e], hashes[s:e]) })
	case sparktype.Date:
		c.each(func(s, e int) { m3Ints(c.date[s:e], hashes[s:e]) })
	case sparktype.Long:
		c.each(func(s, e int) { m3Longs(c.i64[s:e], hashes[s:e]) })
	case sparktype.Timestamp, sparktype.TimestampNTZ:
		c.each(func(s, e int) { m3Longs(c.ts[s:e], hashes[s:e]) })
	case sparktype.Float:
		c.each(func(s, e int) {
			v, h := c.f32[s:e], hashes[s:e]
			for i := range h {
				h[i] = Murmur3Int(floatBits(v[i]), h[i])
			}
		})
	case sparktype.Double:
		c.each(func(s, e int) {
			v, h := c.f64[s:e], hashes[s:e]
			for i := range h {
				h[i] = Murmur3Long(doubleBits(v[i]), h[i])
			}
		})
	case sparktype.Decimal:
		if c.precision <= maxLongDigits {
			c.each(func(s, e int) {
				v, h := c.dec[s:e], hashes[s:e]
				for i := range h {
					h[i] = Murmur3Long(int64(v[i].LowBits()), h[i])
				}
			})
			break
		}
		var scratch [16]byte
		c.each(func(s, e int) {
			v, h := c.dec[s:e], hashes[s:e]
			for i := range h {
				h[i] = Murmur3Bytes(UnscaledBytes(v[i], &scratch), h[i])
			}
		})
	case sparktype.String, sparktype.Binary:
		switch n, nulls := c.arr.Len(), c.arr.NullN(); {
		case nulls == 0:
			m3Strings(c.offs, c.base, c.data, hashes)
		case nulls <= n/2:
			m3StringsMasked(c.offs, c.base, c.data, hashes, c.arr.NullBitmapBytes(), c.arr.Data().Offset())
		default: // mostly null: hash only the runs of valid rows
			c.each(func(s, e int) { m3Strings(c.offs[s:e+1], c.base, c.data, hashes[s:e]) })
		}
	}
	return nil
}

// m3Strings is Murmur3Bytes of each string of a column with no nulls, seeded by and folded into h:
// row i is data[offs[i]-base : offs[i+1]-base] (offs has len(h)+1 entries).
//
// Spark's strings are short (fn30 hashes a dozen string columns of 2 to 17 bytes), so the per-row
// overhead of calling Murmur3Bytes on a re-sliced value dominated: two slice bounds checks, one
// per word and per tail byte, the call, and the closure per run of valid rows. Here each row reads
// its end offset once (its start is the previous end), loads words straight from the buffer, and
// mixes the 0 to 3 tail bytes in nested ifs rather than a loop (fewer, better-predicted branches).
// The one check per row, that the end lies inside data, keeps every load inside the buffer: start
// is the previous end (or checked), and a decreasing offset makes end < start, which reads
// nothing (both conditions fail). (Moving the row's hash into a function of its own costs a
// call per row: the compiler does not inline it.)
func m3Strings(offs []int32, base int32, data []byte, h []int32) {
	ends := offs[1 : len(h)+1]
	h = h[:len(ends)]
	p := unsafe.Pointer(unsafe.SliceData(data))
	dlen := uintptr(len(data))
	start := uintptr(offs[0] - base)
	if start > dlen {
		panic(errStringOffsets)
	}
	for i, o := range ends {
		end := uintptr(o - base) // a negative difference becomes huge and fails the check
		if end > dlen {
			panic(errStringOffsets)
		}
		x := uint32(h[i])
		q := start
		for ; q+4 <= end; q += 4 {
			x = m3mixH1(x, m3mixK1(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, q))[:])))
		}
		// The tail: each byte a round of its own, sign-extended (see Murmur3Bytes).
		if q < end {
			x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q))))))
			if q+1 < end {
				x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q+1))))))
				if q+2 < end {
					x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q+2))))))
				}
			}
		}
		h[i] = int32(m3fmix(x, uint32(end-start)))
		start = end
	}
}

// m3StringsMasked is m3Strings for a column with nulls, whose validity bits start at bit voff of
// valid: a null row keeps its hash. Null rows are hashed too (their bytes, usually none, are
// inside data) and the result dropped, which costs less than splitting the column into runs of
// valid rows (column.each), a call and a bit scan per run.
func m3StringsMasked(offs []int32, base int32, data []byte, h []int32, valid []byte, voff int) {
	ends := offs[1 : len(h)+1]
	h = h[:len(ends)]
	p := unsafe.Pointer(unsafe.SliceData(data))
	dlen := uintptr(len(data))
	start := uintptr(offs[0] - base)
	if start > dlen {
		panic(errStringOffsets)
	}
	for i, o := range ends {
		end := uintptr(o - base) // a negative difference becomes huge and fails the check
		if end > dlen {
			panic(errStringOffsets)
		}
		x := uint32(h[i])
		q := start
		for ; q+4 <= end; q += 4 {
			x = m3mixH1(x, m3mixK1(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, q))[:])))
		}
		// The tail: each byte a round of its own, sign-extended (see Murmur3Bytes).
		if q < end {
			x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q))))))
			if q+1 < end {
				x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q+1))))))
				if q+2 < end {
					x = m3mixH1(x, m3mixK1(uint32(int32(*(*int8)(unsafe.Add(p, q+2))))))
				}
			}
		}
		if j := voff + i; valid[j>>3]&(1<<(j&7)) != 0 {
			h[i] = int32(m3fmix(x, uint32(end-start)))
		}
		start = end
	}
}

// errStringOffsets is a constant panic value: a call that builds a message (or any call that
// returns) in m3Strings' loop would make the compiler keep its variables on the stack.
var errStringOffsets = errors.New("sparkhash: string offsets outside the column's data")

// XxHash64Fold is Murmur3Fold for XxHash64 (xxhash64()).
func XxHash64Fold(t sparktype.Type, col arrow.Array, hashes []int64) error {
	c, err := open(t, col, len(hashes))
	if err != nil || c.kind == sparktype.Null {
		return err
	}
	switch c.kind {
	case sparktype.Boolean:
		c.each(func(s, e int) {
			for i := s; i < e; i++ {
				hashes[i] = XXH64Int(int32(b2i(bitutil.BitIsSet(c.bits, c.bitsOff+i))), hashes[i])
			}
		})
	case sparktype.Byte:
		c.each(func(s, e int) { xxInts(c.i8[s:e], hashes[s:e]) })
	case sparktype.Short:
		c.each(func(s, e int) { xxInts(c.i16[s:e], hashes[s:e]) })
	case sparktype.Int:
		c.each(func(s, e int) { xxInts(c.i32[s:e], hashes[s:e]) })
	case sparktype.Date:
		c.each(func(s, e int) { xxInts(c.date[s:e], hashes[s:e]) })
	case sparktype.Long:
		c.each(func(s, e int) { xxLongs(c.i64[s:e], hashes[s:e]) })
	case sparktype.Timestamp, sparktype.TimestampNTZ:
		c.each(func(s, e int) { xxLongs(c.ts[s:e], hashes[s:e]) })
	case sparktype.Float:
		c.each(func(s, e int) {
			v, h := c.f32[s:e], hashes[s:e]
			for i := range h {
				h[i] = XXH64Int(floatBits(v[i]), h[i])
			}
		})
	case sparktype.Double:
		c.each(func(s, e int) {
			v, h := c.f64[s:e], hashes[s:e]
			for i := range h {
				h[i] = XXH64Long(doubleBits(v[i]), h[i])
			}
		})
	case sparktype.Decimal:
		if c.precision <= maxLongDigits {
			c.each(func(s, e int) {
				v, h := c.dec[s:e], hashes[s:e]
				for i := range h {
					h[i] = XXH64Long(int64(v[i].LowBits()), h[i])
				}
			})
			break
		}
		var scratch [16]byte
		c.each(func(s, e int) {
			v, h := c.dec[s:e], hashes[s:e]
			for i := range h {
				h[i] = XXH64Bytes(UnscaledBytes(v[i], &scratch), h[i])
			}
		})
	case sparktype.String, sparktype.Binary:
		c.each(func(s, e int) {
			h, offs, data := hashes[s:e], c.offs[s:e+1], c.data
			for i := range h {
				h[i] = XXH64Bytes(data[offs[i]-c.base:offs[i+1]-c.base], h[i])
			}
		})
	}
	return nil
}

func m3Ints[T ~int8 | ~int16 | ~int32](v []T, h []int32) {
	v = v[:len(h)]
	for i := range h {
		h[i] = Murmur3Int(int32(v[i]), h[i])
	}
}

func m3Longs[T ~int64](v []T, h []int32) {
	v = v[:len(h)]
	for i := range h {
		h[i] = Murmur3Long(int64(v[i]), h[i])
	}
}

func xxInts[T ~int8 | ~int16 | ~int32](v []T, h []int64) {
	v = v[:len(h)]
	for i := range h {
		h[i] = XXH64Int(int32(v[i]), h[i])
	}
}

func xxLongs[T ~int64](v []T, h []int64) {
	v = v[:len(h)]
	for i := range h {
		h[i] = XXH64Long(int64(v[i]), h[i])
	}
}

// Murmur3FoldConst folds one value, row `row` of col, into every hash: a constant child of a hash
// expression (a literal next to columns).
func Murmur3FoldConst(t sparktype.Type, col arrow.Array, row int, hashes []int32) error {
	var scratch [16]byte
	in, err := valueAt(t, col, row, &scratch)
	if err != nil {
		return err
	}
	switch in.shape {
	case shapeInt:
		for i := range hashes {
			hashes[i] = Murmur3Int(int32(in.long), hashes[i])
		}
	case shapeLong:
		for i := range hashes {
			hashes[i] = Murmur3Long(in.long, hashes[i])
		}
	case shapeBytes:
		for i := range hashes {
			hashes[i] = Murmur3Bytes(in.bytes, hashes[i])
		}
	}
	return nil
}

// XxHash64FoldConst is Murmur3FoldConst for XxHash64.
func XxHash64FoldConst(t sparktype.Type, col arrow.Array, row int, hashes []int64) error {
	var scratch [16]byte
	in, err := valueAt(t, col, row, &scratch)
	if err != nil {
		return err
	}
	switch in.shape {
	case shapeInt:
		for i := range hashes {
			hashes[i] = XXH64Int(int32(in.long), hashes[i])
		}
	case shapeLong:
		for i := range hashes {
			hashes[i] = XXH64Long(in.long, hashes[i])
		}
	case shapeBytes:
		for i := range hashes {
			hashes[i] = XXH64Bytes(in.bytes, hashes[i])
		}
	}
	return nil
}

// Pmod writes Spark's partition ids for hashes into out (which may be hashes itself):
// HashPartitioning.partitionIdExpression is Pmod(Murmur3Hash(keys), n), and Pmod of ints is
// r = a % n, then (r + n) % n when r is negative: the non-negative remainder. n must be positive.
//
// A division per row would cost more than the hash, so the remainder is computed by Lemire's
// direct method (a 64-bit reciprocal, exact for 32-bit operands, "Faster Remainder by Direct
// Computation", 2019) on h + 2^31, which is non-negative: h mod n = ((h + 2^31) mod n - 2^31 mod n)
// mod n, the last step one conditional add done without a branch (hash signs are random).
func Pmod(hashes []int32, n int32, out []int32) {
	if n <= 0 {
		panic(fmt.Sprintf("sparkhash: Pmod by %d partitions", n))
	}
	out = out[:len(hashes)]
	d := uint64(n)
	m := ^uint64(0)/d + 1 // ceil(2^64 / n); 0 for n = 1, which makes every remainder 0
	c := int32((1 << 31) % d)
	for i, h := range hashes {
		r, _ := bits.Mul64(m*uint64(uint32(h)^0x80000000), d)
		x := int32(r) - c
		out[i] = x + n&(x>>31)
	}
}

// floatBits is what Spark hashes for a float: 0 for -0.0 and 0.0 (`f == -0.0f`), else
// Float.floatToIntBits, which maps every NaN to the canonical 0x7fc00000.
func floatBits(f float32) int32 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return 0x7fc00000
	}
	return int32(math.Float32bits(f))
}

// doubleBits is floatBits for doubles (Double.doubleToLongBits: NaN is 0x7ff8000000000000).
func doubleBits(d float64) int64 {
	switch {
	case d == 0:
		return 0
	case d != d:
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(d))
}

// UnscaledBytes writes Java's BigInteger.toByteArray of the 128-bit unscaled value into scratch and
// returns it: big-endian two's complement in the fewest bytes that keep the sign, i.e.
// bitLength()/8 + 1 bytes, where bitLength excludes the sign bit (for a negative x it is the
// bit length of ^x). Zero is one byte {0}. Spark hashes these bytes for wide decimals, Iceberg's
// bucket transform for every decimal.
func UnscaledBytes(n decimal128.Num, scratch *[16]byte) []byte {
	hi, lo := uint64(n.HighBits()), n.LowBits()
	binary.BigEndian.PutUint64(scratch[0:8], hi)
	binary.BigEndian.PutUint64(scratch[8:16], lo)
	if int64(hi) < 0 {
		hi, lo = ^hi, ^lo
	}
	bitLen := bits.Len64(lo)
	if hi != 0 {
		bitLen = 64 + bits.Len64(hi)
	}
	return scratch[16-(bitLen/8+1):]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---- typed access to a column ----

// column is a column opened for hashing: its typed values (the slice of its kind) and validity.
type column struct {
	arr       arrow.Array
	kind      sparktype.Kind
	precision int32
	bits      []byte // boolean values
	bitsOff   int
	i8        []int8
	i16       []int16
	i32       []int32
	date      []arrow.Date32
	i64       []int64
	ts        []arrow.Timestamp
	f32       []float32
	f64       []float64
	dec       []decimal128.Num
	offs      []int32 // string/binary offsets (len+1, array offset applied) ...
	data      []byte  // ... into data, which starts at offs[0] = base
	base      int32
}

func open(t sparktype.Type, col arrow.Array, rows int) (*column, error) {
	if !Hashable(t) {
		return nil, fmt.Errorf("sparkhash: values of type %s cannot be hashed", t)
	}
	if t.Kind == sparktype.Null {
		return &column{kind: t.Kind}, nil
	}
	if col.Len() != rows {
		return nil, fmt.Errorf("sparkhash: column of %d rows for %d hashes", col.Len(), rows)
	}
	if want := t.Arrow(); col.DataType().ID() != want.ID() {
		return nil, fmt.Errorf("sparkhash: column has Arrow type %s, expected %s for Spark type %s", col.DataType(), want, t)
	}
	c := &column{arr: col, kind: t.Kind, precision: t.Precision}
	var ok bool
	switch t.Kind {
	case sparktype.Boolean:
		var a *array.Boolean
		if a, ok = col.(*array.Boolean); ok {
			if buf := a.Data().Buffers()[1]; buf != nil {
				c.bits, c.bitsOff = buf.Bytes(), a.Data().Offset()
			}
		}
	case sparktype.Byte:
		var a *array.Int8
		if a, ok = col.(*array.Int8); ok {
			c.i8 = a.Int8Values()
		}
	case sparktype.Short:
		var a *array.Int16
		if a, ok = col.(*array.Int16); ok {
			c.i16 = a.Int16Values()
		}
	case sparktype.Int:
		var a *array.Int32
		if a, ok = col.(*array.Int32); ok {
			c.i32 = a.Int32Values()
		}
	case sparktype.Date:
		var a *array.Date32
		if a, ok = col.(*array.Date32); ok {
			c.date = a.Date32Values()
		}
	case sparktype.Long:
		var a *array.Int64
		if a, ok = col.(*array.Int64); ok {
			c.i64 = a.Int64Values()
		}
	case sparktype.Timestamp, sparktype.TimestampNTZ:
		var a *array.Timestamp
		if a, ok = col.(*array.Timestamp); ok {
			c.ts = a.TimestampValues()
		}
	case sparktype.Float:
		var a *array.Float32
		if a, ok = col.(*array.Float32); ok {
			c.f32 = a.Float32Values()
		}
	case sparktype.Double:
		var a *array.Float64
		if a, ok = col.(*array.Float64); ok {
			c.f64 = a.Float64Values()
		}
	case sparktype.Decimal:
		var a *array.Decimal128
		if a, ok = col.(*array.Decimal128); ok {
			c.dec = a.Values()
		}
	case sparktype.String, sparktype.Binary:
		var a interface {
			ValueOffsets() []int32
			ValueBytes() []byte
		}
		if a, ok = col.(interface {
			ValueOffsets() []int32
			ValueBytes() []byte
		}); ok {
			if c.offs, c.data = a.ValueOffsets(), a.ValueBytes(); len(c.offs) > 0 {
				c.base = c.offs[0]
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("sparkhash: unexpected %T for Spark type %s", col, t)
	}
	return c, nil
}

// each calls f with every maximal range [s, e) of valid rows, in order: once over all rows when
// the column has no nulls, never when all are null.
func (c *column) each(f func(s, e int)) {
	n := c.arr.Len()
	switch c.arr.NullN() {
	case 0:
		if n > 0 {
			f(0, n)
		}
		return
	case n:
		return
	}
	bm, off := c.arr.NullBitmapBytes(), c.arr.Data().Offset()
	for i := 0; i < n; {
		for i < n && !bitutil.BitIsSet(bm, off+i) {
			i++
		}
		s := i
		for i < n {
			// Whole bytes of valid rows at once, then bit by bit.
			if j := off + i; j&7 == 0 && i+8 <= n && bm[j>>3] == 0xff {
				i += 8
				continue
			}
			if !bitutil.BitIsSet(bm, off+i) {
				break
			}
			i++
		}
		if s < i {
			f(s, i)
		}
	}
}

type shape uint8

const (
	shapeNone shape = iota // null: the hash stays
	shapeInt
	shapeLong
	shapeBytes
)

// hashInput is one value as the hash function sees it (see the table at the top of this file).
type hashInput struct {
	shape shape
	long  int64 // the int or long
	bytes []byte
}

// valueAt converts row `row` of col to its hash input; decimal bytes go to scratch, string and
// binary bytes view the column.
func valueAt(t sparktype.Type, col arrow.Array, row int, scratch *[16]byte) (hashInput, error) {
	if t.Kind == sparktype.Null {
		return hashInput{}, nil
	}
	if row < 0 || row >= col.Len() {
		return hashInput{}, fmt.Errorf("sparkhash: row %d of a column of %d", row, col.Len())
	}
	c, err := open(t, col, col.Len())
	if err != nil || col.IsNull(row) {
		return hashInput{}, err
	}
	switch c.kind {
	case sparktype.Boolean:
		return hashInput{shape: shapeInt, long: int64(b2i(bitutil.BitIsSet(c.bits, c.bitsOff+row)))}, nil
	case sparktype.Byte:
		return hashInput{shape: shapeInt, long: int64(c.i8[row])}, nil
	case sparktype.Short:
		return hashInput{shape: shapeInt, long: int64(c.i16[row])}, nil
	case sparktype.Int:
		return hashInput{shape: shapeInt, long: int64(c.i32[row])}, nil
	case sparktype.Date:
		return hashInput{shape: shapeInt, long: int64(c.date[row])}, nil
	case sparktype.Long:
		return hashInput{shape: shapeLong, long: c.i64[row]}, nil
	case sparktype.Timestamp, sparktype.TimestampNTZ:
		return hashInput{shape: shapeLong, long: int64(c.ts[row])}, nil
	case sparktype.Float:
		return hashInput{shape: shapeInt, long: int64(floatBits(c.f32[row]))}, nil
	case sparktype.Double:
		return hashInput{shape: shapeLong, long: doubleBits(c.f64[row])}, nil
	case sparktype.Decimal:
		if c.precision <= maxLongDigits {
			return hashInput{shape: shapeLong, long: int64(c.dec[row].LowBits())}, nil
		}
		return hashInput{shape: shapeBytes, bytes: UnscaledBytes(c.dec[row], scratch)}, nil
	case sparktype.String, sparktype.Binary:
		return hashInput{shape: shapeBytes, bytes: c.data[c.offs[row]-c.base : c.offs[row+1]-c.base]}, nil
	}
	return hashInput{}, fmt.Errorf("sparkhash: values of type %s cannot be hashed", t)
}
