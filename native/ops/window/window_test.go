package window

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// keyEq is the reference key equality (Spark's: NaN = NaN, -0.0 = 0.0, null = null).
func keyEq(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if x, ok := a.(float64); ok {
		y := b.(float64)
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	}
	return a == b
}

// orderLess is Spark's ascending order with nulls first: NaN after everything.
func orderLess(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b != nil
	}
	x, y := a.(float64), b.(float64)
	if math.IsNaN(x) || math.IsNaN(y) {
		return !math.IsNaN(x)
	}
	return x < y
}

func genRows(rng *rand.Rand, n, parts int) [][]any {
	specials := []any{nil, math.NaN(), -0.0, 0.0, 1.5, -2.0, 3.0}
	rows := make([][]any, n)
	for i := range rows {
		var p any
		if rng.IntN(10) > 0 {
			p = int64(rng.IntN(parts))
		}
		var v any
		if rng.IntN(5) > 0 {
			v = strings.Repeat("x", rng.IntN(4)) + string(rune('a'+rng.IntN(26)))
		}
		var l any
		if rng.IntN(6) > 0 {
			l = int64(rng.IntN(2000)) - 1000
		}
		rows[i] = []any{p, specials[rng.IntN(len(specials))], v, l}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if !keyEq(a[0], b[0]) {
			return a[0] == nil || (b[0] != nil && a[0].(int64) < b[0].(int64))
		}
		return orderLess(a[1], b[1])
	})
	return rows
}

// reference computes row_number, rank, dense_rank, percent_rank, cume_dist, ntile(3),
// lag(v, 1), lead(v, 2, "d") naively.
func reference(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && keyEq(rows[hi][0], rows[lo][0]) {
			hi++
		}
		n := hi - lo
		part := rows[lo:hi]
		sums, avgs, maxs := refPrefix("sum", part, 1), refPrefix("avg", part, 3), refPrefix("max", part, 3)
		cnt, mn := refAgg("count", part, 1), refAgg("min", part, 3)
		ends := make([]int, n) // the last row of each row's peer group
		for i := hi - 1; i >= lo; i-- {
			ends[i-lo] = i
			if i+1 < hi && keyEq(rows[i+1][1], rows[i][1]) {
				ends[i-lo] = ends[i+1-lo]
			}
		}
		rank, dense := 1, 1
		for i := lo; i < hi; i++ {
			if i > lo && !keyEq(rows[i][1], rows[i-1][1]) {
				dense++
				rank = i - lo + 1
			}
			peersEnd := ends[i-lo]
			pr := 0.0
			if n > 1 {
				pr = float64(rank-1) / float64(n-1)
			}
			var lag, lead any
			if i-1 >= lo {
				lag = rows[i-1][2]
			}
			lead = "d"
			if i+2 < hi {
				lead = rows[i+2][2]
			}
			r := append(append([]any(nil), rows[i]...), int64(i-lo+1), int64(rank), int64(dense), pr,
				float64(peersEnd-lo+1)/float64(n), int64(refNtile(i-lo, n, 3)), lag, lead,
				sums[i-lo], avgs[peersEnd-lo], cnt, mn, maxs[i-lo])
			out[i] = r
		}
		lo = hi
	}
	return out
}

// refAgg aggregates column c of rows as Spark does (sums start from 0 and add in row order).
func refAgg(op string, rows [][]any, c int) any {
	var cnt int64
	var sum float64
	var m int64
	for _, r := range rows {
		if r[c] == nil {
			continue
		}
		var x float64
		if v, ok := r[c].(int64); ok {
			x = float64(v)
			if cnt == 0 || (op == "min" && v < m) || (op == "max" && v > m) {
				m = v
			}
		} else {
			x = r[c].(float64)
		}
		sum += x
		cnt++
	}
	switch {
	case op == "count":
		return cnt
	case cnt == 0:
		return nil
	case op == "sum":
		return sum
	case op == "avg":
		return sum / float64(cnt)
	}
	return m
}

