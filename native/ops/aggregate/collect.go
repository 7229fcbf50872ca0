package aggregate

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// collect_list / array_agg (CollectList in collect.scala): a TypedImperativeAggregate whose
// object buffer is the list of the non-null input values in the order they arrive; merge
// appends the other list; the result is that list as array<T> (containsNull = false), empty for
// a group without values.
//
// Between aggregates the buffer is a single BinaryType column holding Collect.serialize's bytes,
// and either side may be Spark's, so those bytes are reproduced exactly: an UnsafeRow of one
// field (an 8-byte null bitset, all zero; the field's word (offset 16) << 32 | size) followed by
// the UnsafeArrayData of the list: numElements as a long, a null bitset of one long per 64
// elements (all zero: the list holds no nulls), the fixed-width region of numElements slots of
// the element's size (1, 2, 4 or 8 bytes; 8 for strings and binary, holding offset << 32 |
// length relative to the array's start) zero-padded to a multiple of 8, then for strings and
// binary each value's bytes, zero-padded to a multiple of 8. All words are little-endian
// (Spark's Platform order on the platforms this engine runs on). Decimals of precision <= 18 are
// their unscaled longs.
//
// The order of a list is part of the answer. Without grouping keys Spark's (and so this) list is
// in input order within a task. With keys Spark's ObjectHashAggregate switches to sort-based
// aggregation once a task has seen 128 groups (spark.sql.objectHashAggregate.sortBased.
// fallbackThreshold): it dumps its map into sorted runs and merges them, and the lists come out
// in pieces ordered by that merge, not in input order. That is not reproduced, so collect_list
// is native only without grouping keys.
//
// Native for booleans, integral types, float, double, decimals of precision <= 18, dates,
// timestamps, strings and binary, in every mode: Partial and PartialMerge end in the buffer
// above, Final and Complete in the array<T> column (the list in arrival order: in Final mode the
// order in which the partial buffers arrive, as in Spark's own merge). Wider decimals
// (BigInteger bytes in the var-length region) and nested elements are refused.
// collect_set (collectset.go) and listagg (listagg.go) share this buffer format.
//
// The collected values live in Go slices per group; their size is reported to the operator's
// memory account (memSize) like the per-group states of the other families.
func init() { registerFunction("CollectList", newCollectList) }

func newCollectList(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	if !c.singleGroup {
		return nil, refuse("collect_list with grouping keys is not supported natively: past %d groups in a task "+
			"Spark's ObjectHashAggregate falls back to sort-based aggregation (spark.sql.objectHashAggregate."+
			"sortBased.fallbackThreshold), which reorders the lists; that order is not reproduced", 128)
	}
	var mk func(in *input) function
	switch t.Kind {
	case sparktype.Boolean:
		mk = func(in *input) function { return &collectFixed[bool]{in: in, t: t} }
	case sparktype.Byte:
		mk = func(in *input) function { return &collectFixed[int8]{in: in, t: t} }
	case sparktype.Short:
		mk = func(in *input) function { return &collectFixed[int16]{in: in, t: t} }
	case sparktype.Int, sparktype.Date:
		mk = func(in *input) function { return &collectFixed[int32]{in: in, t: t} }
	case sparktype.Float:
		mk = func(in *input) function { return &collectFixed[float32]{in: in, t: t} }
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		mk = func(in *input) function { return &collectFixed[int64]{in: in, t: t} }
	case sparktype.Double:
		mk = func(in *input) function { return &collectFixed[float64]{in: in, t: t} }
	case sparktype.Decimal:
		if t.Precision > maxLongDigits {
			return nil, refuse("collect_list over %s is not supported natively (only decimals of precision <= %d)",
				t, maxLongDigits)
		}
		mk = func(in *input) function { return &collectFixed[int64]{in: in, t: t} }
	case sparktype.String, sparktype.Binary:
		mk = func(in *input) function { return &collectBytes{in: in, t: t} }
	default:
		return nil, refuse("collect_list over %s is not supported natively", t)
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	return &fnSpec{
		name:       "collect_list",
		bufTypes:   []sparktype.Type{sparktype.BinaryType},
		resultType: sparktype.ArrayOf(t, false),
		newState:   func() function { return mk(in) },
	}, nil
}

// maxLongDigits is Decimal.MAX_LONG_DIGITS: up to this precision a decimal is an unscaled long.
const maxLongDigits = 18

// collectElem are the Go types of the fixed-width elements as UnsafeArrayData stores them (dates
// as int32 days, timestamps as int64 micros, decimals as int64 unscaled values).
type collectElem interface {
	bool | int8 | int16 | int32 | int64 | float32 | float64
}

// collectFixed is collect_list over a fixed-width type.
type collectFixed[T collectElem] struct {
	in    *input
	t     sparktype.Type
	lists [][]T
	size  int64 // bytes held by the lists' values
}

func (f *collectFixed[T]) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.BinaryType}
}
func (f *collectFixed[T]) grow(n int)     { f.lists = growSlice(f.lists, n, nil) }
func (f *collectFixed[T]) memSize() int64 { return f.size + int64(cap(f.lists))*24 }

