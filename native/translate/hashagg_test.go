package translate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

const (
	catExpr = "org.apache.spark.sql.catalyst.expressions."
	catAgg  = "org.apache.spark.sql.catalyst.expressions.aggregate."
)

func aref(name, typ string, id int64, ordinal int) map[string]any {
	return map[string]any{"class": catExpr + "AttributeReference", "dataType": typ, "nullable": true,
		"deterministic": true, "fields": map[string]any{"name": name}, "exprId": id, "ordinal": ordinal, "name": name}
}

func aggExpr(fn map[string]any, mode string, distinct bool, filter any) map[string]any {
	return map[string]any{"class": catAgg + "AggregateExpression", "dataType": fn["dataType"], "nullable": true,
		"deterministic": true, "fields": map[string]any{"aggregateFunction": fn, "mode": mode,
			"isDistinct": distinct, "filter": filter,
			"resultId": map[string]any{"class": catExpr + "ExprId", "fields": map[string]any{"id": 9}}}}
}

func sumFn(child map[string]any) map[string]any {
	return map[string]any{"class": catAgg + "Sum", "dataType": "long", "nullable": true, "deterministic": true,
		"fields": map[string]any{"child": child, "evalContext": map[string]any{"class": catExpr + "NumericEvalContext",
			"fields": map[string]any{"evalMode": "ANSI", "allowDecimalPrecisionLoss": true}}}}
}

// aggPlan is HashAggregateExec(Partial: k, sum(v), count(*)) over an exchange that stays in Spark;
// edit adjusts the aggregate expressions before encoding.
func aggPlan(t *testing.T, edit func(aes []any) []any) *plan.Node {
	k := aref("k", "string", 1, 0)
	v := aref("v", "integer", 2, 1)
	count := map[string]any{"class": catAgg + "Count", "dataType": "long", "nullable": false, "deterministic": true,
		"fields": map[string]any{"children": []any{map[string]any{"class": catExpr + "Literal", "dataType": "integer",
			"nullable": false, "deterministic": true, "fields": map[string]any{"value": 1}}}}}
	aes := []any{aggExpr(sumFn(v), "Partial", false, nil), aggExpr(count, "Partial", false, nil)}
	if edit != nil {
		aes = edit(aes)
	}
	out := func(name, typ string, id int64) map[string]any {
		return map[string]any{"name": name, "exprId": id, "dataType": typ, "nullable": true}
	}
	root := map[string]any{
		"id": 0, "class": "org.apache.spark.sql.execution.aggregate.HashAggregateExec", "nodeName": "HashAggregate",
		"output": []any{out("k", "string", 1), out("sum", "long", 10), out("count", "long", 11)},
		"fields": map[string]any{"requiredChildDistributionExpressions": nil, "isStreaming": false,
			"numShufflePartitions": nil, "groupingExpressions": []any{k}, "aggregateExpressions": aes,
			"aggregateAttributes":      []any{aref("sum(v)", "long", 20, -1), aref("count(1)", "long", 21, -1)},
			"initialInputBufferOffset": 0,
			"resultExpressions":        []any{aref("k", "string", 1, -1), aref("sum", "long", 10, -1), aref("count", "long", 11, -1)}},
		"children": []any{map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.SomeSparkOnlyExec",
			"nodeName": "SomeSparkOnly", "output": []any{out("k", "string", 1), out("v", "integer", 2)},
			"fields": map[string]any{}, "children": []any{}}},
	}
	raw, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	var n plan.Node
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func decideAgg(t *testing.T, n *plan.Node, conf plan.Conf) plan.Decision {
	t.Helper()
	resp := Decide(&plan.PlanRequest{Conf: conf, Plan: n})
	for _, d := range resp.Decisions {
		if d.ID == 0 {
			return d
		}
	}
	t.Fatal("no decision for the aggregate")
	return plan.Decision{}
}

func TestHashAggregateTranslation(t *testing.T) {
	d := decideAgg(t, aggPlan(t, nil), plan.Conf{ANSI: true})
	if !d.Native || d.Name != "BolideHashAggregate" {
		t.Fatalf("partial sum/count refused: %+v", d)
	}

	// A distinct aggregate's input is made distinct by the aggregates Spark plans below it.
	distinct := aggPlan(t, func(a []any) []any {
		a[0].(map[string]any)["fields"].(map[string]any)["isDistinct"] = true
		return a
	})
	if d := decideAgg(t, distinct, plan.Conf{ANSI: true}); !d.Native {
		t.Errorf("partial distinct aggregate refused: %+v", d)
	}

	// FILTER clauses, PartialMerge, and a mode per function (Spark's distinct plans).
	accepted := map[string]func([]any) []any{
		"filter": func(a []any) []any {
			a[0].(map[string]any)["fields"].(map[string]any)["filter"] = aref("p", "boolean", 5, 0)
			return a
		},
		"mixed": func(a []any) []any {
			// count(*) reads rows, sum merges the buffer at column 1 (the offset).
			a[0].(map[string]any)["fields"].(map[string]any)["mode"] = "PartialMerge"
			return a
		},
	}
	for name, edit := range accepted {
		n := aggPlan(t, edit)
		if name == "mixed" {
			// the partial merge reads its long buffer at column 1 (initialInputBufferOffset)
			n.Fields["initialInputBufferOffset"] = json.RawMessage("1")
			n.Children[0].Output[1].DataType = json.RawMessage(`"long"`)
		}
		if d := decideAgg(t, n, plan.Conf{ANSI: true}); !d.Native {
			t.Errorf("%s refused: %+v", name, d)
		}
	}

	refusals := []struct {
		name string
		edit func([]any) []any
		conf plan.Conf
		want string
	}{
		{"partial and final", func(a []any) []any {
			a[1].(map[string]any)["fields"].(map[string]any)["mode"] = "Final"
			return a
		}, plan.Conf{}, "HashAggregate mixing aggregate modes Partial, Final is not supported natively"},
		{"function", func(a []any) []any {
			fn := a[0].(map[string]any)["fields"].(map[string]any)["aggregateFunction"].(map[string]any)
			fn["class"] = catAgg + "HistogramNumeric"
			return a
		}, plan.Conf{}, "aggregate function HistogramNumeric is not supported natively"},
		{"disabled", nil, plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.hashAggregate.enabled": false}},
			"HashAggregateExec is disabled by spark.bolide.exec.hashAggregate.enabled=false"},
		{"final layout", func(a []any) []any {
			for _, e := range a {
				e.(map[string]any)["fields"].(map[string]any)["mode"] = "Final"
			}
			return a
		}, plan.Conf{}, "final sum expects a long buffer at input column 0, found string"},
	}
	for _, r := range refusals {
		d := decideAgg(t, aggPlan(t, r.edit), r.conf)
		if d.Native || !strings.Contains(d.Reason, r.want) {
			t.Errorf("%s: got %+v, want reason %q", r.name, d, r.want)
		}
	}
}
