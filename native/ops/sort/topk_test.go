package sort

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// runTopK checks the first limit rows natively against the reference's stable sort.
func runTopK(t *testing.T, src *coltest.Source, what string, typeNames []string, rows [][]any, keys []refKey, limit int64, batchSize int) {
	t.Helper()
	op, err := NewTopK(src, ordersFor(t, typeNames, keys), limit)
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, op, coltest.NewCtx(batchSize))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want := refSort(rows, keys)
	coltest.CompareRows(t, what, got, want[:min(int64(len(want)), limit)])
}

// Limits below, around and above the prune threshold and the input size, over inputs whose keys
// tie a lot (rows equal to the boundary must lose to earlier ones), in every direction.
func TestTopKAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, name := range []string{"long", "double", "string", "decimal(30,5)", "boolean", "date"} {
		types, rows := genRows(t, rng, []string{name, "integer"}, 6000, 0.1)
		names := []string{name, "integer", "long"}
		for _, limit := range []int64{0, 1, 7, 100, 1023, 1500, 5999, 6000, 10000} {
			keys := []refKey{{col: 0, kind: types[0].Kind, desc: rng.IntN(2) == 0, nullsFirst: rng.IntN(2) == 0}}
			if rng.IntN(2) == 0 {
				keys = append(keys, refKey{col: 1, kind: sparktype.Int, desc: rng.IntN(2) == 0, nullsFirst: rng.IntN(2) == 0})
			}
			src := newSource(t, rng, types, rows)
			runTopK(t, src, fmt.Sprintf("%s limit %d keys %+v", name, limit, keys), names, rows, keys, limit, 1+rng.IntN(700))
			src.Release()
		}
	}
}

// Rows arriving in ascending order never pass the boundary; in descending order every batch does:
// the prune runs again and again.
func TestTopKSortedInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	n := 20000
	asc := make([][]any, n)
	desc := make([][]any, n)
	for i := range asc {
		asc[i] = []any{int64(i / 3), int64(i)}
		desc[i] = []any{int64((n - i) / 3), int64(i)}
	}
	types := []sparktype.Type{sparktype.LongType, sparktype.LongType}
	keys := []refKey{{col: 0, kind: sparktype.Long, nullsFirst: true}}
	for _, rows := range [][][]any{asc, desc} {
		for _, limit := range []int64{5, 3000} {
			src := newSource(t, rng, types, rows)
			runTopK(t, src, fmt.Sprintf("limit %d", limit), []string{"long", "long"}, rows, keys, limit, 512)
			src.Release()
		}
	}
}

func TestTopKEmptyInput(t *testing.T) {
	types := []sparktype.Type{sparktype.StringType}
	src := coltest.EmptySource(t, types, 1)
	defer src.Release()
	runTopK(t, src, "empty", []string{"string"}, nil, []refKey{{col: 0, kind: sparktype.String}}, 10, 100)
}

func TestTopKFailsCleanlyWhenMemoryIsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	names := []string{"string", "long"}
	types, rows := genRows(t, rng, names, 5000, 0)
	for _, limit := range []int64{0, bmemory.DefaultChunk} {
		src, release := repeated(t, rng, types, rows, 200)
		// Limit 500k rows: the buffer grows past 8 MiB before the first prune.
		op, err := NewTopK(src, ordersFor(t, append(names, "long"), []refKey{{col: 0, kind: sparktype.String, desc: true}}), 500000)
		if err != nil {
			t.Fatal(err)
		}
		r := &coltest.Reserver{Limit: limit}
		ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(r), Conf: &plan.Conf{BatchSize: 1000}}
		_, err = drain(t, op, ctx)
		release()
		var oom *bmemory.ErrOutOfMemory
		if !errors.As(err, &oom) || !strings.Contains(err.Error(), "spark.memory.offHeap.size") {
			t.Errorf("limit %d: want the allocator's out-of-memory error, got %v", limit, err)
		}
		ctx.Alloc.ReleaseAll()
		if r.Reserved != 0 {
			t.Errorf("limit %d: %d bytes still reserved", limit, r.Reserved)
		}
	}
}

// With a small limit the buffer stays small whatever the input: memory is bounded by the limit.
func TestTopKMemoryIsBoundedByTheLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	names := []string{"string", "long"}
	types, rows := genRows(t, rng, names, 5000, 0.05)
	src, release := repeated(t, rng, types, rows, 100)
	defer release()
	op, err := NewTopK(src, ordersFor(t, append(names, "long"), []refKey{{col: 0, kind: sparktype.String}}), 10)
	if err != nil {
		t.Fatal(err)
	}
	r := &coltest.Reserver{Limit: bmemory.DefaultChunk}
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(r), Conf: &plan.Conf{BatchSize: 1000}}
	got, err := drain(t, op, ctx)
	if err != nil || len(got) != 10 {
		t.Fatalf("500k rows through an 8 MiB reservation: %d rows, %v", len(got), err)
	}
	ctx.Alloc.ReleaseAll()
}
