// Package parquet owns the native Parquet reader: it opens a file split (a local file, or any
// io.ReaderAt such as an objstore.File), maps the file's columns onto Spark's required schema the
// way Spark's vectorized reader does, skips row groups by their statistics, and decodes pages
// (through parquet-go's page-level API, never its boxed values) straight into Arrow arrays whose
// buffers come from the task's allocator.
package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Value is a literal of a pushed-down predicate: nil, bool, int64 (all integral types, date =
// days since the epoch, timestamps = microseconds), float64, string, []byte, or decimal128.Num
// (unscaled, at the column's Spark scale).
type Value = any

// Predicate is one conjunct of a pushed-down filter.
type Predicate struct {
	Column string  // data column name
	Op     string  // "=", "<", "<=", ">", ">=", "isnull", "isnotnull", "in"
	Values []Value // one value, or the IN list
}

// ScanSpec says what to read.
type ScanSpec struct {
	Columns       []sparktype.Field // Spark's requiredSchema: the output columns, in order
	Filters       []Predicate       // conjunction, used ONLY to skip row groups by statistics
	CaseSensitive bool              // match column names case-sensitively (Spark default: false)
	BatchSize     int               // rows per batch (default 8192)
	// FieldIDs, when set (one per column), match columns by Parquet field id instead of by name,
	// as Iceberg does: a renamed column still reads, a dropped and re-added one does not. A file
	// without any field ids gets them from IDsByName (the table's name mapping) or, without one,
	// Iceberg's positional fallback ids.
	FieldIDs  []int32
	IDsByName map[string]int32
	// Nested gives, by field id, the ids inside nested columns (one per column, nil for
	// primitives): their struct fields are matched by id too (fieldid.go).
	Nested []*FieldNode
	// Mapping: the name mapping's entries inside the top-level fields, by top-level name (as in
	// IDsByName), for nested columns of files without field ids.
	Mapping map[string][]MappedName
}

// DefaultBatchSize is the number of rows per batch when ScanSpec.BatchSize is not set.
const DefaultBatchSize = 8192

// Stats counts what a reader did.
type Stats struct {
	RowGroupsTotal          int   // row groups in the file
	RowGroupsInSplit        int   // row groups whose midpoint lies in the split
	RowGroupsSkippedByStats int   // of those, skipped because statistics prove no row can match
	RowGroupsSkippedByBloom int   // of the rest, skipped because bloom filters prove it (bloom.go)
	RowGroupsRead           int   // row groups actually decoded
	RowsSkippedByPageIndex  int64 // rows of read row groups skipped by the page index (pageindex.go)
	RowsRead                int64 // rows returned
	Batches                 int   // batches returned
	BytesRead               int64 // compressed bytes of the projected column chunks of read row groups
	ChunksOwnPages          int   // flat column chunks read by the reader's own page decoder (pages.go)
	ChunksParquetGo         int   // flat column chunks read by parquet-go's (encodings or types pages.go leaves alone)
}

// Reader reads one split of a Parquet file as Arrow batches.
type Reader struct {
	path   string
	closer io.Closer // the file Open opened; nil after OpenReaderAt (its caller owns the bytes)
	file   *pq.File
	meta   *format.FileMetaData
	alloc  memory.Allocator
	batch  int
	cols   []*column
	groups []int // selected row groups, in file order
	next   int   // index into groups of the next row group to open
	rg     int   // current row group (-1 when none)
	left   int64 // rows left in the current row group
	// firstRow[i] is the file row index of row group i's first row; pos that of the next row.
	firstRow []int64
	pos      int64
	last     int64 // file row index of the first row of the batch Next returned last
	stats    Stats
	// noOwnPages reads every chunk with parquet-go (tests and benchmarks compare the two paths).
	noOwnPages bool
	// window, when set, is every own page reader's window instead of windowFor's (tests).
	window int64
	err    error // sticky
	closed bool
	// lazy is the batch NextLazy returned last, until it is finished (lazy.go).
	lazy     *LazyBatch
	lazyCols []lazyColumn
	// preds are the pushed-down predicates; ranges the current row group's rows that its page
	// indexes do not rule out (all rows when allRows), ri the next of them.
	preds   []predPlan
	indexes map[[2]int]*pageIndex // by row group and column (loadPageIndexes)
	ranges  []rowRange
	allRows bool
	ri      int
}

// Open reads the split [start, start+length) of a local file. A row group belongs to the split
// that contains its midpoint (Spark's rule: offset of the first page of its first column chunk,
// dictionary page if any, plus half of the row group's total compressed size).
func Open(path string, start, length int64, spec *ScanSpec, alloc memory.Allocator) (*Reader, error) {
	if alloc == nil {
		return nil, &FileError{Path: path, Err: errors.New("open: no allocator")}
	}
	osf, err := os.Open(path)
	if err != nil {
		// The *PathError names the file already; keep its cause only (fs.ErrNotExist survives).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &FileError{Path: path, Err: fmt.Errorf("open: %w", err)}
	}
	fi, err := osf.Stat()
	if err != nil {
		osf.Close()
		return nil, &FileError{Path: path, Err: fmt.Errorf("open: %w", err)}
	}
	r, err := OpenReaderAt(path, pathlessReader{osf}, fi.Size(), start, length, spec, alloc)
	if err != nil {
		osf.Close()
		return nil, err
	}
	r.closer = osf
	return r, nil
}

// OpenReaderAt reads the split [start, start+length) of the file of size bytes that ra reads
// (an objstore.File, say); name stands for the file in errors, as the path does for Open. The
// caller keeps ownership of ra: ra must stay readable until the Reader is closed, and Close does
// not close it (one opened file can serve several splits, or outlive a Reader that failed).
// Errors of ra are wrapped, not replaced, so their causes (fs.ErrNotExist) survive.
func OpenReaderAt(name string, ra io.ReaderAt, size, start, length int64, spec *ScanSpec, alloc memory.Allocator) (r *Reader, err error) {
	if spec == nil {
		spec = &ScanSpec{}
	}
	if alloc == nil {
		return nil, &FileError{Path: name, Err: errors.New("open: no allocator")}
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("corrupt file (%v)", p)
		}
		if err != nil {
			if r != nil {
				r.releaseColumns()
			}
			r = nil
			err = &FileError{Path: name, Err: fmt.Errorf("open: %w", err)}
		}
	}()
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too small for a Parquet file", size)
	}
	if err := checkTail(ra, size); err != nil {
		return nil, err
	}
	// Like parquet-mr (and so Spark), only the trailing magic is checked: Spark reads files whose
	// leading magic is damaged.
	f, err := pq.OpenFile(ra, size, pq.SkipMagicBytes(true),
		pq.SkipPageIndex(true), pq.SkipBloomFilters(true), pq.ReadBufferSize(64<<10))
	if err != nil {
		return nil, err
	}
	r = &Reader{path: name, file: f, meta: f.Metadata(), alloc: alloc, rg: -1}
	r.batch = spec.BatchSize
	if r.batch <= 0 {
		r.batch = DefaultBatchSize
	}
	schema, err := readSchema(r.meta)
	if err != nil {
		return nil, err
	}
	if n := len(f.RowGroups()); n != len(r.meta.RowGroups) {
		return nil, fmt.Errorf("%d row groups in metadata, %d opened", len(r.meta.RowGroups), n)
	}
	for i := range r.meta.RowGroups {
		if got := len(r.meta.RowGroups[i].Columns); got != schema.numLeaves {
			return nil, fmt.Errorf("row group %d has %d column chunks, the schema has %d leaf columns",
				i, got, schema.numLeaves)
		}
	}
	byID := spec.FieldIDs != nil
	if byID {
		if len(spec.FieldIDs) != len(spec.Columns) {
			return nil, fmt.Errorf("%d field ids for %d columns", len(spec.FieldIDs), len(spec.Columns))
		}
		schema.ownIDs = schema.hasIDs()
		if !schema.ownIDs {
			schema.assignIDs(spec.IDsByName)
		}
	}
	for i, fld := range spec.Columns {
		var id int32
		var fn *FieldNode
		if byID {
			id = spec.FieldIDs[i]
			if i < len(spec.Nested) {
				fn = spec.Nested[i]
			}
		}
		c, err := planColumn(schema, fld, spec.CaseSensitive, id, byID, fn, spec.Mapping)
		if err != nil {
			return nil, err
		}
		r.cols = append(r.cols, c)
	}
	if err := checkSupported(r.meta, withNested(r.cols)); err != nil {
		return nil, err
	}
	preds, err := planPredicates(schema, spec.Filters, spec.Columns, spec.CaseSensitive, spec.FieldIDs)
	if err != nil {
		return nil, err
	}
	r.preds = preds
	r.stats.RowGroupsTotal = len(r.meta.RowGroups)
	r.firstRow = make([]int64, len(r.meta.RowGroups))
	var rows int64
	for i := range r.meta.RowGroups {
		r.firstRow[i] = rows
		if n := r.meta.RowGroups[i].NumRows; n > 0 {
			rows += n
		}
	}
	for i := range r.meta.RowGroups {
		rg := &r.meta.RowGroups[i]
		mid := rowGroupMidpoint(rg)
		if mid < start || mid >= start+length {
			continue
		}
		r.stats.RowGroupsInSplit++
		if !keepRowGroup(preds, rg) {
			r.stats.RowGroupsSkippedByStats++
			continue
		}
		if r.bloomExcludesAny(i) {
			r.stats.RowGroupsSkippedByBloom++
			continue
		}
		if rg.NumRows <= 0 {
			continue
		}
		r.groups = append(r.groups, i)
	}
	announceChunks(ra, r.meta, r.groups, withNested(r.cols))
	if len(r.preds) > 0 {
		r.loadPageIndexes()
	}
	return r, nil
}

