package aggregate

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// packedTable groups by composite keys (or one string key) that fit in one or two 64-bit words:
// every key of a row is packed into the words a column at a time (a null bit per key, then the
// value's bits; a short string as its length and bytes), and the words are probed in an
// open-addressing table as an integer key would be. It replaces the bytes table's row-by-row encoding, byte hashing and byte
// comparison for keys like TPC-H Q1's (two 1-char strings).
//
// Fixed-width keys (booleans, integers, dates, timestamps, decimals up to 18 digits) always fit
// their layout; strings fit only up to the length the layout gives them, chosen at the first
// batch from its longest strings (as long as possible while the words stay as few). A later
// batch with a longer string migrates the table once to the bytes table, re-inserting
// its groups in group-id order, and every later call goes there. Floating keys are left to the
// bytes table (their NaN and -0.0 normalization).
//
// Group ids are dense in order of first appearance, as in every table; spill partitions hash the
// keys exactly as the bytes table does (see partitions), so that a task whose tables differ (one
// migrated, one not) still sends a key to one partition.
type packedTable struct {
	types     []sparktype.Type
	composite bool // false: one string key, partitioned and migrated as bytesTable's single key
	fields    []packedField
	words     int // 1 or 2; 0 until the first batch lays the fields out
	keys0     []uint64
	keys1     []uint64 // per group (keys1 with two words)
	slots     []uint32 // group id + 1; 0 = empty
	shift     uint
	w0, w1    []uint64 // per-row scratch
	bytes     *bytesTable
}

type packKind uint8

const (
	pkBool packKind = iota
	pkInt8
	pkInt16
	pkInt32
	pkInt64 // longs, timestamps
	pkDecimal
	pkString
)

// packedField places one key: its value bits at [shift, shift+width) of word, its null bit at
// nullShift of nullWord. A string's value is its bytes (little-endian, maxLen of them) with its
// length above them.
type packedField struct {
	kind              packKind
	width             uint
	word, shift       uint
	nullWord, nullBit uint
	maxLen            int // strings
}

// packedKind reports how a key of type t packs, and whether it does.
func packedKind(t sparktype.Type) (packKind, bool) {
	switch t.Kind {
	case sparktype.Boolean:
		return pkBool, true
	case sparktype.Byte:
		return pkInt8, true
	case sparktype.Short:
		return pkInt16, true
	case sparktype.Int, sparktype.Date:
		return pkInt32, true
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return pkInt64, true
	case sparktype.Decimal:
		return pkDecimal, t.Precision <= 18
	case sparktype.String, sparktype.Binary:
		return pkString, true
	}
	return 0, false
}

const maxPackedString = 7 // a string's bytes and 3 length bits stay within one word

// newPackedTable returns a packed table for the key types, or nil when they can never fit; not
// composite: one string or binary key (it stands for newBytesTable(types, false)).
func newPackedTable(types []sparktype.Type, composite bool) *packedTable {
	t := &packedTable{types: types, composite: composite}
	for _, ty := range types {
		k, ok := packedKind(ty)
		if !ok {
			return nil
		}
		t.fields = append(t.fields, packedField{kind: k})
	}
	if !t.layout(2) { // even empty strings do not fit
		return nil
	}
	return t
}

func (f *packedField) setWidth() {
	switch f.kind {
	case pkBool:
		f.width = 1
	case pkInt8:
		f.width = 8
	case pkInt16:
		f.width = 16
	case pkInt32:
		f.width = 32
	case pkInt64, pkDecimal:
		f.width = 64
	case pkString:
		f.width = uint(8*f.maxLen + bits.Len(uint(f.maxLen)))
	}
}

