package aggregate

import (
	"errors"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// decSum holds decimal running sums with Spark's buffer semantics (see Sum in sum.go): per group a
// sum and an overflow flag (the buffer went null); with a single group (no grouping keys) an
// exact 192-bit sum checked only when it leaves the buffer.
//
// Grouped sums start narrow: an int64 per group, added with a signed-overflow check. While a sum
// fits in 64 bits it is the exact 128-bit sum, and |sum| < 2^63 < 10^19 passes the per-row
// precision check of a buffer over 18 digits (smaller buffers are not checked per row), so the
// narrow sum needs no other check. A group whose add would leave 64 bits (or whose input value
// does not fit in 64 bits, possible above 18 digits) widens once to a 128-bit sum and from then on
// adds exactly as before. Decimal sums of TPC-H-like data never widen: the common row costs one
// 64-bit add and two compares instead of a 128-bit add and a precision check.
type decSum struct {
	t      sparktype.Type
	check  bool // per-row precision check: grouped and precision > 18 (UnsafeRow.setDecimal)
	single bool
	state  []uint8 // per group: decNarrow, decWide or decOverflow
	small  []int64 // the sum of a narrow group
	los    []uint64
	his    []int64 // the sum of a wide group (grown only once a group widens)
	wide   wideSum
	// notNarrow counts the groups that are wide or overflowed.
	notNarrow int
	// reach bounds |small[g]| over the narrow groups, or is reachUnknown: while it plus a batch's
	// row count times its value bound stays below 2^63 no narrow sum can leave 64 bits, and
	// addInt64 adds without checks.
	reach uint64
	part  []int64 // scratch of sumFew
}

const reachUnknown = math.MaxUint64

const (
	decNarrow uint8 = iota
	decWide
	decOverflow // the buffer went null; it stays null
)

// decSharer is a function whose state is a decimal sum of its input (sum, avg over a decimal).
type decSharer interface {
	// decAcc returns the function's accumulator and input.
	decAcc() (*decSum, *input)
	// borrowAcc makes acc, updated by another function over the same input, the function's sum:
	// its update no longer adds to it.
	borrowAcc(acc *decSum)
}

// shareDecSums makes the updating functions of a run that sum the same decimal column share one
// accumulator: sum(x) and avg(x) (TPC-H Q1 has two such pairs) buffer the same decimal(p+10,s)
// sum with the same overflow rules, so the second one adds nothing. Only for a run fed by the
// child's rows (every merge goes into its own accumulator), without FILTER clauses (the
// functions would see different rows) and for columns, not expressions (told equal by ordinal).
func shareDecSums(specs []*fnSpec, fns []function) {
	if noShareDecSums {
		return
	}
	var owners map[int]*decSum
	for i, f := range fns {
		s := specs[i]
		if !s.mode.updates() || s.filter != nil || s.codes != nil {
			continue
		}
		d, ok := f.(decSharer)
		if !ok {
			continue
		}
		acc, in := d.decAcc()
		if in == nil || in.e != nil {
			continue
		}
		o, seen := owners[in.ordinal]
		switch {
		case !seen:
			if owners == nil {
				owners = map[int]*decSum{}
			}
			owners[in.ordinal] = acc
		case o.t.Equal(acc.t) && o.single == acc.single && o.check == acc.check:
			d.borrowAcc(o)
		}
	}
}

// noShareDecSums turns sharing off (tests compare against separate sums).
var noShareDecSums bool

// errSharedMerge reports a merge into a run whose functions share sums, which only updates.
var errSharedMerge = errors.New("aggregate: merge into a shared decimal sum")

func newDecSum(t sparktype.Type, single bool) *decSum {
	return &decSum{t: t, single: single, check: !single && t.Precision > 18}
}

func (d *decSum) grow(n int) {
	d.state = growSlice(d.state, n, decNarrow)
	d.small = growSlice(d.small, n, 0)
	if d.los != nil {
		d.los = growSlice(d.los, n, 0)
		d.his = growSlice(d.his, n, 0)
	}
}

func (d *decSum) setOverflow(g uint32) {
	if d.state[g] == decNarrow {
		d.notNarrow++
	}
	d.state[g] = decOverflow
}

func (d *decSum) addColumn(vals []decimal128.Num, bits []byte, off int, gids []uint32) {
	vals = vals[:len(gids)]
	d.reach = reachUnknown
	if d.single {
		for i := range gids {
			if bitSet(bits, off, i) {
				d.wide.add(vals[i].LowBits(), vals[i].HighBits())
			}
		}
		return
	}
	state, small := d.state, d.small
	if bits == nil {
		for i, g := range gids {
			lo, hi := vals[i].LowBits(), vals[i].HighBits()
			v := int64(lo)
			if state[g] == decNarrow && hi == v>>63 {
				a := small[g]
				if s := a + v; (a^s)&(v^s) >= 0 {
					small[g] = s
					continue
				}
			}
			d.addSlow(g, lo, hi)
		}
		return
	}
	for i, g := range gids {
		if !bitSet(bits, off, i) {
			continue
		}
		lo, hi := vals[i].LowBits(), vals[i].HighBits()
		v := int64(lo)
		if state[g] == decNarrow && hi == v>>63 {
			a := small[g]
			if s := a + v; (a^s)&(v^s) >= 0 {
				small[g] = s
				continue
			}
		}
		d.addSlow(g, lo, hi)
	}
}

// addInt64 adds exact values (no nulls) whose magnitudes are at most bound.
func (d *decSum) addInt64(vals []int64, bound uint64, gids []uint32) {
	vals = vals[:len(gids)]
	hi, span := bits.Mul64(uint64(len(vals)), bound)
	if d.single {
		if hi == 0 && span <= math.MaxInt64 { // the batch's sum fits an int64
			var s int64
			for _, v := range vals {
				s += v
			}
			d.wide.add(uint64(s), s>>63)
			return
		}
		for _, v := range vals {
			d.wide.add(uint64(v), v>>63)
		}
		return
	}
	if d.notNarrow == 0 && hi == 0 && span <= math.MaxInt64 {
		if d.reach > math.MaxInt64-span {
			d.reach = d.narrowReach(len(vals))
		}
		if d.reach <= math.MaxInt64-span {
			if len(d.small) <= len(vals)/16 {
				d.part = sumFew(d.small, d.part, vals, gids)
			} else {
				small := d.small
				for i, g := range gids {
					small[g] += vals[i]
				}
			}
			d.reach += span
			return
		}
	}
	d.reach = reachUnknown
	state, small := d.state, d.small
	for i, g := range gids {
		v := vals[i]
		if state[g] == decNarrow {
			a := small[g]
			if s := a + v; (a^s)&(v^s) >= 0 {
				small[g] = s
				continue
			}
		}
		d.addSlow(g, uint64(v), v>>63)
	}
}

// sumFew adds vals into small by group, for few groups (len(small) well under len(vals)): four
// interleaved partial sums per group, so that a row does not wait for the store of an earlier row
// of its group (with few groups that is a few rows back). The caller's bound proves every sum,
// partial or not, exact in 64 bits. part is scratch, returned for reuse.
func sumFew(small, part []int64, vals []int64, gids []uint32) []int64 {
	ng := len(small)
	if cap(part) < 4*ng {
		part = make([]int64, 4*ng)
	}
	part = part[:4*ng]
	clear(part)
	p0, p1, p2, p3 := part[:ng], part[ng:2*ng], part[2*ng:3*ng], part[3*ng:]
	vals = vals[:len(gids)]
	i := 0
	for ; i+4 <= len(gids); i += 4 {
		p0[gids[i]] += vals[i]
		p1[gids[i+1]] += vals[i+1]
		p2[gids[i+2]] += vals[i+2]
		p3[gids[i+3]] += vals[i+3]
	}
	for ; i < len(gids); i++ {
		p0[gids[i]] += vals[i]
	}
	p1, p2, p3 = p1[:len(p0)], p2[:len(p0)], p3[:len(p0)]
	small = small[:len(p0)]
	for g := range p0 {
		small[g] += p0[g] + p1[g] + p2[g] + p3[g]
	}
	return part
}

// narrowReach returns the largest |small[g]|, or reachUnknown when there are too many groups
// to scan for a batch of n rows.
func (d *decSum) narrowReach(n int) uint64 {
	if len(d.small) > 4*n+1024 {
		return reachUnknown
	}
	var m uint64
	for _, s := range d.small {
		if s < 0 {
			s = -s // MinInt64 stays negative: its uint64 is 2^63, over any limit
		}
		m = max(m, uint64(s))
	}
	return m
}

// addSlow adds one value to a group that is wide, overflowed, or narrow but cannot take the value
// in 64 bits (it widens).
func (d *decSum) addSlow(g uint32, vlo uint64, vhi int64) {
	switch d.state[g] {
	case decOverflow:
		return
	case decNarrow:
		if d.los == nil {
			d.los = make([]uint64, len(d.state))
			d.his = make([]int64, len(d.state))
		}
		s := d.small[g]
		d.los[g], d.his[g] = uint64(s), s>>63
		d.state[g] = decWide
		d.notNarrow++
	}
	lo, hi, o := add128(d.los[g], d.his[g], vlo, vhi)
	if o || (d.check && !fitsPrecision(lo, hi, d.t.Precision)) {
		d.state[g] = decOverflow
		return
	}
	d.los[g], d.his[g] = lo, hi
}

func (d *decSum) addOne(g uint32, v decimal128.Num) {
	d.reach = reachUnknown
	if d.single {
		d.wide.add(v.LowBits(), v.HighBits())
		return
	}
	lo, hi := v.LowBits(), v.HighBits()
	if x := int64(lo); d.state[g] == decNarrow && hi == x>>63 {
		a := d.small[g]
		if s := a + x; (a^s)&(x^s) >= 0 {
			d.small[g] = s
			return
		}
	}
	d.addSlow(g, lo, hi)
}

// value returns group g's sum as a 128-bit number when it fits the buffer precision (fits), or
// the exact value (big) for error messages; ovf reports a buffer that went null.
func (d *decSum) value(g int) (n decimal128.Num, fits bool, exact *big.Int, ovf bool) {
	if d.state[g] == decOverflow {
		return n, false, nil, true
	}
	if d.single {
		v := d.wide.big()
		if !bigFits(v, d.t.Precision) {
			return n, false, v, false
		}
		return decimal128.FromBigInt(v), true, v, false
	}
	lo, hi := d.los128(g)
	if !fitsPrecision(lo, hi, d.t.Precision) {
		return n, false, num128ToBig(lo, hi), false
	}
	return decimal128.New(hi, lo), true, nil, false
}

// los128 returns group g's (grouped, not overflowed) sum as 128 bits.
func (d *decSum) los128(g int) (uint64, int64) {
	if d.state[g] == decNarrow {
		s := d.small[g]
		return uint64(s), s >> 63
	}
	return d.los[g], d.his[g]
}

// bufferColumn builds the sum buffer column as a Spark UnsafeRow writer would: a value over the
// precision becomes null.
func (d *decSum) bufferColumn(alloc memory.Allocator, lo, hi int) arrow.Array {
	o := newFixedOut[decimal128.Num](alloc, hi-lo)
	for g := lo; g < hi; g++ {
		n, fits, _, _ := d.value(g)
		if fits {
			o.V[g-lo] = n
		} else {
			o.setNull(alloc, g-lo)
		}
	}
	return o.finish(d.t.Arrow())
}
