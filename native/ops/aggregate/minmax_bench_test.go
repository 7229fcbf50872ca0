package aggregate

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// The kernels of max without grouping keys over TPC-H lineitem-like batches of 8192 rows: flags
// and ship instructions (few distinct values, many ties with the running max), comments (random),
// prices (decimals) and keys (longs).
func benchMinMaxMerge(b *testing.B, f function, col arrow.Array, groups int) {
	n := col.Len()
	gids := make([]uint32, n)
	for i := range gids {
		gids[i] = uint32(i % groups)
	}
	f.grow(groups)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		if err := f.merge([]arrow.Array{col}, gids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}

func BenchmarkMaxBytes(b *testing.B) {
	const n = 8192
	r := rand.New(rand.NewSource(1))
	words := []string{"furiously", "carefully", "ironic", "requests", "deposits", "slyly", "bold", "final"}
	sets := map[string]func(int) string{
		"flag": func(i int) string { return []string{"A", "N", "R"}[r.Intn(3)] },
		"shipinstruct": func(i int) string {
			return []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}[r.Intn(4)]
		},
		"comment": func(i int) string {
			s := words[r.Intn(len(words))]
			for k := r.Intn(4); k > 0; k-- {
				s += " " + words[r.Intn(len(words))]
			}
			return s
		},
	}
	for _, name := range []string{"flag", "shipinstruct", "comment"} {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = sets[name](i)
		}
		col := strCol(vals, nil)
		for _, groups := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/groups=%d", name, groups), func(b *testing.B) {
				benchMinMaxMerge(b, &minMaxBytes{max: true}, col, groups)
			})
		}
		col.Release()
	}
}

func BenchmarkMaxFixed(b *testing.B) {
	const n = 8192
	r := rand.New(rand.NewSource(1))
	lv := make([]int64, n)
	dv := make([]*big.Int, n)
	for i := range lv {
		lv[i] = r.Int63n(6000000)
		dv[i] = big.NewInt(r.Int63n(10000000))
	}
	lc, dc := i64Col(lv, nil), decCol(12, 2, dv, nil)
	defer lc.Release()
	defer dc.Release()
	for _, groups := range []int{1, 4} {
		b.Run(fmt.Sprintf("long/groups=%d", groups), func(b *testing.B) {
			benchMinMaxMerge(b, &minMaxFixed[int64]{max: true}, lc, groups)
		})
		b.Run(fmt.Sprintf("decimal/groups=%d", groups), func(b *testing.B) {
			benchMinMaxMerge(b, &minMaxDecimal{max: true}, dc, groups)
		})
	}
}
