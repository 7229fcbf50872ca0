package expr

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// strictUnary and strictBinary map the golden file's function names (Spark's classes) to the
// Go function computing Spark's value; ok=false is Spark's null.
var strictUnary = map[string]func(float64) (float64, bool){
	"Exp":       func(x float64) (float64, bool) { return strictExp(x), true },
	"Expm1":     func(x float64) (float64, bool) { return strictExpm1(x), true },
	"Log":       logNull(strictLog, 0),
	"Log2":      logNull(sparkLog2, 0),
	"Log10":     logNull(strictLog10, 0),
	"Log1p":     logNull(strictLog1p, -1),
	"Sinh":      func(x float64) (float64, bool) { return strictSinh(x), true },
	"Cosh":      func(x float64) (float64, bool) { return strictCosh(x), true },
	"Tanh":      func(x float64) (float64, bool) { return strictTanh(x), true },
	"Asin":      func(x float64) (float64, bool) { return strictAsin(x), true },
	"Acos":      func(x float64) (float64, bool) { return strictAcos(x), true },
	"Atan":      func(x float64) (float64, bool) { return strictAtan(x), true },
	"Cbrt":      func(x float64) (float64, bool) { return strictCbrt(x), true },
	"Acosh":     func(x float64) (float64, bool) { return sparkAcosh(x), true },
	"Asinh":     func(x float64) (float64, bool) { return sparkAsinh(x), true },
	"Atanh":     func(x float64) (float64, bool) { return sparkAtanh(x), true },
	"Rint":      func(x float64) (float64, bool) { return math.RoundToEven(x), true },
	"ToDegrees": func(x float64) (float64, bool) { return javaToDegrees(x), true },
	"ToRadians": func(x float64) (float64, bool) { return javaToRadians(x), true },
}

var strictBinary = map[string]func(float64, float64) (float64, bool){
	"Atan2":     func(y, x float64) (float64, bool) { return sparkAtan2(y, x), true },
	"Hypot":     func(x, y float64) (float64, bool) { return strictHypot(x, y), true },
	"Pow":       func(x, y float64) (float64, bool) { return strictPow(x, y), true },
	"Logarithm": func(b, x float64) (float64, bool) { return sparkLogarithm(b, x), !logarithmNull(b, x) },
}

func logNull(f func(float64) float64, asymptote float64) func(float64) (float64, bool) {
	return func(x float64) (float64, bool) { return f(x), !(x <= asymptote) }
}

func parseBits(t *testing.T, s string) float64 {
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(u)
}

// sameDouble compares bits, except that every NaN equals every NaN (see fdNaN).
func sameDouble(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

// TestStrictMathGolden checks every function against results computed by the JVM
// (testdata/mathgolden/GenMathGolden.java, Java 17). BOLIDE_MATH_GOLDEN names a larger file of
// the same form (the generator run with more random arguments) to check instead.
func TestStrictMathGolden(t *testing.T) {
	path := "testdata/mathgolden/mathgolden.txt"
	if p := os.Getenv("BOLIDE_MATH_GOLDEN"); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	checked, failed := map[string]int{}, map[string]int{}
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		name := fs[0]
		var got float64
		var ok bool
		var args string
		switch {
		case strictUnary[name] != nil && len(fs) == 3:
			x := parseBits(t, fs[1])
			got, ok = strictUnary[name](x)
			args = fmt.Sprint(x)
		case strictBinary[name] != nil && len(fs) == 4:
			x, y := parseBits(t, fs[1]), parseBits(t, fs[2])
			got, ok = strictBinary[name](x, y)
			args = fmt.Sprint(x, ", ", y)
		default:
			t.Fatalf("bad golden line %q", sc.Text())
		}
		want := fs[len(fs)-1]
		checked[name]++
		if want == "null" {
			if ok {
				failed[name]++
				if failed[name] <= 5 {
					t.Errorf("%s(%s) = %v, want null", name, args, got)
				}
			}
			continue
		}
		w := parseBits(t, want)
		if !ok || !sameDouble(got, w) {
			failed[name]++
			if failed[name] <= 5 {
				t.Errorf("%s(%s) = %v (%016x, null %v), want %v (%016x)", name, args, got, math.Float64bits(got), !ok, w, math.Float64bits(w))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for name, n := range checked {
		if failed[name] > 0 {
			t.Errorf("%s: %d of %d cases differ", name, failed[name], n)
		}
	}
	t.Logf("checked %v", checked)
}
