package window

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/expr"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// refPick is Spark's first_value, last_value or nth_value (n) of column c over rows (the frame),
// adding the rows in order as its update expressions do.
func refPick(op AggOp, n int64, ignoreNulls bool, rows [][]any, c int) any {
	var picked any
	var cnt int64
	set := false
	for _, r := range rows {
		v := r[c]
		if ignoreNulls && v == nil {
			continue
		}
		switch op {
		case AggFirst:
			if !set {
				picked, set = v, true
			}
		case AggLast:
			picked = v
		case AggNth:
			cnt++
			if cnt == n {
				picked = v
			}
		}
	}
	return picked
}

// refPickStep extends prev, the pick over rows but the last, by the last row (checked against
// refPick at intervals); for first_value and last_value.
func refPickStep(op AggOp, n int64, ignoreNulls bool, rows [][]any, c int, prev any) any {
	v := rows[len(rows)-1][c]
	if ignoreNulls && v == nil {
		return prev
	}
	switch op {
	case AggLast:
		return v
	}
	return prev // nth_value: n <= 40, so its pick is made in the rows refPick checks (the first 200)
}

func TestPicksMatchReference(t *testing.T) {
	types := coltest.Types(t, "long", "double", "string", "long")
	type pick struct {
		op    AggOp
		n     int64
		ign   bool
		c     int
		frame Frame
	}
	var picks []pick
	for _, fr := range []Frame{FrameRunningRows, FrameRunningRange, FramePartition} {
		for _, ign := range []bool{false, true} {
			for _, c := range []int{2, 3} {
				picks = append(picks, pick{AggFirst, 0, ign, c, fr}, pick{AggLast, 0, ign, c, fr},
					pick{AggNth, 1, ign, c, fr}, pick{AggNth, 3, ign, c, fr}, pick{AggNth, 40, ign, c, fr})
			}
		}
	}
	for _, tc := range []struct {
		name        string
		n, parts, b int
		limit       int64
	}{{"small partitions", 2000, 400, 37, 0}, {"one partition", 3000, 1, 256, 0}, {"few", 1500, 3, 7, 0},
		{"empty", 0, 1, 5, 0}, {"one partition spilled", 6000, 1, 256, 400 << 10},
		{"few spilled", 8000, 4, 100, 300 << 10}, {"spilled in small batches", 6000, 2, 7, 200 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(tc.n)))
			rows := genRows(rng, tc.n, tc.parts)
			src := coltest.NewSource(t, rng, types, rows, tc.b)
			col := func(i int) expr.Expr { return expr.NewColumn(i, "c", types[i]) }
			funcs := make([]*Function, len(picks))
			fields := make([]sparktype.Field, len(picks))
			for i, p := range picks {
				funcs[i] = &Function{Kind: Aggregate, Agg: p.op, Nth: p.n, IgnoreNulls: p.ign, Input: col(p.c), Frame: p.frame}
				fields[i] = sparktype.Field{Name: fmt.Sprint("p", i), Type: types[p.c], Nullable: true}
			}
			op, err := New(src, []expr.Expr{col(0)}, []expr.Expr{col(1)}, funcs, fields)
			if err != nil {
				t.Fatal(err)
			}
			ctx := coltest.NewCtx(64)
			if tc.limit > 0 {
				ctx.Alloc = bmemory.NewTaskAllocatorFor(&coltest.Reserver{Limit: tc.limit}, 8<<20)
				ctx.Spill = bmemory.NewSpillFiles([]string{t.TempDir()})
			}
			got, err := coltest.Drain(t, op, ctx, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if mem, _ := op.SpillMetrics(); tc.limit > 0 && mem == 0 {
				t.Fatalf("nothing spilled with %d bytes granted", tc.limit)
			}
			if ctx.Spill != nil && ctx.Spill.Count() != 0 {
				t.Fatalf("%d spill files left", ctx.Spill.Count())
			}
			if len(got) != len(rows) {
				t.Fatalf("%d rows, want %d", len(got), len(rows))
			}
			for lo := 0; lo < len(rows); {
				hi := lo
				for hi < len(rows) && keyEq(rows[hi][0], rows[lo][0]) {
					hi++
				}
				// prefix[k][j]: pick k over the partition's first j+1 rows.
				prefix := make([][]any, len(picks))
				for k, p := range picks {
					prefix[k] = make([]any, hi-lo)
					for j := range prefix[k] {
						if j < 200 || j%97 == 0 || j+1 == hi-lo {
							prefix[k][j] = refPick(p.op, p.n, p.ign, rows[lo:lo+j+1], p.c)
						} else {
							prefix[k][j] = refPickStep(p.op, p.n, p.ign, rows[lo:lo+j+1], p.c, prefix[k][j-1])
						}
					}
				}
				peerEnd := lo
				for i := lo; i < hi; i++ {
					if peerEnd <= i {
						peerEnd = i + 1
						for peerEnd < hi && keyEq(rows[peerEnd][1], rows[i][1]) {
							peerEnd++
						}
					}
					for k, p := range picks {
						end := map[Frame]int{FrameRunningRows: i + 1, FrameRunningRange: peerEnd, FramePartition: hi}[p.frame]
						want := prefix[k][end-lo-1]
						if g := got[i][len(types)+k]; !keyEq(g, want) {
							t.Fatalf("row %d pick %+v: got %v, want %v", i, p, g, want)
						}
					}
				}
				lo = hi
			}
		})
	}
}
