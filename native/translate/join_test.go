package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

const catPlans = "org.apache.spark.sql.catalyst.plans."

// joinChild is a node that stays in Spark (for the build side, the broadcast exchange) with output
// (key string, val long) of the given exprIds; input >= 0 makes it the task's input stream.
func joinChild(id int, name string, keyID, valID int64, input int) map[string]any {
	c := map[string]any{"id": id, "class": "org.apache.spark.sql.execution.exchange.BroadcastExchangeExec",
		"nodeName": "BroadcastExchange", "output": []any{outAttr(name+"k", "string", keyID), outAttr(name+"v", "long", valID)},
		"fields": map[string]any{}, "children": []any{}}
	if input >= 0 {
		c["input"] = input
	}
	return c
}

// bhjPlan is BroadcastHashJoinExec(leftKeys [lk], rightKeys [rk], joinType, buildSide,
// condition, left (lk#1, lv#2), right (rk#3, rv#4), isNullAwareAntiJoin) as the encoder sends it:
// every expression bound to left.output ++ right.output. joinType is a case object's name, or
// "ExistenceJoin" for ExistenceJoin(exists#5).
func bhjPlan(joinType, buildSide string, cond any, inputs bool) map[string]any {
	in := func(i int) int {
		if inputs {
			return i
		}
		return -1
	}
	left, right := joinChild(1, "l", 1, 2, in(0)), joinChild(2, "r", 3, 4, in(1))
	l := []any{outAttr("lk", "string", 1), outAttr("lv", "long", 2)}
	r := []any{outAttr("rk", "string", 3), outAttr("rv", "long", 4)}
	nullable := func(as []any) []any {
		out := make([]any, len(as))
		for i, a := range as {
			m := map[string]any{}
			for k, v := range a.(map[string]any) {
				m[k] = v
			}
			m["nullable"] = true
			out[i] = m
		}
		return out
	}
	var output []any
	var jt any = joinType
	switch joinType {
	case "Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSingle":
		output = append(append(output, l...), r...)
		if joinType == "LeftOuter" {
			output = append(append([]any{}, l...), nullable(r)...)
		}
		if joinType == "RightOuter" {
			output = append(nullable(l), r...)
		}
	case "ExistenceJoin":
		exists := map[string]any{"class": catExpr + "AttributeReference", "dataType": "boolean", "nullable": false,
			"deterministic": true, "fields": map[string]any{"name": "exists"}, "exprId": 5, "ordinal": -1, "name": "exists"}
		jt = map[string]any{"class": catPlans + "ExistenceJoin", "fields": map[string]any{"exists": exists}}
		output = append(append(output, l...), map[string]any{"name": "exists", "exprId": 5, "dataType": "boolean", "nullable": false})
	default:
		output = l
	}
	return map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.joins.BroadcastHashJoinExec",
		"nodeName": "BroadcastHashJoin", "output": output,
		"fields": map[string]any{
			"leftKeys":  []any{aref("lk", "string", 1, 0)},
			"rightKeys": []any{aref("rk", "string", 3, 2)},
			"joinType":  jt, "buildSide": buildSide, "condition": cond, "isNullAwareAntiJoin": false},
		"children": []any{left, right}}
}

// lvLessRv is the condition lv < rv, bound to left.output ++ right.output.
func lvLessRv() map[string]any {
	return map[string]any{"class": catExpr + "LessThan", "dataType": "boolean", "nullable": true, "deterministic": true,
		"fields": map[string]any{"left": aref("lv", "long", 2, 1), "right": aref("rv", "long", 4, 3)}}
}

