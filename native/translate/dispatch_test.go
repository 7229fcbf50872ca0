package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// With dispatch on, a Project and a Filter holding an expression without a kernel stay native and
// their decisions name the dispatched classes; off, they stay in Spark with the native reason.
func TestDecideDispatches(t *testing.T) {
	out := func(name, typ string, id int64) map[string]any {
		return map[string]any{"name": name, "exprId": id, "dataType": typ, "nullable": true}
	}
	scan := map[string]any{"id": 2, "class": "org.apache.spark.sql.execution.FileSourceScanExec",
		"nodeName": "Scan parquet", "output": []any{out("x", "double", 1)},
		"fields": map[string]any{"format": "ParquetFileFormat", "rootPaths": []any{"file:/tmp/t"},
			"requiredSchema": []any{out("x", "double", -1)}, "partitionSchema": []any{},
			"bucketed": false, "hasMetadataColumns": false, "hasDynamicPruning": false, "dataFilters": []any{}},
		"children": []any{}}
	sin := func(id int, deterministic bool) map[string]any {
		return map[string]any{"class": catExpr + "Sin", "dataType": "double", "nullable": true, "id": id,
			"deterministic": deterministic, "fields": map[string]any{"child": aref("x", "double", 1, 0)}}
	}
	project := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.ProjectExec", "nodeName": "Project",
		"output": []any{out("s", "double", 3)},
		"fields": map[string]any{"projectList": []any{map[string]any{"class": catExpr + "Alias", "dataType": "double",
			"nullable": true, "deterministic": true, "id": 4, "fields": map[string]any{"child": sin(5, true), "name": "s"}}}},
		"children": []any{scan}}
	filter := map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.FilterExec", "nodeName": "Filter",
		"output": []any{out("x", "double", 1)},
		"fields": map[string]any{"condition": map[string]any{"class": catExpr + "GreaterThan", "dataType": "boolean",
			"nullable": true, "deterministic": true, "id": 6, "fields": map[string]any{"left": sin(7, true),
				"right": map[string]any{"class": catExpr + "Literal", "dataType": "double", "nullable": false,
					"deterministic": true, "id": 8, "fields": map[string]any{"value": map[string]any{"bits": 0}}}}}},
		"children": []any{scan}}

	on := plan.Conf{Settings: map[string]string{"spark.bolide.dispatch.enabled": "true"}}
	off := plan.Conf{Settings: map[string]string{"spark.bolide.dispatch.enabled": "false"}}
	for _, c := range []struct {
		node  map[string]any
		name  string
		class string
	}{{project, "BolideProject", "Sin"}, {filter, "BolideFilter", "GreaterThan"}} {
		// Set on, and by default (the JVM sends only the settings a session set).
		for _, conf := range []plan.Conf{on, {}} {
			d := Decide(&plan.PlanRequest{Conf: conf, Plan: decode(t, c.node)}).Decisions
			top := d[len(d)-1]
			if !top.Native || top.Name != c.name || len(top.Dispatched) != 1 || top.Dispatched[0] != c.class {
				t.Errorf("%s with dispatch (settings %v): %+v", c.name, conf.Settings, top)
			}
		}
		d := Decide(&plan.PlanRequest{Conf: off, Plan: decode(t, c.node)}).Decisions
		top := d[len(d)-1]
		if top.Native || !strings.HasSuffix(top.Reason, "expression Sin is not supported natively") {
			t.Errorf("%s without dispatch: %+v", c.name, top)
		}
	}

	// Nondeterministic: not dispatched, and the reason says why.
	project["fields"].(map[string]any)["projectList"].([]any)[0].(map[string]any)["fields"].(map[string]any)["child"] = sin(5, false)
	d := Decide(&plan.PlanRequest{Conf: on, Plan: decode(t, project)}).Decisions
	if top := d[len(d)-1]; top.Native || !strings.Contains(top.Reason, "not dispatched to the JVM: Sin is not deterministic") {
		t.Errorf("nondeterministic: %+v", top)
	}
}
