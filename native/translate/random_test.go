package translate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

func exprOf(t *testing.T, m map[string]any) *plan.Expr {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var e plan.Expr
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func binExpr(class string, det bool, l, r map[string]any) map[string]any {
	return map[string]any{"class": catExpr + class, "dataType": "boolean", "nullable": true, "deterministic": det,
		"fields": map[string]any{"left": l, "right": r}}
}

func isNotNullOf(a map[string]any) map[string]any {
	return map[string]any{"class": catExpr + "IsNotNull", "dataType": "boolean", "nullable": false, "deterministic": true,
		"fields": map[string]any{"child": a}}
}

// TestFilterExecOrder checks the conjunct order of Spark 4.1's generated FilterExec code: an IS
// NOT NULL moves to just before the first other conjunct reading its column, the others go last.
func TestFilterExecOrder(t *testing.T) {
	x, y, z := aref("x", "double", 1, 0), aref("y", "double", 2, 1), aref("z", "double", 3, 2)
	lit := map[string]any{"class": catExpr + "Literal", "dataType": "double", "nullable": false, "deterministic": true,
		"fields": map[string]any{"value": map[string]any{"bits": 0}}}
	rnd := map[string]any{"class": catExpr + "Rand", "dataType": "double", "nullable": false, "deterministic": false,
		"fields": map[string]any{"child": map[string]any{"class": catExpr + "Literal", "dataType": "long",
			"nullable": false, "deterministic": true, "fields": map[string]any{"value": 1}}, "hideSeed": false}}
	draw := binExpr("LessThan", false, rnd, lit) // rand(1) < 0
	yGt := binExpr("GreaterThan", true, y, lit)  // y > 0
	xGt := binExpr("GreaterThan", true, x, lit)  // x > 0
	// Written: isnotnull(x) AND isnotnull(z) AND rand < 0 AND isnotnull(y) AND y > 0 AND x > 0
	and := func(l, r map[string]any) map[string]any { return binExpr("And", false, l, r) }
	cond := and(and(and(and(and(isNotNullOf(x), isNotNullOf(z)), draw), isNotNullOf(y)), yGt), xGt)
	steps, err := filterExecOrder(exprOf(t, cond))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		short := plan.ShortClass(s.Class)
		c, err := s.Child("child")
		if err != nil {
			c, _ = s.Child("left")
		}
		got = append(got, short+"("+plan.ShortClass(c.Class)+":"+c.Name+")")
	}
	want := "LessThan(Rand:) IsNotNull(AttributeReference:y) GreaterThan(AttributeReference:y) " +
		"IsNotNull(AttributeReference:x) GreaterThan(AttributeReference:x) IsNotNull(AttributeReference:z)"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("FilterExec order\n got %s\nwant %s", g, want)
	}

	// IS NOT NULL of an expression is refused.
	sum := map[string]any{"class": catExpr + "Add", "dataType": "double", "nullable": true, "deterministic": true,
		"fields": map[string]any{"left": x, "right": y}}
	if _, err := filterExecOrder(exprOf(t, and(isNotNullOf(sum), draw))); err == nil ||
		!strings.Contains(err.Error(), "IS NOT NULL of an expression") {
		t.Errorf("IS NOT NULL of x + y: %v", err)
	}
}
