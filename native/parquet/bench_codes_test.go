package parquet

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCodesBelow is the check of a batch's dictionary codes against the dictionary's size
// (an l_orderkey page's codes: 15 bits, 26785 entries).
func BenchmarkCodesBelow(b *testing.B) {
	codes := make([]int32, 8192)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range codes {
		codes[i] = int32(rng.IntN(26785))
	}
	b.SetBytes(int64(len(codes) * 4))
	for b.Loop() {
		if !codesBelow(codes, 26785) {
			b.Fatal()
		}
	}
}