func elemSizeOf[T collectElem]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

func (f *collectFixed[T]) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("collect_list: column of %d values for %d rows", col.Len(), len(gids))
	}
	bm, off := validity(col)
	lists := f.lists
	n := 0
	switch any(lists).(type) {
	case [][]bool:
		vb, voff := boolBits(col)
		ls := any(lists).([][]bool)
		for i, g := range gids {
			if bitSet(bm, off, i) {
				ls[g] = append(ls[g], bitSet(vb, voff, i))
				n++
			}
		}
	default:
		var vals []T
		if f.t.Kind == sparktype.Decimal {
			dec := fixedValues[decimal128.Num](col)
			ls := any(lists).([][]int64)
			for i, g := range gids {
				if bitSet(bm, off, i) {
					ls[g] = append(ls[g], int64(dec[i].LowBits()))
					n++
				}
			}
			break
		}
		vals = fixedElemValues[T](col)
		for i, g := range gids {
			if bitSet(bm, off, i) {
				lists[g] = append(lists[g], vals[i])
				n++
			}
		}
	}
	f.size += int64(n * elemSizeOf[T]())
	return nil
}

// fixedElemValues views a fixed-width column's values as T (dates and timestamps as their
// integers).
func fixedElemValues[T collectElem](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || d.Len() == 0 {
		return nil
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(bufs[1].Bytes()))), bufs[1].Len()/elemSizeOf[T]())
	return all[d.Offset() : d.Offset()+d.Len()]
}

func (f *collectFixed[T]) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("collect_list buffer: %w", err)
	}
	bm, off := validity(cols[0])
	es := elemSizeOf[T]()
	for i, g := range gids {
		if !bitSet(bm, off, i) {
			continue
		}
		arr, n, err := unsafeArrayOf(data[offs[i]:offs[i+1]])
		if err != nil {
			return err
		}
		fixed := arr[unsafeArrayHeader(n):]
		if len(fixed) < n*es {
			return fmt.Errorf("collect_list buffer: %d elements of %d bytes in %d bytes", n, es, len(fixed))
		}
		if n > 0 {
			src := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(fixed))), n)
			f.lists[g] = append(f.lists[g], src...)
		}
		f.size += int64(n * es)
	}
	return nil
}

func (f *collectFixed[T]) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	es := elemSizeOf[T]()
	vals := make([]string, hi-lo)
	var scratch []byte
	for i := range vals {
		l := f.lists[lo+i]
		n := len(l)
		fixedLen := round8(n * es)
		scratch = beginUnsafeArray(scratch[:0], n, fixedLen)
		if n > 0 {
			raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(l))), n*es)
			copy(scratch[len(scratch)-fixedLen:], raw)
		}
		vals[i] = string(scratch)
	}
	return []arrow.Array{buildBinary(alloc, sparktype.BinaryType, vals, nil)}, nil
}

