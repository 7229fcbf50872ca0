package sort

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

var allTypes = []string{"boolean", "byte", "short", "integer", "long", "float", "double", "decimal(10,2)",
	"decimal(30,5)", "decimal(38,0)", "string", "binary", "date", "timestamp", "timestamp_ntz"}

// genRows draws n rows over the given types; the last column is the row's input position, so that
// comparing whole rows checks which rows came out where (ties included).
func genRows(t testing.TB, rng *rand.Rand, typeNames []string, n int, nullRate float64) ([]sparktype.Type, [][]any) {
	types := coltest.Types(t, typeNames...)
	rows := make([][]any, n)
	for r := range rows {
		row := make([]any, len(types)+1)
		for c, ty := range types {
			row[c] = genValue(rng, ty, nullRate)
		}
		row[len(types)] = int64(r)
		rows[r] = row
	}
	return append(types, sparktype.LongType), rows
}

// runSort sorts rows (cut into random batches) natively and checks the result against the
// reference, whole rows compared.
func runSort(t *testing.T, rng *rand.Rand, what string, typeNames []string, rows [][]any, keys []refKey, batchSize int) {
	t.Helper()
	src := newSource(t, rng, coltest.Types(t, typeNames...), rows)
	defer src.Release()
	op, err := NewSort(src, ordersFor(t, typeNames, keys))
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, op, coltest.NewCtx(batchSize))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	coltest.CompareRows(t, what, got, refSort(rows, keys))
}

// Every native type, in every direction and null ordering, over enough rows for the radix passes
// (and few enough for the comparison sort on ties).
func TestSortEveryTypeAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range allTypes {
		types, rows := genRows(t, rng, []string{name}, 3000, 0.1)
		names := []string{name, "long"}
		kind := types[0].Kind
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				keys := []refKey{{col: 0, kind: kind, desc: desc, nullsFirst: nullsFirst}}
				what := fmt.Sprintf("%s desc=%v nullsFirst=%v", name, desc, nullsFirst)
				runSort(t, rng, what, names, rows, keys, 1+rng.IntN(500))
			}
		}
	}
}

// Several keys of different types and directions, with small domains so that most rows tie on
// the first keys.
func TestSortMultiKeyMixedDirections(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"string", "double", "integer", "decimal(30,5)", "boolean"}
	for round := 0; round < 4; round++ {
		types, rows := genRows(t, rng, names, 5000, 0.15)
		var keys []refKey
		for _, c := range rng.Perm(len(names)) {
			keys = append(keys, refKey{col: c, kind: types[c].Kind, desc: rng.IntN(2) == 0, nullsFirst: rng.IntN(2) == 0})
		}
		runSort(t, rng, fmt.Sprintf("round %d keys %+v", round, keys), append(names, "long"), rows, keys, 1000)
	}
}

// Strings with long shared prefixes take the radix sort many levels deep on one key.
func TestSortStringsWithLongCommonPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := make([][]any, 4000)
	base := strings.Repeat("common-prefix/", 5)
	for i := range rows {
		s := base[:rng.IntN(len(base)+1)]
		for n := rng.IntN(6); n > 0; n-- {
			s += string("\x00az\xff"[rng.IntN(4)])
		}
		var v any = s
		if i%50 == 0 {
			v = nil
		}
		rows[i] = []any{v, int64(rng.IntN(3)), int64(i)}
	}
	keys := []refKey{{col: 0, kind: sparktype.String, nullsFirst: true}, {col: 1, kind: sparktype.Long, desc: true}}
	runSort(t, rng, "long prefixes", []string{"string", "long", "long"}, rows, keys, 777)
	keys[0].desc = true
	runSort(t, rng, "long prefixes desc", []string{"string", "long", "long"}, rows, keys, 777)
}

