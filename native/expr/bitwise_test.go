package expr

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestBitwiseAndShifts(t *testing.T) {
	bin := func(class, typ, l, r string) string { return node(class, typ, "left", l, "right", r) }
	type in struct {
		typ  string
		vals []any
	}
	cases := []struct {
		name, js string
		cols     []in
		want     []string
	}{
		{"and long", bin("BitwiseAnd", "long", col(0, "long"), col(1, "long")),
			[]in{{"long", []any{12, -1, nil, math.MinInt64}}, {"long", []any{10, 7, 1, -1}}},
			[]string{"8", "7", "null", "-9223372036854775808"}},
		{"or int", bin("BitwiseOr", "integer", col(0, "integer"), col(1, "integer")),
			[]in{{"integer", []any{12, -8, 0}}, {"integer", []any{3, 1, nil}}}, []string{"15", "-7", "null"}},
		{"xor byte", bin("BitwiseXor", "byte", col(0, "byte"), col(1, "byte")),
			[]in{{"byte", []any{-1, 5}}, {"byte", []any{127, 5}}}, []string{"-128", "0"}},
		{"and short literal", bin("BitwiseAnd", "short", col(0, "short"), lit("short", "255")),
			[]in{{"short", []any{-1, 256}}}, []string{"255", "0"}},
		// Java: the amount is taken modulo the width; >> keeps the sign, >>> does not.
		{"shiftright long", bin("ShiftRight", "long", col(0, "long"), col(1, "integer")),
			[]in{{"long", []any{-16, 16, 5, nil}}, {"integer", []any{2, 66, -1, 1}}}, []string{"-4", "4", "0", "null"}},
		{"shiftrightunsigned int", bin("ShiftRightUnsigned", "integer", col(0, "integer"), col(1, "integer")),
			[]in{{"integer", []any{-1, 8}}, {"integer", []any{28, 32}}}, []string{"15", "8"}},
		{"shiftleft int", bin("ShiftLeft", "integer", col(0, "integer"), col(1, "integer")),
			[]in{{"integer", []any{1, 1, 3}}, {"integer", []any{31, 33, nil}}}, []string{"-2147483648", "2", "null"}},
		// grouping(col) over a grouping id: cast((gid >> 1) & 1 as tinyint).
		{"grouping", castJSON(bin("BitwiseAnd", "long", bin("ShiftRight", "long", col(0, "long"), litInt(1)),
			lit("long", "1")), "byte", "ANSI"),
			[]in{{"long", []any{0, 1, 2, 3, nil}}}, []string{"0", "0", "1", "1", "null"}},
		{"null literal", bin("ShiftRight", "long", col(0, "long"), lit("integer", "null")),
			[]in{{"long", []any{1, 2}}}, []string{"null", "null"}},
	}
	for _, c := range cases {
		var arrs []arrow.Array
		for _, x := range c.cols {
			arrs = append(arrs, column(t, x.typ, x.vals...))
		}
		got, err := run(t, c.js, arrs...)
		expectRows(t, c.name, got, err, c.want...)
	}
	if _, err := Translate(parse(t, bin("ShiftRight", "long", col(0, "long"), col(1, "long"))), nil); err == nil {
		t.Errorf("a long shift amount must be refused")
	}
}
