package aggregate

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// groupTable maps the grouping keys of each input row to a dense group id (0, 1, 2, ... in order of
// first appearance). Keys are hashed a column at a time; probing is open addressing with linear
// probing over a power-of-two slot array holding group id + 1 (0 = empty).
//
// Floating keys are normalized (every NaN to Java's canonical NaN, -0.0 to 0.0) before hashing and
// stored normalized, as Spark's NormalizeNaNAndZero does; null is a key value of its own.
type groupTable interface {
	// assign fills gids[:n] with the group of each row of the key columns, creating groups.
	assign(keys []arrow.Array, n int, gids []uint32) error
	numGroups() int
	// keyColumns builds the key columns of groups [lo, hi) from alloc.
	keyColumns(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error)
	// memSize estimates the bytes held (accounted to the task's memory).
	memSize() int
	// partitions fills out[:hi-lo] with the spill partition of groups [lo, hi): bits [shift,
	// shift+spillBits) of a hash of the key under seed, independent of the table's own hashing
	// and the same in every table of a task (spill.go).
	partitions(seed spillSeed, shift uint, lo, hi int, out []uint8)
}

// newGroupTable picks the table for the key types: none, one integral-like key (integers, dates,
// timestamps, booleans, floats as normalized bits), one string/binary key or composite keys
// packed into one or two words (packedtable.go) when their types and values allow (otherwise the
// bytes table: one string key, or composite keys encoded to bytes).
func newGroupTable(types []sparktype.Type) groupTable {
	switch {
	case len(types) == 0:
		return &noKeyTable{}
	case len(types) == 1 && intLike(types[0]):
		return newIntTable(types[0])
	case len(types) == 1 && (types[0].Kind == sparktype.String || types[0].Kind == sparktype.Binary):
		return newPackedTable(types, false) // strings of up to 7 bytes; longer ones migrate
	default:
		if t := newPackedTable(types, true); t != nil {
			return t
		}
		return newBytesTable(types, true)
	}
}

// keyTypeSupported reports whether grouping by t is supported.
func keyTypeSupported(t sparktype.Type) bool {
	return intLike(t) || t.Kind == sparktype.Decimal || t.Kind == sparktype.String || t.Kind == sparktype.Binary
}

func intLike(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ, sparktype.Float, sparktype.Double:
		return true
	}
	return false
}

// noKeyTable: aggregation without grouping keys has exactly one group, even over no input.
type noKeyTable struct{}

func (*noKeyTable) assign(_ []arrow.Array, n int, gids []uint32) error {
	clear(gids[:n])
	return nil
}
func (*noKeyTable) numGroups() int { return 1 }
func (*noKeyTable) keyColumns(memory.Allocator, int, int) ([]arrow.Array, error) {
	return nil, nil
}
func (*noKeyTable) memSize() int { return 0 }
func (*noKeyTable) partitions(_ spillSeed, _ uint, lo, hi int, out []uint8) {
	clear(out[:hi-lo])
}

const (
	javaDoubleNaN = 0x7ff8000000000000
	javaFloatNaN  = 0x7fc00000
	fibMul        = 0x9E3779B97F4A7C15
)

// toInt64 converts an integral-like key column to int64 codes (floats as normalized bits).
func toInt64(col arrow.Array, scratch []int64) ([]int64, error) {
	n := col.Len()
	if cap(scratch) < n {
		scratch = make([]int64, n)
	}
	out := scratch[:n]
	switch c := col.(type) {
	case *array.Int64:
		return fixedValues[int64](c), nil
	case *array.Timestamp:
		return fixedValues[int64](c), nil
	case *array.Int32:
		widen(out, fixedValues[int32](c))
	case *array.Date32:
		widen(out, fixedValues[int32](c))
	case *array.Int16:
		widen(out, fixedValues[int16](c))
	case *array.Int8:
		widen(out, fixedValues[int8](c))
	case *array.Float64:
		for i, v := range fixedValues[float64](c) {
			out[i] = normDouble(v)
		}
	case *array.Float32:
		for i, v := range fixedValues[float32](c) {
			out[i] = normFloat(v)
		}
	case *array.Boolean:
		bits, off := boolBits(c)
		for i := range out {
			if bitutil.BitIsSet(bits, off+i) {
				out[i] = 1
			} else {
				out[i] = 0
			}
		}
	default:
		return nil, fmt.Errorf("grouping key column of type %s is not supported", col.DataType())
	}
	return out, nil
}

