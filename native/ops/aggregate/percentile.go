package aggregate

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// percentile / percentile_cont / percentile_disc (Percentile and PercentileDisc in
// percentiles.scala, PercentileBase): a TypedImperativeAggregate whose object buffer is an
// OpenHashMap from each distinct non-null value to its summed frequency. The result sorts the
// map by value (descending when `reverse`, percentile_cont/disc's DESC), accumulates the counts,
// and for a percentage p takes position = (total - 1) * p; lower/higher = floor/ceil(position)
// are located by java.util.Arrays.binarySearch over the accumulated counts (key + 1; the
// insertion point when absent); percentile interpolates linearly,
// (higher - position) * lowerValue + (position - lower) * higherValue, unless both positions
// fall on the same value. percentile_disc (Spark 4.1) takes the value at the first accumulated
// count >= ceil(total * p); with spark.sql.legacy.percentileDiscCalculation the lower value of
// percentile's positions. A group without values is null.
//
// The buffer between aggregates is PercentileBase.serialize: for each map entry a big-endian
// int size (24) and an UnsafeRow of two fields (an 8-byte null bitset, all zero; the value in an
// 8-byte slot, narrower integers in its low bytes with the rest zero; the count as a long), then
// a big-endian int -1. Spark writes the entries in its OpenHashMap's iteration order; this
// writes them in ascending value order. Both sides only ever rebuild a map from the entries
// (a value appears once per buffer), add counts (wrapping long addition, which does not depend
// on the order) and sort by value before evaluating, so the answer is the same whichever side
// wrote or reads the bytes; only the order of the entries in the serialized bytes differs.
//
// Native for byte, short, int, long and decimals of precision <= 18 (every value is then an
// exact int64 key whose order is the value order), with a constant positive frequency (the
// default 1). Refused, with the reason, for:
//   - float and double: Spark's map keeps -0.0 and 0.0 as distinct values that compare equal
//     in the sort, so which one a percentile picks depends on the OpenHashMap's iteration order
//     (hashing and insertion order), which is not reproduced;
//   - wider decimals and ANSI intervals (not reproduced here);
//   - an array of percentages (array literals are not part of the plan encoding);
//   - a frequency that is not a constant (Spark raises an error on a negative one per row) or is
//     a negative constant.
//
// Per group the state is a slice of (value, count) pairs, appended as rows arrive and compacted
// (sorted, equal values merged) whenever it doubles, so memory follows the distinct values.
func init() {
	registerFunction("Percentile", newPercentile)
	registerFunction("PercentileDisc", newPercentile)
}

