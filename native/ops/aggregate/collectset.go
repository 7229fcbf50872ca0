package aggregate

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// collect_set (CollectSet in collect.scala): a Collect whose object buffer is a Scala 2.13
// mutable.HashSet of the non-null values; the result is the set's iteration order, which is part
// of the answer (results are compared unsorted). That order is reproduced by replaying, on a
// replica of the set (scalaHashSet below, from scala-library 2.13.17's bytecode, the version
// Spark 4.1 ships), the very operations Spark performs:
//
//   - update: set += value (add: grow to twice the table when size + 1 >= threshold, even if the
//     value is already present; then insert);
//   - merge: deserialize the other buffer into a fresh set by += of its elements in serialized
//     order, then buffer ++= it (addAll: sizeHint(other.size) grows the table to
//     tableSizeFor((other.size + 1) / 0.75) when larger, then inserts the other set's nodes in its
//     iteration order without further growth);
//   - serialize and eval: the set's iteration order (table slots in order; a slot's chain sorted by
//     improved hash, equal hashes in insertion order).
//
// Hashes are Statics.anyHash of the boxed Catalyst values: Integer/Short/Byte their value, Long
// its value when it fits an int else Long.hashCode, UTF8String Murmur3_x86_32.hashUnsafeBytes with
// seed 42; improved by h ^ (h >>> 16).
//
// The buffer between aggregates is Collect.serialize of that order: collect_list's bytes
// (collect.go), so either half may run in Spark.
//
// Native without grouping keys only (as collect_list: with keys Spark's sort-based fallback past
// 128 groups changes which buffers are merged, and so the table sizes and orders), for byte, short,
// int, date, long, timestamp, timestamp_ntz and UTF8_BINARY strings. Refused: float and double
// (Scala's == on boxed doubles: NaN never equal to itself, -0.0 equal to 0.0), decimals (hash of
// a BigDecimal), binary (hash of an UnsafeArrayData), booleans and nested types (not done).
func init() { registerFunction("CollectSet", newCollectSet) }

func newCollectSet(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	if !c.singleGroup {
		return nil, refuse("collect_set with grouping keys is not supported natively: past %d groups in a task "+
			"Spark's ObjectHashAggregate falls back to sort-based aggregation, which changes how the sets are "+
			"merged and so their order; that is not reproduced", 128)
	}
	var mk func(in *input) function
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Date, sparktype.Long, sparktype.Timestamp,
		sparktype.TimestampNTZ:
		mk = func(in *input) function { return &collectSetInts{in: in, t: t} }
	case sparktype.String:
		mk = func(in *input) function { return &collectSetStrings{in: in, t: t} }
	default:
		return nil, refuse("collect_set over %s is not supported natively: the order of Spark's set depends on "+
			"Scala's hash and equality of its values, reproduced only for integral types, dates, timestamps and strings", t)
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	return &fnSpec{
		name:       "collect_set",
		bufTypes:   []sparktype.Type{sparktype.BinaryType},
		resultType: sparktype.ArrayOf(t, false),
		newState:   func() function { return mk(in) },
	}, nil
}

// scalaHashSet replays scala.collection.mutable.HashSet (default capacity 16, load factor 0.75).
// Nodes live in parallel slices; heads[i] is slot i's first node, -1 when empty.
type scalaHashSet[K comparable] struct {
	heads     []int32
	next      []int32
	hash      []int32 // improved hashes
	keys      []K
	threshold int
}

func newScalaHashSet[K comparable]() *scalaHashSet[K] {
	s := &scalaHashSet[K]{}
	s.heads = emptyHeads(16)
	s.threshold = scalaThreshold(16)
	return s
}

func emptyHeads(n int) []int32 {
	h := make([]int32, n)
	for i := range h {
		h[i] = -1
	}
	return h
}

// scalaThreshold is newThreshold: (len * 0.75).toInt.
func scalaThreshold(n int) int { return int(float64(n) * 0.75) }

