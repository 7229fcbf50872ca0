package ops

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// ParquetScan reads the task's splits of a Parquet file scan: the data columns Spark requires,
// followed by the partition columns of Hive-style directories (constant per file).
//
// A file the native reader cannot decode (*parquet.UnsupportedError: an LZ4 codec, encryption) is
// read by Spark's own reader through the task's FileFallback, so the query still answers.
//
// Unreadable files are handled like Spark's FileScanRDD: with ignoreMissingFiles a file that is
// gone is skipped; with ignoreCorruptFiles a file that fails to open or decode is skipped from
// that point on (batches already returned stay, as in Spark). Otherwise the error is Spark's
// FAILED_READ_FILE.* with the file's URI.
type ParquetScan struct {
	nodeID     string
	data       []sparktype.Field
	partitions []sparktype.Field
	filters    []parquet.Predicate
	schema     []sparktype.Field
	files      FileErrorPolicy

	ctx      *exec.TaskContext
	splits   []plan.PartitionedFile
	next     int
	reader   *parquet.Reader
	fallback exec.InputSource // the current file, read by Spark
	consts   []any            // partition values of the current file
	uri      string           // the current file as Spark names it
	skipped  int              // files (or their rest) skipped under the policy
}

// FileErrorPolicy is Spark's spark.sql.files.ignoreCorruptFiles / ignoreMissingFiles (or the
// data source options of the same names) as FileScanRDD applies them.
type FileErrorPolicy struct {
	IgnoreCorrupt, IgnoreMissing bool
}

// NewParquetScan builds the scan of node nodeID; filters only prune row groups.
func NewParquetScan(nodeID string, data, partitions []sparktype.Field, filters []parquet.Predicate,
	files FileErrorPolicy) *ParquetScan {
	schema := append(append([]sparktype.Field{}, data...), partitions...)
	return &ParquetScan{nodeID: nodeID, data: data, partitions: partitions, filters: filters, schema: schema,
		files: files}
}

func (s *ParquetScan) Schema() []sparktype.Field { return s.schema }

func (s *ParquetScan) Open(ctx *exec.TaskContext) error {
	s.ctx = ctx
	s.splits = ctx.Files[s.nodeID]
	return nil
}

// LocalPath turns the URI Spark gives a split into a local path; other file systems are not read
// natively yet (planning refuses them).
func LocalPath(uri string) (string, error) {
	if strings.HasPrefix(uri, "/") {
		return uri, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parse file URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("file system %q is not supported natively (%s)", u.Scheme, uri)
	}
	return u.Path, nil
}

func (s *ParquetScan) openNext() (bool, error) {
	if s.next >= len(s.splits) {
		return false, nil
	}
	f := s.splits[s.next]
	s.next++
	s.uri = f.Path
	path, err := LocalPath(f.Path)
	if err != nil {
		return false, err
	}
	if len(f.PartitionValues) != len(s.partitions) {
		return false, fmt.Errorf("file %s: %d partition values for %d partition columns",
			path, len(f.PartitionValues), len(s.partitions))
	}
	s.consts = s.consts[:0]
	for i, raw := range f.PartitionValues {
		v, err := plan.DecodeValue(raw, s.partitions[i].Type)
		if err != nil {
			return false, fmt.Errorf("file %s partition column %s: %w", path, s.partitions[i].Name, err)
		}
		s.consts = append(s.consts, v)
	}
	spec := &parquet.ScanSpec{Columns: s.data, Filters: s.filters, BatchSize: s.ctx.BatchSize(),
		CaseSensitive: s.ctx.Conf != nil && s.ctx.Conf.CaseSensitive}
	r, err := parquet.Open(path, f.Start, f.Length, spec, s.ctx.Alloc)
	var unsupported *parquet.UnsupportedError
	if errors.As(err, &unsupported) && s.ctx.Fallback != nil {
		src, ferr := s.ctx.Fallback.OpenFile(s.nodeID, s.next-1)
		if ferr != nil {
			return false, fmt.Errorf("read %s with Spark's reader (%v): %w", s.uri, unsupported, ferr)
		}
		s.fallback = src
		return true, nil
	}
	if err != nil {
		return false, err
	}
	s.reader = r
	return true, nil
}

// fileError decides what a failure of the current file means: skipped (nil) under the policy,
// or Spark's FAILED_READ_FILE error. Only failures of the file itself (*parquet.FileError) can be
// skipped; a refused memory reservation or a bad plan fails the task as always.
func (s *ParquetScan) fileError(err error) error {
	var fe *parquet.FileError
	if !errors.As(err, &fe) {
		return err
	}
	cause := fe.Err
	var unsupported *parquet.UnsupportedError
	if errors.As(err, &unsupported) {
		return exec.FailedReadFile("NO_HINT", s.uri, cause, nil) // not corrupt: never skipped
	}
	if errors.Is(err, fs.ErrNotExist) {
		if s.files.IgnoreMissing {
			s.skipped++
			return nil
		}
		return exec.FailedReadFile("FILE_NOT_EXIST", s.uri, cause, nil)
	}
	if s.files.IgnoreCorrupt {
		s.skipped++
		return nil
	}
	var mm *parquet.TypeMismatchError
	if errors.As(err, &mm) {
		return exec.FailedReadFile("PARQUET_COLUMN_DATA_TYPE_MISMATCH", s.uri, cause, map[string]string{
			"column": mm.Column, "expectedType": mm.Spark, "actualType": mm.Physical})
	}
	return exec.FailedReadFile("NO_HINT", s.uri, cause, nil)
}

