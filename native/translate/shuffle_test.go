package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

const physical = "org.apache.spark.sql.catalyst.plans.physical."

// exchangePlan is ShuffleExchangeExec(partitioning) over sparkChild (k string, v long).
func exchangePlan(partitioning any, extra map[string]any, input bool) map[string]any {
	fields := map[string]any{"outputPartitioning": partitioning, "shuffleOrigin": "ENSURE_REQUIREMENTS",
		"advisoryPartitionSize": nil}
	for k, v := range extra {
		fields[k] = v
	}
	return map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.exchange.ShuffleExchangeExec",
		"nodeName": "Exchange", "output": []any{outAttr("k", "string", 1), outAttr("v", "long", 2)},
		"fields": fields, "children": []any{sparkChild(1, input)}}
}

func hashPartitioningExpr(n int, keys ...any) map[string]any {
	return map[string]any{"class": physical + "HashPartitioning", "dataType": "integer", "nullable": false,
		"fields": map[string]any{"expressions": keys, "numPartitions": n}}
}

func rangePartitioningExpr(n int, orders ...any) map[string]any {
	return map[string]any{"class": physical + "RangePartitioning", "dataType": "integer", "nullable": false,
		"fields": map[string]any{"ordering": orders, "numPartitions": n}}
}

func TestShuffleExchangeTranslation(t *testing.T) {
	k, v := aref("k", "string", 1, 0), aref("v", "long", 2, 1)
	native := []struct {
		name string
		p    any
		conf plan.Conf
	}{
		{"hash", hashPartitioningExpr(8, k, v), plan.Conf{}},
		{"range", rangePartitioningExpr(4, sortOrder(v, "Descending", "NullsLast")), plan.Conf{}},
		{"single", "SinglePartition", plan.Conf{}},
		{"round robin", map[string]any{"class": physical + "RoundRobinPartitioning",
			"fields": map[string]any{"numPartitions": 3}}, plan.Conf{}},
	}
	for _, c := range native {
		if d := rootDecision(t, decode(t, exchangePlan(c.p, nil, false)), c.conf); !d.Native || d.Name != "BolideShuffleExchange" {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
	refusals := []struct {
		name string
		p    any
		conf plan.Conf
		want string
	}{
		{"no manager", hashPartitioningExpr(8, k), plan.Conf{ShuffleUnavailable: "the native shuffle needs spark.shuffle.manager=X"},
			"the native shuffle needs spark.shuffle.manager=X"},
		{"bad codec", hashPartitioningExpr(8, k), plan.Conf{Settings: map[string]string{ShuffleCodecKey: "gzip"}},
			"spark.bolide.shuffle.compression.codec=gzip"},
		{"round robin sorted first", map[string]any{"class": physical + "RoundRobinPartitioning",
			"fields": map[string]any{"numPartitions": 3}}, plan.Conf{SortBeforeRepartition: true},
			"spark.sql.execution.sortBeforeRepartition=true"},
		{"unknown partitioning", map[string]any{"class": physical + "KeyGroupedPartitioning",
			"fields": map[string]any{"numPartitions": 3}}, plan.Conf{}, "KeyGroupedPartitioning is not supported natively"},
		{"disabled", hashPartitioningExpr(8, k), plan.Conf{Enabled: map[string]bool{"spark.bolide.exec.shuffle.enabled": false}},
			"spark.bolide.exec.shuffle.enabled=false"},
	}
	for _, r := range refusals {
		if d := rootDecision(t, decode(t, exchangePlan(r.p, nil, false)), r.conf); d.Native || !strings.Contains(d.Reason, r.want) {
			t.Errorf("%s: got %+v, want reason %q", r.name, d, r.want)
		}
	}
}

// A map task's exchange carries Spark's sampled bounds; its partitioner puts each key after the
// bounds below it.
func TestRangeBoundsFromTheMapTaskPlan(t *testing.T) {
	v := aref("v", "long", 2, 1)
	p := exchangePlan(rangePartitioningExpr(200, sortOrder(v, "Ascending", "NullsFirst")),
		map[string]any{"rangeBounds": [][]any{{10}, {20}, {30}}}, true)
	op, err := Build(decode(t, p), &plan.Conf{})
	if err != nil {
		t.Fatal(err)
	}
	x, ok := AsShuffleExchange(op)
	if !ok {
		t.Fatalf("root is %T, not the exchange", op)
	}
	if x.NumPartitions() != 4 {
		t.Fatalf("%d partitions for 3 bounds", x.NumPartitions())
	}
	alloc := memory.NewTaskAllocator(nil)
	defer alloc.ReleaseAll()
	ctx := &exec.TaskContext{Alloc: alloc}
	part, err := x.NewPartitioner(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer part.Close()
	b := kvBatch(alloc, []string{"a", "b", "c", "d", "e"}, nil, []int64{5, 10, 11, 30, 99})
	defer b.Release()
	ids := make([]int32, b.NumRows)
	if err := part.Partition(ctx, b, ids); err != nil {
		t.Fatal(err)
	}
	want := []int32{0, 0, 1, 2, 3}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("range ids %v, want %v", ids, want)
		}
	}
}

func TestBroadcastExchangeTranslation(t *testing.T) {
	broadcast := func(mode any) map[string]any {
		return map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.exchange.BroadcastExchangeExec",
			"nodeName": "BroadcastExchange", "output": []any{outAttr("k", "string", 1), outAttr("v", "long", 2)},
			"fields": map[string]any{"mode": mode}, "children": []any{sparkChild(1, false)}}
	}
	hashed := func(nullAware bool) map[string]any {
		return map[string]any{"class": "org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode",
			"fields": map[string]any{"key": []any{aref("v", "long", 2, 1)}, "isNullAware": nullAware}}
	}
	if d := rootDecision(t, decode(t, broadcast(hashed(false))), plan.Conf{}); !d.Native || d.Name != "BolideBroadcastExchange" {
		t.Errorf("hashed relation: %+v", d)
	}
	// No shuffle manager is needed for a broadcast.
	conf := plan.Conf{ShuffleUnavailable: "no manager"}
	if d := rootDecision(t, decode(t, broadcast(hashed(false))), conf); !d.Native {
		t.Errorf("hashed relation without the shuffle manager: %+v", d)
	}
	// Null-aware anti joins' and nested loop joins' broadcasts too.
	for name, mode := range map[string]any{"null aware": hashed(true), "identity": "IdentityBroadcastMode$"} {
		if d := rootDecision(t, decode(t, broadcast(mode)), plan.Conf{}); !d.Native {
			t.Errorf("%s: %+v", name, d)
		}
	}
	other := map[string]any{"class": "org.example.SomeBroadcastMode", "fields": map[string]any{}}
	if d := rootDecision(t, decode(t, broadcast(other)), plan.Conf{}); d.Native ||
		!strings.Contains(d.Reason, "broadcast mode SomeBroadcastMode is not supported natively") {
		t.Errorf("unknown mode: %+v", d)
	}
}
