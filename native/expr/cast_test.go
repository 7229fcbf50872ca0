package expr

import (
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

func TestCastNumeric(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name, from, to, mode string
		in                   []any
		want                 []string
	}{
		// Integral narrowing keeps the low bits in LEGACY (Java (byte) cast), null in TRY.
		{"int->byte legacy", "integer", "byte", "LEGACY", []any{128, 300, -129, 5, nil}, s("-128", "44", "127", "5", "null")},
		{"int->byte try", "integer", "byte", "TRY", []any{128, 5}, s("null", "5")},
		{"long->int legacy", "long", "integer", "LEGACY", []any{3000000000}, s("-1294967296")},
		{"byte->long", "byte", "long", "ANSI", []any{-128}, s("-128")},
		// Java d2i: NaN -> 0, saturating, truncation toward zero; byte/short then keep low bits
		// of the int (numeric.toInt(b).toByte).
		{"double->int legacy", "double", "integer", "LEGACY", []any{nan, 1e10, -1e10, 3.99, -3.99, nil}, s("0", "2147483647", "-2147483648", "3", "-3", "null")},
		{"double->byte legacy", "double", "byte", "LEGACY", []any{300.7, 1e10}, s("44", "-1")},
		{"double->long legacy", "double", "long", "LEGACY", []any{9.3e18, math.Inf(-1)}, s("9223372036854775807", "-9223372036854775808")},
		{"float->short legacy", "float", "short", "LEGACY", []any{float32(40000.5)}, s("-25536")},
		// Decimal.toLong truncates; BigDecimal.longValue keeps the low 64 bits (10^37 ->
		// 68739955140067328), then toInt keeps the low 32 bits.
		{"decimal->int legacy", "decimal(5,2)", "integer", "LEGACY", []any{"12399", "-12399"}, s("123", "-123")},
		{"decimal->long legacy wide", "decimal(38,0)", "long", "LEGACY", []any{"1" + strings.Repeat("0", 37)}, s("68739955140067328")},
		{"decimal->int legacy wide", "decimal(38,0)", "integer", "LEGACY", []any{"1" + strings.Repeat("0", 37)}, s("0")},
		// Decimal.roundToLong: out of range -> exception -> null in TRY.
		{"decimal->long try", "decimal(38,2)", "long", "TRY", []any{"1" + strings.Repeat("0", 37), "12345"}, s("null", "123")},
		// Decimal(long).changePrecision(5, 2): 1000 does not fit decimal(5,2).
		{"int->decimal legacy", "integer", "decimal(5,2)", "LEGACY", []any{999, 1000, -999, nil}, s("999.00", "null", "-999.00", "null")},
		{"long->decimal(38,0)", "long", "decimal(38,0)", "ANSI", []any{math.MinInt64}, s("-9223372036854775808")},
		// decimal -> decimal rounds HALF_UP; 999.9950 rounds to 1000.00 and overflows.
		{"decimal->decimal legacy", "decimal(10,4)", "decimal(5,2)", "LEGACY", []any{"12350", "-12350", "12349", "9999950"}, s("1.24", "-1.24", "1.23", "null")},
		{"decimal->decimal widen", "decimal(5,2)", "decimal(38,20)", "ANSI", []any{"-12345"}, s("-123.45000000000000000000")},
		// Double -> decimal goes through Double.toString: 1.005 is "1.005", so HALF_UP gives
		// 1.01 (the binary value is 1.00499999...). NaN and infinities give null.
		{"double->decimal legacy", "double", "decimal(10,2)", "LEGACY", []any{0.125, 1.005, -1.005, nan, math.Inf(1), 1e10, 1e-10}, s("0.13", "1.01", "-1.01", "null", "null", "null", "0.00")},
		// A float is widened to double first: 0.1f = 0.10000000149011612.
		{"float->decimal", "float", "decimal(10,9)", "LEGACY", []any{float32(0.1)}, s("0.100000001")},
		{"double->decimal NaN ansi", "double", "decimal(10,2)", "ANSI", []any{nan}, s("null")},
		// BigDecimal.doubleValue / floatValue: correctly rounded.
		{"decimal->double", "decimal(38,9)", "double", "ANSI", []any{"12345678901234567890123456789123456789", "-1"}, s("1.2345678901234568e+28", "-1e-09")},
		{"decimal->double small", "decimal(38,18)", "double", "ANSI", []any{"333333333333333333"}, s("0.3333333333333333")},
		{"decimal->float", "decimal(38,18)", "float", "ANSI", []any{"333333333333333333"}, s("0.33333334")},
		{"int->float", "integer", "float", "ANSI", []any{16777217}, s("1.6777216e+07")},
		{"long->double", "long", "double", "ANSI", []any{9007199254740993}, s("9.007199254740992e+15")},
		{"double->float", "double", "float", "ANSI", []any{1e40, 0.1}, s("+Inf", "0.1")},
		{"bool->int", "boolean", "integer", "ANSI", []any{true, false, nil}, s("1", "0", "null")},
		{"bool->double", "boolean", "double", "ANSI", []any{true}, s("1")},
		// true -> Decimal.ONE does not fit decimal(1,1).
		{"bool->decimal", "boolean", "decimal(1,1)", "LEGACY", []any{true, false}, s("null", "0.0")},
		// numeric -> boolean: != 0 (NaN is true).
		{"int->bool", "integer", "boolean", "ANSI", []any{0, -5}, s("false", "true")},
		{"double->bool", "double", "boolean", "ANSI", []any{nan, 0.0, math.Copysign(0, -1)}, s("true", "false", "false")},
		{"decimal->bool", "decimal(10,2)", "boolean", "ANSI", []any{"0", "1"}, s("false", "true")},
		{"same type", "string", "string", "ANSI", []any{"x", nil}, s("x", "null")},
		{"empty", "integer", "byte", "ANSI", []any{}, s()},
	}
	for _, c := range cases {
		got, err := run(t, castJSON(col(0, c.from), c.to, c.mode), column(t, c.from, c.in...))
		expectRows(t, c.name, got, err, c.want...)
	}
}

