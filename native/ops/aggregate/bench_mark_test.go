package aggregate

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkCodedMark marks a row group's worth of batches of codes (8192 rows each) of a
// dictionary of entries entries, its last null, then folds nothing: the decode scan's min/max of
// a flag column (7 entries), a date (2526) and a key (26785).
func BenchmarkCodedMark(b *testing.B) {
	for _, entries := range []int{7, 2526, 26785} {
		b.Run(map[int]string{7: "flags", 2526: "dates", 26785: "keys"}[entries], func(b *testing.B) {
			mem := memory.NewGoAllocator()
			bl := array.NewInt64Builder(mem)
			for i := 0; i < entries; i++ {
				bl.Append(int64(i))
			}
			bl.AppendNull()
			dict := bl.NewArray()
			bl.Release()
			defer dict.Release()
			rng := rand.New(rand.NewPCG(3, 4))
			codes := make([]int32, 8192*13)
			for i := range codes {
				codes[i] = int32(rng.IntN(entries))
			}
			c := &codedFn{in: &codesInput{}}
			b.SetBytes(int64(len(codes)))
			for b.Loop() {
				c.hold(dict)
				for at := 0; at < len(codes); at += 8192 {
					if !c.mark(codes[at:at+8192], nil, 8192, 0) {
						b.Fatal("bad code")
					}
				}
				c.drop()
			}
		})
	}
}