func (f *collectFixed[T]) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	total := 0
	for _, l := range f.lists[lo:hi] {
		total += len(l)
	}
	flat := make([]T, 0, total)
	for _, l := range f.lists[lo:hi] {
		flat = append(flat, l...)
	}
	var values arrow.Array
	switch fl := any(flat).(type) {
	case []bool:
		values = buildBool(alloc, fl, nil)
	case []int64:
		if f.t.Kind == sparktype.Decimal {
			o := newFixedOut[decimal128.Num](alloc, len(fl))
			for i, v := range fl {
				o.V[i] = decimal128.FromI64(v)
			}
			values = o.finish(f.t.Arrow())
			break
		}
		values = buildFixed(alloc, f.t, fl, nil)
	case []int8:
		values = buildFixed(alloc, f.t, fl, nil)
	case []int16:
		values = buildFixed(alloc, f.t, fl, nil)
	case []int32:
		values = buildFixed(alloc, f.t, fl, nil)
	case []float32:
		values = buildFixed(alloc, f.t, fl, nil)
	case []float64:
		values = buildFixed(alloc, f.t, fl, nil)
	}
	defer values.Release()
	return buildList(alloc, f.t, f.lists[lo:hi], values), nil
}

// buildList wraps values (the lists' elements, concatenated) in an array<t> column, one list per
// group.
func buildList[L any](alloc memory.Allocator, t sparktype.Type, lists [][]L, values arrow.Array) arrow.Array {
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((len(lists) + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	pos := 0
	for i, l := range lists {
		offs[i] = int32(pos)
		pos += len(l)
	}
	offs[len(lists)] = int32(pos)
	d := array.NewData(sparktype.ArrayOf(t, false).Arrow(), len(lists), []*memory.Buffer{nil, offBuf},
		[]arrow.ArrayData{values.Data()}, 0, 0)
	offBuf.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// collectBytes is collect_list over strings or binary.
type collectBytes struct {
	in    *input
	t     sparktype.Type
	lists [][]string
	size  int64
}

func (f *collectBytes) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.BinaryType} }
func (f *collectBytes) grow(n int)                    { f.lists = growSlice(f.lists, n, nil) }
func (f *collectBytes) memSize() int64                { return f.size + int64(cap(f.lists))*24 }

func (f *collectBytes) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("collect_list: column of %d values for %d rows", col.Len(), len(gids))
	}
	offs, data, err := binaryParts(col)
	if err != nil {
		return fmt.Errorf("collect_list over %s: %w", f.t, err)
	}
	bm, off := validity(col)
	for i, g := range gids {
		if bitSet(bm, off, i) {
			v := string(data[offs[i]:offs[i+1]])
			f.lists[g] = append(f.lists[g], v)
			f.size += int64(len(v)) + 16
		}
	}
	return nil
}

func (f *collectBytes) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("collect_list buffer: %w", err)
	}
	bm, off := validity(cols[0])
	for i, g := range gids {
		if !bitSet(bm, off, i) {
			continue
		}
		arr, n, err := unsafeArrayOf(data[offs[i]:offs[i+1]])
		if err != nil {
			return err
		}
		slots := arr[unsafeArrayHeader(n):]
		if len(slots) < 8*n {
			return fmt.Errorf("collect_list buffer: %d string slots in %d bytes", n, len(slots))
		}
		for j := 0; j < n; j++ {
			w := binary.LittleEndian.Uint64(slots[8*j:])
			o, l := int(w>>32), int(uint32(w))
			if o < 0 || o+l > len(arr) {
				return fmt.Errorf("collect_list buffer: element %d at [%d, %d) of a %d-byte array", j, o, o+l, len(arr))
			}
			v := string(arr[o : o+l])
			f.lists[g] = append(f.lists[g], v)
			f.size += int64(l) + 16
		}
	}
	return nil
}

