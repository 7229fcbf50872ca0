package join

import (
	"fmt"
	"hash/maphash"
	"math"
	gosort "sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The build side's hash table: it maps a join key to the chain of build rows with that key, in
// build order. Keys are compared exactly as Spark's HashedRelation compares them: as the bytes of
// an UnsafeRow (or one long), that is bit for bit. So floats and doubles compare by their raw bits
// (UnsafeWriter stores Float.floatToRawIntBits), which is why Spark wraps floating keys in
// NormalizeNaNAndZero: after it every NaN is one NaN and -0.0 is 0.0, on both sides. Decimals of
// one type compare by unscaled value; strings and binaries bytewise (keys are UTF8_BINARY: Spark
// asserts that join keys are binary stable, HashJoin.scala line 45).
//
// The table has one of four layouts, chosen once from the key types (so the per-row loops are
// typed and branch-free, with no call per row through an interface):
//   - wordKeys: fixed-width keys whose widths add up to at most 8 bytes, packed into one uint64
//     (one long, an int pair, a date...): the packed word is the key, compared as a word;
//   - word2Keys: up to 16 bytes (a decimal, two longs, a long and two ints...), two words;
//   - bytesKeys: one string or binary key, hashed and compared as its bytes;
//   - encodedKeys: anything else (a string with another key): each row's keys encoded into bytes,
//     fixed-width values as their bits and strings length-prefixed, so that equal encodings mean
//     equal keys.
//
//   - noKeys: a nested-loop join's: every build row is in one chain, which every probe row
//     matches (the condition then decides).
//
// Rows whose key has a null are never inserted nor looked up: a null key matches nothing.

type keyKind uint8

const (
	wordKeys keyKind = iota
	word2Keys
	bytesKeys
	encodedKeys
	noKeys
)

// fixedWidth is the width in bytes of a fixed-width key type's bits, 0 for strings and binaries.
func fixedWidth(t sparktype.Type) int {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte:
		return 1
	case sparktype.Short:
		return 2
	case sparktype.Int, sparktype.Date, sparktype.Float:
		return 4
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ, sparktype.Double:
		return 8
	case sparktype.Decimal:
		return 16
	}
	return 0
}

// KeyTypeSupported reports whether a join key of type t is supported: every type native columns
// carry except the null type (collated strings parse as unsupported types and are refused here).
func KeyTypeSupported(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.String, sparktype.Binary:
		return true
	}
	return fixedWidth(t) > 0
}

// pack says where a fixed-width key column goes in the packed words.
type pack struct {
	col   int
	word  int // 0 or 1
	shift uint
	width int // bytes
}

// layoutFor picks the layout of keys of the given types. Packing is first-fit decreasing by width:
// widths are powers of two, so whenever they add up to at most 16 bytes they fit two words.
func layoutFor(types []sparktype.Type) (keyKind, []pack) {
	total, fixed := 0, true
	for _, t := range types {
		w := fixedWidth(t)
		fixed = fixed && w > 0
		total += w
	}
	switch {
	case len(types) == 1 && !fixed:
		return bytesKeys, nil
	case !fixed || total > 16:
		return encodedKeys, nil
	}
	order := make([]int, len(types))
	for i := range order {
		order[i] = i
	}
	gosort.SliceStable(order, func(a, b int) bool { return fixedWidth(types[order[a]]) > fixedWidth(types[order[b]]) })
	var used [2]int
	packs := make([]pack, 0, len(types))
	for _, c := range order {
		w := fixedWidth(types[c])
		if w == 16 { // a decimal alone: its low word, then its high word
			packs = append(packs, pack{col: c, word: 0, width: 16})
			used = [2]int{8, 8}
			continue
		}
		word := 0
		if used[0]+w > 8 {
			word = 1
		}
		packs = append(packs, pack{col: c, word: word, shift: uint(8 * used[word]), width: w})
		used[word] += w
	}
	if used[1] == 0 {
		return wordKeys, packs
	}
	return word2Keys, packs
}

const (
	fibMul = 0x9E3779B97F4A7C15 // 2^64 / golden ratio: multiplicative hashing spreads into the top bits
	mixMul = 0xff51afd7ed558ccd // murmur3's fmix64 constant
	// minSlotBits is the initial table size (1024 slots).
	minSlotBits = 10
)

