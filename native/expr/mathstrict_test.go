package expr

import (
	"math"
	"testing"
)

// The functions' values are checked bit for bit against the JVM in TestStrictMathGolden; these
// tests check the expressions around them: null propagation, Spark's extra nulls, constants
// as operands, and the Java version gate of Tanh and Cbrt.
func TestStrictMathExprs(t *testing.T) {
	SetJavaVersion(17)
	nan, inf := math.NaN(), math.Inf(1)
	dbl := column(t, "double", 1.0, 0.0, math.Copysign(0, -1), -1.0, nan, inf, -inf, nil, 5e-324, 100.0)
	c0 := col(0, "double")
	cases := []struct {
		class string
		want  []string
	}{
		{"Exp", []string{"2.7182818284590455", "1", "1", "0.36787944117144233", "NaN", "+Inf", "0", "null", "1", "2.6881171418161356e+43"}},
		{"Expm1", []string{"1.718281828459045", "0", "-0.0", "-0.6321205588285577", "NaN", "+Inf", "-1", "null", "5e-324", "2.6881171418161356e+43"}},
		{"Log", []string{"0", "null", "null", "null", "NaN", "+Inf", "null", "null", "-744.4400719213812", "4.605170185988092"}},
		{"Log2", []string{"0", "null", "null", "null", "NaN", "+Inf", "null", "null", "-1074", "6.643856189774725"}},
		{"Log10", []string{"0", "null", "null", "null", "NaN", "+Inf", "null", "null", "-323.3062153431158", "2"}},
		{"Log1p", []string{"0.6931471805599453", "0", "-0.0", "null", "NaN", "+Inf", "null", "null", "5e-324", "4.61512051684126"}},
		{"Asin", []string{"1.5707963267948966", "0", "-0.0", "-1.5707963267948966", "NaN", "NaN", "NaN", "null", "5e-324", "NaN"}},
		{"Acos", []string{"0", "1.5707963267948966", "1.5707963267948966", "3.141592653589793", "NaN", "NaN", "NaN", "null", "1.5707963267948966", "NaN"}},
		{"Atan", []string{"0.7853981633974483", "0", "-0.0", "-0.7853981633974483", "NaN", "1.5707963267948966", "-1.5707963267948966", "null", "5e-324", "1.5607966601082315"}},
		{"Sinh", []string{"1.1752011936438014", "0", "-0.0", "-1.1752011936438014", "NaN", "+Inf", "-Inf", "null", "5e-324", "1.3440585709080678e+43"}},
		{"Cosh", []string{"1.543080634815244", "1", "1", "1.543080634815244", "NaN", "+Inf", "+Inf", "null", "1", "1.3440585709080678e+43"}},
		{"Tanh", []string{"0.7615941559557649", "0", "-0.0", "-0.7615941559557649", "NaN", "1", "-1", "null", "5e-324", "1"}},
		{"Cbrt", []string{"1", "0", "-0.0", "-1", "NaN", "+Inf", "-Inf", "null", "1.7031839360032603e-108", "4.641588833612779"}},
		{"Acosh", []string{"0", "NaN", "NaN", "NaN", "NaN", "+Inf", "NaN", "null", "NaN", "5.298292365610485"}},
		{"Asinh", []string{"0.8813735870195429", "0", "0", "-0.8813735870195428", "NaN", "+Inf", "-Inf", "null", "0", "5.298342365610589"}},
		{"Atanh", []string{"+Inf", "0", "-0.0", "-Inf", "NaN", "NaN", "NaN", "null", "5e-324", "NaN"}},
		{"Rint", []string{"1", "0", "-0.0", "-1", "NaN", "+Inf", "-Inf", "null", "0", "100"}},
		{"ToDegrees", []string{"57.29577951308232", "0", "-0.0", "-57.29577951308232", "NaN", "+Inf", "-Inf", "null", "2.8e-322", "5729.5779513082325"}},
		{"ToRadians", []string{"0.017453292519943295", "0", "-0.0", "-0.017453292519943295", "NaN", "+Inf", "-Inf", "null", "0", "1.7453292519943295"}},
	}
	for _, c := range cases {
		got, err := run(t, node(c.class, "double", "child", c0), dbl)
		expectRows(t, c.class, got, err, c.want...)
	}
	expectRefused(t, "exp of int", node("Exp", "double", "child", col(0, "integer")), "double expected")
	expectRefused(t, "log of int", node("Log", "double", "child", col(0, "integer")), "double expected")
}

