package aggregate

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
)

// TestSharedDecSumsMatchSeparate: sum(x) and avg(x) sharing one accumulator (shareDecSums) and
// the per-batch rows per group (groupRows) give exactly the output of separate accumulators and
// per-row walks: Partial buffers (overflowed sums as null, isEmpty flags, counts) and Complete
// results (LEGACY nulls, ANSI errors), over few and many groups, batches with and without nulls,
// all-null groups, empty batches, and values near the precision limit whose sums overflow 64 bits
// (they widen) and the buffer precision (they overflow).
func TestSharedDecSumsMatchSeparate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	shared, hist, errs, nulls := 0, 0, 0, 0
	for _, p := range []int32{12, 18, 28, 30, 38} {
		in := []col{{"k", "long", 1}, {"x", fmt.Sprintf("decimal(%d,2)", p), 2}, {"y", fmt.Sprintf("decimal(%d,2)", p), 3}}
		bt := fmt.Sprintf("decimal(%d,2)", min(38, p+10))
		rt := fmt.Sprintf("decimal(%d,6)", min(38, p+4))
		for _, mode := range []string{"ANSI", "LEGACY"} {
			sum := func(a int) aggFn {
				return aggFn{class: "Sum", args: []int{a}, evalMode: mode, result: bt, buffers: []string{bt, "boolean"}}
			}
			avg := func(a int) aggFn {
				return aggFn{class: "Average", args: []int{a}, evalMode: mode, result: rt, buffers: []string{bt, "long"}}
			}
			// avg before sum: either function can own the sum; y is shared by two avgs.
			aggs := []aggFn{avg(1), sum(1), sum(2), avg(2), avg(2), sum(1), {class: "Count", result: "long", buffers: []string{"long"}}}
			plans := buildPlans(t, in, []int{0}, aggs)
			schema := fieldsOf(t, in)
			for trial := 0; trial < 12; trial++ {
				batches := sharedBatches(r, p, trial)
				for ni, node := range []*plan.Node{plans.partial, plans.complete} {
					name := fmt.Sprintf("p%d/%s/%d/%s", p, mode, trial, []string{"partial", "complete"}[ni])
					noShareDecSums, noGroupRows = true, true
					want, werr := run(t, node, schema, batches)
					noShareDecSums, noGroupRows = false, false
					got, gerr := run(t, node, schema, batches)
					if fmt.Sprint(gerr) != fmt.Sprint(werr) {
						t.Fatalf("%s: error %v, want %v", name, gerr, werr)
					}
					if werr != nil {
						errs++
					}
					for _, row := range rowsOf(want) {
						for _, v := range row[1:] {
							if v == nil {
								nulls++
							}
						}
					}
					if g, w := rowsOf(got), rowsOf(want); !reflect.DeepEqual(g, w) {
						t.Fatalf("%s:\n got %v\nwant %v", name, g, w)
					}
					release(got)
					release(want)
				}
			}
			// The shared paths were taken: run the partial plan once more and look at its states.
			op, err := New(plans.partial, &source{schema: schema}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := op.Open(newCtx()); err != nil {
				t.Fatal(err)
			}
			for _, f := range op.st.cur.fns {
				switch f := f.(type) {
				case *sumDecimal:
					if f.borrowed {
						shared++
					}
				case *avgDecimal:
					if f.borrowed {
						shared++
					}
				}
			}
			op.Close()
		}
	}
	// Histogram use, checked directly.
	var gr groupRows
	b := columnar.NewBatch(nil, 64)
	gids := make([]uint32, 64)
	for i := range gids {
		gids[i] = uint32(i % 3)
	}
	gr.reset(b, gids, 3)
	if h := gr.counts(b, gids); reflect.DeepEqual(h, []int64{22, 21, 21}) {
		hist++
	}
	if gr.counts(b, gids[:10]) != nil || gr.counts(columnar.NewBatch(nil, 64), gids) != nil {
		t.Fatal("groupRows answered for other rows than its batch's")
	}
	if shared != 4*5*2 || hist != 1 || errs == 0 || nulls == 0 {
		t.Fatalf("shared functions %d (want 40), histogram %d, errors %d, nulls %d: a path was not tested",
			shared, hist, errs, nulls)
	}
	t.Logf("errors %d, null cells %d", errs, nulls)
}

// sharedBatches draws batches for TestSharedDecSumsMatchSeparate: key, x, y (y with other
// values and nulls).
func sharedBatches(r *rand.Rand, p int32, trial int) []*columnar.Batch {
	ng := 1 + r.IntN(6)
	if trial%4 == 3 {
		ng = 500 // more groups than the histogram takes
	}
	var out []*columnar.Batch
	for nb := 1 + r.IntN(6); nb > 0; nb-- {
		n := r.IntN(1200)
		if r.IntN(8) == 0 {
			n = 0
		}
		keys := make([]int64, n)
		xs, ys := make([]*big.Int, n), make([]*big.Int, n)
		var xv, yv []bool
		if r.IntN(3) == 0 {
			xv = make([]bool, n)
		}
		if r.IntN(2) == 0 {
			yv = make([]bool, n)
		}
		for i := range keys {
			keys[i] = int64(r.IntN(ng))
			xs[i] = randDec(r, p, trial).BigInt()
			ys[i] = randDec(r, p, trial+1).BigInt()
			if trial%3 == 0 {
				xs[i] = big.NewInt(r.Int64N(100000) - 50000) // sums that stay narrow
			}
			if xv != nil {
				xv[i] = keys[i] != 0 && r.IntN(4) != 0 // group 0 gets only nulls
			}
			if yv != nil {
				yv[i] = r.IntN(3) != 0
			}
		}
		out = append(out, columnar.NewBatch([]arrow.Array{i64Col(keys, nil), decCol(p, 2, xs, xv), decCol(p, 2, ys, yv)}, n))
	}
	return out
}

// TestSumFewAndHistogram: the interleaved loops (sumFew, histogram) equal the plain per-row
// loops, for every row count modulo 4, one to many groups, and values whose partial sums wrap
// while the total fits (two's complement adds are exact modulo 2^64). Scratch is reused across
// calls with shrinking and growing group counts.
func TestSumFewAndHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	var part, hbuf []int64
	for trial := 0; trial < 3000; trial++ {
		ng := 1 + r.IntN(20)
		n := r.IntN(200)
		gids := make([]uint32, n)
		vals := make([]int64, n)
		for i := range gids {
			gids[i] = uint32(r.IntN(ng))
			vals[i] = r.Int64N(1<<40) - 1<<39
			if trial%5 == 0 && i%2 == 1 { // a huge value and its negation: partials wrap
				vals[i-1] = math.MaxInt64 - r.Int64N(9)
				vals[i], gids[i] = -vals[i-1], gids[i-1]
			}
		}
		small, want := make([]int64, ng), make([]int64, ng)
		for g := range small {
			small[g] = r.Int64N(1000)
			want[g] = small[g]
		}
		wantH := make([]int64, ng)
		for i, g := range gids {
			want[g] += vals[i]
			wantH[g]++
		}
		part = sumFew(small, part, vals, gids)
		if !reflect.DeepEqual(small, want) {
			t.Fatalf("trial %d: sumFew %v, want %v", trial, small, want)
		}
		hbuf = histogram(hbuf, gids, ng)
		if !reflect.DeepEqual(hbuf, wantH) {
			t.Fatalf("trial %d: histogram %v, want %v", trial, hbuf, wantH)
		}
	}
}
