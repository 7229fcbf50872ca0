package sparkhash

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

const benchRows = 8192

// benchColumn builds benchRows values of t; every tenth row is null when withNulls.
func benchColumn(t sparktype.Type, withNulls bool) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	defer b.Release()
	for i := 0; i < benchRows; i++ {
		if withNulls && i%10 == 0 {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			bb.Append(int32(i*7919 - 1000000))
		case *array.Int64Builder:
			bb.Append(int64(i)*1000003 - 999999999)
		case *array.Float64Builder:
			bb.Append(float64(i) / 7)
		case *array.Decimal128Builder:
			bb.Append(decimal128.FromI64(int64(i) * 12345678901))
		case *array.StringBuilder:
			// 5 to 24 bytes, like short keys and names.
			bb.Append(fmt.Sprintf("customer#%0*d", 1+i%16, i))
		}
	}
	return b.NewArray()
}

func benchFold(b *testing.B, t sparktype.Type, withNulls bool, xx bool) {
	col := benchColumn(t, withNulls)
	defer col.Release()
	m := make([]int32, benchRows)
	x := make([]int64, benchRows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if xx {
			err = XxHash64Fold(t, col, x)
		} else {
			err = Murmur3Fold(t, col, m)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
}

func BenchmarkFold(b *testing.B) {
	for _, t := range []sparktype.Type{sparktype.IntType, sparktype.LongType, sparktype.DoubleType,
		sparktype.DecimalOf(18, 2), sparktype.DecimalOf(38, 2), sparktype.StringType} {
		for _, nulls := range []bool{false, true} {
			for _, xx := range []bool{false, true} {
				name := fmt.Sprintf("%s/nulls=%v/", t, nulls)
				if xx {
					name += "xxhash64"
				} else {
					name += "murmur3"
				}
				b.Run(name, func(b *testing.B) { benchFold(b, t, nulls, xx) })
			}
		}
	}
}

func BenchmarkPmod(b *testing.B) {
	h := make([]int32, benchRows)
	for i := range h {
		h[i] = Murmur3Int(int32(i), DefaultSeed)
	}
	out := make([]int32, benchRows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Pmod(h, 200, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
}

// BenchmarkFoldFn30Strings folds strings like fn30's column s (scripts/functions-data.py: one of
// 16 words of 2 to 11 bytes, a space and a number below 100000; 1 row in 20 null), whose lengths
// vary from row to row as real text does, unlike benchColumn's cycle of 16 lengths.
func BenchmarkFoldFn30Strings(b *testing.B) {
	words := []string{"alpha", "Beta", "gamma delta", "épsilon", "Zeta", "ETA", "theta", "iota kappa",
		"lambda", "mü", "nu", "xi omicron", "pi", "rho", "sigma ς", "tau"}
	for _, nulls := range []bool{false, true} {
		b.Run(fmt.Sprintf("nulls=%v", nulls), func(b *testing.B) {
			sb := array.NewStringBuilder(memory.DefaultAllocator)
			for i := 0; i < benchRows; i++ {
				x := uint32(i) * 2654435761
				if nulls && (x>>3)%20 == 0 {
					sb.AppendNull()
					continue
				}
				sb.Append(fmt.Sprintf("%s %d", words[x>>28], (x>>8)%100000))
			}
			col := sb.NewArray()
			sb.Release()
			defer col.Release()
			m := make([]int32, benchRows)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Murmur3Fold(sparktype.StringType, col, m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
		})
	}
}