func newPercentile(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	short := plan.ShortClass(fn.Class)
	name := "percentile"
	interpolate, disc := true, false
	if short == "PercentileDisc" {
		name, interpolate, disc = "percentile_disc", false, true
		// Spark 4.1's percentile_disc takes the first value whose cumulative count reaches
		// total * p; with spark.sql.legacy.percentileDiscCalculation it is the lower value of
		// percentile's positions, without interpolation.
		if !fn.Has("legacyCalculation") {
			return nil, refuse("percentile_disc without its legacyCalculation flag (not Spark 4.1's) is not supported natively")
		}
		legacy, err := fn.Bool("legacyCalculation")
		if err != nil {
			return nil, err
		}
		disc = !legacy
	}
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
	case sparktype.Decimal:
		if t.Precision > maxLongDigits {
			return nil, refuse("%s over %s is not supported natively (only decimals of precision <= %d)",
				name, t, maxLongDigits)
		}
	case sparktype.Float, sparktype.Double:
		return nil, refuse("%s over %s is not supported natively: Spark keeps -0.0 and 0.0 as distinct values "+
			"that sort as equal, and which one it picks follows its hash map's iteration order", name, t)
	default:
		return nil, refuse("%s over %s is not supported natively", name, t)
	}
	reverse := false
	if fn.Has("reverse") {
		if reverse, err = fn.Bool("reverse"); err != nil {
			return nil, err
		}
	}
	pe, err := fn.Child("percentageExpression")
	if err != nil {
		return nil, err
	}
	pct, err := doubleLiteral(pe)
	if err != nil {
		return nil, refuse("%s with percentage %s is not supported natively: %v", name, plan.ShortClass(pe.Class), err)
	}
	if pct == nil || !(*pct >= 0 && *pct <= 1) {
		return nil, refuse("%s with a null or out-of-range percentage is not supported natively", name)
	}
	freq := int64(1)
	if fn.Has("frequencyExpression") {
		fe, err := fn.Child("frequencyExpression")
		if err != nil {
			return nil, err
		}
		f, ok := intLiteral(fe)
		switch {
		case !ok:
			return nil, refuse("%s with a frequency that is not a constant is not supported natively", name)
		case f == nil:
			freq = 0 // a null frequency skips every row
		case *f < 0:
			return nil, refuse("%s with a negative frequency is not supported natively (Spark raises an error per row)", name)
		default:
			freq = *f
		}
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	return &fnSpec{
		name:       name,
		bufTypes:   []sparktype.Type{sparktype.BinaryType},
		resultType: sparktype.DoubleType,
		newState: func() function {
			return &percentileState{in: in, t: t, name: name, pct: *pct, freq: freq,
				interpolate: interpolate, disc: disc, reverse: reverse}
		},
	}, nil
}

// doubleLiteral reads a DoubleType Literal (nil when null).
func doubleLiteral(e *plan.Expr) (*float64, error) {
	e, err := stripAlias(e)
	if err != nil {
		return nil, err
	}
	if plan.ShortClass(e.Class) != "Literal" {
		return nil, fmt.Errorf("not a literal")
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind != sparktype.Double {
		return nil, fmt.Errorf("a %s literal", t)
	}
	raw, err := e.Raw("value")
	if err != nil {
		return nil, err
	}
	v, err := plan.DecodeValue(raw, t)
	if err != nil || v == nil {
		return nil, err
	}
	f := v.(float64)
	return &f, nil
}

// intLiteral reads an integral Literal; ok is false for anything else.
func intLiteral(e *plan.Expr) (v *int64, ok bool) {
	e, err := stripAlias(e)
	if err != nil || plan.ShortClass(e.Class) != "Literal" {
		return nil, false
	}
	t, err := e.Type()
	if err != nil {
		return nil, false
	}
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
	default:
		return nil, false
	}
	raw, err := e.Raw("value")
	if err != nil {
		return nil, false
	}
	var x *int64
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, false
	}
	return x, true
}

// pctEntry is one distinct value (its int64 key: the integer or the decimal's unscaled long)
// and its summed frequency.
type pctEntry struct{ v, n int64 }

type percentileState struct {
	in          *input
	t           sparktype.Type
	name        string
	pct         float64
	freq        int64
	interpolate bool // percentile (percentile_disc in legacy mode does not)
	disc        bool // percentile_disc's own calculation (not legacy)
	reverse     bool

	groups [][]pctEntry
	// compacted[g] is the length of groups[g] after its last compaction: the group is compacted
	// again when it has doubled since, so the work per row stays amortized O(log n).
	compacted []int
	size      int64
	scratch   []int64
}

func (f *percentileState) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.BinaryType}
}

func (f *percentileState) grow(n int) {
	f.groups = growSlice(f.groups, n, nil)
	f.compacted = growSlice(f.compacted, n, 0)
}

func (f *percentileState) memSize() int64 { return f.size + int64(cap(f.groups))*32 }

func (f *percentileState) add(g uint32, v, n int64) {
	f.groups[g] = append(f.groups[g], pctEntry{v, n})
	f.size += 16
	if len(f.groups[g]) > 2*f.compacted[g]+32 {
		f.compact(g)
	}
}

