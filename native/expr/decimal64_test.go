package expr

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestDec64MatchesEval: a Dec64 program gives exactly the values Eval gives, or declines the
// batch, over TPC-H Q1's and Q6's decimal trees and trees with scale alignment, subtraction,
// constants on either side and column * column; columns with small values, values near their
// precision, values beyond 64 bits and nulls. A batch where Eval yields a null or an error (an
// overflow, in LEGACY or ANSI) must be declined; both outcomes occur.
func TestDec64MatchesEval(t *testing.T) {
	d152 := "decimal(15,2)"
	one := litDec("1", 1, 0)
	sub := arithJSON("Subtract", "decimal(16,2)", "%s", one, col(1, d152))
	trees := []struct{ name, js string }{
		{"column", col(0, d152)},
		{"q1 disc_price", arithJSON("Multiply", "decimal(32,4)", "%s", col(0, d152), sub)},
		{"q1 charge", arithJSON("Multiply", "decimal(38,6)", "%s",
			arithJSON("Multiply", "decimal(32,4)", "%s", col(0, d152), sub),
			arithJSON("Add", "decimal(16,2)", "%s", one, col(2, d152)))},
		{"q6 revenue", arithJSON("Multiply", "decimal(31,4)", "%s", col(0, d152), col(1, d152))},
		{"aligned add", arithJSON("Add", "decimal(20,4)", "%s", col(0, d152), col(3, "decimal(12,4)"))},
		{"aligned sub, constant right", arithJSON("Subtract", "decimal(20,4)", "%s", col(3, "decimal(12,4)"), litDec("-12345", 7, 2))},
		{"narrow result", arithJSON("Add", "decimal(10,2)", "%s", col(4, "decimal(9,2)"), col(4, "decimal(9,2)"))},
		{"sum of products", arithJSON("Add", "decimal(32,4)", "%s",
			arithJSON("Multiply", "decimal(31,4)", "%s", col(0, d152), col(1, d152)),
			arithJSON("Multiply", "decimal(31,4)", "%s", col(2, d152), col(1, d152)))},
		{"product near 2^63", arithJSON("Multiply", "decimal(25,8)", "%s", col(3, "decimal(12,4)"), col(3, "decimal(12,4)"))},
		{"sum near 2^63", arithJSON("Add", "decimal(20,0)", "%s", col(5, "decimal(19,0)"), col(5, "decimal(19,0)"))},
		{"constant left", arithJSON("Multiply", "decimal(17,3)", "%s", litDec("-7", 2, 1), col(0, d152))},
	}
	r := rand.New(rand.NewPCG(5, 6))
	var ran, declined int
	for _, mode := range []string{"LEGACY", "ANSI"} {
		for _, tr := range trees {
			e := mustTranslate(t, strings.ReplaceAll(tr.js, "%s", mode))
			p := CompileDec64(e)
			if p == nil {
				t.Fatalf("%s: not compiled", tr.name)
			}
			var c Dec64Batch
			for trial := 0; trial < 42; trial++ {
				n := 1 + r.IntN(200)
				kind := trial % 7
				b := batch(randDecCol(t, r, n, 15, 2, kind), randDecCol(t, r, n, 15, 2, kind%3),
					randDecCol(t, r, n, 15, 2, kind), randDecCol(t, r, n, 12, 4, kind), randDecCol(t, r, n, 9, 2, kind),
					randDecCol(t, r, n, 19, 0, kind))
				c.Reset(b)
				if trial%2 == 0 {
					c.column(0, sparktype.DecimalOf(15, 2)) // a bare column is computed once narrowed
				}
				vals, bound, ok := p.Eval(&c, b)
				want, err := e.Eval(newCtx(), b)
				name := fmt.Sprintf("%s %s trial %d", mode, tr.name, trial)
				if !ok {
					declined++
					if err == nil {
						want.Release()
					}
					continue
				}
				ran++
				if err != nil {
					t.Fatalf("%s: Eval failed (%v) on a batch the program computed", name, err)
				}
				if want.NullN() != 0 {
					t.Fatalf("%s: Eval gave nulls on a batch the program computed", name)
				}
				w := values[decimal128.Num](want)
				for i, v := range vals {
					if decimal128.FromI64(v) != w[i] {
						t.Fatalf("%s row %d: got %d, want %s", name, i, v, w[i].BigInt())
					}
					if m := uint64(abs64(v)); m > bound {
						t.Fatalf("%s row %d: |%d| over the bound %d", name, i, v, bound)
					}
				}
				want.Release()
			}
		}
	}
	if ran == 0 || declined == 0 {
		t.Fatalf("computed %d batches, declined %d: both must occur", ran, declined)
	}
	t.Logf("computed %d batches, declined %d", ran, declined)
}

