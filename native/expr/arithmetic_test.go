package expr

import (
	"math"
	"testing"
)

func TestIntegralArithmetic(t *testing.T) {
	intL := func() []any { return []any{1, math.MaxInt32, nil, -7, 7, math.MinInt32} }
	intR := func() []any { return []any{2, 1, 5, 3, -3, -1} }
	cases := []struct {
		name, class, typ, mode string
		l, r                   []any
		want                   []string
	}{
		// Spark LEGACY: Java int arithmetic wraps (2147483647 + 1 = -2147483648).
		{"int add legacy", "Add", "integer", "LEGACY", intL(), intR(), []string{"3", "-2147483648", "null", "-4", "4", "2147483647"}},
		// Spark TRY: overflow is caught and gives null.
		{"int add try", "Add", "integer", "TRY", intL(), intR(), []string{"3", "null", "null", "-4", "4", "null"}},
		{"int sub legacy", "Subtract", "integer", "LEGACY", intL(), intR(), []string{"-1", "2147483646", "null", "-10", "10", "-2147483647"}},
		// MIN * -1 wraps to MIN in Java.
		{"int mul legacy", "Multiply", "integer", "LEGACY", intL(), intR(), []string{"2", "2147483647", "null", "-21", "-21", "-2147483648"}},
		// Java %: sign of the dividend; MIN % -1 = 0.
		{"int rem legacy", "Remainder", "integer", "LEGACY", intL(), intR(), []string{"1", "0", "null", "-1", "1", "0"}},
		// Remainder by zero is null outside ANSI.
		{"int rem by zero", "Remainder", "integer", "LEGACY", []any{5, nil, 5}, []any{0, 0, nil}, []string{"null", "null", "null"}},
		// 4e9 * 4e9 wraps: 16e18 - 2^64.
		{"long mul legacy", "Multiply", "long", "LEGACY", []any{4000000000, math.MinInt64}, []any{4000000000, -1}, []string{"-2446744073709551616", "-9223372036854775808"}},
		{"long mul try", "Multiply", "long", "TRY", []any{4000000000, 3}, []any{4000000000, 4}, []string{"null", "12"}},
		// tinyint arithmetic keeps the low 8 bits in LEGACY: 127 + 1 = -128.
		{"byte add legacy", "Add", "byte", "LEGACY", []any{127, -128}, []any{1, -1}, []string{"-128", "127"}},
		{"byte add try", "Add", "byte", "TRY", []any{127, 100}, []any{1, 1}, []string{"null", "101"}},
		// smallint: 200 * 200 = 40000 -> -25536.
		{"short mul legacy", "Multiply", "short", "LEGACY", []any{200}, []any{200}, []string{"-25536"}},
		{"float add", "Add", "float", "ANSI", []any{float32(1.5), float32(math.MaxFloat32)}, []any{float32(2.25), float32(math.MaxFloat32)}, []string{"3.75", "+Inf"}},
		// Double division: IEEE; by zero null (LEGACY), NaN propagates.
		{"double div", "Divide", "double", "LEGACY", []any{1.0, 1.0, math.NaN(), -1.0, nil}, []any{3.0, 0.0, 1.0, math.Copysign(0, -1), 2.0}, []string{"0.3333333333333333", "null", "NaN", "null", "null"}},
		// Divide TRY behaves like LEGACY (Divide.failOnError is ANSI only).
		{"double div try", "Divide", "double", "TRY", []any{1.0}, []any{0.0}, []string{"null"}},
		// Java double %: fmod, sign of the dividend.
		{"double rem", "Remainder", "double", "LEGACY", []any{5.5, -5.5, 1.0, math.Inf(1)}, []any{2.0, 2.0, 0.0, 2.0}, []string{"1.5", "-1.5", "null", "NaN"}},
		// ANSI: a zero divisor with a null dividend is null, not an error (left is null first).
		{"ansi rem null dividend", "Remainder", "integer", "ANSI", []any{nil}, []any{0}, []string{"null"}},
		{"empty batch", "Add", "integer", "ANSI", []any{}, []any{}, []string{}},
	}
	for _, c := range cases {
		js := arithJSON(c.class, c.typ, c.mode, col(0, c.typ), col(1, c.typ))
		got, err := run(t, js, column(t, c.typ, c.l...), column(t, c.typ, c.r...))
		expectRows(t, c.name, got, err, c.want...)
	}
}

