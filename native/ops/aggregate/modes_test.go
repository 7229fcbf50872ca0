package aggregate

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
)

// --- one HashAggregateExec stage with a mode per function, shaped like Spark's plans ---

// stageFn is one function of a stage. Updating modes read their arguments at input ordinals
// fn.args; merging modes read buffers and only need the arguments' types (raw: the columns the
// first stage read them from).
type stageFn struct {
	fn     aggFn
	mode   string
	filter map[string]any // FILTER predicate bound to the stage's input, or nil
}

type stage struct {
	in     []col // the stage's input (its child's output)
	raw    []col // the columns the functions' arguments were first read from
	keys   []int // grouping keys: input ordinals
	fns    []stageFn
	offset int // initialInputBufferOffset
}

var stageIDs = int64(5000)

func nextStageID() int64 { stageIDs++; return stageIDs }

// node encodes the stage and returns its output columns: keys then buffers (no function ends in
// results) or keys then results.
func (s stage) node(t testing.TB) (*plan.Node, []col) {
	var group, results, aes, aggAttrs, outAttrs []any
	var out []col
	evaluates := false
	for _, f := range s.fns {
		evaluates = evaluates || f.mode == "Final" || f.mode == "Complete"
	}
	for _, k := range s.keys {
		group = append(group, attr(s.in[k], k, true))
		results = append(results, attr(s.in[k], -1, true))
		out = append(out, s.in[k])
	}
	for _, f := range s.fns {
		updates := f.mode == "Partial" || f.mode == "Complete"
		arg := func(i int) map[string]any {
			if updates {
				return attr(s.in[i], i, true)
			}
			return attr(s.raw[i], -1, true)
		}
		var filter any
		if f.filter != nil {
			filter = f.filter
		}
		aes = append(aes, f.fn.jsonWith(f.mode, arg, filter))
		r := col{name: strings.ToLower(f.fn.class), typ: f.fn.result, id: nextStageID()}
		aggAttrs = append(aggAttrs, attr(r, -1, true))
		if evaluates {
			a := alias(attr(r, -1, true), r.name+"_out", nextStageID())
			results = append(results, a)
			out = append(out, col{name: r.name + "_out", typ: r.typ, id: a["exprId"].(int64)})
		} else {
			for bi, bt := range f.fn.buffers {
				b := col{name: fmt.Sprintf("%s_buf%d", r.name, bi), typ: bt, id: nextStageID()}
				results = append(results, attr(b, -1, true))
				out = append(out, b)
			}
		}
	}
	for _, c := range out {
		outAttrs = append(outAttrs, outAttr(c, true))
	}
	if group == nil {
		group = []any{}
	}
	if aes == nil {
		aes, aggAttrs = []any{}, []any{}
	}
	m := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.aggregate.HashAggregateExec",
		"nodeName": "HashAggregate", "output": outAttrs, "children": []any{},
		"fields": map[string]any{"requiredChildDistributionExpressions": nil, "isStreaming": false,
			"numShufflePartitions": nil, "groupingExpressions": group, "aggregateExpressions": aes,
			"aggregateAttributes": aggAttrs, "initialInputBufferOffset": s.offset, "resultExpressions": results}}
	return toNode(t, m), out
}

// runStage runs the stage once per task (a list of input batches each) and returns every task's
// output batches.
func runStage(t *testing.T, s stage, tasks ...[]*columnar.Batch) ([]*columnar.Batch, []col) {
	t.Helper()
	n, out := s.node(t)
	var all []*columnar.Batch
	for _, in := range tasks {
		res, err := run(t, n, fieldsOf(t, s.in), in)
		if err != nil {
			t.Fatalf("%s stage: %v", modesOf(s), err)
		}
		all = append(all, res...)
	}
	return all, out
}

func modesOf(s stage) string {
	var m []string
	for _, f := range s.fns {
		m = append(m, f.mode)
	}
	return strings.Join(m, "+")
}

func withMode(fns []aggFn, mode string) []stageFn {
	out := make([]stageFn, len(fns))
	for i, f := range fns {
		out[i] = stageFn{fn: f, mode: mode}
	}
	return out
}

