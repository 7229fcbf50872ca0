package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// expandPlan is ExpandExec (a rollup over k: [k, v, k, 0], [k, v, null, 1]) over a Spark child.
func expandPlan(t *testing.T, second any) *plan.Node {
	out := func(name, typ string, id int64) map[string]any {
		return map[string]any{"name": name, "exprId": id, "dataType": typ, "nullable": true}
	}
	lit := func(typ string, v any) map[string]any {
		return map[string]any{"class": catExpr + "Literal", "dataType": typ, "nullable": v == nil,
			"deterministic": true, "fields": map[string]any{"value": v}}
	}
	k, v := aref("k", "string", 1, 0), aref("v", "integer", 2, 1)
	return decode(t, map[string]any{
		"id": 0, "class": "org.apache.spark.sql.execution.ExpandExec", "nodeName": "Expand",
		"output": []any{out("k", "string", 1), out("v", "integer", 2), out("k", "string", 3),
			out("spark_grouping_id", "long", 4)},
		"fields": map[string]any{
			"projections": []any{
				[]any{k, v, k, lit("long", 0)},
				[]any{k, v, second, lit("long", 1)},
			},
			"output": []any{aref("k", "string", 1, -1), aref("v", "integer", 2, -1), aref("k", "string", 3, -1),
				aref("spark_grouping_id", "long", 4, -1)},
		},
		"children": []any{map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.SomeSparkOnlyExec",
			"nodeName": "SomeSparkOnly", "output": []any{out("k", "string", 1), out("v", "integer", 2)},
			"fields": map[string]any{}, "children": []any{}}},
	})
}

func TestExpandTranslation(t *testing.T) {
	null := map[string]any{"class": catExpr + "Literal", "dataType": "string", "nullable": true,
		"deterministic": true, "fields": map[string]any{"value": nil}}
	if d := rootDecision(t, expandPlan(t, null), plan.Conf{}); !d.Native || d.Name != "BolideExpand" {
		t.Fatalf("rollup expand refused: %+v", d)
	}
	upper := map[string]any{"class": catExpr + "XPathString", "dataType": "string", "nullable": true,
		"fields": map[string]any{"child": aref("k", "string", 1, 0)}}
	if d := rootDecision(t, expandPlan(t, upper), plan.Conf{}); d.Native || !strings.Contains(d.Reason, "XPathString") {
		t.Errorf("unsupported projection: %+v", d)
	}
	if d := rootDecision(t, expandPlan(t, aref("v", "integer", 2, 1)), plan.Conf{}); d.Native ||
		!strings.Contains(d.Reason, "expand projection 1, column k") {
		t.Errorf("mistyped projection: %+v", d)
	}
	off := plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.expand.enabled": false}}
	if d := rootDecision(t, expandPlan(t, null), off); d.Native {
		t.Errorf("disabled expand ran: %+v", d)
	}
}
