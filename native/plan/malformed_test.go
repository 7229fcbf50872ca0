package plan_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// A field value that is malformed JSON, or well-formed JSON that is not what the accessor expects,
// must give encoding/json's error or value, never a panic or another value.

// condition returns the encoded condition of Q6's filter: a few nested expressions.
func condition(t testing.TB) []byte {
	raw, err := os.ReadFile("../translate/testdata/plan-q6.json")
	if err != nil {
		t.Fatal(err)
	}
	var r plan.PlanRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	var find func(n *plan.Node) []byte
	find = func(n *plan.Node) []byte {
		if c, ok := n.Fields["condition"]; ok && len(c) > 500 {
			return c
		}
		for _, c := range n.Children {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	c := find(r.Plan)
	if c == nil {
		t.Fatal("Q6 has no filter condition")
	}
	return c
}

var oddValues = []string{
	``, ` `, `null`, ` null `, `{}`, `[]`, `[null]`, `[{}]`, `[1]`, `"s"`, `1`, `true`, `{"class":1}`,
	`{"class":"a.B","dataType":"int"}`,
	`{"class":"a.B","class":"a.C"}`,
	`{"Class":"a.B"}`, `{"CLASS":"a.B"}`, `{"cl\u0061ss":"a.B"}`, `{"claſs":"a.B"}`,
	`{"class":"a\"B"}`, `{"class":"a\u00e9"}`, "{\"class\":\"a\xff\"}", `{"class":"\ud800"}`,
	`{"class":null,"nullable":null,"deterministic":null,"fields":null,"exprId":null,"ordinal":null,"id":null,"name":null,"dataType":null}`,
	`{"nullable":1}`, `{"nullable":"true"}`, `{"fields":[]}`, `{"fields":1}`, `{"fields":{"a":1,"a":2}}`,
	`{"fields":{"\u0061":1,"a":2}}`, `{"fields":{"a":{"class":"x.Y","fields":{"b":{"class":"x.Z"}}}}}`,
	`{"exprId":1.5}`, `{"exprId":1e3}`, `{"exprId":-0}`, `{"exprId":"1"}`, `{"exprId":99999999999999999999}`,
	`{"ordinal":9223372036854775807}`, `{"ordinal":-9223372036854775809}`, `{"id":true}`,
	`{"name":"n","fields":{"child":null}}`, `{"fields":{"child":[null,{"class":"q.R"}]}}`,
	`{"unknown":[1,2,{"x":null}],"class":"a.B"}`, `{"class":"a.B"} x`, `{"class":"a.B"}}`, `{"class" "a.B"}`,
	`{"class":"a.B",}`, `[1,]`, `[01]`, `[-]`, `[1.]`, `[1e]`, `[.5]`, `[+1]`, `[tru]`, `[nul]`, `["\x"]`,
	"[\"\t\"]", `["\u12"]`, `{"a":1 "b":2}`, `{1:2}`,
	strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000),
	`{"fields":{"c":` + strings.Repeat(`{"class":"x.A","fields":{"c":`, 50) + `null` + strings.Repeat(`}}`, 50) + `}}`,
}

func FuzzDecode(f *testing.F) {
	c := condition(f)
	for i := 0; i <= len(c); i++ {
		f.Add(c[:i]) // every truncation
	}
	for _, v := range oddValues {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := plan.Scan(raw), json.Valid(raw); got != want {
			t.Errorf("scanner accepts %q: %v, encoding/json: %v", raw, got, want)
		}
		w := walker{t: t}
		n := &plan.Node{NodeName: "N", Fields: map[string]json.RawMessage{"f": raw}}
		w.node("node", n, n)
		e := &plan.Expr{Class: "x.E", Fields: map[string]json.RawMessage{"f": raw}}
		w.expr("expr", e, e)
		// Inside an expression, raw is decoded from its parent's parse.
		wrapped := `{"class":"x.W","dataType":"int","fields":{"f":` + string(raw) + `,"g":[` + string(raw) + `]}}`
		n = &plan.Node{NodeName: "N", Fields: map[string]json.RawMessage{"w": json.RawMessage(wrapped)}}
		w.node("wrapped", n, n)
	})
}

// The scanner nests as deep as encoding/json and no deeper.
func TestScanDepth(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, doc := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth),
		} {
			if got, want := plan.Scan([]byte(doc)), json.Valid([]byte(doc)); got != want {
				t.Errorf("depth %d: scanner accepts %.10s...: %v, encoding/json: %v", depth, doc, got, want)
			}
		}
	}
}
