package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

func TestDecimalArithmetic(t *testing.T) {
	nines38 := strings.Repeat("9", 38)
	cases := []struct {
		name, class, lt, rt, rt2, mode string // rt2: result type
		l, r                           []any
		want                           []string
	}{
		// decimal(10,2) + decimal(10,2) -> decimal(11,2).
		{"add", "Add", "decimal(10,2)", "decimal(10,2)", "decimal(11,2)", "ANSI",
			[]any{"123", "-5", nil}, []any{"456", "5", "1"}, []string{"5.79", "0.00", "null"}},
		// Different scales: decimal(10,2) + decimal(10,4) -> decimal(13,4): 1.23 + 0.0001 = 1.2301.
		{"add scales", "Add", "decimal(10,2)", "decimal(10,4)", "decimal(13,4)", "ANSI",
			[]any{"123", "-123"}, []any{"1", "1"}, []string{"1.2301", "-1.2299"}},
		{"sub", "Subtract", "decimal(10,2)", "decimal(10,4)", "decimal(13,4)", "ANSI",
			[]any{"123"}, []any{"1"}, []string{"1.2299"}},
		// decimal(38,0) + decimal(38,0) -> decimal(38,0) (adjusted): overflow is null in LEGACY.
		{"add overflow legacy", "Add", "decimal(38,0)", "decimal(38,0)", "decimal(38,0)", "LEGACY",
			[]any{nines38, nines38, "-" + nines38}, []any{"1", "-1", "-1"}, []string{"null", "9999999999999999999999999999999999999" + "8", "null"}},
		{"add overflow try", "Add", "decimal(38,0)", "decimal(38,0)", "decimal(38,0)", "TRY",
			[]any{nines38}, []any{"1"}, []string{"null"}},
		// decimal(38,38) + decimal(38,38) -> decimal(38,37): the exact sum is rounded HALF_UP.
		{"add 38 digits rounding", "Add", "decimal(38,38)", "decimal(38,38)", "decimal(38,37)", "ANSI",
			[]any{nines38, "5", "-5", "4"}, []any{"1", "0", "0", "0"},
			[]string{"1.0000000000000000000000000000000000000", "0.0000000000000000000000000000000000001", "-0.0000000000000000000000000000000000001", "0.0000000000000000000000000000000000000"}},
		// decimal(10,2) * decimal(10,2) -> decimal(21,4): 1.23 * 4.56 = 5.6088.
		{"mul", "Multiply", "decimal(10,2)", "decimal(10,2)", "decimal(21,4)", "ANSI",
			[]any{"123", "-123", nil}, []any{"456", "456", "1"}, []string{"5.6088", "-5.6088", "null"}},
		// decimal(38,2) * decimal(38,18) -> decimal(38,6). The exact product
		// 5809461033404158629285402621884.83862347594158848068 is first rounded to 38 digits
		// (MathContext(38, HALF_UP)) -> ...884.8386235, then to scale 6 -> ...884.838624 (a single
		// rounding would give ...838623). Derived with Python's decimal module.
		{"mul double rounding", "Multiply", "decimal(38,2)", "decimal(38,18)", "decimal(38,6)", "ANSI",
			[]any{"580946103340415862347594158848068"}, []any{"1000000000000000001"},
			[]string{"5809461033404158629285402621884.838624"}},
		// decimal(38,10) * decimal(38,10) -> decimal(38,6): 1.2345678901 * 1.0000000005 = 1.234568.
		{"mul precision loss", "Multiply", "decimal(38,10)", "decimal(38,10)", "decimal(38,6)", "ANSI",
			[]any{"12345678901"}, []any{"10000000005"}, []string{"1.234568"}},
		// decimal(20,2) * decimal(18,2) -> decimal(38,4): the exact product fits 38 digits
		// (128-bit path); values checked with Python integers.
		{"mul 128", "Multiply", "decimal(20,2)", "decimal(18,2)", "decimal(38,4)", "ANSI",
			[]any{"99999999999999999999", "12345678901234567890"}, []any{"-999999999999999999", "-987654321098765432"},
			[]string{"-9999999999999999989900000000000000.0001", "-1219326311370217952114007012098917.8480"}},
		{"mul overflow legacy", "Multiply", "decimal(38,0)", "decimal(38,0)", "decimal(38,0)", "LEGACY",
			[]any{"100000000000000000000"}, []any{"100000000000000000000"}, []string{"null"}},
		// decimal(10,0) / decimal(10,0) -> decimal(21,11): 1/3, 2/3, -2/3 rounded HALF_UP; /0 null.
		{"div", "Divide", "decimal(10,0)", "decimal(10,0)", "decimal(21,11)", "LEGACY",
			[]any{"1", "2", "-2", "1", nil}, []any{"3", "3", "3", "0", "0"},
			[]string{"0.33333333333", "0.66666666667", "-0.66666666667", "null", "null"}},
		// decimal(38,18) / decimal(38,18) -> decimal(38,6): 2/3 = 0.666667, 1/7, -1/7, and the
		// HALF_UP tie 1/2000000 = 0.0000005 -> 0.000001.
		{"div 38", "Divide", "decimal(38,18)", "decimal(38,18)", "decimal(38,6)", "ANSI",
			[]any{"2000000000000000000", "1000000000000000000", "-1000000000000000000", "1000000000000000000", "-1000000000000000000"},
			[]any{"3000000000000000000", "7000000000000000000", "7000000000000000000", "2000000000000000000000000", "2000000000000000000000000"},
			[]string{"0.666667", "0.142857", "-0.142857", "0.000001", "-0.000001"}},
		// Divide TRY = LEGACY: zero divisor null.
		{"div try zero", "Divide", "decimal(10,0)", "decimal(10,0)", "decimal(21,11)", "TRY",
			[]any{"1"}, []any{"0"}, []string{"null"}},
		// decimal(10,2) % decimal(10,3) -> decimal(10,3): 5.50 % 2.000 = 1.500, sign of the dividend.
		{"rem", "Remainder", "decimal(10,2)", "decimal(10,3)", "decimal(10,3)", "LEGACY",
			[]any{"550", "-550", "100"}, []any{"2000", "2000", "0"}, []string{"1.500", "-1.500", "null"}},
		{"rem wide", "Remainder", "decimal(38,2)", "decimal(20,2)", "decimal(20,2)", "LEGACY",
			[]any{"1" + strings.Repeat("0", 36)}, []any{"700"}, []string{"4.00"}}, // 10^34 mod 7 = 4,
		{"empty", "Multiply", "decimal(38,10)", "decimal(38,10)", "decimal(38,6)", "ANSI", []any{}, []any{}, []string{}},
	}
	for _, c := range cases {
		js := arithJSON(c.class, c.rt2, c.mode, col(0, c.lt), col(1, c.rt))
		got, err := run(t, js, column(t, c.lt, c.l...), column(t, c.rt, c.r...))
		expectRows(t, c.name, got, err, c.want...)
	}
}

