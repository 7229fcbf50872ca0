package aggregate

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"
)

func gkOf(relErr float64, vals ...float64) *gkSummary {
	s := newGKSummary(relErr)
	for _, v := range vals {
		s.insert(v)
	}
	return s
}

func gkQuery(s *gkSummary, p float64) float64 {
	if !s.compressed {
		s.compress()
	}
	return s.query(p)
}

// The examples of Spark's ExpressionDescription (accuracy 100).
func TestApproxPercentileSparkExamples(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		p    float64
		want float64
	}{
		{[]float64{0, 6, 7, 9, 10}, 0.5, 7},
		{[]float64{0, 1, 2, 10}, 0.5, 1},
		{[]float64{0, 1, 2, 10}, 0.4, 1},
		{[]float64{0, 1, 2, 10}, 0.1, 0},
		{[]float64{10}, 0.5, 10},
		{[]float64{10}, 0, 10},
		{[]float64{5, 1, 3}, 1, 5},
		{[]float64{5, 1, 3}, 0.001, 1},
	} {
		if got := gkQuery(gkOf(0.01, tc.vals...), tc.p); got != tc.want {
			t.Errorf("percentile_approx(%v, %v, 100) = %v, want %v", tc.vals, tc.p, got, tc.want)
		}
	}
}

// The serialized digest of [3, 1, 2] at accuracy 100, derived by hand from Spark's steps: the head
// sorted to 1, 2, 3 (deltas 0: the first, floor(0.04) and the last), nothing merged (threshold
// 0.06), compressThreshold 10000.
func TestApproxPercentileBufferBytes(t *testing.T) {
	got := gkOf(0.01, 3, 1, 2).serialize(nil)
	want := binary.BigEndian.AppendUint32(nil, 10000)
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(0.01))
	want = binary.BigEndian.AppendUint64(want, 3)
	want = binary.BigEndian.AppendUint32(want, 3)
	for _, v := range []float64{1, 2, 3} {
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(v))
		want = binary.BigEndian.AppendUint64(want, 1)
		want = binary.BigEndian.AppendUint64(want, 0)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("buffer\n got %x\nwant %x", got, want)
	}
	back, err := deserializeGK(got)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.serialize(nil); !slices.Equal(again, got) {
		t.Fatalf("round trip changed the buffer: %x", again)
	}
	if _, err := deserializeGK(got[:len(got)-1]); err == nil {
		t.Fatal("a truncated buffer was accepted")
	}
}

// Over many values (the head flushed at 50000, compressions), single summaries and merges of
// partial ones stay within Spark's rank guarantee, and merging follows Spark's rules for empty
// sides.
func TestApproxPercentileLargeAndMerged(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const n = 130000
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.Floor(rng.NormFloat64() * 1000)
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	rankOK := func(v, p, eps float64) bool {
		lo, _ := slices.BinarySearch(sorted, v)
		hi := lo
		for hi < n && sorted[hi] == v {
			hi++
		}
		target := p * n
		return float64(lo)-2*eps*n <= target && target <= float64(hi)+2*eps*n
	}
	whole := gkOf(0.001, vals...)
	if len(whole.head) != n-2*gkHeadSize || whole.count != 2*gkHeadSize {
		t.Fatalf("head %d, count %d after %d inserts", len(whole.head), whole.count, n)
	}
	parts := []*gkSummary{gkOf(0.001, vals[:70000]...), gkOf(0.001), gkOf(0.001, vals[70000:]...)}
	merged := newGKSummary(0.001)
	for _, p := range parts {
		b, err := deserializeGK(p.serialize(nil))
		if err != nil {
			t.Fatal(err)
		}
		merged.mergeFrom(b)
	}
	if merged.count != n {
		t.Fatalf("merged count %d", merged.count)
	}
	for _, p := range []float64{0, 0.0005, 0.01, 0.25, 0.5, 0.75, 0.99, 0.9995, 1} {
		for name, s := range map[string]*gkSummary{"whole": whole, "merged": merged} {
			if v := gkQuery(s, p); !rankOK(v, p, 0.001) {
				t.Errorf("%s: percentile %v = %v, outside the error bound", name, p, v)
			}
		}
	}
	// An empty side leaves the other as it is.
	one := gkOf(0.01, 1, 2, 3)
	one.compress()
	before := one.serialize(nil)
	one.mergeFrom(newGKSummary(0.01))
	if !slices.Equal(one.serialize(nil), before) {
		t.Fatal("merging an empty digest changed the summary")
	}
	empty := newGKSummary(0.01)
	empty.mergeFrom(one)
	if !slices.Equal(empty.serialize(nil), before) {
		t.Fatal("merging into an empty digest did not copy the other")
	}
}

func TestJavaDoubleCompare(t *testing.T) {
	nan := math.NaN()
	order := []float64{math.Inf(-1), -1, math.Copysign(0, -1), 0, 1, math.Inf(1), nan}
	for i := range order {
		for j := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := javaDoubleCompare(order[i], order[j]); got != want {
				t.Errorf("compare(%v, %v) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	vals := []float64{0, math.Copysign(0, -1), nan, -5, 0}
	slices.SortStableFunc(vals, javaDoubleCompare)
	if !math.Signbit(vals[1]) || math.Signbit(vals[2]) || !math.IsNaN(vals[4]) {
		t.Fatalf("sorted %v", vals)
	}
}