// Spark's order, written out: nulls first for ASC by default, -Infinity < ... < -0.0 = 0.0 < ... <
// +Infinity < NaN = NaN (ties in input order), strings bytewise unsigned with a proper prefix first.
func TestSortSparkSemanticsByExample(t *testing.T) {
	nan2 := math.Float64frombits(0xfff8000000000001)
	negZero := math.Copysign(0, -1)
	doubles := []any{math.NaN(), 1.5, nil, negZero, math.Inf(1), 0.0, math.Inf(-1), nan2, -2.0, negZero}
	want := []any{nil, math.Inf(-1), -2.0, negZero, 0.0, negZero, 1.5, math.Inf(1), math.NaN(), nan2}
	strs := []any{"b", "", "a\x00", "\xc3\xa9", "a", nil, "ab", "\xff", "aaaaaaaaaaaaaaaa", "aaaaaaaa"}
	wantStr := []any{"", "a", "a\x00", "aaaaaaaa", "aaaaaaaaaaaaaaaa", "ab", "b", "\xc3\xa9", "\xff", nil}
	cases := []struct {
		typ   string
		order string
		in    []any
		want  []any
	}{
		{"double", sortOrderJSON(columnExpr(0, "double"), "Ascending", ""), doubles, want},
		{"float", sortOrderJSON(columnExpr(0, "float"), "Ascending", "NullsFirst"), doubles, want},
		{"double", sortOrderJSON(columnExpr(0, "double"), "Descending", ""), doubles,
			[]any{math.NaN(), nan2, math.Inf(1), 1.5, negZero, 0.0, negZero, -2.0, math.Inf(-1), nil}},
		{"string", sortOrderJSON(columnExpr(0, "string"), "Ascending", "NullsLast"), strs, wantStr},
		{"binary", sortOrderJSON(columnExpr(0, "binary"), "Ascending$", "NullsLast$"), strs, wantStr},
		{"boolean", sortOrderJSON(columnExpr(0, "boolean"), "Descending", "NullsFirst"),
			[]any{false, true, nil, true, false}, []any{nil, true, true, false, false}},
		{"decimal(38,0)", sortOrderJSON(columnExpr(0, "decimal(38,0)"), "Ascending", ""),
			[]any{big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(-1), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64))},
			[]any{new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64)), big.NewInt(-1), big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 64)}},
	}
	for _, c := range cases {
		ty := coltest.Type(t, c.typ)
		in := c.in
		if ty.Kind == sparktype.Float {
			in = make([]any, len(c.in))
			for i, v := range c.in {
				if f, ok := v.(float64); ok && !math.IsNaN(f) {
					v = float64(float32(f))
				}
				in[i] = v
			}
		}
		rows := make([][]any, len(in))
		for i, v := range in {
			rows[i] = []any{v}
		}
		orders, err := decodeOrders(t, c.order)
		if err != nil {
			t.Fatal(err)
		}
		src := &coltest.Source{Fields: []sparktype.Field{{Name: "x", Type: ty, Nullable: true}}}
		src.Batches = newSource(t, rand.New(rand.NewPCG(7, 8)), []sparktype.Type{ty}, rows).Batches
		op, err := NewSort(src, orders)
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(t, op, coltest.NewCtx(3))
		src.Release()
		if err != nil {
			t.Fatal(err)
		}
		var gotVals []string
		for _, r := range got {
			gotVals = append(gotVals, coltest.Show(r[0]))
		}
		var wantVals []string
		for _, v := range c.want {
			if f, ok := v.(float64); ok && ty.Kind == sparktype.Float {
				// A float NaN widens to the canonical double NaN pattern of its float payload.
				v = float64(float32(f))
			}
			wantVals = append(wantVals, coltest.Show(v))
		}
		if strings.Join(gotVals, ",") != strings.Join(wantVals, ",") {
			t.Errorf("%s %s:\n got %v\nwant %v", c.typ, orders[0], gotVals, wantVals)
		}
	}
}

// Keys are expressions, evaluated per batch: ORDER BY -x ASC is ORDER BY x DESC.
func TestSortByExpression(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	rows := make([][]any, 2000)
	for i := range rows {
		var v any = int64(rng.IntN(100) - 50)
		if i%17 == 0 {
			v = nil
		}
		rows[i] = []any{v, int64(i)}
	}
	neg := fmt.Sprintf(`{"class":%q,"dataType":"long","nullable":true,"fields":{"child":%s,"failOnError":true}}`,
		cat+"UnaryMinus", columnExpr(0, "long"))
	orders, err := decodeOrders(t, sortOrderJSON(neg, "Ascending", "NullsLast"))
	if err != nil {
		t.Fatal(err)
	}
	types := []sparktype.Type{sparktype.LongType, sparktype.LongType}
	src := newSource(t, rng, types, rows)
	defer src.Release()
	op, err := NewSort(src, orders)
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, op, coltest.NewCtx(256))
	if err != nil {
		t.Fatal(err)
	}
	coltest.CompareRows(t, "-x", got, refSort(rows, []refKey{{col: 0, kind: sparktype.Long, desc: true}}))
}

