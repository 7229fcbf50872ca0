package shuffle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// TestColumnEncodings: each column shape gets the encoding meant for it, and every codec decodes
// the block back to its rows.
func TestColumnEncodings(t *testing.T) {
	const rows = 1000
	rng := rand.New(rand.NewPCG(7, 7))
	big38 := new(big.Int).Exp(big.NewInt(10), big.NewInt(37), nil)
	cases := []struct {
		typ  string
		enc  uint8
		gen  func(i int) any
		name string
	}{
		{"long", encInts, func(i int) any { return int64(4_000_000 + 30*i + rng.IntN(20)) }, "sorted keys"},
		{"long", encPlain, func(int) any { return int64(rng.Uint64()) }, "random longs"},
		{"integer", encInts, func(int) any { return int64(42) }, "constant"},
		{"short", encInts, func(int) any { return int64(rng.IntN(200)) }, "small shorts"},
		{"byte", encPlain, func(int) any { return int64(int8(rng.Uint32())) }, "random bytes"},
		{"date", encInts, func(int) any { return int64(8035 + rng.IntN(2500)) }, "dates"},
		{"timestamp", encInts, func(int) any { return int64(1.7e15) + int64(rng.IntN(1e9)) }, "timestamps"},
		{"decimal(15,2)", encInts, func(int) any { return big.NewInt(int64(rng.IntN(10_000_000))) }, "prices"},
		{"decimal(38,6)", encInts, func(int) any { return big.NewInt(-int64(rng.IntN(1000))) }, "small wide decimals"},
		{"decimal(38,6)", encPlain, func(int) any { return new(big.Int).Add(big38, big.NewInt(int64(rng.IntN(9)))) }, "wide decimals"},
		{"double", encPlain, func(int) any { return rng.Float64() }, "doubles"},
		{"boolean", encPlain, func(int) any { return rng.IntN(2) == 0 }, "booleans"},
		{"string", encDict, func(int) any {
			return []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}[rng.IntN(5)]
		}, "priorities"},
		{"string", encDict, func(int) any { return []string{"", "é", "AIR"}[rng.IntN(3)] }, "empty and short strings"},
		{"binary", encStrings, func(i int) any { return fmt.Sprintf("Customer#%09d", rng.IntN(1e8)) }, "unique strings"},
		{"string", encStrings, func(i int) any { return strings.Repeat("x", i%7) + fmt.Sprint(i) }, "unique, lengths repeating"},
		{"string", encNull, func(int) any { return nil }, "all null"},
		{"long", encNull, func(int) any { return nil }, "all null longs"},
	}
	var types []sparktype.Type
	for _, c := range cases {
		types = append(types, coltest.Type(t, c.typ))
	}
	vals := make([][]any, rows)
	for r := range vals {
		vals[r] = make([]any, len(cases))
		for c, tc := range cases {
			v := tc.gen(r)
			if v != nil && r%17 == 3 && tc.enc != encPlain {
				v = nil // a few nulls (with the encodings' own shapes kept)
			}
			vals[r][c] = v
		}
	}
	s, err := newBlockSchema(coltest.Fields(types))
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]arrow.Array, len(cases))
	for c := range cases {
		col := make([]any, rows)
		for r := range vals {
			col[r] = vals[r][c]
		}
		cols[c] = coltest.Col(t, types[c], col)
	}
	defer columnar.NewBatch(cols, rows).Release()
	for _, codec := range allCodecs {
		comp, err := newCompressor(codec, 0)
		if err != nil {
			t.Fatal(err)
		}
		enc := newBlockEncoder(s, comp)
		frame, err := enc.encode(cols, rows)
		if err != nil {
			t.Fatal(err)
		}
		for c, tc := range cases {
			if got := enc.cols[c].plan.enc; got != tc.enc {
				t.Errorf("%s (%s): encoding %d, want %d", tc.name, tc.typ, got, tc.enc)
			}
		}
		ctx := coltest.NewCtx(rows)
		b, err := newBlockDecoder(s).decode(ctx.Alloc, frame)
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		coltest.CompareRows(t, codec.String(), coltest.Rows(b), vals)
		b.Release()
		comp.release()
		if used := ctx.Alloc.Used(); used != 0 {
			t.Errorf("%s: %d bytes held after the batch's release", codec, used)
		}
		ctx.Alloc.ReleaseAll()
	}
}

// TestDictionaryLimits: a dictionary holds at most maxDictEntries values, and must take at most
// half the bytes of lengths and values; a column past either is stored as lengths and bytes.
func TestDictionaryLimits(t *testing.T) {
	ty := coltest.Types(t, "string")
	s, err := newBlockSchema(coltest.Fields(ty))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rows, distinct int
		enc            uint8
	}{
		{3, 1, encStrings}, // too few rows to try
		{8, 2, encDict},
		{100, 25, encDict},
		{100, 48, encStrings}, // the dictionary would take over half the bytes
		{3 * maxDictEntries, maxDictEntries, encDict},
		{3 * maxDictEntries, maxDictEntries + 1, encStrings},
	} {
		vals := make([]any, tc.rows)
		for i := range vals {
			vals[i] = fmt.Sprintf("a long enough value %d", i%tc.distinct)
		}
		col := coltest.Col(t, ty[0], vals)
		comp, _ := newCompressor(CodecNone, 0)
		enc := newBlockEncoder(s, comp)
		frame, err := enc.encode([]arrow.Array{col}, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		if got := enc.cols[0].plan.enc; got != tc.enc {
			t.Errorf("%d rows of %d values: encoding %d, want %d", tc.rows, tc.distinct, got, tc.enc)
		}
		ctx := coltest.NewCtx(tc.rows)
		b, err := newBlockDecoder(s).decode(ctx.Alloc, frame)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][]any, tc.rows)
		for i, v := range vals {
			want[i] = []any{v}
		}
		coltest.CompareRows(t, fmt.Sprintf("%d of %d", tc.distinct, tc.rows), coltest.Rows(b), want)
		b.Release()
		col.Release()
		ctx.Alloc.ReleaseAll()
	}
}