// wordSlot is a slot of the one-word table: the key itself, and the first build row of its
// chain as row+1 (0: empty slot). Keeping the key in the slot makes a lookup touch one cache line.
// tail (the chain's last row) sits in what would be padding: rows are appended to their chain, so
// the chains are in build order as they are built.
type wordSlot struct {
	key  uint64
	head int32
	tail int32
}

type word2Slot struct {
	k0, k1 uint64
	head   int32
	tail   int32
}

// bytesSlot is a slot of the byte-key tables: the key's hash, where its bytes are in the arena,
// and its chain. A lookup touches the slot and the key's bytes, nothing else.
type bytesSlot struct {
	hash uint64
	off  uint64
	klen uint32
	head int32
}

// table is the build side's hash table; see the top of the file.
type table struct {
	kind  keyKind
	types []sparktype.Type
	packs []pack

	// Open addressing with linear probing over 2^(64-shift) slots, at most half full.
	shift   uint
	entries int // distinct keys
	wslots  []wordSlot
	w2slots []word2Slot
	bslots  []bytesSlot
	seed    maphash.Seed
	arena   []byte // the distinct byte keys
	// next is, per build row, the next row with the same key (-1 at the end), so that a key's
	// matches come in build order. The word tables append to their chains (the slot keeps the
	// tail). The byte-key tables, whose slots have no room for a tail, prepend, and reverse their
	// chains once at the end, only if some key has more than one row (chained): the reversal
	// reads next at random, one cache miss per build row, which was the whole build's main cost.
	next    []int32
	rows    int32 // build rows inserted
	chained bool

	// sc is the build's per-batch scratch (and grace partitioning's); a probe brings its own, so
	// that the tasks sharing a broadcast's table (shared.go) probe it at once.
	sc keyScratch
}

// keyScratch is the per-batch scratch of key extraction and lookup, reused batch to batch.
type keyScratch struct {
	w0, w1  []uint64
	encOffs []int32
	encBuf  []byte
	cur     []int32
	hs      []uint64
	cand    []uint32
	touched byte // keeps probeBytes' prefetching loads alive
}

func (sc *keyScratch) memSize() int64 {
	return int64(cap(sc.w0)+cap(sc.w1)+cap(sc.hs))*8 + int64(cap(sc.encOffs)+cap(sc.cur)+cap(sc.cand))*4 +
		int64(cap(sc.encBuf))
}

func newTable(types []sparktype.Type) (*table, error) {
	for _, t := range types {
		if !KeyTypeSupported(t) {
			return nil, fmt.Errorf("join keys of type %s are not supported natively", t)
		}
	}
	if len(types) == 0 {
		return &table{kind: noKeys}, nil
	}
	kind, packs := layoutFor(types)
	t := &table{kind: kind, types: types, packs: packs, shift: 64 - minSlotBits}
	switch kind {
	case wordKeys:
		t.wslots = make([]wordSlot, 1<<minSlotBits)
	case word2Keys:
		t.w2slots = make([]word2Slot, 1<<minSlotBits)
	default:
		t.bslots = make([]bytesSlot, 1<<minSlotBits)
		t.seed = maphash.MakeSeed()
	}
	return t, nil
}

// memSize is the Go heap the table holds, for the task's memory account.
func (t *table) memSize() int64 {
	return int64(len(t.wslots))*16 + int64(len(t.w2slots))*24 + int64(len(t.bslots))*24 +
		int64(cap(t.arena)) + int64(cap(t.next))*4 + t.sc.memSize()
}