func TestSortEmptyInput(t *testing.T) {
	orders, err := decodeOrders(t, sortOrderJSON(columnExpr(0, "string"), "Ascending", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, empties := range []int{0, 3} {
		src := coltest.EmptySource(t, []sparktype.Type{sparktype.StringType}, empties)
		op, err := NewSort(src, orders)
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(t, op, coltest.NewCtx(10))
		src.Release()
		if err != nil || len(got) != 0 {
			t.Errorf("%d empty batches: %d rows, %v", empties, len(got), err)
		}
	}
}

// Many batches, many output batches: the gather reads rows of every buffered batch.
func TestSortManyBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	names := []string{"long", "string", "double"}
	types, rows := genRows(t, rng, names, 60000, 0.05)
	keys := []refKey{{col: 0, kind: types[0].Kind}, {col: 1, kind: types[1].Kind, desc: true}}
	runSort(t, rng, "60k rows", append(names, "long"), rows, keys, 4096)
}

// repeated is a source replaying one batch many times.
func repeated(t testing.TB, rng *rand.Rand, types []sparktype.Type, rows [][]any, times int) (*coltest.Source, func()) {
	whole := newSource(t, rng, types, rows)
	src := &coltest.Source{Fields: whole.Fields}
	for range times {
		src.Batches = append(src.Batches, whole.Batches...)
	}
	return src, whole.Release
}

// A sort that Spark grants nothing spills every batch, then cannot merge: it fails with the
// allocator's message and frees everything (memory, reservation, spill files).
func TestSortFailsCleanlyWhenMemoryIsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	names := []string{"string", "long"}
	types, rows := genRows(t, rng, names, 5000, 0)
	src, release := repeated(t, rng, types, rows, 20)
	defer release()
	op, err := NewSort(src, ordersFor(t, append(names, "long"), []refKey{{col: 0, kind: sparktype.String}}))
	if err != nil {
		t.Fatal(err)
	}
	r := &coltest.Reserver{Limit: 0}
	dir := t.TempDir()
	ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(r), Conf: &plan.Conf{BatchSize: 1000},
		Spill: bmemory.NewSpillFiles([]string{dir})}
	_, err = drain(t, op, ctx)
	var oom *bmemory.ErrOutOfMemory
	if !errors.As(err, &oom) || !strings.Contains(err.Error(), "spark.memory.offHeap.size") {
		t.Errorf("want the allocator's out-of-memory error, got %v", err)
	}
	ctx.Alloc.ReleaseAll()
	if r.Reserved != 0 {
		t.Errorf("%d bytes still reserved", r.Reserved)
	}
	checkNoSpillFiles(t, ctx, dir)
}

func TestDecodeOrders(t *testing.T) {
	orders, err := decodeOrders(t,
		sortOrderJSON(columnExpr(0, "long"), "Ascending", ""),
		sortOrderJSON(columnExpr(1, "string"), "Descending", ""),
		sortOrderJSON(columnExpr(0, "long"), "Descending", "NullsFirst"))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{orders[0].String(), orders[1].String(), orders[2].String()}
	want := []string{"c0#0 ASC NULLS FIRST", "c1#1 DESC NULLS LAST", "c0#0 DESC NULLS FIRST"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, c := range []struct{ order, reason string }{
		{sortOrderJSON(columnExpr(0, "string collate UTF8_LCASE"), "Ascending", ""),
			"sorting by c0 of type string collate UTF8_LCASE is not supported natively"},
		{sortOrderJSON(`{"class":"`+cat+`AttributeReference","dataType":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"fields":{},"ordinal":0,"name":"xs"}`, "Ascending", ""),
			"sorting by xs of type array<bigint> is not supported natively"},
		{sortOrderJSON(`{"class":"`+cat+`XPathString","dataType":"string","nullable":true,"fields":{"child":`+columnExpr(0, "string")+`}}`, "Ascending", ""),
			"expression XPathString is not supported natively"},
	} {
		if _, err := decodeOrders(t, c.order); err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("want refusal %q, got %v", c.reason, err)
		}
	}
}
