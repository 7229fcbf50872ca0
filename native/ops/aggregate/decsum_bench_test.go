package aggregate

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// decSumBenchInput: 8192 TPC-H-like prices in 4 or 1000 groups.
func decSumBenchInput(ng int) ([]int64, []decimal128.Num, []uint32) {
	r := rand.New(rand.NewPCG(1, 2))
	v64 := make([]int64, 8192)
	vals := make([]decimal128.Num, len(v64))
	gids := make([]uint32, len(v64))
	for i := range v64 {
		v64[i] = 90000 + r.Int64N(10400000)
		vals[i] = decimal128.FromI64(v64[i])
		gids[i] = uint32(r.IntN(ng))
	}
	return v64, vals, gids
}

// BenchmarkDecSumAddInt64: a grouped decimal(25,2) sum of 8192 narrowed values per op.
func BenchmarkDecSumAddInt64(b *testing.B) {
	for _, ng := range []int{4, 1000} {
		b.Run(map[int]string{4: "4groups", 1000: "1000groups"}[ng], func(b *testing.B) {
			v64, _, gids := decSumBenchInput(ng)
			d := newDecSum(sparktype.DecimalOf(25, 2), false)
			d.grow(ng)
			for i := 0; i < b.N; i++ {
				if i%100000 == 0 {
					clear(d.small) // stay far from 2^63
				}
				d.addInt64(v64, 10490000, gids)
			}
		})
	}
}

// BenchmarkDecSumAddColumn: the same sums over decimal128 values.
func BenchmarkDecSumAddColumn(b *testing.B) {
	_, vals, gids := decSumBenchInput(4)
	d := newDecSum(sparktype.DecimalOf(25, 2), false)
	d.grow(4)
	for i := 0; i < b.N; i++ {
		d.addColumn(vals, nil, 0, gids)
	}
}
