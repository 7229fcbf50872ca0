package aggregate

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

var e2eIn = []col{
	{"k", "string", 1}, {"i", "integer", 2}, {"l", "long", 3}, {"d", "double", 4},
	{"dec", "decimal(10,2)", 5}, {"s", "string", 6},
}

var e2eAggs = []aggFn{
	{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}},
	{class: "Sum", args: []int{2}, evalMode: "LEGACY", result: "long", buffers: []string{"long"}},
	{class: "Sum", args: []int{3}, evalMode: "ANSI", result: "double", buffers: []string{"double"}},
	{class: "Sum", args: []int{4}, evalMode: "ANSI", result: "decimal(20,2)", buffers: []string{"decimal(20,2)", "boolean"}},
	{class: "Count", result: "long", buffers: []string{"long"}},
	{class: "Count", args: []int{1}, result: "long", buffers: []string{"long"}},
	{class: "Count", args: []int{1, 3}, result: "long", buffers: []string{"long"}},
	{class: "Min", args: []int{1}, result: "integer", buffers: []string{"integer"}},
	{class: "Max", args: []int{2}, result: "long", buffers: []string{"long"}},
	{class: "Min", args: []int{3}, result: "double", buffers: []string{"double"}},
	{class: "Max", args: []int{3}, result: "double", buffers: []string{"double"}},
	{class: "Min", args: []int{4}, result: "decimal(10,2)", buffers: []string{"decimal(10,2)"}},
	{class: "Max", args: []int{4}, result: "decimal(10,2)", buffers: []string{"decimal(10,2)"}},
	{class: "Min", args: []int{5}, result: "string", buffers: []string{"string"}},
	{class: "Max", args: []int{5}, result: "string", buffers: []string{"string"}},
	{class: "Average", args: []int{1}, evalMode: "ANSI", result: "double", buffers: []string{"double", "long"}},
	{class: "Average", args: []int{3}, evalMode: "ANSI", result: "double", buffers: []string{"double", "long"}},
	{class: "Average", args: []int{4}, evalMode: "ANSI", result: "decimal(14,6)", buffers: []string{"decimal(20,2)", "long"}},
}

type e2eRow struct {
	k   *string
	i   *int32
	l   *int64
	d   *float64
	dec *big.Int
	s   *string
}

func genRows(n int, seed int64) []e2eRow {
	r := rand.New(rand.NewSource(seed))
	keys := []string{"a", "b", "c", "dd", "eee", "allnull", "nan", ""}
	rows := make([]e2eRow, n)
	for x := range rows {
		var row e2eRow
		if r.Intn(12) != 0 {
			k := keys[r.Intn(len(keys))]
			row.k = &k
		}
		allNull := row.k != nil && *row.k == "allnull"
		maybe := func() bool { return !allNull && r.Intn(7) != 0 }
		if maybe() {
			v := int32(r.Intn(2000000) - 1000000)
			row.i = &v
		}
		if maybe() {
			v := r.Int63n(1<<40) - 1<<39
			row.l = &v
		}
		if maybe() {
			v := float64(r.Intn(4001)-2000) / 2
			switch r.Intn(40) {
			case 0:
				v = math.Copysign(0, -1)
			case 1:
				v = 0
			}
			if row.k != nil && *row.k == "nan" && r.Intn(5) == 0 {
				v = math.NaN()
			}
			row.d = &v
		}
		if maybe() {
			row.dec = big.NewInt(r.Int63n(19999999999) - 9999999999)
		}
		if maybe() {
			s := string([]byte{byte('a' + r.Intn(26)), byte('a' + r.Intn(26)), byte(r.Intn(256))})
			row.s = &s
		}
		rows[x] = row
	}
	return rows
}

func toBatches(rows []e2eRow, size int) []*columnar.Batch {
	var out []*columnar.Batch
	for lo := 0; lo < len(rows); lo += size {
		hi := min(lo+size, len(rows))
		n := hi - lo
		ks, ss := make([]string, n), make([]string, n)
		kv, iv, lv, dv, decv, sv := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
		is, ls, ds := make([]int32, n), make([]int64, n), make([]float64, n)
		decs := make([]*big.Int, n)
		for j, r := range rows[lo:hi] {
			if r.k != nil {
				ks[j], kv[j] = *r.k, true
			}
			if r.i != nil {
				is[j], iv[j] = *r.i, true
			}
			if r.l != nil {
				ls[j], lv[j] = *r.l, true
			}
			if r.d != nil {
				ds[j], dv[j] = *r.d, true
			}
			if r.dec != nil {
				decs[j], decv[j] = r.dec, true
			} else {
				decs[j] = new(big.Int)
			}
			if r.s != nil {
				ss[j], sv[j] = *r.s, true
			}
		}
		cols := []arrow.Array{strCol(ks, kv), i32Col(is, iv), i64Col(ls, lv), f64Col(ds, dv),
			decCol(10, 2, decs, decv), strCol(ss, sv)}
		out = append(out, columnar.NewBatch(cols, n))
	}
	return out
}

