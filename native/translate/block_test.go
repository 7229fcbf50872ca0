package translate

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

// pipelinePlan is one native block as Spark plans the map side of a grouped aggregation:
// HashAggregate(Partial: k, sum(w), count(1)) over Project(k, v + 1 AS w) over Filter(v > 10)
// over input 0 (k string, v long), with the node ids the JVM gives them (0 at the top).
func pipelinePlan() map[string]any {
	lit := func(v int) map[string]any {
		return map[string]any{"class": catExpr + "Literal", "dataType": "long", "nullable": false,
			"fields": map[string]any{"value": v}}
	}
	ansi := map[string]any{"class": catExpr + "NumericEvalContext",
		"fields": map[string]any{"evalMode": "ANSI", "allowDecimalPrecisionLoss": true}}
	filter := map[string]any{"id": 2, "class": "org.apache.spark.sql.execution.FilterExec", "nodeName": "Filter",
		"output": []any{outAttr("k", "string", 1), outAttr("v", "long", 2)},
		"fields": map[string]any{"condition": map[string]any{"class": catExpr + "GreaterThan", "dataType": "boolean",
			"nullable": true, "fields": map[string]any{"left": aref("v", "long", 2, 1), "right": lit(10)}}},
		"children": []any{sparkChild(3, true)}}
	plus := map[string]any{"class": catExpr + "Alias", "dataType": "long", "nullable": true, "fields": map[string]any{
		"child": map[string]any{"class": catExpr + "Add", "dataType": "long", "nullable": true, "fields": map[string]any{
			"left": aref("v", "long", 2, 1), "right": lit(1), "evalContext": ansi}},
		"name": "w"}, "exprId": 3, "name": "w"}
	project := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.ProjectExec", "nodeName": "Project",
		"output":   []any{outAttr("k", "string", 1), outAttr("w", "long", 3)},
		"fields":   map[string]any{"projectList": []any{aref("k", "string", 1, 0), plus}},
		"children": []any{filter}}
	count := map[string]any{"class": catAgg + "Count", "dataType": "long", "nullable": false, "deterministic": true,
		"fields": map[string]any{"children": []any{map[string]any{"class": catExpr + "Literal", "dataType": "integer",
			"nullable": false, "deterministic": true, "fields": map[string]any{"value": 1}}}}}
	return map[string]any{
		"id": 0, "class": "org.apache.spark.sql.execution.aggregate.HashAggregateExec", "nodeName": "HashAggregate",
		"output": []any{outAttr("k", "string", 1), outAttr("sum", "long", 10), outAttr("count", "long", 11)},
		"fields": map[string]any{"requiredChildDistributionExpressions": nil, "isStreaming": false,
			"numShufflePartitions": nil, "groupingExpressions": []any{aref("k", "string", 1, 0)},
			"aggregateExpressions": []any{aggExpr(sumFn(aref("w", "long", 3, 1)), "Partial", false, nil),
				aggExpr(count, "Partial", false, nil)},
			"aggregateAttributes":      []any{aref("sum(w)", "long", 20, -1), aref("count(1)", "long", 21, -1)},
			"initialInputBufferOffset": 0,
			"resultExpressions": []any{aref("k", "string", 1, -1), aref("sum", "long", 10, -1),
				aref("count", "long", 11, -1)}},
		"children": []any{project},
	}
}

// pipelineBatches makes rows of (k, v) in batches of size rows: 64 keys, v = i % 1000.
func pipelineBatches(alloc *memory.TaskAllocator, rows, size int) []*columnar.Batch {
	var out []*columnar.Batch
	for lo := 0; lo < rows; lo += size {
		n := min(size, rows-lo)
		ks := make([]string, n)
		vs := make([]int64, n)
		for i := range ks {
			ks[i] = fmt.Sprintf("key%02d", (lo+i)*7%64)
			vs[i] = int64((lo + i) % 1000)
		}
		out = append(out, kvBatch(alloc, ks, nil, vs))
	}
	return out
}