// TestPartialMergeChains: Partial in three tasks, PartialMerge over some of their outputs (twice,
// chained), then Final, must equal the reference: PartialMerge keeps Spark's buffer layouts.
func TestPartialMergeChains(t *testing.T) {
	rows := genRows(6000, 11)
	want := reference(rows)
	partial := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: withMode(e2eAggs, "Partial")}
	var tasks [][]*columnar.Batch
	for task := 0; task < 3; task++ {
		tasks = append(tasks, toBatches(rows[task*2000:(task+1)*2000], 250))
	}
	p, pcols := runStage(t, partial, tasks...)
	defer release(p)

	merge := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: withMode(e2eAggs, "PartialMerge"), offset: 1}
	// Two merge tasks over arbitrary splits of the partial outputs, then a second merge of one.
	m1, mcols := runStage(t, merge, p[:len(p)/3], p[len(p)/3:])
	defer release(m1)
	for i, c := range mcols {
		if c.typ != pcols[i].typ {
			t.Fatalf("PartialMerge output column %d is %s, partial's is %s", i, c.typ, pcols[i].typ)
		}
	}
	m2, _ := runStage(t, merge, m1)
	defer release(m2)

	final := stage{in: mcols, raw: e2eIn, keys: []int{0}, fns: withMode(e2eAggs, "Final"), offset: 1}
	for name, in := range map[string][]*columnar.Batch{"once": m1, "twice": m2} {
		f, _ := runStage(t, final, in)
		compareGroups(t, "partial+merge("+name+")+final", byKey(t, rowsOf(f)), want)
		release(f)
	}
}

// distinctRef is the reference for SELECT k, count(DISTINCT i), sum(l), avg(d), max(dec) ... GROUP
// BY k (no k: one group).
func distinctRef(rows []e2eRow, keyed bool) map[any][]any {
	type acc struct {
		distinct     map[int32]bool
		sum          int64
		hasSum       bool
		avgS         float64
		avgC         int64
		maxDec       *big.Int
		firstS, hasS bool
		s            string
	}
	groups := map[any]*acc{}
	for _, r := range rows {
		var k any
		if keyed && r.k != nil {
			k = *r.k
		}
		a := groups[k]
		if a == nil {
			a = &acc{distinct: map[int32]bool{}}
			groups[k] = a
		}
		if r.i != nil {
			a.distinct[*r.i] = true
		}
		if r.l != nil {
			a.sum += *r.l
			a.hasSum = true
		}
		if r.d != nil {
			a.avgS += *r.d
			a.avgC++
		}
		if r.dec != nil && (a.maxDec == nil || r.dec.Cmp(a.maxDec) > 0) {
			a.maxDec = r.dec
		}
	}
	out := map[any][]any{}
	for k, a := range groups {
		row := []any{k, int64(len(a.distinct)), nil, nil, nil}
		if a.hasSum {
			row[2] = a.sum
		}
		if a.avgC > 0 {
			row[3] = fkey(a.avgS / float64(a.avgC))
		}
		if a.maxDec != nil {
			row[4] = dkey(a.maxDec)
		}
		if !keyed {
			row = row[1:]
		}
		out[k] = row
	}
	return out
}

