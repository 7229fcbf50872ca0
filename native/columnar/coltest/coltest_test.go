package coltest

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Every test form survives Col and Cell, and NewSource's batches (empty, sliced) hold the rows in
// order.
func TestRowsSurviveASource(t *testing.T) {
	types := Types(t, "boolean", "byte", "short", "integer", "long", "float", "double", "decimal(38,6)",
		"string", "binary", "date", "timestamp", "timestamp_ntz")
	gen := func(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
		if rng.Float64() < nullRate {
			return nil
		}
		switch ty.Kind {
		case sparktype.Boolean:
			return rng.IntN(2) == 1
		case sparktype.Float, sparktype.Double:
			return []float64{math.Copysign(0, -1), 0, math.Inf(1), 1.5}[rng.IntN(4)]
		case sparktype.Decimal:
			return new(big.Int).Lsh(big.NewInt(int64(rng.IntN(100)-50)), 70)
		case sparktype.String, sparktype.Binary:
			return []string{"", "a", "\xff\x00"}[rng.IntN(3)]
		}
		return int64(rng.IntN(100) - 50)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := GenRows(rng, types, 500, 0.2, gen)
	src := NewSource(t, rng, types, rows, 40)
	defer src.Release()
	var got [][]any
	for _, b := range src.Batches {
		got = append(got, Rows(b)...)
	}
	CompareRows(t, "rows read back", got, rows)

	empty := EmptySource(t, types, 2)
	defer empty.Release()
	if len(empty.Batches) != 2 || empty.Batches[0].NumRows != 0 || len(empty.Fields) != len(types) {
		t.Errorf("EmptySource: %d batches, %d fields", len(empty.Batches), len(empty.Fields))
	}
	if Show(math.Copysign(0, -1)) == Show(0.0) {
		t.Error("Show does not tell -0.0 from 0.0")
	}
}