// layout places the fields (at their current maxLen) in the given number of words, widest
// first, each value in the first word with room, then the null bits; it reports whether they fit.
func (t *packedTable) layout(words int) bool {
	order := make([]int, len(t.fields))
	for i := range order {
		t.fields[i].setWidth()
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return t.fields[order[a]].width > t.fields[order[b]].width })
	used := make([]uint, words)
	place := func(w uint) (uint, uint, bool) {
		for wi := range used {
			if used[wi]+w <= 64 {
				s := used[wi]
				used[wi] += w
				return uint(wi), s, true
			}
		}
		return 0, 0, false
	}
	for _, i := range order {
		f := &t.fields[i]
		var ok bool
		if f.word, f.shift, ok = place(f.width); !ok {
			return false
		}
	}
	for i := range t.fields {
		f := &t.fields[i]
		var ok bool
		if f.nullWord, f.nullBit, ok = place(1); !ok {
			return false
		}
	}
	return true
}

// chooseLayout lays the fields out for the first batch: the fewest words that hold its longest
// strings, then each string as long as those words allow (so that later, longer strings still
// fit).
func (t *packedTable) chooseLayout(keys []arrow.Array, n int) bool {
	need := make([]int, len(t.fields))
	for i, f := range t.fields {
		if f.kind == pkString {
			if need[i] = maxStringLen(keys[i], n); need[i] > maxPackedString {
				return false
			}
		}
	}
	for words := 1; words <= 2; words++ {
		for i := range t.fields {
			t.fields[i].maxLen = need[i]
		}
		if !t.layout(words) {
			continue
		}
		for grew := true; grew; {
			grew = false
			for i := range t.fields {
				f := &t.fields[i]
				if f.kind != pkString || f.maxLen == maxPackedString {
					continue
				}
				f.maxLen++
				if t.layout(words) {
					grew = true
				} else {
					f.maxLen--
				}
			}
		}
		if !t.layout(words) {
			panic("aggregate: packed layout lost") // the last successful layout is restored
		}
		t.words = words
		t.slots = make([]uint32, 1024)
		t.shift = 64 - 10
		return true
	}
	return false
}

// maxStringLen returns the length of the longest non-null string of rows [0, n) of a column.
func maxStringLen(col arrow.Array, n int) int {
	offs, _, err := binaryParts(col)
	if err != nil {
		return maxPackedString + 1
	}
	valid, off := validity(col)
	m := 0
	for i := 0; i < n; i++ {
		if l := int(offs[i+1] - offs[i]); l > m && bitSet(valid, off, i) {
			m = l
		}
	}
	return m
}

// fits reports whether every string of the batch fits its field.
func (t *packedTable) fits(keys []arrow.Array, n int) bool {
	for i, f := range t.fields {
		if f.kind != pkString {
			continue
		}
		offs, _, err := binaryParts(keys[i])
		if err != nil {
			return false
		}
		for r := 0; r < n; r++ {
			if int(offs[r+1]-offs[r]) > f.maxLen {
				// a long value under a null does not count (rare: check the whole batch again)
				return maxStringLen(keys[i], n) <= f.maxLen
			}
		}
	}
	return true
}

func (t *packedTable) numGroups() int {
	if t.bytes != nil {
		return t.bytes.numGroups()
	}
	return len(t.keys0)
}

func (t *packedTable) memSize() int {
	if t.bytes != nil {
		return t.bytes.memSize()
	}
	return 8*(cap(t.keys0)+cap(t.keys1)+cap(t.w0)+cap(t.w1)) + 4*len(t.slots)
}