func halfUp(num, den *big.Int) *big.Int {
	a := new(big.Int).Abs(num)
	q := new(big.Int).Add(new(big.Int).Mul(a, big.NewInt(2)), den)
	q.Quo(q, new(big.Int).Mul(den, big.NewInt(2)))
	if num.Sign() < 0 {
		q.Neg(q)
	}
	return q
}

func sparkGT(a, b float64) bool { return a > b || (math.IsNaN(a) && !math.IsNaN(b)) }

// reference computes the expected output rows of e2eAggs grouped by k.
func reference(rows []e2eRow) map[any][]any {
	type acc struct {
		sumI, sumL            int64
		hasI, hasL, hasD      bool
		sumD                  float64
		sumDec                *big.Int
		hasDec                bool
		cnt, cntI, cntID      int64
		minI                  int32
		maxL                  int64
		minD, maxD            float64
		minDec, maxDec        *big.Int
		minS, maxS            string
		hasS                  bool
		avgIS, avgDS          float64
		avgIC, avgDC, avgDecC int64
	}
	groups := map[any]*acc{}
	var order []any
	for _, r := range rows {
		var k any = nil
		if r.k != nil {
			k = *r.k
		}
		a := groups[k]
		if a == nil {
			a = &acc{sumDec: new(big.Int)}
			groups[k] = a
			order = append(order, k)
		}
		a.cnt++
		if r.i != nil {
			a.sumI += int64(*r.i)
			a.cntI++
			if !a.hasI || *r.i < a.minI {
				a.minI = *r.i
			}
			a.hasI = true
			a.avgIS += float64(*r.i)
			a.avgIC++
			if r.d != nil {
				a.cntID++
			}
		}
		if r.l != nil {
			a.sumL += *r.l
			if !a.hasL || *r.l > a.maxL {
				a.maxL = *r.l
			}
			a.hasL = true
		}
		if r.d != nil {
			v := *r.d
			a.sumD += v
			if !a.hasD {
				a.minD, a.maxD = v, v
			} else {
				if sparkGT(a.minD, v) {
					a.minD = v
				}
				if sparkGT(v, a.maxD) {
					a.maxD = v
				}
			}
			a.hasD = true
			a.avgDS += v
			a.avgDC++
		}
		if r.dec != nil {
			a.sumDec.Add(a.sumDec, r.dec)
			if !a.hasDec || r.dec.Cmp(a.minDec) < 0 {
				a.minDec = r.dec
			}
			if !a.hasDec || r.dec.Cmp(a.maxDec) > 0 {
				a.maxDec = r.dec
			}
			a.hasDec = true
			a.avgDecC++
		}
		if r.s != nil {
			if !a.hasS || *r.s < a.minS {
				a.minS = *r.s
			}
			if !a.hasS || *r.s > a.maxS {
				a.maxS = *r.s
			}
			a.hasS = true
		}
	}
	out := map[any][]any{}
	opt := func(has bool, v any) any {
		if !has {
			return nil
		}
		return v
	}
	for _, k := range order {
		a := groups[k]
		row := []any{k,
			opt(a.hasI, a.sumI), opt(a.hasL, a.sumL), opt(a.hasD, fkey(a.sumD)), opt(a.hasDec, dkey(a.sumDec)),
			a.cnt, a.cntI, a.cntID,
			opt(a.hasI, int64(a.minI)), opt(a.hasL, a.maxL), opt(a.hasD, fkey(a.minD)), opt(a.hasD, fkey(a.maxD)),
			opt(a.hasDec, dkey(a.minDec)), opt(a.hasDec, dkey(a.maxDec)), opt(a.hasS, a.minS), opt(a.hasS, a.maxS),
			opt(a.avgIC > 0, fkey(a.avgIS/float64(a.avgIC))), opt(a.avgDC > 0, fkey(a.avgDS/float64(a.avgDC))),
			nil,
		}
		if a.avgDecC > 0 {
			row[18] = dkey(halfUp(new(big.Int).Mul(a.sumDec, big.NewInt(10000)), big.NewInt(a.avgDecC)))
		}
		out[k] = row
	}
	return out
}