// scalaTableSizeFor is tableSizeFor: (highestOneBit(max(c - 1, 4)) * 2) min 2^30.
func scalaTableSizeFor(c int32) int {
	x := max(c-1, 4)
	hob := int32(1) << (31 - bits.LeadingZeros32(uint32(x)))
	return int(min(hob*2, 1<<30)) // int32 arithmetic, as Java's
}

func improveHash(h int32) int32 { return h ^ int32(uint32(h)>>16) }

func (s *scalaHashSet[K]) size() int { return len(s.keys) }

// add is HashSet.add (+=) of a key whose anyHash is h.
func (s *scalaHashSet[K]) add(k K, h int32) {
	if len(s.keys)+1 >= s.threshold {
		s.grow(len(s.heads) * 2)
	}
	s.addElem(k, improveHash(h))
}

// addElem inserts k (improved hash ih) into its slot's chain, kept sorted by hash, after the
// nodes of equal hash; nothing when an equal key is there.
func (s *scalaHashSet[K]) addElem(k K, ih int32) {
	idx := int(ih) & (len(s.heads) - 1)
	prev, n := int32(-1), s.heads[idx]
	for n >= 0 && s.hash[n] <= ih {
		if s.hash[n] == ih && s.keys[n] == k {
			return
		}
		prev, n = n, s.next[n]
	}
	id := int32(len(s.keys))
	s.keys = append(s.keys, k)
	s.hash = append(s.hash, ih)
	if prev < 0 {
		s.next = append(s.next, s.heads[idx])
		s.heads[idx] = id
	} else {
		s.next = append(s.next, s.next[prev])
		s.next[prev] = id
	}
}

// grow is growTable: each doubling splits every chain, in order, into its low and high halves.
func (s *scalaHashSet[K]) grow(newLen int) {
	s.threshold = scalaThreshold(newLen)
	oldLen := len(s.heads)
	if len(s.keys) == 0 {
		s.heads = emptyHeads(newLen)
		return
	}
	heads := emptyHeads(newLen)
	copy(heads, s.heads)
	s.heads = heads
	for ; oldLen < newLen; oldLen *= 2 {
		for i := 0; i < oldLen; i++ {
			lowHead, lowTail, highHead, highTail := int32(-1), int32(-1), int32(-1), int32(-1)
			for n := s.heads[i]; n >= 0; {
				nx := s.next[n]
				if int(s.hash[n])&oldLen == 0 {
					if lowTail < 0 {
						lowHead = n
					} else {
						s.next[lowTail] = n
					}
					lowTail = n
				} else {
					if highTail < 0 {
						highHead = n
					} else {
						s.next[highTail] = n
					}
					highTail = n
				}
				n = nx
			}
			if lowTail >= 0 {
				s.next[lowTail] = -1
			}
			if highTail >= 0 {
				s.next[highTail] = -1
			}
			s.heads[i] = lowHead
			s.heads[i+oldLen] = highHead
		}
	}
}

// addAll is buffer ++= other for another mutable.HashSet.
func (s *scalaHashSet[K]) addAll(o *scalaHashSet[K]) {
	target := scalaTableSizeFor(javaD2I(float64(o.size()+1) / 0.75))
	if target > len(s.heads) {
		s.grow(target)
	}
	o.each(func(n int32) { s.addElem(o.keys[n], o.hash[n]) })
}

// each visits the nodes in iteration order.
func (s *scalaHashSet[K]) each(f func(n int32)) {
	for _, h := range s.heads {
		for n := h; n >= 0; n = s.next[n] {
			f(n)
		}
	}
}

// ordered returns the keys in iteration order.
func (s *scalaHashSet[K]) ordered() []K {
	out := make([]K, 0, len(s.keys))
	s.each(func(n int32) { out = append(out, s.keys[n]) })
	return out
}

func (s *scalaHashSet[K]) memSize(keySize int) int64 {
	return int64(4*cap(s.heads) + 8*cap(s.next) + keySize*cap(s.keys))
}

