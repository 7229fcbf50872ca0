package expr

import (
	"math"
	"testing"
)

func cmpJSON(class, l, r string) string { return node(class, "boolean", "left", l, "right", r) }

func TestCompareAllTypes(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	cases := []struct {
		name, typ string
		l, r      []any
		// results for =, <, <=, >, >=, <=>
		eq, lt, le, gt, ge, eqns []string
	}{
		{"int", "integer", []any{1, 2, 3, nil, nil}, []any{2, 2, 2, 1, nil},
			s("false", "true", "false", "null", "null"), s("true", "false", "false", "null", "null"),
			s("true", "true", "false", "null", "null"), s("false", "false", "true", "null", "null"),
			s("false", "true", "true", "null", "null"), s("false", "true", "false", "false", "true")},
		{"byte", "byte", []any{-128, 127}, []any{127, 127}, s("false", "true"), s("true", "false"), s("true", "true"), s("false", "false"), s("false", "true"), s("false", "true")},
		{"short", "short", []any{-1}, []any{1}, s("false"), s("true"), s("true"), s("false"), s("false"), s("false")},
		{"long", "long", []any{math.MinInt64, 5}, []any{math.MaxInt64, 5}, s("false", "true"), s("true", "false"), s("true", "true"), s("false", "false"), s("false", "true"), s("false", "true")},
		// SQLOrderingUtil.compareDoubles: NaN = NaN, NaN > +Inf, -0.0 = 0.0.
		{"double", "double", []any{nan, nan, negZero, 1.0, math.Inf(1)}, []any{nan, math.Inf(1), 0.0, nan, 1.0},
			s("true", "false", "true", "false", "false"), s("false", "false", "false", "true", "false"),
			s("true", "false", "true", "true", "false"), s("false", "true", "false", "false", "true"),
			s("true", "true", "true", "false", "true"), s("true", "false", "true", "false", "false")},
		{"float", "float", []any{float32(nan), float32(negZero), float32(1)}, []any{float32(nan), float32(0), float32(nan)},
			s("true", "true", "false"), s("false", "false", "true"), s("true", "true", "true"), s("false", "false", "false"), s("true", "true", "false"), s("true", "true", "false")},
		{"boolean", "boolean", []any{false, true, true}, []any{true, true, false},
			s("false", "true", "false"), s("true", "false", "false"), s("true", "true", "false"), s("false", "false", "true"), s("false", "true", "true"), s("false", "true", "false")},
		// UTF8String.compareTo: bytewise unsigned ("é" (0xC3..) > "z"; prefix sorts first).
		{"string", "string", []any{"a", "ab", "é", ""}, []any{"ab", "ab", "z", ""},
			s("false", "true", "false", "true"), s("true", "false", "false", "false"), s("true", "true", "false", "true"),
			s("false", "false", "true", "false"), s("false", "true", "true", "true"), s("false", "true", "false", "true")},
		{"binary", "binary", []any{[]byte{0x01}, []byte{0xff}}, []any{[]byte{0x80}, []byte{0x7f}},
			s("false", "false"), s("true", "false"), s("true", "false"), s("false", "true"), s("false", "true"), s("false", "false")},
		{"date", "date", []any{18000, -1}, []any{18001, -1}, s("false", "true"), s("true", "false"), s("true", "true"), s("false", "false"), s("false", "true"), s("false", "true")},
		{"timestamp", "timestamp", []any{1, 2}, []any{2, 2}, s("false", "true"), s("true", "false"), s("true", "true"), s("false", "false"), s("false", "true"), s("false", "true")},
		{"decimal", "decimal(38,10)", []any{"-1", "99999999999999999999999999999999999999"}, []any{"1", "99999999999999999999999999999999999999"},
			s("false", "true"), s("true", "false"), s("true", "true"), s("false", "false"), s("false", "true"), s("false", "true")},
		{"empty", "integer", []any{}, []any{}, s(), s(), s(), s(), s(), s()},
	}
	classes := []string{"EqualTo", "LessThan", "LessThanOrEqual", "GreaterThan", "GreaterThanOrEqual", "EqualNullSafe"}
	for _, c := range cases {
		wants := [][]string{c.eq, c.lt, c.le, c.gt, c.ge, c.eqns}
		for i, class := range classes {
			got, err := run(t, cmpJSON(class, col(0, c.typ), col(1, c.typ)), column(t, c.typ, c.l...), column(t, c.typ, c.r...))
			expectRows(t, c.name+" "+class, got, err, wants[i]...)
		}
	}
}