// compact sorts group g's entries by value and merges equal values (counts add as Java longs:
// wrapping, which is order-independent).
func (f *percentileState) compact(g uint32) {
	es := f.groups[g]
	before := len(es)
	slices.SortFunc(es, func(a, b pctEntry) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	w := 0
	for i, e := range es {
		if i > 0 && e.v == es[w-1].v {
			es[w-1].n += e.n
			continue
		}
		es[w] = e
		w++
	}
	f.groups[g] = es[:w]
	f.compacted[g] = w
	f.size += int64(w-before) * 16
}

func (f *percentileState) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("%s: column of %d values for %d rows", f.name, col.Len(), len(gids))
	}
	if f.freq == 0 {
		return nil
	}
	bm, off := validity(col)
	var keys []int64
	if f.t.Kind == sparktype.Decimal {
		dec := fixedValues[decimal128.Num](col)
		if cap(f.scratch) < len(gids) {
			f.scratch = make([]int64, len(gids))
		}
		keys = f.scratch[:len(gids)]
		for i := range keys {
			keys[i] = int64(dec[i].LowBits())
		}
	} else {
		if keys, err = toInt64(col, f.scratch); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if _, view := col.(*array.Int64); !view {
			f.scratch = keys // widened into scratch: keep it for the next batch (never a view of col)
		}
	}
	for i, g := range gids {
		if bitSet(bm, off, i) {
			f.add(g, keys[i], f.freq)
		}
	}
	return nil
}

func (f *percentileState) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("%s buffer: %w", f.name, err)
	}
	bm, off := validity(cols[0])
	for i, g := range gids {
		if !bitSet(bm, off, i) {
			continue
		}
		buf := data[offs[i]:offs[i+1]]
		for {
			if len(buf) < 4 {
				return fmt.Errorf("%s buffer: truncated (no end marker)", f.name)
			}
			size := int32(binary.BigEndian.Uint32(buf))
			buf = buf[4:]
			if size < 0 {
				break
			}
			if size != 24 || len(buf) < 24 {
				return fmt.Errorf("%s buffer: entry of %d bytes (%d left), expected a 24-byte row", f.name, size, len(buf))
			}
			if buf[0]&3 != 0 {
				return fmt.Errorf("%s buffer: entry with a null field", f.name)
			}
			var v int64
			switch f.t.Kind {
			case sparktype.Byte:
				v = int64(int8(buf[8]))
			case sparktype.Short:
				v = int64(int16(binary.LittleEndian.Uint16(buf[8:])))
			case sparktype.Int:
				v = int64(int32(binary.LittleEndian.Uint32(buf[8:])))
			default:
				v = int64(binary.LittleEndian.Uint64(buf[8:]))
			}
			f.add(g, v, int64(binary.LittleEndian.Uint64(buf[16:])))
			buf = buf[24:]
		}
	}
	return nil
}

func (f *percentileState) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	vals := make([]string, hi-lo)
	var scratch []byte
	for i := range vals {
		g := uint32(lo + i)
		f.compact(g)
		es := f.groups[g]
		scratch = scratch[:0]
		var row [28]byte
		binary.BigEndian.PutUint32(row[:], 24)
		for _, e := range es {
			clear(row[4:])
			switch f.t.Kind {
			case sparktype.Byte:
				row[12] = byte(e.v)
			case sparktype.Short:
				binary.LittleEndian.PutUint16(row[12:], uint16(e.v))
			case sparktype.Int:
				binary.LittleEndian.PutUint32(row[12:], uint32(e.v))
			default:
				binary.LittleEndian.PutUint64(row[12:], uint64(e.v))
			}
			binary.LittleEndian.PutUint64(row[20:], uint64(e.n))
			scratch = append(scratch, row[:]...)
		}
		scratch = append(scratch, 0xff, 0xff, 0xff, 0xff)
		vals[i] = string(scratch)
	}
	return []arrow.Array{buildBinary(alloc, sparktype.BinaryType, vals, nil)}, nil
}

