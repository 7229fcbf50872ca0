package aggregate

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestDecSumMatchesReference: the decimal sums (narrow int64 sums that widen to 128 bits) give
// exactly the values, overflow flags and exact out-of-range values of the plain 128-bit
// accumulator (refDecSum, the implementation before narrow sums), over random values incl. nulls,
// values near the input precision's limit and near 2^63, groups that get no rows, merged values
// (addOne) and overflow flags set by merges.
func TestDecSumMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var states [3]int // groups ending narrow, wide, overflowed: every path is taken
	int64Batches := 0
	for _, p := range []int32{2, 8, 12, 18, 19, 22, 28, 38} {
		for _, single := range []bool{false, true} {
			for trial := 0; trial < 20; trial++ {
				name := fmt.Sprintf("p%d/single=%v/%d", p, single, trial)
				bt := sparktype.DecimalOf(min(38, p+10), 2)
				got, want := newDecSum(bt, single), newRefDecSum(bt, single)
				ng := 1
				if !single {
					ng = 1 + r.IntN(40)
				}
				got.grow(ng)
				want.grow(ng)
				for batch := 0; batch < 6; batch++ {
					n := r.IntN(300)
					vals := make([]decimal128.Num, n)
					gids := make([]uint32, n)
					var bits []byte
					if r.IntN(2) == 0 {
						bits = make([]byte, bitutil.BytesForBits(int64(n+3)))
					}
					for i := range vals {
						vals[i] = randDec(r, p, trial)
						if !single {
							gids[i] = uint32(r.IntN(max(1, ng-ng/4))) // the last groups stay empty
						}
						if bits != nil && r.IntN(5) != 0 {
							bitutil.SetBit(bits, i+3)
						}
					}
					if v64, bound, ok := asInt64(r, vals); ok && bits == nil && r.IntN(2) == 0 {
						got.addInt64(v64, bound, gids) // what expr.Dec64 hands over
						int64Batches++
					} else {
						got.addColumn(vals, bits, 3, gids)
					}
					want.addColumn(vals, bits, 3, gids)
					for k := 0; k < 5; k++ {
						g, v := uint32(r.IntN(ng)), randDec(r, min(38, p+10), trial)
						if r.IntN(20) == 0 {
							got.setOverflow(g)
							want.ovf[g] = true
						}
						got.addOne(g, v)
						want.addOne(g, v)
					}
					if r.IntN(3) == 0 { // new groups appear
						ng += r.IntN(3)
						got.grow(ng)
						want.grow(ng)
					}
				}
				for g := 0; g < ng; g++ {
					if !single {
						states[got.state[g]]++
					}
					gn, gf, ge, go_ := got.value(g)
					wn, wf, we, wo := want.value(g)
					if gn != wn || gf != wf || go_ != wo || (ge == nil) != (we == nil) || (ge != nil && ge.Cmp(we) != 0) {
						t.Fatalf("%s group %d: got (%v %v %v %v), want (%v %v %v %v)", name, g, gn, gf, ge, go_, wn, wf, we, wo)
					}
				}
				gb, wb := got.bufferColumn(gomem, 0, ng), want.bufferColumn(gomem, 0, ng)
				for g := 0; g < ng; g++ {
					if cell(gb, g) != cell(wb, g) {
						t.Fatalf("%s buffer %d: got %v, want %v", name, g, cell(gb, g), cell(wb, g))
					}
				}
				gb.Release()
				wb.Release()
			}
		}
	}
	if states[0] == 0 || states[1] == 0 || states[2] == 0 || int64Batches == 0 {
		t.Fatalf("groups narrow/wide/overflowed: %v: a path was not tested", states)
	}
	t.Logf("groups narrow/wide/overflowed: %v; batches added as int64: %d", states, int64Batches)
}

// asInt64 narrows vals when they all fit an int64, with a bound on their magnitudes: the OR of
// them (as expr.Dec64), their maximum, or a looser bound.
func asInt64(r *rand.Rand, vals []decimal128.Num) ([]int64, uint64, bool) {
	out := make([]int64, len(vals))
	var or, mx uint64
	for i, v := range vals {
		x := int64(v.LowBits())
		if v.HighBits() != x>>63 {
			return nil, 0, false
		}
		out[i] = x
		m := uint64(x)
		if x < 0 {
			m = -m
		}
		or |= m
		mx = max(mx, m)
	}
	switch r.IntN(3) {
	case 0:
		return out, or, true
	case 1:
		return out, mx, true
	}
	return out, mx + uint64(r.Int64N(1<<40)), true
}

