package translate

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

func sortOrder(child map[string]any, direction, nulls string) map[string]any {
	return map[string]any{"class": catExpr + "SortOrder", "dataType": child["dataType"], "nullable": true,
		"deterministic": true, "fields": map[string]any{"child": child, "direction": direction,
			"nullOrdering": nulls, "sameOrderExpressions": []any{}}}
}

func outAttr(name, typ string, id int64) map[string]any {
	return map[string]any{"name": name, "exprId": id, "dataType": typ, "nullable": true}
}

// sparkChild is a node that stays in Spark with output (k string, v long); input marks it as the
// task's input stream 0 (for Build).
func sparkChild(id int, input bool) map[string]any {
	c := map[string]any{"id": id, "class": "org.apache.spark.sql.execution.SomeSparkOnlyExec",
		"nodeName": "SomeSparkOnly", "output": []any{outAttr("k", "string", 1), outAttr("v", "long", 2)},
		"fields": map[string]any{}, "children": []any{}}
	if input {
		c["input"] = 0
	}
	return c
}

// sortPlan is SortExec(k ASC NULLS FIRST, v DESC NULLS LAST) over sparkChild, as the JVM encodes it.
func sortPlan(global bool, input bool) map[string]any {
	return map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.SortExec", "nodeName": "Sort",
		"output": []any{outAttr("k", "string", 1), outAttr("v", "long", 2)},
		"fields": map[string]any{"sortOrder": []any{
			sortOrder(aref("k", "string", 1, 0), "Ascending", "NullsFirst"),
			sortOrder(aref("v", "long", 2, 1), "Descending", "NullsLast")},
			"global": global, "testSpillFrequency": 0},
		"children": []any{sparkChild(1, input)}}
}

// topKPlan is TakeOrderedAndProjectExec(limit, orderBy v ASC, project [v + 1 AS w]) over
// sparkChild (Spark 4.1's fields, offset included).
func topKPlan(limit, offset int, input bool) map[string]any {
	plus := map[string]any{"class": catExpr + "Alias", "dataType": "long", "nullable": true, "fields": map[string]any{
		"child": map[string]any{"class": catExpr + "Add", "dataType": "long", "nullable": true, "fields": map[string]any{
			"left": aref("v", "long", 2, 1), "right": map[string]any{"class": catExpr + "Literal", "dataType": "long",
				"nullable": false, "fields": map[string]any{"value": 1}},
			"evalContext": map[string]any{"class": catExpr + "NumericEvalContext",
				"fields": map[string]any{"evalMode": "ANSI", "allowDecimalPrecisionLoss": true}}}},
		"name": "w"}, "exprId": 3, "name": "w"}
	return map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.TakeOrderedAndProjectExec",
		"nodeName": "TakeOrderedAndProject", "output": []any{outAttr("w", "long", 3)},
		"fields": map[string]any{"limit": limit, "offset": offset,
			"sortOrder":   []any{sortOrder(aref("v", "long", 2, 1), "Ascending", "NullsFirst")},
			"projectList": []any{plus}},
		"children": []any{sparkChild(1, input)}}
}

func rootDecision(t *testing.T, n *plan.Node, conf plan.Conf) plan.Decision {
	t.Helper()
	for _, d := range Decide(&plan.PlanRequest{Conf: conf, Plan: n}).Decisions {
		if d.ID == 0 {
			return d
		}
	}
	t.Fatal("no decision for the root")
	return plan.Decision{}
}