func widen[T int8 | int16 | int32](out []int64, in []T) {
	out = out[:len(in)]
	for i, v := range in {
		out[i] = int64(v)
	}
}

func normDouble(v float64) int64 {
	if v != v {
		return javaDoubleNaN
	}
	if v == 0 {
		return 0
	}
	return int64(math.Float64bits(v))
}

func normFloat(v float32) int64 {
	if v != v {
		return javaFloatNaN
	}
	if v == 0 {
		return 0
	}
	return int64(math.Float32bits(v))
}

// fromInt64 builds a key column of type t from int64 codes; has (may be nil) marks non-nulls.
func fromInt64(alloc memory.Allocator, t sparktype.Type, codes []int64, has []bool) arrow.Array {
	switch t.Kind {
	case sparktype.Boolean:
		b := make([]bool, len(codes))
		for i, c := range codes {
			b[i] = c != 0
		}
		return buildBool(alloc, b, has)
	case sparktype.Byte:
		o := newFixedOut[int8](alloc, len(codes))
		for i, c := range codes {
			o.V[i] = int8(c)
		}
		return finishWith(alloc, o, has, t)
	case sparktype.Short:
		o := newFixedOut[int16](alloc, len(codes))
		for i, c := range codes {
			o.V[i] = int16(c)
		}
		return finishWith(alloc, o, has, t)
	case sparktype.Int, sparktype.Date:
		o := newFixedOut[int32](alloc, len(codes))
		for i, c := range codes {
			o.V[i] = int32(c)
		}
		return finishWith(alloc, o, has, t)
	case sparktype.Float:
		o := newFixedOut[float32](alloc, len(codes))
		for i, c := range codes {
			o.V[i] = math.Float32frombits(uint32(c))
		}
		return finishWith(alloc, o, has, t)
	case sparktype.Double:
		o := newFixedOut[float64](alloc, len(codes))
		for i, c := range codes {
			o.V[i] = math.Float64frombits(uint64(c))
		}
		return finishWith(alloc, o, has, t)
	default: // long, timestamps
		return buildFixed(alloc, t, codes, has)
	}
}

func finishWith[T arrow.FixedWidthType](alloc memory.Allocator, o *fixedOut[T], has []bool, t sparktype.Type) arrow.Array {
	for i, h := range has {
		if !h {
			o.setNull(alloc, i)
		}
	}
	return o.finish(t.Arrow())
}

// intTable groups by one integral-like key.
type intTable struct {
	t         sparktype.Type
	keys      []int64 // per group; 0 for the null group
	slots     []uint32
	shift     uint
	nullGroup int
	scratch   []int64
}

func newIntTable(t sparktype.Type) *intTable {
	return &intTable{t: t, slots: make([]uint32, 1024), shift: 64 - 10, nullGroup: -1}
}

func (t *intTable) numGroups() int { return len(t.keys) }
func (t *intTable) memSize() int   { return 8*cap(t.keys) + 4*len(t.slots) + 8*cap(t.scratch) }

func (t *intTable) nullGID() uint32 {
	if t.nullGroup < 0 {
		t.nullGroup = len(t.keys)
		t.keys = append(t.keys, 0)
		t.maybeGrow()
	}
	return uint32(t.nullGroup)
}

func (t *intTable) maybeGrow() {
	if 2*len(t.keys) <= len(t.slots) {
		return
	}
	n := 2 * len(t.slots)
	t.slots = make([]uint32, n)
	t.shift--
	mask := uint64(n - 1)
	for g, k := range t.keys {
		if g == t.nullGroup {
			continue
		}
		s := (uint64(k) * fibMul) >> t.shift
		for t.slots[s] != 0 {
			s = (s + 1) & mask
		}
		t.slots[s] = uint32(g + 1)
	}
}

