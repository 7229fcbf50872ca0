package aggregate

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// minMaxCase is the shape of one randomized min/max check: how many groups (1 takes the
// one-group kernels), and which rows are null.
type minMaxCase struct {
	groups int
	nulls  string // "none", "some", "all"
}

var minMaxCases = []minMaxCase{{1, "none"}, {1, "some"}, {1, "all"}, {3, "none"}, {3, "some"}, {3, "all"}}

// randValid is the validity of n rows for the case (nil: no nulls).
func randValid(r *rand.Rand, n int, nulls string) []bool {
	if nulls == "none" {
		return nil
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = nulls == "some" && r.Intn(3) > 0
	}
	return v
}

// randBytesValue draws from a small alphabet that makes equal 8-byte prefixes, prefixes of one
// another, zero bytes, bytes above 0x7f (unsigned order) and empty values common.
func randBytesValue(r *rand.Rand) string {
	alpha := []byte{0, 1, 'A', 'B', 0x7f, 0x80, 0xff}
	n := r.Intn(14)
	b := []byte("PREFIX__")[:min(n, 8)]
	if r.Intn(2) == 0 {
		b = b[:0]
	}
	for len(b) < n {
		b = append(b, alpha[r.Intn(len(alpha))])
	}
	return string(b)
}

// TestMinMaxBytesAgainstReference folds random batches (several per state, some sliced so that
// the array has an offset) into min and max and compares with a plain bytes.Compare fold.
func TestMinMaxBytesAgainstReference(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, tc := range minMaxCases {
		for _, isMax := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d-groups/%s-nulls/max=%v", tc.groups, tc.nulls, isMax), func(t *testing.T) {
				for rep := 0; rep < 50; rep++ {
					f := &minMaxBytes{max: isMax}
					f.grow(tc.groups)
					want := make([]*string, tc.groups)
					for batch := 0; batch < 3; batch++ {
						n := r.Intn(40)
						vals := make([]string, n+2)
						for i := range vals {
							vals[i] = randBytesValue(r)
						}
						valid := randValid(r, n+2, tc.nulls)
						full := strCol(vals, valid)
						col := array.NewSlice(full, 1, int64(n+1)) // offset 1
						full.Release()
						gids := make([]uint32, n)
						for i := range gids {
							gids[i] = uint32(r.Intn(tc.groups))
							if valid != nil && !valid[i+1] {
								continue
							}
							v := vals[i+1]
							if w := want[gids[i]]; w == nil || (bytes.Compare([]byte(v), []byte(*w)) > 0) == isMax && v != *w {
								want[gids[i]] = &v
							}
						}
						if err := f.merge([]arrow.Array{col}, gids); err != nil {
							t.Fatal(err)
						}
						col.Release()
					}
					for g := range want {
						if (want[g] != nil) != f.has[g] || (want[g] != nil && *want[g] != f.vals[g]) {
							t.Fatalf("group %d: got %q (has %v), want %v", g, f.vals[g], f.has[g], want[g])
						}
					}
				}
			})
		}
	}
}

// TestMinMaxFixedOneGroup checks the one-group kernels of fixed-width and decimal columns
// against a fold with Spark's ordering, floats with NaN and signed zeros included.
func TestMinMaxFixedOneGroup(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	floats := []float64{math.NaN(), 0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1)}
	for _, tc := range minMaxCases {
		for _, isMax := range []bool{true, false} {
			better := func(a, b float64) bool {
				if isMax {
					return sparkGreater(a, b)
				}
				return sparkLess(a, b)
			}
			for rep := 0; rep < 100; rep++ {
				f := &minMaxFixed[float64]{max: isMax}
				d := &minMaxDecimal{max: isMax}
				f.grow(tc.groups)
				d.grow(tc.groups)
				wantF := make([]*float64, tc.groups)
				wantD := make([]*big.Int, tc.groups)
				for batch := 0; batch < 3; batch++ {
					n := r.Intn(20)
					fv := make([]float64, n)
					dv := make([]*big.Int, n)
					gids := make([]uint32, n)
					valid := randValid(r, n, tc.nulls)
					for i := range fv {
						fv[i] = floats[r.Intn(len(floats))]
						dv[i] = new(big.Int).Lsh(big.NewInt(int64(r.Intn(5)-2)), uint(r.Intn(3)*40))
						dv[i].Add(dv[i], big.NewInt(int64(r.Intn(3)-1)))
						gids[i] = uint32(r.Intn(tc.groups))
						if valid != nil && !valid[i] {
							continue
						}
						g := gids[i]
						if w := wantF[g]; w == nil || better(fv[i], *w) {
							v := fv[i]
							wantF[g] = &v
						}
						if w := wantD[g]; w == nil || (dv[i].Cmp(w) > 0) == isMax && dv[i].Cmp(w) != 0 {
							wantD[g] = dv[i]
						}
					}
					fc, dc := f64Col(fv, valid), decCol(38, 0, dv, valid)
					if err := f.merge([]arrow.Array{fc}, gids); err != nil {
						t.Fatal(err)
					}
					if err := d.merge([]arrow.Array{dc}, gids); err != nil {
						t.Fatal(err)
					}
					fc.Release()
					dc.Release()
				}
				for g := 0; g < tc.groups; g++ {
					w := wantF[g]
					if (w != nil) != f.has[g] || (w != nil && math.Float64bits(*w) != math.Float64bits(f.vals[g]) && !(math.IsNaN(*w) && math.IsNaN(f.vals[g]))) {
						t.Fatalf("%+v max=%v group %d: double got %v (has %v), want %v", tc, isMax, g, f.vals[g], f.has[g], w)
					}
					wd := wantD[g]
					if (wd != nil) != d.has[g] || (wd != nil && d.vals[g] != decimal128.FromBigInt(wd)) {
						t.Fatalf("%+v max=%v group %d: decimal got %v (has %v), want %v", tc, isMax, g, d.vals[g].BigInt(), d.has[g], wd)
					}
				}
			}
		}
	}
}