func TestSortTranslation(t *testing.T) {
	for _, global := range []bool{true, false} {
		if d := rootDecision(t, decode(t, sortPlan(global, false)), plan.Conf{}); !d.Native || d.Name != "BolideSort" {
			t.Errorf("global=%v: %+v", global, d)
		}
	}
	if d := rootDecision(t, decode(t, topKPlan(10, 2, false)), plan.Conf{}); !d.Native || d.Name != "BolideTakeOrderedAndProject" {
		t.Errorf("take ordered: %+v", d)
	}

	refusals := []struct {
		name string
		plan map[string]any
		conf plan.Conf
		want string
	}{
		{"disabled sort", sortPlan(true, false), plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.sort.enabled": false}},
			"SortExec is disabled by spark.bolide.exec.sort.enabled=false"},
		{"disabled top-k", topKPlan(5, 0, false),
			plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.takeOrderedAndProject.enabled": false}},
			"TakeOrderedAndProjectExec is disabled by spark.bolide.exec.takeOrderedAndProject.enabled=false"},
		{"collated key", func() map[string]any {
			p := sortPlan(false, false)
			p["fields"].(map[string]any)["sortOrder"] = []any{
				sortOrder(aref("k", "string collate UTF8_LCASE", 1, 0), "Ascending", "NullsFirst")}
			return p
		}(), plan.Conf{}, "sorting by k of type string collate UTF8_LCASE is not supported natively"},
		{"unsupported key expression", func() map[string]any {
			p := topKPlan(5, 0, false)
			upper := map[string]any{"class": catExpr + "XPathString", "dataType": "string", "nullable": true,
				"fields": map[string]any{"child": aref("k", "string", 1, 0)}}
			p["fields"].(map[string]any)["sortOrder"] = []any{sortOrder(upper, "Descending", "NullsLast")}
			return p
		}(), plan.Conf{}, "expression XPathString is not supported natively"},
		{"not a sort order", func() map[string]any {
			p := sortPlan(false, false)
			p["fields"].(map[string]any)["sortOrder"] = []any{aref("k", "string", 1, 0)}
			return p
		}(), plan.Conf{}, "sort order 0 is a AttributeReference, not a SortOrder"},
	}
	for _, r := range refusals {
		if d := rootDecision(t, decode(t, r.plan), r.conf); d.Native || !strings.Contains(d.Reason, r.want) {
			t.Errorf("%s: got %+v, want reason %q", r.name, d, r.want)
		}
	}
}

// input replays batches of (k string, v long) as the JVM would deliver them.
type input struct{ batches []*columnar.Batch }

func (in *input) Next() (*columnar.Batch, error) {
	if len(in.batches) == 0 {
		return nil, nil
	}
	b := in.batches[0]
	in.batches = in.batches[1:]
	return b, nil
}

func kvBatch(alloc *memory.TaskAllocator, ks []string, kvalid []bool, vs []int64) *columnar.Batch {
	kb := array.NewStringBuilder(alloc)
	defer kb.Release()
	kb.AppendValues(ks, kvalid)
	vb := array.NewInt64Builder(alloc)
	defer vb.Release()
	vb.AppendValues(vs, nil)
	return columnar.NewBatch([]arrow.Array{kb.NewArray(), vb.NewArray()}, len(vs))
}

// runBlock builds a one-node block over input 0 as a task would, runs it and returns its rows.
func runBlock(t *testing.T, p map[string]any, batches func(*memory.TaskAllocator) []*columnar.Batch) []string {
	t.Helper()
	op, err := Build(decode(t, p), &plan.Conf{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	alloc := memory.NewTaskAllocator(nil)
	ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: 2},
		Inputs: []exec.InputSource{&input{batches: batches(alloc)}}}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for r := 0; r < b.NumRows; r++ {
			var cells []string
			for _, c := range b.Cols {
				cells = append(cells, c.ValueStr(r))
			}
			rows = append(rows, strings.Join(cells, " "))
		}
		b.Release()
	}
	op.Close()
	if used := alloc.Used(); used != 0 {
		t.Errorf("%d bytes still allocated after Close", used)
	}
	return rows
}

// The wire form drives the operators end to end: SortExec's keys and directions, and the top-k's
// limit, which in Spark 4.x already counts the offset's rows (the offset and the projection are
// Spark's to apply after its merge).
func TestSortBlocksRun(t *testing.T) {
	batches := func(a *memory.TaskAllocator) []*columnar.Batch {
		return []*columnar.Batch{
			kvBatch(a, []string{"b", "", "a"}, []bool{true, false, true}, []int64{1, 2, 3}),
			kvBatch(a, []string{"a", "b"}, nil, []int64{9, 0}),
		}
	}
	got := strings.Join(runBlock(t, sortPlan(true, true), batches), "; ")
	if want := "(null) 2; a 9; a 3; b 1; b 0"; got != want {
		t.Errorf("sort: got %s, want %s", got, want)
	}
	got = strings.Join(runBlock(t, topKPlan(3, 1, true), batches), "; ")
	if want := "b 0; b 1; (null) 2"; got != want {
		t.Errorf("top-k: got %s, want %s", got, want)
	}
}
