package expr

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// toNumInputs and toNumGolden: Spark 4.1.3's own ToNumberParser (new ToNumberParser(format,
// false).parse(UTF8String.fromBytes(input)), from the catalyst jar) and its parsedDecimalType;
// null is a mismatch (to_number raises INVALID_FORMAT.MISMATCH_INPUT there).
var toNumInputs = []any{"", " ", "12", "123", "1,234", "12,34", "-12", "12-", "<12>", "$12", "1 2", "٣٤", "１２", "12.5", ".5", "12.", "1.234", "+1", "x", "1,2,3", "  ", "0", "00", "-0", "1,234.56", "-1,234.56", "$1,234.56", "<$1,234.56>", "1234.56", "1 234", "12,345,678", ",123", "123,", "1,,234", "12\xf0\x9f\x98\x80", "\xff12", "-", "+", "<>", "<1", "1>", "$", ".", "99999", "0.001", "-.5", "5-", "5+", "-5-", "\x0912\x0a", "12 .5", "1,234,567.891"}

var toNumGolden = []struct {
	format string
	typ    string
	want   []string
}{
	{"999.99", "DecimalType(5,2)", []string{`null`, `null`, `12.00`, `123.00`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"9,999.99", "DecimalType(6,2)", []string{`null`, `null`, `12.00`, `123.00`, `1234.00`, `null`, `null`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `1234.56`, `null`, `null`, `null`, `null`, `null`, `null`, `123.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"S9999.99", "DecimalType(6,2)", []string{`null`, `null`, `12.00`, `123.00`, `null`, `null`, `-12.00`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `1.00`, `null`, `null`, `null`, `0.00`, `0.00`, `0.00`, `null`, `null`, `null`, `null`, `1234.56`, `1234.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `-0.50`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"9999.99S", "DecimalType(6,2)", []string{`null`, `null`, `12.00`, `123.00`, `null`, `null`, `null`, `-12.00`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `null`, `null`, `null`, `null`, `1234.56`, `1234.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `-5.00`, `5.00`, `null`, `12.00`, `12.50`, `null`}},
	{"9999MI", "DecimalType(4,0)", []string{`null`, `null`, `12`, `123`, `null`, `null`, `null`, `-12`, `null`, `null`, `12`, `34`, `12`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `0`, `0`, `null`, `null`, `null`, `null`, `null`, `null`, `1234`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `-5`, `null`, `null`, `12`, `null`, `null`}},
	{"9999.99PR", "DecimalType(6,2)", []string{`null`, `null`, `12.00`, `123.00`, `null`, `null`, `null`, `null`, `-12.00`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `null`, `null`, `null`, `null`, `1234.56`, `1234.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"$9,999.99", "DecimalType(6,2)", []string{`null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `1234.56`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`}},
	{"$99.99MI", "DecimalType(4,2)", []string{`null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`}},
	{"0000", "DecimalType(4,0)", []string{`null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `1234`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`}},
	{"00.00", "DecimalType(4,2)", []string{`null`, `null`, `12.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `null`, `12.00`, `null`, `null`, `null`, `null`, `null`, `null`, `0.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"99G999D99", "DecimalType(7,2)", []string{`null`, `null`, `12.00`, `123.00`, `1234.00`, `1234.00`, `null`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `1234.56`, `null`, `null`, `null`, `null`, `null`, `null`, `123.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"9,999", "DecimalType(4,0)", []string{`null`, `null`, `12`, `123`, `1234`, `null`, `null`, `null`, `null`, `null`, `12`, `34`, `12`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `0`, `0`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `123`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12`, `null`, `null`}},
	{"999,999,999", "DecimalType(9,0)", []string{`null`, `null`, `12`, `123`, `1234`, `1234`, `null`, `null`, `null`, `null`, `12`, `34`, `12`, `null`, `null`, `null`, `null`, `null`, `null`, `123`, `null`, `0`, `0`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12345678`, `123`, `123`, `1234`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12`, `null`, `null`}},
	{"99,000", "DecimalType(5,0)", []string{`null`, `null`, `null`, `123`, `1234`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `123`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`}},
	{"9999999999999999999.99", "DecimalType(21,2)", []string{`null`, `null`, `12.00`, `123.00`, `null`, `null`, `null`, `null`, `null`, `null`, `12.00`, `34.00`, `12.00`, `12.50`, `0.50`, `12.00`, `null`, `null`, `null`, `null`, `null`, `0.00`, `0.00`, `null`, `null`, `null`, `null`, `null`, `1234.56`, `1234.00`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `99999.00`, `null`, `null`, `null`, `null`, `null`, `12.00`, `12.50`, `null`}},
	{"99999999999999999999999999999999999999", "DecimalType(38,0)", []string{`null`, `null`, `12`, `123`, `null`, `null`, `null`, `null`, `null`, `null`, `12`, `34`, `12`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `0`, `0`, `null`, `null`, `null`, `null`, `null`, `null`, `1234`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `99999`, `null`, `null`, `null`, `null`, `null`, `12`, `null`, `null`}},
	{"S$999", "DecimalType(3,0)", []string{`null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `12`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`, `null`}},
}

func toNumJSON(class, format string, p, s int) string {
	return node(class, fmt.Sprintf("decimal(%d,%d)", p, s), "left", col(0, "string"), "right", litStr(format))
}

func TestToNumberGolden(t *testing.T) {
	re := regexp.MustCompile(`DecimalType\((\d+),(\d+)\)`)
	for _, g := range toNumGolden {
		var p, s int
		m := re.FindStringSubmatch(g.typ)
		fmt.Sscan(m[1], &p)
		fmt.Sscan(m[2], &s)
		for i, in := range toNumInputs {
			want := strings.Trim(g.want[i], "`")
			got, err := run(t, toNumJSON("TryToNumber", g.format, p, s), column(t, "string", in, nil))
			expectRows(t, fmt.Sprintf("try_to_number(%q, %q)", in, g.format), got, err, want, "null")
			got, err = run(t, toNumJSON("ToNumber", g.format, p, s), column(t, "string", in, nil))
			if want == "null" {
				expectSparkError(t, fmt.Sprintf("to_number(%q, %q)", in, g.format), err, "INVALID_FORMAT.MISMATCH_INPUT",
					map[string]string{"format": g.format, "inputType": `"STRING"`})
			} else {
				expectRows(t, fmt.Sprintf("to_number(%q, %q)", in, g.format), got, err, want, "null")
			}
		}
	}
}

func TestToNumberRefusals(t *testing.T) {
	expectRefused(t, "no digits before the point", toNumJSON("ToNumber", ".99", 2, 2), "before the decimal point")
	expectRefused(t, "wrong type", toNumJSON("ToNumber", "999", 5, 0), "decimal(3,0)")
	nonLit := node("ToNumber", "decimal(3,0)", "left", col(0, "string"), "right", col(1, "string"))
	expectRefused(t, "non-literal", nonLit, "non-literal")
}

// The digit values assume that every BMP range of Unicode's Nd table starts at a zero and spans
// whole runs of ten.
func TestToNumberDigitTable(t *testing.T) {
	for _, r := range unicode.Nd.R16 {
		if r.Stride != 1 || (r.Hi-r.Lo+1)%10 != 0 {
			t.Errorf("Nd range %#x..%#x stride %d", r.Lo, r.Hi, r.Stride)
		}
	}
}

// Inactive rows (an untaken CASE branch) raise no error.
func TestStrFnMaskedRowsRaiseNothing(t *testing.T) {
	cases := []struct{ js, good, bad string }{
		{toNumJSON("ToNumber", "999", 3, 0), "1", "x"},
		{unb64JSON(true), "QQ==", "!!"},
		{splitJSON("extract_all", "(a)", 2), "b", "a"},
	}
	for _, c := range cases {
		e := mustTranslate(t, c.js)
		ctx := newCtx()
		col := column(t, "string", c.good, c.bad)
		m, ok := e.(masked)
		if !ok {
			t.Fatalf("%s is not masked", e)
		}
		out, err := m.evalMasked(ctx, batch(col), []byte{1})
		if err != nil {
			t.Errorf("%s: inactive row raised %v", e, err)
		} else {
			out.Release()
		}
		if _, err := e.Eval(ctx, batch(col)); err == nil {
			t.Errorf("%s: active row raised nothing", e)
		}
		col.Release()
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
		}
	}
}
