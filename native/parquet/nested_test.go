package parquet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

type nin struct {
	X *int32  `parquet:"x,optional"`
	S *string `parquet:"s,optional"`
}

type nll struct {
	V []*string `parquet:"v,list"`
}

type nrec struct {
	ID int64             `parquet:"id"`
	St *nin              `parquet:"st,optional"`
	L  []*int32          `parquet:"l,optional,list"`
	M  map[string]*int64 `parquet:"m,optional"`
	LS []nin             `parquet:"ls,list"`
	R  []int32           `parquet:"r"`
	B  []*bool           `parquet:"b,optional,list"`
	LL []nll             `parquet:"ll,optional,list"`
	RG []nin             `parquet:"rg"` // an unannotated repeated group: a list of structs
	MS map[int32]nin     `parquet:"ms,optional"`
}

func ptr[T any](v T) *T { return &v }

// genNested makes records with nulls at every level, empty lists and maps.
func genNested(n int) []nrec {
	out := make([]nrec, n)
	for i := range out {
		r := nrec{ID: int64(i)}
		if i%7 != 3 {
			r.St = &nin{}
			if i%3 != 0 {
				r.St.X = ptr(int32(i))
			}
			if i%5 != 0 {
				r.St.S = ptr(fmt.Sprintf("s%d", i))
			}
		}
		switch i % 6 {
		case 0: // null list
		case 1:
			r.L = []*int32{}
		default:
			for j := 0; j < i%6+i%11; j++ {
				if (i+j)%4 == 0 {
					r.L = append(r.L, nil)
				} else {
					r.L = append(r.L, ptr(int32(i*10+j)))
				}
			}
		}
		if i%9 != 0 {
			r.M = map[string]*int64{}
			for j := 0; j < i%4; j++ {
				if j == 1 {
					r.M[fmt.Sprintf("k%d", j)] = nil
				} else {
					r.M[fmt.Sprintf("k%d", j)] = ptr(int64(i + j))
				}
			}
		}
		for j := 0; j < i%3; j++ {
			e := nin{S: ptr(strings.Repeat("z", j+i%13))}
			if j != 1 {
				e.X = ptr(int32(-i - j))
			}
			r.LS = append(r.LS, e)
		}
		for j := 0; j < i%5; j++ {
			r.R = append(r.R, int32(i+j))
		}
		if i%8 != 0 {
			for j := 0; j < i%3+1; j++ {
				if j == 2 {
					r.B = append(r.B, nil)
				} else {
					r.B = append(r.B, ptr((i+j)%2 == 0))
				}
			}
		}
		if i%10 != 5 {
			r.LL = []nll{}
			for j := 0; j < i%4; j++ {
				var inner []*string
				for k := 0; k < (i+j)%3; k++ {
					if k == 1 && j%2 == 1 {
						inner = append(inner, nil)
					} else {
						inner = append(inner, ptr(fmt.Sprintf("%d.%d.%d", i, j, k)))
					}
				}
				r.LL = append(r.LL, nll{V: inner})
			}
		}
		for j := 0; j < i%3; j++ {
			r.RG = append(r.RG, nin{X: ptr(int32(j))})
		}
		if i%4 == 1 {
			r.MS = map[int32]nin{int32(i): {X: ptr(int32(1))}, int32(-i - 1): {}}
		}
		out[i] = r
	}
	return out
}

var (
	ninType = sparktype.StructOf(sparktype.Field{Name: "x", Type: sparktype.IntType, Nullable: true},
		sparktype.Field{Name: "s", Type: sparktype.StringType, Nullable: true})
	nestedSpec = []sparktype.Field{
		{Name: "id", Type: sparktype.LongType},
		{Name: "st", Type: ninType, Nullable: true},
		{Name: "l", Type: sparktype.ArrayOf(sparktype.IntType, true), Nullable: true},
		{Name: "m", Type: sparktype.MapOf(sparktype.StringType, sparktype.LongType, true), Nullable: true},
		{Name: "ls", Type: sparktype.ArrayOf(ninType, false)},
		{Name: "r", Type: sparktype.ArrayOf(sparktype.IntType, false)},
		{Name: "b", Type: sparktype.ArrayOf(sparktype.BooleanType, true), Nullable: true},
		{Name: "ll", Type: sparktype.ArrayOf(sparktype.StructOf(sparktype.Field{Name: "v",
			Type: sparktype.ArrayOf(sparktype.StringType, true)}), true), Nullable: true},
		{Name: "rg", Type: sparktype.ArrayOf(ninType, false)},
		{Name: "ms", Type: sparktype.MapOf(sparktype.IntType, ninType, true), Nullable: true},
	}
)