func TestCastANSIErrors(t *testing.T) {
	// QueryExecutionErrors.castingCauseOverflowError: value as a SQL literal, SQL type names.
	_, err := run(t, castJSON(col(0, "integer"), "byte", "ANSI"), column(t, "integer", 1, 128))
	expectSparkError(t, "int->byte", err, "CAST_OVERFLOW", map[string]string{"value": "128", "sourceType": `"INT"`, "targetType": `"TINYINT"`, "ansiConfig": `"spark.sql.ansi.enabled"`})
	_, err = run(t, castJSON(col(0, "long"), "integer", "ANSI"), column(t, "long", 3000000000))
	expectSparkError(t, "long->int", err, "CAST_OVERFLOW", map[string]string{"value": "3000000000L", "sourceType": `"BIGINT"`, "targetType": `"INT"`})
	_, err = run(t, castJSON(col(0, "short"), "byte", "ANSI"), column(t, "short", -129))
	expectSparkError(t, "short->byte", err, "CAST_OVERFLOW", map[string]string{"value": "-129S", "targetType": `"TINYINT"`})
	// Cast.changePrecision: NUMERIC_VALUE_OUT_OF_RANGE with the source value's plain string.
	_, err = run(t, castJSON(col(0, "integer"), "decimal(5,2)", "ANSI"), column(t, "integer", 1000))
	expectSparkError(t, "int->decimal", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "1000", "precision": "5", "scale": "2"})
	_, err = run(t, castJSON(col(0, "decimal(10,4)"), "decimal(5,2)", "ANSI"), column(t, "decimal(10,4)", "9999950"))
	expectSparkError(t, "decimal->decimal", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "999.9950"})
	// Double.toString(1e10) = "1.0E10" -> BigDecimal scale -9 -> Decimal rescales to 0.
	_, err = run(t, castJSON(col(0, "double"), "decimal(10,2)", "ANSI"), column(t, "double", 1e10))
	expectSparkError(t, "double->decimal", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "10000000000"})
	// Double.toString(100.0) = "100.0" (scale 1).
	_, err = run(t, castJSON(col(0, "double"), "decimal(3,1)", "ANSI"), column(t, "double", 100.0))
	expectSparkError(t, "double->decimal plain", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "100.0"})
	// An overflow on a row whose value is null elsewhere is never raised: null input stays null.
	got, err := run(t, castJSON(col(0, "integer"), "byte", "ANSI"), column(t, "integer", nil, 1))
	expectRows(t, "null row", got, err, "null", "1")
}