func (t *packedTable) assign(keys []arrow.Array, n int, gids []uint32) error {
	if t.bytes == nil {
		switch {
		case t.words == 0:
			if !t.chooseLayout(keys, n) {
				t.bytes = newBytesTable(t.types, t.composite)
			}
		}
	}
	if t.bytes != nil {
		return t.bytes.assign(keys, n, gids)
	}
	// Strings are packed before the batch is known to fit the layout: packing reads every
	// length anyway, and a second pass over the offsets (fits) ran on every batch. A batch with
	// a string over its field is rare; its words are then dropped and the table migrates.
	if cap(t.w0) < n {
		t.w0 = make([]uint64, n)
		if t.words == 2 {
			t.w1 = make([]uint64, n)
		}
	}
	w := [2][]uint64{t.w0[:n], nil}
	clear(w[0])
	if t.words == 2 {
		w[1] = t.w1[:n]
		clear(w[1])
	}
	long := false
	for i := range t.fields {
		f := &t.fields[i]
		lens, err := f.pack(w[f.word], w[f.nullWord], keys[i], n)
		if err != nil {
			return err
		}
		// lens is at least the longest string and below twice it: over maxLen, fits decides.
		long = long || (f.kind == pkString && lens > uint(f.maxLen))
	}
	if long && !t.fits(keys, n) {
		if err := t.migrate(); err != nil {
			return err
		}
		return t.bytes.assign(keys, n, gids)
	}
	if t.words == 1 {
		t.probe1(w[0], gids)
	} else {
		t.probe2(w[0], w[1], gids)
	}
	return nil
}

// pack ors the field's bits of rows [0, n) of col into vw (value word) and nw (null word). For a
// string field it returns the OR of the lengths of the non-null strings (see packStrings).
func (f *packedField) pack(vw, nw []uint64, col arrow.Array, n int) (lens uint, err error) {
	valid, off := validity(col)
	switch c := col.(type) {
	case *array.Boolean:
		vb, voff := boolBits(c)
		for i := range vw {
			if bitutil.BitIsSet(vb, voff+i) {
				vw[i] |= 1 << f.shift
			}
		}
	case *array.Int8:
		packInts(vw, fixedValues[int8](c), f.shift, f.width)
	case *array.Int16:
		packInts(vw, fixedValues[int16](c), f.shift, f.width)
	case *array.Int32:
		packInts(vw, fixedValues[int32](c), f.shift, f.width)
	case *array.Date32:
		packInts(vw, fixedValues[int32](c), f.shift, f.width)
	case *array.Int64:
		packInts(vw, fixedValues[int64](c), f.shift, f.width)
	case *array.Timestamp:
		packInts(vw, fixedValues[int64](c), f.shift, f.width)
	case *array.Decimal128:
		// up to 18 digits: the low word is the whole (sign-extended) value
		for i, v := range fixedValues[decimal128.Num](c)[:n] {
			vw[i] |= v.LowBits()
		}
	case *array.String, *array.Binary:
		offs, data, _ := binaryParts(c)
		lens = packStrings(vw, offs, data, valid, off, f.shift, uint(8*f.maxLen))
	default:
		return 0, fmt.Errorf("grouping key column of type %s is not supported", col.DataType())
	}
	if valid == nil {
		return lens, nil
	}
	// A null's value bits are cleared (its slot in the column holds anything) and its null bit set.
	vmask := ^(widthMask(f.width) << f.shift)
	for i := range vw {
		if !bitutil.BitIsSet(valid, off+i) {
			vw[i] &= vmask
			nw[i] |= 1 << f.nullBit
		}
	}
	return lens, nil
}

func widthMask(w uint) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func packInts[T int8 | int16 | int32 | int64](w []uint64, vals []T, shift, width uint) {
	mask := widthMask(width)
	vals = vals[:len(w)]
	for i, v := range vals {
		w[i] |= (uint64(v) & mask) << shift
	}
}

