package columnar

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeCodes and ExpandCodes agree with Take over the resolved codes for every dictionary layout:
// no null entry, the null entry last (Lazy.Codes' convention: no bitmap unless a row uses it),
// nulls elsewhere (the general path), and strings; selections empty, sparse, dense and full.
func TestTakeCodes(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	const nd, rows = 6, 300
	build := func(kind string, nullAt int) arrow.Array {
		var b array.Builder
		switch kind {
		case "int32":
			b = array.NewInt32Builder(alloc)
		case "date":
			b = array.NewDate32Builder(alloc)
		case "decimal":
			b = array.NewDecimal128Builder(alloc, &arrow.Decimal128Type{Precision: 15, Scale: 2})
		default:
			b = array.NewStringBuilder(alloc)
		}
		defer b.Release()
		for i := 0; i < nd; i++ {
			if i == nullAt {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.Int32Builder:
				bb.Append(int32(i * 10))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(9000 + i))
			case *array.Decimal128Builder:
				bb.Append(decimal128.FromI64(int64(i) * 12345))
			case *array.StringBuilder:
				bb.Append(fmt.Sprintf("v%d", i))
			}
		}
		return b.NewArray()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"int32", "date", "decimal", "string"} {
		for _, nullAt := range []int{-1, nd - 1, 2} {
			dict := build(kind, nullAt)
			for _, useNull := range []bool{false, true} {
				codes := make([]int32, rows)
				for i := range codes {
					codes[i] = int32(rng.IntN(nd))
					if !useNull && int(codes[i]) == nullAt {
						codes[i] = int32((nullAt + 1) % nd)
					}
				}
				for _, density := range []float64{0, 0.05, 0.98, 1} {
					var sel []int32
					for i := 0; i < rows; i++ {
						if rng.Float64() < density {
							sel = append(sel, int32(i))
						}
					}
					name := fmt.Sprintf("%s null at %d, null used %v, density %v", kind, nullAt, useNull, density)
					idx := make([]int32, len(sel))
					for i, j := range sel {
						idx[i] = codes[j]
					}
					check := func(what string, got arrow.Array, err error, want []int32) {
						t.Helper()
						if err != nil {
							t.Fatalf("%s %s: %v", name, what, err)
						}
						defer got.Release()
						ref, _ := Take(alloc, dict, want)
						defer ref.Release()
						if !array.Equal(got, ref) {
							t.Errorf("%s %s: got %v want %v", name, what, got, ref)
						}
						if ref.NullN() == 0 && got.NullBitmapBytes() != nil && got.Data().Buffers()[0] != nil {
							t.Errorf("%s %s: a bitmap without nulls", name, what)
						}
					}
					got, err := TakeCodes(alloc, dict, codes, sel)
					check("take", got, err, idx)
					got, err = ExpandCodes(alloc, dict, codes)
					check("expand", got, err, codes)
				}
			}
			dict.Release()
		}
	}
}
