package expr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
)

// encoded turns test JSON into what the encoder sends for a deterministic expression tree: every
// expression numbered ("id", pre-order), deterministic, attributes with exprId 100+ordinal.
// nondeterministic names classes to mark nondeterministic (and so, as Spark does, their parents).
func encoded(t *testing.T, js string, nondeterministic ...string) *plan.Expr {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	next := 0
	var walk func(x any) bool // reports deterministic
	walk = func(x any) bool {
		det := true
		switch x := x.(type) {
		case []any:
			for _, el := range x {
				det = walk(el) && det
			}
		case map[string]any:
			_, isExpr := x["dataType"]
			if isExpr {
				x["id"] = next
				next++
			}
			for k, el := range x {
				if k != "dataType" {
					det = walk(el) && det
				}
			}
			if isExpr {
				cls, _ := x["class"].(string)
				for _, n := range nondeterministic {
					if strings.HasSuffix(cls, "."+n) {
						det = false
					}
				}
				x["deterministic"] = det
				if strings.HasSuffix(cls, ".AttributeReference") {
					x["exprId"] = 100 + x["ordinal"].(float64)
				}
			}
		}
		return det
	}
	walk(v)
	b, _ := json.Marshal(v)
	return parse(t, string(b))
}

func dispatchConf(kv ...string) *plan.Conf {
	c := &plan.Conf{Settings: map[string]string{DispatchEnabledKey: "true"}}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Settings[kv[i]] = kv[i+1]
	}
	return c
}

// A class with no translator (Spark's Sin stays in Spark: Math.sin is a HotSpot intrinsic).
func sinJSON(child string) string { return node("Sin", "double", "child", child) }

func TestDispatchDecision(t *testing.T) {
	// Dispatch off: the native refusal stands, word for word.
	_, err := TranslateOrDispatch(encoded(t, sinJSON(col(1, "double"))),
		&plan.Conf{Settings: map[string]string{DispatchEnabledKey: "false"}})
	if err == nil || err.Error() != "expression Sin is not supported natively" {
		t.Errorf("dispatch off: got %v", err)
	}
	// On by default (the JVM sends only the settings a session set).
	if x, err := TranslateOrDispatch(encoded(t, sinJSON(col(1, "double"))), &plan.Conf{}); err != nil {
		t.Errorf("dispatch by default: got %v", err)
	} else if _, ok := x.(*Dispatched); !ok {
		t.Errorf("dispatch by default: got %T", x)
	}

	// On: the expression is dispatched with its input columns, once each.
	x, err := TranslateOrDispatch(encoded(t, node("Alias", "double", "child",
		arithJSON("Add", "double", "LEGACY", sinJSON(col(2, "double")), col(2, "double")))),
		dispatchConf(ExpressionKey("Add"), "false"))
	if err != nil {
		t.Fatalf("dispatch on: %v", err)
	}
	d, ok := x.(*Dispatched)
	if !ok {
		t.Fatalf("dispatch on: got %T %s", x, x)
	}
	// The Alias is looked through (id 0); Add is id 1.
	if d.id != 1 || d.class != "Add" || d.String() != "dispatch(Add)" || len(d.ordinals) != 1 ||
		d.ordinals[0] != 2 || d.exprIDs[0] != 102 || d.typ.Name != "double" || !MayFail(d) {
		t.Errorf("dispatched %+v", d)
	}
	if got := DispatchedIn(x, mustTranslate(t, col(0, "double"))); len(got) != 1 || got[0] != "Add" {
		t.Errorf("DispatchedIn: %v", got)
	}

	// A ScalaUDF's encoders are products holding their own BoundReferences: not inputs.
	enc := `{"class":"org.apache.spark.sql.catalyst.encoders.ExpressionEncoder","fields":{"objSerializer":` +
		node("BoundReference", "integer", "ordinal", "0") + `}}`
	x, err = TranslateOrDispatch(encoded(t, node("ScalaUDF", "integer", "children", "["+col(3, "integer")+"]",
		"inputEncoders", "["+enc+"]")), dispatchConf())
	if d, ok := x.(*Dispatched); err != nil || !ok || len(d.ordinals) != 1 || d.ordinals[0] != 3 {
		t.Errorf("ScalaUDF: %v %v", x, err)
	}

	// Structs, arrays and maps of atomic types cross both ways.
	x, err = TranslateOrDispatch(encoded(t, `{"class":"`+pkg+`SizeX","dataType":{"type":"struct","fields":[{"name":"k","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}}]},"nullable":true,"fields":{"child":`+
		`{"class":"`+pkg+`AttributeReference","dataType":{"type":"array","elementType":"timestamp","containsNull":true},"nullable":true,"fields":{},"exprId":104,"ordinal":4,"name":"a"}}}`), dispatchConf())
	if d, ok := x.(*Dispatched); err != nil || !ok || len(d.ordinals) != 1 || d.ordinals[0] != 4 || !d.typ.Nested() {
		t.Errorf("nested in and out: %v %v", x, err)
	}

	// A native expression is never dispatched.
	x, err = TranslateOrDispatch(encoded(t, arithJSON("Add", "double", "LEGACY", col(0, "double"), col(1, "double"))), dispatchConf())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := x.(*Dispatched); ok {
		t.Errorf("native Add was dispatched")
	}

	// Refusals keep the native reason and say why the JVM cannot take it.
	refused := []struct {
		name string
		e    *plan.Expr
		why  string
	}{
		{"nondeterministic", encoded(t, arithJSON("Add", "double", "LEGACY", sinJSON(col(0, "double")),
			node("Rand", "double", "child", litInt(1))), "Rand"), "is not deterministic"},
		{"aggregate", encoded(t, sinJSON(node("AggregateExpression", "double", "aggregateFunction",
			node("Sum", "double", "child", col(0, "double"))))), "AggregateExpression is not evaluated row by row"},
		{"subquery", encoded(t, sinJSON(node("ScalarSubquery", "double"))), "ScalarSubquery is not evaluated row by row"},
		{"nested result of an interval", encoded(t, `{"class":"`+pkg+`ArrayRepeatX","dataType":{"type":"array","elementType":"interval","containsNull":true},"nullable":true,"fields":{"left":`+
			col(0, "integer")+`}}`), "returns array<interval>, which does not cross to the JVM"},
		{"nested input of an interval", encoded(t, node("SizeX", "integer", "child",
			`{"class":"`+pkg+`AttributeReference","dataType":{"type":"array","elementType":"interval","containsNull":true},"nullable":true,"fields":{},"ordinal":0,"name":"a"}`)),
			"input column a is array<interval>, which does not cross to the JVM"},
		{"struct with a repeated field name", encoded(t, `{"class":"`+pkg+`SizeX","dataType":{"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}},{"name":"n","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"fields":{"child":`+
			col(0, "integer")+`}}`), "returns struct<n:int,n:string>, which does not cross to the JVM"},
		{"array of a struct with a repeated field name", encoded(t, `{"class":"`+pkg+`SizeX","dataType":"integer","nullable":true,"fields":{"child":`+
			`{"class":"`+pkg+`AttributeReference","dataType":{"type":"array","elementType":{"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}},{"name":"n","type":"integer","nullable":true,"metadata":{}}]},"containsNull":true},"nullable":true,"fields":{},"exprId":105,"ordinal":0,"name":"a"}}}`),
			"input column a is array<struct<n:int,n:int>>, which does not cross to the JVM"},
		{"unbound", encoded(t, sinJSON(`{"class":"`+pkg+`AttributeReference","dataType":"double","nullable":true,"fields":{},"ordinal":-1,"name":"o"}`)),
			"attribute o is not an input column"},
		{"bound reference", encoded(t, sinJSON(node("BoundReference", "double", "ordinal", "0"))), "BoundReference"},
		{"no id", parse(t, strings.ReplaceAll(sinJSON(col(0, "double")), `"nullable":true,"fields"`, `"nullable":true,"deterministic":true,"fields"`)),
			"encoded without an id"},
	}
	for _, c := range refused {
		_, err := TranslateOrDispatch(c.e, dispatchConf())
		var u *Unsupported
		if err == nil || !errors.As(err, &u) {
			t.Errorf("%s: got %v, want a refusal", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), "not dispatched to the JVM: ") || !strings.Contains(err.Error(), c.why) ||
			!strings.Contains(err.Error(), "not supported natively") {
			t.Errorf("%s: reason %q, want the native reason and %q", c.name, err, c.why)
		}
	}
}

