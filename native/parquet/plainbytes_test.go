package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	aparquet "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// writePlainStrings writes n strings (every 7th null) in PLAIN pages, uncompressed: value i is
// "MARKER" and i, padded to lengths from 0 to 60 bytes (some over 32: copyShort's long path).
func writePlainStrings(t *testing.T, path string, n int) []any {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := aparquet.NewWriterProperties(aparquet.WithDictionaryDefault(false), aparquet.WithDataPageSize(512),
		aparquet.WithMaxRowGroupLength(700))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	want := make([]any, n)
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			b.AppendNull()
			continue
		}
		s := fmt.Sprintf("MARKER%d", i) + strings.Repeat("é", (i*13)%28)
		if i%11 == 0 {
			s = ""
		}
		b.Append(s)
		want[i] = s
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestPlainByteArrayPages: strings of PLAIN pages, copied once from the page (rawVals.prefixed),
// read whole, for some rows and lazily.
func TestPlainByteArrayPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain.parquet")
	want := writePlainStrings(t, path, 2000)
	spec := &ScanSpec{Columns: []sparktype.Field{{Name: "s", Type: sparktype.StringType, Nullable: true}}, BatchSize: 300}
	mem := &countingAlloc{}
	rows, _ := readAll(t, path, 0, math.MaxInt64, spec, mem)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r[0] != want[i] {
			t.Fatalf("row %d: %q, want %q", i, r[0], want[i])
		}
	}
	// Some rows of each batch (pick).
	r, err := Open(path, 0, math.MaxInt64, spec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	row := 0
	for {
		lb, err := r.NextLazy()
		if err != nil {
			t.Fatal(err)
		}
		if lb == nil {
			break
		}
		var sel []int32
		for i := 0; i < lb.NumRows(); i += 3 {
			sel = append(sel, int32(i))
		}
		a, err := lb.Take(0, sel)
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range sel {
			got := any(nil)
			if a.IsValid(k) {
				got = a.(*array.String).Value(k)
			}
			if got != want[row+int(i)] {
				t.Fatalf("row %d: %q, want %q", row+int(i), got, want[row+int(i)])
			}
		}
		a.Release()
		row += lb.NumRows()
		lb.Release()
	}
}

// TestPlainByteArrayCorrupt: a length running past its page's end is an error naming the file
// and the column, not a panic.
func TestPlainByteArrayCorrupt(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writePlainStrings(t, good, 2000)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		length uint32
	}{{"huge", 0x7ffffff0}, {"past-end", 600}, {"max", math.MaxUint32}} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(raw)
			// The length before the 100th value, in the middle of a page.
			p := bytes.Index(bad, []byte("MARKER100"))
			if p < 4 {
				t.Fatal("no value to corrupt")
			}
			binary.LittleEndian.PutUint32(bad[p-4:], tc.length)
			path := filepath.Join(dir, tc.name+".parquet")
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			spec := &ScanSpec{Columns: []sparktype.Field{{Name: "s", Type: sparktype.StringType, Nullable: true}}, BatchSize: 300}
			mem := &countingAlloc{}
			r, err := Open(path, 0, math.MaxInt64, spec, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for {
				b, err := r.Next()
				if err != nil {
					if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "column s") {
						t.Errorf("error %q names neither the file nor the column", msg)
					}
					return
				}
				if b == nil {
					t.Fatal("a corrupt page read without an error")
				}
				b.Release()
			}
		})
	}
}
