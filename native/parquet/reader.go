// Package parquet owns the native Parquet reader: it opens a local file split, maps the file's
// columns onto Spark's required schema the way Spark's vectorized reader does, skips row groups by
// their statistics, and decodes pages (through parquet-go's page-level API, never its boxed values)
// straight into Arrow arrays whose buffers come from the task's allocator.
package parquet

import (
	"errors"
	"fmt"
	"io"
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
}

// DefaultBatchSize is the number of rows per batch when ScanSpec.BatchSize is not set.
const DefaultBatchSize = 8192

// Stats counts what a reader did.
type Stats struct {
	RowGroupsTotal          int   // row groups in the file
	RowGroupsInSplit        int   // row groups whose midpoint lies in the split
	RowGroupsSkippedByStats int   // of those, skipped because statistics prove no row can match
	RowGroupsRead           int   // row groups actually decoded
	RowsRead                int64 // rows returned
	Batches                 int   // batches returned
	BytesRead               int64 // compressed bytes of the projected column chunks of read row groups
}

// Reader reads one split of a Parquet file as Arrow batches.
type Reader struct {
	path   string
	osf    *os.File
	file   *pq.File
	meta   *format.FileMetaData
	alloc  memory.Allocator
	batch  int
	cols   []*column
	groups []int // selected row groups, in file order
	next   int   // index into groups of the next row group to open
	rg     int   // current row group (-1 when none)
	left   int64 // rows left in the current row group
	stats  Stats
	err    error // sticky
	closed bool
}

// Open reads the split [start, start+length) of a local file. A row group belongs to the split
// that contains its midpoint (Spark's rule: offset of the first page of its first column chunk,
// dictionary page if any, plus half of the row group's total compressed size).
func Open(path string, start, length int64, spec *ScanSpec, alloc memory.Allocator) (r *Reader, err error) {
	if spec == nil {
		spec = &ScanSpec{}
	}
	if alloc == nil {
		return nil, fmt.Errorf("open parquet file %s: no allocator", path)
	}
	osf, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", path, err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("open parquet file %s: corrupt file (%v)", path, p)
		}
		if err != nil {
			if r != nil {
				r.releaseColumns()
			}
			r = nil
			osf.Close()
		}
	}()
	fi, err := osf.Stat()
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", path, err)
	}
	if fi.Size() < 12 {
		return nil, fmt.Errorf("open parquet file %s: %d bytes is too small for a Parquet file", path, fi.Size())
	}
	f, err := pq.OpenFile(osf, fi.Size(),
		pq.SkipPageIndex(true), pq.SkipBloomFilters(true), pq.ReadBufferSize(64<<10))
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", path, err)
	}
	r = &Reader{path: path, osf: osf, file: f, meta: f.Metadata(), alloc: alloc, rg: -1}
	r.batch = spec.BatchSize
	if r.batch <= 0 {
		r.batch = DefaultBatchSize
	}
	schema, err := readSchema(r.meta)
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", path, err)
	}
	if n := len(f.RowGroups()); n != len(r.meta.RowGroups) {
		return nil, fmt.Errorf("open parquet file %s: %d row groups in metadata, %d opened", path, len(r.meta.RowGroups), n)
	}
	for i := range r.meta.RowGroups {
		if got := len(r.meta.RowGroups[i].Columns); got != schema.numLeaves {
			return nil, fmt.Errorf("open parquet file %s: row group %d has %d column chunks, the schema has %d leaf columns",
				path, i, got, schema.numLeaves)
		}
	}
	for _, fld := range spec.Columns {
		c, err := planColumn(schema, fld, spec.CaseSensitive)
		if err != nil {
			return nil, fmt.Errorf("open parquet file %s: %w", path, err)
		}
		r.cols = append(r.cols, c)
	}
	preds, err := planPredicates(schema, spec.Filters, spec.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", path, err)
	}
	r.stats.RowGroupsTotal = len(r.meta.RowGroups)
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
		if rg.NumRows <= 0 {
			continue
		}
		r.groups = append(r.groups, i)
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

// Stats returns the counters so far.
func (r *Reader) Stats() Stats { return r.stats }

// Next returns the next batch, or nil, nil at the end of the split. The caller owns the batch and
// must Release it.
func (r *Reader) Next() (b *columnar.Batch, err error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.closed {
		return nil, fmt.Errorf("read %s: reader is closed", r.path)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("read %s row group %d: corrupt file (%v)", r.path, r.rg, p)
			b = nil
		}
		if err != nil {
			r.err = err
			r.releaseColumns()
		}
	}()
	for r.left == 0 {
		r.endRowGroup()
		if r.next >= len(r.groups) {
			return nil, nil
		}
		if err := r.startRowGroup(r.groups[r.next]); err != nil {
			return nil, err
		}
		r.next++
	}
	n := r.batch
	if int64(n) > r.left {
		n = int(r.left)
	}
	arrs := make([]arrow.Array, len(r.cols))
	for i, c := range r.cols {
		a, err := c.read(n, r.alloc)
		if err != nil {
			for _, x := range arrs[:i] {
				x.Release()
			}
			name := c.field.Name
			if c.leaf != nil {
				name = c.leaf.name
			}
			return nil, fmt.Errorf("read %s row group %d column %s: %w", r.path, r.rg, name, err)
		}
		arrs[i] = a
	}
	r.left -= int64(n)
	r.stats.RowsRead += int64(n)
	r.stats.Batches++
	return columnar.NewBatch(arrs, n), nil
}

func (r *Reader) startRowGroup(i int) error {
	rg := &r.meta.RowGroups[i]
	chunks := r.file.RowGroups()[i].ColumnChunks()
	r.rg = i
	for _, c := range r.cols {
		if c.leaf == nil {
			continue
		}
		fc, ok := chunks[c.leaf.index].(*pq.FileColumnChunk)
		if !ok {
			return fmt.Errorf("read %s row group %d column %s: unexpected column chunk type %T", r.path, i, c.leaf.name, chunks[c.leaf.index])
		}
		md := &rg.Columns[c.leaf.index].MetaData
		off := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
			off = md.DictionaryPageOffset
		}
		if md.TotalCompressedSize < 0 || off < 0 || off+md.TotalCompressedSize > r.file.Size() {
			return fmt.Errorf("read %s row group %d column %s: column chunk [%d, +%d) lies outside the file (%d bytes)",
				r.path, i, c.leaf.name, off, md.TotalCompressedSize, r.file.Size())
		}
		r.stats.BytesRead += md.TotalCompressedSize
		c.start(fc.Pages(), rg.NumRows)
	}
	r.left = rg.NumRows
	r.stats.RowGroupsRead++
	return nil
}

func (r *Reader) endRowGroup() {
	for _, c := range r.cols {
		c.stop()
	}
}

func (r *Reader) releaseColumns() {
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
	return r.osf.Close()
}

var errEOFInChunk = errors.New("column chunk ended before the row group's row count")

func isEOF(err error) bool { return err == io.EOF }

func sameName(a, b string, caseSensitive bool) bool {
	if caseSensitive {
		return a == b
	}
	return strings.EqualFold(a, b)
}
