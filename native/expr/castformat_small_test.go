package expr

import (
	"math"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
)

// TestAppendSmallDecimalIsBigDecimalString checks the short-decimal formatters of CAST(decimal AS
// STRING) (appendSmallDecimal, and putSmallDecimal, which writes into the result directly)
// against the general one (appendBigDecimal, in both cast modes) for every scale it
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
			var buf [smallDecimalMaxLen + 8]byte
			for i := range buf {
				buf[i] = '#'
			}
			if n := putSmallDecimal(buf[:smallDecimalMaxLen], u, scale); "x"+string(buf[:n]) != got || buf[smallDecimalMaxLen] != '#' {
				t.Fatalf("putSmallDecimal(%d, %d) = %q, want %q", u, scale, buf[:n], got[1:])
			}
			for _, plain := range []bool{true, false} {
				if want := string(appendBigDecimal([]byte("x"), neg, ds, scale, plain)); got != want {
					t.Fatalf("unscaled %d scale %d (plain %v): %q, want %q", u, scale, plain, got, want)
				}
			}
		}
	}
}

// TestCastSmallDecimalColumnToString casts decimal columns of scale 0 to 6 holding values that
// fit a long (written by putSmallDecimal into the result) mixed with wider ones (the general
// path), and nulls, enough rows to grow the result's bytes, and compares every row with the
// general formatter.
func TestCastSmallDecimalColumnToString(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for scale := 0; scale <= smallDecimalMaxScale; scale++ {
		var vals []any
		var want []string
		for i := 0; i < 5000; i++ {
			if rng.Intn(10) == 0 {
				vals, want = append(vals, nil), append(want, "null")
				continue
			}
			u := new(big.Int).Rsh(new(big.Int).SetUint64(rng.Uint64()), uint(rng.Intn(64)))
			if rng.Intn(5) == 0 { // beyond a long
				u.Mul(u, new(big.Int).Lsh(big.NewInt(1), uint(1+rng.Intn(60))))
			}
			if rng.Intn(2) == 0 {
				u.Neg(u)
			}
			vals = append(vals, u.String())
			ds := []byte(new(big.Int).Abs(u).String())
			want = append(want, string(appendBigDecimal(nil, u.Sign() < 0, ds, scale, true)))
		}
		typ := "decimal(38," + strconv.Itoa(scale) + ")"
		got, err := run(t, castJSON(col(0, typ), "string", "ANSI"), column(t, typ, vals...))
		expectRows(t, typ, got, err, want...)
	}
}