func byKey(t *testing.T, rows [][]any) map[any][]any {
	t.Helper()
	m := map[any][]any{}
	for _, r := range rows {
		if _, dup := m[r[0]]; dup {
			t.Fatalf("duplicate group %v", r[0])
		}
		m[r[0]] = r
	}
	return m
}

func compareGroups(t *testing.T, what string, got, want map[any][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: group %v missing", what, k)
			continue
		}
		for c := range w {
			if !reflect.DeepEqual(g[c], w[c]) {
				t.Errorf("%s: group %v column %d (%v): got %v, want %v", what, k, c, e2eAggsName(c), g[c], w[c])
			}
		}
	}
}

func e2eAggsName(c int) string {
	if c == 0 {
		return "key"
	}
	return e2eAggs[c-1].class
}

// TestPartialFinalEndToEnd runs Partial over three tasks of several batches each, then Final over
// all the partial outputs, and Complete over everything, against a straightforward reference.
func TestPartialFinalEndToEnd(t *testing.T) {
	rows := genRows(6000, 1)
	want := reference(rows)
	plans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	in := fieldsOf(t, e2eIn)

	var partials []*columnar.Batch
	for task := 0; task < 3; task++ {
		out, err := run(t, plans.partial, in, toBatches(rows[task*2000:(task+1)*2000], 300))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range out {
			if len(b.Cols) != len(plans.partialSchema) {
				t.Fatalf("partial batch has %d columns, want %d", len(b.Cols), len(plans.partialSchema))
			}
			for i, c := range b.Cols {
				if !arrow.TypeEqual(c.DataType(), plans.partialSchema[i].Type.Arrow()) {
					t.Fatalf("partial column %d is %s, want %s", i, c.DataType(), plans.partialSchema[i].Type)
				}
			}
		}
		partials = append(partials, out...)
	}
	final, err := run(t, plans.final, plans.partialSchema, partials)
	if err != nil {
		t.Fatal(err)
	}
	compareGroups(t, "partial+final", byKey(t, rowsOf(final)), want)
	release(final)
	release(partials)

	complete, err := run(t, plans.complete, in, toBatches(rows, 512))
	if err != nil {
		t.Fatal(err)
	}
	compareGroups(t, "complete", byKey(t, rowsOf(complete)), want)
	release(complete)
}

