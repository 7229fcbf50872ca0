package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Decimal + - * a batch at a time. Spark's decimal types are wide (a price times a rate is a
// decimal(32,4), that times another rate a decimal(38,6)), but the values seldom are: TPC-H's
// prices and rates fit in 32 bits. When every operand value of a batch fits an int64 and the
// largest magnitudes bound every result below 2^63 and below the result precision, no row can
// overflow, round or fail, and the batch is computed by a tight 64-bit loop with no per-row
// checks. Otherwise (a wide value, a possible overflow, a result scale that needs rounding) the
// per-row path of decKernel runs, as before.

// decBatch computes out from the operand values a and b (am, bm: 0 for a scalar operand, -1
// for a column) when the batch allows it, and reports whether it did (nothing is written when
// not).
func decBatch(d *decOp, a, b []decimal128.Num, am, bm int, out []decimal128.Num) bool {
	n := len(out)
	if n == 0 {
		return false
	}
	ma, ok := maxAbsI64(a, am, n)
	if !ok {
		return false
	}
	mb, ok := maxAbsI64(b, bm, n)
	if !ok {
		return false
	}
	limit := uint64(math.MaxInt64)
	if d.rp <= 18 {
		limit = pow10u64[d.rp] - 1
	}
	switch d.op {
	case opMul:
		if d.s1+d.s2 != d.rs {
			return false
		}
		if hi, lo := bits.Mul64(ma, mb); hi != 0 || lo > limit {
			return false
		}
		for i := range out {
			p := int64(a[i&am].LowBits()) * int64(b[i&bm].LowBits())
			out[i] = decimal128.New(p>>63, uint64(p))
		}
		return true
	case opAdd, opSub:
		if d.ls != d.rs || d.ls-d.s1 > 18 || d.ls-d.s2 > 18 {
			return false
		}
		fa, fb := pow10u64[d.ls-d.s1], pow10u64[d.ls-d.s2]
		ha, xa := bits.Mul64(ma, fa)
		hb, xb := bits.Mul64(mb, fb)
		sum, carry := bits.Add64(xa, xb, 0)
		if ha != 0 || hb != 0 || carry != 0 || sum > limit {
			return false
		}
		sa, sb := int64(fa), int64(fb)
		if d.op == opSub {
			sb = -sb
		}
		for i := range out {
			p := int64(a[i&am].LowBits())*sa + int64(b[i&bm].LowBits())*sb
			out[i] = decimal128.New(p>>63, uint64(p))
		}
		return true
	}
	return false
}

// maxAbsI64 returns the largest magnitude among the n values of v (one value when m is 0), and
// whether they all fit an int64.
func maxAbsI64(v []decimal128.Num, m, n int) (uint64, bool) {
	if m == 0 {
		n = 1
	}
	var mx uint64
	for _, x := range v[:n] {
		lo := x.LowBits()
		if x.HighBits() != int64(lo)>>63 {
			return 0, false
		}
		u := lo
		if int64(lo) < 0 {
			u = -lo
		}
		mx = max(mx, u)
	}
	return mx, mx <= math.MaxInt64
}