func TestBroadcastHashJoinTranslation(t *testing.T) {
	native := []struct{ joinType, build string }{
		{"Inner", "BuildRight"}, {"Inner", "BuildLeft"}, {"Cross", "BuildRight"}, {"LeftOuter", "BuildRight"},
		{"RightOuter", "BuildLeft"}, {"LeftSemi", "BuildRight"}, {"LeftAnti", "BuildRight"},
		{"ExistenceJoin", "BuildRight"},
	}
	for _, c := range native {
		for _, cond := range []any{nil, lvLessRv()} {
			d := rootDecision(t, decode(t, bhjPlan(c.joinType, c.build, cond, false)), plan.Conf{})
			if !d.Native || d.Name != "BolideBroadcastHashJoin" {
				t.Errorf("%s %s cond=%v: %+v", c.joinType, c.build, cond != nil, d)
			}
		}
	}

	edit := func(p map[string]any, f func(fields map[string]any)) map[string]any {
		f(p["fields"].(map[string]any))
		return p
	}
	refusals := []struct {
		name string
		plan map[string]any
		conf plan.Conf
		want string
	}{
		{"disabled", bhjPlan("Inner", "BuildRight", nil, false),
			plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.broadcastHashJoin.enabled": false}},
			"BroadcastHashJoinExec is disabled by spark.bolide.exec.broadcastHashJoin.enabled=false"},
		{"null-aware anti join", edit(bhjPlan("LeftAnti", "BuildRight", nil, false), func(f map[string]any) {
			f["isNullAwareAntiJoin"] = true
		}), plan.Conf{}, "null-aware anti joins (NOT IN subqueries) are not supported natively yet"},
		{"left single", bhjPlan("LeftSingle", "BuildRight", nil, false), plan.Conf{}, "LeftSingle joins"},
		{"full outer", bhjPlan("FullOuter", "BuildRight", nil, false), plan.Conf{},
			"FullOuter joins are not supported by a native broadcast hash join"},
		{"semi building left", bhjPlan("LeftSemi", "BuildLeft", nil, false), plan.Conf{}, "LeftSemi cannot use BuildLeft"},
		{"left outer building left", bhjPlan("LeftOuter", "BuildLeft", nil, false), plan.Conf{}, "LeftOuter cannot use BuildLeft"},
		{"key types differ", edit(bhjPlan("Inner", "BuildRight", nil, false), func(f map[string]any) {
			f["rightKeys"] = []any{aref("rv", "long", 4, 3)}
		}), plan.Conf{}, "join key 0 is string on the left and long on the right"},
		{"collated key", edit(bhjPlan("Inner", "BuildRight", nil, false), func(f map[string]any) {
			f["leftKeys"] = []any{aref("lk", "string collate UTF8_LCASE", 1, 0)}
			f["rightKeys"] = []any{aref("rk", "string collate UTF8_LCASE", 3, 2)}
		}), plan.Conf{}, "not supported natively"},
		{"left key from the right side", edit(bhjPlan("Inner", "BuildRight", nil, false), func(f map[string]any) {
			f["leftKeys"] = []any{aref("rk", "string", 3, 2)}
		}), plan.Conf{}, "left join key 0 reads a column its side does not output"},
		{"unsupported condition", bhjPlan("Inner", "BuildRight", map[string]any{"class": catExpr + "Rand",
			"dataType": "boolean", "nullable": false, "fields": map[string]any{}}, false), plan.Conf{},
			"expression Rand is not supported natively"},
		{"unknown build side", edit(bhjPlan("Inner", "BuildRight", nil, false), func(f map[string]any) {
			f["buildSide"] = "BuildMiddle"
		}), plan.Conf{}, `unknown build side "BuildMiddle"`},
	}
	for _, r := range refusals {
		if d := rootDecision(t, decode(t, r.plan), r.conf); d.Native || !strings.Contains(d.Reason, r.want) {
			t.Errorf("%s: got %+v, want reason %q", r.name, d, r.want)
		}
	}
}

// runJoinBlock builds the join block over inputs 0 (left) and 1 (right) as a task would, runs it
// and returns its rows.
func runJoinBlock(t *testing.T, p map[string]any, left, right func(*memory.TaskAllocator) []*columnar.Batch) []string {
	t.Helper()
	op, err := Build(decode(t, p), &plan.Conf{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	alloc := memory.NewTaskAllocator(nil)
	ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: 3},
		Inputs: []exec.InputSource{&input{batches: left(alloc)}, &input{batches: right(alloc)}}}
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

// The wire form drives the join end to end: keys bound across the children, the condition rebound
// to the pairs, the output per join type, and either side as the build side.
func TestBroadcastHashJoinBlocksRun(t *testing.T) {
	left := func(a *memory.TaskAllocator) []*columnar.Batch {
		return []*columnar.Batch{
			kvBatch(a, []string{"a", "b", ""}, []bool{true, true, false}, []int64{1, 2, 3}),
			kvBatch(a, []string{"c", "a"}, nil, []int64{4, 5}),
		}
	}
	right := func(a *memory.TaskAllocator) []*columnar.Batch {
		return []*columnar.Batch{
			kvBatch(a, []string{"a", "a", "b"}, nil, []int64{3, 9, 1}),
			kvBatch(a, []string{""}, []bool{false}, []int64{0}),
		}
	}
	cases := []struct {
		joinType, build string
		cond            any
		want            string
	}{
		{"Inner", "BuildRight", nil, "a 1 a 3; a 1 a 9; b 2 b 1; a 5 a 3; a 5 a 9"},
		{"Inner", "BuildLeft", lvLessRv(), "a 1 a 3; a 1 a 9; a 5 a 9"},
		{"LeftOuter", "BuildRight", lvLessRv(),
			"a 1 a 3; a 1 a 9; b 2 (null) (null); (null) 3 (null) (null); c 4 (null) (null); a 5 a 9"},
		{"RightOuter", "BuildLeft", lvLessRv(), "a 1 a 3; a 1 a 9; a 5 a 9; (null) (null) b 1; (null) (null) (null) 0"},
		{"LeftSemi", "BuildRight", lvLessRv(), "a 1; a 5"},
		{"LeftAnti", "BuildRight", nil, "(null) 3; c 4"},
		{"ExistenceJoin", "BuildRight", lvLessRv(), "a 1 true; b 2 false; (null) 3 false; c 4 false; a 5 true"},
	}
	for _, c := range cases {
		got := strings.Join(runJoinBlock(t, bhjPlan(c.joinType, c.build, c.cond, true), left, right), "; ")
		if got != c.want {
			t.Errorf("%s %s: got %s, want %s", c.joinType, c.build, got, c.want)
		}
	}
}