func (f *collectBytes) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	vals := make([]string, hi-lo)
	var scratch []byte
	for i := range vals {
		l := f.lists[lo+i]
		n := len(l)
		scratch = beginUnsafeArray(scratch[:0], n, 8*n)
		slots := len(scratch) - 8*n
		arrStart := 16
		for j, v := range l {
			binary.LittleEndian.PutUint64(scratch[slots+8*j:], uint64(len(scratch)-arrStart)<<32|uint64(len(v)))
			scratch = append(scratch, v...)
			scratch = append(scratch, zeros[:round8(len(v))-len(v)]...)
		}
		binary.LittleEndian.PutUint64(scratch[8:], 16<<32|uint64(len(scratch)-arrStart))
		vals[i] = string(scratch)
	}
	return []arrow.Array{buildBinary(alloc, sparktype.BinaryType, vals, nil)}, nil
}

func (f *collectBytes) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	var flat []string
	for _, l := range f.lists[lo:hi] {
		flat = append(flat, l...)
	}
	values := buildBinary(alloc, f.t, flat, nil)
	defer values.Release()
	return buildList(alloc, f.t, f.lists[lo:hi], values), nil
}

var zeros [8]byte

func round8(n int) int { return (n + 7) &^ 7 }

// unsafeArrayHeader is the size of an UnsafeArrayData's element count and null bitset.
func unsafeArrayHeader(n int) int { return 8 + (n+63)/64*8 }

// beginUnsafeArray appends to dst (empty) the UnsafeRow of one array field holding n elements
// with a zeroed fixed-width region of fixedLen bytes (a multiple of 8), and sets the field's
// offset and size for an array that ends with that region (var-length writers update the size).
func beginUnsafeArray(dst []byte, n, fixedLen int) []byte {
	arrLen := unsafeArrayHeader(n) + fixedLen
	total := 16 + arrLen
	if cap(dst) < total {
		dst = make([]byte, 0, total)
	}
	dst = dst[:total]
	clear(dst)
	binary.LittleEndian.PutUint64(dst[8:], 16<<32|uint64(arrLen))
	binary.LittleEndian.PutUint64(dst[16:], uint64(n))
	return dst
}

// unsafeArrayOf validates a serialized collect buffer (an UnsafeRow of one non-null array field)
// and returns the array's bytes and its element count.
func unsafeArrayOf(row []byte) ([]byte, int, error) {
	if len(row) < 16 {
		return nil, 0, fmt.Errorf("collect_list buffer of %d bytes", len(row))
	}
	if row[0]&1 != 0 {
		return nil, 0, fmt.Errorf("collect_list buffer with a null list")
	}
	w := binary.LittleEndian.Uint64(row[8:])
	o, l := int(w>>32), int(uint32(w))
	if o < 16 || o+l > len(row) || l < 8 {
		return nil, 0, fmt.Errorf("collect_list buffer: array at [%d, %d) of a %d-byte row", o, o+l, len(row))
	}
	arr := row[o : o+l]
	n64 := binary.LittleEndian.Uint64(arr)
	if n64 > uint64(l) {
		return nil, 0, fmt.Errorf("collect_list buffer: %d elements in %d bytes", n64, l)
	}
	n := int(n64)
	h := unsafeArrayHeader(n)
	if h > l {
		return nil, 0, fmt.Errorf("collect_list buffer: %d elements in %d bytes", n, l)
	}
	for _, b := range arr[8:h] {
		if b != 0 {
			return nil, 0, fmt.Errorf("collect_list buffer with null elements")
		}
	}
	return arr, n, nil
}

// sizedState is a function state whose memory grows with its input, not only with the number of
// groups: the operator adds memSize to its memory account.
type sizedState interface {
	memSize() int64
}
