package memory

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	arrowmem "github.com/apache/arrow-go/v18/arrow/memory"
)

// SpillFiles creates and tracks one task's spill files in Spark's local directories (the
// executor's DiskBlockManager directories, round robin; the system's temporary directory when
// none is known). Operators remove their files as soon as they have read them back; RemoveAll, at
// task close (success, failure or cancellation alike), removes whatever is left.
type SpillFiles struct {
	dirs []string
	// codec compresses the spill files' buffers (SetCodec): Arrow IPC's LZ4 frame by default.
	codec SpillCodec

	mu    sync.Mutex
	next  int
	files map[string]struct{}
	err   error // first failure to remove a file
}

// SpillCodec is how spill files compress their Arrow buffers: the codecs Arrow IPC defines.
type SpillCodec uint8

const (
	SpillLZ4 SpillCodec = iota
	SpillZstd
	SpillUncompressed
)

// SetCodec follows the shuffle's codec (spark.bolide.shuffle.compression.codec): lz4, zstd or none.
// Snappy is no Arrow IPC codec: its spill files use LZ4, the other fast one.
func (s *SpillFiles) SetCodec(name string) error {
	switch strings.ToLower(name) {
	case "", "lz4", "snappy":
		s.codec = SpillLZ4
	case "zstd":
		s.codec = SpillZstd
	case "none":
		s.codec = SpillUncompressed
	default:
		return fmt.Errorf("unknown spill compression codec %q (want lz4, zstd, snappy or none)", name)
	}
	return nil
}

// NewSpillFiles returns the registry of a task's spill files under dirs.
func NewSpillFiles(dirs []string) *SpillFiles {
	return &SpillFiles{dirs: dirs, files: map[string]struct{}{}}
}

// Create opens a new, empty spill file for an Arrow IPC stream; name is a short label for its
// path (the operator).
func (s *SpillFiles) Create(name string) (*os.File, error) { return s.create(name, ".arrow") }

// CreateRaw opens a new, empty spill file for bytes in the operator's own format (the shuffle
// writer's encoded frames), tracked and removed like the others.
func (s *SpillFiles) CreateRaw(name string) (*os.File, error) { return s.create(name, ".bin") }

func (s *SpillFiles) create(name, suffix string) (*os.File, error) {
	s.mu.Lock()
	dir := os.TempDir()
	if len(s.dirs) > 0 {
		dir = s.dirs[s.next%len(s.dirs)]
		s.next++
	}
	s.mu.Unlock()
	f, err := os.CreateTemp(dir, "bolide-spill-"+name+"-*"+suffix)
	if err != nil {
		return nil, fmt.Errorf("create a spill file in %s: %w", dir, err)
	}
	s.mu.Lock()
	s.files[f.Name()] = struct{}{}
	s.mu.Unlock()
	return f, nil
}

// Remove deletes one spill file (closed by the caller).
func (s *SpillFiles) Remove(path string) error {
	s.mu.Lock()
	_, ok := s.files[path]
	delete(s.files, path)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove spill file: %w", err)
	}
	return nil
}

// Count returns how many spill files exist.
func (s *SpillFiles) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}