func TestDecimalArithmeticANSIErrors(t *testing.T) {
	nines38 := strings.Repeat("9", 38)
	// toPrecision(.., nullOnOverflow=false): NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION with the
	// unrounded value's plain string.
	js := arithJSON("Add", "decimal(38,0)", "ANSI", col(0, "decimal(38,0)"), col(1, "decimal(38,0)"))
	_, err := run(t, js, column(t, "decimal(38,0)", nines38), column(t, "decimal(38,0)", "1"))
	expectSparkError(t, "add", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{
		"value": "1" + strings.Repeat("0", 38), "precision": "38", "scale": "0", "config": `"spark.sql.ansi.enabled"`})
	// 10^20 * 10^20: the product is first rounded to 38 digits (scale -3), printed as 10^40.
	js = arithJSON("Multiply", "decimal(38,0)", "ANSI", col(0, "decimal(38,0)"), col(1, "decimal(38,0)"))
	_, err = run(t, js, column(t, "decimal(38,0)", "100000000000000000000"), column(t, "decimal(38,0)", "100000000000000000000"))
	expectSparkError(t, "mul", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "1" + strings.Repeat("0", 40)})
	// decimal(5,2) * decimal(5,2) -> decimal(11,4) cannot overflow; a narrower declared result
	// (allowPrecisionLoss=false style) can: 999.99 * 999.99 = 999980.0001 into decimal(6,2).
	js = arithJSON("Multiply", "decimal(6,2)", "ANSI", col(0, "decimal(5,2)"), col(1, "decimal(5,2)"))
	_, err = run(t, js, column(t, "decimal(5,2)", "99999"), column(t, "decimal(5,2)", "99999"))
	expectSparkError(t, "mul small", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", map[string]string{"value": "999980.0001", "precision": "6", "scale": "2"})
	js = arithJSON("Divide", "decimal(21,11)", "ANSI", col(0, "decimal(10,0)"), col(1, "decimal(10,0)"))
	_, err = run(t, js, column(t, "decimal(10,0)", "1"), column(t, "decimal(10,0)", "0"))
	expectSparkError(t, "div zero", err, "DIVIDE_BY_ZERO", nil)
}

func TestDecimalHelpers(t *testing.T) {
	for _, c := range []struct {
		u    string
		s    int32
		want string
	}{{"0", 0, "0"}, {"0", 2, "0.00"}, {"-5", 3, "-0.005"}, {"12345", 2, "123.45"}, {"10", -3, "10000"}} {
		u, _ := new(bigInt).SetString(c.u, 10)
		if got := plainString(u, c.s); got != c.want {
			t.Errorf("plainString(%s, %d) = %s, want %s", c.u, c.s, got, c.want)
		}
	}
}