// javaD2I is Java's (int) of a double: truncation, saturating, NaN as 0.
func javaD2I(d float64) int32 {
	switch {
	case d != d:
		return 0
	case d >= 2147483647:
		return 2147483647
	case d <= -2147483648:
		return -2147483648
	}
	return int32(d)
}

// anyHashLong is Statics.longHash: the value when it fits an int, else Long.hashCode.
func anyHashLong(v int64) int32 {
	if int64(int32(v)) == v {
		return int32(v)
	}
	return int32(v) ^ int32(uint64(v)>>32)
}

// collectSetInts is collect_set over integral types, dates and timestamps (int64 keys; the
// element width and the hash follow the type).
type collectSetInts struct {
	in   *input
	t    sparktype.Type
	sets []*scalaHashSet[int64]
}

func (f *collectSetInts) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.BinaryType}
}
func (f *collectSetInts) grow(n int) {
	for len(f.sets) < n {
		f.sets = append(f.sets, newScalaHashSet[int64]())
	}
}

func (f *collectSetInts) memSize() int64 {
	var n int64
	for _, s := range f.sets {
		n += s.memSize(8)
	}
	return n
}

// hashOf is anyHash of the boxed value: Byte/Short/Integer (dates are Integers) hash to their
// value, Longs (timestamps) by longHash.
func (f *collectSetInts) hashOf(v int64) int32 {
	switch f.t.Kind {
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return anyHashLong(v)
	}
	return int32(v)
}

func (f *collectSetInts) elemSize() int {
	switch f.t.Kind {
	case sparktype.Byte:
		return 1
	case sparktype.Short:
		return 2
	case sparktype.Int, sparktype.Date:
		return 4
	}
	return 8
}

func (f *collectSetInts) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("collect_set: column of %d values for %d rows", col.Len(), len(gids))
	}
	vals, err := toInt64(col, nil)
	if err != nil {
		return fmt.Errorf("collect_set: %w", err)
	}
	bm, off := validity(col)
	for i, g := range gids {
		if bitSet(bm, off, i) {
			f.sets[g].add(vals[i], f.hashOf(vals[i]))
		}
	}
	return nil
}

func (f *collectSetInts) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("collect_set buffer: %w", err)
	}
	bm, off := validity(cols[0])
	es := f.elemSize()
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
			return fmt.Errorf("collect_set buffer: %d elements of %d bytes in %d bytes", n, es, len(fixed))
		}
		other := newScalaHashSet[int64]()
		for j := 0; j < n; j++ {
			var v int64
			switch es {
			case 1:
				v = int64(int8(fixed[j]))
			case 2:
				v = int64(int16(binary.LittleEndian.Uint16(fixed[2*j:])))
			case 4:
				v = int64(int32(binary.LittleEndian.Uint32(fixed[4*j:])))
			default:
				v = int64(binary.LittleEndian.Uint64(fixed[8*j:]))
			}
			other.add(v, f.hashOf(v))
		}
		f.sets[g].addAll(other)
	}
	return nil
}

func (f *collectSetInts) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	es := f.elemSize()
	vals := make([]string, hi-lo)
	var scratch []byte
	for i := range vals {
		l := f.sets[lo+i].ordered()
		n := len(l)
		fixedLen := round8(n * es)
		scratch = beginUnsafeArray(scratch[:0], n, fixedLen)
		fixed := scratch[len(scratch)-fixedLen:]
		for j, v := range l {
			switch es {
			case 1:
				fixed[j] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(fixed[2*j:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(fixed[4*j:], uint32(v))
			default:
				binary.LittleEndian.PutUint64(fixed[8*j:], uint64(v))
			}
		}
		vals[i] = string(scratch)
	}
	return []arrow.Array{buildBinary(alloc, sparktype.BinaryType, vals, nil)}, nil
}

func (f *collectSetInts) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	lists := make([][]int64, hi-lo)
	total := 0
	for i := range lists {
		lists[i] = f.sets[lo+i].ordered()
		total += len(lists[i])
	}
	var values arrow.Array
	switch f.elemSize() {
	case 1:
		o := newFixedOut[int8](alloc, total)
		fillFlat(o.V, lists)
		values = o.finish(f.t.Arrow())
	case 2:
		o := newFixedOut[int16](alloc, total)
		fillFlat(o.V, lists)
		values = o.finish(f.t.Arrow())
	case 4:
		o := newFixedOut[int32](alloc, total)
		fillFlat(o.V, lists)
		values = o.finish(f.t.Arrow())
	default:
		o := newFixedOut[int64](alloc, total)
		fillFlat(o.V, lists)
		values = o.finish(f.t.Arrow())
	}
	defer values.Release()
	return buildList(alloc, f.t, lists, values), nil
}

