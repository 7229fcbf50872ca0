package aggregate

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	memalloc "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/memory/memtest"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// limitReserver grants reservations up to limit bytes in all, like a small off-heap pool.
type limitReserver struct{ limit, reserved int64 }

func (f *limitReserver) Reserve(n int64) (int64, error) {
	got := max(0, min(n, f.limit-f.reserved))
	f.reserved += got
	return got, nil
}

func (f *limitReserver) Unreserve(n int64) { f.reserved -= n }

// highCardRows are e2e rows whose string key k takes about groups values and whose integer i
// about as many (i is grouped by in the integer-key cases).
func highCardRows(n, groups int, seed int64) []e2eRow {
	rows := genRows(n, seed)
	r := rand.New(rand.NewSource(seed + 1))
	for x := range rows {
		if rows[x].k != nil && *rows[x].k != "allnull" {
			k := fmt.Sprintf("key-%d", r.Intn(groups))
			rows[x].k = &k
		}
		if rows[x].i != nil {
			v := int32(r.Intn(groups))
			rows[x].i = &v
		}
	}
	return rows
}

// spillRun runs node over batches with the given memory limit (0: none) and spill directory,
// returning its output rows as sorted strings, what it spilled and how many spill files remain
// after Close.
func spillRun(t *testing.T, n *plan.Node, schema []sparktype.Field, batches []*columnar.Batch, limit int64,
	dir string) (rows []string, spilled int64, err error) {
	t.Helper()
	rows, spilled, _, err = spillRunKeep(t, n, schema, batches, limit, dir, nil)
	return rows, spilled, err
}

// spillRunKeep is spillRun that also appends the output batches to keep (when not nil) and
// reports how often a partial aggregate flushed its groups early.
func spillRunKeep(t *testing.T, n *plan.Node, schema []sparktype.Field, batches []*columnar.Batch, limit int64,
	dir string, keep *[]*columnar.Batch) (rows []string, spilled int64, flushes int, err error) {
	t.Helper()
	src := &source{schema: schema, batches: batches}
	op, err := New(n, src, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatalf("build %s: %v", n.NodeName, err)
	}
	ctx := &exec.TaskContext{Conf: &plan.Conf{BatchSize: 1000}, Spill: memalloc.NewSpillFiles([]string{dir})}
	if limit > 0 {
		ctx.Alloc = memalloc.NewTaskAllocatorFor(&limitReserver{limit: limit}, 4*limit)
	} else {
		ctx.Alloc = memalloc.NewTaskAllocator(nil)
	}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		b, e := op.Next()
		if e != nil {
			err = e
			break
		}
		if b == nil {
			break
		}
		for _, row := range rowsOf([]*columnar.Batch{b}) {
			rows = append(rows, fmt.Sprint(row...))
		}
		if keep != nil {
			*keep = append(*keep, b)
		} else {
			b.Release()
		}
	}
	op.Close()
	mem, disk := op.SpillMetrics()
	deepestSpill = max(deepestSpill, op.spillDepth)
	if (mem == 0) != (disk == 0) {
		t.Errorf("spilled %d bytes in memory but %d on disk", mem, disk)
	}
	if c := ctx.Spill.Count(); c != 0 {
		t.Errorf("%d spill files left after Close", c)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spill directory not empty after Close: %v", left)
	}
	if used := ctx.Alloc.Used(); used != 0 && keep == nil {
		t.Errorf("%d bytes still allocated after Close", used)
	}
	if keep == nil {
		ctx.Alloc.ReleaseAll()
	}
	slices.Sort(rows)
	return rows, mem, op.flushes, err
}

// deepestSpill is the most levels of partitioning a spillRun went through.
var deepestSpill int

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: row %d: got %s, want %s", what, i, got[i], want[i])
			return
		}
	}
}

