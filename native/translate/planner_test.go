package translate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

func decode(t *testing.T, v any) *plan.Node {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var n plan.Node
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

// Filter(x > 0) over Project(upper(s)) over Scan: the scan and filter run natively, the project
// (an unsupported expression) stays in Spark with its reason, and the filter reads it as an input.
func TestDecideGivesAReasonForEveryRefusal(t *testing.T) {
	out := func(name, typ string, id int64) map[string]any {
		return map[string]any{"name": name, "exprId": id, "dataType": typ, "nullable": true}
	}
	attrs := func(ps ...map[string]any) []any {
		r := make([]any, len(ps))
		for i, p := range ps {
			r[i] = p
		}
		return r
	}
	scan := map[string]any{"id": 2, "class": "org.apache.spark.sql.execution.FileSourceScanExec",
		"nodeName": "Scan parquet", "output": attrs(out("x", "long", 1), out("s", "string", 2)),
		"fields": map[string]any{"format": "ParquetFileFormat", "rootPaths": []any{"file:/tmp/t"},
			"requiredSchema": attrs(out("x", "long", -1), out("s", "string", -1)), "partitionSchema": []any{},
			"bucketed": false, "hasMetadataColumns": false, "hasDynamicPruning": false, "dataFilters": []any{}},
		"children": []any{}}
	upper := map[string]any{"class": catExpr + "Alias", "dataType": "string", "nullable": true, "fields": map[string]any{
		"child": map[string]any{"class": catExpr + "XPathString", "dataType": "string", "nullable": true,
			"fields": map[string]any{"child": aref("s", "string", 2, 1)}}, "name": "u"}}
	project := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.ProjectExec", "nodeName": "Project",
		"output":   attrs(out("x", "long", 1), out("u", "string", 3)),
		"fields":   map[string]any{"projectList": []any{aref("x", "long", 1, 0), upper}},
		"children": []any{scan}}
	filter := map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.FilterExec", "nodeName": "Filter",
		"output": attrs(out("x", "long", 1), out("u", "string", 3)),
		"fields": map[string]any{"condition": map[string]any{"class": catExpr + "GreaterThan", "dataType": "boolean",
			"nullable": true, "fields": map[string]any{"left": aref("x", "long", 1, 0),
				"right": map[string]any{"class": catExpr + "Literal", "dataType": "long", "nullable": false,
					"fields": map[string]any{"value": 0}}}}},
		"children": []any{project}}

	resp := Decide(&plan.PlanRequest{Plan: decode(t, filter)})
	got := map[int]plan.Decision{}
	for _, d := range resp.Decisions {
		got[d.ID] = d
	}
	if d := got[2]; !d.Native || d.Name != "BolideScan" {
		t.Errorf("scan: %+v", d)
	}
	if d := got[1]; d.Native || !strings.Contains(d.Reason, "expression XPathString is not supported natively") {
		t.Errorf("project: %+v", d)
	}
	if d := got[0]; !d.Native || d.Name != "BolideFilter" {
		t.Errorf("filter: %+v", d)
	}

	// Disabled by configuration: the reason names the key.
	conf := plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.filter.enabled": false}}
	resp = Decide(&plan.PlanRequest{Conf: conf, Plan: decode(t, filter)})
	for _, d := range resp.Decisions {
		if d.ID == 0 && (d.Native || !strings.Contains(d.Reason, "spark.bolide.exec.filter.enabled=false")) {
			t.Errorf("disabled filter: %+v", d)
		}
	}

	// Non-local files stay in Spark with a reason.
	scan["fields"].(map[string]any)["rootPaths"] = []any{"s3a://bucket/t"}
	resp = Decide(&plan.PlanRequest{Plan: decode(t, scan)})
	if d := resp.Decisions[0]; d.Native || !strings.Contains(d.Reason, `file system "s3a"`) {
		t.Errorf("s3a scan: %+v", d)
	}
}

func TestSupportDocListsRegisteredRules(t *testing.T) {
	doc := SupportDoc()
	for _, want := range []string{"| FileSourceScanExec | BolideScan |", "| HashAggregateExec | BolideHashAggregate |",
		"| Add |", "`spark.bolide.exec.filter.enabled`"} {
		if !strings.Contains(doc, want) {
			t.Errorf("support doc lacks %q", want)
		}
	}
}