// TestNoKeys: without grouping keys every task emits exactly one row, also over empty input.
func TestNoKeys(t *testing.T) {
	plans := buildPlans(t, e2eIn, nil, e2eAggs)
	in := fieldsOf(t, e2eIn)

	// Empty input: Partial emits the initial buffers, Final the empty results.
	empty, err := run(t, plans.partial, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	er := rowsOf(empty)
	if len(er) != 1 {
		t.Fatalf("partial over empty input: %d rows, want 1", len(er))
	}
	// sum(i), sum(l), sum(d): null; sum(dec): 0 and isEmpty=true; counts 0; min/max null;
	// avg: sum 0.0 / count 0 (double) and 0 / 0 (decimal).
	wantBuf := []any{nil, nil, nil, "dec:0", true, int64(0), int64(0), int64(0), nil, nil, nil, nil, nil, nil,
		nil, nil, fkey(0), int64(0), fkey(0), int64(0), "dec:0", int64(0)}
	if !reflect.DeepEqual(er[0], wantBuf) {
		t.Errorf("initial buffers:\n got %v\nwant %v", er[0], wantBuf)
	}
	final, err := run(t, plans.final, plans.partialSchema, empty)
	if err != nil {
		t.Fatal(err)
	}
	fr := rowsOf(final)
	wantRes := []any{nil, nil, nil, nil, int64(0), int64(0), int64(0), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
	if len(fr) != 1 || !reflect.DeepEqual(fr[0], wantRes) {
		t.Errorf("final over empty partial: %v, want [%v]", fr, wantRes)
	}
	release(final)
	release(empty)

	// Empty grouped input: no rows at all.
	gplans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	g, err := run(t, gplans.partial, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rowsOf(g)) != 0 {
		t.Errorf("grouped partial over empty input emitted rows")
	}

	// Data: one global group equals the reference's groups merged.
	rows := genRows(3000, 2)
	for i := range rows {
		rows[i].k = nil
	}
	want := reference(rows)[nil]
	var partials []*columnar.Batch
	for task := 0; task < 3; task++ {
		lo, hi := task*1000, (task+1)*1000
		if task == 2 {
			lo, hi = 2000, 2000 // an empty task still contributes its initial buffers
		}
		out, err := run(t, plans.partial, in, toBatches(rows[lo:hi], 128))
		if err != nil {
			t.Fatal(err)
		}
		if len(rowsOf(out)) != 1 {
			t.Fatalf("task %d emitted %d rows", task, len(rowsOf(out)))
		}
		partials = append(partials, out...)
	}
	rows = rows[:2000]
	want = reference(rows)[nil]
	final, err = run(t, plans.final, plans.partialSchema, partials)
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(final)
	if len(got) != 1 || !reflect.DeepEqual(got[0], want[1:]) {
		t.Errorf("no-key final:\n got %v\nwant %v", got, want[1:])
	}
	release(final)
	release(partials)
}

// TestFloatKeys: NaNs group together, -0.0 with 0.0, null alone; keys come out normalized.
func TestFloatKeys(t *testing.T) {
	in := []col{{"x", "double", 1}}
	aggs := []aggFn{{class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(t, in, []int{0}, aggs)
	nan2 := math.Float64frombits(0x7ff8000000000123)
	vals := []float64{math.NaN(), nan2, math.Copysign(0, -1), 0, 0, 1.5, -math.NaN(), 7}
	valid := []bool{true, true, true, true, false, true, true, true}
	b := columnar.NewBatch([]arrow.Array{f64Col(vals, valid)}, len(vals))
	out, err := run(t, plans.complete, fieldsOf(t, in), []*columnar.Batch{b})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(t, rowsOf(out))
	want := map[any][]any{
		fkey(math.Float64frombits(0x7ff8000000000000)): {fkey(math.Float64frombits(0x7ff8000000000000)), int64(3)},
		fkey(0):   {fkey(0), int64(2)},
		nil:       {nil, int64(1)},
		fkey(1.5): {fkey(1.5), int64(1)},
		fkey(7):   {fkey(7), int64(1)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	release(out)
}

// TestMultiColumnKeys groups by (int, string, decimal) with nulls in each: the composite path.
func TestMultiColumnKeys(t *testing.T) {
	in := []col{{"a", "integer", 1}, {"b", "string", 2}, {"c", "decimal(10,2)", 3}, {"v", "long", 4}}
	aggs := []aggFn{{class: "Sum", args: []int{3}, evalMode: "ANSI", result: "long", buffers: []string{"long"}},
		{class: "Count", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(t, in, []int{0, 1, 2}, aggs)
	r := rand.New(rand.NewSource(3))
	type key struct {
		a *int32
		b *string
		c *int64
	}
	type agg struct{ sum, cnt int64 }
	want := map[[3]any]*agg{}
	var batches []*columnar.Batch
	for bi := 0; bi < 5; bi++ {
		n := 400
		as, bs, vs := make([]int32, n), make([]string, n), make([]int64, n)
		cs := make([]*big.Int, n)
		av, bv, cv := make([]bool, n), make([]bool, n), make([]bool, n)
		for i := 0; i < n; i++ {
			as[i], av[i] = int32(r.Intn(3)), r.Intn(5) != 0
			bs[i], bv[i] = []string{"x", "yy", ""}[r.Intn(3)], r.Intn(5) != 0
			cs[i], cv[i] = big.NewInt(int64(r.Intn(3))*150), r.Intn(5) != 0
			vs[i] = int64(r.Intn(100))
			var k [3]any
			if av[i] {
				k[0] = int64(as[i])
			}
			if bv[i] {
				k[1] = bs[i]
			}
			if cv[i] {
				k[2] = dkey(cs[i])
			}
			if want[k] == nil {
				want[k] = &agg{}
			}
			want[k].sum += vs[i]
			want[k].cnt++
		}
		batches = append(batches, columnar.NewBatch([]arrow.Array{i32Col(as, av), strCol(bs, bv), decCol(10, 2, cs, cv), i64Col(vs, nil)}, n))
	}
	p1, err := run(t, plans.partial, fieldsOf(t, in), batches[:3])
	if err != nil {
		t.Fatal(err)
	}
	p2, err := run(t, plans.partial, fieldsOf(t, in), batches[3:])
	if err != nil {
		t.Fatal(err)
	}
	all := append(p1, p2...)
	final, err := run(t, plans.final, plans.partialSchema, all)
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(final)
	if len(got) != len(want) {
		t.Errorf("%d groups, want %d", len(got), len(want))
	}
	for _, row := range got {
		w := want[[3]any{row[0], row[1], row[2]}]
		if w == nil || row[3] != w.sum || row[4] != w.cnt {
			t.Errorf("group %v: got sum %v count %v, want %+v", row[:3], row[3], row[4], w)
		}
	}
	release(final)
	release(all)
}

func decimalSumPlans(t *testing.T, mode string, keyed bool) (aggPlans, []col) {
	in := []col{{"k", "integer", 1}, {"v", "decimal(38,0)", 2}}
	aggs := []aggFn{{class: "Sum", args: []int{1}, evalMode: mode, result: "decimal(38,0)", buffers: []string{"decimal(38,0)", "boolean"}},
		{class: "Average", args: []int{1}, evalMode: mode, result: "decimal(38,4)", buffers: []string{"decimal(38,0)", "long"}}}
	var keys []int
	if keyed {
		keys = []int{0}
	}
	return buildPlans(t, in, keys, aggs), in
}

func bigPow(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

func decBatch(vals ...*big.Int) *columnar.Batch {
	ks := make([]int32, len(vals))
	return columnar.NewBatch([]arrow.Array{i32Col(ks, nil), decCol(38, 0, vals, nil)}, len(vals))
}

// TestDecimalOverflow: a grouped running sum over the buffer precision turns null for good (LEGACY
// null, ANSI ARITHMETIC_OVERFLOW); without keys only the final value counts.
func TestDecimalOverflow(t *testing.T) {
	nine := new(big.Int).Mul(big.NewInt(9), bigPow(37))
	negNine := new(big.Int).Neg(nine)
	// LEGACY, grouped: 9e37 + 9e37 overflows, -9e37 cannot bring it back.
	plans, in := decimalSumPlans(t, "LEGACY", true)
	out, err := run(t, plans.complete, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine, negNine)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(out); !reflect.DeepEqual(got, [][]any{{int64(0), nil, nil}}) {
		t.Errorf("legacy grouped overflow: %v", got)
	}
	release(out)
	// The partial buffer of an overflowed group: sum null, isEmpty false; Final keeps it null.
	pout, err := run(t, plans.partial, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(pout); !reflect.DeepEqual(got, [][]any{{int64(0), nil, false, nil, int64(2)}}) {
		t.Errorf("overflowed partial buffers: %v", got)
	}
	fout, err := run(t, plans.final, plans.partialSchema, pout)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(fout); !reflect.DeepEqual(got, [][]any{{int64(0), nil, nil}}) {
		t.Errorf("legacy final over overflowed partial: %v", got)
	}
	release(fout)

	// ANSI, grouped: the error class Spark raises.
	aplans, _ := decimalSumPlans(t, "ANSI", true)
	_, err = run(t, aplans.final, aplans.partialSchema, pout)
	se, ok := exec.AsSparkError(err)
	if !ok || se.Class != "ARITHMETIC_OVERFLOW" || se.Params["message"] != "Overflow in sum of decimals" {
		t.Errorf("ansi grouped overflow: %v", err)
	}
	release(pout)

	// No keys: no per-row check, 9e37 + 9e37 - 9e37 = 9e37; its average 3e37 does not fit
	// decimal(38,4): null in LEGACY, NUMERIC_VALUE_OUT_OF_RANGE in ANSI.
	lplans, _ := decimalSumPlans(t, "LEGACY", false)
	out, err = run(t, lplans.complete, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine, negNine)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(out); !reflect.DeepEqual(got, [][]any{{dkey(nine), nil}}) {
		t.Errorf("no-key sum: %v, want %v", got, dkey(nine))
	}
	release(out)
	nplans, _ := decimalSumPlans(t, "ANSI", false)
	_, err = run(t, nplans.complete, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine, negNine)})
	se, ok = exec.AsSparkError(err)
	if !ok || se.Class != "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION" ||
		se.Params["value"] != "30000000000000000000000000000000000000.000000000000000000000000000000000000000" {
		t.Errorf("no-key ansi avg overflow: %v", err)
	}
	// No keys, ANSI, final value over precision: NUMERIC_VALUE_OUT_OF_RANGE.
	_, err = run(t, nplans.complete, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine)})
	se, ok = exec.AsSparkError(err)
	if !ok || se.Class != "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION" || se.Params["value"] != "180000000000000000000000000000000000000" {
		t.Errorf("no-key ansi overflow: %v", err)
	}
	// No keys, LEGACY: null.
	out, err = run(t, lplans.complete, fieldsOf(t, in), []*columnar.Batch{decBatch(nine, nine)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(out); !reflect.DeepEqual(got, [][]any{{nil, nil}}) {
		t.Errorf("no-key legacy overflow: %v", got)
	}
	release(out)
}

// TestAverageDecimalRounding: HALF_UP at the result scale, away from zero for negatives.
func TestAverageDecimalRounding(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"v", "decimal(5,0)", 2}}
	aggs := []aggFn{{class: "Average", args: []int{1}, evalMode: "ANSI", result: "decimal(9,4)", buffers: []string{"decimal(15,0)", "long"}}}
	plans := buildPlans(t, in, []int{0}, aggs)
	// group 0: (1 + 1 + 0) / 3 = 0.66666.. -> 0.6667; group 1: (-1 -1 +0)/3 -> -0.6667;
	// group 2: 1/8 = 0.125 -> 0.1250; group 3: (1+0+...)/ 16 = 0.0625 -> 0.0625; group 4: 1/32=0.03125 -> 0.0313
	type r struct {
		k int32
		v int64
	}
	data := []r{{0, 1}, {0, 1}, {0, 0}, {1, -1}, {1, -1}, {1, 0}, {2, 1}, {4, 1}, {5, -1}}
	for i := 0; i < 7; i++ {
		data = append(data, r{2, 0})
	}
	for i := 0; i < 31; i++ {
		data = append(data, r{4, 0}, r{5, 0})
	}
	ks := make([]int32, len(data))
	vs := make([]*big.Int, len(data))
	for i, d := range data {
		ks[i], vs[i] = d.k, big.NewInt(d.v)
	}
	b := columnar.NewBatch([]arrow.Array{i32Col(ks, nil), decCol(5, 0, vs, nil)}, len(data))
	out, err := run(t, plans.complete, fieldsOf(t, in), []*columnar.Batch{b})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(t, rowsOf(out))
	want := map[any][]any{
		int64(0): {int64(0), "dec:6667"}, int64(1): {int64(1), "dec:-6667"}, int64(2): {int64(2), "dec:1250"},
		int64(4): {int64(4), "dec:313"}, int64(5): {int64(5), "dec:-313"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	release(out)
}

// TestLongOverflow: ANSI raises ARITHMETIC_OVERFLOW (long overflow, try_add), LEGACY wraps.
func TestLongOverflow(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"v", "long", 2}}
	for _, mode := range []string{"ANSI", "LEGACY"} {
		aggs := []aggFn{{class: "Sum", args: []int{1}, evalMode: mode, result: "long", buffers: []string{"long"}}}
		plans := buildPlans(t, in, []int{0}, aggs)
		b := columnar.NewBatch([]arrow.Array{i32Col([]int32{0, 0}, nil), i64Col([]int64{math.MaxInt64, 1}, nil)}, 2)
		out, err := run(t, plans.partial, fieldsOf(t, in), []*columnar.Batch{b})
		if mode == "ANSI" {
			se, ok := exec.AsSparkError(err)
			if !ok || se.Class != "ARITHMETIC_OVERFLOW" || se.Params["message"] != "long overflow" ||
				se.Params["alternative"] != " Use 'try_add' to tolerate overflow and return NULL instead." {
				t.Errorf("ansi: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(out); !reflect.DeepEqual(got, [][]any{{int64(0), int64(math.MinInt64)}}) {
			t.Errorf("legacy: %v", got)
		}
		release(out)
	}
}

// TestResultExpression: Final results may be arbitrary expressions over the aggregate attributes
// (sum(v) + 1 here), rebound by exprId.
func TestResultExpression(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"v", "long", 2}}
	aggs := []aggFn{{class: "Sum", args: []int{1}, evalMode: "ANSI", result: "long", buffers: []string{"long"}}}
	plans := buildPlans(t, in, []int{0}, aggs)
	// replace the aggregate's alias child with Add(sumAttr, 1)
	var m map[string]any
	raw := mustJSON(t, plans.complete)
	if err := jsonUnmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	res := m["fields"].(map[string]any)["resultExpressions"].([]any)
	al := res[1].(map[string]any)
	sumAttr := al["fields"].(map[string]any)["child"]
	one := map[string]any{"class": pkgExpr + "Literal", "dataType": "long", "nullable": false, "deterministic": true,
		"fields": map[string]any{"value": 1}}
	al["fields"].(map[string]any)["child"] = map[string]any{"class": pkgExpr + "Add", "dataType": "long", "nullable": true,
		"deterministic": true, "fields": map[string]any{"left": sumAttr, "right": one,
			"evalContext": map[string]any{"class": pkgExpr + "NumericEvalContext", "fields": map[string]any{"evalMode": "ANSI", "allowDecimalPrecisionLoss": true}}}}
	node := toNode(t, m)
	b := columnar.NewBatch([]arrow.Array{i32Col([]int32{1, 1, 2}, nil), i64Col([]int64{10, 20, 5}, []bool{true, true, false})}, 3)
	out, err := run(t, node, fieldsOf(t, in), []*columnar.Batch{b})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(t, rowsOf(out))
	want := map[any][]any{int64(1): {int64(1), int64(31)}, int64(2): {int64(2), nil}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	release(out)
	// the shared plan JSON was not modified by rebinding
	if mustJSON(t, toNode(t, m)) != mustJSON(t, node) {
		t.Errorf("plan mutated")
	}
}

// TestNoLeaks: every output buffer comes from the task allocator and is freed on release.
func TestNoLeaks(t *testing.T) {
	plans := buildPlans(t, e2eIn, []int{0}, e2eAggs)
	src := &source{schema: fieldsOf(t, e2eIn), batches: toBatches(genRows(2000, 5), 256)}
	op, err := New(plans.partial, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx()
	ctx.Conf.BatchSize = 3
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	batches := 0
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		if b.NumRows > 3 {
			t.Errorf("batch of %d rows over the batch size", b.NumRows)
		}
		batches++
		b.Release()
	}
	op.Close()
	if batches != 3 { // 8 groups + null key in chunks of 3
		t.Errorf("%d batches, want 3", batches)
	}
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("%d bytes still allocated", used)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestMinMaxFloatOrdering: NaN is the greatest value; among equal values (-0.0 = 0.0) the first
// one seen stays, as Spark's greatest/least keep the buffer unless strictly greater/less.
func TestMinMaxFloatOrdering(t *testing.T) {
	in := []col{{"k", "integer", 1}, {"x", "double", 2}}
	aggs := []aggFn{{class: "Max", args: []int{1}, result: "double", buffers: []string{"double"}},
		{class: "Min", args: []int{1}, result: "double", buffers: []string{"double"}}}
	plans := buildPlans(t, in, []int{0}, aggs)
	neg0 := math.Copysign(0, -1)
	ks := []int32{0, 0, 1, 1, 2, 2, 2}
	xs := []float64{0, neg0, neg0, 0, 1, math.NaN(), -3}
	b := columnar.NewBatch([]arrow.Array{i32Col(ks, nil), f64Col(xs, nil)}, len(ks))
	out, err := run(t, plans.complete, fieldsOf(t, in), []*columnar.Batch{b})
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(t, rowsOf(out))
	want := map[any][]any{
		int64(0): {int64(0), fkey(0), fkey(0)},
		int64(1): {int64(1), fkey(neg0), fkey(neg0)},
		int64(2): {int64(2), fkey(math.NaN()), fkey(-3)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	release(out)
}

// TestPrefix8OrdersAsBytes: where two strings' 8-byte prefixes differ, they order the strings
// as Spark does (unsigned bytes, a prefix before its extensions).
func TestPrefix8OrdersAsBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	gen := func() []byte {
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return b
	}
	for i := 0; i < 200000; i++ {
		a, b := gen(), gen()
		pa, pb := prefix8(a), prefix8(b)
		if pa == pb {
			continue
		}
		if (pa < pb) != (bytes.Compare(a, b) < 0) {
			t.Fatalf("%q %q: prefixes %x %x order them wrong", a, b, pa, pb)
		}
	}
}