// refPrefix returns refAgg of every prefix of rows (rows[:1], rows[:2], ...), in one pass.
func refPrefix(op string, rows [][]any, c int) []any {
	out := make([]any, len(rows))
	var cnt int64
	var sum float64
	var m int64
	for i, r := range rows {
		if r[c] != nil {
			var x float64
			if v, ok := r[c].(int64); ok {
				x = float64(v)
				if cnt == 0 || (op == "min" && v < m) || (op == "max" && v > m) {
					m = v
				}
			} else {
				x = r[c].(float64)
			}
			sum += x
			cnt++
		}
		switch {
		case op == "count":
			out[i] = cnt
		case cnt == 0:
			out[i] = nil
		case op == "sum":
			out[i] = sum
		case op == "avg":
			out[i] = sum / float64(cnt)
		default:
			out[i] = m
		}
	}
	return out
}

// refNtile deals rows out as Spark's NTile does: bucket sizes differ by at most one, larger first.
func refNtile(r, n, k int) int {
	b, start := 1, 0
	for ; b <= k; b++ {
		size := n / k
		if b <= n%k {
			size++
		}
		if r < start+size {
			return b
		}
		start += size
	}
	return k
}

func TestWindowMatchesReference(t *testing.T) {
	types := coltest.Types(t, "long", "double", "string", "long")
	intT, dblT := coltest.Type(t, "integer"), coltest.Type(t, "double")
	for _, tc := range []struct {
		name        string
		n, parts, b int
		// limit: the memory Spark grants (0: all it is asked): the partitions larger than it spill.
		limit int64
	}{{"small partitions", 2000, 400, 37, 0}, {"one partition", 3000, 1, 256, 0}, {"few", 1500, 3, 7, 0},
		{"empty", 0, 1, 5, 0}, {"one partition spilled", 6000, 1, 256, 80 << 10},
		{"few spilled", 8000, 4, 100, 48 << 10}, {"spilled in small batches", 6000, 2, 7, 112 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(tc.n)))
			rows := genRows(rng, tc.n, tc.parts)
			src := coltest.NewSource(t, rng, types, rows, tc.b)
			col := func(i int) expr.Expr { return expr.NewColumn(i, "c", types[i]) }
			funcs := []*Function{{Kind: RowNumber}, {Kind: Rank}, {Kind: DenseRank}, {Kind: PercentRank},
				{Kind: CumeDist}, {Kind: NTile, Buckets: 3},
				{Kind: Offset, Input: col(2), Rows: -1}, {Kind: Offset, Input: col(2), Rows: 2, Default: "d"},
				{Kind: Aggregate, Agg: AggSum, Input: col(1), Frame: FrameRunningRows},
				{Kind: Aggregate, Agg: AggAvg, Input: col(3), Frame: FrameRunningRange},
				{Kind: Aggregate, Agg: AggCount, Input: col(1), Frame: FramePartition},
				{Kind: Aggregate, Agg: AggMin, Input: col(3), Frame: FramePartition},
				{Kind: Aggregate, Agg: AggMax, Input: col(3), Frame: FrameRunningRows}}
			fields := []sparktype.Field{{Name: "rn", Type: intT}, {Name: "rk", Type: intT}, {Name: "dr", Type: intT},
				{Name: "pr", Type: dblT}, {Name: "cd", Type: dblT}, {Name: "nt", Type: intT},
				{Name: "lag", Type: types[2], Nullable: true}, {Name: "lead", Type: types[2], Nullable: true},
				{Name: "s", Type: dblT}, {Name: "a", Type: dblT}, {Name: "n", Type: types[0]},
				{Name: "mn", Type: types[0]}, {Name: "mx", Type: types[0]}}
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
			if mem, disk := op.SpillMetrics(); tc.limit > 0 && (mem == 0 || disk == 0) {
				t.Fatalf("nothing spilled with %d bytes granted", tc.limit)
			} else if tc.limit == 0 && mem != 0 {
				t.Fatalf("spilled %d bytes with all memory granted", mem)
			}
			if ctx.Spill != nil && ctx.Spill.Count() != 0 {
				t.Fatalf("%d spill files left", ctx.Spill.Count())
			}
			want := reference(rows)
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range want {
				for c := range want[i] {
					if !sameValue(got[i][c], want[i][c]) || (c == 1 && got[i][c] != nil &&
						math.Signbit(got[i][c].(float64)) != math.Signbit(want[i][c].(float64))) {
						t.Fatalf("row %d column %d: got %s, want %s", i, c, coltest.ShowRow(got[i]), coltest.ShowRow(want[i]))
					}
				}
			}
		})
	}
}

