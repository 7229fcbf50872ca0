package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	amem "github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// nestedCol is a bound AttributeReference of a nested type given as Spark's type JSON.
func nestedCol(ord int, typeJSON string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		pkg+"AttributeReference", typeJSON, ord, ord)
}

const arrIntJSON = `{"type":"array","elementType":"integer","containsNull":true}`
const arrDoubleJSON = `{"type":"array","elementType":"double","containsNull":true}`
const arrStrJSON = `{"type":"array","elementType":"string","containsNull":true}`

// listColumn builds an array column of Spark type typeJSON; a nil row is a null array, a nil
// element a null element.
func listColumn(t testing.TB, typeJSON string, rows ...[]any) arrow.Array {
	t.Helper()
	st, err := sparktype.Parse(json.RawMessage(typeJSON))
	if err != nil {
		t.Fatal(err)
	}
	lb := array.NewBuilder(memory.NewTaskAllocator(nil), st.Arrow()).(*array.ListBuilder)
	defer lb.Release()
	vb := lb.ValueBuilder()
	for _, r := range rows {
		if r == nil {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for _, v := range r {
			switch b := vb.(type) {
			case *array.Int32Builder:
				if v == nil {
					b.AppendNull()
				} else {
					b.Append(int32(v.(int)))
				}
			case *array.Float64Builder:
				if v == nil {
					b.AppendNull()
				} else {
					b.Append(v.(float64))
				}
			case *array.StringBuilder:
				if v == nil {
					b.AppendNull()
				} else {
					b.Append(v.(string))
				}
			default:
				t.Fatalf("listColumn: element builder %T", vb)
			}
		}
	}
	a := lb.NewArray()
	t.Cleanup(a.Release)
	return a
}

func TestSize(t *testing.T) {
	arr := listColumn(t, arrIntJSON, []any{1, 2, nil}, nil, []any{})
	js := func(legacy bool) string {
		return node("Size", "integer", "child", nestedCol(0, arrIntJSON), "legacySizeOfNull", fmt.Sprint(legacy))
	}
	got, err := run(t, js(false), arr)
	expectRows(t, "size", got, err, "3", "null", "0")
	got, err = run(t, js(true), arr)
	expectRows(t, "size legacy", got, err, "3", "-1", "0")
}

func TestArraySearch(t *testing.T) {
	ints := listColumn(t, arrIntJSON, []any{1, 2, nil}, nil, []any{}, []any{nil, 3}, []any{4, 3, 3})
	contains := node("ArrayContains", "boolean", "left", nestedCol(0, arrIntJSON), "right", litInt(3))
	got, err := run(t, contains, ints)
	expectRows(t, "array_contains", got, err, "null", "null", "false", "true", "true")
	pos := node("ArrayPosition", "long", "left", nestedCol(0, arrIntJSON), "right", litInt(3))
	got, err = run(t, pos, ints)
	expectRows(t, "array_position", got, err, "0", "null", "0", "2", "2")
	nullNeedle := node("ArrayContains", "boolean", "left", nestedCol(0, arrIntJSON), "right", lit("integer", "null"))
	got, err = run(t, nullNeedle, ints)
	expectRows(t, "array_contains null", got, err, "null", "null", "null", "null", "null")

	nan, negZero := litDouble(math.NaN()), litDouble(math.Copysign(0, -1))
	dbl := listColumn(t, arrDoubleJSON, []any{1.0, 0.0}, []any{math.NaN(), 2.0})
	got, err = run(t, node("ArrayPosition", "long", "left", nestedCol(0, arrDoubleJSON), "right", nan), dbl)
	expectRows(t, "array_position NaN", got, err, "0", "1")
	got, err = run(t, node("ArrayContains", "boolean", "left", nestedCol(0, arrDoubleJSON), "right", negZero), dbl)
	expectRows(t, "array_contains -0.0", got, err, "true", "false")

	strs := listColumn(t, arrStrJSON, []any{"a", "ü€"}, []any{"b"}, nil)
	needles := column(t, "string", "ü€", nil, "x")
	got, err = run(t, node("ArrayPosition", "long", "left", nestedCol(0, arrStrJSON), "right", col(1, "string")), strs, needles)
	expectRows(t, "array_position string", got, err, "2", "null", "null")
}

func TestGetStructField(t *testing.T) {
	stJSON := `{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]}`
	st, err := sparktype.Parse(json.RawMessage(stJSON))
	if err != nil {
		t.Fatal(err)
	}
	// A null struct (row 1) whose children hold values: Arrow allows it, and the field must be null.
	a := column(t, "integer", 1, 2, nil)
	b := column(t, "string", "x", "y", "z")
	valid := amem.NewResizableBuffer(memory.NewTaskAllocator(nil))
	valid.Resize(1)
	valid.Bytes()[0] = 0b101
	d := array.NewData(st.Arrow(), 3, []*amem.Buffer{valid}, []arrow.ArrayData{a.Data(), b.Data()}, 1, 0)
	valid.Release()
	arr := array.MakeFromData(d)
	d.Release()
	defer arr.Release()
	got, err := run(t, node("GetStructField", "string", "child", nestedCol(0, stJSON), "ordinal", "1"), arr)
	expectRows(t, "s.b", got, err, "x", "null", "z")
	got, err = run(t, node("GetStructField", "integer", "child", nestedCol(0, stJSON), "ordinal", "0"), arr)
	expectRows(t, "s.a", got, err, "1", "null", "null")
	sliced := array.NewSlice(arr, 1, 3)
	defer sliced.Release()
	got, err = run(t, node("GetStructField", "string", "child", nestedCol(0, stJSON), "ordinal", "1"), sliced)
	expectRows(t, "sliced s.b", got, err, "null", "z")
}

func TestNestedArgumentRefused(t *testing.T) {
	js := node("Upper", "string", "child", nestedCol(0, arrStrJSON))
	if _, err := Translate(parse(t, js), &plan.Conf{}); err == nil {
		t.Fatal("Upper of an array translated")
	}
}

func TestArrayItem(t *testing.T) {
	ints := listColumn(t, arrIntJSON, []any{1, 2, nil}, nil, []any{}, []any{7})
	idx := column(t, "integer", 1, 0, 0, -1)
	get := node("GetArrayItem", "integer", "child", nestedCol(0, arrIntJSON), "ordinal", col(1, "integer"), "failOnError", "false")
	got, err := run(t, get, ints, idx)
	expectRows(t, "arr[i]", got, err, "2", "null", "null", "null")
	at := func(i int64) string {
		return node("ElementAt", "integer", "left", nestedCol(0, arrIntJSON), "right", litInt(i), "failOnError", "false")
	}
	got, err = run(t, at(-1), ints)
	expectRows(t, "element_at -1", got, err, "null", "null", "null", "7")
	got, err = run(t, at(2), ints)
	expectRows(t, "element_at 2", got, err, "2", "null", "null", "null")
	for _, js := range []string{at(0), node("ElementAt", "integer", "left", nestedCol(0, arrIntJSON), "right", litInt(1), "failOnError", "true"),
		node("GetArrayItem", "integer", "child", nestedCol(0, arrIntJSON), "ordinal", litInt(1), "failOnError", "true")} {
		if _, err := Translate(parse(t, js), &plan.Conf{}); err == nil {
			t.Errorf("translated a raising form: %s", js)
		}
	}
}

func TestArrayMinMax(t *testing.T) {
	ints := listColumn(t, arrIntJSON, []any{3, nil, 1, 2}, nil, []any{}, []any{nil})
	got, err := run(t, node("ArrayMin", "integer", "child", nestedCol(0, arrIntJSON)), ints)
	expectRows(t, "array_min", got, err, "1", "null", "null", "null")
	got, err = run(t, node("ArrayMax", "integer", "child", nestedCol(0, arrIntJSON)), ints)
	expectRows(t, "array_max", got, err, "3", "null", "null", "null")
	negZero := math.Copysign(0, -1)
	dbl := listColumn(t, arrDoubleJSON, []any{1.0, math.NaN(), -5.0}, []any{0.0, negZero}, []any{negZero, 0.0})
	got, err = run(t, node("ArrayMax", "double", "child", nestedCol(0, arrDoubleJSON)), dbl)
	expectRows(t, "array_max double", got, err, "NaN", "0", "-0.0")
	got, err = run(t, node("ArrayMin", "double", "child", nestedCol(0, arrDoubleJSON)), dbl)
	expectRows(t, "array_min double", got, err, "-5", "0", "-0.0")
	strs := listColumn(t, arrStrJSON, []any{"b", "ü", "a"}, []any{nil, ""})
	got, err = run(t, node("ArrayMax", "string", "child", nestedCol(0, arrStrJSON)), strs)
	expectRows(t, "array_max string", got, err, "ü", "")
}

func TestConstructors(t *testing.T) {
	a, b := column(t, "integer", 1, nil, 3), column(t, "integer", 4, 5, nil)
	arr := fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":false,"fields":{"children":[%s,%s,%s],"useStringTypeWhenEmpty":false}}`,
		pkg+"CreateArray", arrIntJSON, col(0, "integer"), col(1, "integer"), litInt(9))
	size := node("Size", "integer", "child", arr, "legacySizeOfNull", "false")
	got, err := run(t, size, a, b)
	expectRows(t, "size(array(a, b, 9))", got, err, "3", "3", "3")
	second := node("GetArrayItem", "integer", "child", arr, "ordinal", litInt(1), "failOnError", "false")
	got, err = run(t, second, a, b)
	expectRows(t, "array(a, b, 9)[1]", got, err, "4", "5", "null")
	got, err = run(t, node("ArrayMax", "integer", "child", arr), a, b)
	expectRows(t, "array_max(array(a, b, 9))", got, err, "9", "9", "9")

	stJSON := `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":false,"metadata":{}}]}`
	st := fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":false,"fields":{"children":[%s,%s,%s,%s]}}`,
		pkg+"CreateNamedStruct", stJSON, litStr("x"), col(0, "integer"), litStr("y"), litStr("ü"))
	got, err = run(t, node("GetStructField", "integer", "child", st, "ordinal", "0"), a)
	expectRows(t, "named_struct(...).x", got, err, "1", "null", "3")
	got, err = run(t, node("GetStructField", "string", "child", st, "ordinal", "1"), a)
	expectRows(t, "named_struct(...).y", got, err, "ü", "ü", "ü")
}

func TestElementAtDefaultRefused(t *testing.T) {
	js := node("ElementAt", "integer", "left", nestedCol(0, arrIntJSON), "right", litInt(1), "failOnError", "false",
		"defaultValueOutOfBound", litInt(0))
	if _, err := Translate(parse(t, js), &plan.Conf{}); err == nil {
		t.Fatal("element_at with a default value translated")
	}
}
