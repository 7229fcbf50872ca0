package expr

import (
	"fmt"
	"strings"
	"testing"
)

// structJSON is named_struct over input columns (name, type), all nullable.
func csvStruct(fields ...[2]string) string { return csvStructOf(true, fields...) }

func csvStructOf(nullable bool, fields ...[2]string) string {
	var ft, kids []string
	for i, f := range fields {
		ft = append(ft, fmt.Sprintf(`{"name":%q,"type":%q,"nullable":%v,"metadata":{}}`, f[0], f[1], nullable))
		kids = append(kids, litStr(f[0]), col(i, f[1]))
	}
	return fmt.Sprintf(`{"class":%q,"dataType":{"type":"struct","fields":[%s]},"nullable":false,"fields":{"children":[%s]}}`,
		pkg+"CreateNamedStruct", strings.Join(ft, ","), strings.Join(kids, ","))
}

func toCsvJSON(child, options string) string {
	return node("StructsToCsv", "string", "options", options, "child", child, "timeZoneId", `"UTC"`)
}

const emptyOptions = `{"unsupported":"scala.collection.immutable.Map$EmptyMap$"}`

// Expected lines are Spark 4.1's to_csv output (checked with Spark for the null cases: several
// null fields give commas).
func TestToCsv(t *testing.T) {
	st := csvStruct([2]string{"a", "integer"}, [2]string{"b", "boolean"}, [2]string{"c", "decimal(5,2)"},
		[2]string{"d", "long"}, [2]string{"e", "decimal(10,6)"}, [2]string{"f", "byte"})
	got, err := run(t, toCsvJSON(st, emptyOptions),
		column(t, "integer", 1, nil, -2147483648, nil),
		column(t, "boolean", true, nil, false, nil),
		column(t, "decimal(5,2)", "-1250", nil, "5", nil),
		column(t, "long", int64(-5), nil, int64(9223372036854775807), nil),
		column(t, "decimal(10,6)", "0", nil, "-1", nil),
		column(t, "byte", 7, nil, -128, 0))
	expectRows(t, "to_csv(6 fields)", got, err,
		"1,true,-12.50,-5,0.000000,7", ",,,,,", "-2147483648,false,0.05,9223372036854775807,-0.000001,-128", ",,,,,0")

	one := csvStructOf(false, [2]string{"a", "short"})
	got, err = run(t, toCsvJSON(one, emptyOptions), column(t, "short", 3, 0, -32768))
	expectRows(t, "to_csv(one field)", got, err, "3", "0", "-32768")
	two := csvStruct([2]string{"a", "integer"}, [2]string{"b", "integer"})
	got, err = run(t, toCsvJSON(two, emptyOptions), column(t, "integer", 1, nil, nil), column(t, "integer", nil, nil, 2))
	expectRows(t, "to_csv(two fields)", got, err, "1,", ",", ",2")
}

func TestToCsvRefusals(t *testing.T) {
	for name, js := range map[string]string{
		"options": toCsvJSON(csvStruct([2]string{"a", "integer"}),
			`{"unsupported":"scala.collection.immutable.Map$Map1"}`),
		"string field":  toCsvJSON(csvStruct([2]string{"a", "string"}), emptyOptions),
		"double field":  toCsvJSON(csvStruct([2]string{"a", "double"}), emptyOptions),
		"date field":    toCsvJSON(csvStruct([2]string{"a", "date"}), emptyOptions),
		"scale 7":       toCsvJSON(csvStruct([2]string{"a", "decimal(10,7)"}), emptyOptions),
		"lone nullable": toCsvJSON(csvStruct([2]string{"a", "integer"}), emptyOptions),
	} {
		if _, err := Translate(parse(t, js), nil); err == nil {
			t.Errorf("%s: translated, want a refusal", name)
		}
	}
}

func TestAppendPlainDecimal(t *testing.T) {
	for _, tc := range []struct {
		u     int64
		scale int
		want  string
	}{{0, 0, "0"}, {0, 3, "0.000"}, {5, 2, "0.05"}, {-5, 2, "-0.05"}, {12345, 2, "123.45"}, {-100, 2, "-1.00"},
		{-9223372036854775808, 6, "-9223372036854.775808"}, {999999, 6, "0.999999"}, {1000000, 6, "1.000000"}} {
		if got := string(appendPlainDecimal(nil, tc.u, tc.scale)); got != tc.want {
			t.Errorf("appendPlainDecimal(%d, %d) = %s, want %s", tc.u, tc.scale, got, tc.want)
		}
	}
}