func (t *intTable) assign(keys []arrow.Array, n int, gids []uint32) error {
	col := keys[0]
	vals, err := toInt64(col, t.scratch)
	if err != nil {
		return err
	}
	if id := col.DataType().ID(); id != arrow.INT64 && id != arrow.TIMESTAMP {
		t.scratch = vals
	}
	valid, off := validity(col)
	slots, shift, mask := t.slots, t.shift, uint64(len(t.slots)-1)
	for i, k := range vals[:n] {
		if valid != nil && !bitutil.BitIsSet(valid, off+i) {
			gids[i] = t.nullGID()
			slots, shift, mask = t.slots, t.shift, uint64(len(t.slots)-1)
			continue
		}
		s := (uint64(k) * fibMul) >> shift
		for {
			e := slots[s]
			if e == 0 {
				g := len(t.keys)
				t.keys = append(t.keys, k)
				slots[s] = uint32(g + 1)
				gids[i] = uint32(g)
				if 2*len(t.keys) > len(slots) {
					t.maybeGrow()
					slots, shift, mask = t.slots, t.shift, uint64(len(t.slots)-1)
				}
				break
			}
			if t.keys[e-1] == k && int(e-1) != t.nullGroup {
				gids[i] = e - 1
				break
			}
			s = (s + 1) & mask
		}
	}
	return nil
}

func (t *intTable) partitions(seed spillSeed, shift uint, lo, hi int, out []uint8) {
	out = out[:hi-lo]
	for i, k := range t.keys[lo:hi] {
		out[i] = uint8((mix64(uint64(k)^seed.bits) >> shift) & spillMask)
	}
	if t.nullGroup >= lo && t.nullGroup < hi {
		out[t.nullGroup-lo] = 0
	}
}

func (t *intTable) keyColumns(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	var has []bool
	if t.nullGroup >= lo && t.nullGroup < hi {
		has = make([]bool, hi-lo)
		for i := range has {
			has[i] = true
		}
		has[t.nullGroup-lo] = false
	}
	return []arrow.Array{fromInt64(alloc, t.t, t.keys[lo:hi], has)}, nil
}

// bytesTable groups by one string/binary key, or by several keys of any supported types encoded
// row by row into bytes (composite).
type bytesTable struct {
	types     []sparktype.Type
	composite bool
	seed      maphash.Seed
	arena     []byte
	offs      []int // group g's key is arena[offs[g]:offs[g+1]]
	hashes    []uint64
	slots     []uint32
	nullGroup int
	enc       keyEncoder
}

func newBytesTable(types []sparktype.Type, composite bool) *bytesTable {
	return &bytesTable{types: types, composite: composite, seed: maphash.MakeSeed(),
		offs: []int{0}, slots: make([]uint32, 1024), nullGroup: -1, enc: keyEncoder{types: types}}
}

func (t *bytesTable) numGroups() int { return len(t.hashes) }
func (t *bytesTable) memSize() int {
	return cap(t.arena) + 8*cap(t.offs) + 8*cap(t.hashes) + 4*len(t.slots) + cap(t.enc.buf) + 8*cap(t.enc.rowOffs)
}

func (t *bytesTable) newGroup(b []byte, h uint64) uint32 {
	g := len(t.hashes)
	t.arena = append(t.arena, b...)
	t.offs = append(t.offs, len(t.arena))
	t.hashes = append(t.hashes, h)
	if 2*len(t.hashes) > len(t.slots) {
		n := 2 * len(t.slots)
		t.slots = make([]uint32, n)
		mask := uint64(n - 1)
		for og, oh := range t.hashes[:g] {
			if og == t.nullGroup {
				continue
			}
			s := oh & mask
			for t.slots[s] != 0 {
				s = (s + 1) & mask
			}
			t.slots[s] = uint32(og + 1)
		}
		// the caller inserts g itself
	}
	return uint32(g)
}

