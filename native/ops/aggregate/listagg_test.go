package aggregate

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// listAggExpr encodes ListAgg(c#1, delimiter, orderExpressions) as the JVM does. order: "" (none),
// "asc"/"desc" (by c#1), "other" (by another attribute), "two" (two keys).
func listAggExpr(t *testing.T, tyName string, delim *string, order string) *plan.Expr {
	t.Helper()
	c := attr(col{name: "c", typ: tyName, id: 1}, 0, true)
	d := map[string]any{"class": pkgExpr + "Literal", "dataType": "void", "nullable": true, "deterministic": true,
		"fields": map[string]any{"value": nil}}
	if delim != nil {
		d = map[string]any{"class": pkgExpr + "Literal", "dataType": tyName, "nullable": false, "deterministic": true,
			"fields": map[string]any{"value": map[string]any{"b64": base64.StdEncoding.EncodeToString([]byte(*delim))}}}
	}
	so := func(child map[string]any, dir string) map[string]any {
		return map[string]any{"class": pkgExpr + "SortOrder", "dataType": tyName, "nullable": true, "deterministic": true,
			"fields": map[string]any{"child": child, "direction": dir, "nullOrdering": "NullsFirst", "sameOrderExpressions": []any{}}}
	}
	orders := []any{}
	switch order {
	case "asc":
		orders = append(orders, so(c, "Ascending"))
	case "desc":
		orders = append(orders, so(c, "Descending"))
	case "other":
		orders = append(orders, so(attr(col{name: "o", typ: tyName, id: 2}, 1, true), "Ascending"))
	case "two":
		orders = append(orders, so(c, "Ascending"), so(c, "Descending"))
	}
	m := map[string]any{"class": pkgAgg + "ListAgg", "dataType": tyName, "nullable": true, "deterministic": true,
		"fields": map[string]any{"child": c, "delimiter": d, "orderExpressions": orders}}
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

func TestListAgg(t *testing.T) {
	ctx := newCtx()
	comma := ", "
	vals := []string{"b", "", "é", "a", "ab", "b"}
	valid := []bool{true, false, true, true, true, true}
	for _, c := range []struct {
		delim *string
		order string
		want  string
	}{
		{nil, "", "béaabb"},
		{&comma, "", "b, é, a, ab, b"},
		{&comma, "asc", "a, ab, b, b, é"},
		{nil, "desc", "ébbaba"},
	} {
		for _, ty := range []sparktype.Type{sparktype.StringType, sparktype.BinaryType} {
			spec, err := newListAgg(listAggExpr(t, ty.Name, c.delim, c.order), &fnContext{mode: Complete, singleGroup: true,
				child: []sparktype.Field{{Name: "c", Type: ty, Nullable: true}}})
			if err != nil {
				t.Fatal(err)
			}
			f := spec.newState()
			f.grow(2)
			var in arrow.Array
			if ty.Kind == sparktype.String {
				in = strCol(vals, valid)
			} else {
				b := array.NewBinaryBuilder(gomem, arrow.BinaryTypes.Binary)
				for i, v := range vals {
					if valid[i] {
						b.Append([]byte(v))
					} else {
						b.AppendNull()
					}
				}
				in = b.NewArray()
				b.Release()
			}
			if err := f.update(ctx, columnar.NewBatch([]arrow.Array{in}, len(vals)), make([]uint32, len(vals))); err != nil {
				t.Fatal(err)
			}
			in.Release()
			// Through the buffer (a spill or a Final aggregate): the same answer.
			bufs, err := f.buffers(ctx.Alloc, 0, 2)
			if err != nil {
				t.Fatal(err)
			}
			fin := spec.newState()
			fin.grow(2)
			if err := fin.merge(bufs, []uint32{0, 1}); err != nil {
				t.Fatal(err)
			}
			bufs[0].Release()
			for _, st := range []function{f, fin} {
				res, err := st.result(ctx.Alloc, 0, 2)
				if err != nil {
					t.Fatal(err)
				}
				var got string
				switch r := res.(type) {
				case *array.String:
					got = r.Value(0)
				case *array.Binary:
					got = string(r.Value(0))
				}
				if got != c.want || res.IsNull(0) || !res.IsNull(1) {
					t.Errorf("listagg %s %q order %q: %q (null: %v), empty group null: %v; want %q", ty, deref(c.delim),
						c.order, got, res.IsNull(0), res.IsNull(1), c.want)
				}
				res.Release()
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// TestListAggBuffersAreCollectLists: ListAgg's buffer is Collect.serialize of the values, the
// bytes Spark's collect_list writes for the same strings.
func TestListAggBuffersAreCollectLists(t *testing.T) {
	ty, col := collectCase(t, "str")
	spec, err := newListAgg(listAggExpr(t, "string", nil, ""), &fnContext{mode: Partial, singleGroup: true,
		child: []sparktype.Field{{Name: "c", Type: ty, Nullable: true}}})
	if err != nil {
		t.Fatal(err)
	}
	f := spec.newState()
	f.grow(1)
	if err := f.update(newCtx(), columnar.NewBatch([]arrow.Array{col}, col.Len()), make([]uint32, col.Len())); err != nil {
		t.Fatal(err)
	}
	col.Release()
	bufs, err := f.buffers(newCtx().Alloc, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(bufs[0].(*array.Binary).Value(0)); got != collectVectors["str"] {
		t.Errorf("buffer %s, Spark's %s", got, collectVectors["str"])
	}
	bufs[0].Release()
}

func TestListAggRefusals(t *testing.T) {
	for _, c := range []struct {
		ty     string
		order  string
		keyed  bool
		refuse bool
	}{
		{"string", "", true, true}, {"string", "other", false, true}, {"string", "two", false, true},
		{"integer", "", false, true}, {"string collate UTF8_LCASE", "", false, true},
		{"string", "asc", true, false}, {"binary", "desc", true, false}, {"string", "", false, false},
	} {
		ty, _ := sparktype.Parse(json.RawMessage(`"` + c.ty + `"`))
		_, err := newListAgg(listAggExpr(t, c.ty, nil, c.order), &fnContext{mode: Partial, singleGroup: !c.keyed,
			child: []sparktype.Field{{Name: "c", Type: ty}, {Name: "o", Type: ty}}})
		if _, ok := err.(*unsupported); ok != c.refuse {
			t.Errorf("listagg over %s order %q keyed %v: %v, want refused %v", c.ty, c.order, c.keyed, err, c.refuse)
		}
	}
}