// TestOneDistinctShape runs the four aggregates Spark plans for SELECT k, count(DISTINCT i), sum(l),
// avg(d), max(dec) GROUP BY k: Partial(regular) by (k, i) -> PartialMerge(regular) by (k, i) ->
// PartialMerge(regular) + Partial(count i) by k -> Final(all) by k; with and without k.
func TestOneDistinctShape(t *testing.T) {
	regular := []aggFn{
		{class: "Sum", args: []int{2}, evalMode: "ANSI", result: "long", buffers: []string{"long"}},
		{class: "Average", args: []int{3}, evalMode: "ANSI", result: "double", buffers: []string{"double", "long"}},
		{class: "Max", args: []int{4}, result: "decimal(10,2)", buffers: []string{"decimal(10,2)"}},
	}
	rows := genRows(5000, 12)
	for _, keyed := range []bool{true, false} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			keys1, nk := []int{0, 1}, 2 // by (k, i)
			if !keyed {
				keys1, nk = []int{1}, 1 // by (i)
			}
			s1 := stage{in: e2eIn, raw: e2eIn, keys: keys1, fns: withMode(regular, "Partial")}
			var tasks [][]*columnar.Batch
			for task := 0; task < 2; task++ {
				tasks = append(tasks, toBatches(rows[task*2500:(task+1)*2500], 300))
			}
			o1, c1 := runStage(t, s1, tasks...)
			defer release(o1)
			mkeys := make([]int, nk)
			for i := range mkeys {
				mkeys[i] = i
			}
			s2 := stage{in: c1, raw: e2eIn, keys: mkeys, fns: withMode(regular, "PartialMerge"), offset: nk}
			o2, c2 := runStage(t, s2, o1)
			defer release(o2)
			// Stage 3: the regular functions merge, count(i) reads the distinct column (input
			// ordinal nk-1) of rows that are now distinct per group; buffers start at nk.
			count := aggFn{class: "Count", args: []int{nk - 1}, result: "long", buffers: []string{"long"}}
			var keys3 []int
			if keyed {
				keys3 = []int{0}
			}
			s3 := stage{in: c2, raw: e2eIn, keys: keys3, fns: append(withMode(regular, "PartialMerge"),
				stageFn{fn: count, mode: "Partial"}), offset: nk}
			// count's argument types come from s3's input for Partial; raw is only read by merges.
			o3, c3 := runStage(t, s3, o2[:len(o2)/2], o2[len(o2)/2:])
			defer release(o3)
			fns4 := append(withMode(regular, "Final"), stageFn{fn: count, mode: "Final"})
			s4 := stage{in: c3, raw: e2eIn, keys: keys3, fns: fns4, offset: len(keys3)}
			if !keyed {
				s4.raw = e2eIn
			}
			o4, _ := runStage(t, s4, o3)
			defer release(o4)
			want := distinctRef(rows, keyed)
			got := map[any][]any{}
			for _, r := range rowsOf(o4) {
				// reorder: [keys, sum, avg, max, count] -> [keys, count, sum, avg, max]
				nkeys := len(keys3)
				vals := r[nkeys:]
				row := append(append([]any{}, r[:nkeys]...), vals[3], vals[0], vals[1], vals[2])
				var k any
				if keyed {
					k = r[0]
				}
				if _, dup := got[k]; dup {
					t.Fatalf("duplicate group %v", k)
				}
				got[k] = row
			}
			if !reflect.DeepEqual(got, want) {
				for k, w := range want {
					if !reflect.DeepEqual(got[k], w) {
						t.Errorf("group %v: got %v, want %v", k, got[k], w)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%d groups, want %d", len(got), len(want))
				}
			}
		})
	}
}

func TestModeSetsSparkNeverPlansAreRefused(t *testing.T) {
	sum := aggFn{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}}
	in := []col{{"k", "integer", 1}, {"v", "long", 2}}
	s := stage{in: in, raw: in, keys: []int{0}, fns: []stageFn{{fn: sum, mode: "Partial"}, {fn: sum, mode: "Final"}}}
	n, _ := s.node(t)
	_, err := New(n, &source{schema: fieldsOf(t, in)}, &plan.Conf{})
	if err == nil || !strings.Contains(err.Error(), "mixing aggregate modes Partial, Final") {
		t.Errorf("Partial+Final: %v", err)
	}
}

// --- FILTER ---

func gtZero(c col, ordinal int) map[string]any {
	return map[string]any{"class": pkgExpr + "GreaterThan", "dataType": "boolean", "nullable": true,
		"deterministic": true, "fields": map[string]any{"left": attr(c, ordinal, true),
			"right": map[string]any{"class": pkgExpr + "Literal", "dataType": c.typ, "nullable": false,
				"deterministic": true, "fields": map[string]any{"value": 0}}}}
}

func isNotNull(c col, ordinal int) map[string]any {
	return map[string]any{"class": pkgExpr + "IsNotNull", "dataType": "boolean", "nullable": false,
		"deterministic": true, "fields": map[string]any{"child": attr(c, ordinal, true)}}
}