func (t *bytesTable) find(b []byte) uint32 {
	h := maphash.Bytes(t.seed, b)
	mask := uint64(len(t.slots) - 1)
	s := h & mask
	for {
		e := t.slots[s]
		if e == 0 {
			g := t.newGroup(b, h)
			if len(t.slots)-1 != int(mask) { // grown: find a free slot in the new array
				mask = uint64(len(t.slots) - 1)
				s = h & mask
				for t.slots[s] != 0 {
					s = (s + 1) & mask
				}
			}
			t.slots[s] = g + 1
			return g
		}
		g := e - 1
		if t.hashes[g] == h && int(g) != t.nullGroup && string(t.arena[t.offs[g]:t.offs[g+1]]) == string(b) {
			return g
		}
		s = (s + 1) & mask
	}
}

func (t *bytesTable) assign(keys []arrow.Array, n int, gids []uint32) error {
	if t.composite {
		buf, offs := t.enc.encode(keys, n)
		for i := 0; i < n; i++ {
			gids[i] = t.find(buf[offs[i]:offs[i+1]])
		}
		return nil
	}
	col := keys[0]
	offs, data, err := binaryParts(col)
	if err != nil {
		return err
	}
	valid, off := validity(col)
	for i := 0; i < n; i++ {
		if valid != nil && !bitutil.BitIsSet(valid, off+i) {
			if t.nullGroup < 0 {
				t.nullGroup = int(t.newGroup(nil, 0))
			}
			gids[i] = uint32(t.nullGroup)
			continue
		}
		gids[i] = t.find(data[offs[i]:offs[i+1]])
	}
	return nil
}

func (t *bytesTable) partitions(seed spillSeed, shift uint, lo, hi int, out []uint8) {
	out = out[:hi-lo]
	for g := lo; g < hi; g++ {
		out[g-lo] = uint8((maphash.Bytes(seed.bytes, t.arena[t.offs[g]:t.offs[g+1]]) >> shift) & spillMask)
	}
	if !t.composite && t.nullGroup >= lo && t.nullGroup < hi {
		out[t.nullGroup-lo] = 0
	}
}

func (t *bytesTable) keyColumns(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	if !t.composite {
		vals := make([]string, hi-lo)
		var has []bool
		for g := lo; g < hi; g++ {
			vals[g-lo] = string(t.arena[t.offs[g]:t.offs[g+1]])
		}
		if t.nullGroup >= lo && t.nullGroup < hi {
			has = make([]bool, hi-lo)
			for i := range has {
				has[i] = true
			}
			has[t.nullGroup-lo] = false
		}
		return []arrow.Array{buildBinary(alloc, t.types[0], vals, has)}, nil
	}
	return t.enc.decode(alloc, t.arena, t.offs, lo, hi)
}

// keyEncoder encodes several key columns into one byte string per row: per column a validity
// byte, then 8 bytes for integral-like codes, 16 for decimals, or a 4-byte length and the bytes.
type keyEncoder struct {
	types   []sparktype.Type
	buf     []byte
	rowOffs []int
	cursor  []int
	scratch []int64
}

