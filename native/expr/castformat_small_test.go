package expr

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// TestAppendSmallDecimalIsBigDecimalString checks the short-decimal formatter of CAST(decimal AS
// STRING) against the general one (appendBigDecimal, in both cast modes) for every scale it
// takes, over the long range's ends, zero, powers of ten and their neighbours (where the point
// and leading zeros move) and random values of every length.
func TestAppendSmallDecimalIsBigDecimalString(t *testing.T) {
	vals := []int64{0, 1, -1, 9, -9, 10, -10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 999999999999999999, -999999999999999999}
	for p := int64(1); p <= 1e18 && p > 0; p *= 10 {
		vals = append(vals, p, p-1, p+1, -p, -p+1, -p-1)
	}
	rng := rand.New(rand.NewSource(5))
	for range 20000 {
		v := rng.Int63() >> rng.Intn(63)
		if rng.Intn(2) == 0 {
			v = -v
		}
		vals = append(vals, v)
	}
	for _, u := range vals {
		neg := u < 0
		var ds []byte
		if neg {
			ds = strconv.AppendUint(nil, uint64(-u), 10)
		} else {
			ds = strconv.AppendUint(nil, uint64(u), 10)
		}
		for scale := 0; scale <= smallDecimalMaxScale; scale++ {
			got := string(appendSmallDecimal([]byte("x"), u, scale))
			for _, plain := range []bool{true, false} {
				if want := string(appendBigDecimal([]byte("x"), neg, ds, scale, plain)); got != want {
					t.Fatalf("unscaled %d scale %d (plain %v): %q, want %q", u, scale, plain, got, want)
				}
			}
		}
	}
}
