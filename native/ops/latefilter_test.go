package ops

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	bmemory "github.com/bolide-dev/bolide/native/memory"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Expression JSON for the late-materialization tests (Catalyst's encoding, plan/wire.go).
func jAttr(ord int, typ string) string {
	return fmt.Sprintf(`{"class":"%sAttributeReference","dataType":%q,"nullable":true,"deterministic":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat, typ, ord, ord)
}

func jLit(typ, value string) string {
	return fmt.Sprintf(`{"class":"%sLiteral","dataType":%q,"nullable":false,"deterministic":true,"fields":{"value":%s}}`, cat, typ, value)
}

func jStr(s string) string {
	return jLit("string", fmt.Sprintf(`{"b64":%q}`, base64.StdEncoding.EncodeToString([]byte(s))))
}

func jNode(class, typ string, fields ...string) string {
	var fs []string
	for i := 0; i+1 < len(fields); i += 2 {
		fs = append(fs, fmt.Sprintf("%q:%s", fields[i], fields[i+1]))
	}
	return fmt.Sprintf(`{"class":"%s%s","dataType":%q,"nullable":true,"deterministic":true,"fields":{%s}}`,
		cat, class, typ, strings.Join(fs, ","))
}

func jCmp(class, l, r string) string { return jNode(class, "boolean", "left", l, "right", r) }

func jAnd(cs ...string) string {
	e := cs[0]
	for _, c := range cs[1:] {
		e = jNode("And", "boolean", "left", e, "right", c)
	}
	return e
}

func jArith(class, typ, mode, l, r string) string {
	ctx := fmt.Sprintf(`{"class":"%sNumericEvalContext","fields":{"evalMode":%q,"allowDecimalPrecisionLoss":true}}`, cat, mode)
	return jNode(class, typ, "left", l, "right", r, "evalContext", ctx)
}

// conjunctsFor splits a condition as translate's buildFilter does.
func conjunctsFor(t *testing.T, js string) []Conjunct {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatal(err)
	}
	var flat func(e *plan.Expr) []*plan.Expr
	flat = func(e *plan.Expr) []*plan.Expr {
		if plan.ShortClass(e.Class) != "And" {
			return []*plan.Expr{e}
		}
		l, _ := e.Child("left")
		r, _ := e.Child("right")
		return append(flat(l), flat(r)...)
	}
	var out []Conjunct
	for _, c := range flat(&e) {
		raw, _ := json.Marshal(c)
		refs, err := plan.References(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Conjunct{Expr: translateExpr(t, string(raw)), Refs: refs, Deterministic: c.Deterministic})
	}
	return out
}

// writeLateFile writes rows with: a (long, 7 values and nulls), s (string, 5 values and nulls),
// p (long, distinct), d (int, a value changing every 1000 rows): several row groups, dictionary
// encoded where the writer chooses to.
func writeLateFile(t *testing.T, path string, n int, dict bool) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(dict), parquet.WithMaxRowGroupLength(3000),
		parquet.WithDataPageSize(2048))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	words := []string{"apple", "banana", "cherry", "", "date-long-word"}
	for i := 0; i < n; i++ {
		if i%11 == 5 {
			rb.Field(0).AppendNull()
		} else {
			rb.Field(0).(*array.Int64Builder).Append(int64(i % 7))
		}
		if i%13 == 3 {
			rb.Field(1).AppendNull()
		} else {
			rb.Field(1).(*array.StringBuilder).Append(words[(i*7)%5])
		}
		rb.Field(2).(*array.Int64Builder).Append(int64(i))
		rb.Field(3).(*array.Int32Builder).Append(int32(i / 1000))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// runFilter drains a filter over a scan of the file (with one partition column q = 1) and
// returns its rows as strings; late reports whether the filter read the scan lazily, coded
// whether a test ran over a dictionary.
func runFilter(t *testing.T, path, cond string, lazy bool, batch int) (rows []string, late, coded bool) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data := []sparktype.Field{{Name: "a", Type: sparktype.LongType, Nullable: true},
		{Name: "s", Type: sparktype.StringType, Nullable: true},
		{Name: "p", Type: sparktype.LongType, Nullable: true},
		{Name: "d", Type: sparktype.IntType, Nullable: true}}
	parts := []sparktype.Field{{Name: "q", Type: sparktype.IntType, Nullable: true}}
	scan := NewParquetScan("1", data, parts, nil, FileErrorPolicy{})
	f, err := NewFilter(&exec.Guarded{Name: "BolideScan", Inner: scan}, translateExpr(t, cond))
	if err != nil {
		t.Fatal(err)
	}
	if lazy {
		f.SetConjuncts(conjunctsFor(t, cond))
	}
	alloc := bmemory.NewTaskAllocator(nil)
	ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: batch}}
	ctx.Files = map[string][]plan.PartitionedFile{"1": {{Path: "file://" + path, Length: st.Size(),
		FileSize: st.Size(), PartitionValues: []json.RawMessage{json.RawMessage(`1`)}}}}
	if err := f.Open(ctx); err != nil {
		t.Fatal(err)
	}
	late = f.late != nil
	for {
		b, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.NumRows; i++ {
			var cells []string
			for _, c := range b.Cols {
				if c.Len() != b.NumRows {
					t.Fatalf("column of %d rows in a batch of %d", c.Len(), b.NumRows)
				}
				cells = append(cells, c.ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
		b.Release()
		if f.late != nil {
			for _, ct := range f.late.tests {
				coded = coded || ct.dictOf != nil
			}
		}
	}
	f.Close()
	if n, _ := alloc.Live(); n != 0 {
		t.Errorf("%d bytes leaked:\n%s", n, alloc.LeakReport())
	}
	return rows, late, coded
}

// TestLateFilterMatchesEager: a filter reading its scan lazily (codes, selected rows) returns
// exactly what it returns reading whole batches, for every shape of condition.
func TestLateFilterMatchesEager(t *testing.T) {
	dir := t.TempDir()
	files := map[string]bool{"dict": true, "plain": false}
	a, s, p, d, q := jAttr(0, "long"), jAttr(1, "string"), jAttr(2, "long"), jAttr(3, "integer"), jAttr(4, "integer")
	conds := []struct {
		name  string
		cond  string
		coded bool // a dictionary test is expected on the dictionary file
	}{
		{"one column", jCmp("GreaterThan", a, jLit("long", "3")), true},
		{"three columns", jAnd(jCmp("GreaterThan", a, jLit("long", "1")), jCmp("EqualTo", s, jStr("banana")),
			jCmp("LessThan", p, jLit("long", "9000"))), true},
		{"two conjuncts of one column", jAnd(jCmp("GreaterThanOrEqual", d, jLit("integer", "2")),
			jCmp("LessThan", d, jLit("integer", "5")), jNode("IsNotNull", "boolean", "child", s)), true},
		{"is null", jNode("IsNull", "boolean", "child", a), true},
		{"coalesce of nulls", jCmp("EqualTo", jNode("Coalesce", "long", "children", "["+a+","+jLit("long", "0")+"]"),
			jLit("long", "0")), true},
		{"two columns in one conjunct", jAnd(jNode("IsNotNull", "boolean", "child", a),
			jCmp("GreaterThan", jArith("Add", "long", "LEGACY", a, p), jLit("long", "5000"))), true},
		{"may fail", jAnd(jCmp("GreaterThan", a, jLit("long", "2")),
			jCmp("GreaterThan", jArith("Add", "long", "ANSI", p, jLit("long", "1")), jLit("long", "100"))), false},
		{"partition column", jAnd(jCmp("EqualTo", q, jLit("integer", "1")), jCmp("LessThan", a, jLit("long", "2"))), true},
		{"nothing passes", jCmp("LessThan", p, jLit("long", "-1")), false},
		{"everything passes", jCmp("GreaterThanOrEqual", p, jLit("long", "0")), false},
		{"sparse", jCmp("EqualTo", jArith("Remainder", "long", "LEGACY", p, jLit("long", "97")), jLit("long", "3")), false},
	}
	for name, dict := range files {
		path := filepath.Join(dir, name+".parquet")
		writeLateFile(t, path, 10000, dict)
		for _, c := range conds {
			for _, batch := range []int{1000, 4096} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, c.name, batch), func(t *testing.T) {
					want, late, _ := runFilter(t, path, c.cond, false, batch)
					if late {
						t.Fatal("the eager filter read lazily")
					}
					got, late, coded := runFilter(t, path, c.cond, true, batch)
					if !late {
						t.Fatal("the filter did not read its scan lazily")
					}
					if dict && c.coded && !coded {
						t.Error("no conjunct was evaluated over a dictionary")
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("lazy %d rows, eager %d rows; first lazy %v, first eager %v", len(got), len(want),
							first(got), first(want))
					}
					if c.name == "nothing passes" && len(got) != 0 || c.name == "everything passes" && len(got) != 10000 {
						t.Fatalf("%d rows", len(got))
					}
				})
			}
		}
	}
}

func first(rows []string) []string { return rows[:min(3, len(rows))] }

// TestNarrowByCodes checks the code-table narrowing against a plain loop.
func TestNarrowByCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, nd = 1000, 17
	codes := make([]int32, n)
	for i := range codes {
		codes[i] = int32(rng.IntN(nd))
	}
	keep := make([]byte, nd)
	for i := range keep {
		keep[i] = byte(rng.IntN(2))
	}
	var sel []int32
	for i := 0; i < n; i += 3 {
		sel = append(sel, int32(i))
	}
	for _, all := range []bool{true, false} {
		in := sel
		if all {
			in = nil
		}
		var want []int32
		for i := 0; i < n; i++ {
			if (all || i%3 == 0) && keep[codes[i]] == 1 {
				want = append(want, int32(i))
			}
		}
		got := narrowByCodes(codes, keep, append([]int32(nil), in...), all, n, make([]int32, n))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("all=%v: got %v, want %v", all, got, want)
		}
	}
}
