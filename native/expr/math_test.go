package expr

import (
	"math"
	"testing"
)

func TestAbs(t *testing.T) {
	in := column(t, "integer", 5, -5, 0, math.MinInt32, math.MaxInt32, nil)
	abs := func(typ, child, ansi string) string { return node("Abs", typ, "child", child, "failOnError", ansi) }
	got, err := run(t, abs("integer", col(0, "integer"), "false"), in)
	// Legacy: abs(Int.MinValue) stays Int.MinValue (Java's wrap).
	expectRows(t, "abs int", got, err, "5", "5", "0", "-2147483648", "2147483647", "null")
	_, err = run(t, abs("integer", col(0, "integer"), "true"), in)
	expectSparkError(t, "abs ansi overflow", err, "ARITHMETIC_OVERFLOW", map[string]string{"message": "integer overflow", "alternative": ""})
	_, err = run(t, abs("long", col(0, "long"), "true"), column(t, "long", int64(math.MinInt64)))
	expectSparkError(t, "abs ansi long overflow", err, "ARITHMETIC_OVERFLOW", map[string]string{"message": "long overflow"})
	expectRefused(t, "abs byte ansi", abs("byte", col(0, "byte"), "true"), "Abs of byte in ANSI mode")
	got, err = run(t, abs("integer", col(0, "integer"), "true"), column(t, "integer", -1, nil, 7))
	expectRows(t, "abs ansi", got, err, "1", "null", "7")
	got, err = run(t, abs("byte", col(0, "byte"), "false"), column(t, "byte", -128, -1, 127))
	expectRows(t, "abs byte", got, err, "-128", "1", "127")
	got, err = run(t, abs("long", col(0, "long"), "false"), column(t, "long", int64(math.MinInt64), -3, nil))
	expectRows(t, "abs long", got, err, "-9223372036854775808", "3", "null")
	got, err = run(t, abs("double", col(0, "double"), "true"), column(t, "double", -1.5, math.Copysign(0, -1), math.Inf(-1), 2.0, nil))
	expectRows(t, "abs double", got, err, "1.5", "0", "+Inf", "2", "null")
	got, err = run(t, abs("decimal(10,2)", col(0, "decimal(10,2)"), "true"), column(t, "decimal(10,2)", "-12345", "5", nil))
	expectRows(t, "abs decimal", got, err, "123.45", "0.05", "null")
	expectRefused(t, "abs string", abs("string", col(0, "string"), "false"), "Abs of string")
}

func TestIsNaN(t *testing.T) {
	got, err := run(t, node("IsNaN", "boolean", "child", col(0, "double")), column(t, "double", math.NaN(), 1.0, nil, math.Inf(1)))
	expectRows(t, "isnan", got, err, "true", "false", "false", "false")
	got, err = run(t, node("IsNaN", "boolean", "child", col(0, "float")), column(t, "float", float32(math.NaN()), float32(0), nil))
	expectRows(t, "isnan float", got, err, "true", "false", "false")
	expectRefused(t, "isnan int", node("IsNaN", "boolean", "child", col(0, "integer")), "IsNaN of int")
}

func TestGreatestLeast(t *testing.T) {
	args := func(cols ...string) string {
		out := "["
		for i, c := range cols {
			if i > 0 {
				out += ","
			}
			out += c
		}
		return out + "]"
	}
	a := column(t, "integer", 1, nil, 5, nil, -7)
	b := column(t, "integer", 3, 2, nil, nil, -7)
	got, err := run(t, node("Greatest", "integer", "children", args(col(0, "integer"), col(1, "integer"), litInt(0))), a, b)
	expectRows(t, "greatest", got, err, "3", "2", "5", "0", "0")
	got, err = run(t, node("Least", "integer", "children", args(col(0, "integer"), col(1, "integer"))), a, b)
	expectRows(t, "least", got, err, "1", "2", "5", "null", "-7")
	// NaN is above every number; -0.0 equals 0.0, so the earlier argument stays.
	nz := math.Copysign(0, -1)
	d1 := column(t, "double", math.NaN(), nz, 1.0, math.Inf(1))
	d2 := column(t, "double", math.Inf(1), 0.0, math.NaN(), math.NaN())
	got, err = run(t, node("Greatest", "double", "children", args(col(0, "double"), col(1, "double"))), d1, d2)
	expectRows(t, "greatest double", got, err, "NaN", "-0.0", "NaN", "NaN")
	got, err = run(t, node("Least", "double", "children", args(col(1, "double"), col(0, "double"))), d1, d2)
	expectRows(t, "least double", got, err, "+Inf", "0", "1", "+Inf")
	s1 := column(t, "string", "b", "", nil, "é")
	s2 := column(t, "string", "a", "x", "q", "z")
	got, err = run(t, node("Greatest", "string", "children", args(col(0, "string"), col(1, "string"))), s1, s2)
	expectRows(t, "greatest string", got, err, "b", "x", "q", "é")
	got, err = run(t, node("Least", "decimal(5,1)", "children", args(col(0, "decimal(5,1)"), col(1, "decimal(5,1)"))),
		column(t, "decimal(5,1)", "10", nil, "-3"), column(t, "decimal(5,1)", "9", "1", "-30"))
	expectRows(t, "least decimal", got, err, "0.9", "0.1", "-3.0")
	got, err = run(t, node("Greatest", "date", "children", args(col(0, "date"), col(1, "date"))),
		column(t, "date", 1, nil), column(t, "date", -1, nil))
	expectRows(t, "greatest date", got, err, "1", "null")
	expectRefused(t, "greatest boolean", node("Greatest", "boolean", "children", args(col(0, "boolean"), col(1, "boolean"))), "Greatest of boolean")
}

func TestPmod(t *testing.T) {
	pm := func(typ, mode, l, r string) string { return arithJSON("Pmod", typ, mode, l, r) }
	a := column(t, "integer", 10, -10, 10, -10, -7, math.MinInt32+1, 5, nil, 3)
	n := column(t, "integer", 3, 3, -3, -3, -3, math.MinInt32, 0, 2, nil)
	got, err := run(t, pm("integer", "LEGACY", col(0, "integer"), col(1, "integer")), a, n)
	// (r + n) % n in Java int arithmetic: -2147483647 % MIN = -2147483647, + MIN wraps to 1.
	expectRows(t, "pmod int", got, err, "1", "2", "1", "-1", "-1", "1", "null", "null", "null")
	_, err = run(t, pm("integer", "ANSI", col(0, "integer"), col(1, "integer")), a, n)
	expectSparkError(t, "pmod ansi zero", err, "DIVIDE_BY_ZERO", nil)
	got, err = run(t, pm("byte", "ANSI", col(0, "byte"), col(1, "byte")), column(t, "byte", -99, -128, 7), column(t, "byte", -100, 127, -2))
	// byte: in int, so -99 + -100 does not wrap: (-199) % -100 = -99.
	expectRows(t, "pmod byte", got, err, "-99", "126", "1")
	got, err = run(t, pm("double", "LEGACY", col(0, "double"), col(1, "double")),
		column(t, "double", -7.5, 7.5, -1.0, 1.0), column(t, "double", 2.0, -2.0, 0.0, math.Inf(1)))
	expectRows(t, "pmod double", got, err, "0.5", "1.5", "null", "1")
	expectRefused(t, "pmod decimal", pm("decimal(5,2)", "LEGACY", col(0, "decimal(5,2)"), col(1, "decimal(5,2)")), "Pmod of decimals")
	expectRefused(t, "pmod try", pm("integer", "TRY", col(0, "integer"), col(1, "integer")), "Pmod in TRY mode")
}