func TestStrictMathBinaryExprs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ys := column(t, "double", 1.0, math.Copysign(0, -1), 0.0, 2.0, nan, nil, -inf, 3.0, 8.0)
	xs := column(t, "double", 1.0, -1.0, -1.0, nil, 1.0, 2.0, inf, -2.0, 0.5)
	l, r := col(0, "double"), col(1, "double")
	got, err := run(t, node("Atan2", "double", "left", l, "right", r), ys, xs)
	// atan2(-0.0, -1.0) is pi, not -pi: Spark adds 0.0 to both arguments.
	expectRows(t, "atan2", got, err, "0.7853981633974483", "3.141592653589793", "3.141592653589793", "null", "NaN", "null", "-0.7853981633974483", "2.1587989303424644", "1.5083775167989393")
	got, err = run(t, node("Hypot", "double", "left", l, "right", r), ys, xs)
	expectRows(t, "hypot", got, err, "1.4142135623730951", "1", "1", "null", "NaN", "null", "+Inf", "3.605551275463989", "8.0156097709407")
	got, err = run(t, node("Pow", "double", "left", l, "right", r), ys, xs)
	expectRows(t, "pow", got, err, "1", "-Inf", "+Inf", "null", "NaN", "null", "+Inf", "0.1111111111111111", "2.8284271247461903")
	got, err = run(t, node("Logarithm", "double", "left", l, "right", r), ys, xs)
	// log(NaN, 1.0) is NaN: NaN is not <= 0.
	expectRows(t, "log(b, x)", got, err, "NaN", "null", "null", "null", "NaN", "null", "null", "null", "-0.33333333333333337")
	// A constant base: log(2, x) and pow(x, 0.5).
	got, err = run(t, node("Logarithm", "double", "left", litDouble(2), "right", r), ys, xs)
	expectRows(t, "log(2, x)", got, err, "0", "null", "null", "null", "0", "1", "+Inf", "null", "-1")
	got, err = run(t, node("Pow", "double", "left", r, "right", litDouble(0.5)), ys, xs)
	expectRows(t, "pow(x, 0.5)", got, err, "1", "NaN", "NaN", "null", "1", "1.4142135623730951", "+Inf", "NaN", "0.7071067811865476")
	got, err = run(t, node("Pow", "double", "left", r, "right", lit("double", "null")), ys, xs)
	expectRows(t, "pow(x, null)", got, err, "null", "null", "null", "null", "null", "null", "null", "null", "null")
	expectRefused(t, "pow of float", node("Pow", "double", "left", col(0, "float"), "right", r), "doubles expected")
}

func TestStrictMathJavaGate(t *testing.T) {
	defer SetJavaVersion(17)
	for _, v := range []int{0, 24, 25} {
		SetJavaVersion(v)
		if v != 24 {
			expectRefused(t, "cbrt", node("Cbrt", "double", "child", col(0, "double")), "intrinsic")
		}
		expectRefused(t, "tanh", node("Tanh", "double", "child", col(0, "double")), "intrinsic")
	}
	SetJavaVersion(24)
	if _, err := run(t, node("Cbrt", "double", "child", col(0, "double")), column(t, "double", 8.0)); err != nil {
		// Cbrt's stub arrived in Java 25.
		t.Fatal(err)
	}
	SetJavaVersion(21)
	got, err := run(t, node("Tanh", "double", "child", col(0, "double")), column(t, "double", 0.5))
	expectRows(t, "tanh on 21", got, err, "0.46211715726000974")
}

func TestWidthBucket(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	v := column(t, "double", 5.3, -2.1, 8.1, -0.9, 1.0, nan, 1.0, 1.0, 1.0, nil, 0.5, 0.9999999999999999, 1.0, 10.6, 0.2)
	lo := column(t, "double", 0.2, 1.3, 0.0, 5.2, 0.0, 0.0, 2.0, inf, 0.0, 0.0, 0.0, 0.0, nan, 0.2, 10.6)
	hi := column(t, "double", 10.6, 3.4, 5.7, 0.5, 2.0, 1.0, 2.0, 1.0, -inf, 1.0, 1.0, 1.0, 1.0, 10.6, 0.2)
	n := column(t, "long", int64(5), int64(3), int64(4), int64(2), int64(0), int64(3), int64(3), int64(3), int64(3), int64(3),
		int64(math.MaxInt64-1), int64(math.MaxInt64-1), int64(1), int64(5), int64(5))
	js := node("WidthBucket", "long", "value", col(0, "double"), "minValue", col(1, "double"), "maxValue", col(2, "double"), "numBucket", col(3, "long"))
	got, err := run(t, js, v, lo, hi, n)
	// The first four are Spark's documented examples; then n = 0, NaN value, min == max,
	// infinite bounds, a null, 2^63-2 buckets (n.toDouble rounds to 2^63), a NaN bound, and
	// the ends of ascending and descending ranges.
	expectRows(t, "width_bucket", got, err, "3", "0", "5", "3", "null", "null", "null", "null", "null", "null",
		"4611686018427387905", "9223372036854774785", "null", "6", "6")
	got, err = run(t, node("WidthBucket", "long", "value", col(0, "double"), "minValue", litDouble(0), "maxValue", litDouble(10), "numBucket", lit("long", "4")),
		column(t, "double", -1.0, 0.0, 2.5, 9.99, 10.0, nil))
	expectRows(t, "width_bucket constants", got, err, "0", "1", "2", "4", "5", "null")
	expectRefused(t, "width_bucket of int n", node("WidthBucket", "long", "value", col(0, "double"), "minValue", col(0, "double"), "maxValue", col(0, "double"), "numBucket", col(1, "integer")), "not supported natively")
}
