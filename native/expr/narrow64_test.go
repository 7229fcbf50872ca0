package expr

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestNarrow64MatchesReference: narrow64 keeps the low words, accepts a batch exactly when every
// value fits an int64 (MinInt64 and MaxInt64 do; 2^63 and -2^63-1 do not, nor values whose high
// word is not the sign of the low one) and bounds the magnitudes by at least the largest and less
// than twice it. batchSum.run gathers the same check and bounds for both operands.
func TestNarrow64MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	edges := []decimal128.Num{decimal128.FromI64(math.MaxInt64), decimal128.FromI64(math.MinInt64),
		decimal128.FromI64(0), decimal128.FromI64(-1), decimal128.New(0, 1<<63), decimal128.New(-1, 1<<63-1),
		decimal128.New(1, 0), decimal128.New(-1, 0), decimal128.New(0, 5), decimal128.New(-2, math.MaxUint64)}
	draw := func() decimal128.Num {
		switch r.IntN(6) {
		case 0:
			return edges[r.IntN(len(edges))]
		case 1:
			return decimal128.FromI64(int64(r.Uint64()))
		}
		return decimal128.FromI64(r.Int64N(1<<40) - 1<<39)
	}
	fits, declined := 0, 0
	for trial := 0; trial < 2000; trial++ {
		n := r.IntN(40)
		src := make([]decimal128.Num, n)
		for i := range src {
			src[i] = draw()
			if trial%3 == 0 && src[i].HighBits() != int64(src[i].LowBits())>>63 {
				src[i] = decimal128.FromI64(7) // batches that fit
			}
		}
		dst := make([]int64, n)
		bound, ok := narrow64(src, dst)
		wantOK := true
		var mx uint64
		for i, v := range src {
			if dst[i] != int64(v.LowBits()) {
				t.Fatalf("trial %d row %d: %d, want the low word of %v", trial, i, dst[i], v)
			}
			b := v.BigInt()
			if !b.IsInt64() {
				wantOK = false
				continue
			}
			mx = max(mx, new(big.Int).Abs(b).Uint64())
		}
		if ok != wantOK {
			t.Fatalf("trial %d: ok %v, want %v (%v)", trial, ok, wantOK, src)
		}
		if !ok {
			declined++
			continue
		}
		fits++
		if bound < mx || (mx > 0 && bound/2 >= mx) {
			t.Fatalf("trial %d: bound %d for a largest magnitude %d", trial, bound, mx)
		}
		// batchSum.run over the same values (a column times a column, and times a scalar).
		var s batchSum
		out := make([]decimal128.Num, n)
		s.run(true, src, src, -1, -1, 0, 0, out)
		if s.bad != 0 || s.ma != bound || s.mb != bound {
			t.Fatalf("trial %d: batchSum %+v, want bound %d", trial, s, bound)
		}
		if n > 0 {
			var s2 batchSum
			s2.run(false, src[:1], src, 0, -1, 1, 1, out)
			if s2.bad != 0 || s2.mb != bound {
				t.Fatalf("trial %d: scalar batchSum %+v, want bound %d", trial, s2, bound)
			}
		}
	}
	if fits == 0 || declined == 0 {
		t.Fatalf("fits %d, declined %d: a case was not tested", fits, declined)
	}
}

// BenchmarkNarrow64: one 8192-row decimal column narrowed to int64 (the Dec64 programs' leaves).
func BenchmarkNarrow64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]decimal128.Num, 8192)
	for i := range src {
		src[i] = decimal128.FromI64(90000 + r.Int64N(10400000))
	}
	dst := make([]int64, len(src))
	b.SetBytes(int64(16 * len(src)))
	for i := 0; i < b.N; i++ {
		if _, ok := narrow64(src, dst); !ok {
			b.Fatal("declined")
		}
	}
}

// BenchmarkDecBatchMul: the batch path of a decimal column times a column (8192 rows).
func BenchmarkDecBatchMul(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	a, c := make([]decimal128.Num, 8192), make([]decimal128.Num, 8192)
	for i := range a {
		a[i], c[i] = decimal128.FromI64(90000+r.Int64N(10400000)), decimal128.FromI64(90+r.Int64N(11))
	}
	out := make([]decimal128.Num, len(a))
	for i := 0; i < b.N; i++ {
		var s batchSum
		s.run(true, a, c, -1, -1, 0, 0, out)
		if s.bad != 0 {
			b.Fatal("declined")
		}
	}
}

// TestDec64BareColumn: a bare column of at most 18 digits is narrowed by its own program (its
// values always fit); a wider one only when another program of the batch narrowed it (a failed
// pass would be wasted on every batch), and then its values are the column's.
func TestDec64BareColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	narrow := CompileDec64(mustTranslate(t, col(0, "decimal(15,2)")))
	wide := CompileDec64(mustTranslate(t, col(1, "decimal(19,0)")))
	if narrow == nil || wide == nil {
		t.Fatal("bare columns not compiled")
	}
	b := batch(randDecCol(t, r, 50, 15, 2, 0), randDecCol(t, r, 50, 19, 0, 0))
	var c Dec64Batch
	c.Reset(b)
	if _, _, ok := wide.Eval(&c, b); ok {
		t.Fatal("a bare decimal(19,0) column was narrowed for itself")
	}
	vals, bound, ok := narrow.Eval(&c, b)
	if !ok {
		t.Fatal("a bare decimal(15,2) column was declined")
	}
	src := values[decimal128.Num](b.Cols[0])
	for i, v := range vals {
		if decimal128.FromI64(v) != src[i] || uint64(abs64(v)) > bound {
			t.Fatalf("row %d: %d (bound %d), want %s", i, v, bound, src[i].BigInt())
		}
	}
	c.column(1, sparktype.DecimalOf(19, 0)) // as a program over column 1 would
	vals, _, ok = wide.Eval(&c, b)
	if !ok {
		t.Fatal("a narrowed decimal(19,0) column was declined")
	}
	for i, v := range vals {
		if decimal128.FromI64(v) != values[decimal128.Num](b.Cols[1])[i] {
			t.Fatalf("row %d: %d", i, v)
		}
	}
}
