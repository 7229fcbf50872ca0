package join

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
)

// fakeStorage is Spark's storage memory: it grants while grant is set and counts what is held.
type fakeStorage struct {
	grant    bool
	reserved atomic.Int64
}

func (f *fakeStorage) ReserveStorage(n int64) (bool, error) {
	if !f.grant {
		return false, nil
	}
	f.reserved.Add(n)
	return true, nil
}
func (f *fakeStorage) ReleaseStorage(n int64) { f.reserved.Add(-n) }

var nextBroadcast atomic.Int64

// runSharedTask runs one task of a broadcast join over the broadcast id: its own sources of the
// same rows, its own context, the shared build when there is one. It returns the rows and whether
// the task read its build child.
func runSharedTask(t *testing.T, c joinCase, id int64, storage *fakeStorage, left, right [][]any, seed uint64) ([][]any, bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	types := c.sideTypes(t)
	ls := coltest.NewSource(t, rng, types, left, 90)
	rs := coltest.NewSource(t, rng, types, right, 90)
	defer ls.Release()
	defer rs.Release()
	spec := c.spec(t, ls.Fields, rs.Fields)
	spec.Shared = &SharedBuild{Input: 3, Key: c.String()}
	op, err := NewHashJoin(ls, rs, spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := coltest.NewCtx(64)
	ctx.Storage, ctx.Broadcasts, ctx.Pool = storage, map[int]int64{3: id}, 1<<30
	got, err := coltest.Drain(t, op, ctx, max(64, 90))
	if err != nil {
		t.Fatal(err)
	}
	build := rs
	if c.build == BuildLeft {
		build = ls
	}
	return got, build.Pos > 0
}

// The tasks of an executor probe one build of a broadcast: the first task builds and publishes it,
// the later ones (and those running at the same time, under the race detector) probe it without
// reading their build child, with the same answers; it stays cached after its tasks, holds
// storage memory until dropped, and a refused storage reservation leaves every task its own copy.
func TestSharedBroadcastBuild(t *testing.T) {
	shapes := []joinCase{
		{keyTypes: []string{"long"}, typ: Inner, build: BuildRight},
		{keyTypes: []string{"string", "integer"}, typ: LeftOuter, build: BuildRight, cond: true},
		{keyTypes: []string{"long", "long", "string"}, typ: LeftSemi, build: BuildRight},
		{keyTypes: []string{"decimal(20,3)"}, typ: RightOuter, build: BuildLeft},
		{keyTypes: []string{"date", "timestamp"}, typ: Existence, build: BuildRight},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range shapes {
		c.normalize = true
		t.Run(c.String(), func(t *testing.T) {
			types := c.sideTypes(t)
			left := coltest.GenRows(rng, types, 300, 0.1, genValue)
			right := coltest.GenRows(rng, types, 200, 0.1, genValue)
			want := c.reference(t, len(c.keyTypes)).run(left, right, len(types), len(types))
			storage := &fakeStorage{grant: true}
			id := nextBroadcast.Add(1)
			before := SharedBuilds()

			got, read := runSharedTask(t, c, id, storage, left, right, 1)
			coltest.CompareRows(t, "first task", got, want)
			if !read || SharedBuilds() != before+1 || storage.reserved.Load() <= 0 {
				t.Fatalf("the first task must build and publish: read %v, builds %d, storage %d",
					read, SharedBuilds()-before, storage.reserved.Load())
			}
			// Later tasks, four at a time: none reads its build child.
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, read := runSharedTask(t, c, id, storage, left, right, uint64(10+i))
					coltest.CompareRows(t, fmt.Sprintf("task %d", i), got, want)
					if read {
						t.Errorf("task %d read its build child: the shared build was not used", i)
					}
				}()
			}
			wg.Wait()
			if SharedBuilds() != before+1 {
				t.Errorf("%d builds published, want 1", SharedBuilds()-before)
			}
			DropIdleShared(storage)
			if n := storage.reserved.Load(); n != 0 {
				t.Errorf("%d bytes of storage memory held after the idle builds were dropped", n)
			}

			// Storage memory refused: every task builds its own, with the same answer.
			refused := &fakeStorage{}
			id = nextBroadcast.Add(1)
			for i := range 2 {
				got, read := runSharedTask(t, c, id, refused, left, right, uint64(20+i))
				coltest.CompareRows(t, "refused", got, want)
				if !read {
					t.Errorf("without storage memory task %d must build its own", i)
				}
			}
			if SharedBuilds() != before+1 {
				t.Errorf("a build was published without storage memory")
			}
		})
	}
}

