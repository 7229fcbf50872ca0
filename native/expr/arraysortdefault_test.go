package expr

import (
	"math"
	"testing"
)

// defaultCmp is ArraySort.defaultComparator bound over variables l and r (ids 1 and 2) of an
// element type; folded drops the null tests as the optimizer does over non-nullable elements.
func defaultCmp(elemJSON string, folded bool, lID, rID int) string {
	l, r := lambdaVar("left", lID, elemJSON), lambdaVar("right", rID, elemJSON)
	iff := func(p, t, f string) string {
		return node("If", "integer", "predicate", p, "trueValue", t, "falseValue", f)
	}
	isNull := func(x string) string { return node("IsNull", "boolean", "child", x) }
	core := iff(node("LessThan", "boolean", "left", l, "right", r), litInt(-1),
		iff(node("GreaterThan", "boolean", "left", l, "right", r), litInt(1), litInt(0)))
	body := core
	if !folded {
		body = iff(node("And", "boolean", "left", isNull(l), "right", isNull(r)), litInt(0),
			iff(isNull(l), litInt(1), iff(isNull(r), litInt(-1), core)))
	}
	return lambdaJSON(body, l, r)
}

func arraySortJSON(arrJSON, elemJSON string, fn string) string {
	return hof("ArraySort", arrJSON, "argument", nestedCol(0, arrJSON), "function", fn,
		"allowNullComparisonResult", "false")
}

func TestArraySortDefault(t *testing.T) {
	nan := math.NaN()
	a := listColumn(t, arrDoubleJSON, []any{0.0, negZero, 0.0, nan, nil, -1.0, nil, math.Inf(-1)}, nil, []any{},
		[]any{nil}, []any{nan, 2.0, nan})
	got, err := arrRun(t, arraySortJSON(arrDoubleJSON, `"double"`, defaultCmp(`"double"`, false, 1, 2)), a)
	// -0.0 equals 0.0: input order kept; NaN greatest; nulls last.
	expectRows(t, "array_sort doubles", got, err, "[-Inf, -1, 0, -0.0, 0, NaN, null, null]", "null", "[]",
		"[null]", "[2, NaN, NaN]")

	s := listColumn(t, arrStrJSON, []any{"b", "ü€", nil, "a", "", "ü"})
	got, err = arrRun(t, arraySortJSON(arrStrJSON, `"string"`, defaultCmp(`"string"`, false, 7, 8)), s)
	expectRows(t, "array_sort strings", got, err, "[, a, b, ü, ü€, null]")

	i := listColumn(t, arrIntJSON, []any{3, nil, -2147483648, 2147483647, 0})
	got, err = arrRun(t, arraySortJSON(arrIntJSON, `"integer"`, defaultCmp(`"integer"`, false, 1, 2)), i)
	expectRows(t, "array_sort ints", got, err, "[-2147483648, 0, 3, 2147483647, null]")

	// Folded null tests: accepted over arrays without nulls only.
	noNulls := `{"type":"array","elementType":"integer","containsNull":false}`
	ic := listColumn(t, noNulls, []any{3, 1, 2}, []any{})
	got, err = arrRun(t, arraySortJSON(noNulls, `"integer"`, defaultCmp(`"integer"`, true, 1, 2)), ic)
	expectRows(t, "array_sort folded", got, err, "[1, 2, 3]", "[]")
}

func TestArraySortRefused(t *testing.T) {
	expectRefused(t, "folded comparator over nullable elements",
		arraySortJSON(arrIntJSON, `"integer"`, defaultCmp(`"integer"`, true, 1, 2)), "comparator")
	// Variables swapped: a descending comparator.
	l, r := lambdaVar("left", 1, `"integer"`), lambdaVar("right", 2, `"integer"`)
	swapped := defaultCmp(`"integer"`, false, 2, 1)
	swapped = lambdaJSON(mustBody(t, swapped), l, r)
	expectRefused(t, "swapped variables", arraySortJSON(arrIntJSON, `"integer"`, swapped), "comparator")
	user := lambdaJSON(node("If", "integer", "predicate", node("LessThan", "boolean", "left", l, "right", r),
		"trueValue", litInt(1), "falseValue", litInt(-1)), l, r)
	expectRefused(t, "user comparator", arraySortJSON(arrIntJSON, `"integer"`, user), "comparator")
	arrArr := `{"type":"array","elementType":` + arrIntJSON + `,"containsNull":true}`
	expectRefused(t, "array of arrays", arraySortJSON(arrArr, arrIntJSON, defaultCmp(arrIntJSON, false, 1, 2)),
		"not supported")
}

// mustBody is the body of an encoded lambda (its "function" field).
func mustBody(t *testing.T, lambda string) string {
	t.Helper()
	e := parse(t, lambda)
	b, err := e.Raw("function")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
