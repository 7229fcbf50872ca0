package expr

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// decimalOfJavaText is the cast's digits path for one double: the decimal value of the JVM's
// Double.toString(f), rounded HALF_UP to scale s; ok is false when it needs more than p digits.
func decimalOfJavaText(f float64, ver int, p, s int32) (decimal128.Num, bool) {
	var jd javaFloatDigits
	var buf [32]byte
	txt := jd.appendJava(buf[:0], f, 64, ver)
	d, _ := parseJavaBigDecimal(txt, nil)
	var u, r big.Int
	if len(d.digits) > 0 {
		u.SetString(string(d.digits), 10)
	}
	if d.neg {
		u.Neg(&u)
	}
	sc := d.scale
	if sc < 0 {
		u.Mul(&u, pow10Big(int(-sc)))
		sc = 0
	}
	roundHalfUpBig(&r, &u, int(sc-s))
	if digitsBig(&r) > int(p) {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(&r), true
}

// TestDoubleToDecimalBinary checks the binary shortcut against Double.toString's digits (Java 17's
// and 21's) over doubles of every magnitude, values next to the rounding boundaries of each scale
// (where it must step aside), subnormals and the fn30 column's k/7 values.
func TestDoubleToDecimalBinary(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var vals []float64
	for i := 0; i < 4000; i++ {
		vals = append(vals, float64(rng.Intn(2000000)-1000000)/7.0)
		vals = append(vals, math.Ldexp(rng.Float64()+0.5, rng.Intn(140)-90))
		vals = append(vals, -math.Ldexp(rng.Float64()+0.5, rng.Intn(40)-20))
		vals = append(vals, math.Float64frombits(rng.Uint64()&^(1<<63)))
		// The boundary (k + 1/2) x 10^-s of a random scale and its neighbours, a few ulps away.
		s := rng.Intn(8)
		x := (float64(rng.Intn(1000000)) + 0.5) / math.Pow(10, float64(s))
		vals = append(vals, x, -x)
		for j, y, z := 0, x, x; j < 4; j++ {
			y, z = math.Nextafter(y, 0), math.Nextafter(z, math.Inf(1))
			vals = append(vals, y, z, -y)
		}
	}
	vals = append(vals, 0.5, 1.5, 2.5, 0.05, 0.005, 1.005, 2.675, 1.0005, 0.1, 0.7, 1e-5, 1e-300,
		4.9e-324, math.SmallestNonzeroFloat64, math.MaxFloat64, 1<<52+0.5, 1<<53, -(1 << 53), 1e17, 9.2e18, 1e22,
		math.Copysign(0, -1), 0, 123456789.0125, 99999999999.9995, 99999999999.9994)
	hits := 0
	for _, ver := range []int{17, 21} {
		for _, f := range vals {
			for _, ps := range [][2]int32{{14, 3}, {38, 0}, {38, 2}, {38, 10}, {38, 18}, {10, 5}, {18, 18}, {5, 1}, {38, 19}} {
				p, s := ps[0], ps[1]
				got, ok := doubleToDecimalBinary(f, p, s)
				if !ok {
					continue
				}
				hits++
				want, wok := decimalOfJavaText(f, ver, p, s)
				if !wok || got != want {
					t.Fatalf("cast(%v (%x) as decimal(%d,%d)), Java %d: binary %s, Double.toString's digits %s (fits %v)",
						f, math.Float64bits(f), p, s, ver, got.ToString(s), want.ToString(s), wok)
				}
			}
		}
	}
	// The shortcut must take nearly every value of the benchmark's kind, or it saves nothing.
	n := 0
	for i := 0; i < 10000; i++ {
		if _, ok := doubleToDecimalBinary(float64(rng.Intn(2000000)-1000000)/7.0, 14, 3); ok {
			n++
		}
	}
	if n < 9990 || hits < len(vals) {
		t.Fatalf("the binary path took %d of 10000 fn30 values (%d of all checks)", n, hits)
	}
	// At a boundary it must step aside: 0.0625 x 10^... exact halves.
	for _, c := range []struct {
		f float64
		s int32
	}{{0.5, 0}, {2.5, 0}, {0.125, 2}, {1.0625, 3}, {-0.5, 0}} {
		if _, ok := doubleToDecimalBinary(c.f, 38, c.s); ok {
			t.Errorf("%v at scale %d is a rounding boundary: the binary path must leave it to the digits", c.f, c.s)
		}
	}
}