// Idle builds beyond the cap go, the least recently used first; a build in use stays.
func TestSharedIdleCap(t *testing.T) {
	c := joinCase{keyTypes: []string{"long"}, typ: Inner, build: BuildRight, normalize: true}
	rng := rand.New(rand.NewPCG(5, 6))
	types := c.sideTypes(t)
	left := coltest.GenRows(rng, types, 50, 0.1, genValue)
	right := coltest.GenRows(rng, types, 5000, 0.1, genValue)
	storage := &fakeStorage{grant: true}
	DropIdleShared(storage)
	var ids []int64
	for range 3 {
		id := nextBroadcast.Add(1)
		ids = append(ids, id)
		runSharedTask(t, c, id, storage, left, right, 1)
	}
	one := storage.reserved.Load() / 3
	if one <= 0 {
		t.Fatal("no storage memory held by the idle builds")
	}
	// A task whose pool makes the cap hold about one build: releasing its reference evicts the
	// others, the least recently used first.
	ctx := &exec.TaskContext{Storage: storage, Pool: 6 * one}
	e, owner, _ := acquireShared(sharedKey{broadcast: ids[2], build: sharedKeyOf(t, c)})
	if e == nil || owner {
		t.Fatal("the last build is not cached")
	}
	releaseShared(ctx, e)
	if n := storage.reserved.Load(); n != one {
		t.Errorf("after eviction %d bytes held, want one build's %d", n, one)
	}
	DropIdleShared(storage)
	if n := storage.reserved.Load(); n != 0 {
		t.Errorf("%d bytes held after dropping", n)
	}
}

