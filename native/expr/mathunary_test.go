package expr

import (
	"math"
	"testing"
)

func TestUnaryMath(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	dbl := column(t, "double", 4.0, 2.0, 0.0, math.Copysign(0, -1), -1.0, nan, inf, -inf, nil, 1e-320)
	got, err := run(t, node("Sqrt", "double", "child", col(0, "double")), dbl)
	expectRows(t, "sqrt", got, err, "2", "1.4142135623730951", "0", "-0.0", "NaN", "NaN", "+Inf", "NaN", "null", "9.99994433575849e-161")
	got, err = run(t, node("Signum", "double", "child", col(0, "double")), dbl)
	expectRows(t, "signum", got, err, "1", "1", "0", "-0.0", "-1", "NaN", "1", "-1", "null", "1")
	expectRefused(t, "sqrt of int", node("Sqrt", "double", "child", col(0, "integer")), "double expected")

	ints := column(t, "integer", 0, -1, 5, math.MaxInt32, math.MinInt32, nil)
	got, err = run(t, node("BitwiseNot", "integer", "child", col(0, "integer")), ints)
	expectRows(t, "~int", got, err, "-1", "0", "-6", "-2147483648", "2147483647", "null")
	got, err = run(t, node("BitwiseCount", "integer", "child", col(0, "integer")), ints)
	expectRows(t, "bit_count int", got, err, "0", "64", "2", "31", "33", "null")
	got, err = run(t, node("BitwiseNot", "byte", "child", col(0, "byte")), column(t, "byte", 127, -128, nil))
	expectRows(t, "~byte", got, err, "-128", "127", "null")
	got, err = run(t, node("BitwiseCount", "integer", "child", col(0, "byte")), column(t, "byte", 127, -128, -1))
	expectRows(t, "bit_count byte", got, err, "7", "57", "64")
	got, err = run(t, node("BitwiseCount", "integer", "child", col(0, "short")), column(t, "short", 255, -32768))
	expectRows(t, "bit_count short", got, err, "8", "49")
	got, err = run(t, node("BitwiseCount", "integer", "child", col(0, "long")), column(t, "long", int64(math.MinInt64), int64(-1), 3))
	expectRows(t, "bit_count long", got, err, "1", "64", "2")
	got, err = run(t, node("BitwiseNot", "long", "child", col(0, "long")), column(t, "long", int64(math.MinInt64), 0))
	expectRows(t, "~long", got, err, "9223372036854775807", "-1")
	got, err = run(t, node("BitwiseCount", "integer", "child", col(0, "boolean")), column(t, "boolean", true, false, nil, true, true, false, true, false, true))
	expectRows(t, "bit_count boolean", got, err, "1", "0", "null", "1", "1", "0", "1", "0", "1")
	expectRefused(t, "bit_count double", node("BitwiseCount", "integer", "child", col(0, "double")), "not supported natively")

	got, err = run(t, node("Factorial", "long", "child", col(0, "integer")), column(t, "integer", 0, 1, 5, 20, 21, -1, nil, math.MinInt32))
	expectRows(t, "factorial", got, err, "1", "1", "120", "2432902008176640000", "null", "null", "null", "null")

	got, err = run(t, node("EulerNumber", "double"), column(t, "integer", 1, 2))
	expectRows(t, "e", got, err, "2.718281828459045", "2.718281828459045")
	got, err = run(t, node("Pi", "double"))
	expectRows(t, "pi", got, err, "3.141592653589793")
}