// BenchmarkBlockPipeline runs pipelinePlan's block over 1M rows as a task does (every operator
// under its guard), for batches of the usual size and for small ones, where whatever a guard
// does per batch weighs most. Each iteration runs the block twice, with the task's Meter and
// without (guards then count rows but read no clock), in turn, so that a shared machine's drift
// hits both alike: ns/row and cpu-ns/row are with the meter, the -unmetered ones without.
// cpu-ns/row is the process's CPU time (every thread, the GC's too), which varies less than the
// wall time on a busy machine.
func BenchmarkBlockPipeline(b *testing.B) {
	raw, err := json.Marshal(pipelinePlan())
	if err != nil {
		b.Fatal(err)
	}
	const rows = 1 << 20
	conf := &plan.Conf{BatchSize: 8192}
	// runOnce returns the wall and CPU nanoseconds of one run of the block.
	runOnce := func(b *testing.B, size int, meter *exec.Meter) (wall, cpu int64) {
		var n plan.Node
		if err := json.Unmarshal(raw, &n); err != nil {
			b.Fatal(err)
		}
		op, err := Build(&n, conf)
		if err != nil {
			b.Fatal(err)
		}
		alloc := memory.NewTaskAllocator(nil)
		ctx := &exec.TaskContext{Alloc: alloc, Conf: conf, Meter: meter,
			Inputs: []exec.InputSource{&input{batches: pipelineBatches(alloc, rows, size)}}}
		t0, c0 := time.Now(), cpuNanos()
		if err := op.Open(ctx); err != nil {
			b.Fatal(err)
		}
		for {
			out, err := op.Next()
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
			out.Release()
		}
		op.Close()
		return time.Since(t0).Nanoseconds(), cpuNanos() - c0
	}
	for _, size := range []int{8192, 256} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			b.StopTimer()
			var wall, cpu, wallOff, cpuOff int64
			for it := 0; it < b.N; it++ {
				w, c := runOnce(b, size, exec.NewMeter())
				wall, cpu = wall+w, cpu+c
				w, c = runOnce(b, size, nil)
				wallOff, cpuOff = wallOff+w, cpuOff+c
			}
			per := func(ns int64) float64 { return float64(ns) / float64(b.N) / rows }
			b.ReportMetric(per(wall), "ns/row")
			b.ReportMetric(per(cpu), "cpu-ns/row")
			b.ReportMetric(per(wallOff), "ns/row-unmetered")
			b.ReportMetric(per(cpuOff), "cpu-ns/row-unmetered")
		})
	}
}

// cpuNanos is the CPU time the process has used so far.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// A block built from the wire form reports each operator under the node id the JVM gave it, with
// the rows it returned; the input leaf (a Spark child) reports nothing.
func TestBlockReportsEveryOperator(t *testing.T) {
	op, err := Build(decode(t, pipelinePlan()), &plan.Conf{BatchSize: 8192})
	if err != nil {
		t.Fatal(err)
	}
	alloc := memory.NewTaskAllocator(nil)
	m := exec.NewMeter()
	ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: 8192}, Meter: m,
		Inputs: []exec.InputSource{&input{batches: pipelineBatches(alloc, 10000, 1000)}}}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		b.Release()
	}
	op.Close()
	got := map[int]exec.OpMetrics{}
	for _, om := range m.Snapshot() {
		got[om.ID] = om
	}
	// v = i % 1000 > 10 keeps 989 of every 1000 rows; the partial aggregate has 64 groups.
	want := map[int][2]int64{0: {64, 1}, 1: {9890, 10}, 2: {9890, 10}}
	if len(got) != len(want) {
		t.Fatalf("want operators 0, 1, 2, got %+v", got)
	}
	for id, w := range want {
		g := got[id]
		if g.Rows != w[0] || g.Batches != w[1] || g.Nanos <= 0 {
			t.Errorf("operator %d: got %+v, want %d rows in %d batches and some time", id, g, w[0], w[1])
		}
	}
	if used := alloc.Used(); used != 0 {
		t.Errorf("%d bytes still allocated after Close", used)
	}
}