// fillFlat writes the lists' values, concatenated, into dst, narrowed to T (a date's Arrow value
// is its int32, a timestamp's its int64).
func fillFlat[T int8 | int16 | int32 | int64](dst []T, lists [][]int64) {
	k := 0
	for _, l := range lists {
		for _, v := range l {
			dst[k] = T(v)
			k++
		}
	}
}

// collectSetStrings is collect_set over UTF8_BINARY strings.
type collectSetStrings struct {
	in   *input
	t    sparktype.Type
	sets []*scalaHashSet[string]
	size int64
}

func (f *collectSetStrings) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.BinaryType}
}
func (f *collectSetStrings) grow(n int) {
	for len(f.sets) < n {
		f.sets = append(f.sets, newScalaHashSet[string]())
	}
}

func (f *collectSetStrings) memSize() int64 {
	n := f.size
	for _, s := range f.sets {
		n += s.memSize(16)
	}
	return n
}

func (f *collectSetStrings) add(s *scalaHashSet[string], v string) {
	before := s.size()
	s.add(v, sparkhash.Murmur3Bytes(unsafe.Slice(unsafe.StringData(v), len(v)), sparkhash.DefaultSeed))
	if s.size() > before {
		f.size += int64(len(v))
	}
}

func (f *collectSetStrings) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("collect_set: column of %d values for %d rows", col.Len(), len(gids))
	}
	offs, data, err := binaryParts(col)
	if err != nil {
		return fmt.Errorf("collect_set over %s: %w", f.t, err)
	}
	bm, off := validity(col)
	for i, g := range gids {
		if bitSet(bm, off, i) {
			// string() copies: the set outlives the batch.
			f.add(f.sets[g], string(data[offs[i]:offs[i+1]]))
		}
	}
	return nil
}

func (f *collectSetStrings) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("collect_set buffer: %w", err)
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
			return fmt.Errorf("collect_set buffer: %d string slots in %d bytes", n, len(slots))
		}
		other := newScalaHashSet[string]()
		for j := 0; j < n; j++ {
			w := binary.LittleEndian.Uint64(slots[8*j:])
			o, l := int(w>>32), int(uint32(w))
			if o < 0 || o+l > len(arr) {
				return fmt.Errorf("collect_set buffer: element %d at [%d, %d) of a %d-byte array", j, o, o+l, len(arr))
			}
			v := string(arr[o : o+l])
			other.add(v, sparkhash.Murmur3Bytes(arr[o:o+l], sparkhash.DefaultSeed))
		}
		before := f.sets[g].size()
		f.sets[g].addAll(other)
		if f.sets[g].size() > before {
			f.size += int64(len(arr)) // an upper bound of the new strings' bytes
		}
	}
	return nil
}

func (f *collectSetStrings) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	bs := collectBytes{t: f.t, lists: make([][]string, hi-lo)}
	for i := range bs.lists {
		bs.lists[i] = f.sets[lo+i].ordered()
	}
	return bs.buffers(alloc, 0, hi-lo)
}

func (f *collectSetStrings) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	bs := collectBytes{t: f.t, lists: make([][]string, hi-lo)}
	for i := range bs.lists {
		bs.lists[i] = f.sets[lo+i].ordered()
	}
	return bs.result(alloc, 0, hi-lo)
}