// TestDecimalMulSmallMatchesBig: the 64-bit multiplication path gives exactly what the big.Int
// path (Spark's BigDecimal arithmetic) gives, overflow included, for result types that round
// (scale reduced), keep or raise the scale, near the int64 limits and with mixed signs.
func TestDecimalMulSmallMatchesBig(t *testing.T) {
	types := [][3]sparktype.Type{
		{sparktype.DecimalOf(32, 4), sparktype.DecimalOf(16, 2), sparktype.DecimalOf(38, 6)}, // TPC-H Q1
		{sparktype.DecimalOf(38, 10), sparktype.DecimalOf(38, 10), sparktype.DecimalOf(38, 6)},
		{sparktype.DecimalOf(38, 18), sparktype.DecimalOf(38, 18), sparktype.DecimalOf(38, 0)},
		{sparktype.DecimalOf(20, 2), sparktype.DecimalOf(20, 0), sparktype.DecimalOf(38, 4)},
		{sparktype.DecimalOf(25, 5), sparktype.DecimalOf(25, 5), sparktype.DecimalOf(20, 3)},
		{sparktype.DecimalOf(38, 0), sparktype.DecimalOf(38, 0), sparktype.DecimalOf(38, 0)},
		{sparktype.DecimalOf(20, 2), sparktype.DecimalOf(20, 2), sparktype.DecimalOf(12, 2)}, // overflows
	}
	r := rand.New(rand.NewSource(7))
	edge := []int64{0, 1, -1, 5, -5, 50, 499999, 500000, math.MaxInt64, math.MinInt64, math.MaxInt64 / 3, 3037000499, 3037000500, -3037000500, 999999999999999999}
	pick := func() int64 {
		switch r.Intn(4) {
		case 0:
			return edge[r.Intn(len(edge))]
		case 1:
			return r.Int63n(2_000_000_000) - 1_000_000_000
		case 2:
			return r.Int63() >> uint(r.Intn(63))
		}
		return -(r.Int63() >> uint(r.Intn(63)))
	}
	var s decScratch
	checked := 0
	for _, ty := range types {
		d, err := newDecOp(opMul, ty[0], ty[1], ty[2])
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			x, y := decimal128.FromI64(pick()), decimal128.FromI64(pick())
			got, gfits, ok := d.mulSmall(x, y)
			if !ok {
				continue
			}
			checked++
			want, wfits := d.applyBig(&s, x, y)
			if gfits != wfits || (wfits && got != want) {
				t.Fatalf("%s * %s -> %s: %v * %v = %v (fits %v), big path %v (fits %v)", ty[0], ty[1], ty[2],
					x.BigInt(), y.BigInt(), got.BigInt(), gfits, want.BigInt(), wfits)
			}
		}
	}
	if checked < 50000 {
		t.Fatalf("only %d products took the 64-bit path", checked)
	}
}

// TestDecimalMultiplyKernelMixedRows: the kernel's 64-bit loop hands over to the general loop at
// the first wide or overflowing row; every row still equals the big.Int result (null on
// overflow, LEGACY), with and without nulls.
func TestDecimalMultiplyKernelMixedRows(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, nulls := range []bool{false, true} {
		var l, rr []any
		var want []string
		d, err := newDecOp(opMul, sparktype.DecimalOf(38, 2), sparktype.DecimalOf(38, 2), sparktype.DecimalOf(30, 4))
		if err != nil {
			t.Fatal(err)
		}
		var s decScratch
		for i := 0; i < 500; i++ {
			x := decimal128.FromI64(r.Int63n(2_000_000) - 1_000_000)
			y := decimal128.FromI64(r.Int63n(2_000_000) - 1_000_000)
			switch r.Intn(10) {
			case 0: // wide value: beyond 64 bits
				x = x.Mul(decimal128.GetScaleMultiplier(20))
			case 1: // product beyond decimal(30,4): null
				x = decimal128.FromI64(r.Int63n(1 << 62))
				y = decimal128.FromI64(1 << 40)
			}
			if nulls && r.Intn(8) == 0 {
				l, rr, want = append(l, nil), append(rr, x.BigInt().String()), append(want, "null")
				continue
			}
			l, rr = append(l, x.BigInt().String()), append(rr, y.BigInt().String())
			v, fits := d.applyBig(&s, x, y)
			if !fits {
				want = append(want, "null")
				continue
			}
			var b big.Int
			want = append(want, plainString(numToBig(&b, v), 4))
		}
		got, err := run(t, arithJSON("Multiply", "decimal(30,4)", "LEGACY", col(0, "decimal(38,2)"), col(1, "decimal(38,2)")),
			column(t, "decimal(38,2)", l...), column(t, "decimal(38,2)", rr...))
		expectRows(t, fmt.Sprintf("mixed rows (nulls %v)", nulls), got, err, want...)
	}
}
