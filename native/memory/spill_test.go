package memory

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestSpillFileRoundTripAndRemoval(t *testing.T) {
	dir := t.TempDir()
	files := NewSpillFiles([]string{dir})
	a := NewTaskAllocator(nil)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	w, err := files.NewSpillWriter("test", schema, a)
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewInt64Builder(a)
	for i := range 5000 {
		bld.Append(int64(i))
	}
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 5000)
	for range 3 {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	rec.Release()
	col.Release()
	path, disk, err := w.Finish()
	if err != nil || disk <= 0 || w.MemBytes < 3*5000*8 {
		t.Fatalf("finish: %v, %d bytes on disk, %d in memory", err, disk, w.MemBytes)
	}
	r, err := files.OpenSpill(path, a)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		c := rec.Column(0).(*array.Int64)
		if c.Len() != 5000 || c.Value(4999) != 4999 {
			t.Fatalf("read back %d rows, last %d", c.Len(), c.Value(c.Len()-1))
		}
		n++
	}
	if n != 3 {
		t.Errorf("read %d batches, want 3", n)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("spill file still there after reading: %v", err)
	}
	// Files left (a failed task) go at RemoveAll.
	w2, err := files.NewSpillWriter("test", schema, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w2.Finish(); err != nil {
		t.Fatal(err)
	}
	if files.Count() != 1 {
		t.Fatalf("%d files tracked, want 1", files.Count())
	}
	if err := files.RemoveAll(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left after RemoveAll: %v", left)
	}
	if a.Used() != 0 {
		t.Errorf("%d bytes allocated", a.Used())
	}
	a.ReleaseAll()
}

// Spill files follow the shuffle's codec: each one reads back, and compresses as the codec does
// (repetitive values: lz4 and zstd well below the raw size, none at it).
func TestSpillFilesFollowTheCodec(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	raw := int64(20000 * 8)
	for _, c := range []struct {
		name       string
		compressed bool
	}{{"lz4", true}, {"ZSTD", true}, {"snappy", true}, {"none", false}, {"", true}} {
		files := NewSpillFiles([]string{t.TempDir()})
		if err := files.SetCodec(c.name); err != nil {
			t.Fatal(err)
		}
		a := NewTaskAllocator(nil)
		bld := array.NewInt64Builder(a)
		for i := range 20000 {
			bld.Append(int64(i % 7))
		}
		col := bld.NewArray()
		bld.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 20000)
		col.Release()
		w, err := files.NewSpillWriter("codec", schema, a)
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		path, disk, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if got := disk < raw/2; got != c.compressed {
			t.Errorf("codec %q: %d bytes on disk for %d raw", c.name, disk, raw)
		}
		r, err := files.OpenSpill(path, a)
		if err != nil {
			t.Fatal(err)
		}
		back, err := r.Next()
		if err != nil || back == nil {
			t.Fatalf("codec %q: read back %v, %v", c.name, back, err)
		}
		if v := back.Column(0).(*array.Int64); v.Len() != 20000 || v.Value(19999) != 19999%7 {
			t.Errorf("codec %q: read back %d rows", c.name, v.Len())
		}
		back.Release()
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if a.Used() != 0 {
			t.Errorf("codec %q: %d bytes left allocated", c.name, a.Used())
		}
	}
	if err := NewSpillFiles(nil).SetCodec("gzip"); err == nil {
		t.Error("gzip accepted")
	}
}