func TestNtileMatchesDealing(t *testing.T) {
	for n := 1; n < 40; n++ {
		for k := int64(1); k < 12; k++ {
			for r := 0; r < n; r++ {
				if got, want := ntile(r, n, k), refNtile(r, n, int(k)); got != want {
					t.Fatalf("ntile(r=%d, n=%d, k=%d) = %d, want %d", r, n, k, got, want)
				}
			}
		}
	}
}

// sameValue compares results: doubles bit for bit except that any NaN matches any NaN.
func sameValue(a, b any) bool {
	if x, ok := a.(float64); ok {
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y)))
	}
	return keyEq(a, b)
}

func TestAnsiSumOverflowAndRefusedMemory(t *testing.T) {
	types := coltest.Types(t, "long")
	rows := [][]any{{int64(math.MaxInt64)}, {int64(1)}}
	src := coltest.NewSource(t, rand.New(rand.NewPCG(1, 2)), types, rows, 1)
	f := &Function{Kind: Aggregate, Agg: AggSum, Input: expr.NewColumn(0, "c", types[0]), Frame: FramePartition, Ansi: true}
	op, err := New(src, nil, nil, []*Function{f}, []sparktype.Field{{Name: "s", Type: types[0], Nullable: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := coltest.Drain(t, op, coltest.NewCtx(64), 10); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Fatalf("want long overflow, got %v", err)
	}

	// One partition larger than the memory Spark grants spills and gets its row numbers.
	big := make([][]any, 200000)
	for i := range big {
		big[i] = []any{int64(i)}
	}
	src = coltest.NewSource(t, rand.New(rand.NewPCG(3, 4)), types, big, 4096)
	op, err = New(src, nil, nil, []*Function{{Kind: RowNumber}}, []sparktype.Field{{Name: "rn", Type: coltest.Type(t, "integer")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := coltest.NewCtx(4096)
	ctx.Alloc = bmemory.NewTaskAllocator(&coltest.Reserver{Limit: 256 << 10})
	got, err := coltest.Drain(t, op, ctx, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if r[0] != int64(i) || r[1] != int64(i+1) {
			t.Fatalf("row %d: %s", i, coltest.ShowRow(r))
		}
	}
	if mem, _ := op.SpillMetrics(); mem == 0 {
		t.Fatal("a partition 3 times the memory granted did not spill")
	}
	ctx.Alloc.ReleaseAll()

	// A RANGE frame and cume_dist over one peer group larger than the memory granted (then a
	// group of one row): the lookahead finds the group's end and its sum without holding its rows.
	types2 := coltest.Types(t, "long", "long")
	for i := range big {
		z := int64(0)
		if i == len(big)-1 {
			z = 1
		}
		big[i] = append(big[i], z)
	}
	src = coltest.NewSource(t, rand.New(rand.NewPCG(3, 4)), types2, big, 4096)
	k, zero := expr.NewColumn(0, "c", types[0]), expr.NewColumn(1, "z", types[0])
	op, err = New(src, nil, []expr.Expr{zero}, []*Function{{Kind: Aggregate, Agg: AggSum, Input: k, Frame: FrameRunningRange}, {Kind: CumeDist}},
		[]sparktype.Field{{Name: "s", Type: types[0], Nullable: true}, {Name: "cd", Type: coltest.Type(t, "double")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx = coltest.NewCtx(4096)
	ctx.Alloc = bmemory.NewTaskAllocator(&coltest.Reserver{Limit: 256 << 10})
	got, err = coltest.Drain(t, op, ctx, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(big))
	for i, r := range got {
		wantSum, wantCD := (n-2)*(n-1)/2, float64(n-1)/float64(n)
		if i == len(big)-1 {
			wantSum, wantCD = (n-1)*n/2, 1
		}
		if r[0] != int64(i) || r[2] != wantSum || r[3] != wantCD {
			t.Fatalf("row %d: %s, want sum %d, cume_dist %v", i, coltest.ShowRow(r), wantSum, wantCD)
		}
	}
	if mem, _ := op.SpillMetrics(); mem == 0 {
		t.Fatal("a peer group 6 times the memory granted did not spill")
	}
	if ctx.Spill != nil && ctx.Spill.Count() != 0 {
		t.Fatalf("%d spill files left", ctx.Spill.Count())
	}
	op.Close()
	ctx.Alloc.ReleaseAll()
}

// requestingSource asks the task to spill and relieves its memory every few batches, as Spark's
// request reaches a block at a safe point of an operator below the window.
type requestingSource struct {
	exec.Operator
	ctx   *exec.TaskContext
	n     int
	every int
}

func (s *requestingSource) Open(ctx *exec.TaskContext) error {
	s.ctx = ctx
	return s.Operator.Open(ctx)
}

func (s *requestingSource) Next() (*columnar.Batch, error) {
	s.n++
	if s.n%s.every == 0 {
		s.ctx.RequestSpill()
		if err := s.ctx.RelieveMemory(); err != nil {
			return nil, err
		}
	}
	return s.Operator.Next()
}

// TestSpillOnRequest: asked to spill with all memory granted, the window writes its open
// partition to disk once it holds 1 MiB, and answers the same.
func TestSpillOnRequest(t *testing.T) {
	types := coltest.Types(t, "long", "double", "string", "long")
	rng := rand.New(rand.NewPCG(11, 12))
	rows := genRows(rng, 120000, 2)
	col := func(i int) expr.Expr { return expr.NewColumn(i, "c", types[i]) }
	src := &requestingSource{Operator: coltest.NewSource(t, rng, types, rows, 1024), every: 5}
	funcs := []*Function{{Kind: RowNumber}, {Kind: Offset, Input: col(2), Rows: -1},
		{Kind: Aggregate, Agg: AggSum, Input: col(1), Frame: FrameRunningRows}}
	fields := []sparktype.Field{{Name: "rn", Type: coltest.Type(t, "integer")}, {Name: "lag", Type: types[2], Nullable: true},
		{Name: "s", Type: coltest.Type(t, "double")}}
	op, err := New(src, []expr.Expr{col(0)}, []expr.Expr{col(1)}, funcs, fields)
	if err != nil {
		t.Fatal(err)
	}
	ctx := coltest.NewCtx(1024)
	ctx.Spill = bmemory.NewSpillFiles([]string{t.TempDir()})
	got, err := coltest.Drain(t, op, ctx, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if mem, _ := op.SpillMetrics(); mem < requestSpillMin {
		t.Fatalf("spilled %d bytes on request", mem)
	}
	want := reference(rows)
	for i := range want {
		for c, w := range []int{0, 1, 2, 3, 4, 10, 12} {
			if !sameValue(got[i][c], want[i][w]) {
				t.Fatalf("row %d column %d: got %s, want %s", i, c, coltest.ShowRow(got[i]), coltest.ShowRow(want[i]))
			}
		}
	}
}