func s(v ...string) []string { return v }

func TestCompareDecimalScalesAndLiterals(t *testing.T) {
	// 1.5 (decimal(5,1)) vs 1.50 / 1.49 (decimal(10,2)): compared by value.
	got, err := run(t, cmpJSON("EqualTo", col(0, "decimal(5,1)"), col(1, "decimal(10,2)")),
		column(t, "decimal(5,1)", "15", "15"), column(t, "decimal(10,2)", "150", "149"))
	expectRows(t, "eq scales", got, err, "true", "false")
	got, err = run(t, cmpJSON("GreaterThan", col(0, "decimal(38,0)"), col(1, "decimal(38,38)")),
		column(t, "decimal(38,0)", "1", "0", "-1"), column(t, "decimal(38,38)", "99999999999999999999999999999999999999", "1", "-99999999999999999999999999999999999999"))
	expectRows(t, "gt wide scales", got, err, "true", "false", "false")
	// Column vs literal (the constant fast path) and literal vs column.
	got, err = run(t, cmpJSON("LessThan", col(0, "integer"), litInt(3)), column(t, "integer", 1, 3, nil, 5))
	expectRows(t, "col < lit", got, err, "true", "false", "null", "false")
	got, err = run(t, cmpJSON("LessThan", litInt(3), col(0, "integer")), column(t, "integer", 1, 3, nil, 5))
	expectRows(t, "lit < col", got, err, "false", "false", "null", "true")
	got, err = run(t, cmpJSON("EqualTo", col(0, "string"), litStr("ab")), column(t, "string", "ab", "a", nil))
	expectRows(t, "string lit", got, err, "true", "false", "null")
	got, err = run(t, cmpJSON("GreaterThanOrEqual", col(0, "double"), litDouble(math.NaN())), column(t, "double", math.NaN(), math.Inf(1)))
	expectRows(t, "double NaN lit", got, err, "true", "false")
	got, err = run(t, cmpJSON("EqualNullSafe", col(0, "integer"), lit("integer", "null")), column(t, "integer", 1, nil))
	expectRows(t, "<=> null", got, err, "false", "true")
	got, err = run(t, cmpJSON("EqualTo", col(0, "integer"), lit("integer", "null")), column(t, "integer", 1, nil))
	expectRows(t, "= null", got, err, "null", "null")
	got, err = run(t, cmpJSON("EqualTo", col(0, "decimal(10,2)"), litDec("150", 10, 2)), column(t, "decimal(10,2)", "150", "151"))
	expectRows(t, "decimal lit", got, err, "true", "false")
	expectRefused(t, "mixed", cmpJSON("EqualTo", col(0, "integer"), col(1, "long")), "not supported")
	expectRefused(t, "collated", cmpJSON("EqualTo", col(0, "string collate UTF8_LCASE"), col(1, "string collate UTF8_LCASE")), "not supported")
}

func TestLogicAndNulls(t *testing.T) {
	l := []any{true, true, true, false, false, false, nil, nil, nil}
	r := []any{true, false, nil, true, false, nil, true, false, nil}
	got, err := run(t, node("And", "boolean", "left", col(0, "boolean"), "right", col(1, "boolean")), column(t, "boolean", l...), column(t, "boolean", r...))
	// SQL three-valued AND.
	expectRows(t, "and", got, err, "true", "false", "null", "false", "false", "false", "null", "false", "null")
	got, err = run(t, node("Or", "boolean", "left", col(0, "boolean"), "right", col(1, "boolean")), column(t, "boolean", l...), column(t, "boolean", r...))
	expectRows(t, "or", got, err, "true", "true", "true", "true", "false", "null", "true", "null", "null")
	got, err = run(t, node("Not", "boolean", "child", col(0, "boolean")), column(t, "boolean", true, false, nil))
	expectRows(t, "not", got, err, "false", "true", "null")
	got, err = run(t, node("And", "boolean", "left", col(0, "boolean"), "right", lit("boolean", "null")), column(t, "boolean", true, false, nil))
	expectRows(t, "and null lit", got, err, "null", "false", "null")
	got, err = run(t, node("IsNull", "boolean", "child", col(0, "string")), column(t, "string", "a", nil))
	expectRows(t, "isnull", got, err, "false", "true")
	got, err = run(t, node("IsNotNull", "boolean", "child", col(0, "string")), column(t, "string", "a", nil))
	expectRows(t, "isnotnull", got, err, "true", "false")
	got, err = run(t, node("IsNull", "boolean", "child", lit("void", "null")), column(t, "integer", 1))
	expectRows(t, "isnull(null)", got, err, "true")
	got, err = run(t, node("IsNotNull", "boolean", "child", col(0, "integer")), column(t, "integer", 1, 2))
	expectRows(t, "isnotnull no nulls", got, err, "true", "true")
}

