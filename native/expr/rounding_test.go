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

func TestRoundDecimal(t *testing.T) {
	in := column(t, "decimal(7,3)", "1245", "1244", "-1245", "-1244", "9999999", "-9999999", "500", nil)
	got, err := run(t, node("Round", "decimal(7,2)", "child", col(0, "decimal(7,3)"), "scale", litInt(2), "ansiEnabled", "true"), in)
	// HALF_UP: ties away from zero; 9999.999 -> 10000.00 needs the extra integral digit.
	expectRows(t, "round 2", got, err, "1.25", "1.24", "-1.25", "-1.24", "10000.00", "-10000.00", "0.50", "null")
	got, err = run(t, node("Round", "decimal(5,0)", "child", col(0, "decimal(7,3)"), "scale", litInt(0), "ansiEnabled", "true"), in)
	expectRows(t, "round 0", got, err, "1", "1", "-1", "-1", "10000", "-10000", "1", "null")
	got, err = run(t, node("Round", "decimal(8,3)", "child", col(0, "decimal(7,3)"), "scale", litInt(5), "ansiEnabled", "true"), in)
	expectRows(t, "round to a larger scale", got, err, "1.245", "1.244", "-1.245", "-1.244", "9999.999", "-9999.999", "0.500", "null")
	wide := column(t, "decimal(38,20)", "12345678901234567890500000000000000000", "-12345678901234567890500000000000000000")
	got, err = run(t, node("Round", "decimal(19,0)", "child", col(0, "decimal(38,20)"), "scale", litInt(0), "ansiEnabled", "true"), wide)
	expectRows(t, "round wide", got, err, "123456789012345679", "-123456789012345679")
	expectRefused(t, "round double", node("Round", "double", "child", col(0, "double"), "scale", litInt(2), "ansiEnabled", "true"), "Round of double")
	expectRefused(t, "round negative", node("Round", "decimal(8,0)", "child", col(0, "decimal(7,3)"), "scale", litInt(-1), "ansiEnabled", "true"), "negative scale")
}