// TestFilterClause: count(*) FILTER (WHERE i > 0), sum(l) FILTER (WHERE d IS NOT NULL),
// max(s) FILTER (WHERE i > 0), avg(d) (no filter), in Complete mode and as Partial then Final
// (where Spark has dropped the clause: only Partial applies it).
func TestFilterClause(t *testing.T) {
	rows := genRows(4000, 13)
	countStar := aggFn{class: "Count", result: "long", buffers: []string{"long"}}
	sumL := aggFn{class: "Sum", args: []int{2}, evalMode: "ANSI", result: "long", buffers: []string{"long"}}
	maxS := aggFn{class: "Max", args: []int{5}, result: "string", buffers: []string{"string"}}
	avgD := aggFn{class: "Average", args: []int{3}, evalMode: "ANSI", result: "double", buffers: []string{"double", "long"}}
	fns := func(mode string, filtered bool) []stageFn {
		f := []stageFn{{fn: countStar, mode: mode}, {fn: sumL, mode: mode}, {fn: maxS, mode: mode}, {fn: avgD, mode: mode}}
		if filtered {
			f[0].filter = gtZero(e2eIn[1], 1)
			f[1].filter = isNotNull(e2eIn[3], 3)
			f[2].filter = gtZero(e2eIn[1], 1)
		}
		return f
	}
	type acc struct {
		cnt          int64
		sum          int64
		hasSum       bool
		max          string
		hasMax       bool
		avgS         float64
		avgC         int64
		seen         bool
		allPositives bool
	}
	want := map[any][]any{}
	groups := map[any]*acc{}
	for _, r := range rows {
		var k any
		if r.k != nil {
			k = *r.k
		}
		a := groups[k]
		if a == nil {
			a = &acc{}
			groups[k] = a
		}
		pos := r.i != nil && *r.i > 0
		if pos {
			a.cnt++
			if r.s != nil && (!a.hasMax || *r.s > a.max) {
				a.max, a.hasMax = *r.s, true
			}
		}
		if r.d != nil && r.l != nil {
			a.sum += *r.l
			a.hasSum = true
		}
		if r.d != nil {
			a.avgS += *r.d
			a.avgC++
		}
	}
	for k, a := range groups {
		row := []any{k, a.cnt, nil, nil, nil}
		if a.hasSum {
			row[2] = a.sum
		}
		if a.hasMax {
			row[3] = a.max
		}
		if a.avgC > 0 {
			row[4] = fkey(a.avgS / float64(a.avgC))
		}
		want[k] = row
	}

	complete := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: fns("Complete", true)}
	c, _ := runStage(t, complete, toBatches(rows, 333))
	compareFiltered(t, "complete", rowsOf(c), want)
	release(c)

	partial := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: fns("Partial", true)}
	p, pcols := runStage(t, partial, toBatches(rows[:1500], 200), toBatches(rows[1500:], 512))
	final := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: fns("Final", false), offset: 1}
	f, _ := runStage(t, final, p)
	compareFiltered(t, "partial+final", rowsOf(f), want)
	release(f)
	release(p)
}

func compareFiltered(t *testing.T, what string, rows [][]any, want map[any][]any) {
	t.Helper()
	got := byKey(t, rows)
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s: group %v: got %v, want %v", what, k, got[k], w)
		}
	}
}

// TestFilterOverFallibleArgumentsIsRefused: Spark's generated code may evaluate an argument on the
// rows a FILTER clause rejects (shared subexpressions are computed first), raising errors there;
// sum(l + 9223372036854775807) FILTER (WHERE l < 0) stays in Spark. Without the clause the
// argument fails natively as in Spark.
func TestFilterOverFallibleArgumentsIsRefused(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"l", "long", 2}}
	lit := func(v any) map[string]any {
		return map[string]any{"class": pkgExpr + "Literal", "dataType": "long", "nullable": false,
			"deterministic": true, "fields": map[string]any{"value": v}}
	}
	add := map[string]any{"class": pkgExpr + "Add", "dataType": "long", "nullable": true, "deterministic": true,
		"fields": map[string]any{"left": attr(in[1], 1, true), "right": lit(int64(math.MaxInt64)),
			"evalContext": map[string]any{"class": pkgExpr + "NumericEvalContext",
				"fields": map[string]any{"evalMode": "ANSI", "allowDecimalPrecisionLoss": true}}}}
	lt0 := map[string]any{"class": pkgExpr + "LessThan", "dataType": "boolean", "nullable": true,
		"deterministic": true, "fields": map[string]any{"left": attr(in[1], 1, true), "right": lit(0)}}
	sum := aggFn{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}}
	node := func(filter map[string]any) *plan.Node {
		n, _ := stage{in: in, raw: in, keys: []int{0}, fns: []stageFn{{fn: sum, mode: "Complete", filter: filter}}}.node(t)
		// replace the argument with the Add
		var m map[string]any
		if err := jsonUnmarshal(mustJSON(t, n), &m); err != nil {
			t.Fatal(err)
		}
		ae := m["fields"].(map[string]any)["aggregateExpressions"].([]any)[0].(map[string]any)
		ae["fields"].(map[string]any)["aggregateFunction"].(map[string]any)["fields"].(map[string]any)["child"] = add
		return toNode(t, m)
	}
	_, err := New(node(lt0), &source{schema: fieldsOf(t, in)}, &plan.Conf{ANSI: true})
	if err == nil || !strings.Contains(err.Error(), "FILTER clause over an argument that can raise an error") {
		t.Errorf("filtered fallible argument: %v", err)
	}
	b := columnar.NewBatch([]arrow.Array{i32Col([]int32{1, 2}, nil), i64Col([]int64{-1, 5}, nil)}, 2)
	_, err = run(t, node(nil), fieldsOf(t, in), []*columnar.Batch{b})
	if err == nil || !strings.Contains(err.Error(), "ARITHMETIC_OVERFLOW") {
		t.Errorf("unfiltered: got %v, want ARITHMETIC_OVERFLOW", err)
	}
}