func TestInAndInSet(t *testing.T) {
	in := func(v string, list ...string) string {
		return node("In", "boolean", "value", v, "list", "["+join(list)+"]")
	}
	got, err := run(t, in(col(0, "integer"), litInt(1), litInt(3)), column(t, "integer", 1, 2, nil))
	expectRows(t, "in", got, err, "true", "false", "null")
	// No match with a null in the list -> null; a match still wins.
	got, err = run(t, in(col(0, "integer"), litInt(1), lit("integer", "null")), column(t, "integer", 1, 2))
	expectRows(t, "in with null", got, err, "true", "null")
	// ordering.equiv: NaN matches NaN, -0.0 matches 0.0.
	got, err = run(t, in(col(0, "double"), litDouble(math.NaN()), litDouble(0)), column(t, "double", math.NaN(), math.Copysign(0, -1), 1.0))
	expectRows(t, "in double", got, err, "true", "true", "false")
	got, err = run(t, in(col(0, "string"), litStr("x"), litStr("yz")), column(t, "string", "yz", "y", nil))
	expectRows(t, "in string", got, err, "true", "false", "null")
	got, err = run(t, in(col(0, "decimal(10,2)"), litDec("150", 10, 2)), column(t, "decimal(10,2)", "150", "1"))
	expectRows(t, "in decimal", got, err, "true", "false")
	expectRefused(t, "non-literal", in(col(0, "integer"), col(1, "integer")), "non-literal")
	inset := func(hset string) string {
		return node("InSet", "boolean", "child", col(0, "long"), "hset", hset)
	}
	got, err = run(t, inset("[1, 5, null]"), column(t, "long", 5, 6, nil))
	expectRows(t, "inset", got, err, "true", "null", "null")
	expectRefused(t, "inset unencoded", inset(`{"unsupported":"scala.collection.immutable.Set$Set3"}`), "not encoded")
}

func join(v []string) string {
	out := ""
	for i, x := range v {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestNormalizeAndLiterals(t *testing.T) {
	got, err := run(t, node("NormalizeNaNAndZero", "double", "child", col(0, "double")), column(t, "double", math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123), 1.5, nil))
	expectRows(t, "normalize", got, err, "0", "NaN", "1.5", "null")
	e := mustTranslate(t, node("NormalizeNaNAndZero", "double", "child", col(0, "double")))
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(column(t, "double", math.Float64frombits(0xfff8000000000001))))
	if err != nil {
		t.Fatal(err)
	}
	if bits := math.Float64bits(values[float64](out)[0]); bits != 0x7ff8000000000000 {
		t.Errorf("NaN normalized to %x, want java.lang.Double.NaN 7ff8000000000000", bits)
	}
	out.Release()
	got, err = run(t, node("KnownFloatingPointNormalized", "float", "child", col(0, "float")), column(t, "float", float32(2)))
	expectRows(t, "known normalized", got, err, "2")
	// Literals materialized over a batch of 2 rows.
	one := column(t, "integer", 0, 0)
	for _, c := range []struct{ js, want string }{
		{litInt(-7), "-7"}, {lit("long", "9223372036854775807"), "9223372036854775807"},
		{lit("byte", "-128"), "-128"}, {lit("short", "300"), "300"}, {lit("boolean", "true"), "true"},
		{litDouble(-0.0), "0"}, {lit("float", `{"bits":1069547520}`), "1.5"},
		{litDec("-12345", 10, 3), "-12.345"}, {litStr("héllo"), "héllo"},
		{lit("binary", `{"b64":"AQI="}`), "0102"}, {lit("date", "19000"), "19000"},
		{lit("timestamp", "1700000000000000"), "1700000000000000"}, {lit("string", "null"), "null"},
		{lit("decimal(38,0)", "null"), "null"},
	} {
		got, err := run(t, c.js, one)
		expectRows(t, c.js, got, err, c.want, c.want)
	}
}
