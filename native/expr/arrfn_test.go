package expr

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

// arrShow renders row i of a, lists as [e1, e2] and structs as {f1, f2}.
func arrShow(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case listArray:
		o := listOffsets(x)
		var parts []string
		for k := o[i]; k < o[i+1]; k++ {
			parts = append(parts, arrShow(x.ListValues(), int(k)))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *array.Struct:
		var parts []string
		for f := 0; f < x.NumField(); f++ {
			parts = append(parts, arrShow(x.Field(f), i))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return show(a, i)
}

// arrRun is run rendering nested results with arrShow.
func arrRun(t testing.TB, js string, cols ...arrow.Array) ([]string, error) {
	t.Helper()
	e := mustTranslate(t, js)
	ctx := newCtx()
	b := batch(cols...)
	if len(cols) == 0 {
		b = columnar.NewBatch(nil, 1)
	}
	out, err := e.Eval(ctx, b)
	if err != nil {
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%s: %d bytes leaked on error", e, ctx.Alloc.Used())
		}
		return nil, err
	}
	if want := e.Type().Arrow(); !arrow.TypeEqual(out.DataType(), want) {
		t.Fatalf("%s: result type %s, want %s", e, out.DataType(), want)
	}
	if v, ok := out.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			t.Fatalf("%s: invalid result: %v", e, err)
		}
	}
	rows := make([]string, out.Len())
	for i := range rows {
		rows[i] = arrShow(out, i)
	}
	out.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
	}
	return rows, nil
}

