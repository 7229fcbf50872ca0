package shuffle

import (
	"bytes"
	"cmp"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Range partitioning, as Spark's RangePartitioner.getPartition with ascending = true (what
// ShuffleExchangeExec builds; a descending key is descending in the ordering itself): a row's
// partition is the number of bounds strictly below its key under the ordering, i.e. the index of
// the first bound >= the key. Spark's linear scan (<= 128 bounds) and its binary search (which
// returns an equal bound's own index, bounds being distinct) both give that lower bound.
//
// Spark's ordering of each type (as in ops/sort): integral, date and timestamp types by signed
// value; float and double with -0.0 == 0.0 and NaN above +Infinity (NaN == NaN); decimals by
// value; strings and binary bytewise unsigned, a prefix first; false < true. Nulls go first or
// last by the key's null ordering whatever its direction.
//
// Each key column is turned once per batch (typed loops) into a comparable form: a uint64 whose
// unsigned order is the key's order, direction included (integral and date/time types, booleans,
// floats, decimals of precision <= 18), a pair of uint64 (wider decimals), or the bytes themselves.
// With one key each row is placed by a typed binary search over the bounds; with several, a
// comparison walks the keys with a switch on their form: no interface call, but not one typed
// loop either (that would need an instantiation per combination of key types).

// RangeOrder is the direction of one range key (Spark's SortOrder).
type RangeOrder struct{ Descending, NullsFirst bool }

type keyForm uint8

const (
	formU64 keyForm = iota
	formWide
	formBytes
)

// keyVals are the comparable values of one key, for the bounds or for a batch's rows.
type keyVals struct {
	u64  []uint64
	wide [][2]uint64 // high word (sign flipped), low word
	offs []int32     // bytes: row i is data[offs[i]:offs[i+1]]
	data []byte
	null []bool // nil when no value is null
	nbuf []bool // null's storage, reused across batches
}

func (v *keyVals) isNull(i int) bool  { return v.null != nil && v.null[i] }
func (v *keyVals) bytes(i int) []byte { return v.data[v.offs[i]:v.offs[i+1]] }

type rangeKey struct {
	expr   expr.Expr
	typ    sparktype.Type
	form   keyForm
	order  RangeOrder
	flip   uint64 // all ones for a descending key of form u64 or wide
	bounds keyVals
	rows   keyVals // the current batch
}

type rangePartitioner struct {
	keys []rangeKey
	nb   int // bounds
	// One key: the bounds [nlo, nhi) are not null (a null bound, if any, is first or last).
	nlo, nhi int
}

// NewRangePartitioner builds Spark's RangePartitioner over bounds: one column per key, the bound
// rows sorted by the ordering and distinct (RangePartitioner.determineBounds), numPartitions =
// rows + 1. The partitioner takes ownership of bounds and releases it (here, after copying the
// few bound values into Go memory), also when it returns an error.
func NewRangePartitioner(keys []expr.Expr, orders []RangeOrder, bounds *columnar.Batch) (Partitioner, error) {
	if bounds != nil {
		defer bounds.Release()
	}
	if len(orders) != len(keys) {
		return nil, fmt.Errorf("range partitioning with %d keys and %d orders", len(keys), len(orders))
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("range partitioning without keys")
	}
	r := &rangePartitioner{keys: make([]rangeKey, len(keys))}
	if bounds != nil {
		r.nb = bounds.NumRows
		if len(bounds.Cols) != len(keys) {
			return nil, fmt.Errorf("range bounds have %d columns for %d keys", len(bounds.Cols), len(keys))
		}
	}
	if r.nb >= math.MaxInt32 {
		return nil, fmt.Errorf("%d range bounds", r.nb)
	}
	for i, e := range keys {
		k := &r.keys[i]
		k.expr, k.typ, k.order = e, e.Type(), orders[i]
		switch k.typ.Kind {
		case sparktype.String, sparktype.Binary:
			k.form = formBytes
		case sparktype.Decimal:
			if k.typ.Precision > 18 {
				k.form = formWide
			}
		case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
			sparktype.Float, sparktype.Double, sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
		default:
			return nil, fmt.Errorf("range partitioning by %s of type %s is not supported natively", e, k.typ)
		}
		if k.order.Descending {
			k.flip = math.MaxUint64
		}
		if r.nb == 0 {
			continue
		}
		col := bounds.Cols[i]
		if col.Len() != r.nb {
			return nil, fmt.Errorf("range bounds column %d has %d rows, the bounds %d", i, col.Len(), r.nb)
		}
		if err := k.convert(col, &k.bounds, true); err != nil {
			return nil, fmt.Errorf("range bounds column %d: %w", i, err)
		}
	}
	for j := 1; j < r.nb; j++ {
		if r.cmpBounds(j-1, j) >= 0 {
			return nil, fmt.Errorf("range bounds are not strictly increasing under the ordering at bound %d", j)
		}
	}
	r.nlo, r.nhi = 0, r.nb
	if k := &r.keys[0]; len(r.keys) == 1 && r.nb > 0 {
		if k.bounds.isNull(0) {
			r.nlo = 1
		} else if k.bounds.isNull(r.nb - 1) {
			r.nhi = r.nb - 1
		}
	}
	return r, nil
}

func (r *rangePartitioner) NumPartitions() int { return r.nb + 1 }

func (r *rangePartitioner) Close() {
	for i := range r.keys {
		r.keys[i].bounds, r.keys[i].rows = keyVals{}, keyVals{}
	}
}

func (r *rangePartitioner) Partition(ctx *exec.TaskContext, b *columnar.Batch, ids []int32) error {
	if err := checkIDs(b, ids); err != nil {
		return err
	}
	n := b.NumRows
	ids = ids[:n]
	if r.nb == 0 {
		clear(ids)
		return nil
	}
	for i := range r.keys {
		k := &r.keys[i]
		col, err := k.expr.Eval(ctx, b)
		if err != nil {
			return err
		}
		// Byte keys view the column: it is released once the rows are placed.
		defer col.Release()
		if col.Len() != n {
			return fmt.Errorf("range partitioning key %s produced %d rows for a batch of %d", k.expr, col.Len(), n)
		}
		if err := k.convert(col, &k.rows, false); err != nil {
			return fmt.Errorf("range partitioning key %s: %w", k.expr, err)
		}
	}
	if len(r.keys) == 1 {
		r.placeOne(ids)
		return nil
	}
	for i := range ids {
		lo, hi := 0, r.nb
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if r.cmpBoundRow(m, i) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		ids[i] = int32(lo)
	}
	return nil
}

// placeOne places the rows by the one key: null rows at once, the others by a typed search over
// the non-null bounds.
func (r *rangePartitioner) placeOne(ids []int32) {
	k := &r.keys[0]
	rows, bs := &k.rows, &k.bounds
	nullAt := int32(0) // nulls first: no bound is below a null
	if !k.order.NullsFirst {
		nullAt = int32(r.nhi) // nulls last: every non-null bound is
	}
	lo := int32(r.nlo)
	switch k.form {
	case formU64:
		b := bs.u64[r.nlo:r.nhi]
		for i, v := range rows.u64[:len(ids)] {
			ids[i] = lo + int32(searchU64(b, v))
		}
	case formWide:
		b := bs.wide[r.nlo:r.nhi]
		for i, v := range rows.wide[:len(ids)] {
			ids[i] = lo + int32(searchWide(b, v))
		}
	case formBytes:
		desc := k.order.Descending
		for i := range ids {
			v := rows.bytes(i)
			l, h := r.nlo, r.nhi
			for l < h {
				m := int(uint(l+h) >> 1)
				c := bytes.Compare(bs.bytes(m), v)
				if desc {
					c = -c
				}
				if c < 0 {
					l = m + 1
				} else {
					h = m
				}
			}
			ids[i] = int32(l)
		}
	}
	if rows.null != nil {
		for i, isNull := range rows.null[:len(ids)] {
			if isNull {
				ids[i] = nullAt
			}
		}
	}
}

// searchU64 returns the number of bounds below v.
func searchU64(bounds []uint64, v uint64) int {
	lo, hi := 0, len(bounds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bounds[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func searchWide(bounds [][2]uint64, v [2]uint64) int {
	lo, hi := 0, len(bounds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b := bounds[m]; b[0] < v[0] || b[0] == v[0] && b[1] < v[1] {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// cmpBounds orders bound i against bound j.
func (r *rangePartitioner) cmpBounds(i, j int) int {
	for ki := range r.keys {
		k := &r.keys[ki]
		if c := k.compare(&k.bounds, i, &k.bounds, j); c != 0 {
			return c
		}
	}
	return 0
}

// cmpBoundRow orders bound j against row i of the current batch: negative when the bound is below.
func (r *rangePartitioner) cmpBoundRow(j, i int) int {
	for ki := range r.keys {
		k := &r.keys[ki]
		if c := k.compare(&k.bounds, j, &k.rows, i); c != 0 {
			return c
		}
	}
	return 0
}

// compare orders value i of a against value j of b under the key's ordering.
func (k *rangeKey) compare(a *keyVals, i int, b *keyVals, j int) int {
	an, bn := a.isNull(i), b.isNull(j)
	if an || bn {
		switch {
		case an && bn:
			return 0
		case an == k.order.NullsFirst:
			return -1
		}
		return 1
	}
	switch k.form {
	case formU64:
		return cmp.Compare(a.u64[i], b.u64[j])
	case formWide:
		if c := cmp.Compare(a.wide[i][0], b.wide[j][0]); c != 0 {
			return c
		}
		return cmp.Compare(a.wide[i][1], b.wide[j][1])
	}
	c := bytes.Compare(a.bytes(i), b.bytes(j))
	if k.order.Descending {
		c = -c
	}
	return c
}

// ---- comparable forms ----

const signBit = 1 << 63

// convert fills dst with the comparable form of column a (whose rows it keeps only for byte keys,
// which view a unless own is set: bounds copy their bytes).
func (k *rangeKey) convert(a arrow.Array, dst *keyVals, own bool) error {
	if want := k.typ.Arrow(); a.DataType().ID() != want.ID() {
		return fmt.Errorf("column of Arrow type %s, expected %s for %s", a.DataType(), want, k.typ)
	}
	n := a.Len()
	dst.null = nil
	if bits, off := columnar.ValidityBits(a); bits != nil {
		if cap(dst.nbuf) < n {
			dst.nbuf = make([]bool, n)
		}
		dst.null = dst.nbuf[:n]
		for i := range dst.null {
			dst.null[i] = !bitutil.BitIsSet(bits, off+i)
		}
	}
	switch k.form {
	case formBytes:
		offs, data := columnar.BinaryParts(a)
		if own {
			base := offs[0]
			dst.offs = make([]int32, len(offs))
			for i, o := range offs {
				dst.offs[i] = o - base
			}
			dst.data = append([]byte(nil), data[base:offs[len(offs)-1]]...)
		} else {
			dst.offs, dst.data = offs, data
		}
		return nil
	case formWide:
		if cap(dst.wide) < n {
			dst.wide = make([][2]uint64, n)
		}
		out := dst.wide[:n]
		for i, v := range columnar.Values[decimal128.Num](a) {
			out[i] = [2]uint64{uint64(v.HighBits()) ^ signBit ^ k.flip, v.LowBits() ^ k.flip}
		}
		dst.wide = out
		return nil
	}
	if cap(dst.u64) < n {
		dst.u64 = make([]uint64, n)
	}
	out := dst.u64[:n]
	dst.u64 = out
	switch k.typ.Kind {
	case sparktype.Boolean:
		bits, off := columnar.BoolBits(a)
		for i := range out {
			out[i] = 0 ^ k.flip
			if bitutil.BitIsSet(bits, off+i) {
				out[i] = 1 ^ k.flip
			}
		}
	case sparktype.Byte:
		signedKeys(columnar.Values[int8](a), out, k.flip)
	case sparktype.Short:
		signedKeys(columnar.Values[int16](a), out, k.flip)
	case sparktype.Int, sparktype.Date:
		signedKeys(columnar.Values[int32](a), out, k.flip)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		signedKeys(columnar.Values[int64](a), out, k.flip)
	case sparktype.Float:
		for i, v := range columnar.Values[float32](a) {
			out[i] = doubleKey(float64(v)) ^ k.flip
		}
	case sparktype.Double:
		for i, v := range columnar.Values[float64](a) {
			out[i] = doubleKey(v) ^ k.flip
		}
	case sparktype.Decimal:
		for i, v := range columnar.Values[decimal128.Num](a) {
			out[i] = uint64(int64(v.LowBits())) ^ signBit ^ k.flip
		}
	}
	return nil
}

func signedKeys[T int8 | int16 | int32 | int64](vals []T, out []uint64, flip uint64) {
	out = out[:len(vals)]
	for i, v := range vals {
		out[i] = uint64(int64(v)) ^ signBit ^ flip
	}
}

// doubleKey maps a double to a uint64 in Spark's order: -0.0 as 0.0, every NaN as one NaN above
// +Infinity, negative values below positive ones (their bits inverted, the sign bit set on others).
func doubleKey(f float64) uint64 {
	switch {
	case f == 0:
		return signBit // +0.0
	case f != f:
		return 0x7ff8000000000000 | signBit
	}
	b := math.Float64bits(f)
	if b&signBit != 0 {
		return ^b
	}
	return b | signBit
}