// rowGroupMidpoint follows parquet-mr's filterFileMetaDataByMidpoint: the start of the first
// column chunk (its dictionary page if it precedes the first data page) plus half the sum of the
// compressed sizes of all column chunks.
func rowGroupMidpoint(rg *format.RowGroup) int64 {
	if len(rg.Columns) == 0 {
		return rg.FileOffset
	}
	md := &rg.Columns[0].MetaData
	startPos := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < startPos {
		startPos = md.DictionaryPageOffset
	}
	var total int64
	for j := range rg.Columns {
		total += rg.Columns[j].MetaData.TotalCompressedSize
	}
	return startPos + total/2
}

// Schema returns the Arrow schema of the batches Next returns.
func (r *Reader) Schema() *arrow.Schema {
	fs := make([]sparktype.Field, len(r.cols))
	for i, c := range r.cols {
		fs[i] = c.field
	}
	return sparktype.ArrowSchema(fs)
}

// BatchStart is the file row index (Iceberg's _pos) of the first row of the batch Next returned
// last: row groups skipped by the split or by statistics still count.
func (r *Reader) BatchStart() int64 { return r.last }

// Missing reports whether column i of the spec is absent from the file (it reads as nulls).
func (r *Reader) Missing(i int) bool { return r.cols[i].conv == cvMissing }