// packStrings packs each valid string (at most 7 bytes, when the OR of the lengths it returns
// is at most the field's) as its bytes with its length at bit lenAt; nulls are left to the
// caller. A string is read as the 8 bytes where it starts, masked to its length, unless it is too
// near the end of the data buffer. A longer string packs garbage, which the caller drops.
func packStrings(w []uint64, offs []int32, data []byte, valid []byte, off int, shift, lenAt uint) uint {
	offs = offs[:len(w)+1]
	safe := len(data) - 8
	var lens uint
	if valid == nil {
		for i := range w {
			o, l := int(offs[i]), uint(offs[i+1]-offs[i])
			lens |= l
			var v uint64
			if o <= safe {
				v = binary.LittleEndian.Uint64(data[o:o+8]) & strMask[l&7]
			} else {
				v = tailBytes(data[o : o+int(l)])
			}
			w[i] |= (v | uint64(l)<<(lenAt&63)) << (shift & 63)
		}
		return lens
	}
	for i := range w {
		if !bitutil.BitIsSet(valid, off+i) { // its length may be anything
			continue
		}
		o, l := int(offs[i]), uint(offs[i+1]-offs[i])
		lens |= l
		var v uint64
		if o <= safe {
			v = binary.LittleEndian.Uint64(data[o:o+8]) & strMask[l&7]
		} else {
			v = tailBytes(data[o : o+int(l)])
		}
		w[i] |= (v | uint64(l)<<(lenAt&63)) << (shift & 63)
	}
	return lens
}

// strMask[l] keeps a string's l bytes of a little-endian word.
var strMask = [8]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}

// tailBytes reads up to 7 bytes little-endian.
func tailBytes(b []byte) uint64 {
	var v uint64
	for j := len(b) - 1; j >= 0; j-- {
		v = v<<8 | uint64(b[j])
	}
	return v
}

// probe1 assigns groups for one-word keys.
func (t *packedTable) probe1(w []uint64, gids []uint32) {
	slots, shift, mask := t.slots, t.shift, uint64(len(t.slots)-1)
	for i, k := range w {
		s := (k * fibMul) >> shift
		for {
			e := slots[s]
			if e == 0 {
				g := uint32(len(t.keys0))
				t.keys0 = append(t.keys0, k)
				slots[s] = g + 1
				gids[i] = g
				if 2*len(t.keys0) > len(slots) {
					t.grow()
					slots, shift, mask = t.slots, t.shift, uint64(len(t.slots)-1)
				}
				break
			}
			if t.keys0[e-1] == k {
				gids[i] = e - 1
				break
			}
			s = (s + 1) & mask
		}
	}
}

func hash2(k0, k1 uint64) uint64 {
	return (k0 ^ bits.RotateLeft64(k1*fibMul, 32)) * fibMul
}

// probe2 assigns groups for two-word keys.
func (t *packedTable) probe2(w0, w1 []uint64, gids []uint32) {
	slots, shift, mask := t.slots, t.shift, uint64(len(t.slots)-1)
	w1 = w1[:len(w0)]
	for i, k0 := range w0 {
		k1 := w1[i]
		s := hash2(k0, k1) >> shift
		for {
			e := slots[s]
			if e == 0 {
				g := uint32(len(t.keys0))
				t.keys0 = append(t.keys0, k0)
				t.keys1 = append(t.keys1, k1)
				slots[s] = g + 1
				gids[i] = g
				if 2*len(t.keys0) > len(slots) {
					t.grow()
					slots, shift, mask = t.slots, t.shift, uint64(len(t.slots)-1)
				}
				break
			}
			if t.keys0[e-1] == k0 && t.keys1[e-1] == k1 {
				gids[i] = e - 1
				break
			}
			s = (s + 1) & mask
		}
	}
}

// grow doubles the slot array and re-inserts every group.
func (t *packedTable) grow() {
	n := 2 * len(t.slots)
	t.slots = make([]uint32, n)
	t.shift--
	mask := uint64(n - 1)
	for g, k0 := range t.keys0 {
		var s uint64
		if t.words == 1 {
			s = (k0 * fibMul) >> t.shift
		} else {
			s = hash2(k0, t.keys1[g]) >> t.shift
		}
		for t.slots[s] != 0 {
			s = (s + 1) & mask
		}
		t.slots[s] = uint32(g + 1)
	}
}