func TestIntegralArithmeticANSIErrors(t *testing.T) {
	cases := []struct {
		name, class, typ string
		l, r             []any
		errClass         string
		params           map[string]string
	}{
		// MathUtils.addExact -> ARITHMETIC_OVERFLOW("integer overflow", hint try_add).
		{"int add", "Add", "integer", []any{1, math.MaxInt32}, []any{1, 1}, "ARITHMETIC_OVERFLOW",
			map[string]string{"message": "integer overflow", "alternative": " Use 'try_add' to tolerate overflow and return NULL instead.", "config": `"spark.sql.ansi.enabled"`}},
		{"long sub", "Subtract", "long", []any{math.MinInt64}, []any{1}, "ARITHMETIC_OVERFLOW",
			map[string]string{"message": "long overflow", "alternative": " Use 'try_subtract' to tolerate overflow and return NULL instead."}},
		{"long mul", "Multiply", "long", []any{4000000000}, []any{4000000000}, "ARITHMETIC_OVERFLOW",
			map[string]string{"message": "long overflow", "alternative": " Use 'try_multiply' to tolerate overflow and return NULL instead."}},
		// QueryExecutionErrors.binaryArithmeticCauseOverflowError: SMALLINT literals ("127S").
		{"byte add", "Add", "byte", []any{127}, []any{5}, "BINARY_ARITHMETIC_OVERFLOW",
			map[string]string{"value1": "127S", "symbol": "+", "value2": "5S", "functionName": "`try_add`"}},
		{"short mul", "Multiply", "short", []any{200}, []any{200}, "BINARY_ARITHMETIC_OVERFLOW",
			map[string]string{"value1": "200S", "symbol": "*", "value2": "200S"}},
		// DivModLike: zero divisor in ANSI -> DIVIDE_BY_ZERO for `/`, REMAINDER_BY_ZERO for `%`
		// (QueryExecutionErrors.remainderByZeroError).
		{"int rem zero", "Remainder", "integer", []any{5}, []any{0}, "REMAINDER_BY_ZERO", map[string]string{"config": `"spark.sql.ansi.enabled"`}},
		{"long rem zero", "Remainder", "long", []any{5}, []any{0}, "REMAINDER_BY_ZERO", nil},
		{"double rem zero", "Remainder", "double", []any{1.5}, []any{0.0}, "REMAINDER_BY_ZERO", nil},
		{"decimal rem zero", "Remainder", "decimal(10,2)", []any{"150"}, []any{"0"}, "REMAINDER_BY_ZERO", nil},
		{"double div zero", "Divide", "double", []any{1.0}, []any{0.0}, "DIVIDE_BY_ZERO", nil},
		{"decimal div zero", "Divide", "decimal(10,2)", []any{"150"}, []any{"0"}, "DIVIDE_BY_ZERO", nil},
	}
	for _, c := range cases {
		js := arithJSON(c.class, c.typ, "ANSI", col(0, c.typ), col(1, c.typ))
		_, err := run(t, js, column(t, c.typ, c.l...), column(t, c.typ, c.r...))
		expectSparkError(t, c.name, err, c.errClass, c.params)
	}
}

func TestIntegralArithmeticWithLiteral(t *testing.T) {
	// c0 + 10, with the literal on either side; a null literal makes every row null.
	got, err := run(t, arithJSON("Add", "integer", "ANSI", col(0, "integer"), litInt(10)), column(t, "integer", 1, nil, -10))
	expectRows(t, "col + lit", got, err, "11", "null", "0")
	got, err = run(t, arithJSON("Subtract", "integer", "ANSI", litInt(10), col(0, "integer")), column(t, "integer", 1, nil, -10))
	expectRows(t, "lit - col", got, err, "9", "null", "20")
	got, err = run(t, arithJSON("Add", "integer", "ANSI", col(0, "integer"), lit("integer", "null")), column(t, "integer", 1, 2))
	expectRows(t, "col + null", got, err, "null", "null")
}