func (s *ParquetScan) Next() (*columnar.Batch, error) {
	l, err := s.NextLazy()
	if err != nil || l == nil {
		return nil, err
	}
	defer l.Release()
	return columnar.Materialize(l, len(s.schema))
}

// LazyOK: a scan that skips corrupt files reads batches whole, so that a file that fails to
// decode is skipped from a batch boundary, as Spark does.
func (s *ParquetScan) LazyOK() bool { return !s.files.IgnoreCorrupt }

// NextLazy returns the next batch with its data columns undecoded (see columnar.Lazy).
func (s *ParquetScan) NextLazy() (columnar.Lazy, error) {
	for {
		if s.fallback != nil {
			b, err := s.fallback.Next()
			if err != nil {
				return nil, err
			}
			if b == nil {
				s.fallback = nil
				continue
			}
			b, err = conform(b, s.schema, "Spark's reader of "+s.uri)
			if err != nil {
				return nil, err
			}
			return columnar.NewEager(b, s.ctx.Alloc), nil
		}
		if s.reader == nil {
			ok, err := s.openNext()
			if err != nil {
				if err = s.fileError(err); err != nil {
					return nil, err
				}
				continue
			}
			if !ok {
				return nil, nil
			}
			if s.reader == nil {
				continue // handed to Spark's reader
			}
		}
		lb, err := s.reader.NextLazy()
		if err == nil && lb != nil && s.files.IgnoreCorrupt {
			// Decoded whole here, so that a decoding error skips the file's rest under the policy.
			var b *columnar.Batch
			b, err = columnar.Materialize(lb, len(s.data))
			lb.Release()
			if err == nil {
				return s.withPartitions(columnar.NewEager(b, s.ctx.Alloc)), nil
			}
		}
		if err != nil {
			_ = s.reader.Close()
			s.reader = nil
			if err = s.fileError(err); err != nil {
				return nil, err
			}
			continue
		}
		if lb == nil {
			err := s.reader.Close()
			s.reader = nil
			if err != nil {
				return nil, exec.FailedReadFile("NO_HINT", s.uri, fmt.Errorf("close: %w", err), nil)
			}
			continue
		}
		return s.withPartitions(lb), nil
	}
}

// withPartitions adds the current file's partition columns to a batch of its data columns, and
// turns its decoding errors into Spark's.
func (s *ParquetScan) withPartitions(l columnar.Lazy) columnar.Lazy {
	return &scanBatch{Lazy: l, s: s, uri: s.uri}
}

// scanBatch is a batch of the scan's output: the file's data columns, then its partition values.
type scanBatch struct {
	columnar.Lazy
	s   *ParquetScan
	uri string
}

func (b *scanBatch) partition(i int, n int) (arrow.Array, bool, error) {
	k := i - len(b.s.data)
	if k < 0 {
		return nil, false, nil
	}
	c, err := columnar.Constant(b.s.ctx.Alloc, b.s.partitions[k].Type, b.s.consts[k], n)
	return c, true, err
}

// fail is a decoding error of a data column: Spark's FAILED_READ_FILE naming the file.
func (b *scanBatch) fail(err error) error {
	var se *exec.SparkError
	if errors.As(err, &se) {
		return err
	}
	var fe *parquet.FileError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	return exec.FailedReadFile("NO_HINT", b.uri, err, nil)
}

func (b *scanBatch) Column(i int) (arrow.Array, error) {
	if c, ok, err := b.partition(i, b.NumRows()); ok {
		return c, err
	}
	c, err := b.Lazy.Column(i)
	if err != nil {
		return nil, b.fail(err)
	}
	return c, nil
}

func (b *scanBatch) Take(i int, sel []int32) (arrow.Array, error) {
	if c, ok, err := b.partition(i, len(sel)); ok {
		return c, err
	}
	c, err := b.Lazy.Take(i, sel)
	if err != nil {
		return nil, b.fail(err)
	}
	return c, nil
}

func (b *scanBatch) Codes(i int) ([]int32, arrow.Array, bool, error) {
	if i >= len(b.s.data) {
		return nil, nil, false, nil
	}
	codes, dict, ok, err := b.Lazy.Codes(i)
	if err != nil {
		return nil, nil, false, b.fail(err)
	}
	return codes, dict, ok, nil
}

func (s *ParquetScan) Close() {
	if s.reader != nil {
		_ = s.reader.Close()
		s.reader = nil
	}
}