// validRows returns the rows of n where no key column is null, into sel[:0] (the identity list
// when no key has a null, which is the common case: one loop shape serves both).
func validRows(keys []arrow.Array, n int, sel []int32) []int32 {
	sel = resize(sel, n)[:0]
	anyNull := false
	for _, k := range keys {
		anyNull = anyNull || k.NullN() > 0
	}
	if !anyNull {
		for i := 0; i < n; i++ {
			sel = append(sel, int32(i))
		}
		return sel
	}
	var bms [][]byte
	var offs []int
	for _, k := range keys {
		if b, o := columnar.ValidityBits(k); b != nil {
			bms, offs = append(bms, b), append(offs, o)
		}
	}
	for i := 0; i < n; i++ {
		ok := true
		for j, b := range bms {
			ok = ok && bitutil.BitIsSet(b, offs[j]+i)
		}
		if ok {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// ---- key extraction ----

// words packs the fixed-width key columns of every row into t.sc.w0 (and w1).
func (t *table) words(keys []arrow.Array, n int) error { return t.sc.words(t, keys, n) }

// words packs the fixed-width key columns of every row into sc.w0 (and sc.w1), in t's layout.
// Null rows get whatever bits their slots hold; they are never looked up.
func (sc *keyScratch) words(t *table, keys []arrow.Array, n int) error {
	sc.w0 = resize(sc.w0, n)
	clear(sc.w0)
	if t.kind == word2Keys {
		sc.w1 = resize(sc.w1, n)
		clear(sc.w1)
	}
	for _, p := range t.packs {
		col := keys[p.col]
		if col.Len() != n {
			return fmt.Errorf("join key column of %d rows for a batch of %d", col.Len(), n)
		}
		w := sc.w0
		if p.word == 1 {
			w = sc.w1
		}
		if p.width == 16 {
			vals := columnar.Values[decimal128.Num](col)
			for i, v := range vals {
				sc.w0[i] = v.LowBits()
				sc.w1[i] = uint64(v.HighBits())
			}
			continue
		}
		if err := orBits(col, w, p.shift); err != nil {
			return err
		}
	}
	return nil
}

// orBits ORs each value's bits, zero-extended from the type's width, shifted, into w.
func orBits(col arrow.Array, w []uint64, shift uint) error {
	switch col.DataType().ID() {
	case arrow.BOOL:
		bm, off := columnar.BoolBits(col)
		for i := range w[:col.Len()] {
			if bitutil.BitIsSet(bm, off+i) {
				w[i] |= 1 << shift
			}
		}
	case arrow.INT8:
		for i, v := range columnar.Values[uint8](col) {
			w[i] |= uint64(v) << shift
		}
	case arrow.INT16:
		for i, v := range columnar.Values[uint16](col) {
			w[i] |= uint64(v) << shift
		}
	case arrow.INT32, arrow.DATE32, arrow.FLOAT32:
		// Floats by their raw bits, like UnsafeRow.
		for i, v := range columnar.Values[uint32](col) {
			w[i] |= uint64(v) << shift
		}
	case arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64:
		for i, v := range columnar.Values[uint64](col) {
			w[i] |= v << shift
		}
	default:
		return fmt.Errorf("join key column of type %s cannot be packed", col.DataType())
	}
	return nil
}

// encode writes the keys of rows sel into sc.encBuf, row i (of the batch of n rows) at
// sc.encBuf[sc.encOffs[i]:sc.encOffs[i+1]]: per key, fixed-width values as their little-endian bits
// (decimals as 16 bytes), strings and binaries as a 4-byte length and their bytes. Rows not in sel
// encode as empty. Column by column, so each loop is typed.
func (sc *keyScratch) encode(t *table, keys []arrow.Array, n int, sel []int32) error {
	sc.encOffs = resize(sc.encOffs, n+1)
	offs := sc.encOffs
	clear(offs)
	// Sizes first (the fixed part, plus each string's length), then the offsets.
	fixed := int32(0)
	for _, ty := range t.types {
		if w := fixedWidth(ty); w > 0 {
			fixed += int32(w)
		} else {
			fixed += 4
		}
	}
	for _, i := range sel {
		offs[i+1] = fixed
	}
	for c, ty := range t.types {
		if fixedWidth(ty) > 0 {
			continue
		}
		so, _ := columnar.BinaryParts(keys[c])
		for _, i := range sel {
			offs[i+1] += so[i+1] - so[i]
		}
	}
	total := 0
	for i := 1; i <= n; i++ {
		total += int(offs[i])
		if total > math.MaxInt32 {
			return fmt.Errorf("join keys of one batch take more than 2 GiB")
		}
		offs[i] = int32(total)
	}
	sc.encBuf = resize(sc.encBuf, total)
	buf := sc.encBuf
	// cur[i] is where row i's next key goes.
	sc.cur = resize(sc.cur, n)
	cur := sc.cur
	copy(cur, offs[:n])
	for c, ty := range t.types {
		col := keys[c]
		switch w := fixedWidth(ty); w {
		case 0:
			so, data := columnar.BinaryParts(col)
			for _, i := range sel {
				p := cur[i]
				v := data[so[i]:so[i+1]]
				putU32(buf[p:], uint32(len(v)))
				copy(buf[p+4:], v)
				cur[i] = p + 4 + int32(len(v))
			}
		case 16:
			vals := columnar.Values[decimal128.Num](col)
			for _, i := range sel {
				p := cur[i]
				putU64(buf[p:], vals[i].LowBits())
				putU64(buf[p+8:], uint64(vals[i].HighBits()))
				cur[i] = p + 16
			}
		default:
			sc.w0 = resize(sc.w0, n)
			v := sc.w0
			clear(v)
			if err := orBits(col, v, 0); err != nil {
				return err
			}
			switch w {
			case 1:
				for _, i := range sel {
					buf[cur[i]] = byte(v[i])
					cur[i]++
				}
			case 2:
				for _, i := range sel {
					p := cur[i]
					buf[p], buf[p+1] = byte(v[i]), byte(v[i]>>8)
					cur[i] = p + 2
				}
			case 4:
				for _, i := range sel {
					putU32(buf[cur[i]:], uint32(v[i]))
					cur[i] += 4
				}
			default:
				for _, i := range sel {
					putU64(buf[cur[i]:], v[i])
					cur[i] += 8
				}
			}
		}
	}
	return nil
}

func putU32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func putU64(b []byte, v uint64) {
	putU32(b, uint32(v))
	putU32(b[4:], uint32(v>>32))
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, max(n, 2*cap(s)))
	}
	return s[:n]
}

// keyBytes returns the per-row key bytes of a batch for the byte layouts.
func (t *table) keyBytes(keys []arrow.Array, n int, sel []int32) ([]int32, []byte, error) {
	return t.sc.keyBytes(t, keys, n, sel)
}

func (sc *keyScratch) keyBytes(t *table, keys []arrow.Array, n int, sel []int32) ([]int32, []byte, error) {
	if t.kind == bytesKeys {
		offs, data := columnar.BinaryParts(keys[0])
		return offs, data, nil
	}
	if err := sc.encode(t, keys, n, sel); err != nil {
		return nil, nil, err
	}
	return sc.encOffs, sc.encBuf, nil
}

// ---- build ----

// insert adds the rows sel of a build batch of n rows as build rows t.rows, t.rows+1, ... (in the
// order of sel), each to the chain of its key.
func (t *table) insert(keys []arrow.Array, n int, sel []int32) error {
	if int64(t.rows)+int64(len(sel)) > math.MaxInt32 {
		return fmt.Errorf("a native hash join holds at most %d build rows", math.MaxInt32)
	}
	first := t.rows
	t.next = append(t.next, make([]int32, len(sel))...)
	t.rows += int32(len(sel))
	switch t.kind {
	case noKeys:
	case wordKeys:
		if err := t.words(keys, n); err != nil {
			return err
		}
		t.insertWords(sel, first)
	case word2Keys:
		if err := t.words(keys, n); err != nil {
			return err
		}
		t.insertWords2(sel, first)
	default:
		offs, data, err := t.keyBytes(keys, n, sel)
		if err != nil {
			return err
		}
		t.insertBytes(offs, data, sel, first)
	}
	return nil
}

// full reports whether one more key would make the table more than half full; it then doubles,
// so that probe sequences stay short.
func (t *table) full() bool { return 2*(t.entries+1) > 1<<(64-t.shift) }

// push prepends build row id to the chain whose head (row+1, 0 for none) is *head.
func (t *table) push(head *int32, id int32) {
	if *head != 0 {
		t.chained = true
	}
	t.next[id] = *head - 1
	*head = id + 1
}

// appendRow appends build row id to the chain of a word slot (head and tail, row+1, 0 for none).
func (t *table) appendRow(head, tail *int32, id int32) {
	t.next[id] = -1
	if *head == 0 {
		*head = id + 1
	} else {
		t.next[*tail-1] = id
	}
	*tail = id + 1
}

func (t *table) insertWords(sel []int32, id int32) {
	w := t.sc.w0
	for _, i := range sel {
		if t.full() {
			t.growWords()
		}
		k := w[i]
		slots, mask := t.wslots, uint64(len(t.wslots)-1)
		s := (k * fibMul) >> t.shift
		for slots[s].head != 0 && slots[s].key != k {
			s = (s + 1) & mask
		}
		if slots[s].head == 0 {
			slots[s].key = k
			t.entries++
		}
		t.appendRow(&slots[s].head, &slots[s].tail, id)
		id++
	}
}

func (t *table) growWords() {
	old := t.wslots
	t.shift--
	t.wslots = make([]wordSlot, 2*len(old))
	mask := uint64(len(t.wslots) - 1)
	for _, sl := range old {
		if sl.head == 0 {
			continue
		}
		s := (sl.key * fibMul) >> t.shift
		for t.wslots[s].head != 0 {
			s = (s + 1) & mask
		}
		t.wslots[s] = sl
	}
}

// hash2 hashes a two-word key into its top bits.
func hash2(k0, k1 uint64) uint64 { return (k0*mixMul ^ k1) * fibMul }

func (t *table) insertWords2(sel []int32, id int32) {
	w0, w1 := t.sc.w0, t.sc.w1
	for _, i := range sel {
		if t.full() {
			t.growWords2()
		}
		k0, k1 := w0[i], w1[i]
		slots, mask := t.w2slots, uint64(len(t.w2slots)-1)
		s := hash2(k0, k1) >> t.shift
		for slots[s].head != 0 && (slots[s].k0 != k0 || slots[s].k1 != k1) {
			s = (s + 1) & mask
		}
		if slots[s].head == 0 {
			slots[s].k0, slots[s].k1 = k0, k1
			t.entries++
		}
		t.appendRow(&slots[s].head, &slots[s].tail, id)
		id++
	}
}

func (t *table) growWords2() {
	old := t.w2slots
	t.shift--
	t.w2slots = make([]word2Slot, 2*len(old))
	mask := uint64(len(t.w2slots) - 1)
	for _, sl := range old {
		if sl.head == 0 {
			continue
		}
		s := hash2(sl.k0, sl.k1) >> t.shift
		for t.w2slots[s].head != 0 {
			s = (s + 1) & mask
		}
		t.w2slots[s] = sl
	}
}

func (t *table) insertBytes(offs []int32, data []byte, sel []int32, id int32) {
	for _, i := range sel {
		if t.full() {
			t.growBytes()
		}
		k := data[offs[i]:offs[i+1]]
		h := maphash.Bytes(t.seed, k)
		slots, mask, arena := t.bslots, uint64(len(t.bslots)-1), t.arena
		s := h >> t.shift
		for {
			sl := &slots[s]
			if sl.head == 0 {
				*sl = bytesSlot{hash: h, off: uint64(len(t.arena)), klen: uint32(len(k))}
				t.arena = append(t.arena, k...)
				t.entries++
				break
			}
			if sl.hash == h && string(arena[sl.off:sl.off+uint64(sl.klen)]) == string(k) {
				break
			}
			s = (s + 1) & mask
		}
		t.push(&slots[s].head, id)
		id++
	}
}

func (t *table) growBytes() {
	old := t.bslots
	t.shift--
	t.bslots = make([]bytesSlot, 2*len(old))
	mask := uint64(len(t.bslots) - 1)
	for _, sl := range old {
		if sl.head == 0 {
			continue
		}
		s := sl.hash >> t.shift
		for t.bslots[s].head != 0 {
			s = (s + 1) & mask
		}
		t.bslots[s] = sl
	}
}

// finish puts every chain in build order and drops what only the build needed.
func (t *table) finish() {
	if t.kind == noKeys {
		for i := range t.next {
			t.next[i] = int32(i) + 1
		}
		if len(t.next) > 0 {
			t.next[len(t.next)-1] = -1
		}
		return
	}
	if t.chained {
		for i := range t.bslots {
			t.reverse(&t.bslots[i].head)
		}
		t.chained = false
	}
	t.sc = keyScratch{}
}

func (t *table) reverse(head *int32) {
	prev, c := int32(-1), *head-1
	for c >= 0 {
		nx := t.next[c]
		t.next[c] = prev
		prev, c = c, nx
	}
	*head = prev + 1
}

// ---- probe ----

// probe sets heads[i] to the first build row whose key equals row i's, or -1, for the n rows of a
// probe batch; rows not in sel have a null key and get -1. It only reads t (the prober's scratch
// is sc), so that tasks may probe a shared table at once.
func (t *table) probe(sc *keyScratch, keys []arrow.Array, n int, sel []int32, heads []int32) error {
	if len(sel) < n {
		for i := range heads[:n] {
			heads[i] = -1
		}
	}
	switch t.kind {
	case noKeys:
		head := int32(-1)
		if t.rows > 0 {
			head = 0
		}
		for _, i := range sel {
			heads[i] = head
		}
	case wordKeys:
		if err := sc.words(t, keys, n); err != nil {
			return err
		}
		t.probeWords(sc, sel, heads)
	case word2Keys:
		if err := sc.words(t, keys, n); err != nil {
			return err
		}
		t.probeWords2(sc, sel, heads)
	default:
		offs, data, err := sc.keyBytes(t, keys, n, sel)
		if err != nil {
			return err
		}
		t.probeBytes(sc, offs, data, sel, heads)
	}
	return nil
}

func (t *table) probeWords(sc *keyScratch, sel []int32, heads []int32) {
	slots, shift, mask := t.wslots, t.shift, uint64(len(t.wslots)-1)
	w := sc.w0
	for _, i := range sel {
		k := w[i]
		s := (k * fibMul) >> shift
		for {
			sl := &slots[s]
			// An empty slot has head 0: a miss gives -1.
			if sl.key == k || sl.head == 0 {
				heads[i] = sl.head - 1
				break
			}
			s = (s + 1) & mask
		}
	}
}

func (t *table) probeWords2(sc *keyScratch, sel []int32, heads []int32) {
	slots, shift, mask := t.w2slots, t.shift, uint64(len(t.w2slots)-1)
	w0, w1 := sc.w0, sc.w1
	for _, i := range sel {
		k0, k1 := w0[i], w1[i]
		s := hash2(k0, k1) >> shift
		for {
			sl := &slots[s]
			if (sl.k0 == k0 && sl.k1 == k1) || sl.head == 0 {
				heads[i] = sl.head - 1
				break
			}
			s = (s + 1) & mask
		}
	}
}

// probeBytes looks byte keys up in three passes over the batch rather than one row at a time:
// hash every key; find each key's first slot with an equal hash; compare the bytes. Each pass's
// iterations are independent, so the processor overlaps the cache misses of many rows (the slot,
// then the key's bytes in the arena: on a build side larger than the cache these two misses are
// the whole cost), where a row-at-a-time loop waits for each row's misses in turn.
func (t *table) probeBytes(sc *keyScratch, offs []int32, data []byte, sel []int32, heads []int32) {
	slots, shift, mask := t.bslots, t.shift, uint64(len(t.bslots)-1)
	arena, seed := t.arena, t.seed
	sc.hs = resize(sc.hs, len(sel))
	sc.cand = resize(sc.cand, len(sel))
	hs, cand := sc.hs, sc.cand
	for j, i := range sel {
		hs[j] = maphash.Bytes(seed, data[offs[i]:offs[i+1]])
	}
	touch := byte(0)
	for j, h := range hs {
		s := h >> shift
		for slots[s].head != 0 && slots[s].hash != h {
			s = (s + 1) & mask
		}
		cand[j] = uint32(s)
		// Load the candidate key's first byte now, so that the comparison below finds it in the
		// cache (Go has no prefetch instruction; a load whose result is kept is one).
		if sl := &slots[s]; sl.head != 0 && sl.klen > 0 {
			touch ^= arena[sl.off]
		}
	}
	sc.touched ^= touch
	for j, i := range sel {
		k := data[offs[i]:offs[i+1]]
		s := uint64(cand[j])
		for {
			sl := &slots[s]
			if sl.head == 0 || (sl.hash == hs[j] && string(arena[sl.off:sl.off+uint64(sl.klen)]) == string(k)) {
				heads[i] = sl.head - 1
				break
			}
			// Equal 64-bit hashes of different keys: go on along the probe sequence.
			s = (s + 1) & mask
		}
	}
}
