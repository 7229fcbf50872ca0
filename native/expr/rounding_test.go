package expr

import (
	"math"
	"testing"
)

func TestCeilFloor(t *testing.T) {
	d := column(t, "double", 1.5, -1.5, 2.0, math.NaN(), 1e300, -1e300, math.Copysign(0, -1), nil)
	got, err := run(t, node("Ceil", "long", "child", col(0, "double")), d)
	// Java's (long) conversion: NaN is 0, out-of-range values saturate.
	expectRows(t, "ceil double", got, err, "2", "-1", "2", "0", "9223372036854775807", "-9223372036854775808", "0", "null")
	got, err = run(t, node("Floor", "long", "child", col(0, "double")), d)
	expectRows(t, "floor double", got, err, "1", "-2", "2", "0", "9223372036854775807", "-9223372036854775808", "0", "null")
	got, err = run(t, node("Ceil", "long", "child", col(0, "long")), column(t, "long", int64(math.MinInt64), 3, nil))
	expectRows(t, "ceil long", got, err, "-9223372036854775808", "3", "null")
	dec := column(t, "decimal(5,2)", "12345", "-12345", "100", "-100", "1", "-1", "0", nil)
	got, err = run(t, node("Ceil", "decimal(4,0)", "child", col(0, "decimal(5,2)")), dec)
	expectRows(t, "ceil decimal", got, err, "124", "-123", "1", "-1", "1", "0", "0", "null")
	got, err = run(t, node("Floor", "decimal(4,0)", "child", col(0, "decimal(5,2)")), dec)
	expectRows(t, "floor decimal", got, err, "123", "-124", "1", "-1", "0", "-1", "0", "null")
	// Wide decimals take the 128-bit path: 10^37 - 0.1 rounds up to 10^37 (38 digits), and a
	// scale beyond 19 divides by a big power of ten.
	wide := column(t, "decimal(38,1)", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "-5")
	got, err = run(t, node("Ceil", "decimal(38,0)", "child", col(0, "decimal(38,1)")), wide)
	expectRows(t, "ceil wide", got, err, "10000000000000000000000000000000000000", "-9999999999999999999999999999999999999", "0")
	got, err = run(t, node("Floor", "decimal(18,0)", "child", col(0, "decimal(38,21)")),
		column(t, "decimal(38,21)", "1500000000000000000000", "-1500000000000000000000", "-1"))
	expectRows(t, "floor scale 21", got, err, "1", "-2", "-1")
	got, err = run(t, node("Floor", "decimal(10,0)", "child", col(0, "decimal(10,0)")), column(t, "decimal(10,0)", "-7"))
	expectRows(t, "floor scale 0", got, err, "-7")
	expectRefused(t, "ceil wrong type", node("Ceil", "decimal(5,0)", "child", col(0, "decimal(5,2)")), "Ceil of decimal(5,2) returning decimal(5,0)")
	expectRefused(t, "ceil int", node("Ceil", "long", "child", col(0, "integer")), "Ceil of int")
}