// want renders a record the way show renders a read row.
func (r nrec) want() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%s|", r.ID, nin2s(r.St))
	if r.L == nil {
		b.WriteString("null")
	} else {
		b.WriteString("[")
		for j, v := range r.L {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(p2s(v))
		}
		b.WriteString("]")
	}
	b.WriteString("|")
	if r.M == nil {
		b.WriteString("null")
	} else {
		var kv []string
		for k, v := range r.M {
			kv = append(kv, k+"="+p2s(v))
		}
		sort.Strings(kv)
		b.WriteString("{" + strings.Join(kv, ",") + "}")
	}
	b.WriteString("|[")
	for j, e := range r.LS {
		if j > 0 {
			b.WriteString(",")
		}
		b.WriteString(nin2s(&e))
	}
	b.WriteString("]|[")
	for j, v := range r.R {
		if j > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, v)
	}
	b.WriteString("]|")
	if r.B == nil {
		b.WriteString("null")
	} else {
		b.WriteString("[")
		for j, v := range r.B {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(p2s(v))
		}
		b.WriteString("]")
	}
	b.WriteString("|")
	if r.LL == nil {
		b.WriteString("null")
	} else {
		b.WriteString("[")
		for j, in := range r.LL {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("{[")
			for k, v := range in.V {
				if k > 0 {
					b.WriteString(",")
				}
				b.WriteString(p2s(v))
			}
			b.WriteString("]}")
		}
		b.WriteString("]")
	}
	b.WriteString("|[")
	for j, e := range r.RG {
		if j > 0 {
			b.WriteString(",")
		}
		b.WriteString(nin2s(&e))
	}
	b.WriteString("]|")
	if r.MS == nil {
		b.WriteString("null")
	} else {
		var kv []string
		for k, v := range r.MS {
			kv = append(kv, fmt.Sprint(k)+"="+nin2s(&v))
		}
		sort.Strings(kv)
		b.WriteString("{" + strings.Join(kv, ",") + "}")
	}
	return b.String()
}

