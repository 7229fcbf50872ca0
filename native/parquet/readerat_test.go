package parquet

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// OpenReaderAt reads any io.ReaderAt as Open reads the file, names the file as told, and leaves
// the ReaderAt to its caller.
func TestOpenReaderAt(t *testing.T) {
	cols := allTypes(true, false)
	path := writeFile(t, cols, 3000, pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(1024))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := &ScanSpec{Columns: fields(cols), BatchSize: 700}
	want, wantStats := readAll(t, path, 0, int64(len(data)), spec, checkedAlloc(t))
	src := &countingReaderAt{r: bytes.NewReader(data)}
	r, err := OpenReaderAt("s3://bucket/t.parquet", src, int64(len(data)), 0, int64(len(data)), spec, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.NumRows; i++ {
			row := make([]any, len(b.Cols))
			for j, c := range b.Cols {
				row[j] = cell(c, i)
			}
			got = append(got, row)
		}
		b.Release()
	}
	if r.Stats() != wantStats {
		t.Errorf("stats %+v, want %+v", r.Stats(), wantStats)
	}
	if err := r.Close(); err != nil || src.closed {
		t.Errorf("Close = %v; the ReaderAt was closed: %v", err, src.closed)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if !equalCell(got[i][j], want[i][j]) {
				t.Fatalf("row %d column %d: %v, want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}

func TestOpenReaderAtErrors(t *testing.T) {
	cols := allTypes(false, false)
	path := writeFile(t, cols, 100)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := &ScanSpec{Columns: fields(cols)}
	const name = "s3://bucket/key.parquet"
	// A ReaderAt that fails keeps its cause; the error names the file once, as given.
	failing := errReaderAt{fs.ErrNotExist}
	_, err = OpenReaderAt(name, failing, int64(len(data)), 0, int64(len(data)), spec, checkedAlloc(t))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "parquet file "+name+": ") {
		t.Errorf("failing ReaderAt: %v", err)
	}
	// A ReaderAt that returns io.EOF with a full read at the end is fine.
	r, err := OpenReaderAt(name, eofAtEnd{bytes.NewReader(data), int64(len(data))}, int64(len(data)), 0, int64(len(data)), spec, checkedAlloc(t))
	if err != nil {
		t.Fatalf("io.EOF at the end: %v", err)
	}
	r.Close()
	for _, size := range []int64{5, int64(len(data)) + 10} {
		if _, err := OpenReaderAt(name, bytes.NewReader(data), size, 0, size, spec, checkedAlloc(t)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("size %d: %v", size, err)
		}
	}
	if _, err := OpenReaderAt(name, bytes.NewReader(data), int64(len(data)), 0, 1, spec, nil); err == nil {
		t.Error("no allocator: no error")
	}
}

type countingReaderAt struct {
	r      io.ReaderAt
	closed bool
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) { return c.r.ReadAt(p, off) }
func (c *countingReaderAt) Close() error                            { c.closed = true; return nil }

type errReaderAt struct{ err error }

func (e errReaderAt) ReadAt([]byte, int64) (int, error) { return 0, e.err }

// eofAtEnd returns io.EOF along with a read that reaches the end, as io.ReaderAt allows.
type eofAtEnd struct {
	r    io.ReaderAt
	size int64
}

func (e eofAtEnd) ReadAt(p []byte, off int64) (int, error) {
	n, err := e.r.ReadAt(p, off)
	if err == nil && off+int64(n) == e.size {
		err = io.EOF
	}
	return n, err
}
