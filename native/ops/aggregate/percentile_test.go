package aggregate

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// pctExpr encodes Percentile / PercentileDisc as the JVM does. freq nil: no frequencyExpression
// field (PercentileDisc); freqNull: a null frequency literal.
type pctExpr struct {
	class    string
	ty       sparktype.Type
	tyName   string
	pct      float64
	freq     any
	reverse  bool
	legacy   bool
	freqNull bool
}

func (p pctExpr) expr(t *testing.T) *plan.Expr {
	t.Helper()
	fields := map[string]any{
		"child": attr(col{name: "c", typ: p.tyName, id: 1}, 0, true),
		"percentageExpression": map[string]any{"class": pkgExpr + "Literal", "dataType": "double", "nullable": false,
			"deterministic": true, "fields": map[string]any{"value": map[string]any{"bits": int64(math.Float64bits(p.pct))}}},
		"reverse": p.reverse,
	}
	if p.class == "PercentileDisc" {
		fields["legacyCalculation"] = p.legacy
	} else {
		var v any = p.freq
		if p.freqNull {
			v = nil
		}
		if p.freq == nil && !p.freqNull {
			v = 1
		}
		fields["frequencyExpression"] = map[string]any{"class": pkgExpr + "Literal", "dataType": "long",
			"nullable": v == nil, "deterministic": true, "fields": map[string]any{"value": v}}
	}
	m := map[string]any{"class": pkgAgg + p.class, "dataType": "double", "nullable": true, "deterministic": true,
		"fields": fields}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var e plan.Expr
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func (p pctExpr) state(t *testing.T, mode Mode) *percentileState {
	t.Helper()
	spec, err := newPercentile(p.expr(t), &fnContext{mode: mode, child: []sparktype.Field{{Name: "c", Type: p.ty, Nullable: true}}})
	if err != nil {
		t.Fatal(err)
	}
	return spec.newState().(*percentileState)
}

// pctRef is Spark's answer computed on the expanded, sorted values (each value repeated by its
// frequency): percentile's positions index that list directly.
func pctRef(vals []float64, p float64, interpolate, disc, reverse bool) (float64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	if reverse {
		slices.Reverse(s)
	}
	n := len(s)
	if disc {
		i := max(int(math.Ceil(float64(n)*p)), 1) - 1
		return s[i], true
	}
	pos := float64(n-1) * p
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi || s[lo] == s[hi] || !interpolate {
		return s[lo], true
	}
	return float64((float64(hi)-pos)*s[lo]) + float64((pos-float64(lo))*s[hi]), true
}

func TestPercentileKnownValues(t *testing.T) {
	// Spark's documented examples: percentile(col, 0.3) over (0), (10) is 3.0;
	// percentile_disc(0.25) is 0.0, percentile_cont(0.25) 2.5.
	for _, c := range []struct {
		p    pctExpr
		want float64
	}{
		{pctExpr{class: "Percentile", ty: sparktype.IntType, tyName: "integer", pct: 0.3}, 3},
		{pctExpr{class: "Percentile", ty: sparktype.IntType, tyName: "integer", pct: 0.25}, 2.5},
		{pctExpr{class: "PercentileDisc", ty: sparktype.IntType, tyName: "integer", pct: 0.25}, 0},
		{pctExpr{class: "Percentile", ty: sparktype.IntType, tyName: "integer", pct: 0.25, reverse: true}, 7.5},
		{pctExpr{class: "PercentileDisc", ty: sparktype.IntType, tyName: "integer", pct: 0.25, reverse: true}, 10},
	} {
		f := c.p.state(t, Complete)
		f.grow(1)
		b := columnar.NewBatch([]arrow.Array{i32Col([]int32{0, 10}, nil)}, 2)
		if err := f.update(newCtx(), b, []uint32{0, 0}); err != nil {
			t.Fatal(err)
		}
		b.Cols[0].Release()
		res, err := f.result(newCtx().Alloc, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(*array.Float64).Value(0); got != c.want {
			t.Errorf("%+v: %v, want %v", c.p, got, c.want)
		}
		res.Release()
	}
}

// TestPercentileModes runs Complete over all rows and Partial over two halves followed by
// Final (and a PartialMerge in between, which is also the spill path: buffers written and merged
// back), for every supported class and flag, against the reference.
func TestPercentileModes(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const n, groups = 3000, 7
	vals := make([]int64, n)
	valid := make([]bool, n)
	gids := make([]uint32, n)
	for i := range vals {
		vals[i] = int64(r.Intn(200)) - 100
		if i%50 == 0 {
			vals[i] = math.MaxInt64 - int64(i) // doubles round these
		}
		valid[i] = i%9 != 0
		gids[i] = uint32(r.Intn(groups - 1)) // the last group stays empty
	}
	ctx := newCtx()
	for _, p := range []pctExpr{
		{class: "Percentile", pct: 0.5}, {class: "Percentile", pct: 0.37, freq: 3}, {class: "Percentile", pct: 1},
		{class: "Percentile", pct: 0}, {class: "Percentile", pct: 0.9, reverse: true},
		{class: "Percentile", pct: 0.5, freqNull: true},
		{class: "PercentileDisc", pct: 0.5}, {class: "PercentileDisc", pct: 0.33, reverse: true},
		{class: "PercentileDisc", pct: 0}, {class: "PercentileDisc", pct: 0.61, legacy: true},
	} {
		for _, ty := range []sparktype.Type{sparktype.LongType, sparktype.DecimalOf(18, 3)} {
			p.ty, p.tyName = ty, ty.Name
			var col arrow.Array
			if ty.Kind == sparktype.Decimal {
				bs := make([]*big.Int, n)
				for i, v := range vals {
					bs[i] = big.NewInt(v % 1e17)
				}
				col = decCol(18, 3, bs, valid)
			} else {
				col = i64Col(vals, valid)
			}
			// Reference per group.
			freq := int64(1)
			if x, ok := p.freq.(int); ok {
				freq = int64(x)
			}
			if p.freqNull {
				freq = 0
			}
			exp := make([][]float64, groups)
			for i, v := range vals {
				if !valid[i] {
					continue
				}
				d := float64(v)
				if ty.Kind == sparktype.Decimal {
					d = (&percentileState{t: ty}).toDouble(v % 1e17)
				}
				for k := int64(0); k < freq; k++ {
					exp[gids[i]] = append(exp[gids[i]], d)
				}
			}
			check := func(what string, res arrow.Array) {
				t.Helper()
				out := res.(*array.Float64)
				for g := 0; g < groups; g++ {
					want, ok := pctRef(exp[g], p.pct, p.class == "Percentile", p.class == "PercentileDisc" && !p.legacy, p.reverse)
					if out.IsNull(g) == ok || (ok && math.Float64bits(out.Value(g)) != math.Float64bits(want)) {
						t.Errorf("%s %+v group %d: got %v (null %v), want %v (null %v)", what, p, g, out.Value(g), out.IsNull(g), want, !ok)
					}
				}
				res.Release()
			}
			complete := p.state(t, Complete)
			complete.grow(groups)
			if err := complete.update(ctx, columnar.NewBatch([]arrow.Array{col}, n), gids); err != nil {
				t.Fatal(err)
			}
			res, err := complete.result(ctx.Alloc, 0, groups)
			if err != nil {
				t.Fatal(err)
			}
			check("complete", res)

			final := p.state(t, Final)
			final.grow(groups)
			for _, half := range [][2]int{{0, n / 2}, {n / 2, n}} {
				part := p.state(t, Partial)
				part.grow(groups)
				sl := array.NewSlice(col, int64(half[0]), int64(half[1]))
				if err := part.update(ctx, columnar.NewBatch([]arrow.Array{sl}, half[1]-half[0]), gids[half[0]:half[1]]); err != nil {
					t.Fatal(err)
				}
				sl.Release()
				bufs, err := part.buffers(ctx.Alloc, 0, groups)
				if err != nil {
					t.Fatal(err)
				}
				merge := p.state(t, PartialMerge)
				merge.grow(groups)
				all := make([]uint32, groups)
				for g := range all {
					all[g] = uint32(g)
				}
				if err := merge.merge(bufs, all); err != nil {
					t.Fatal(err)
				}
				bufs[0].Release()
				if bufs, err = merge.buffers(ctx.Alloc, 0, groups); err != nil {
					t.Fatal(err)
				}
				if err := final.merge(bufs, all); err != nil {
					t.Fatal(err)
				}
				bufs[0].Release()
			}
			if res, err = final.result(ctx.Alloc, 0, groups); err != nil {
				t.Fatal(err)
			}
			check("partial+final", res)
			col.Release()
		}
	}
}

// TestPercentileBuffersAreSparks: PercentileBase.serialize of a one-entry map (its only order),
// per key width, and of an empty one; Spark's bytes merge back.
func TestPercentileBuffersAreSparks(t *testing.T) {
	ctx := newCtx()
	for _, c := range []struct {
		ty   sparktype.Type
		col  arrow.Array
		want string
	}{
		{sparktype.IntType, i32Col([]int32{-1, -1, 0}, []bool{true, true, false}),
			"00000018" + "0000000000000000" + "ffffffff00000000" + "0200000000000000" + "ffffffff"},
		{sparktype.LongType, i64Col([]int64{math.MinInt64 + 5}, nil),
			"00000018" + "0000000000000000" + "0500000000000080" + "0100000000000000" + "ffffffff"},
		{sparktype.IntType, i32Col([]int32{0}, []bool{false}), "ffffffff"},
	} {
		p := pctExpr{class: "Percentile", ty: c.ty, tyName: c.ty.Name, pct: 0.5}
		if c.ty.Kind == sparktype.Int {
			p.tyName = "integer"
		}
		f := p.state(t, Partial)
		f.grow(1)
		gids := make([]uint32, c.col.Len())
		if err := f.update(ctx, columnar.NewBatch([]arrow.Array{c.col}, c.col.Len()), gids); err != nil {
			t.Fatal(err)
		}
		bufs, err := f.buffers(ctx.Alloc, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(bufs[0].(*array.Binary).Value(0)); got != c.want {
			t.Errorf("%s: buffer %s, Spark's %s", c.ty, got, c.want)
		}
		m := p.state(t, Final)
		m.grow(1)
		if err := m.merge(bufs, []uint32{0}); err != nil {
			t.Fatal(err)
		}
		if len(m.groups[0]) != len(f.groups[0]) || (len(m.groups[0]) > 0 && m.groups[0][0] != f.groups[0][0]) {
			t.Errorf("%s: merged %v, want %v", c.ty, m.groups[0], f.groups[0])
		}
		bufs[0].Release()
		c.col.Release()
	}
	// Corrupt buffers are errors, not answers.
	f := pctExpr{class: "Percentile", ty: sparktype.LongType, tyName: "long", pct: 0.5}.state(t, Final)
	f.grow(1)
	for _, h := range []string{"", "000000", "00000018000000", "0000001000000000000000000000000000000000ffffffff",
		"00000018" + "0100000000000000" + "0000000000000000" + "0100000000000000" + "ffffffff"} {
		raw, _ := hex.DecodeString(h)
		b := array.NewBinaryBuilder(gomem, arrow.BinaryTypes.Binary)
		b.Append(raw)
		in := b.NewArray()
		b.Release()
		if err := f.merge([]arrow.Array{in}, []uint32{0}); err == nil {
			t.Errorf("buffer %q was accepted", h)
		}
		in.Release()
	}
}

func TestPercentileRefusals(t *testing.T) {
	for _, p := range []pctExpr{
		{class: "Percentile", ty: sparktype.DoubleType, tyName: "double", pct: 0.5},
		{class: "Percentile", ty: sparktype.FloatType, tyName: "float", pct: 0.5},
		{class: "Percentile", ty: sparktype.DecimalOf(30, 2), tyName: "decimal(30,2)", pct: 0.5},
		{class: "Percentile", ty: sparktype.LongType, tyName: "long", pct: 0.5, freq: -2},
		{class: "Percentile", ty: sparktype.StringType, tyName: "string", pct: 0.5},
	} {
		_, err := newPercentile(p.expr(t), &fnContext{mode: Partial, child: []sparktype.Field{{Name: "c", Type: p.ty}}})
		if _, ok := err.(*unsupported); !ok {
			t.Errorf("%+v: %v, want a refusal", p, err)
		}
	}
}

func TestJavaSearchLong(t *testing.T) {
	a := []int64{2, 5, 9}
	for _, c := range []struct {
		key  int64
		want int
	}{{0, 0}, {2, 0}, {3, 1}, {5, 1}, {9, 2}, {10, 3}} {
		if got := javaSearchLong(a, c.key); got != c.want {
			t.Errorf("search %d: %d, want %d", c.key, got, c.want)
		}
	}
}

// objectAggNode encodes `SELECT k, fn(v) FROM in GROUP BY k` in Complete mode, fn being an
// encoded aggregate function over column 1.
func objectAggNode(t *testing.T, in []col, fn map[string]any, result string) *plan.Node {
	t.Helper()
	r := col{name: "r", typ: result, id: 901}
	ae := map[string]any{"class": pkgAgg + "AggregateExpression", "dataType": result, "nullable": true,
		"deterministic": true, "fields": map[string]any{"aggregateFunction": fn, "mode": "Complete",
			"isDistinct": false, "filter": nil, "resultId": map[string]any{"class": pkgExpr + "ExprId",
				"fields": map[string]any{"id": 901}}}}
	out := col{name: "r_out", typ: result, id: 902}
	m := map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec",
		"nodeName": "ObjectHashAggregate", "output": []any{outAttr(in[0], true), outAttr(out, true)}, "children": []any{},
		"fields": map[string]any{"requiredChildDistributionExpressions": nil, "isStreaming": false,
			"numShufflePartitions": nil, "groupingExpressions": []any{attr(in[0], 0, true)},
			"aggregateExpressions": []any{ae}, "aggregateAttributes": []any{attr(r, -1, true)},
			"initialInputBufferOffset": 0,
			"resultExpressions":        []any{attr(in[0], -1, true), alias(attr(r, -1, true), "r_out", 902)}}}
	return toNode(t, m)
}

// TestObjectAggregatesSpill: percentile and ordered listagg keep per-group state that grows with
// the input; under a memory limit the Complete aggregate spills their serialized buffers and
// merges them back, with the same answers as without a limit.
func TestObjectAggregatesSpill(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const n = 30000
	keys := make([]int32, n)
	longs := make([]int64, n)
	strs := make([]string, n)
	valid := make([]bool, n)
	for i := range keys {
		keys[i] = int32(r.Intn(4000))
		longs[i] = int64(r.Intn(1000)) - 500
		strs[i] = fmt.Sprintf("é%d", r.Intn(300))
		valid[i] = i%13 != 0
	}
	pct := func(ty string) map[string]any {
		p := pctExpr{class: "Percentile", tyName: ty, pct: 0.37}
		raw, _ := json.Marshal(p.expr(t))
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return m
	}
	comma := ", "
	la := func() map[string]any {
		raw, _ := json.Marshal(listAggExpr(t, "string", &comma, "desc"))
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return m
	}
	// The argument is column 1 of the aggregate's input.
	bindOne := func(m map[string]any) map[string]any {
		f := m["fields"].(map[string]any)
		f["child"].(map[string]any)["ordinal"] = 1
		if os, ok := f["orderExpressions"].([]any); ok {
			for _, o := range os {
				o.(map[string]any)["fields"].(map[string]any)["child"].(map[string]any)["ordinal"] = 1
			}
		}
		return m
	}
	for _, c := range []struct {
		name   string
		vtype  string
		fn     map[string]any
		result string
	}{{"percentile", "long", bindOne(pct("long")), "double"}, {"listagg", "string", bindOne(la()), "string"}} {
		t.Run(c.name, func(t *testing.T) {
			in := []col{{name: "k", typ: "integer", id: 1}, {name: "c", typ: c.vtype, id: 2}}
			node := objectAggNode(t, in, c.fn, c.result)
			var batches []*columnar.Batch
			for lo := 0; lo < n; lo += 1000 {
				v := arrow.Array(nil)
				if c.vtype == "long" {
					v = i64Col(longs[lo:lo+1000], valid[lo:lo+1000])
				} else {
					v = strCol(strs[lo:lo+1000], valid[lo:lo+1000])
				}
				batches = append(batches, columnar.NewBatch([]arrow.Array{i32Col(keys[lo:lo+1000], nil), v}, 1000))
			}
			defer release(batches)
			schema := fieldsOf(t, in)
			want, _, err := spillRun(t, node, schema, batches, 0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got, spilled, err := spillRun(t, node, schema, batches, 512<<10, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if spilled == 0 {
				t.Errorf("nothing spilled")
			}
			sameRows(t, c.name, got, want)
		})
	}
}
