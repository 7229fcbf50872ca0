package translate

import (
	"strings"
	"testing"
)

func TestFunctionStatus(t *testing.T) {
	cat := "org.apache.spark.sql.catalyst.expressions."
	cases := []struct {
		f    BuiltinFunction
		want string
	}{
		{BuiltinFunction{Name: "+", Class: cat + "Add", Kind: "scalar"}, fnNative},
		{BuiltinFunction{Name: "sum", Class: cat + "aggregate.Sum", Kind: "aggregate"}, fnNative},
		// An aggregate class is looked up among the aggregate functions only, and the reverse.
		{BuiltinFunction{Name: "x", Class: cat + "Sum", Kind: "scalar"}, fnDispatch},
		{BuiltinFunction{Name: "y", Class: cat + "aggregate.Add", Kind: "aggregate"}, fnSpark},
		{BuiltinFunction{Name: "nvl", Class: cat + "Nvl", Kind: "replaceable"}, fnRewritten},
		{BuiltinFunction{Name: "no_such_function", Class: cat + "NoSuchFunction", Kind: "scalar"}, fnDispatch},
		// Dispatch carries structs, arrays and maps; intervals it cannot.
		{BuiltinFunction{Name: "from_json", Class: cat + "JsonToStructs", Kind: "scalar"}, fnDispatch},
		{BuiltinFunction{Name: "make_interval", Class: cat + "MakeInterval", Kind: "scalar"}, fnSpark},
		{BuiltinFunction{Name: "sql_keywords", Class: cat + "SQLKeywords", Kind: "generator"}, fnSpark},
		// stack is a generator class that BolideGenerate runs.
		{BuiltinFunction{Name: "stack", Class: cat + "Stack", Kind: "generator"}, fnNative},
		// Always resolved before planning: the optimizer folds the current date into a literal,
		// the analyzer turns grouping_id into a column of the Expand.
		{BuiltinFunction{Name: "current_date", Class: cat + "CurrentDate", Kind: "scalar"}, fnRewritten},
		{BuiltinFunction{Name: "grouping_id", Class: cat + "GroupingID", Kind: "aggregate"}, fnRewritten},
	}
	for _, c := range cases {
		if got := functionStatus(c.f); got != c.want {
			t.Errorf("%s (%s): %q, want %q", c.f.Name, c.f.Class, got, c.want)
		}
	}
	var fns []BuiltinFunction
	for _, c := range cases {
		fns = append(fns, c.f)
	}
	doc := FunctionsDoc(fns, "4.1.3")
	if !strings.Contains(doc, "Spark 4.1.3 has 12 built-in functions") || !strings.Contains(doc, "**3 native**, 3 rewritten") ||
		!strings.Contains(doc, "3 dispatched to Spark's code") || !strings.Contains(doc, "3 run by Spark") {
		t.Errorf("counts wrong:\n%s", doc)
	}
	if !strings.Contains(doc, "| `make_interval` | MakeInterval |  | Spark: returns an interval") {
		t.Errorf("row for make_interval without its reason:\n%s", doc)
	}
	if !strings.Contains(doc, "| `+` | Add |  | native |") {
		t.Errorf("row for + missing:\n%s", doc)
	}
}