// TestSpillGivesTheSameGroups: with a memory limit far below its hash table, every mode spills
// (several times, and partitions again when a partition is still too big) and answers exactly as
// without a limit, for sums, counts, averages, min and max over integers, doubles, decimals and
// strings, keyed by a string, an integer, or several columns.
func TestSpillGivesTheSameGroups(t *testing.T) {
	rows := highCardRows(20000, 8000, 11)
	in := fieldsOf(t, e2eIn)
	deepestSpill = 0
	defer func() {
		if deepestSpill < 2 {
			t.Errorf("no spilled partition was partitioned again (deepest %d)", deepestSpill)
		}
	}()
	for i, tc := range []struct {
		name string
		keys []int
	}{{"string key", []int{0}}, {"int key", []int{1}}, {"composite key", []int{1, 4}},
		{"packed string key", []int{5}}, {"packed string and int key", []int{5, 1}},
		{"composite bytes key", []int{0, 1}}} {
		if memtest.Race && i%2 == 1 { // one key layout of each kind (memtest.Race)
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			plans := buildPlans(t, e2eIn, tc.keys, e2eAggs)
			batches := toBatches(rows, 700)
			defer release(batches)
			limits := []int64{384 << 10, 2 << 20}
			if memtest.Race { // the deeper spills only (memtest.Race)
				limits = limits[:1]
			}
			for _, limit := range limits {
				want, _, err := spillRun(t, plans.complete, in, batches, 0, t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				got, spilled, err := spillRun(t, plans.complete, in, batches, limit, t.TempDir())
				if err != nil {
					t.Fatalf("complete, limit %d: %v", limit, err)
				}
				if spilled == 0 {
					t.Errorf("complete, limit %d: nothing spilled", limit)
				}
				sameRows(t, fmt.Sprintf("complete, limit %d", limit), got, want)
			}

			// Partial emits its groups early instead (a key may come out several times: Final
			// merges them), which Final over its output shows.
			var flushed []*columnar.Batch
			_, spilled, flushes, err := spillRunKeep(t, plans.partial, in, batches, 1<<20, t.TempDir(), &flushed)
			defer release(flushed)
			if err != nil {
				t.Fatalf("partial: %v", err)
			}
			if flushes == 0 {
				t.Errorf("partial: no flush (%d bytes spilled)", spilled)
			}
			partials, err := run(t, plans.partial, in, batches)
			if err != nil {
				t.Fatal(err)
			}
			defer release(partials)
			wantF, _, err := spillRun(t, plans.final, plans.partialSchema, partials, 0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			gotF, spilled, err := spillRun(t, plans.final, plans.partialSchema, partials, 1<<20, t.TempDir())
			if err != nil {
				t.Fatalf("final: %v", err)
			}
			if spilled == 0 {
				t.Errorf("final: nothing spilled")
			}
			sameRows(t, "final", gotF, wantF)
			gotPF, _, err := spillRun(t, plans.final, plans.partialSchema, flushed, 0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, "final over flushed partials", gotPF, wantF)
		})
	}
}

// TestSpillFailsClearlyWhenNothingFits: when not even a few groups fit, the operator partitions
// again and again, then fails with the out-of-memory message; its spill files are gone after Close.
func TestSpillFailsClearlyWhenNothingFits(t *testing.T) {
	rows := highCardRows(5000, 3000, 12)
	plans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	batches := toBatches(rows, 500)
	defer release(batches)
	_, _, err := spillRun(t, plans.complete, fieldsOf(t, e2eIn), batches, 1, t.TempDir())
	if err == nil {
		t.Fatal("no error with a one-byte limit")
	}
	for _, want := range []string{"do not fit in memory", "raise spark.memory.offHeap.size"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestNoKeysDoesNotSpill: a global aggregate holds one group; out of memory it fails as before.
func TestNoKeysDoesNotSpill(t *testing.T) {
	plans := buildPlans(t, e2eIn, nil, e2eAggs)
	batches := toBatches(highCardRows(3000, 10, 13), 500)
	defer release(batches)
	_, spilled, err := spillRun(t, plans.complete, fieldsOf(t, e2eIn), batches, 1, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "raise spark.memory.offHeap.size") {
		t.Fatalf("got %v, want the out-of-memory error", err)
	}
	if spilled != 0 {
		t.Errorf("spilled %d bytes", spilled)
	}
}

// TestSpillWhileEmitting: memory that runs out while the groups are emitted (the consumer holds
// the output) sends the groups not emitted yet to disk; they are emitted from there, once each.
func TestSpillWhileEmitting(t *testing.T) {
	rows := highCardRows(20000, 8000, 14)
	in := fieldsOf(t, e2eIn)
	plans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	batches := toBatches(rows, 700)
	defer release(batches)
	want, _, err := spillRun(t, plans.complete, in, batches, 0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	op, err := New(plans.complete, &source{schema: in, batches: batches}, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	res := &limitReserver{limit: 1 << 40}
	ctx := &exec.TaskContext{Conf: &plan.Conf{BatchSize: 1000}, Spill: memalloc.NewSpillFiles([]string{dir}),
		Alloc: memalloc.NewTaskAllocatorFor(res, 16<<20)}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []*columnar.Batch
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		out = append(out, b)
		if len(out) == 1 {
			res.limit = res.reserved // nothing more: every later batch is over the limit
		}
		if err := ctx.Alloc.Err(); err != nil {
			t.Fatalf("after batch %d: %v", len(out), err)
		}
	}
	var got []string
	for _, row := range rowsOf(out) {
		got = append(got, fmt.Sprint(row...))
	}
	release(out)
	op.Close()
	slices.Sort(got)
	sameRows(t, "spilled while emitting", got, want)
	if mem, _ := op.SpillMetrics(); mem == 0 {
		t.Error("nothing spilled")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spill files left: %v", left)
	}
	ctx.Alloc.ReleaseAll()
}

// requestingReserver is a pool whose every reservation also asks the task to spill, as Spark's
// spill() on the block's consumer does when another consumer of the task wants memory: every
// safe point of the operator then sees a request, whatever it is doing (reading its input,
// merging a spilled partition, emitting).
type requestingReserver struct {
	limitReserver
	ctx *exec.TaskContext
}

func (r *requestingReserver) Reserve(n int64) (int64, error) {
	r.ctx.RequestSpill()
	return r.limitReserver.Reserve(n)
}

// Spill requests at every safe point of an aggregate that spills: the same groups, and a request
// that arrives while a spilled partition is merged leaves the partition's table alone (it used to
// free the table under the merge).
func TestSpillRequestsAtEverySafePoint(t *testing.T) {
	rows := highCardRows(20000, 8000, 15)
	in := fieldsOf(t, e2eIn)
	plans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	batches := toBatches(rows, 700)
	defer release(batches)
	want, _, err := spillRun(t, plans.complete, in, batches, 0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	op, err := New(plans.complete, &source{schema: in, batches: batches}, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &exec.TaskContext{Conf: &plan.Conf{BatchSize: 1000}, Spill: memalloc.NewSpillFiles([]string{dir})}
	res := &requestingReserver{limitReserver: limitReserver{limit: 384 << 10}, ctx: ctx}
	ctx.Alloc = memalloc.NewTaskAllocatorFor(res, res.limit)
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for _, row := range rowsOf([]*columnar.Batch{b}) {
			got = append(got, fmt.Sprint(row...))
		}
		b.Release()
		if err := ctx.RelieveMemory(); err != nil { // the block's safe point between batches
			t.Fatal(err)
		}
	}
	op.Close()
	slices.Sort(got)
	sameRows(t, "spill requested at every safe point", got, want)
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("spill files left: %v", left)
	}
	ctx.Alloc.ReleaseAll()
}