// migrate moves the groups to a composite bytes table, in group-id order (so ids are kept).
func (t *packedTable) migrate() error {
	b := newBytesTable(t.types, t.composite)
	n := t.numGroups()
	const step = 4096
	gids := make([]uint32, step)
	for lo := 0; lo < n; lo += step {
		hi := min(n, lo+step)
		cols, err := t.keyColumns(scratchAlloc, lo, hi)
		if err != nil {
			return err
		}
		err = b.assign(cols, hi-lo, gids)
		for _, c := range cols {
			c.Release()
		}
		if err != nil {
			return err
		}
		if b.numGroups() != hi {
			return fmt.Errorf("aggregate: packed keys migrated to %d groups, want %d", b.numGroups(), hi)
		}
	}
	t.bytes = b
	t.keys0, t.keys1, t.slots, t.w0, t.w1 = nil, nil, nil, nil, nil
	return nil
}

// scratchAlloc holds short-lived key columns (migration, spill partitioning), released at once.
var scratchAlloc = memory.NewGoAllocator()

// partitions hashes each group's composite byte encoding (keyEncoder) with the task's seed, as
// the composite bytes table does (a single string key: its bytes, the null key to partition 0, as
// the bytes table's single key); spilling is rare, so the keys are rebuilt as columns for it.
func (t *packedTable) partitions(seed spillSeed, shift uint, lo, hi int, out []uint8) {
	if t.bytes != nil {
		t.bytes.partitions(seed, shift, lo, hi, out)
		return
	}
	out = out[:hi-lo]
	cols, err := t.keyColumns(scratchAlloc, lo, hi)
	if err != nil {
		panic(err) // keyColumns of a packed table does not fail
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if !t.composite {
		offs, data, _ := binaryParts(cols[0])
		for i := range out {
			if cols[0].IsNull(i) {
				out[i] = 0
				continue
			}
			out[i] = uint8((maphash.Bytes(seed.bytes, data[offs[i]:offs[i+1]]) >> shift) & spillMask)
		}
		return
	}
	enc := keyEncoder{types: t.types}
	buf, offs := enc.encode(cols, hi-lo)
	for i := range out {
		out[i] = uint8((maphash.Bytes(seed.bytes, buf[offs[i]:offs[i+1]]) >> shift) & spillMask)
	}
}

func (t *packedTable) keyColumns(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	if t.bytes != nil {
		return t.bytes.keyColumns(alloc, lo, hi)
	}
	n := hi - lo
	out := make([]arrow.Array, len(t.fields))
	words := [2][]uint64{t.keys0[lo:hi], nil}
	if t.words == 2 {
		words[1] = t.keys1[lo:hi]
	}
	for fi, f := range t.fields {
		vw, nw := words[f.word], words[f.nullWord]
		has := make([]bool, n)
		for i, x := range nw {
			has[i] = x>>f.nullBit&1 == 0
		}
		ty := t.types[fi]
		switch f.kind {
		case pkString:
			lenAt := uint(8 * f.maxLen)
			strs := make([]string, n)
			var b [8]byte
			for i, x := range vw {
				v := x >> f.shift
				l := int(v >> lenAt & widthMask(uint(bits.Len(uint(f.maxLen)))))
				binary.LittleEndian.PutUint64(b[:], v)
				strs[i] = string(b[:l])
			}
			out[fi] = buildBinary(alloc, ty, strs, has)
		case pkDecimal:
			decs := make([]decimal128.Num, n)
			for i, x := range vw {
				decs[i] = decimal128.FromI64(int64(x))
			}
			out[fi] = buildFixed(alloc, ty, decs, has)
		default:
			codes := make([]int64, n)
			for i, x := range vw {
				v := x >> f.shift & widthMask(f.width)
				if f.kind == pkBool {
					codes[i] = int64(v)
				} else {
					codes[i] = int64(v<<(64-f.width)) >> (64 - f.width) // sign-extend
				}
			}
			out[fi] = fromInt64(alloc, ty, codes, has)
		}
	}
	return out, nil
}