// arrNodeT is node with a nested result type given as Spark's type JSON.
func arrNodeT(class, typeJSON string, fields ...string) string {
	var fs []string
	for i := 0; i+1 < len(fields); i += 2 {
		fs = append(fs, fmt.Sprintf("%q:%s", fields[i], fields[i+1]))
	}
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{%s}}`, pkg+class, typeJSON, strings.Join(fs, ","))
}

var negZero = math.Copysign(0, -1)

func TestArraySetOps(t *testing.T) {
	nan := math.NaN()
	a := listColumn(t, arrDoubleJSON, []any{0.0, negZero, nan, nan, nil, nil, 1.0}, nil, []any{}, []any{2.0, 2.0})
	got, err := arrRun(t, arrNodeT("ArrayDistinct", arrDoubleJSON, "child", nestedCol(0, arrDoubleJSON)), a)
	expectRows(t, "array_distinct", got, err, "[0, -0.0, NaN, null, 1]", "null", "[]", "[2]")

	l := listColumn(t, arrIntJSON, []any{3, 1, 2, 2, nil}, []any{1, nil}, nil, []any{3, 1, nil, nil, 3}, []any{})
	r := listColumn(t, arrIntJSON, []any{2, 3, nil}, []any{nil, 2, 1}, []any{1}, []any{1}, []any{})
	bin := func(class string) string {
		return arrNodeT(class, arrIntJSON, "left", nestedCol(0, arrIntJSON), "right", nestedCol(1, arrIntJSON))
	}
	got, err = arrRun(t, bin("ArrayUnion"), l, r)
	expectRows(t, "array_union", got, err, "[3, 1, 2, null]", "[1, null, 2]", "null", "[3, 1, null]", "[]")
	got, err = arrRun(t, bin("ArrayIntersect"), l, r)
	expectRows(t, "array_intersect", got, err, "[3, 2, null]", "[1, null]", "null", "[1]", "[]")
	got, err = arrRun(t, bin("ArrayExcept"), l, r)
	expectRows(t, "array_except", got, err, "[1]", "[]", "null", "[3, null]", "[]")
	got, err = arrRun(t, node("ArraysOverlap", "boolean", "left", nestedCol(0, arrIntJSON), "right", nestedCol(1, arrIntJSON)), l, r)
	expectRows(t, "arrays_overlap", got, err, "true", "true", "null", "true", "false")

	dl := listColumn(t, arrDoubleJSON, []any{negZero}, []any{nan}, []any{1.0, nil}, []any{1.0}, []any{nil})
	dr := listColumn(t, arrDoubleJSON, []any{0.0}, []any{nan}, []any{2.0}, []any{}, []any{nil})
	got, err = arrRun(t, node("ArraysOverlap", "boolean", "left", nestedCol(0, arrDoubleJSON), "right", nestedCol(1, arrDoubleJSON)), dl, dr)
	expectRows(t, "arrays_overlap doubles", got, err, "false", "true", "null", "false", "null")
	got, err = arrRun(t, arrNodeT("ArrayUnion", arrDoubleJSON, "left", nestedCol(0, arrDoubleJSON), "right", nestedCol(1, arrDoubleJSON)), dl, dr)
	expectRows(t, "array_union doubles", got, err, "[-0.0, 0]", "[NaN]", "[1, null, 2]", "[1]", "[null]")

	s := listColumn(t, arrStrJSON, []any{"ü€", "a", "ü€", nil, ""}, []any{"😀", "😀"})
	got, err = arrRun(t, arrNodeT("ArrayDistinct", arrStrJSON, "child", nestedCol(0, arrStrJSON)), s)
	expectRows(t, "array_distinct strings", got, err, "[ü€, a, null, ]", "[😀]")
}

func TestArrayRemove(t *testing.T) {
	nan := math.NaN()
	a := listColumn(t, arrDoubleJSON, []any{negZero, 0.0, nan, nil}, []any{nan, 1.0}, nil)
	got, err := arrRun(t, arrNodeT("ArrayRemove", arrDoubleJSON, "left", nestedCol(0, arrDoubleJSON), "right", litDouble(0)), a)
	expectRows(t, "array_remove 0.0", got, err, "[NaN, null]", "[NaN, 1]", "null")
	got, err = arrRun(t, arrNodeT("ArrayRemove", arrDoubleJSON, "left", nestedCol(0, arrDoubleJSON), "right", litDouble(nan)), a)
	expectRows(t, "array_remove NaN", got, err, "[-0.0, 0, null]", "[1]", "null")
	s := listColumn(t, arrStrJSON, []any{"ü€", "a", nil}, []any{"b"})
	v := column(t, "string", "ü€", nil)
	got, err = arrRun(t, arrNodeT("ArrayRemove", arrStrJSON, "left", nestedCol(0, arrStrJSON), "right", col(1, "string")), s, v)
	expectRows(t, "array_remove strings", got, err, "[a, null]", "null")
}

func TestSortArray(t *testing.T) {
	nan := math.NaN()
	a := listColumn(t, arrDoubleJSON, []any{0.0, negZero, 0.0, nan, nil, -1.0}, nil, []any{})
	asc := func(b string) string {
		return arrNodeT("SortArray", arrDoubleJSON, "base", nestedCol(0, arrDoubleJSON), "ascendingOrder", lit("boolean", b))
	}
	got, err := arrRun(t, asc("true"), a)
	expectRows(t, "sort_array asc", got, err, "[null, -1, 0, -0.0, 0, NaN]", "null", "[]")
	got, err = arrRun(t, asc("false"), a)
	expectRows(t, "sort_array desc", got, err, "[NaN, 0, -0.0, 0, -1, null]", "null", "[]")
	s := listColumn(t, arrStrJSON, []any{"b", "ü€", "a", nil, "ü"})
	got, err = arrRun(t, arrNodeT("SortArray", arrStrJSON, "base", nestedCol(0, arrStrJSON), "ascendingOrder", lit("boolean", "true")), s)
	expectRows(t, "sort_array strings", got, err, "[null, a, b, ü, ü€]")
}

func TestSliceFlattenRepeat(t *testing.T) {
	a := listColumn(t, arrIntJSON, []any{1, 2, 3, 4}, nil, []any{}, []any{1, nil, 3})
	sl := func(s, l int64) string {
		return arrNodeT("Slice", arrIntJSON, "x", nestedCol(0, arrIntJSON), "start", litInt(s), "length", litInt(l))
	}
	got, err := arrRun(t, sl(-2, 5), a)
	expectRows(t, "slice -2 5", got, err, "[3, 4]", "null", "[]", "[null, 3]")
	got, err = arrRun(t, sl(2, 2), a)
	expectRows(t, "slice 2 2", got, err, "[2, 3]", "null", "[]", "[null, 3]")
	got, err = arrRun(t, sl(5, 1), a)
	expectRows(t, "slice 5 1", got, err, "[]", "null", "[]", "[]")
	got, err = arrRun(t, sl(-5, 2), a)
	expectRows(t, "slice -5 2", got, err, "[]", "null", "[]", "[]")
	expectRefused(t, "slice 0", sl(0, 1), "start 0")
	expectRefused(t, "slice negative length", sl(1, -1), "negative length")

	aaJSON := `{"type":"array","elementType":` + arrIntJSON + `,"containsNull":true}`
	_ = aaJSON
	got, err = arrRun(t, arrNodeT("ArrayRepeat", arrStrJSON, "left", col(0, "string"), "right", col(1, "integer")),
		column(t, "string", "ü€", nil, "x", "y"), column(t, "integer", 2, 3, nil, -1))
	expectRows(t, "array_repeat", got, err, "[ü€, ü€]", "[null, null, null]", "null", "[]")
}

func TestArrayInsert(t *testing.T) {
	a := listColumn(t, arrIntJSON, []any{1, 2, 3}, nil, []any{})
	ins := func(pos int64, legacy bool) string {
		return arrNodeT("ArrayInsert", arrIntJSON, "srcArrayExpr", nestedCol(0, arrIntJSON), "posExpr", litInt(pos),
			"itemExpr", litInt(9), "legacyNegativeIndex", fmt.Sprint(legacy))
	}
	cases := []struct {
		pos    int64
		legacy bool
		want   []string
	}{
		{-1, false, []string{"[1, 2, 3, 9]", "null", "[9]"}},
		{6, false, []string{"[1, 2, 3, null, null, 9]", "null", "[null, null, null, null, null, 9]"}},
		{-6, false, []string{"[9, null, null, 1, 2, 3]", "null", "[9, null, null, null, null, null]"}},
		{1, false, []string{"[9, 1, 2, 3]", "null", "[9]"}},
		{-1, true, []string{"[1, 2, 9, 3]", "null", "[9, null]"}},
		{-6, true, []string{"[9, null, null, null, 1, 2, 3]", "null", "[9, null, null, null, null, null, null]"}},
	}
	for _, c := range cases {
		got, err := arrRun(t, ins(c.pos, c.legacy), a)
		expectRows(t, fmt.Sprintf("array_insert %d legacy=%t", c.pos, c.legacy), got, err, c.want...)
	}
	expectRefused(t, "array_insert 0", ins(0, false), "position 0")
}

func TestArrayJoin(t *testing.T) {
	s := listColumn(t, arrStrJSON, []any{"ü€", nil, "a", ""}, nil, []any{}, []any{nil}, []any{"x"})
	d := column(t, "string", ", ", "-", "-", "😀", nil)
	got, err := arrRun(t, node("ArrayJoin", "string", "array", nestedCol(0, arrStrJSON), "delimiter", col(1, "string"),
		"nullReplacement", "null"), s, d)
	expectRows(t, "array_join", got, err, "ü€, a, ", "null", "", "", "null")
	got, err = arrRun(t, node("ArrayJoin", "string", "array", nestedCol(0, arrStrJSON), "delimiter", col(1, "string"),
		"nullReplacement", litStr("∅")), s, d)
	expectRows(t, "array_join replaced", got, err, "ü€, ∅, a, ", "null", "", "∅", "null")
	got, err = arrRun(t, node("ArrayJoin", "string", "array", nestedCol(0, arrStrJSON), "delimiter", litStr("|"),
		"nullReplacement", lit("string", "null")), s)
	expectRows(t, "array_join null replacement", got, err, "null", "null", "null", "null", "null")
}

func TestArraysZip(t *testing.T) {
	a := listColumn(t, arrIntJSON, []any{1, 2, 3}, nil, []any{}, []any{nil})
	s := listColumn(t, arrStrJSON, []any{"ü€"}, []any{"x"}, []any{}, []any{"a", "b"})
	zt := `{"type":"array","elementType":{"type":"struct","fields":[` +
		`{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]},"containsNull":false}`
	got, err := arrRun(t, arrNodeT("ArraysZip", zt, "children", "["+nestedCol(0, arrIntJSON)+","+nestedCol(1, arrStrJSON)+"]",
		"names", "["+litStr("a")+","+litStr("b")+"]"), a, s)
	expectRows(t, "arrays_zip", got, err, "[{1, ü€}, {2, null}, {3, null}]", "null", "[]", "[{null, a}, {null, b}]")
}

const mapStrIntJSON = `{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`

func TestCreateMap(t *testing.T) {
	k1 := column(t, "string", "a", "ü€", "x")
	k2 := column(t, "string", "b", "ü€", "y")
	v := column(t, "integer", 1, 2, nil)
	js := arrNodeT("CreateMap", mapStrIntJSON, "children", "["+col(0, "string")+","+col(2, "integer")+","+
		col(1, "string")+","+litInt(7)+"]", "useStringTypeWhenEmpty", "false")
	_, err := arrRun(t, js, k1, k2, v)
	expectSparkError(t, "map duplicate key", err, "DUPLICATED_MAP_KEY", map[string]string{"key": "ü€"})
	e, terr := Translate(parse(t, js), &plan.Conf{Settings: map[string]string{"spark.sql.mapKeyDedupPolicy": "LAST_WIN"}})
	if terr != nil {
		t.Fatal(terr)
	}
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(k1, k2, v))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	var got []string
	for i := 0; i < out.Len(); i++ {
		got = append(got, arrShow(out, i))
	}
	expectRows(t, "map last win", got, nil, "[{a, 1}, {b, 7}]", "[{ü€, 7}]", "[{x, null}, {y, 7}]")
	nk := column(t, "string", "a", nil, "c")
	_, err = arrRun(t, js, nk, k2, v)
	expectSparkError(t, "map null key", err, "NULL_MAP_KEY", nil)
	expectRefused(t, "map double keys", arrNodeT("CreateMap", `{"type":"map","keyType":"double","valueType":"integer","valueContainsNull":true}`,
		"children", "["+litDouble(1)+","+litInt(1)+"]", "useStringTypeWhenEmpty", "false"), "double keys")
}

// arrMapColumn builds a map<string,int> column; a nil row is a null map, a nil value a null value.
func arrMapColumn(t testing.TB, rows ...[][2]any) arrow.Array {
	t.Helper()
	mb := array.NewMapBuilder(memory.NewTaskAllocator(nil), arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, false)
	defer mb.Release()
	kb, ib := mb.KeyBuilder().(*array.StringBuilder), mb.ItemBuilder().(*array.Int32Builder)
	for _, r := range rows {
		if r == nil {
			mb.AppendNull()
			continue
		}
		mb.Append(true)
		for _, kv := range r {
			kb.Append(kv[0].(string))
			if kv[1] == nil {
				ib.AppendNull()
			} else {
				ib.Append(int32(kv[1].(int)))
			}
		}
	}
	a := mb.NewArray()
	t.Cleanup(a.Release)
	return a
}

func TestMapEntriesAndConcat(t *testing.T) {
	m1 := arrMapColumn(t, [][2]any{{"a", 1}, {"ü€", nil}}, nil, [][2]any{}, [][2]any{{"x", 1}})
	m2 := arrMapColumn(t, [][2]any{{"b", 2}}, [][2]any{{"c", 3}}, [][2]any{{"d", 4}}, [][2]any{{"x", 2}, {"y", 3}})
	entT := `{"type":"array","elementType":{"type":"struct","fields":[` +
		`{"name":"key","type":"string","nullable":false,"metadata":{}},{"name":"value","type":"integer","nullable":true,"metadata":{}}]},"containsNull":false}`
	got, err := arrRun(t, arrNodeT("MapEntries", entT, "child", nestedCol(0, mapStrIntJSON)), m1)
	expectRows(t, "map_entries", got, err, "[{a, 1}, {ü€, null}]", "null", "[]", "[{x, 1}]")
	concat := arrNodeT("MapConcat", mapStrIntJSON, "children", "["+nestedCol(0, mapStrIntJSON)+","+nestedCol(1, mapStrIntJSON)+"]")
	_, err = arrRun(t, concat, m1, m2)
	expectSparkError(t, "map_concat duplicate", err, "DUPLICATED_MAP_KEY", map[string]string{"key": "x"})
	e, terr := Translate(parse(t, concat), &plan.Conf{Settings: map[string]string{"spark.sql.mapKeyDedupPolicy": "LAST_WIN"}})
	if terr != nil {
		t.Fatal(terr)
	}
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(m1, m2))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for i := 0; i < out.Len(); i++ {
		got = append(got, arrShow(out, i))
	}
	out.Release()
	expectRows(t, "map_concat last win", got, nil, "[{a, 1}, {ü€, null}, {b, 2}]", "null", "[{d, 4}]", "[{x, 2}, {y, 3}]")
	if ctx.Alloc.Used() != 0 {
		t.Errorf("map_concat: %d bytes leaked", ctx.Alloc.Used())
	}
}

func TestFlatten(t *testing.T) {
	aaJSON := `{"type":"array","elementType":` + arrIntJSON + `,"containsNull":true}`
	lb := array.NewListBuilder(memory.NewTaskAllocator(nil), arrow.ListOf(arrow.PrimitiveTypes.Int32))
	defer lb.Release()
	inner := lb.ValueBuilder().(*array.ListBuilder)
	ib := inner.ValueBuilder().(*array.Int32Builder)
	// [[1, 2], [], [null]] | null | [[3], null] | []
	lb.Append(true)
	inner.Append(true)
	ib.AppendValues([]int32{1, 2}, nil)
	inner.Append(true)
	inner.Append(true)
	ib.AppendNull()
	lb.AppendNull()
	lb.Append(true)
	inner.Append(true)
	ib.Append(3)
	inner.AppendNull()
	lb.Append(true)
	a := lb.NewArray()
	defer a.Release()
	got, err := arrRun(t, arrNodeT("Flatten", arrIntJSON, "child", nestedCol(0, aaJSON)), a)
	expectRows(t, "flatten", got, err, "[1, 2, null]", "null", "null", "[]")
}