// TestDecSumInt64Reach: sums of int64 values near the limit of a narrow sum, many rows per batch
// and few groups, so that the unchecked adds of addInt64 stop exactly where a sum could leave 64
// bits: the results equal the checked reference, positive and negative, and a group that must
// widen does.
func TestDecSumInt64Reach(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bt := sparktype.DecimalOf(38, 2)
	widened := 0
	defer func() {
		if widened == 0 {
			t.Errorf("no group widened: the limit of the unchecked adds was not tested")
		}
	}()
	for trial := 0; trial < 40; trial++ {
		got, want := newDecSum(bt, trial%4 == 3), newRefDecSum(bt, trial%4 == 3)
		ng := 1 + r.IntN(4)
		got.grow(ng)
		want.grow(ng)
		base := int64(1) << (40 + r.IntN(20)) // batches of 4096 such values approach 2^63
		for batch := 0; batch < 12; batch++ {
			n := 1 + r.IntN(4096)
			vals := make([]decimal128.Num, n)
			v64 := make([]int64, n)
			gids := make([]uint32, n)
			sign := int64(1)
			if trial%2 == 1 {
				sign = -1
			}
			var bound uint64
			for i := range vals {
				x := sign * (base - r.Int64N(base/2))
				if r.IntN(50) == 0 {
					x = -x
				}
				v64[i], vals[i] = x, decimal128.FromI64(x)
				bound = max(bound, uint64(base))
				if !got.single {
					gids[i] = uint32(r.IntN(ng))
				}
			}
			got.addInt64(v64, bound, gids)
			want.addColumn(vals, nil, 0, gids)
		}
		for g := 0; g < ng; g++ {
			if !got.single && got.state[g] == decWide {
				widened++
			}
			gn, gf, ge, go_ := got.value(g)
			wn, wf, we, wo := want.value(g)
			if gn != wn || gf != wf || go_ != wo || (ge == nil) != (we == nil) || (ge != nil && ge.Cmp(we) != 0) {
				t.Fatalf("trial %d group %d: got (%v %v %v %v), want (%v %v %v %v)", trial, g, gn, gf, ge, go_, wn, wf, we, wo)
			}
		}
	}
}

// randDec draws a decimal of precision p: small values, values near ±(10^p - 1), or (above 18
// digits) values near ±2^63; bias shifts the mix between trials.
func randDec(r *rand.Rand, p int32, bias int) decimal128.Num {
	limit := bigPow10[p]
	var v *big.Int
	switch k := r.IntN(10 + bias%5); {
	case k < 5:
		v = big.NewInt(r.Int64N(100000))
	case k < 9:
		v = new(big.Int).Sub(limit, big.NewInt(1+r.Int64N(1000)))
	default:
		v = new(big.Int).Lsh(big.NewInt(1), 63)
		v.Sub(v, big.NewInt(r.Int64N(3)))
		if v.Cmp(limit) >= 0 {
			v = new(big.Int).Sub(limit, big.NewInt(1))
		}
	}
	if r.IntN(2) == 0 {
		v.Neg(v)
	}
	return decimal128.FromBigInt(v)
}

// refDecSum is the plain 128-bit decimal accumulator (decSum before narrow sums), kept as the
// reference of TestDecSumMatchesReference.
type refDecSum struct {
	t      sparktype.Type
	check  bool // per-row precision check: grouped and precision > 18 (UnsafeRow.setDecimal)
	single bool
	los    []uint64
	his    []int64
	ovf    []bool
	wide   wideSum
}

func newRefDecSum(t sparktype.Type, single bool) *refDecSum {
	return &refDecSum{t: t, single: single, check: !single && t.Precision > 18}
}

func (d *refDecSum) grow(n int) {
	d.los = growSlice(d.los, n, 0)
	d.his = growSlice(d.his, n, 0)
	d.ovf = growSlice(d.ovf, n, false)
}

func (d *refDecSum) addColumn(vals []decimal128.Num, bits []byte, off int, gids []uint32) {
	vals = vals[:len(gids)]
	if d.single {
		for i := range gids {
			if bitSet(bits, off, i) {
				d.wide.add(vals[i].LowBits(), vals[i].HighBits())
			}
		}
		return
	}
	los, his, ovf, p := d.los, d.his, d.ovf, d.t.Precision
	for i, g := range gids {
		if (bits != nil && !bitSet(bits, off, i)) || ovf[g] {
			continue
		}
		lo, hi, o := add128(los[g], his[g], vals[i].LowBits(), vals[i].HighBits())
		if o || (d.check && !fitsPrecision(lo, hi, p)) {
			ovf[g] = true
			continue
		}
		los[g], his[g] = lo, hi
	}
}

func (d *refDecSum) addOne(g uint32, v decimal128.Num) {
	if d.single {
		d.wide.add(v.LowBits(), v.HighBits())
		return
	}
	if d.ovf[g] {
		return
	}
	lo, hi, o := add128(d.los[g], d.his[g], v.LowBits(), v.HighBits())
	if o || (d.check && !fitsPrecision(lo, hi, d.t.Precision)) {
		d.ovf[g] = true
		return
	}
	d.los[g], d.his[g] = lo, hi
}

// value returns group g's sum as a 128-bit number when it fits the buffer precision (fits), or
// the exact value (big) for error messages; ovf reports a buffer that went null.
func (d *refDecSum) value(g int) (n decimal128.Num, fits bool, exact *big.Int, ovf bool) {
	if d.ovf[g] {
		return n, false, nil, true
	}
	if d.single {
		v := d.wide.big()
		if !bigFits(v, d.t.Precision) {
			return n, false, v, false
		}
		return decimal128.FromBigInt(v), true, v, false
	}
	if !fitsPrecision(d.los[g], d.his[g], d.t.Precision) {
		return n, false, num128ToBig(d.los[g], d.his[g]), false
	}
	return decimal128.New(d.his[g], d.los[g]), true, nil, false
}

// bufferColumn builds the sum buffer column as a Spark UnsafeRow writer would: a value over the
// precision becomes null.
func (d *refDecSum) bufferColumn(alloc memory.Allocator, lo, hi int) arrow.Array {
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
