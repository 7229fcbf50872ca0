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

// magnitude returns x's low 64 bits, its fit check (nonzero when x does not fit an int64) and
// its magnitude (when it fits). Callers OR the last two into locals: accumulating through
// pointers keeps them in memory, a store-to-load dependency on every row.
func magnitude(x decimal128.Num) (v, bad int64, m uint64) {
	lo := x.LowBits()
	s := int64(lo) >> 63
	return int64(lo), x.HighBits() ^ s, (lo ^ uint64(s)) - uint64(s)
}

// run writes a*b (mul) or a*sa + b*sb into out, each operand a column (m = -1) or a scalar
// (m = 0). The fit check and the bounds are gathered in locals (see magnitude) and stored once.
func (s *batchSum) run(mul bool, a, b []decimal128.Num, am, bm int, sa, sb int64, out []decimal128.Num) {
	var bad int64
	var ma, mb uint64
	switch {
	case am != 0 && bm != 0:
		a, b = a[:len(out)], b[:len(out)]
		if mul {
			for i := range out {
				x, ea, xa := magnitude(a[i])
				y, eb, xb := magnitude(b[i])
				bad |= ea | eb
				ma |= xa
				mb |= xb
				p := x * y
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			break
		}
		for i := range out {
			x, ea, xa := magnitude(a[i])
			y, eb, xb := magnitude(b[i])
			bad |= ea | eb
			ma |= xa
			mb |= xb
			p := x*sa + y*sb
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	case am == 0 && bm != 0:
		x, ea, xa := magnitude(a[0])
		bad, ma = ea, xa
		b = b[:len(out)]
		if mul {
			for i := range out {
				y, eb, xb := magnitude(b[i])
				bad |= eb
				mb |= xb
				p := x * y
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			break
		}
		x *= sa
		for i := range out {
			y, eb, xb := magnitude(b[i])
			bad |= eb
			mb |= xb
			p := x + y*sb
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	case bm == 0 && am != 0:
		y, eb, xb := magnitude(b[0])
		bad, mb = eb, xb
		a = a[:len(out)]
		if mul {
			for i := range out {
				x, ea, xa := magnitude(a[i])
				bad |= ea
				ma |= xa
				p := x * y
				out[i] = decimal128.New(p>>63, uint64(p))
			}
			break
		}
		y *= sb
		for i := range out {
			x, ea, xa := magnitude(a[i])
			bad |= ea
			ma |= xa
			p := x*sa + y
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	default:
		x, ea, xa := magnitude(a[0])
		y, eb, xb := magnitude(b[0])
		bad, ma, mb = ea|eb, xa, xb
		p := x*sa + y*sb
		if mul {
			p = x * y
		}
		for i := range out {
			out[i] = decimal128.New(p>>63, uint64(p))
		}
	}
	s.bad, s.ma, s.mb = bad, ma, mb
}
