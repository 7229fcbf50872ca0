package expr

import (
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestDecBatchMatchesRows: whenever the batch path computes a batch, each value equals the
// per-row path's; it declines batches where a row could overflow, and results of the wrong
// scale.
func TestDecBatchMatchesRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type shape struct{ p1, s1, p2, s2 int32 }
	shapes := []shape{{15, 2, 16, 2}, {32, 4, 16, 2}, {9, 0, 9, 0}, {18, 0, 18, 0}, {5, 5, 10, 1}, {12, 2, 3, 3},
		{18, 9, 18, 9}, {38, 2, 10, 0}}
	batched := map[arithOp]int{}
	for _, sh := range shapes {
		for _, op := range []arithOp{opAdd, opSub, opMul} {
			var rp, rs int32
			if op == opMul {
				rp, rs = sh.p1+sh.p2+1, sh.s1+sh.s2
			} else {
				rs = max(sh.s1, sh.s2)
				rp = max(sh.p1-sh.s1, sh.p2-sh.s2) + rs + 1
			}
			if rp > 38 {
				continue
			}
			d, err := newDecOp(op, sparktype.DecimalOf(sh.p1, sh.s1), sparktype.DecimalOf(sh.p2, sh.s2), sparktype.DecimalOf(rp, rs))
			if err != nil {
				t.Fatal(err)
			}
			for trial := 0; trial < 25; trial++ {
				n := 1 + rng.IntN(300)
				// digits: small values mostly, the declared precision's edge sometimes.
				digits := func(p int32) int32 { return []int32{1, 4, 9, p}[rng.IntN(4)] }
				da, db := min(digits(sh.p1), sh.p1), min(digits(sh.p2), sh.p2)
				a, b := randDecimals(rng, n, da), randDecimals(rng, n, db)
				am, bm := -1, -1
				if trial%5 == 0 {
					b, bm = b[:1], 0
				}
				if trial%3 == 0 {
					a, am = a[:1], 0
				}
				out := make([]decimal128.Num, n)
				if !decBatch(d, a, b, am, bm, out) {
					continue
				}
				batched[op]++
				s := &decScratch{}
				for i := range out {
					want, ok := d.apply(s, a[i&am], b[i&bm])
					if !ok {
						t.Fatalf("%v %+v: the batch path computed row %d, which overflows", op, sh, i)
					}
					if out[i] != want {
						t.Fatalf("%v %+v row %d: %s %s -> %s, want %s", op, sh, i, a[i&am].BigInt(), b[i&bm].BigInt(),
							out[i].BigInt(), want.BigInt())
					}
				}
			}
		}
	}
	for _, op := range []arithOp{opAdd, opSub, opMul} {
		if batched[op] == 0 {
			t.Errorf("no batch of %v took the batch path", op)
		}
	}
	// A product whose bound exceeds the result precision is declined.
	d, _ := newDecOp(opMul, sparktype.DecimalOf(9, 0), sparktype.DecimalOf(9, 0), sparktype.DecimalOf(10, 0))
	big9 := decimal128.FromI64(999999999)
	if decBatch(d, []decimal128.Num{big9}, []decimal128.Num{big9}, -1, -1, make([]decimal128.Num, 1)) {
		t.Error("a product over the result precision took the batch path")
	}
	// A value that does not fit an int64 is declined.
	wide := decimal128.FromBigInt(new(big.Int).Lsh(big.NewInt(1), 70))
	d, _ = newDecOp(opAdd, sparktype.DecimalOf(38, 0), sparktype.DecimalOf(38, 0), sparktype.DecimalOf(38, 0))
	if decBatch(d, []decimal128.Num{wide}, []decimal128.Num{big9}, -1, -1, make([]decimal128.Num, 1)) {
		t.Error("a 128-bit value took the batch path")
	}
}

func randDecimals(rng *rand.Rand, n int, digits int32) []decimal128.Num {
	out := make([]decimal128.Num, n)
	lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	for i := range out {
		v := new(big.Int).Rand(mrand.New(mrand.NewSource(int64(rng.Uint64()))), lim)
		if rng.IntN(2) == 0 {
			v.Neg(v)
		}
		out[i] = decimal128.FromBigInt(v)
	}
	return out
}