func TestUnaryMinus(t *testing.T) {
	um := func(typ, child string, ansi bool) string {
		f := "false"
		if ansi {
			f = "true"
		}
		return node("UnaryMinus", typ, "child", child, "failOnError", f)
	}
	got, err := run(t, um("integer", col(0, "integer"), false), column(t, "integer", 5, math.MinInt32, nil))
	expectRows(t, "legacy", got, err, "-5", "-2147483648", "null")
	// MathUtils.negateExact: ARITHMETIC_OVERFLOW "integer overflow", no alternative.
	_, err = run(t, um("integer", col(0, "integer"), true), column(t, "integer", 5, math.MinInt32))
	expectSparkError(t, "ansi int", err, "ARITHMETIC_OVERFLOW", map[string]string{"message": "integer overflow", "alternative": ""})
	// Spark 4.1 MathUtils.negateExact(Byte): "byte overflow".
	_, err = run(t, um("byte", col(0, "byte"), true), column(t, "byte", -128))
	expectSparkError(t, "ansi byte", err, "ARITHMETIC_OVERFLOW", map[string]string{"message": "byte overflow"})
	got, err = run(t, um("double", col(0, "double"), true), column(t, "double", 0.0, -1.5, math.Inf(1)))
	expectRows(t, "double", got, err, "-0.0", "1.5", "-Inf")
	got, err = run(t, um("decimal(5,2)", col(0, "decimal(5,2)"), true), column(t, "decimal(5,2)", "12345", "-1", nil))
	expectRows(t, "decimal", got, err, "-123.45", "0.01", "null")
}

func TestArithmeticRefusals(t *testing.T) {
	expectRefused(t, "remainder try", arithJSON("Remainder", "integer", "TRY", col(0, "integer"), col(1, "integer")), "TRY")
	expectRefused(t, "mixed types", arithJSON("Add", "long", "ANSI", col(0, "integer"), col(1, "long")), "not supported")
	expectRefused(t, "divide long", arithJSON("Divide", "long", "ANSI", col(0, "long"), col(1, "long")), "Divide")
	// BigDecimal.remainder with MathContext(38) fails when the quotient needs > 38 digits.
	expectRefused(t, "decimal rem wide", arithJSON("Remainder", "decimal(38,0)", "LEGACY", col(0, "decimal(38,0)"), col(1, "decimal(38,38)")), "38 digits")
	expectRefused(t, "unbound", `{"class":"x.AttributeReference","dataType":"integer","nullable":true,"fields":{},"ordinal":-1,"name":"a"}`, "unbound attribute a")
}

func TestShortCircuitSkipsErrors(t *testing.T) {
	// Spark evaluates the right side of AND only where the left is not false: with ANSI on,
	// `c0 <> 0 AND 10 % c0 = 0` must not raise DIVIDE_BY_ZERO on the row where c0 = 0.
	rem := arithJSON("Remainder", "integer", "ANSI", litInt(10), col(0, "integer"))
	cond := node("And", "boolean",
		"left", node("Not", "boolean", "child", node("EqualTo", "boolean", "left", col(0, "integer"), "right", litInt(0))),
		"right", node("EqualTo", "boolean", "left", rem, "right", litInt(0)))
	got, err := run(t, cond, column(t, "integer", 0, 5, 3, nil))
	expectRows(t, "and", got, err, "false", "true", "false", "null")
	// Without the guard Spark raises.
	_, err = run(t, node("EqualTo", "boolean", "left", rem, "right", litInt(0)), column(t, "integer", 0, 5))
	expectSparkError(t, "unguarded", err, "REMAINDER_BY_ZERO", nil)
	// A null left operand skips the right one: null + (MAX + c0) does not overflow.
	inner := arithJSON("Add", "integer", "ANSI", litInt(math.MaxInt32), col(1, "integer"))
	outer := arithJSON("Add", "integer", "ANSI", col(0, "integer"), inner)
	got, err = run(t, outer, column(t, "integer", nil, 1), column(t, "integer", 1, -5))
	expectRows(t, "null left", got, err, "null", "2147483643")
	// OR: the right side only runs where the left is not true.
	or := node("Or", "boolean", "left", node("EqualTo", "boolean", "left", col(0, "integer"), "right", litInt(0)),
		"right", node("EqualTo", "boolean", "left", rem, "right", litInt(0)))
	got, err = run(t, or, column(t, "integer", 0, 5, 3))
	expectRows(t, "or", got, err, "true", "true", "false")
}

func TestEvalModeField(t *testing.T) {
	// Spark <= 4.0 encodes the mode as an evalMode field instead of evalContext.
	js := node("Add", "integer", "left", col(0, "integer"), "right", col(1, "integer"), "evalMode", `"ANSI"`)
	_, err := run(t, js, column(t, "integer", math.MaxInt32), column(t, "integer", 1))
	expectSparkError(t, "evalMode field", err, "ARITHMETIC_OVERFLOW", nil)
	expectRefused(t, "no mode", node("Add", "integer", "left", col(0, "integer"), "right", col(1, "integer")), "evalContext")
}

func TestRegistryDocs(t *testing.T) {
	for _, kv := range Supported() {
		if kv[1] == "" {
			t.Errorf("%s has no doc line", kv[0])
		}
		t.Logf("%s: %s", kv[0], kv[1])
	}
}
