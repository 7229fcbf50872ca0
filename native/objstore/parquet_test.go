package objstore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/sparktype"
)

type pqRow struct {
	ID   int64    `parquet:"id"`
	Name *string  `parquet:"name,optional"`
	V    *float64 `parquet:"v,optional"`
}

// parquetBytes writes rows over several row groups and many pages.
func parquetBytes(t *testing.T, n int) []byte {
	var buf bytes.Buffer
	w := pq.NewGenericWriter[pqRow](&buf, pq.MaxRowsPerRowGroup(7000), pq.PageBufferSize(16<<10))
	rows := make([]pqRow, n)
	for i := range rows {
		rows[i].ID = int64(i)
		if i%5 != 0 {
			s := fmt.Sprintf("name-%d-%s", i, strings.Repeat("x", i%17))
			rows[i].Name = &s
		}
		if i%7 != 0 {
			v := float64(i) / 3
			rows[i].V = &v
		}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var pqSpec = &parquet.ScanSpec{Columns: []sparktype.Field{
	{Name: "v", Type: sparktype.DoubleType, Nullable: true},
	{Name: "id", Type: sparktype.LongType, Nullable: true},
	{Name: "name", Type: sparktype.StringType, Nullable: true},
}, BatchSize: 3000}

func taskAlloc(t *testing.T) *memory.TaskAllocator {
	mem := memory.NewTaskAllocator(nil)
	t.Cleanup(func() {
		if n, _ := mem.Live(); n != 0 {
			t.Errorf("leaked %d bytes:\n%s", n, mem.LeakReport())
		}
		mem.ReleaseAll()
	})
	return mem
}

// sameBatches reads want and got to the end and compares them batch by batch.
func sameBatches(t *testing.T, want, got *parquet.Reader) int {
	t.Helper()
	rows := 0
	for {
		wb, err := want.Next()
		if err != nil {
			t.Fatal(err)
		}
		gb, err := got.Next()
		if err != nil {
			t.Fatal(err)
		}
		if wb == nil || gb == nil {
			if wb != gb {
				t.Fatalf("one reader ended first after %d rows", rows)
			}
			return rows
		}
		if wb.NumRows != gb.NumRows {
			t.Fatalf("batch of %d rows, want %d", gb.NumRows, wb.NumRows)
		}
		for i := range wb.Cols {
			if !array.Equal(wb.Cols[i], gb.Cols[i]) {
				t.Fatalf("column %d differs after %d rows", i, rows)
			}
		}
		rows += wb.NumRows
		wb.Release()
		gb.Release()
	}
}

// A Parquet file read from S3 through parquet.OpenReaderAt gives the batches it gives from a
// local disk, whole or split.
func TestParquetFromS3(t *testing.T) {
	needS3(t)
	data := parquetBytes(t, 30_000)
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loc := put(t, "parquet/t.parquet", data)
	size := int64(len(data))
	for _, split := range [][2]int64{{0, size}, {0, size / 2}, {size / 2, size}} {
		for _, src := range []string{loc, "s3a" + strings.TrimPrefix(loc, "s3"), "file:" + path} {
			mem := taskAlloc(t)
			want, err := parquet.Open(path, split[0], split[1]-split[0], pqSpec, mem)
			if err != nil {
				t.Fatal(err)
			}
			f := mustOpen(t, src, testConfig())
			got, err := parquet.OpenReaderAt(f.Name(), f, f.Size(), split[0], split[1]-split[0], pqSpec, mem)
			if err != nil {
				t.Fatal(err)
			}
			rows := sameBatches(t, want, got)
			if split[1]-split[0] == size && rows != 30_000 {
				t.Errorf("%s: %d rows, want 30000", src, rows)
			}
			want.Close()
			got.Close()
			// The caller owns the file: closing the Reader leaves it readable.
			if _, err := f.ReadAt(make([]byte, 4), 0); err != nil {
				t.Errorf("%s: the file after the Reader's Close: %v", src, err)
			}
			if s, ok := f.(*s3File); ok && split[1]-split[0] == size {
				t.Logf("%s: %d bytes, %d rows, %d requests", src, size, rows, s.requests.Load())
			}
		}
	}
}

// Errors of a Parquet file on S3 name its location and keep their causes.
func TestParquetFromS3Errors(t *testing.T) {
	needS3(t)
	loc := put(t, "parquet/not-parquet", []byte("this is not a parquet file at all"))
	f := mustOpen(t, loc, testConfig())
	mem := taskAlloc(t)
	_, err := parquet.OpenReaderAt(f.Name(), f, f.Size(), 0, f.Size(), pqSpec, mem)
	var fe *parquet.FileError
	if !errors.As(err, &fe) || fe.Path != loc || !strings.Contains(err.Error(), "PAR1") {
		t.Errorf("not a Parquet file: %v", err)
	}
	// Deleted after Open: the footer is in the tail, the first column chunk is not.
	data := parquetBytes(t, 30_000)
	key := "parquet/deleted.parquet"
	loc = put(t, key, data)
	f = mustOpen(t, loc, testConfig())
	r, err := parquet.OpenReaderAt(f.Name(), f, f.Size(), 0, f.Size(), pqSpec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	deleteObject(t, key)
	var last error
	for {
		b, err := r.Next()
		if err != nil || b == nil {
			last = err
			break
		}
		b.Release()
	}
	if !errors.Is(last, os.ErrNotExist) || !strings.Contains(last.Error(), loc) {
		t.Errorf("reading a deleted object: %v, want fs.ErrNotExist naming it", last)
	}
}

type wideRow struct {
	A, B, C, D, E, F, G, H int64
}

// Many columns read at once share the readahead budget instead of evicting each other's windows:
// every byte is fetched about once, and only the projected chunks are.
func TestParquetFromS3ManyStreams(t *testing.T) {
	needS3(t)
	smallWindows(t, 16<<10, 1<<20, 1<<20)
	var buf bytes.Buffer
	w := pq.NewGenericWriter[wideRow](&buf, pq.PageBufferSize(8<<10))
	rows := make([]wideRow, 130_000) // about 1 MiB per column, one row group
	rnd := rand.New(rand.NewSource(1))
	for i := range rows {
		rows[i] = wideRow{rnd.Int63(), rnd.Int63(), rnd.Int63(), rnd.Int63(), rnd.Int63(), rnd.Int63(), rnd.Int63(), rnd.Int63()}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	loc := put(t, "parquet/wide.parquet", buf.Bytes())
	for _, names := range [][]string{{"a", "b", "c", "d", "e", "f", "g", "h"}, {"b", "d", "f", "h"}} {
		spec := &parquet.ScanSpec{}
		for _, n := range names {
			spec.Columns = append(spec.Columns, sparktype.Field{Name: n, Type: sparktype.LongType, Nullable: true})
		}
		f := mustOpen(t, loc, testConfig())
		r, err := parquet.OpenReaderAt(f.Name(), f, f.Size(), 0, f.Size(), spec, taskAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			b, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			n += b.NumRows
			b.Release()
		}
		r.Close()
		s := f.(*s3File)
		chunks := r.Stats().BytesRead
		t.Logf("%d columns: %d rows, %d KiB of chunks, %d KiB fetched in %d requests",
			len(names), n, chunks>>10, s.fetched.Load()>>10, s.requests.Load())
		if n != len(rows) || s.fetched.Load() > chunks+chunks/50+tailSize {
			t.Errorf("%d columns: %d rows, %d bytes fetched for %d bytes of chunks", len(names), n, s.fetched.Load(), chunks)
		}
	}
}
