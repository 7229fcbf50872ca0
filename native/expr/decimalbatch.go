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
//
// The loop computes optimistically and gathers, as it goes, whether each value fits an int64 and
// a bound on the magnitudes (the OR of them: at least the largest, less than twice it); the
// results are kept only if those prove them exact. One pass over the operands instead of two:
// the values are 16 bytes each, and reading them is most of the cost.

// decBatch computes out from the operand values a and b (am, bm: 0 for a scalar operand, -1
// for a column) when the batch allows it, and reports whether it did (out is garbage when not).
func decBatch(d *decOp, a, b []decimal128.Num, am, bm int, out []decimal128.Num) bool {
	if len(out) == 0 {
		return false
	}
	limit := uint64(math.MaxInt64)
	if d.rp <= 18 {
		limit = pow10u64[d.rp] - 1
	}
	var sa, sb int64
	switch d.op {
	case opMul:
		if d.s1+d.s2 != d.rs {
			return false
		}
	case opAdd, opSub:
		if d.ls != d.rs || d.ls-d.s1 > 18 || d.ls-d.s2 > 18 {
			return false
		}
		sa, sb = int64(pow10u64[d.ls-d.s1]), int64(pow10u64[d.ls-d.s2])
		if d.op == opSub {
			sb = -sb
		}
	default:
		return false
	}
	var s batchSum
	s.run(d.op == opMul, a, b, am, bm, sa, sb, out)
	if s.bad != 0 || s.ma > math.MaxInt64 || s.mb > math.MaxInt64 {
		return false
	}
	if d.op == opMul {
		hi, lo := bits.Mul64(s.ma, s.mb)
		return hi == 0 && lo <= limit
	}
	ha, xa := bits.Mul64(s.ma, uint64(sa))
	hb, xb := bits.Mul64(s.mb, uint64(abs64(sb)))
	sum, carry := bits.Add64(xa, xb, 0)
	return ha == 0 && hb == 0 && carry == 0 && sum <= limit
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// batchSum gathers, over the operand values a loop read: bad, nonzero when one does not fit an
// int64; ma and mb, the ORs of their magnitudes.
type batchSum struct {
	bad    int64
	ma, mb uint64
}

// magnitude adds one value to the bound and the fit check, and returns its low 64 bits.
func magnitude(x decimal128.Num, bad *int64, m *uint64) int64 {
	lo := x.LowBits()
	s := int64(lo) >> 63
	*bad |= x.HighBits() ^ s
	*m |= (lo ^ uint64(s)) - uint64(s)
	return int64(lo)
}

// run writes a*b (mul) or a*sa + b*sb into out, each operand a column (m = -1) or a scalar
// (m = 0).
func (s *batchSum) run(mul bool, a, b []decimal128.Num, am, bm int, sa, sb int64, out []decimal128.Num) {
	switch {
	case am != 0 && bm != 0:
		a, b = a[:len(out)], b[:len(out)]
		if mul {
			for i := range out {
				p := magnitude(a[i], &s.bad, &s.ma) * magnitude(b[i], &s.bad, &s.mb)
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			return
		}
		for i := range out {
			p := magnitude(a[i], &s.bad, &s.ma)*sa + magnitude(b[i], &s.bad, &s.mb)*sb
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	case am == 0 && bm != 0:
		x := magnitude(a[0], &s.bad, &s.ma)
		b = b[:len(out)]
		if mul {
			for i := range out {
				p := x * magnitude(b[i], &s.bad, &s.mb)
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			return
		}
		x *= sa
		for i := range out {
			p := x + magnitude(b[i], &s.bad, &s.mb)*sb
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	case bm == 0 && am != 0:
		y := magnitude(b[0], &s.bad, &s.mb)
		a = a[:len(out)]
		if mul {
			for i := range out {
				p := magnitude(a[i], &s.bad, &s.ma) * y
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			return
		}
		y *= sb
		for i := range out {
			p := magnitude(a[i], &s.bad, &s.ma)*sa + y
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	default:
		x, y := magnitude(a[0], &s.bad, &s.ma), magnitude(b[0], &s.bad, &s.mb)
		p := x*sa + y*sb
		if mul {
			p = x * y
		}
		for i := range out {
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	}
}