// Stats returns the counters so far.
func (r *Reader) Stats() Stats { return r.stats }

// Next returns the next batch, or nil, nil at the end of the split. The caller owns the batch and
// must Release it.
func (r *Reader) Next() (*columnar.Batch, error) {
	lb, err := r.NextLazy()
	if err != nil || lb == nil {
		return nil, err
	}
	defer lb.Release()
	return columnar.Materialize(lb, len(r.cols))
}

func (r *Reader) startRowGroup(i int) error {
	rg := &r.meta.RowGroups[i]
	chunks := r.file.RowGroups()[i].ColumnChunks()
	r.rg = i
	for _, c := range r.cols {
		if c.nest != nil {
			if err := c.nest.start(r, i); err != nil {
				return err
			}
			continue
		}
		if c.leaf == nil {
			continue
		}
		fc, ok := chunks[c.leaf.index].(*pq.FileColumnChunk)
		if !ok {
			return fmt.Errorf("row group %d column %s: unexpected column chunk type %T", i, c.leaf.name, chunks[c.leaf.index])
		}
		md := &rg.Columns[c.leaf.index].MetaData
		off := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
			off = md.DictionaryPageOffset
		}
		if md.TotalCompressedSize < 0 || off < 0 || off+md.TotalCompressedSize > r.file.Size() {
			return fmt.Errorf("row group %d column %s: column chunk [%d, +%d) lies outside the file (%d bytes)",
				i, c.leaf.name, off, md.TotalCompressedSize, r.file.Size())
		}
		r.stats.BytesRead += md.TotalCompressedSize
		win := r.window
		if win == 0 {
			win = windowFor(len(r.cols))
		}
		if c.start(fc, md, !r.noOwnPages, win) {
			r.stats.ChunksOwnPages++
		} else {
			r.stats.ChunksParquetGo++
		}
	}
	r.left = rg.NumRows
	r.pos = r.firstRow[i]
	r.stats.RowGroupsRead++
	r.ranges, r.allRows, r.ri = nil, true, 0
	if len(r.preds) > 0 {
		r.ranges, r.allRows = r.pageRanges(i)
	}
	return nil
}

