package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/memory"
)

// lambdaVar is an encoded NamedLambdaVariable of a type given as Spark's type JSON.
func lambdaVar(name string, id int, typeJSON string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"deterministic":true,"fields":{"name":%q,"dataType":{"type":%s},"nullable":true,`+
		`"exprId":{"class":%q,"fields":{"id":%d,"jvmId":{"unsupported":"java.util.UUID"}}},"value":{"unsupported":"java.util.concurrent.atomic.AtomicReference"}}}`,
		pkg+"NamedLambdaVariable", typeJSON, name, typeJSON, pkg+"ExprId", id)
}

// lambdaJSON is an encoded LambdaFunction of body over the variables.
func lambdaJSON(body string, vars ...string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":"integer","nullable":true,"deterministic":true,"fields":{"function":%s,"arguments":[%s],"hidden":false}}`,
		pkg+"LambdaFunction", body, strings.Join(vars, ","))
}

// hof is a deterministic higher-order function node.
func hof(class, typeJSON string, fields ...string) string {
	var fs []string
	for i := 0; i+1 < len(fields); i += 2 {
		fs = append(fs, fmt.Sprintf("%q:%s", fields[i], fields[i+1]))
	}
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"deterministic":true,"fields":{%s}}`, pkg+class, typeJSON, strings.Join(fs, ","))
}

func addInt(l, r string) string { return arithJSON("Add", "integer", "ANSI", l, r) }

func TestLambdaTransform(t *testing.T) {
	arr := listColumn(t, arrIntJSON, []any{1, 2, nil}, nil, []any{}, []any{4})
	outer := column(t, "integer", 10, 20, 30, nil)
	x := lambdaVar("x", 1, `"integer"`)
	i := lambdaVar("i", 2, `"integer"`)
	js := hof("ArrayTransform", arrIntJSON, "argument", nestedCol(0, arrIntJSON),
		"function", lambdaJSON(addInt(addInt(x, i), col(1, "integer")), x, i))
	got, err := lambdaRun(t, js, arr, outer)
	expectRows(t, "transform", got, err, "[11,13,null]", "null", "[]", "[null]")
}

func TestLambdaFilterExistsForall(t *testing.T) {
	arr := listColumn(t, arrIntJSON, []any{1, 2, nil, 3}, nil, []any{}, []any{nil}, []any{5, 1})
	x := lambdaVar("x", 1, `"integer"`)
	gt := func(l, r string) string { return node("GreaterThan", "boolean", "left", l, "right", r) }
	got, err := lambdaRun(t, hof("ArrayFilter", arrIntJSON, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(gt(x, litInt(1)), x)), arr)
	expectRows(t, "filter", got, err, "[2,3]", "null", "[]", "[]", "[5]")
	ex := func(three bool) string {
		return hof("ArrayExists", `"boolean"`, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(gt(x, litInt(4)), x),
			"followThreeValuedLogic", fmt.Sprint(three))
	}
	got, err = run(t, ex(true), arr)
	expectRows(t, "exists", got, err, "null", "null", "false", "null", "true")
	got, err = run(t, ex(false), arr)
	expectRows(t, "exists legacy", got, err, "false", "null", "false", "false", "true")
	fa := hof("ArrayForAll", `"boolean"`, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(gt(x, litInt(0)), x))
	got, err = run(t, fa, arr)
	expectRows(t, "forall", got, err, "null", "null", "true", "null", "true")
}

func TestLambdaAggregate(t *testing.T) {
	arr := listColumn(t, arrIntJSON, []any{1, 2, 3}, nil, []any{}, []any{4}, []any{nil, 1})
	zero := column(t, "integer", 100, 1, 2, 3, 4)
	acc := lambdaVar("acc", 1, `"integer"`)
	x := lambdaVar("x", 2, `"integer"`)
	a := lambdaVar("a", 3, `"integer"`)
	js := hof("ArrayAggregate", `"integer"`, "argument", nestedCol(0, arrIntJSON), "zero", col(1, "integer"),
		"merge", lambdaJSON(addInt(acc, x), acc, x), "finish", lambdaJSON(addInt(a, a), a))
	got, err := run(t, js, arr, zero)
	expectRows(t, "aggregate", got, err, "212", "null", "4", "14", "null")
	over := column(t, "integer", 2147483647, 0, 0, 0, 0)
	_, err = run(t, js, arr, over)
	expectSparkError(t, "aggregate overflow", err, "ARITHMETIC_OVERFLOW", nil)
}

func TestLambdaNestedAndZip(t *testing.T) {
	arr := listColumn(t, arrIntJSON, []any{1, 2}, nil, []any{3})
	other := listColumn(t, arrIntJSON, []any{10}, []any{1}, []any{5, 6})
	x := lambdaVar("x", 1, `"integer"`)
	y := lambdaVar("y", 2, `"integer"`)
	zip := hof("ZipWith", arrIntJSON, "left", nestedCol(0, arrIntJSON), "right", nestedCol(1, arrIntJSON),
		"function", lambdaJSON(addInt(x, y), x, y))
	got, err := lambdaRun(t, zip, arr, other)
	expectRows(t, "zip_with", got, err, "[11,null]", "null", "[8,null]")
	// transform(a, x -> transform(b, y -> x + y))
	inner := hof("ArrayTransform", arrIntJSON, "argument", nestedCol(1, arrIntJSON), "function", lambdaJSON(addInt(x, y), y))
	arrArr := `{"type":"array","elementType":` + arrIntJSON + `,"containsNull":true}`
	outer := hof("ArrayTransform", arrArr, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(inner, x))
	got, err = lambdaRun(t, outer, arr, other)
	expectRows(t, "nested transform", got, err, "[[11],[12]]", "null", "[[8,9]]")
}

func TestLambdaStepwiseExists(t *testing.T) {
	// x + 1 raises on 2147483647: Spark never evaluates it after a deciding element.
	arr := listColumn(t, arrIntJSON, []any{5, 2147483647}, []any{nil, 7}, []any{0, 2147483647})
	x := lambdaVar("x", 1, `"integer"`)
	gt := node("GreaterThan", "boolean", "left", addInt(x, litInt(1)), "right", litInt(4))
	ex := hof("ArrayExists", `"boolean"`, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(gt, x), "followThreeValuedLogic", "true")
	fa := hof("ArrayForAll", `"boolean"`, "argument", nestedCol(0, arrIntJSON), "function", lambdaJSON(gt, x))
	got, err := run(t, fa, listColumn(t, arrIntJSON, []any{0, 2147483647}, []any{nil, 7}, []any{}))
	expectRows(t, "forall stepwise", got, err, "false", "null", "true")
	_, err = run(t, ex, arr)
	expectSparkError(t, "exists stepwise", err, "ARITHMETIC_OVERFLOW", nil)
	got, err = run(t, ex, listColumn(t, arrIntJSON, []any{5, 2147483647}, []any{nil, 7}, []any{}))
	expectRows(t, "exists stepwise", got, err, "true", "true", "false")
}

func TestLambdaRefusals(t *testing.T) {
	x := lambdaVar("x", 1, `"integer"`)
	nd := strings.Replace(hof("ArrayTransform", arrIntJSON, "argument", nestedCol(0, arrIntJSON),
		"function", lambdaJSON(x, x)), `"deterministic":true`, `"deterministic":false`, 1)
	if _, err := Translate(parse(t, nd), nil); err == nil {
		t.Errorf("non-deterministic transform translated")
	}
}

// lambdaRun is run for nested results, rendered by Arrow's ValueStr (a null element as "(null)").
func lambdaRun(t testing.TB, js string, cols ...arrow.Array) ([]string, error) {
	t.Helper()
	e := mustTranslate(t, js)
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(cols...))
	if err != nil {
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%s: %d bytes leaked on error", e, ctx.Alloc.Used())
		}
		return nil, err
	}
	if v, ok := out.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			t.Fatalf("%s: invalid result: %v", e, err)
		}
	}
	if want := e.Type().Arrow(); !arrow.TypeEqual(out.DataType(), want) {
		t.Fatalf("%s: result type %s, want %s", e, out.DataType(), want)
	}
	rows := make([]string, out.Len())
	for i := range rows {
		if out.IsNull(i) {
			rows[i] = "null"
		} else {
			rows[i] = out.ValueStr(i)
		}
	}
	out.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
	}
	return rows, nil
}

func TestLambdaMapZipWith(t *testing.T) {
	mapJSON := `{"type":"map","keyType":"integer","valueType":"integer","valueContainsNull":true}`
	st := parse(t, `{"class":"x","dataType":`+mapJSON+`}`)
	mt, err := st.Type()
	if err != nil {
		t.Fatal(err)
	}
	build := func(rows ...[][2]any) arrow.Array {
		mb := array.NewMapBuilderWithType(memory.NewTaskAllocator(nil), mt.Arrow().(*arrow.MapType))
		defer mb.Release()
		kb, ib := mb.KeyBuilder().(*array.Int32Builder), mb.ItemBuilder().(*array.Int32Builder)
		for _, r := range rows {
			if r == nil {
				mb.AppendNull()
				continue
			}
			mb.Append(true)
			for _, kv := range r {
				kb.Append(int32(kv[0].(int)))
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
	l := build([][2]any{{1, 10}, {2, nil}}, nil, [][2]any{}, [][2]any{{5, 1}, {5, 2}})
	r := build([][2]any{{3, 30}, {1, 11}}, [][2]any{{1, 1}}, [][2]any{{7, 7}}, [][2]any{{5, 3}, {6, 4}})
	k := lambdaVar("k", 1, `"integer"`)
	v1 := lambdaVar("v1", 2, `"integer"`)
	v2 := lambdaVar("v2", 3, `"integer"`)
	coalesce := func(a, b string) string {
		return node("Coalesce", "integer", "children", "["+a+","+b+"]")
	}
	body := addInt(addInt(coalesce(v1, litInt(0)), coalesce(v2, litInt(0))), k)
	js := hof("MapZipWith", mapJSON, "left", nestedCol(0, mapJSON), "right", nestedCol(1, mapJSON), "function", lambdaJSON(body, k, v1, v2))
	got, err := lambdaRun(t, js, l, r)
	expectRows(t, "map_zip_with", got, err, `[{"key":1,"value":22},{"key":2,"value":2},{"key":3,"value":33}]`, "null",
		`[{"key":7,"value":14}]`, `[{"key":5,"value":9},{"key":6,"value":10}]`)
}