func (e *keyEncoder) encode(cols []arrow.Array, n int) ([]byte, []int) {
	if cap(e.rowOffs) < n+1 {
		e.rowOffs = make([]int, n+1)
		e.cursor = make([]int, n)
	}
	offs, cur := e.rowOffs[:n+1], e.cursor[:n]
	fixed := 0
	for _, t := range e.types {
		switch {
		case intLike(t):
			fixed += 9
		case t.Kind == sparktype.Decimal:
			fixed += 17
		default:
			fixed += 5
		}
	}
	for i := range cur {
		cur[i] = fixed
	}
	for ci, t := range e.types {
		if t.Kind == sparktype.String || t.Kind == sparktype.Binary {
			so, _, _ := binaryParts(cols[ci])
			valid, off := validity(cols[ci])
			for i := 0; i < n; i++ {
				if valid == nil || bitutil.BitIsSet(valid, off+i) {
					cur[i] += int(so[i+1] - so[i])
				}
			}
		}
	}
	total := 0
	for i := 0; i < n; i++ {
		offs[i] = total
		total += cur[i]
	}
	offs[n] = total
	if cap(e.buf) < total {
		e.buf = make([]byte, total)
	}
	buf := e.buf[:total]
	copy(cur, offs[:n])
	for ci, t := range e.types {
		col := cols[ci]
		valid, off := validity(col)
		isValid := func(i int) bool { return valid == nil || bitutil.BitIsSet(valid, off+i) }
		switch {
		case intLike(t):
			codes, _ := toInt64(col, e.scratch)
			if col.DataType().ID() != arrow.INT64 && col.DataType().ID() != arrow.TIMESTAMP {
				e.scratch = codes
			}
			for i := 0; i < n; i++ {
				p := cur[i]
				if isValid(i) {
					buf[p] = 1
					binary.LittleEndian.PutUint64(buf[p+1:], uint64(codes[i]))
				} else {
					buf[p] = 0
					clear(buf[p+1 : p+9])
				}
				cur[i] = p + 9
			}
		case t.Kind == sparktype.Decimal:
			vals := fixedValues[decimal128.Num](col)
			for i := 0; i < n; i++ {
				p := cur[i]
				if isValid(i) {
					buf[p] = 1
					binary.LittleEndian.PutUint64(buf[p+1:], vals[i].LowBits())
					binary.LittleEndian.PutUint64(buf[p+9:], uint64(vals[i].HighBits()))
				} else {
					buf[p] = 0
					clear(buf[p+1 : p+17])
				}
				cur[i] = p + 17
			}
		default:
			so, data, _ := binaryParts(col)
			for i := 0; i < n; i++ {
				p := cur[i]
				if isValid(i) {
					b := data[so[i]:so[i+1]]
					buf[p] = 1
					binary.LittleEndian.PutUint32(buf[p+1:], uint32(len(b)))
					copy(buf[p+5:], b)
					cur[i] = p + 5 + len(b)
				} else {
					buf[p] = 0
					clear(buf[p+1 : p+5])
					cur[i] = p + 5
				}
			}
		}
	}
	return buf, offs
}

func (e *keyEncoder) decode(alloc memory.Allocator, arena []byte, offs []int, lo, hi int) ([]arrow.Array, error) {
	n := hi - lo
	k := len(e.types)
	has := make([][]bool, k)
	codes := make([][]int64, k)
	decs := make([][]decimal128.Num, k)
	strs := make([][]string, k)
	for ci, t := range e.types {
		has[ci] = make([]bool, n)
		switch {
		case intLike(t):
			codes[ci] = make([]int64, n)
		case t.Kind == sparktype.Decimal:
			decs[ci] = make([]decimal128.Num, n)
		default:
			strs[ci] = make([]string, n)
		}
	}
	for g := lo; g < hi; g++ {
		row := arena[offs[g]:offs[g+1]]
		p := 0
		for ci, t := range e.types {
			valid := row[p] == 1
			has[ci][g-lo] = valid
			switch {
			case intLike(t):
				codes[ci][g-lo] = int64(binary.LittleEndian.Uint64(row[p+1:]))
				p += 9
			case t.Kind == sparktype.Decimal:
				decs[ci][g-lo] = decimal128.New(int64(binary.LittleEndian.Uint64(row[p+9:])),
					binary.LittleEndian.Uint64(row[p+1:]))
				p += 17
			default:
				if valid {
					l := int(binary.LittleEndian.Uint32(row[p+1:]))
					strs[ci][g-lo] = string(row[p+5 : p+5+l])
					p += 5 + l
				} else {
					p += 5
				}
			}
		}
	}
	out := make([]arrow.Array, k)
	for ci, t := range e.types {
		switch {
		case intLike(t):
			out[ci] = fromInt64(alloc, t, codes[ci], has[ci])
		case t.Kind == sparktype.Decimal:
			out[ci] = buildFixed(alloc, t, decs[ci], has[ci])
		default:
			out[ci] = buildBinary(alloc, t, strs[ci], has[ci])
		}
	}
	return out, nil
}
