package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/memory"
)

const benchRows = 8192

func benchInt64(n int, withNulls bool) arrow.Array {
	b := array.NewInt64Builder(memory.NewTaskAllocator(nil))
	for i := 0; i < n; i++ {
		if withNulls && i%10 == 0 {
			b.AppendNull()
			continue
		}
		b.Append(int64(i*7 - 3000))
	}
	return b.NewArray()
}

func benchDecimal(n int, p, s int32) arrow.Array {
	b := array.NewDecimal128Builder(memory.NewTaskAllocator(nil), &arrow.Decimal128Type{Precision: p, Scale: s})
	for i := 0; i < n; i++ {
		b.Append(decimal128.FromI64(int64(i*1237 + 1000)))
	}
	return b.NewArray()
}

func benchEval(b *testing.B, js string, cols ...arrow.Array) {
	e := mustTranslate(b, js)
	for _, c := range cols {
		defer c.Release() // the bench* helpers build fresh inputs for each benchmark
	}
	ctx := newCtx()
	batch := columnar.NewBatch(cols, cols[0].Len())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := e.Eval(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
}

func BenchmarkAddInt64NoNulls(b *testing.B) {
	for _, mode := range []string{"LEGACY", "ANSI"} {
		b.Run(mode, func(b *testing.B) {
			benchEval(b, arithJSON("Add", "long", mode, col(0, "long"), col(1, "long")), benchInt64(benchRows, false), benchInt64(benchRows, false))
		})
	}
}

func BenchmarkAddInt64Nulls(b *testing.B) {
	benchEval(b, arithJSON("Add", "long", "ANSI", col(0, "long"), col(1, "long")), benchInt64(benchRows, true), benchInt64(benchRows, true))
}

func BenchmarkMultiplyDecimal(b *testing.B) {
	for _, c := range []struct{ lt, rt, res string }{
		{"decimal(12,2)", "decimal(5,2)", "decimal(18,4)"},  // int64 path (TPC-H price * discount)
		{"decimal(20,2)", "decimal(18,2)", "decimal(38,4)"}, // 128-bit path
		{"decimal(20,2)", "decimal(20,2)", "decimal(38,4)"}, // big.Int path (MathContext rounding)
		{"decimal(32,4)", "decimal(16,2)", "decimal(38,6)"}, // TPC-H Q1's price*(1-disc)*(1+tax): 64-bit values
	} {
		b.Run(c.lt+"*"+c.rt, func(b *testing.B) {
			var p1, s1, p2, s2 int32
			fmt.Sscanf(c.lt, "decimal(%d,%d)", &p1, &s1)
			fmt.Sscanf(c.rt, "decimal(%d,%d)", &p2, &s2)
			benchEval(b, arithJSON("Multiply", c.res, "ANSI", col(0, c.lt), col(1, c.rt)), benchDecimal(benchRows, p1, s1), benchDecimal(benchRows, p2, s2))
		})
	}
}

func BenchmarkDivideDecimal(b *testing.B) {
	benchEval(b, arithJSON("Divide", "decimal(38,6)", "ANSI", col(0, "decimal(38,18)"), col(1, "decimal(38,18)")), benchDecimal(benchRows, 38, 18), benchDecimal(benchRows, 38, 18))
}

func BenchmarkLessThanLiteral(b *testing.B) {
	benchEval(b, node("LessThan", "boolean", "left", col(0, "long"), "right", lit("long", "20000")), benchInt64(benchRows, false))
}

func BenchmarkEqualToColumns(b *testing.B) {
	benchEval(b, node("EqualTo", "boolean", "left", col(0, "long"), "right", col(1, "long")), benchInt64(benchRows, true), benchInt64(benchRows, false))
}

// BenchmarkCastDecimalToString is fn30's CAST(dec AS STRING) of a decimal(12, 2).
func BenchmarkCastDecimalToString(b *testing.B) {
	benchEval(b, castJSON(col(0, "decimal(12,2)"), "string", "ANSI"), benchDecimal(benchRows, 12, 2))
}

func BenchmarkCastIntToDecimal(b *testing.B) {
	benchEval(b, castJSON(col(0, "long"), "decimal(20,2)", "ANSI"), benchInt64(benchRows, false))
}

// BenchmarkFilterQ6 is TPC-H Q6's predicate (date range, decimal BETWEEN, decimal <) over one
// batch of lineitem-like values: "column" evaluates it into a boolean column and selects its true
// rows (the filter before selections), "select" narrows a selection conjunct by conjunct.
func BenchmarkFilterQ6(b *testing.B) {
	alloc := memory.NewTaskAllocator(nil)
	ship := array.NewDate32Builder(alloc)
	disc := array.NewDecimal128Builder(alloc, &arrow.Decimal128Type{Precision: 15, Scale: 2})
	qty := array.NewDecimal128Builder(alloc, &arrow.Decimal128Type{Precision: 15, Scale: 2})
	for i := 0; i < benchRows; i++ {
		ship.Append(arrow.Date32(8036 + (i*7919)%2526)) // 1992-01-02 .. 1998-12-01
		disc.Append(decimal128.FromI64(int64((i * 31) % 11)))
		qty.Append(decimal128.FromI64(int64(100 + (i*17)%5000)))
	}
	cols := []arrow.Array{ship.NewArray(), disc.NewArray(), qty.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	d := func(u string) string { return litDec(u, 15, 2) }
	js := and(and(and(and(cmpJSON("GreaterThanOrEqual", col(0, "date"), lit("date", "8766")),
		cmpJSON("LessThan", col(0, "date"), lit("date", "9131"))),
		cmpJSON("GreaterThanOrEqual", col(1, "decimal(15,2)"), d("5"))),
		cmpJSON("LessThanOrEqual", col(1, "decimal(15,2)"), d("7"))),
		cmpJSON("LessThan", col(2, "decimal(15,2)"), d("2400")))
	e := mustTranslate(b, js)
	bt := columnar.NewBatch(cols, benchRows)
	ctx := newCtx()
	b.Run("column", func(b *testing.B) {
		var sel []int32
		for i := 0; i < b.N; i++ {
			p, err := e.Eval(ctx, bt)
			if err != nil {
				b.Fatal(err)
			}
			sel = columnar.SelectTrue(p.(*array.Boolean), sel)
			p.Release()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
	})
	b.Run("select", func(b *testing.B) {
		var sel []int32
		var err error
		for i := 0; i < b.N; i++ {
			if sel, err = Select(ctx, bt, e, sel); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
	})
}

// benchFloat64 builds the function benchmark's x column: ((h % 2000000) - 1000000) / 7.0, whose
// Double.toString has 16 or 17 digits.
func benchFloat64(n int) arrow.Array {
	b := array.NewFloat64Builder(memory.NewTaskAllocator(nil))
	for i := 0; i < n; i++ {
		b.Append(float64((i*7919)%2000000-1000000) / 7.0)
	}
	return b.NewArray()
}

// BenchmarkCastDoubleToDecimal is fn30's CAST(x AS DECIMAL(14, 3)) of a double.
func BenchmarkCastDoubleToDecimal(b *testing.B) {
	SetJavaVersion(17)
	benchEval(b, castJSON(col(0, "double"), "decimal(14,3)", "LEGACY"), benchFloat64(benchRows))
}
