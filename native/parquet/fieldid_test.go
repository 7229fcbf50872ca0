package parquet

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// An Iceberg file, as written before the table's schema evolved: every field carries its id.
type idIn struct {
	A *int32  `parquet:"a,optional,id(3)"`
	B *string `parquet:"b,optional,id(4)"`
	X *int32  `parquet:"x,optional,id(14)"` // dropped from the table later
}

type idEl struct {
	X *int32   `parquet:"x,optional,id(12)"`
	Y *float32 `parquet:"y,optional,id(13)"`
}

type idRec struct {
	ID int64             `parquet:"id,id(1)"`
	S  *idIn             `parquet:"s,optional,id(2)"`
	L  []idEl            `parquet:"l,optional,list,id(5)" parquet-element:",id(6)"`
	M  map[string]*int32 `parquet:"m,optional,id(7)" parquet-key:",id(8)" parquet-value:",optional,id(9)"`
}

func genIDRecs(n int) []idRec {
	out := make([]idRec, n)
	for i := range out {
		r := idRec{ID: int64(i)}
		if i%5 != 4 {
			r.S = &idIn{B: ptr(fmt.Sprintf("b%d", i)), X: ptr(int32(-i))}
			if i%3 != 0 {
				r.S.A = ptr(int32(i))
			}
		}
		for j := 0; j < i%4; j++ {
			e := idEl{X: ptr(int32(i*10 + j))}
			if j != 1 {
				e.Y = ptr(float32(j) + 0.5)
			}
			r.L = append(r.L, e)
		}
		if i%6 != 0 {
			r.M = map[string]*int32{"k": ptr(int32(i))}
		}
		out[i] = r
	}
	return out
}