// TestFilterEdgeBatches: batches where every row passes the clause, and none does.
func TestFilterEdgeBatches(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"l", "long", 2}}
	sum := aggFn{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}}
	n, _ := stage{in: in, raw: in, keys: []int{0},
		fns: []stageFn{{fn: sum, mode: "Complete", filter: gtZero(in[1], 1)}}}.node(t)
	batches := []*columnar.Batch{
		columnar.NewBatch([]arrow.Array{i32Col([]int32{1, 1, 2, 2}, nil), i64Col([]int64{-1, 5, -3, 7}, nil)}, 4),
		columnar.NewBatch([]arrow.Array{i32Col([]int32{3, 1}, nil), i64Col([]int64{10, 20}, nil)}, 2),
		columnar.NewBatch([]arrow.Array{i32Col([]int32{1, 4}, nil), i64Col([]int64{-10, 0}, []bool{true, false})}, 2),
	}
	out, err := run(t, n, fieldsOf(t, in), batches)
	if err != nil {
		t.Fatal(err)
	}
	want := map[any][]any{int64(1): {int64(1), int64(25)}, int64(2): {int64(2), int64(7)},
		int64(3): {int64(3), int64(10)}, int64(4): {int64(4), nil}}
	if got := byKey(t, rowsOf(out)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	release(out)
}

// --- First / Last ---

// TestFirstLast: first/last with and without ignoreNulls over several types, in Complete mode
// and as Partial (three tasks) -> PartialMerge -> Final, against a sequential reference (rows in
// input order, tasks in order, as Spark's update and merge expressions fold them).
func TestFirstLast(t *testing.T) {
	rows := genRows(3000, 14)
	type spec struct {
		class  string
		arg    int
		typ    string
		ignore bool
	}
	var specs []spec
	for _, c := range []string{"First", "Last"} {
		for _, ig := range []bool{false, true} {
			for _, a := range []struct {
				arg int
				typ string
			}{{1, "integer"}, {3, "double"}, {4, "decimal(10,2)"}, {5, "string"}} {
				specs = append(specs, spec{c, a.arg, a.typ, ig})
			}
		}
	}
	var fns []aggFn
	for _, s := range specs {
		fns = append(fns, aggFn{class: s.class, args: []int{s.arg}, result: s.typ,
			buffers: []string{s.typ, "boolean"}, ignoreNulls: s.ignore})
	}
	// reference
	value := func(r e2eRow, arg int) any {
		switch arg {
		case 1:
			if r.i != nil {
				return int64(*r.i)
			}
		case 3:
			if r.d != nil {
				return fkey(*r.d)
			}
		case 4:
			if r.dec != nil {
				return dkey(r.dec)
			}
		case 5:
			if r.s != nil {
				return *r.s
			}
		}
		return nil
	}
	want := map[any][]any{}
	set := map[any][]bool{}
	for _, r := range rows {
		var k any
		if r.k != nil {
			k = *r.k
		}
		if want[k] == nil {
			want[k] = append([]any{k}, make([]any, len(specs))...)
			set[k] = make([]bool, len(specs))
		}
		for i, s := range specs {
			v := value(r, s.arg)
			if s.ignore && v == nil {
				continue
			}
			if s.class == "First" && set[k][i] {
				continue
			}
			want[k][i+1], set[k][i] = v, true
		}
	}

	complete := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Complete")}
	c, _ := runStage(t, complete, toBatches(rows, 100))
	compareFiltered(t, "complete", rowsOf(c), want)
	release(c)

	partial := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Partial")}
	p, pcols := runStage(t, partial, toBatches(rows[:1000], 128), toBatches(rows[1000:2000], 64),
		toBatches(rows[2000:], 999))
	defer release(p)
	final := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Final"), offset: 1}
	f, _ := runStage(t, final, p)
	compareFiltered(t, "partial+final", rowsOf(f), want)
	release(f)
	merge := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "PartialMerge"), offset: 1}
	m, _ := runStage(t, merge, p)
	f, _ = runStage(t, final, m)
	compareFiltered(t, "partial+merge+final", rowsOf(f), want)
	release(f)
	release(m)
}