// skipPruned moves past the rows of the current row group that its page index rules out, up
// to the next rows it does not; it returns how many rows from there the next batch may take.
func (r *Reader) skipPruned() (int64, error) {
	if r.allRows {
		return r.left, nil
	}
	rows := r.meta.RowGroups[r.rg].NumRows
	g := rows - r.left // the next row, within the row group
	for r.ri < len(r.ranges) && r.ranges[r.ri].to <= g {
		r.ri++
	}
	var skip int64
	if r.ri == len(r.ranges) {
		skip = r.left
	} else if from := r.ranges[r.ri].from; from > g {
		skip = from - g
	}
	if skip > 0 {
		if skip < r.left { // the rest of a row group need not be passed
			for _, c := range r.cols {
				if err := c.skip(int(skip), r.alloc); err != nil {
					return 0, r.colErr(c, err)
				}
			}
		}
		r.pos += skip
		r.left -= skip
		r.stats.RowsSkippedByPageIndex += skip
		g += skip
	}
	if r.left == 0 {
		return 0, nil
	}
	return min(r.left, r.ranges[r.ri].to-g), nil
}

func (r *Reader) endRowGroup() {
	for _, c := range r.cols {
		c.stop()
	}
}

func (r *Reader) releaseColumns() {
	if r.lazy != nil {
		lb := r.lazy
		r.lazy = nil
		lb.done = true
		for i := range lb.cols {
			if a := lb.cols[i].arr; a != nil {
				a.Release()
				lb.cols[i].arr = nil
			}
		}
	}
	for _, c := range r.cols {
		c.stop()
		c.releaseScratch()
	}
}

// Close releases the file and every page buffer; batches already returned stay valid.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.releaseColumns()
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

var errEOFInChunk = errors.New("column chunk ended before the row group's row count")

// checkTail checks the trailing magic and the footer length the way parquet-mr does, before
// parquet-go reads the footer: it would allocate whatever length a damaged tail claims.
func checkTail(ra io.ReaderAt, size int64) error {
	var tail [8]byte
	// A ReaderAt may return io.EOF with a full read at the end of the input: only short reads fail.
	if n, err := ra.ReadAt(tail[:], size-8); n < len(tail) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read the footer length: %w", err)
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return &UnsupportedError{What: "encrypted footer (Parquet modular encryption)"}
	default:
		return fmt.Errorf("not a Parquet file: expected magic number PAR1 at the tail, found %q", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return fmt.Errorf("corrupt file: the footer of %d bytes does not fit in the file (%d bytes)", n, size)
	}
	return nil
}

