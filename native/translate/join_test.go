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
		if joinType == "FullOuter" {
			output = append(nullable(l), nullable(r)...)
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
	naaj := bhjPlan("LeftAnti", "BuildRight", nil, false)
	naaj["fields"].(map[string]any)["isNullAwareAntiJoin"] = true
	if d := rootDecision(t, decode(t, naaj), plan.Conf{}); !d.Native {
		t.Errorf("null-aware anti join: %+v", d)
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
		{"null-aware anti join with a condition", edit(bhjPlan("LeftAnti", "BuildRight", lvLessRv(), false), func(f map[string]any) {
			f["isNullAwareAntiJoin"] = true
		}), plan.Conf{}, "a null-aware anti join with a condition"},
		{"left single", bhjPlan("LeftSingle", "BuildRight", nil, false), plan.Conf{}, "LeftSingle joins"},
		{"full outer", bhjPlan("FullOuter", "BuildRight", nil, false), plan.Conf{},
			"a broadcast hash join FullOuter building BuildRight is not supported natively"},
		{"semi building left", bhjPlan("LeftSemi", "BuildLeft", nil, false), plan.Conf{}, "LeftSemi building BuildLeft"},
		{"left outer building left", bhjPlan("LeftOuter", "BuildLeft", nil, false), plan.Conf{}, "LeftOuter building BuildLeft"},
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
			"rand draws from a per-task generator"}, // rand is refused outside a projection or filter (expr/random.go)
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

// asShuffled turns a bhjPlan into ShuffledHashJoinExec (same fields, isSkewJoin for
// isNullAwareAntiJoin) or, with smj, into SortMergeJoinExec (no build side).
func asShuffled(p map[string]any, smj bool) map[string]any {
	f := p["fields"].(map[string]any)
	delete(f, "isNullAwareAntiJoin")
	f["isSkewJoin"] = false
	p["class"], p["nodeName"] = "org.apache.spark.sql.execution.joins.ShuffledHashJoinExec", "ShuffledHashJoin"
	if smj {
		delete(f, "buildSide")
		p["class"], p["nodeName"] = "org.apache.spark.sql.execution.joins.SortMergeJoinExec", "SortMergeJoin"
	}
	return p
}

// withSortedChildren puts SortExec(key ASC) over each child of a join plan, as EnsureRequirements
// does under a sort-merge join; the sorts get ids 10 and 11.
func withSortedChildren(p map[string]any) map[string]any {
	cs := p["children"].([]any)
	for i, c := range cs {
		child := c.(map[string]any)
		out := child["output"].([]any)
		key := out[0].(map[string]any)
		cs[i] = map[string]any{"id": 10 + i, "class": "org.apache.spark.sql.execution.SortExec", "nodeName": "Sort",
			"output": out,
			"fields": map[string]any{"sortOrder": []any{
				sortOrder(aref(key["name"].(string), "string", key["exprId"].(int64), 0), "Ascending", "NullsFirst")},
				"global": false, "testSpillFrequency": 0},
			"children": []any{child}}
	}
	return p
}

func TestShuffledAndSortMergeJoinTranslation(t *testing.T) {
	shj := []struct{ joinType, build string }{
		{"Inner", "BuildRight"}, {"Inner", "BuildLeft"}, {"LeftOuter", "BuildRight"}, {"LeftOuter", "BuildLeft"},
		{"RightOuter", "BuildLeft"}, {"RightOuter", "BuildRight"}, {"FullOuter", "BuildLeft"}, {"FullOuter", "BuildRight"},
		{"LeftSemi", "BuildRight"}, {"LeftAnti", "BuildRight"}, {"ExistenceJoin", "BuildRight"},
	}
	for _, c := range shj {
		d := rootDecision(t, decode(t, asShuffled(bhjPlan(c.joinType, c.build, lvLessRv(), false), false)), plan.Conf{})
		if !d.Native || d.Name != "BolideShuffledHashJoin" {
			t.Errorf("shuffled %s %s: %+v", c.joinType, c.build, d)
		}
	}
	for _, jt := range []string{"Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "ExistenceJoin"} {
		// The build side's sort is redundant (and elided); the streamed side's stays: the join's
		// output order is the streamed side's.
		resp := Decide(&plan.PlanRequest{Plan: decode(t, withSortedChildren(asShuffled(bhjPlan(jt, "", nil, false), true)))})
		byID := map[int]plan.Decision{}
		for _, d := range resp.Decisions {
			byID[d.ID] = d
		}
		if d := byID[0]; !d.Native || d.Name != "BolideSortMergeJoin" {
			t.Errorf("sort-merge %s: %+v", jt, d)
		}
		streamed, built := 10, 11
		if jt == "RightOuter" {
			streamed, built = 11, 10
		}
		if d := byID[built]; !d.Native || !d.Elided {
			t.Errorf("sort-merge %s: the build side's sort is not elided: %+v", jt, d)
		}
		if d := byID[streamed]; !d.Native || d.Elided {
			t.Errorf("sort-merge %s: the streamed side's sort: %+v", jt, d)
		}
	}
	// A sort that stays in Spark is not elided.
	p := withSortedChildren(asShuffled(bhjPlan("Inner", "", nil, false), true))
	for _, d := range Decide(&plan.PlanRequest{Plan: decode(t, p),
		Conf: plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.sort.enabled": false}}}).Decisions {
		if d.Elided {
			t.Errorf("a Spark sort elided: %+v", d)
		}
	}
	if d := rootDecision(t, decode(t, asShuffled(bhjPlan("LeftSingle", "BuildRight", nil, false), false)), plan.Conf{}); d.Native ||
		!strings.Contains(d.Reason, "LeftSingle joins") {
		t.Errorf("shuffled left single: %+v", d)
	}
	if d := rootDecision(t, decode(t, asShuffled(bhjPlan("Inner", "BuildRight", nil, false), true)),
		plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.sortMergeJoin.enabled": false}}); d.Native ||
		!strings.Contains(d.Reason, "spark.bolide.exec.sortMergeJoin.enabled=false") {
		t.Errorf("sort-merge disabled: %+v", d)
	}
}

// Shuffled hash joins outer on their build side, and sort-merge joins, end to end: unmatched build
// rows come after the streamed side, null-extended.
func TestShuffledJoinBlocksRun(t *testing.T) {
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
		smj             bool
		joinType, build string
		cond            any
		want            string
	}{
		{false, "LeftOuter", "BuildLeft", lvLessRv(),
			"a 1 a 3; a 1 a 9; a 5 a 9; b 2 (null) (null); c 4 (null) (null); (null) 3 (null) (null)"},
		{false, "RightOuter", "BuildRight", nil, "a 1 a 3; a 1 a 9; b 2 b 1; a 5 a 3; a 5 a 9; (null) (null) (null) 0"},
		{false, "FullOuter", "BuildRight", lvLessRv(),
			"a 1 a 3; a 1 a 9; b 2 (null) (null); (null) 3 (null) (null); c 4 (null) (null); a 5 a 9; " +
				"(null) (null) b 1; (null) (null) (null) 0"},
		{false, "FullOuter", "BuildLeft", nil,
			"a 1 a 3; a 5 a 3; a 1 a 9; a 5 a 9; b 2 b 1; (null) (null) (null) 0; c 4 (null) (null); (null) 3 (null) (null)"},
		{true, "Inner", "", nil, "a 1 a 3; a 1 a 9; b 2 b 1; a 5 a 3; a 5 a 9"},
		{true, "RightOuter", "", lvLessRv(), "a 1 a 3; a 1 a 9; a 5 a 9; (null) (null) b 1; (null) (null) (null) 0"},
		{true, "FullOuter", "", nil,
			"a 1 a 3; a 1 a 9; b 2 b 1; (null) 3 (null) (null); c 4 (null) (null); a 5 a 3; a 5 a 9; (null) (null) (null) 0"},
	}
	for _, c := range cases {
		got := strings.Join(runJoinBlock(t, asShuffled(bhjPlan(c.joinType, c.build, c.cond, true), c.smj), left, right), "; ")
		if got != c.want {
			t.Errorf("smj=%v %s %s: got %s, want %s", c.smj, c.joinType, c.build, got, c.want)
		}
	}
}

// asNestedLoop turns a bhjPlan into BroadcastNestedLoopJoinExec(left, right, buildSide, joinType,
// condition): no keys.
func asNestedLoop(p map[string]any) map[string]any {
	f := p["fields"].(map[string]any)
	delete(f, "isNullAwareAntiJoin")
	delete(f, "leftKeys")
	delete(f, "rightKeys")
	p["class"], p["nodeName"] = "org.apache.spark.sql.execution.joins.BroadcastNestedLoopJoinExec", "BroadcastNestedLoopJoin"
	return p
}

func TestBroadcastNestedLoopJoin(t *testing.T) {
	for _, c := range []struct{ joinType, build string }{
		{"Inner", "BuildRight"}, {"Inner", "BuildLeft"}, {"Cross", "BuildLeft"}, {"LeftOuter", "BuildRight"},
		{"RightOuter", "BuildLeft"}, {"LeftSemi", "BuildRight"}, {"LeftAnti", "BuildRight"}, {"ExistenceJoin", "BuildRight"},
	} {
		d := rootDecision(t, decode(t, asNestedLoop(bhjPlan(c.joinType, c.build, lvLessRv(), false))), plan.Conf{})
		if !d.Native || d.Name != "BolideBroadcastNestedLoopJoin" {
			t.Errorf("%s %s: %+v", c.joinType, c.build, d)
		}
	}
	for _, c := range []struct{ joinType, build string }{
		{"FullOuter", "BuildRight"}, {"LeftOuter", "BuildLeft"}, {"RightOuter", "BuildRight"}, {"LeftSemi", "BuildLeft"},
	} {
		d := rootDecision(t, decode(t, asNestedLoop(bhjPlan(c.joinType, c.build, lvLessRv(), false))), plan.Conf{})
		if d.Native || !strings.Contains(d.Reason, "needs the matches of every task") {
			t.Errorf("%s %s: %+v", c.joinType, c.build, d)
		}
	}
	left := func(a *memory.TaskAllocator) []*columnar.Batch {
		return []*columnar.Batch{kvBatch(a, []string{"a", "b"}, nil, []int64{1, 5})}
	}
	right := func(a *memory.TaskAllocator) []*columnar.Batch {
		return []*columnar.Batch{kvBatch(a, []string{"x", "y", "z"}, nil, []int64{3, 9, 0})}
	}
	cases := []struct {
		joinType, build string
		cond            any
		want            string
	}{
		{"Inner", "BuildRight", lvLessRv(), "a 1 x 3; a 1 y 9; b 5 y 9"},
		{"Cross", "BuildLeft", nil, "a 1 x 3; b 5 x 3; a 1 y 9; b 5 y 9; a 1 z 0; b 5 z 0"},
		{"RightOuter", "BuildLeft", lvLessRv(), "a 1 x 3; a 1 y 9; b 5 y 9; (null) (null) z 0"},
		{"LeftAnti", "BuildRight", map[string]any{"class": catExpr + "GreaterThan", "dataType": "boolean", "nullable": true,
			"fields": map[string]any{"left": aref("lv", "long", 2, 1), "right": aref("rv", "long", 4, 3)}}, ""},
	}
	for _, c := range cases {
		got := strings.Join(runJoinBlock(t, asNestedLoop(bhjPlan(c.joinType, c.build, c.cond, true)), left, right), "; ")
		if got != c.want {
			t.Errorf("%s %s: got %s, want %s", c.joinType, c.build, got, c.want)
		}
	}
}
