package sort

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Key stores: the values of one sort key for every buffered row, in typed Go slices indexed by row
// (the prefix encoders and the top-k's comparators need random access by row, which Arrow
// batches, one per input batch, do not give cheaply). The interface is called per batch or per run
// of rows, never per row; each implementation's loops are typed, and a comparator is a closure
// over typed slices, built once per batch or sort.
//
// Spark's ordering of each type (PhysicalDataType.ordering, and the code GenerateOrdering emits
// through CodeGenerator.genComp):
//   - integral types, date, timestamp, timestamp_ntz: signed integer order;
//   - float, double: SQLOrderingUtil.compareFloats/compareDoubles: x == y gives 0 (so -0.0 equals
//     0.0), else java.lang.Double.compare (NaN equals NaN and is above +Infinity);
//   - decimal: by value (Decimal.compare); one key has one type, so one scale;
//   - string (UTF8_BINARY) and binary: unsigned bytewise, a proper prefix first
//     (UTF8String.binaryCompare, ByteArray.compareBinary);
//   - boolean: false < true.
//
// Nulls are ordered by the SortOrder's null ordering whatever its direction (InterpretedOrdering
// tests nulls before applying the direction).

// keyStore holds one key's values.
type keyStore interface {
	// appendArray appends the values of an evaluated key column.
	appendArray(a arrow.Array) error
	len() int
	// truncate keeps the first n rows.
	truncate(n int)
	// compactFrom keeps, of the rows from on, those at from+sel[i] (sel increasing), moved to from+i.
	compactFrom(from int, sel []int32)
	// gatherRows replaces the store by the rows of ents, in that order.
	gatherRows(ents []entry)
	// nulls returns the per-row null flags, or nil when no row is null.
	nulls() []bool
	// fill sets the prefix of each entry at the given depth (see radix.go), XORed with flip
	// (all ones for a descending key, which reverses the unsigned order). Rows are non-null.
	fill(ents []entry, depth int, flip uint64)
	// refine reports whether rows sharing prefix p at this depth may still differ on this key
	// (the next depth must be compared); false means they are equal on the key.
	refine(p uint64, depth int, flip uint64) bool
	// comparator returns Spark's ordering of two rows on this key, direction and nulls applied.
	comparator(desc, nullsFirst bool) func(a, b int32) int
	// memSize is the Go heap the store holds (capacities), for the task's memory account.
	memSize() int64
}

// newKeyStore returns the store for a key of type t (KeyTypeSupported).
func newKeyStore(t sparktype.Type) (keyStore, error) {
	switch t.Kind {
	case sparktype.Boolean:
		return &boolKeys{}, nil
	case sparktype.Byte:
		return &intKeys[int8]{}, nil
	case sparktype.Short:
		return &intKeys[int16]{}, nil
	case sparktype.Int, sparktype.Date:
		return &intKeys[int32]{}, nil
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return &intKeys[int64]{}, nil
	case sparktype.Float:
		return &floatKeys[float32]{}, nil
	case sparktype.Double:
		return &floatKeys[float64]{}, nil
	case sparktype.Decimal:
		// An unscaled value of at most 18 digits fits an int64: one prefix level decides.
		return &decimalKeys{narrow: t.Precision <= 18}, nil
	case sparktype.String, sparktype.Binary:
		return &bytesKeys{offs: []int{0}}, nil
	}
	return nil, fmt.Errorf("sorting by type %s is not supported natively", t)
}

// ---- typed access to Arrow buffers ----