func (f *percentileState) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	out := make([]float64, hi-lo)
	has := make([]bool, hi-lo)
	var acc []int64
	for i := range out {
		g := uint32(lo + i)
		f.compact(g)
		es := f.groups[g]
		if len(es) == 0 {
			continue
		}
		if f.reverse {
			slices.Reverse(es) // descending; keys are distinct, so this is Spark's sortBy(..).reverse
		}
		acc = acc[:0]
		var sum int64
		for _, e := range es {
			sum += e.n
			acc = append(acc, sum)
		}
		r, err := f.percentileOf(es, acc)
		if f.reverse {
			slices.Reverse(es)
		}
		if err != nil {
			return nil, err
		}
		out[i], has[i] = r, true
	}
	return buildFixed(alloc, sparktype.DoubleType, out, has), nil
}

// percentileOf is PercentileBase.getPercentile over the entries in evaluation order and their
// accumulated counts.
func (f *percentileState) percentileOf(es []pctEntry, acc []int64) (float64, error) {
	if f.disc {
		// The smallest position whose cume_dist reaches p.
		higher := javaD2L(math.Ceil(float64(acc[len(acc)-1]) * f.pct))
		hi := javaSearchLong(acc, higher)
		if hi >= len(es) {
			return 0, fmt.Errorf("%s: accumulated frequencies overflow a long", f.name)
		}
		return f.toDouble(es[hi].v), nil
	}
	maxPosition := acc[len(acc)-1] - 1
	position := float64(maxPosition) * f.pct
	lower := javaD2L(math.Floor(position))
	higher := javaD2L(math.Ceil(position))
	li := javaSearchLong(acc, lower+1)
	hiIdx := javaSearchLong(acc, higher+1)
	if li >= len(es) || hiIdx >= len(es) {
		// Only reachable when the counts overflowed a long; Spark indexes past its array.
		return 0, fmt.Errorf("%s: accumulated frequencies overflow a long", f.name)
	}
	lowD := f.toDouble(es[li].v)
	if higher == lower || hiIdx == li || !f.interpolate {
		return lowD, nil
	}
	highD := f.toDouble(es[hiIdx].v)
	// Each product is rounded on its own (float64 conversions forbid a fused multiply-add), as
	// the JVM evaluates it.
	a := float64((float64(higher) - position) * lowD)
	b := float64((position - float64(lower)) * highD)
	return a + b, nil
}

// javaD2L is Java's (long) conversion of a double: NaN is 0, out-of-range values saturate.
func javaD2L(d float64) int64 {
	switch {
	case d != d:
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	}
	return int64(d)
}

// javaSearchLong is java.util.Arrays.binarySearch(a, 0, len(a), key) over longs with Spark's mapping of
// a miss to its insertion point (-(ix + 1) -> the insertion point). Written out rather than
// sort.Search so that unsorted input (overflowed counts) probes the same elements as Java.
func javaSearchLong(a []int64, key int64) int {
	low, high := 0, len(a)-1
	for low <= high {
		mid := int(uint(low+high) >> 1)
		switch v := a[mid]; {
		case v < key:
			low = mid + 1
		case v > key:
			high = mid - 1
		default:
			return mid
		}
	}
	return low
}

// toDouble is PercentileBase.toDoubleValue: Number.doubleValue for integers, Decimal.toDouble
// (BigDecimal.doubleValue, correctly rounded) for decimals.
func (f *percentileState) toDouble(v int64) float64 {
	if f.t.Kind != sparktype.Decimal || f.t.Scale == 0 {
		return float64(v)
	}
	s := int(f.t.Scale)
	if (v < 1<<52 && v > -(1<<52)) && s < len(pow10Float) {
		// Both operands are exact doubles: the quotient is correctly rounded (the same fast path
		// as the JDK's BigDecimal.doubleValue).
		return float64(v) / pow10Float[s]
	}
	d, _ := strconv.ParseFloat(plainString(big.NewInt(v), int32(s)), 64)
	return d
}

var pow10Float = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