// randDecCol draws a decimal(p,s) column: kind 0-2 small values, 3 values near 10^p (beyond 64
// bits at 19 digits), 4 with nulls, 5 magnitudes near 2^31.5 (products near 2^63), 6 near 2^62
// (sums near 2^63) where p allows.
func randDecCol(t *testing.T, r *rand.Rand, n int, p, s int32, kind int) arrow.Array {
	vals := make([]any, n)
	lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	for i := range vals {
		v := big.NewInt(r.Int64N(10000000))
		switch {
		case kind == 3:
			v.Sub(lim, big.NewInt(1+r.Int64N(100)))
		case kind == 5 && p >= 10:
			v.SetInt64(3037000000 + r.Int64N(1200000000)) // below 2^32: the OR bound stays below 2^32
		case kind == 6 && p >= 19:
			v.SetInt64(1<<62 + r.Int64N(1<<61))
		case kind == 4 && r.IntN(10) == 0:
			vals[i] = nil
			continue
		}
		if r.IntN(3) == 0 {
			v.Neg(v)
		}
		vals[i] = v.String()
	}
	return column(t, fmt.Sprintf("decimal(%d,%d)", p, s), vals...)
}

// BenchmarkQ1Charge: TPC-H Q1's l_extendedprice * (1 - l_discount) * (1 + l_tax) over 8192 rows,
// by Eval (decimal128 columns per operation) and by a Dec64 program (narrowed once, int64 loops).
func BenchmarkQ1Charge(b *testing.B) {
	d152, one := "decimal(15,2)", litDec("1", 1, 0)
	js := arithJSON("Multiply", "decimal(38,6)", "ANSI",
		arithJSON("Multiply", "decimal(32,4)", "ANSI", col(0, d152), arithJSON("Subtract", "decimal(16,2)", "ANSI", one, col(1, d152))),
		arithJSON("Add", "decimal(16,2)", "ANSI", one, col(2, d152)))
	e := mustTranslate(b, js)
	r := rand.New(rand.NewPCG(7, 8))
	const n = 8192
	cols := make([][]any, 3)
	for i := range cols {
		cols[i] = make([]any, n)
	}
	for i := 0; i < n; i++ {
		cols[0][i] = fmt.Sprint(90000 + r.Int64N(10400000))
		cols[1][i] = fmt.Sprint(r.Int64N(11))
		cols[2][i] = fmt.Sprint(r.Int64N(9))
	}
	bt := batch(column(b, d152, cols[0]...), column(b, d152, cols[1]...), column(b, d152, cols[2]...))
	b.Run("Eval", func(b *testing.B) {
		ctx := newCtx()
		for i := 0; i < b.N; i++ {
			a, err := e.Eval(ctx, bt)
			if err != nil {
				b.Fatal(err)
			}
			a.Release()
		}
	})
	b.Run("Dec64", func(b *testing.B) {
		p := CompileDec64(e)
		var c Dec64Batch
		for i := 0; i < b.N; i++ {
			c.Reset(bt)
			if _, _, ok := p.Eval(&c, bt); !ok {
				b.Fatal("declined")
			}
		}
	})
}