func reinterpret[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// fixedValues returns the values of a fixed-width column, offset applied.
func fixedValues[T any](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if d.Len() == 0 || len(bufs) < 2 || bufs[1] == nil {
		return nil
	}
	return reinterpret[T](bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
}

// validityBits returns a column's validity bitmap and bit offset, or nil when it has no nulls.
func validityBits(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	d := a.Data()
	if b := d.Buffers()[0]; b != nil {
		return b.Bytes(), d.Offset()
	}
	// Nulls without a bitmap: every row is null.
	return make([]byte, bitutil.BytesForBits(int64(d.Len()))), 0
}

// binaryParts returns the offsets (len+1, offset applied, absolute into data) and the data buffer
// of a string or binary column.
func binaryParts(a arrow.Array) ([]int32, []byte) {
	d := a.Data()
	bufs := d.Buffers()
	if d.Len() == 0 || bufs[1] == nil {
		return []int32{0}, nil
	}
	offs := reinterpret[int32](bufs[1].Bytes())[d.Offset() : d.Offset()+d.Len()+1]
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return offs, data
}

func checkType(a arrow.Array, id arrow.Type, what string) error {
	if a.DataType().ID() != id {
		return fmt.Errorf("sort key column is %s, expected %s (%s)", a.DataType(), id, what)
	}
	return nil
}

// grow makes room for n more elements, by half the capacity at least: append's own growth of
// large slices (a quarter) copies a store about four times its final size over a partition, this
// about twice, while over-reserving (the account counts capacities) by half at most.
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	out := make([]T, len(s), max(len(s)+n, cap(s)+cap(s)/2, 1024))
	copy(out, s)
	return out
}

// ---- nulls ----

// nullMask is the per-row null flags of a store; nil until a null arrives, so that keys without
// nulls cost nothing.
type nullMask struct{ isNull []bool }

func (m *nullMask) nulls() []bool { return m.isNull }

// appendValidity appends a's null flags; before is the number of rows already in the store.
func (m *nullMask) appendValidity(a arrow.Array, before int) {
	n := a.Len()
	bits, off := validityBits(a)
	if bits == nil {
		if m.isNull != nil {
			m.isNull = grow(m.isNull, n)
			for i := 0; i < n; i++ {
				m.isNull = append(m.isNull, false)
			}
		}
		return
	}
	if m.isNull == nil {
		m.isNull = make([]bool, before, before+n)
	}
	m.isNull = grow(m.isNull, n)
	for i := 0; i < n; i++ {
		m.isNull = append(m.isNull, !bitutil.BitIsSet(bits, off+i))
	}
}

func (m *nullMask) truncateNulls(n int) {
	if m.isNull != nil {
		m.isNull = m.isNull[:n]
	}
}

func (m *nullMask) compactNulls(from int, sel []int32) {
	if m.isNull == nil {
		return
	}
	for i, s := range sel {
		m.isNull[from+i] = m.isNull[from+int(s)]
	}
	m.isNull = m.isNull[:from+len(sel)]
}

func (m *nullMask) gatherNulls(ents []entry) {
	if m.isNull == nil {
		return
	}
	out := make([]bool, len(ents))
	some := false
	for i, e := range ents {
		out[i] = m.isNull[e.row]
		some = some || out[i]
	}
	m.isNull = nil
	if some {
		m.isNull = out
	}
}

// nullOrder compares two rows' nullness: done is false when both are non-null.
func nullOrder(na, nb, nullsFirst bool) (c int, done bool) {
	if !na && !nb {
		return 0, false
	}
	switch {
	case na && nb:
		return 0, true
	case na == nullsFirst: // a is null and nulls come first, or b is null and nulls come last
		return -1, true
	}
	return 1, true
}

// ---- integers (also date, timestamps) and booleans ----

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type intKeys[T signed] struct {
	nullMask
	vals []T
}

func (k *intKeys[T]) appendArray(a arrow.Array) error {
	var z T
	width := 0
	switch a.DataType().ID() {
	case arrow.INT8:
		width = 1
	case arrow.INT16:
		width = 2
	case arrow.INT32, arrow.DATE32:
		width = 4
	case arrow.INT64, arrow.TIMESTAMP:
		width = 8
	}
	if width != int(unsafe.Sizeof(z)) {
		return fmt.Errorf("sort key column is %s, expected a %d-bit integer", a.DataType(), unsafe.Sizeof(z)*8)
	}
	k.appendValidity(a, len(k.vals))
	if a.Len() > 0 {
		k.vals = append(grow(k.vals, a.Len()), fixedValues[T](a)...)
	}
	return nil
}

func (k *intKeys[T]) len() int { return len(k.vals) }

func (k *intKeys[T]) truncate(n int) { k.vals = k.vals[:n]; k.truncateNulls(n) }

func (k *intKeys[T]) compactFrom(from int, sel []int32) {
	for i, s := range sel {
		k.vals[from+i] = k.vals[from+int(s)]
	}
	k.vals = k.vals[:from+len(sel)]
	k.compactNulls(from, sel)
}

func (k *intKeys[T]) gatherRows(ents []entry) {
	out := make([]T, len(ents))
	for i, e := range ents {
		out[i] = k.vals[e.row]
	}
	k.vals = out
	k.gatherNulls(ents)
}

// The sign flip maps signed order onto unsigned order: one exact prefix level.
func (k *intKeys[T]) fill(ents []entry, _ int, flip uint64) {
	v := k.vals
	for i := range ents {
		ents[i].p = (uint64(int64(v[ents[i].row])) ^ 1<<63) ^ flip
	}
}

func (k *intKeys[T]) refine(uint64, int, uint64) bool { return false }

func (k *intKeys[T]) comparator(desc, nullsFirst bool) func(a, b int32) int {
	v, nulls, sign := k.vals, k.isNull, dirSign(desc)
	if nulls == nil {
		return func(a, b int32) int {
			x, y := v[a], v[b]
			if x < y {
				return -sign
			}
			if x > y {
				return sign
			}
			return 0
		}
	}
	return func(a, b int32) int {
		if c, done := nullOrder(nulls[a], nulls[b], nullsFirst); done {
			return c
		}
		x, y := v[a], v[b]
		if x < y {
			return -sign
		}
		if x > y {
			return sign
		}
		return 0
	}
}

func (k *intKeys[T]) memSize() int64 {
	var z T
	return int64(cap(k.vals))*int64(unsafe.Sizeof(z)) + int64(cap(k.isNull))
}

func dirSign(desc bool) int {
	if desc {
		return -1
	}
	return 1
}

// boolKeys stores false/true as 0/1, whose integer order is Spark's (false < true).
type boolKeys struct{ intKeys[int8] }

func (k *boolKeys) appendArray(a arrow.Array) error {
	if err := checkType(a, arrow.BOOL, "boolean"); err != nil {
		return err
	}
	k.appendValidity(a, len(k.vals))
	n := a.Len()
	if n == 0 {
		return nil
	}
	d := a.Data()
	bits, off := d.Buffers()[1].Bytes(), d.Offset()
	k.vals = grow(k.vals, n)
	for i := 0; i < n; i++ {
		k.vals = append(k.vals, int8(b2i(bitutil.BitIsSet(bits, off+i))))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---- float, double ----

type float interface{ ~float32 | ~float64 }

type floatKeys[T float] struct {
	nullMask
	vals []T
}

func (k *floatKeys[T]) appendArray(a arrow.Array) error {
	var z T
	id := arrow.FLOAT64
	if unsafe.Sizeof(z) == 4 {
		id = arrow.FLOAT32
	}
	if err := checkType(a, id, "floating point"); err != nil {
		return err
	}
	k.appendValidity(a, len(k.vals))
	if a.Len() > 0 {
		k.vals = append(grow(k.vals, a.Len()), fixedValues[T](a)...)
	}
	return nil
}

func (k *floatKeys[T]) len() int { return len(k.vals) }

func (k *floatKeys[T]) truncate(n int) { k.vals = k.vals[:n]; k.truncateNulls(n) }

func (k *floatKeys[T]) compactFrom(from int, sel []int32) {
	for i, s := range sel {
		k.vals[from+i] = k.vals[from+int(s)]
	}
	k.vals = k.vals[:from+len(sel)]
	k.compactNulls(from, sel)
}

func (k *floatKeys[T]) gatherRows(ents []entry) {
	out := make([]T, len(ents))
	for i, e := range ents {
		out[i] = k.vals[e.row]
	}
	k.vals = out
	k.gatherNulls(ents)
}

// floatPrefix maps Spark's float order onto unsigned integers, exactly: every NaN becomes the
// one canonical NaN (equal to each other, above +Infinity), -0.0 becomes 0.0 (they are equal, as
// DoublePrefixComparator also normalises), then positive values get the sign bit set and negative
// ones are complemented so that larger magnitudes sort lower. A float widens to a double exactly.
func floatPrefix(f float64) uint64 {
	var bits uint64
	switch {
	case f != f:
		bits = 0x7ff8000000000000
	case f == 0:
		bits = 0
	default:
		bits = math.Float64bits(f)
	}
	if bits>>63 != 0 {
		return ^bits
	}
	return bits | 1<<63
}

func (k *floatKeys[T]) fill(ents []entry, _ int, flip uint64) {
	v := k.vals
	for i := range ents {
		ents[i].p = floatPrefix(float64(v[ents[i].row])) ^ flip
	}
}

func (k *floatKeys[T]) refine(uint64, int, uint64) bool { return false }

// compareFloat is SQLOrderingUtil.compareDoubles.
func compareFloat[T float](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	}
	return -1
}

func (k *floatKeys[T]) comparator(desc, nullsFirst bool) func(a, b int32) int {
	v, nulls, sign := k.vals, k.isNull, dirSign(desc)
	if nulls == nil {
		return func(a, b int32) int { return sign * compareFloat(v[a], v[b]) }
	}
	return func(a, b int32) int {
		if c, done := nullOrder(nulls[a], nulls[b], nullsFirst); done {
			return c
		}
		return sign * compareFloat(v[a], v[b])
	}
}

func (k *floatKeys[T]) memSize() int64 {
	var z T
	return int64(cap(k.vals))*int64(unsafe.Sizeof(z)) + int64(cap(k.isNull))
}

// ---- decimal ----

// decimalKeys holds unscaled 128-bit values. Narrow decimals (precision <= 18) have one exact
// prefix level; wide ones two: the signed high word, then the unsigned low word.
type decimalKeys struct {
	nullMask
	vals   []decimal128.Num
	narrow bool
}

func (k *decimalKeys) appendArray(a arrow.Array) error {
	if err := checkType(a, arrow.DECIMAL128, "decimal"); err != nil {
		return err
	}
	k.appendValidity(a, len(k.vals))
	if a.Len() > 0 {
		k.vals = append(grow(k.vals, a.Len()), fixedValues[decimal128.Num](a)...)
	}
	return nil
}

func (k *decimalKeys) len() int { return len(k.vals) }

func (k *decimalKeys) truncate(n int) { k.vals = k.vals[:n]; k.truncateNulls(n) }

func (k *decimalKeys) compactFrom(from int, sel []int32) {
	for i, s := range sel {
		k.vals[from+i] = k.vals[from+int(s)]
	}
	k.vals = k.vals[:from+len(sel)]
	k.compactNulls(from, sel)
}

func (k *decimalKeys) gatherRows(ents []entry) {
	out := make([]decimal128.Num, len(ents))
	for i, e := range ents {
		out[i] = k.vals[e.row]
	}
	k.vals = out
	k.gatherNulls(ents)
}

func (k *decimalKeys) fill(ents []entry, depth int, flip uint64) {
	v := k.vals
	switch {
	case k.narrow:
		for i := range ents {
			ents[i].p = (v[ents[i].row].LowBits() ^ 1<<63) ^ flip
		}
	case depth == 0:
		for i := range ents {
			ents[i].p = (uint64(v[ents[i].row].HighBits()) ^ 1<<63) ^ flip
		}
	default:
		for i := range ents {
			ents[i].p = v[ents[i].row].LowBits() ^ flip
		}
	}
}

func (k *decimalKeys) refine(_ uint64, depth int, _ uint64) bool { return !k.narrow && depth == 0 }

func (k *decimalKeys) comparator(desc, nullsFirst bool) func(a, b int32) int {
	v, nulls, sign := k.vals, k.isNull, dirSign(desc)
	if nulls == nil {
		return func(a, b int32) int { return sign * v[a].Cmp(v[b]) }
	}
	return func(a, b int32) int {
		if c, done := nullOrder(nulls[a], nulls[b], nullsFirst); done {
			return c
		}
		return sign * v[a].Cmp(v[b])
	}
}

func (k *decimalKeys) memSize() int64 { return int64(cap(k.vals))*16 + int64(cap(k.isNull)) }

// ---- string, binary ----

// bytesKeys holds the values concatenated: row r is data[offs[r]:offs[r+1]].
//
// Its prefix at depth d covers bytes [7d, 7d+7) of the value, big-endian in the top seven bytes,
// and in the low byte the number of bytes left from 7d, capped at 8. That order is consistent with
// the bytewise order (zero padding sorts a proper prefix first, and so does the smaller count), and
// two prefixes with a count below 8 are equal only if the values are: a count of 8 is the one case
// that needs the next depth.
type bytesKeys struct {
	nullMask
	offs []int
	data []byte
}

func (k *bytesKeys) appendArray(a arrow.Array) error {
	if id := a.DataType().ID(); id != arrow.STRING && id != arrow.BINARY {
		return fmt.Errorf("sort key column is %s, expected string or binary", a.DataType())
	}
	n := a.Len()
	k.appendValidity(a, len(k.offs)-1)
	if n == 0 {
		return nil
	}
	offs, data := binaryParts(a)
	lo, hi := int(offs[0]), int(offs[n])
	base := len(k.data) - lo
	k.data = append(grow(k.data, hi-lo), data[lo:hi]...)
	k.offs = grow(k.offs, n)
	for _, o := range offs[1:] {
		k.offs = append(k.offs, int(o)+base)
	}
	return nil
}

func (k *bytesKeys) len() int { return len(k.offs) - 1 }

func (k *bytesKeys) truncate(n int) {
	k.data = k.data[:k.offs[n]]
	k.offs = k.offs[:n+1]
	k.truncateNulls(n)
}

func (k *bytesKeys) compactFrom(from int, sel []int32) {
	// In place: each kept value moves to a lower or equal position, and both of its offsets are
	// read before the one slot that may alias them is written.
	w := k.offs[from]
	for i, s := range sel {
		r := from + int(s)
		lo, hi := k.offs[r], k.offs[r+1]
		w += copy(k.data[w:], k.data[lo:hi])
		k.offs[from+i+1] = w
	}
	k.offs = k.offs[:from+len(sel)+1]
	k.data = k.data[:w]
	k.compactNulls(from, sel)
}

func (k *bytesKeys) gatherRows(ents []entry) {
	total := 0
	for _, e := range ents {
		total += k.offs[e.row+1] - k.offs[e.row]
	}
	offs := make([]int, len(ents)+1)
	data := make([]byte, 0, total)
	for i, e := range ents {
		data = append(data, k.data[k.offs[e.row]:k.offs[e.row+1]]...)
		offs[i+1] = len(data)
	}
	k.offs, k.data = offs, data
	k.gatherNulls(ents)
}

func (k *bytesKeys) fill(ents []entry, depth int, flip uint64) {
	offs, data, skip := k.offs, k.data, 7*depth
	for i := range ents {
		r := ents[i].row
		s := data[offs[r]+skip : offs[r+1]]
		var p uint64
		if len(s) >= 8 {
			p = binary.BigEndian.Uint64(s)&^0xff | 8
		} else {
			for j, c := range s {
				p |= uint64(c) << (56 - 8*j)
			}
			p |= uint64(len(s))
		}
		ents[i].p = p ^ flip
	}
}

func (k *bytesKeys) refine(p uint64, _ int, flip uint64) bool { return (p^flip)&0xff == 8 }

func (k *bytesKeys) comparator(desc, nullsFirst bool) func(a, b int32) int {
	offs, data, nulls, sign := k.offs, k.data, k.isNull, dirSign(desc)
	if nulls == nil {
		return func(a, b int32) int {
			return sign * compareBytes(data[offs[a]:offs[a+1]], data[offs[b]:offs[b+1]])
		}
	}
	return func(a, b int32) int {
		if c, done := nullOrder(nulls[a], nulls[b], nullsFirst); done {
			return c
		}
		return sign * compareBytes(data[offs[a]:offs[a+1]], data[offs[b]:offs[b+1]])
	}
}

// compareBytes is UTF8String.binaryCompare and ByteArray.compareBinary: unsigned bytes, then the
// shorter first, which is bytes.Compare's order.
func compareBytes(x, y []byte) int { return bytes.Compare(x, y) }

func (k *bytesKeys) memSize() int64 {
	return int64(cap(k.offs))*8 + int64(cap(k.data)) + int64(cap(k.isNull))
}