// TestFirstLastBoolean: boolean values, nulls first, without grouping keys.
func TestFirstLastBoolean(t *testing.T) {
	in := []col{{"b", "boolean", 1}}
	var fns []aggFn
	for _, c := range []string{"First", "Last"} {
		for _, ig := range []bool{false, true} {
			fns = append(fns, aggFn{class: c, args: []int{0}, result: "boolean",
				buffers: []string{"boolean", "boolean"}, ignoreNulls: ig})
		}
	}
	bb := array.NewBooleanBuilder(gomem)
	bb.AppendValues([]bool{false, true, false, false}, []bool{false, true, false, true})
	col := bb.NewArray()
	bb.Release()
	b := columnar.NewBatch([]arrow.Array{col}, 4)
	out, err := run(t, stage{in: in, raw: in, fns: withMode(fns, "Complete")}.mustNode(t), fieldsOf(t, in),
		[]*columnar.Batch{b})
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(out)
	want := [][]any{{nil, true, false, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	release(out)
}

func (s stage) mustNode(t testing.TB) *plan.Node {
	n, _ := s.node(t)
	return n
}

// TestBitAggregates: bit_and, bit_or and bit_xor of an int column with nulls, per group, in one
// stage and split into partial, merge and final stages: null only for a group without a value.
func TestBitAggregates(t *testing.T) {
	rows := genRows(3000, 15)
	classes := []string{"BitAndAgg", "BitOrAgg", "BitXorAgg"}
	var fns []aggFn
	for _, c := range classes {
		fns = append(fns, aggFn{class: c, args: []int{1}, result: "integer", buffers: []string{"integer"}})
	}
	want := map[any][]any{}
	for _, r := range rows {
		var k any
		if r.k != nil {
			k = *r.k
		}
		if want[k] == nil {
			want[k] = append([]any{k}, make([]any, len(classes))...)
		}
		if r.i == nil {
			continue
		}
		v := int64(*r.i)
		for i, c := range classes {
			cur, ok := want[k][i+1].(int64)
			switch {
			case !ok:
				want[k][i+1] = v
			case c == "BitAndAgg":
				want[k][i+1] = int64(int32(cur) & int32(v))
			case c == "BitOrAgg":
				want[k][i+1] = int64(int32(cur) | int32(v))
			default:
				want[k][i+1] = int64(int32(cur) ^ int32(v))
			}
		}
	}
	complete := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Complete")}
	c, _ := runStage(t, complete, toBatches(rows, 100))
	compareFiltered(t, "complete", rowsOf(c), want)
	release(c)

	partial := stage{in: e2eIn, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Partial")}
	p, pcols := runStage(t, partial, toBatches(rows[:1000], 128), toBatches(rows[1000:2000], 64),
		toBatches(rows[2000:], 999))
	defer release(p)
	merge := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "PartialMerge"), offset: 1}
	m, _ := runStage(t, merge, p)
	final := stage{in: pcols, raw: e2eIn, keys: []int{0}, fns: withMode(fns, "Final"), offset: 1}
	f, _ := runStage(t, final, m)
	compareFiltered(t, "partial+merge+final", rowsOf(f), want)
	release(f)
	release(m)
}
