package plan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	src := `{"class":"org.apache.spark.sql.catalyst.expressions.Add","dataType":"long","nullable":true,
	  "fields":{"left":{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference","dataType":"long",
	    "nullable":true,"fields":{"name":"a"},"exprId":7,"ordinal":-1,"name":"a"},
	  "right":{"class":"org.apache.spark.sql.catalyst.expressions.Coalesce","dataType":"long","nullable":true,
	    "fields":{"children":[{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference",
	      "dataType":"long","nullable":true,"fields":{"name":"b"},"exprId":8,"ordinal":3,"name":"b"}]}},
	  "evalContext":{"class":"org.apache.spark.sql.catalyst.expressions.NumericEvalContext","fields":{"evalMode":"ANSI"}}}}`
	var e Expr
	if err := json.Unmarshal([]byte(src), &e); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(&e)
	r, err := Rebind(&e, map[int64]int{7: 1, 8: 0})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(&e)
	if string(before) != string(after) {
		t.Errorf("Rebind modified its input")
	}
	left, _ := r.Child("left")
	right, _ := r.Child("right")
	kids, _ := right.Children("children")
	if *left.Ordinal != 1 || *kids[0].Ordinal != 0 {
		t.Errorf("ordinals %d %d, want 1 0", *left.Ordinal, *kids[0].Ordinal)
	}
	if p, err := r.Product("evalContext"); err != nil || p == nil {
		t.Errorf("evalContext lost: %v", err)
	}
	if _, err := Rebind(&e, map[int64]int{7: 0}); err == nil || !strings.Contains(err.Error(), "b#8") {
		t.Errorf("unbound attribute: %v", err)
	}
}

func TestReferences(t *testing.T) {
	src := `{"class":"org.apache.spark.sql.catalyst.expressions.Add","dataType":"long","nullable":true,
	  "fields":{"left":{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference","dataType":"long",
	    "nullable":true,"fields":{"name":"a"},"exprId":7,"ordinal":4,"name":"a"},
	  "right":{"class":"org.apache.spark.sql.catalyst.expressions.Coalesce","dataType":"long","nullable":true,
	    "fields":{"children":[{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference",
	      "dataType":"long","nullable":true,"fields":{"name":"b"},"exprId":8,"ordinal":1,"name":"b"},
	      {"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference",
	      "dataType":"long","nullable":true,"fields":{"name":"a"},"exprId":7,"ordinal":4,"name":"a"},
	      {"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference",
	      "dataType":"long","nullable":true,"fields":{"name":"x"},"exprId":9,"ordinal":-1,"name":"x"}]}},
	  "evalContext":{"class":"org.apache.spark.sql.catalyst.expressions.NumericEvalContext","fields":{"evalMode":"ANSI"}}}}`
	var e Expr
	if err := json.Unmarshal([]byte(src), &e); err != nil {
		t.Fatal(err)
	}
	got, err := References(&e)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("References = %v, want [1 4]", got)
	}
}

// CaseWhen's branches are scala.Tuple2 products (no dataType) of condition and value: the
// attributes inside them are rebound and referenced like any other (a join condition built over
// a narrower batch once read them at their old positions).
func TestRebindInsideProducts(t *testing.T) {
	attr := func(name string, id, ord int) string {
		return `{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference","dataType":"long","nullable":true,` +
			`"fields":{"name":"` + name + `"},"exprId":` + itoa(id) + `,"ordinal":` + itoa(ord) + `,"name":"` + name + `"}`
	}
	src := `{"class":"org.apache.spark.sql.catalyst.expressions.CaseWhen","dataType":"long","nullable":true,
	  "fields":{"branches":[{"class":"scala.Tuple2","fields":{"_1":` + attr("c", 5, 6) + `,"_2":` + attr("v", 6, 7) + `}}],
	  "elseValue":` + attr("w", 7, 8) + `}}`
	var e Expr
	if err := json.Unmarshal([]byte(src), &e); err != nil {
		t.Fatal(err)
	}
	refs, err := References(&e)
	if err != nil || len(refs) != 3 || refs[0] != 6 || refs[2] != 8 {
		t.Fatalf("references %v (%v), want [6 7 8]", refs, err)
	}
	r, err := Rebind(&e, map[int64]int{5: 0, 6: 1, 7: 2})
	if err != nil {
		t.Fatal(err)
	}
	refs, err = References(r)
	if err != nil || len(refs) != 3 || refs[0] != 0 || refs[1] != 1 || refs[2] != 2 {
		t.Fatalf("after rebind: references %v (%v), want [0 1 2]", refs, err)
	}
	if _, err := Rebind(&e, map[int64]int{7: 0}); err == nil || !strings.Contains(err.Error(), "c#5") {
		t.Errorf("an attribute inside a branch must be bound: %v", err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