// RemoveAll deletes every spill file left; it returns the first failure.
func (s *SpillFiles) RemoveAll() error {
	s.mu.Lock()
	paths := make([]string, 0, len(s.files))
	for p := range s.files {
		paths = append(paths, p)
	}
	s.mu.Unlock()
	var first error
	for _, p := range paths {
		if err := s.Remove(p); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// SpillWriter appends record batches to one spill file as an Arrow IPC stream, compressed with the
// files' codec.
type SpillWriter struct {
	files *SpillFiles
	f     *os.File
	buf   *bufio.Writer
	cnt   countingWriter
	w     *ipc.Writer
	// MemBytes counts the Arrow buffer bytes written (Spark's "memory bytes spilled").
	MemBytes int64
	rows     int64
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

const spillBufSize = 64 << 10

// NewSpillWriter creates a spill file for batches of schema; buffers it compresses come from alloc.
func (s *SpillFiles) NewSpillWriter(name string, schema *arrow.Schema, alloc *TaskAllocator) (*SpillWriter, error) {
	f, err := s.Create(name)
	if err != nil {
		return nil, err
	}
	w := &SpillWriter{files: s, f: f}
	w.cnt.w = f
	w.buf = bufio.NewWriterSize(&w.cnt, spillBufSize)
	opts := []ipc.Option{ipc.WithSchema(schema)}
	switch s.codec {
	case SpillLZ4:
		opts = append(opts, ipc.WithLZ4())
	case SpillZstd:
		opts = append(opts, ipc.WithZstd())
	}
	if alloc != nil {
		opts = append(opts, ipc.WithAllocator(alloc))
	}
	w.w = ipc.NewWriter(w.buf, opts...)
	return w, nil
}

// Write appends a batch.
func (w *SpillWriter) Write(rec arrow.RecordBatch) error {
	if err := w.w.Write(rec); err != nil {
		return fmt.Errorf("write spill file %s: %w", w.f.Name(), err)
	}
	for _, c := range rec.Columns() {
		w.MemBytes += dataBytes(c.Data())
	}
	w.rows += rec.NumRows()
	return nil
}

// ArraysBytes returns the bytes of the rows of cols (a slice counts its own rows), as a spill
// counts them: what an operator would free by spilling them.
func ArraysBytes(cols []arrow.Array) int64 {
	var n int64
	for _, c := range cols {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	// A slice (a partition of a batch) counts its own rows, not the buffers it shares.
	n, bufs := int64(d.Len()), d.Buffers()
	switch t := d.DataType().(type) {
	case *arrow.BooleanType:
		return validityBytes(bufs, n) + (n+7)/8
	case arrow.FixedWidthDataType:
		return validityBytes(bufs, n) + n*int64(t.BitWidth()/8)
	case *arrow.StringType, *arrow.BinaryType:
		if len(bufs) == 3 && bufs[1] != nil && n > 0 {
			offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+int(n)+1]
			return validityBytes(bufs, n) + (n+1)*4 + int64(offs[n]-offs[0])
		}
	}
	var total int64
	for _, b := range bufs {
		if b != nil {
			total += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		total += dataBytes(c)
	}
	return total
}

func validityBytes(bufs []*arrowmem.Buffer, n int64) int64 {
	if len(bufs) == 0 || bufs[0] == nil {
		return 0
	}
	return (n + 7) / 8
}

// Rows returns the rows written.
func (w *SpillWriter) Rows() int64 { return w.rows }

// Finish ends the stream and closes the file; it returns the bytes on disk and the path to read
// back with OpenSpill.
func (w *SpillWriter) Finish() (path string, diskBytes int64, err error) {
	path = w.f.Name()
	err = w.w.Close()
	if e := w.buf.Flush(); err == nil && e != nil {
		err = e
	}
	if e := w.f.Close(); err == nil && e != nil {
		err = e
	}
	if err != nil {
		return path, w.cnt.n, fmt.Errorf("finish spill file %s: %w", path, err)
	}
	return path, w.cnt.n, nil
}

// Abort closes and removes the file (on an error path).
func (w *SpillWriter) Abort() {
	_ = w.w.Close()
	_ = w.f.Close()
	_ = w.files.Remove(w.f.Name())
}

// SpillReader reads a finished spill file back, batch by batch, into buffers from alloc.
type SpillReader struct {
	files *SpillFiles
	f     *os.File
	r     *ipc.Reader
}

// OpenSpill opens a finished spill file.
func (s *SpillFiles) OpenSpill(path string, alloc *TaskAllocator) (*SpillReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open spill file: %w", err)
	}
	var opts []ipc.Option
	if alloc != nil {
		opts = append(opts, ipc.WithAllocator(alloc))
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(f, spillBufSize), opts...)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("read spill file %s: %w", path, err)
	}
	return &SpillReader{files: s, f: f, r: r}, nil
}

// Next returns the next batch (valid until the next call; retain to keep it), or nil at the end.
func (r *SpillReader) Next() (arrow.RecordBatch, error) {
	if r.r.Next() {
		return r.r.RecordBatch(), nil
	}
	if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read spill file %s: %w", r.f.Name(), err)
	}
	return nil, nil
}

// Close closes and removes the file.
func (r *SpillReader) Close() error {
	r.r.Release()
	_ = r.f.Close()
	return r.files.Remove(r.f.Name())
}
