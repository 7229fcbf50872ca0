package columnar

import (
	"math"
	"math/rand/v2"
	"testing"
)

func codesBelowScalar(codes []int32, n int) bool {
	for _, x := range codes {
		if x < 0 || int(x) >= n {
			return false
		}
	}
	return true
}

// CodesBelow agrees with a plain loop on every length up to a few words past the unrolled loop,
// every position of a bad code, and codes at the bounds of the lanes' arithmetic.
func TestCodesBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ns := []int{0, 1, 2, 3, 7, 8, 255, 256, 1 << 16, 1<<31 - 2, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64}
	special := []int32{0, 1, -1, math.MinInt32, math.MaxInt32, math.MaxInt32 - 1, 1 << 30, 255, 256, 6, 7, 8}
	for _, n := range ns {
		for ln := 0; ln <= 45; ln++ {
			codes := make([]int32, ln)
			fill := func() {
				for i := range codes {
					if n > 0 {
						codes[i] = int32(rng.IntN(min(n, math.MaxInt32)))
					}
				}
			}
			fill()
			if got, want := CodesBelow(codes, n), codesBelowScalar(codes, n); got != want {
				t.Fatalf("n %d, %v: %v, want %v", n, codes, got, want)
			}
			for at := 0; at < ln; at++ {
				for _, v := range append(special, int32(min(n, math.MaxInt32)), int32(max(min(n, math.MaxInt32)-1, 0))) {
					fill()
					codes[at] = v
					if got, want := CodesBelow(codes, n), codesBelowScalar(codes, n); got != want {
						t.Fatalf("n %d, code %d at %d of %d: %v, want %v", n, v, at, ln, got, want)
					}
				}
			}
		}
	}
	// A view at an odd offset (codes need not start at a word).
	codes := make([]int32, 101)
	codes[100] = 9
	if CodesBelow(codes[1:], 9) || !CodesBelow(codes[1:100], 1) {
		t.Fatal("offset view")
	}
}

func BenchmarkCodesBelow(b *testing.B) {
	codes := make([]int32, 8192)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range codes {
		codes[i] = int32(rng.IntN(26785))
	}
	b.Run("swar", func(b *testing.B) {
		b.SetBytes(int64(len(codes) * 4))
		for b.Loop() {
			if !CodesBelow(codes, 26785) {
				b.Fatal()
			}
		}
	})
}