// sharedKeyOf is the build key runSharedTask's joins get.
func sharedKeyOf(t *testing.T, c joinCase) string {
	types := c.sideTypes(t)
	ls := coltest.EmptySource(t, types, 0)
	rs := coltest.EmptySource(t, types, 0)
	spec := c.spec(t, ls.Fields, rs.Fields)
	spec.Shared = &SharedBuild{Input: 3, Key: c.String()}
	h, err := NewHashJoin(ls, rs, spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := coltest.NewCtx(64)
	ctx.Storage, ctx.Broadcasts = &fakeStorage{}, map[int]int64{3: 0}
	if err := h.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	k, _ := h.sharedKeyFor(ctx)
	return k.build
}

// A shared build that does not fit the task's memory goes to grace partitions like any other: no
// partition's build may be published as the broadcast's (the tasks after it would probe one
// partition's rows only), and every task gets every row.
func TestSharedBuildUnderGrace(t *testing.T) {
	c := joinCase{keyTypes: []string{"long"}, typ: Inner, build: BuildRight, normalize: true}
	rng := rand.New(rand.NewPCG(8, 9))
	types := c.sideTypes(t)
	left := coltest.GenRows(rng, types, 3000, 0.05, genValue)
	right := coltest.GenRows(rng, types, 20000, 0.05, genValue)
	for i := range right {
		right[i][0] = int64(i % 5000)
	}
	for i := range left {
		left[i][0] = int64(rng.IntN(6000))
	}
	want := c.reference(t, len(c.keyTypes)).run(left, right, len(types), len(types))
	coltest.SortRows(want)
	storage := &fakeStorage{grant: true}
	id := nextBroadcast.Add(1)
	before := SharedBuilds()
	for task := range 3 {
		ls := coltest.NewSource(t, rng, types, left, 500)
		rs := coltest.NewSource(t, rng, types, right, 500)
		spec := c.spec(t, ls.Fields, rs.Fields)
		spec.MayReorder = true
		spec.Shared = &SharedBuild{Input: 1, Key: "grace"}
		op, err := NewHashJoin(ls, rs, spec)
		if err != nil {
			t.Fatal(err)
		}
		const limit = 256 << 10
		r := &coltest.Reserver{Limit: limit}
		ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocatorFor(r, limit), Conf: &plan.Conf{BatchSize: 1000},
			Spill: bmemory.NewSpillFiles([]string{t.TempDir()}), Storage: storage,
			Broadcasts: map[int]int64{1: id}, Pool: limit}
		got, err := coltest.Drain(t, op, ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		coltest.SortRows(got)
		coltest.CompareRows(t, fmt.Sprintf("task %d", task), got, want)
		if mem, _ := op.SpillMetrics(); mem == 0 {
			t.Errorf("task %d: the join did not go to grace partitions", task)
		}
		ctx.Alloc.ReleaseAll()
		ls.Release()
		rs.Release()
	}
	if n := SharedBuilds() - before; n != 0 {
		t.Errorf("%d builds published from grace partitions", n)
	}
	DropIdleShared(storage)
}

// A task that finds its build being built by another task waits for it: when the builder gives up
// (abandons), the waiter builds and publishes it itself; when the builder adds no batch for
// sharedStall (it may be waiting for memory the waiter holds), the waiter builds a private copy
// and publishes nothing.
func TestSharedBuildWaitsForTheBuilder(t *testing.T) {
	c := joinCase{keyTypes: []string{"long"}, typ: Inner, build: BuildRight, normalize: true}
	rng := rand.New(rand.NewPCG(5, 6))
	types := c.sideTypes(t)
	left := coltest.GenRows(rng, types, 200, 0.1, genValue)
	right := coltest.GenRows(rng, types, 200, 0.1, genValue)
	want := c.reference(t, len(c.keyTypes)).run(left, right, len(types), len(types))
	coltest.SortRows(want)
	storage := &fakeStorage{grant: true}
	defer DropIdleShared(storage)
	build := sharedKeyOf(t, c)

	t.Run("abandoned", func(t *testing.T) {
		id := nextBroadcast.Add(1)
		claim, owner, _ := acquireShared(sharedKey{broadcast: id, build: build})
		if !owner {
			t.Fatal("the key was not free")
		}
		// The builder progresses for longer than sharedStall, then abandons.
		go func() {
			for range 6 {
				time.Sleep(sharedStall / 3)
				claim.progress.Add(1)
			}
			abandonShared(claim)
		}()
		before := SharedBuilds()
		start := time.Now()
		got, read := runSharedTask(t, c, id, storage, left, right, 1)
		if waited := time.Since(start); waited < 2*sharedStall {
			t.Errorf("the task went on after %v, before the builder gave up", waited)
		}
		coltest.SortRows(got)
		coltest.CompareRows(t, "waiter", got, want)
		if !read || SharedBuilds() != before+1 {
			t.Errorf("read its build child: %v, builds published: %d; want the waiter to build and publish", read, SharedBuilds()-before)
		}
	})

	t.Run("stalled", func(t *testing.T) {
		id := nextBroadcast.Add(1)
		claim, owner, _ := acquireShared(sharedKey{broadcast: id, build: build})
		if !owner {
			t.Fatal("the key was not free")
		}
		defer abandonShared(claim)
		before := SharedBuilds()
		start := time.Now()
		got, read := runSharedTask(t, c, id, storage, left, right, 2)
		if waited := time.Since(start); waited < sharedStall {
			t.Errorf("the task went on after %v, before the stall limit", waited)
		}
		coltest.SortRows(got)
		coltest.CompareRows(t, "private copy", got, want)
		if !read || SharedBuilds() != before {
			t.Errorf("read its build child: %v, builds published: %d; want a private copy", read, SharedBuilds()-before)
		}
	})
}
