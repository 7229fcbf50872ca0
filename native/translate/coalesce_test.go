package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

func TestCoalesceTranslation(t *testing.T) {
	out := []any{map[string]any{"name": "x", "exprId": 1, "dataType": "long", "nullable": true}}
	spark := map[string]any{"id": 2, "class": "org.apache.spark.sql.execution.SomeSparkOnlyExec",
		"nodeName": "SomeSparkOnly", "output": out, "fields": map[string]any{}, "children": []any{}}
	filter := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.FilterExec", "nodeName": "Filter",
		"output": out, "fields": map[string]any{"condition": map[string]any{"class": catExpr + "IsNotNull",
			"dataType": "boolean", "nullable": false, "fields": map[string]any{"child": aref("x", "long", 1, 0)}}},
		"children": []any{spark}}
	coalesce := func(child map[string]any, n int) *plan.Node {
		return decode(t, map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.CoalesceExec",
			"nodeName": "Coalesce", "output": out, "fields": map[string]any{"numPartitions": n},
			"children": []any{child}})
	}
	if d := rootDecision(t, coalesce(filter, 3), plan.Conf{}); !d.Native || d.Name != "BolideCoalesce" {
		t.Errorf("coalesce over a native filter: %+v", d)
	}
	if d := rootDecision(t, coalesce(spark, 3), plan.Conf{}); d.Native ||
		!strings.Contains(d.Reason, "stays in Spark over SomeSparkOnly") {
		t.Errorf("coalesce over a Spark operator: %+v", d)
	}
	off := plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.coalesce.enabled": false}}
	if d := rootDecision(t, coalesce(filter, 1), off); d.Native {
		t.Errorf("disabled coalesce: %+v", d)
	}
	// A parent reads the coalesced partitions as an input: the coalesce ends its block.
	if !rules["CoalesceExec"].EndsBlock {
		t.Errorf("CoalesceExec must end its block")
	}
}
