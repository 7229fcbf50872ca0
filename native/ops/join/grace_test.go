package join

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/memory/memtest"
	"github.com/bolide-dev/bolide/native/plan"
)

// runGrace joins through a pool of limit bytes with MayReorder: the same rows as the reference,
// in any order. It returns the bytes the join spilled.
func (c joinCase) runGrace(t *testing.T, rng *rand.Rand, left, right [][]any, limit int64) int64 {
	t.Helper()
	types := c.sideTypes(t)
	ls := coltest.NewSource(t, rng, types, left, 500)
	rs := coltest.NewSource(t, rng, types, right, 500)
	defer ls.Release()
	defer rs.Release()
	spec := c.spec(t, ls.Fields, rs.Fields)
	spec.MayReorder = true
	op, err := NewHashJoin(ls, rs, spec)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	dir := t.TempDir()
	r := &coltest.Reserver{Limit: limit}
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocatorFor(r, limit), Conf: &plan.Conf{BatchSize: 1000},
		Spill: bmemory.NewSpillFiles([]string{dir})}
	got, err := coltest.Drain(t, op, ctx, 1000)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	want := c.reference(t, len(c.keyTypes)).run(left, right, len(types), len(types))
	coltest.SortRows(got)
	coltest.SortRows(want)
	coltest.CompareRows(t, fmt.Sprintf("%s limit=%d", c, limit), got, want)
	if n := ctx.Spill.Count(); n != 0 {
		t.Errorf("%s: %d spill files left", c, n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s: spill directory not empty: %v", c, left)
	}
	ctx.Alloc.ReleaseAll()
	if r.Reserved != 0 {
		t.Errorf("%s: %d bytes still reserved", c, r.Reserved)
	}
	mem, disk := op.SpillMetrics()
	if (mem == 0) != (disk == 0) {
		t.Errorf("%s: spilled %d bytes in memory, %d on disk", c, mem, disk)
	}
	return mem
}

// A build side many times the pool: the join partitions both sides to disk and joins the
// partitions, for every join shape (outer sides, semi, anti, existence), with and without a
// condition, null keys on both sides, over one-word, two-word and byte keys.
func TestGraceJoinGivesTheSameRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	cell := 0
	for _, keys := range [][]string{{"long"}, {"integer", "date"}, {"string"}, {"string", "long"}} {
		for _, sh := range joinShapes {
			for _, cond := range []bool{false, true} {
				if cell++; memtest.Race && cell%3 != 0 {
					continue
				}
				c := joinCase{keyTypes: keys, typ: sh.typ, build: sh.build, cond: cond, normalize: true}
				types := c.sideTypes(t)
				left := coltest.GenRows(rng, types, 3000, 0.05, genValue)
				right := coltest.GenRows(rng, types, 3000, 0.05, genValue)
				// The first key over a wide domain (nulls kept), so that rows have a few matches each.
				for _, side := range [][][]any{left, right} {
					for i := range side {
						side[i][len(keys)] = int64(rng.IntN(5))
						if side[i][0] == nil {
							continue
						}
						switch keys[0] {
						case "long":
							side[i][0] = int64(rng.IntN(2000))
						case "integer":
							side[i][0] = int64(rng.IntN(2000))
						case "string":
							side[i][0] = fmt.Sprintf("key-%d", rng.IntN(2000))
						}
					}
				}
				if spilled := c.runGrace(t, rng, left, right, 128<<10); spilled == 0 {
					t.Errorf("%s: nothing spilled", c)
				}
			}
		}
	}
}

// Without MayReorder (the join's order is read above it) the join does not partition: a build
// side over its memory fails with the allocator's message, as before.
func TestGraceNeedsMayReorder(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	c := joinCase{keyTypes: []string{"long"}, typ: Inner, build: BuildRight}
	types := c.sideTypes(t)
	rows := coltest.GenRows(rng, types, 20000, 0, genValue)
	ls := coltest.NewSource(t, rng, types, rows, 500)
	rs := coltest.NewSource(t, rng, types, rows, 500)
	defer ls.Release()
	defer rs.Release()
	op, err := NewHashJoin(ls, rs, c.spec(t, ls.Fields, rs.Fields))
	if err != nil {
		t.Fatal(err)
	}
	r := &coltest.Reserver{Limit: 256 << 10}
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocatorFor(r, r.Limit), Conf: &plan.Conf{BatchSize: 1000}}
	if _, err := coltest.Drain(t, op, ctx, 1000); err == nil {
		t.Fatal("a build side over the pool without MayReorder succeeded")
	}
	ctx.Alloc.ReleaseAll()
}