func TestCastOfNull(t *testing.T) {
	for _, to := range []string{"long", "string", "decimal(20,2)", "date", "timestamp"} {
		for _, mode := range []string{"LEGACY", "ANSI", "TRY"} {
			got, err := run(t, castJSON(lit("void", "null"), to, mode), column(t, "integer", 1, 2, 3))
			expectRows(t, "void->"+to+" "+mode, got, err, "null", "null", "null")
		}
	}
}

func TestCastRefusals(t *testing.T) {
	expectRefused(t, "binary->string", castJSON(col(0, "binary"), "string", "LEGACY"), "cast from binary to string is not supported natively")
	expectRefused(t, "date->timestamp", castJSON(col(0, "date"), "timestamp", "LEGACY"), "not supported natively")
	expectRefused(t, "double->int ansi", castJSON(col(0, "double"), "integer", "ANSI"), "ANSI mode")
	expectRefused(t, "decimal->int ansi", castJSON(col(0, "decimal(10,2)"), "integer", "ANSI"), "internal decimal representation")
	expectRefused(t, "decimal->int try", castJSON(col(0, "decimal(10,2)"), "integer", "TRY"), "internal decimal representation")
}

func TestJavaDoubleDecimal(t *testing.T) {
	// Values and scales of new BigDecimal(Double.toString(d)) after Decimal.set.
	for _, c := range []struct {
		f    float64
		want string
	}{{1.0, "1.0"}, {100, "100.0"}, {0.001, "0.001"}, {1e7, "10000000"}, {1.234e-5, "0.00001234"},
		{-2.5, "-2.5"}, {1e-3 * 0.999, "0.000999"}, {123456.789, "123456.789"}, {5e-324, "0." + strings.Repeat("0", 323) + "49"}} {
		var u bigInt
		sc := javaDoubleDecimal(c.f, &u)
		if got := plainString(&u, sc); got != c.want {
			t.Errorf("javaDoubleDecimal(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

// TestDoubleToDecimalFast checks the machine-integer path of a cast from double to decimal against
// the exact one (Double.toString's BigDecimal, rounded HALF_UP in big.Int), for both Java
// versions' digits: where the fast path answers it must give the exact path's value, and it must
// answer whenever the exact path's value fits (the overflow cases go to the exact path).
func TestDoubleToDecimalFast(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	vals := []float64{1, -1, 0.5, -0.5, 0.05, 0.015, 0.025, 1.005, 2.675, 123456.789, 1e7, 1e17, 1e18,
		1e19, 1e22, 1e23, 9.999999999999999e37, 1e38, 1.7976931348623157e308, 5e-324, 1e-3 * 0.999,
		0.1 + 0.2, 4.35, -4.35, 999.9995, 99999999999.9995, math.Nextafter(1, 2), math.Nextafter(1, 0)}
	for range 20000 {
		switch r.Intn(4) {
		case 0:
			vals = append(vals, r.NormFloat64()*math.Pow(10, float64(r.Intn(40)-20)))
		case 1:
			vals = append(vals, float64(r.Int63n(2000000)-1000000)/math.Pow(10, float64(r.Intn(8))))
		case 2:
			vals = append(vals, math.Float64frombits(r.Uint64()))
		default:
			vals = append(vals, float64(r.Int63n(1e15))/1000+0.0005)
		}
	}
	defer SetJavaVersion(JavaVersion())
	var jd javaFloatDigits
	for _, ver := range []int{17, 21} {
		SetJavaVersion(ver)
		for _, f := range vals {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			for _, ps := range [][2]int32{{14, 3}, {38, 18}, {10, 0}, {5, 5}, {38, 0}, {18, 2}, {3, -2}, {38, 37}, {20, 10}} {
				p, s := ps[0], ps[1]
				var u, want big.Int
				sc := javaDoubleDecimal(f, &u)
				roundHalfUpBig(&want, &u, int(sc-s))
				fits := digitsBig(&want) <= int(p)
				got, ok := doubleToDecimalFast(&jd, f, ver, p, s)
				if ok && (!fits || got.BigInt().Cmp(&want) != 0) {
					t.Fatalf("java %d: %v as decimal(%d,%d): fast %s, exact %s (fits %v)", ver, f, p, s, got.BigInt(), &want, fits)
				}
				if !ok && fits && len(jd.digits()) <= 18 {
					t.Fatalf("java %d: %v as decimal(%d,%d): the fast path refused %s", ver, f, p, s, &want)
				}
			}
		}
	}
}