func p2s[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func nin2s(e *nin) string {
	if e == nil {
		return "null"
	}
	return "{" + p2s(e.X) + "," + p2s(e.S) + "}"
}

// show renders row i of a read column the way want renders records.
func show(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.Struct:
		parts := make([]string, a.NumField())
		for k := range parts {
			parts[k] = show(a.Field(k), i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.Map:
		s, e := a.ValueOffsets(i)
		var kv []string
		for j := s; j < e; j++ {
			kv = append(kv, show(a.Keys(), int(j))+"="+show(a.Items(), int(j)))
		}
		sort.Strings(kv)
		return "{" + strings.Join(kv, ",") + "}"
	case *array.List:
		s, e := a.ValueOffsets(i)
		parts := []string{}
		for j := s; j < e; j++ {
			parts = append(parts, show(a.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *array.String:
		return a.Value(i)
	}
	return fmt.Sprint(cell(a, i))
}

func writeNested(t *testing.T, recs []nrec, opts ...pq.WriterOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nested.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[nrec](f, opts...)
	for i := 0; i < len(recs); i += 100 {
		if _, err := w.Write(recs[i:min(i+100, len(recs))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func readShown(t *testing.T, path string, spec *ScanSpec) []string {
	t.Helper()
	mem := checkedAlloc(t)
	r, err := Open(path, 0, 1<<40, spec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		for j, c := range b.Cols {
			if !arrow.TypeEqual(c.DataType(), spec.Columns[j].Type.Arrow()) {
				t.Fatalf("column %s: type %s, want %s", spec.Columns[j].Name, c.DataType(), spec.Columns[j].Type.Arrow())
			}
			if v, ok := c.(interface{ ValidateFull() error }); ok {
				if err := v.ValidateFull(); err != nil {
					t.Fatalf("column %s: %v", spec.Columns[j].Name, err)
				}
			}
		}
		for i := 0; i < b.NumRows; i++ {
			parts := make([]string, len(b.Cols))
			for j, c := range b.Cols {
				parts[j] = show(c, i)
			}
			out = append(out, strings.Join(parts, "|"))
		}
		b.Release()
	}
}

func TestNestedRead(t *testing.T) {
	recs := genNested(3000)
	for _, tc := range []struct {
		name  string
		opts  []pq.WriterOption
		batch int
	}{
		{"one group", nil, 0},
		{"groups, small pages, v1", []pq.WriterOption{pq.MaxRowsPerRowGroup(700), pq.PageBufferSize(256), pq.DataPageVersion(1)}, 333},
		{"groups, small pages, v2", []pq.WriterOption{pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(300), pq.DataPageVersion(2)}, 64},
		{"batch of 1", []pq.WriterOption{pq.PageBufferSize(128)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeNested(t, recs, tc.opts...)
			got := readShown(t, path, &ScanSpec{Columns: nestedSpec, BatchSize: tc.batch})
			if len(got) != len(recs) {
				t.Fatalf("%d rows, want %d", len(got), len(recs))
			}
			bad := 0
			for i, r := range recs {
				if w := r.want(); got[i] != w && bad < 5 {
					bad++
					t.Errorf("row %d:\n got %s\nwant %s", i, got[i], w)
				}
			}
		})
	}
}

// Projection of nested fields: a subset and reordering of struct fields, a field the file lacks
// (nulls), case-insensitive names, and a struct whose requested fields are all absent (Spark's
// reader decides: left to it).
func TestNestedProjection(t *testing.T) {
	recs := genNested(50)
	path := writeNested(t, recs)
	spec := &ScanSpec{Columns: []sparktype.Field{
		{Name: "ST", Type: sparktype.StructOf(
			sparktype.Field{Name: "S", Type: sparktype.StringType, Nullable: true},
			sparktype.Field{Name: "nope", Type: sparktype.LongType, Nullable: true}), Nullable: true},
		{Name: "ls", Type: sparktype.ArrayOf(sparktype.StructOf(sparktype.Field{Name: "x", Type: sparktype.LongType, Nullable: true}), true)},
		{Name: "absent", Type: sparktype.ArrayOf(sparktype.IntType, true), Nullable: true},
	}}
	got := readShown(t, path, spec)
	for i, r := range recs {
		st := "null"
		if r.St != nil {
			st = "{" + p2s(r.St.S) + ",null}"
		}
		var ls []string
		for _, e := range r.LS {
			ls = append(ls, "{"+p2s(e.X)+"}")
		}
		want := st + "|[" + strings.Join(ls, ",") + "]|null"
		if got[i] != want {
			t.Fatalf("row %d: got %s, want %s", i, got[i], want)
		}
	}
	_, err := Open(path, 0, 1<<40, &ScanSpec{Columns: []sparktype.Field{{Name: "st", Nullable: true,
		Type: sparktype.StructOf(sparktype.Field{Name: "nope", Type: sparktype.IntType, Nullable: true})}}}, checkedAlloc(t))
	var u *UnsupportedError
	if !errors.As(err, &u) {
		t.Errorf("all fields absent: want UnsupportedError, got %v", err)
	}
	// A nested type the file cannot supply.
	_, err = Open(path, 0, 1<<40, &ScanSpec{Columns: []sparktype.Field{{Name: "l", Nullable: true,
		Type: sparktype.ArrayOf(sparktype.StringType, true)}}}, checkedAlloc(t))
	var tm *TypeMismatchError
	if !errors.As(err, &tm) || !strings.Contains(err.Error(), "l.list.element") {
		t.Errorf("int list as string list: %v", err)
	}
	_, err = Open(path, 0, 1<<40, &ScanSpec{Columns: []sparktype.Field{{Name: "st", Nullable: true,
		Type: sparktype.ArrayOf(sparktype.StringType, true)}}}, checkedAlloc(t))
	if !errors.As(err, &u) {
		t.Errorf("struct as array: %v", err)
	}
}
