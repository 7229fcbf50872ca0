package sort

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func checkNoSpillFiles(t *testing.T, ctx *exec.TaskContext, dir string) {
	t.Helper()
	if c := ctx.Spill.Count(); c != 0 {
		t.Errorf("%d spill files left after Close", c)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spill directory not empty after Close: %v", left)
	}
}

// spillSort sorts rows through a pool of limit bytes and checks the output, whole rows, against
// the stable reference sort; it returns the operator (for its spill metrics).
func spillSort(t *testing.T, rng *rand.Rand, what string, names []string, rows [][]any, keys []refKey,
	limit int64, batchSize, fanIn int) *Sort {
	t.Helper()
	types := coltest.Types(t, names...)
	src := newSource(t, rng, types, rows)
	defer src.Release()
	op, err := NewSort(src, ordersFor(t, names, keys))
	if err != nil {
		t.Fatal(err)
	}
	op.fanIn = fanIn
	dir := t.TempDir()
	r := &coltest.Reserver{Limit: limit}
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocatorFor(r, limit), Conf: &plan.Conf{BatchSize: batchSize},
		Spill: bmemory.NewSpillFiles([]string{dir})}
	got, err := drain(t, op, ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	coltest.CompareRows(t, what, got, refSort(rows, keys))
	checkNoSpillFiles(t, ctx, dir)
	ctx.Alloc.ReleaseAll()
	if r.Reserved != 0 {
		t.Errorf("%s: %d bytes still reserved", what, r.Reserved)
	}
	if mem, disk := op.SpillMetrics(); (mem == 0) != (disk == 0) {
		t.Errorf("%s: spilled %d bytes in memory but %d on disk", what, mem, disk)
	}
	return op
}

// A sort over a small pool spills runs and merges them: the same rows in the same order (ties in
// input order) as the in-memory sort, for every key type, direction and null ordering, through
// one merge and through merges of merges (more runs than the fan-in).
func TestSortSpillGivesTheSameOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, name := range allTypes {
		types, rows := genRows(t, rng, []string{name, "string"}, 40000, 0.1)
		names := []string{name, "string", "long"}
		for _, limit := range []int64{1 << 20} {
			desc, nullsFirst := rng.IntN(2) == 0, rng.IntN(2) == 0
			keys := []refKey{{col: 0, kind: types[0].Kind, desc: desc, nullsFirst: nullsFirst},
				{col: 1, kind: sparktype.String, desc: !desc}}
			if rng.IntN(2) == 0 {
				keys = keys[:1] // ties on the only key: the merge must keep input order
			}
			what := fmt.Sprintf("%s desc=%v nullsFirst=%v keys=%d limit=%d", name, desc, nullsFirst, len(keys), limit)
			op := spillSort(t, rng, what, names, rows, keys, limit, 1+rng.IntN(2000), mergeFanIn)
			if op.runsSpilled < 2 {
				t.Errorf("%s: %d runs spilled, want several", what, op.runsSpilled)
			}
		}
	}
}

func TestSortSpillMergesMoreRunsThanTheFanIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	names := []string{"long", "string", "long"}
	types, rows := genRows(t, rng, names[:2], 100000, 0.02)
	keys := []refKey{{col: 0, kind: types[0].Kind, desc: true}, {col: 1, kind: types[1].Kind}}
	op := spillSort(t, rng, "100k rows, 1 MiB", names, rows, keys, 1<<20, 1000, 3)
	if op.runsSpilled <= 2*3 {
		t.Errorf("%d runs spilled, want more than twice the fan-in 3", op.runsSpilled)
	}
}

// requesting is a source that asks the task to spill (as Spark's spill() on the block's memory
// consumer does) before each of the batches listed.
type requesting struct {
	*coltest.Source
	ctx *exec.TaskContext
	at  map[int]bool
	n   int
}

func (r *requesting) Open(ctx *exec.TaskContext) error { r.ctx = ctx; return r.Source.Open(ctx) }

func (r *requesting) Next() (*columnar.Batch, error) {
	if r.at[r.n] {
		r.ctx.RequestSpill()
	}
	r.n++
	return r.Source.Next()
}

// Spark asking for memory makes a sort reading its input spill what it holds, when that is worth
// a run; the answer does not change.
func TestSortSpillsOnRequest(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	names := []string{"string", "long", "long"}
	types, rows := genRows(t, rng, names[:2], 150000, 0.05)
	keys := []refKey{{col: 0, kind: types[0].Kind}, {col: 1, kind: types[1].Kind, desc: true}}
	src := newSource(t, rng, coltest.Types(t, names...), rows)
	defer src.Release()
	// A request at the second batch finds too little to be worth a run; later ones do not.
	at := map[int]bool{1: true, len(src.Batches) / 3: true, 2 * len(src.Batches) / 3: true}
	op, err := NewSort(&requesting{Source: src, at: at}, ordersFor(t, names, keys))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(nil), Conf: &plan.Conf{BatchSize: 4096},
		Spill: bmemory.NewSpillFiles([]string{dir})}
	got, err := drain(t, op, ctx)
	if err != nil {
		t.Fatal(err)
	}
	coltest.CompareRows(t, "spill on request", got, refSort(rows, keys))
	checkNoSpillFiles(t, ctx, dir)
	if op.runsSpilled != 3 { // two requested, and the rows left at the end
		t.Errorf("%d runs spilled, want 3", op.runsSpilled)
	}
}

// A sort closed in the middle of its merge (a cancelled task) leaves no file and no memory.
func TestSortClosedMidMergeLeavesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	names := []string{"long", "long"}
	types, rows := genRows(t, rng, names[:1], 50000, 0)
	src := newSource(t, rng, coltest.Types(t, names...), rows)
	defer src.Release()
	op, err := NewSort(src, ordersFor(t, names, []refKey{{col: 0, kind: types[0].Kind}}))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &coltest.Reserver{Limit: 1 << 20}
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocatorFor(r, r.Limit), Conf: &plan.Conf{BatchSize: 1000},
		Spill: bmemory.NewSpillFiles([]string{dir})}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, err := op.Next()
		if err != nil || b == nil {
			t.Fatalf("batch: %v, %v", b, err)
		}
		b.Release()
	}
	if op.runsSpilled < 2 {
		t.Fatalf("%d runs spilled, want several", op.runsSpilled)
	}
	op.Close()
	checkNoSpillFiles(t, ctx, dir)
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("%d bytes still allocated after Close", used)
	}
	ctx.Alloc.ReleaseAll()
	if r.Reserved != 0 {
		t.Errorf("%d bytes still reserved", r.Reserved)
	}
}