// UnsupportedError: the file uses a feature the native reader cannot decode (or that parquet-go
// would decode wrong), found before any row is read. Spark can read such a file: the scan hands
// it to Spark's own reader instead of failing.
type UnsupportedError struct{ What string }

func (e *UnsupportedError) Error() string { return "not readable natively: " + e.What }

// supportedCodecs are the codecs parquet-go decodes correctly. LZ4_RAW is not among them: v0.32.0
// decompresses into a new buffer when the pooled one is shorter than 3x the compressed page, then
// keeps the pooled one, so poorly compressible pages read back as stale bytes. LZ4 (Hadoop framing)
// and LZO it does not know.
var supportedCodecs = map[format.CompressionCodec]bool{
	format.Uncompressed: true, format.Snappy: true, format.Gzip: true, format.Brotli: true, format.Zstd: true,
}

var supportedEncodings = map[format.Encoding]bool{
	format.Plain: true, format.PlainDictionary: true, format.RLE: true, format.BitPacked: true,
	format.DeltaBinaryPacked: true, format.DeltaLengthByteArray: true, format.DeltaByteArray: true,
	format.RLEDictionary: true, format.ByteStreamSplit: true,
}

// checkSupported looks at the metadata of every chunk of the columns to read, in every row group
// (parquet-go decompresses all of a column's chunks with the codec of its first row group's chunk,
// so a file whose row groups differ in codec would read wrong).
func checkSupported(meta *format.FileMetaData, cols []*column) error {
	for _, c := range cols {
		if c.leaf == nil {
			continue
		}
		for i := range meta.RowGroups {
			md := &meta.RowGroups[i].Columns[c.leaf.index].MetaData
			if !supportedCodecs[md.Codec] {
				return &UnsupportedError{What: fmt.Sprintf("column %s is compressed with %s", c.leaf.name, md.Codec)}
			}
			if first := meta.RowGroups[0].Columns[c.leaf.index].MetaData.Codec; md.Codec != first {
				return &UnsupportedError{What: fmt.Sprintf("column %s changes codec between row groups (%s, %s)",
					c.leaf.name, first, md.Codec)}
			}
			for _, e := range md.Encoding {
				if !supportedEncodings[e] {
					return &UnsupportedError{What: fmt.Sprintf("column %s uses encoding %s", c.leaf.name, e)}
				}
			}
		}
	}
	return nil
}

// pathlessReader reads the file but leaves its path out of errors: FileError names it once.
type pathlessReader struct{ f *os.File }

func (r pathlessReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.f.ReadAt(p, off)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s at offset %d: %w", pe.Op, off, pe.Err)
	}
	return n, err
}

// FileError is every error of a Reader: the file, named once, and what went wrong in it. Err
// keeps its causes (fs.ErrNotExist for a missing file, *TypeMismatchError for a column the file
// cannot supply as the requested Spark type).
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("parquet file %s: %v", e.Path, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// TypeMismatchError: the file's column cannot be read as the requested Spark type (Spark's
// SchemaColumnConvertNotSupportedException). Column is the column's path as Spark prints it
// ("[a, b]"), Physical the Parquet physical type, Spark the requested type's catalog string.
type TypeMismatchError struct {
	Column, Physical, Spark string
	Detail                  string
}

func (e *TypeMismatchError) Error() string { return e.Detail }

func isEOF(err error) bool { return err == io.EOF }

func sameName(a, b string, caseSensitive bool) bool {
	if caseSensitive {
		return a == b
	}
	return strings.EqualFold(a, b)
}