func TestExpressionDisabled(t *testing.T) {
	js := arithJSON("Add", "double", "LEGACY", col(0, "double"), col(1, "double"))
	_, err := Translate(encoded(t, js), &plan.Conf{Settings: map[string]string{ExpressionKey("Add"): "false"}})
	if err == nil || !strings.Contains(err.Error(), "spark.bolide.expression.Add.enabled") {
		t.Errorf("disabled Add: %v", err)
	}
	if _, err := Translate(encoded(t, js), &plan.Conf{Settings: map[string]string{ExpressionKey("Add"): "true"}}); err != nil {
		t.Errorf("enabled Add: %v", err)
	}
}

// fakeJVM stands for the JVM's NativeDispatcher: it computes sin of column 0 in Go, as an
// imported array would arrive, and records what it was sent.
type fakeJVM struct {
	calls int
	ids   []int64
	rows  int
	fail  error
}

func (f *fakeJVM) Dispatch(id int, exprIDs []int64, cols []arrow.Array, rows int) (arrow.Array, error) {
	f.calls++
	f.ids, f.rows = exprIDs, rows
	if f.fail != nil {
		return nil, f.fail
	}
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	in := cols[0].(*array.Float64)
	for i := 0; i < rows; i++ {
		if in.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(in.Value(i) * 2)
		}
	}
	return b.NewArray(), nil
}

func TestDispatchedEval(t *testing.T) {
	x, err := TranslateOrDispatch(encoded(t, sinJSON(col(1, "double"))), dispatchConf())
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx()
	b := batch(column(t, "integer", 1, nil, 3), column(t, "double", 1.5, nil, -2.0))
	if _, err := x.Eval(ctx, b); err == nil || !strings.Contains(err.Error(), "no JVM evaluator") {
		t.Errorf("without an evaluator: %v", err)
	}
	jvm := &fakeJVM{}
	ctx.Dispatch = jvm
	out, err := x.Eval(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(showAll(out), "|"); got != "3|null|-4" {
		t.Errorf("result %s", got)
	}
	out.Release()
	if jvm.calls != 1 || jvm.rows != 3 || len(jvm.ids) != 1 || jvm.ids[0] != 101 {
		t.Errorf("upcall %+v", jvm)
	}
	// The JVM's error (an exception pending) is returned as it is.
	jvm.fail = errors.New("java exception pending")
	if _, err := x.Eval(ctx, b); err != jvm.fail {
		t.Errorf("error: %v", err)
	}
	// A batch without the input column is an error, not a crash.
	if _, err := x.Eval(ctx, columnar.NewBatch([]arrow.Array{b.Cols[0], nil}, 3)); err == nil {
		t.Errorf("missing column: no error")
	}
}
