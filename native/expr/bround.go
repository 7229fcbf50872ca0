package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/plan"
)

// BRound(child, scale) of a decimal: Round's translation (rounding.go: a literal scale >= 0, the
// same result type, since both are RoundBase) with ROUND_HALF_EVEN, banker's rounding, instead of
// HALF_UP. Doubles and floats stay in Spark: RoundBase rounds BigDecimal.valueOf(d), the digits
// of the JVM's Double.toString.

func init() {
	Register("BRound", "bround(x, d) of a decimal with a literal d >= 0: HALF_EVEN to scale min(s, d); other types and negative d refused", translateBRound)
}

func translateBRound(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	e, err := translateRound(pe, conf)
	if err != nil {
		return nil, err
	}
	r := e.(*roundDecimal)
	r.halfEven = true
	return r, nil
}

// roundHalfEven divides the unscaled x by 10^k, rounding half to the even quotient.
func roundHalfEven(x decimal128.Num, k int32) decimal128.Num {
	if k <= 18 && (x.HighBits() == 0 && x.LowBits() <= math.MaxInt64 || x.HighBits() == -1 && x.LowBits() > math.MaxInt64) {
		v, d := int64(x.LowBits()), int64(pow10u64[k])
		q, r := v/d, v%d // truncated: r has v's sign
		if r < 0 {
			r = -r
		}
		if 2*uint64(r) > uint64(d) || 2*uint64(r) == uint64(d) && q&1 != 0 {
			if v < 0 {
				q--
			} else {
				q++
			}
		}
		return decimal128.FromI64(q)
	}
	d := decimal128.FromBigInt(pow10Big(int(k)))
	q, r := x.Div(d) // truncates towards zero
	c := r.Abs().Mul(decimal128.FromI64(2)).Cmp(d)
	if c > 0 || c == 0 && q.LowBits()&1 != 0 {
		if x.Sign() < 0 {
			q = q.Sub(decimal128.FromI64(1))
		} else {
			q = q.Add(decimal128.FromI64(1))
		}
	}
	return q
}
