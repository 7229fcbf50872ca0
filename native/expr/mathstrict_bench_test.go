package expr

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/memory"
)

// benchDoubles is benchRows doubles in [lo, hi), every tenth null when withNulls.
func benchDoubles(lo, hi float64, withNulls bool) arrow.Array {
	r := rand.New(rand.NewSource(1))
	b := array.NewFloat64Builder(memory.NewTaskAllocator(nil))
	for i := 0; i < benchRows; i++ {
		if withNulls && i%10 == 0 {
			b.AppendNull()
			continue
		}
		b.Append(lo + r.Float64()*(hi-lo))
	}
	return b.NewArray()
}

// BenchmarkStrictMath evaluates each native math function over a batch of doubles (10% null)
// in its usual range.
func BenchmarkStrictMath(b *testing.B) {
	SetJavaVersion(17)
	unary := []struct {
		class  string
		lo, hi float64
	}{
		{"Exp", -50, 50}, {"Expm1", -5, 5}, {"Log", 0.001, 1e6}, {"Log2", 0.001, 1e6}, {"Log10", 0.001, 1e6},
		{"Log1p", -0.5, 100}, {"Asin", -1, 1}, {"Acos", -1, 1}, {"Atan", -10, 10}, {"Sinh", -10, 10},
		{"Cosh", -10, 10}, {"Tanh", -5, 5}, {"Cbrt", -1e6, 1e6}, {"Acosh", 1, 100}, {"Asinh", -100, 100},
		{"Atanh", -1, 1}, {"Rint", -1e6, 1e6}, {"ToDegrees", -10, 10}, {"ToRadians", -1000, 1000},
	}
	for _, u := range unary {
		b.Run(u.class, func(b *testing.B) {
			benchEval(b, node(u.class, "double", "child", col(0, "double")), benchDoubles(u.lo, u.hi, true))
		})
	}
	for _, class := range []string{"Atan2", "Hypot", "Pow", "Logarithm"} {
		b.Run(class, func(b *testing.B) {
			benchEval(b, node(class, "double", "left", col(0, "double"), "right", col(1, "double")),
				benchDoubles(0.01, 10, true), benchDoubles(-5, 5, true))
		})
	}
}

var benchSink float64

// BenchmarkFdlibmVsGoMath compares the fdlibm functions with Go's math package (which is not
// bit-identical to StrictMath) on the same arguments: the price of Spark's exact results.
func BenchmarkFdlibmVsGoMath(b *testing.B) {
	xs := make([]float64, benchRows)
	r := rand.New(rand.NewSource(1))
	for i := range xs {
		xs[i] = 0.01 + r.Float64()*20
	}
	fns := []struct {
		name string
		f    func(float64) float64
	}{
		{"fdlibm/Exp", strictExp}, {"go/Exp", math.Exp},
		{"fdlibm/Log", strictLog}, {"go/Log", math.Log},
		{"fdlibm/Atan", strictAtan}, {"go/Atan", math.Atan},
		{"fdlibm/Sinh", strictSinh}, {"go/Sinh", math.Sinh},
		{"fdlibm/Cbrt", strictCbrt}, {"go/Cbrt", math.Cbrt},
		{"fdlibm/Pow", func(x float64) float64 { return strictPow(x, 1.7) }}, {"go/Pow", func(x float64) float64 { return math.Pow(x, 1.7) }},
	}
	for _, fn := range fns {
		b.Run(fn.name, func(b *testing.B) {
			s := 0.0
			for i := 0; i < b.N; i++ {
				for _, x := range xs {
					s += fn.f(x)
				}
			}
			benchSink = s
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
		})
	}
}