func writeIDFile(t *testing.T, recs []idRec) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ids.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[idRec](f, pq.MaxRowsPerRowGroup(700), pq.PageBufferSize(512))
	if _, err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readJSON reads every row as the JSON of its cells (nested values included; a struct's fields
// in name order, as encoding/json writes maps).
func readJSON(t *testing.T, path string, spec *ScanSpec) []string {
	t.Helper()
	r, err := Open(path, 0, 1<<40, spec, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []string
	for {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		for j, c := range b.Cols {
			if !arrow.TypeEqual(c.DataType(), spec.Columns[j].Type.Arrow()) {
				t.Fatalf("column %s: type %s, want %s", spec.Columns[j].Name, c.DataType(), spec.Columns[j].Type.Arrow())
			}
		}
		for i := 0; i < b.NumRows; i++ {
			var cells []string
			for _, c := range b.Cols {
				js, err := json.Marshal(c.GetOneForMarshal(i))
				if err != nil {
					t.Fatal(err)
				}
				cells = append(cells, string(js))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
		b.Release()
	}
}

func fld(name string, t sparktype.Type) sparktype.Field {
	return sparktype.Field{Name: name, Type: t, Nullable: true}
}

func TestNestedByFieldID(t *testing.T) {
	recs := genIDRecs(2000)
	path := writeIDFile(t, recs)
	// The table's schema now: s.b renamed to bb and moved first, s.a promoted to long, s.x dropped,
	// s.z (default 7) and s.w added; l's element fields reordered, y promoted to double; m's values
	// promoted to long. Column names differ from the file's too: ids decide.
	sType := sparktype.StructOf(fld("bb", sparktype.StringType), fld("a", sparktype.LongType),
		fld("z", sparktype.IntType), fld("w", sparktype.IntType))
	elType := sparktype.StructOf(fld("y", sparktype.DoubleType), fld("x", sparktype.IntType))
	cols := []sparktype.Field{
		fld("id", sparktype.LongType),
		fld("s2", sType),
		fld("l2", sparktype.ArrayOf(elType, true)),
		fld("m2", sparktype.MapOf(sparktype.StringType, sparktype.LongType, true)),
	}
	nested := []*FieldNode{nil,
		{ID: 2, Kids: []*FieldNode{{ID: 4}, {ID: 3}, {ID: 10, Default: int64(7)}, {ID: 11}}},
		{ID: 5, Kids: []*FieldNode{{ID: 6, Kids: []*FieldNode{{ID: 13}, {ID: 12}}}}},
		{ID: 7, Kids: []*FieldNode{{ID: 8}, {ID: 9}}},
	}
	spec := &ScanSpec{Columns: cols, FieldIDs: []int32{1, 2, 5, 7}, Nested: nested, BatchSize: 300}
	rows := readJSON(t, path, spec)
	if len(rows) != len(recs) {
		t.Fatalf("%d rows, want %d", len(rows), len(recs))
	}
	js := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	for i, r := range recs {
		s := "null"
		if r.S != nil {
			s = fmt.Sprintf(`{"a":%s,"bb":%s,"w":null,"z":7}`, js(r.S.A), js(r.S.B))
		}
		l := "null"
		if r.L != nil {
			var es []string
			for _, e := range r.L {
				y := "null"
				if e.Y != nil {
					y = js(float64(*e.Y))
				}
				es = append(es, fmt.Sprintf(`{"x":%s,"y":%s}`, js(e.X), y))
			}
			l = "[" + strings.Join(es, ",") + "]"
		}
		m := "null"
		if r.M != nil {
			m = fmt.Sprintf(`[{"key":"k","value":%d}]`, *r.M["k"])
		}
		want := fmt.Sprintf("%d|%s|%s|%s", r.ID, s, l, m)
		if rows[i] != want {
			t.Fatalf("row %d:\n got  %s\n want %s", i, rows[i], want)
		}
	}
}

// None of the requested fields of a struct column is in the file (all added later): the
// struct's nulls come from the levels of a leaf read for them alone. Below the top level (a
// list's element struct) Iceberg Java answers differently, and the file is left to it.
func TestNestedByFieldIDNoRequestedField(t *testing.T) {
	recs := genIDRecs(1000)
	path := writeIDFile(t, recs)
	cols := []sparktype.Field{
		fld("s", sparktype.StructOf(fld("new", sparktype.IntType), fld("d", sparktype.StringType))),
		fld("id", sparktype.LongType),
	}
	nested := []*FieldNode{{ID: 2, Kids: []*FieldNode{{ID: 99}, {ID: 98, Default: "d"}}}, nil}
	spec := &ScanSpec{Columns: cols, FieldIDs: []int32{2, 1}, Nested: nested, BatchSize: 128}
	rows := readJSON(t, path, spec)
	if len(rows) != len(recs) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range recs {
		s := "null"
		if r.S != nil {
			s = `{"d":"d","new":null}`
		}
		if want := fmt.Sprintf("%s|%d", s, r.ID); rows[i] != want {
			t.Fatalf("row %d:\n got  %s\n want %s", i, rows[i], want)
		}
	}
	spec = &ScanSpec{Columns: []sparktype.Field{fld("l", sparktype.ArrayOf(sparktype.StructOf(fld("new", sparktype.StringType)), true))},
		FieldIDs: []int32{5}, Nested: []*FieldNode{{ID: 5, Kids: []*FieldNode{{ID: 6, Kids: []*FieldNode{{ID: 98}}}}}}}
	var unsupported *UnsupportedError
	if _, err := Open(path, 0, 1<<40, spec, checkedAlloc(t)); !errors.As(err, &unsupported) {
		t.Errorf("a list's element struct without any requested field: want UnsupportedError, got %v", err)
	}
}

func TestNestedByFieldIDRefusals(t *testing.T) {
	path := writeIDFile(t, genIDRecs(50))
	sType := sparktype.StructOf(fld("a", sparktype.IntType))
	open := func(nested []*FieldNode, ids []int32, byName map[string]int32) error {
		spec := &ScanSpec{Columns: []sparktype.Field{fld("s", sType)}, FieldIDs: ids, Nested: nested, IDsByName: byName}
		r, err := Open(path, 0, 1<<40, spec, checkedAlloc(t))
		if err == nil {
			r.Close()
		}
		return err
	}
	// The ids must describe the type.
	if err := open([]*FieldNode{{ID: 2}}, []int32{2}, nil); err == nil || !strings.Contains(err.Error(), "field ids for") {
		t.Errorf("ids without parts: %v", err)
	}
	var unsupported *UnsupportedError
	// A nested default the assembler cannot produce.
	lt := sparktype.StructOf(fld("a", sparktype.IntType), fld("n", sparktype.StructOf(fld("q", sparktype.IntType))))
	spec := &ScanSpec{Columns: []sparktype.Field{fld("s", lt)}, FieldIDs: []int32{2},
		Nested: []*FieldNode{{ID: 2, Kids: []*FieldNode{{ID: 3}, {ID: 50, Default: "x", Kids: []*FieldNode{{ID: 51}}}}}}}
	if _, err := Open(path, 0, 1<<40, spec, checkedAlloc(t)); !errors.As(err, &unsupported) {
		t.Errorf("nested default: want UnsupportedError, got %v", err)
	}
}

// A file without field ids (imported, read through the name mapping): the mapping's nested
// entries give the parts their ids; a part the mapping does not name, or no mapping at all,
// leaves the file to Iceberg Java.
func TestNestedWithoutFieldIDs(t *testing.T) {
	type in struct {
		A *int32  `parquet:"a,optional"`
		B *string `parquet:"b,optional"`
	}
	type el struct {
		X *int32 `parquet:"x,optional"`
	}
	type rec struct {
		S *in              `parquet:"s,optional"`
		L []el             `parquet:"l,optional,list"`
		M map[string]int32 `parquet:"m,optional"`
	}
	var recs []rec
	for i := 0; i < 100; i++ {
		r := rec{S: &in{A: ptr(int32(i)), B: ptr(fmt.Sprint("b", i))}, M: map[string]int32{"k": int32(-i)}}
		if i%4 == 0 {
			r.S = nil
		}
		for j := 0; j < i%3; j++ {
			r.L = append(r.L, el{X: ptr(int32(j))})
		}
		recs = append(recs, r)
	}
	path := filepath.Join(t.TempDir(), "noids.parquet")
	if err := pq.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	cols := []sparktype.Field{
		fld("s2", sparktype.StructOf(fld("bb", sparktype.StringType), fld("a", sparktype.LongType), fld("new", sparktype.IntType))),
		fld("l", sparktype.ArrayOf(sparktype.StructOf(fld("x", sparktype.LongType)), true)),
		fld("m", sparktype.MapOf(sparktype.StringType, sparktype.LongType, true)),
	}
	nested := []*FieldNode{
		{ID: 1, Kids: []*FieldNode{{ID: 11}, {ID: 10}, {ID: 12}}},
		{ID: 2, Kids: []*FieldNode{{ID: 20, Kids: []*FieldNode{{ID: 21}}}}},
		{ID: 3, Kids: []*FieldNode{{ID: 30}, {ID: 31}}},
	}
	mapping := map[string][]MappedName{
		"s": {{ID: 10, Names: []string{"a"}}, {ID: 11, Names: []string{"b", "bb"}}},
		"l": {{ID: 20, Names: []string{"element"}, Fields: []MappedName{{ID: 21, Names: []string{"x"}}}}},
		"m": {{ID: 30, Names: []string{"key"}}, {ID: 31, Names: []string{"value"}}},
	}
	byName := map[string]int32{"s": 1, "l": 2, "m": 3}
	spec := &ScanSpec{Columns: cols, FieldIDs: []int32{1, 2, 3}, Nested: nested, IDsByName: byName, Mapping: mapping}
	rows := readJSON(t, path, spec)
	if len(rows) != len(recs) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range recs {
		s := "null"
		if r.S != nil {
			s = fmt.Sprintf(`{"a":%d,"bb":"b%d","new":null}`, i, i)
		}
		l := "null"
		if r.L != nil {
			var es []string
			for j := range r.L {
				es = append(es, fmt.Sprintf(`{"x":%d}`, j))
			}
			l = "[" + strings.Join(es, ",") + "]"
		}
		want := fmt.Sprintf(`%s|%s|[{"key":"k","value":%d}]`, s, l, -i)
		if rows[i] != want {
			t.Fatalf("row %d:\n got  %s\n want %s", i, rows[i], want)
		}
	}
	var unsupported *UnsupportedError
	for name, m := range map[string]map[string][]MappedName{
		"no mapping":           nil,
		"a field not mapped":   {"s": {{ID: 10, Names: []string{"a"}}}, "l": mapping["l"], "m": mapping["m"]},
		"element not mapped":   {"s": mapping["s"], "l": {}, "m": mapping["m"]},
		"map value not mapped": {"s": mapping["s"], "l": mapping["l"], "m": {{ID: 30, Names: []string{"key"}}}},
	} {
		spec.Mapping = m
		if _, err := Open(path, 0, 1<<40, spec, checkedAlloc(t)); !errors.As(err, &unsupported) {
			t.Errorf("%s: want UnsupportedError, got %v", name, err)
		}
	}
	// Not in the mapping at all: the column is absent, all nulls.
	spec = &ScanSpec{Columns: cols[:1], FieldIDs: []int32{1}, Nested: nested[:1], IDsByName: map[string]int32{"other": 1}}
	if rows := readJSON(t, path, spec); len(rows) != len(recs) || rows[0] != "null" {
		t.Errorf("absent column: %v", rows[:1])
	}
}

// A uuid inside a struct reads as its canonical string, as a top-level one does (uuid.go).
func TestNestedUUIDByFieldID(t *testing.T) {
	type in struct {
		U [16]byte `parquet:"u,optional,uuid,id(3)"` // the zero value writes as null
	}
	type rec struct {
		S *in `parquet:"s,optional,id(2)"`
	}
	var recs []rec
	for i := 0; i < 50; i++ {
		var u [16]byte
		for j := range u {
			u[j] = byte(i*7 + j)
		}
		r := rec{S: &in{U: u}}
		if i%5 == 0 {
			r.S.U = [16]byte{}
		}
		recs = append(recs, r)
	}
	path := filepath.Join(t.TempDir(), "uuid.parquet")
	if err := pq.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	spec := &ScanSpec{Columns: []sparktype.Field{fld("s", sparktype.StructOf(fld("u", sparktype.StringType)))},
		FieldIDs: []int32{2}, Nested: []*FieldNode{{ID: 2, Kids: []*FieldNode{{ID: 3}}}}}
	rows := readJSON(t, path, spec)
	for i, r := range recs {
		want := `{"u":null}`
		if u := r.S.U; u != [16]byte{} {
			want = fmt.Sprintf(`{"u":"%x-%x-%x-%x-%x"}`, u[:4], u[4:6], u[6:8], u[8:10], u[10:])
		}
		if rows[i] != want {
			t.Fatalf("row %d: got %s, want %s", i, rows[i], want)
		}
	}
}
