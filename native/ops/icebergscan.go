package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/iceberg"
	"github.com/bolide-dev/bolide/native/objstore"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// IcebergScan reads the FileScanTasks Iceberg Java planned for this Spark task (after runtime
// filtering), in their order, with their deletes applied (package iceberg).
//
// The task's data files are opened ahead, up to spark.bolide.scan.iceberg.dataFileConcurrencyLimit
// of them at once (an object store's latency overlaps the decoding of the file before).
type IcebergScan struct {
	nodeID string
	scan   *iceberg.Scan
	schema []sparktype.Field
	prune  []parquet.Predicate

	ctx    *exec.TaskContext
	tasks  []iceberg.Task
	next   int
	reader *iceberg.Reader
	files  *objstore.Prefetcher
	cancel context.CancelFunc
	open   bool // a task is open in reader
	// fallback reads the current task with Iceberg Java's reader; what names its data file.
	fallback exec.InputSource
	what     string
}

// IcebergConcurrencyKey bounds the data files a task opens ahead.
const IcebergConcurrencyKey = "spark.bolide.scan.iceberg.dataFileConcurrencyLimit"

// DefaultIcebergConcurrency is its default.
const DefaultIcebergConcurrency = 4

// NewIcebergScan builds the scan of node nodeID.
func NewIcebergScan(nodeID string, scan *iceberg.Scan, schema []sparktype.Field) *IcebergScan {
	return &IcebergScan{nodeID: nodeID, scan: scan, schema: schema}
}

func (s *IcebergScan) Schema() []sparktype.Field { return s.schema }

// PruneWith adds predicates that only skip row groups by their statistics (the conjuncts of the
// filter above the scan): a row group they rule out has no row the filter keeps.
func (s *IcebergScan) PruneWith(preds []parquet.Predicate) { s.prune = append(s.prune, preds...) }

func (s *IcebergScan) Open(ctx *exec.TaskContext) error {
	s.ctx = ctx
	tasks, err := iceberg.ParseTasks(ctx.IcebergTasks[s.nodeID])
	if err != nil {
		return err
	}
	s.tasks = tasks
	// Each task gets its own copy of the shared description (the reader fills in Spark types).
	scan := *s.scan
	scan.Columns = append([]iceberg.Column(nil), s.scan.Columns...)
	var rctx context.Context
	rctx, s.cancel = context.WithCancel(context.Background())
	s.reader, err = iceberg.NewReader(rctx, &scan, s.schema, ctx.Alloc, ctx.BatchSize(), s.prune)
	if err != nil {
		return err
	}
	limit := DefaultIcebergConcurrency
	if ctx.Conf != nil {
		if v, ok := ctx.Conf.Settings[IcebergConcurrencyKey]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return fmt.Errorf("%s must be a positive integer, not %q", IcebergConcurrencyKey, v)
			}
			limit = n
		}
	}
	locs := make([]string, len(tasks))
	for i := range tasks {
		locs[i] = tasks[i].Path
	}
	s.files = objstore.NewPrefetcher(rctx, locs, &s.scan.Storage.Config, objstore.PrefetchOptions{Limit: limit})
	return nil
}

// A data file the native reader cannot decode although it is valid (*parquet.UnsupportedError:
// an LZ4 codec, say) is read by Iceberg Java's own reader, through the task's FileFallback, so the
// query still answers.
func (s *IcebergScan) Next() (*columnar.Batch, error) {
	l, err := s.NextLazy()
	if err != nil || l == nil {
		return nil, err
	}
	defer l.Release()
	return columnar.Materialize(l, len(s.schema))
}

func (s *IcebergScan) LazyOK() bool { return true }

// NextLazy returns the next batch with its deletes applied (its Live rows) and its columns
// undecoded (see columnar.Lazy).
func (s *IcebergScan) NextLazy() (columnar.Lazy, error) {
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
			if b, err = conform(b, s.schema, "Iceberg Java's reader of "+s.what); err != nil {
				return nil, err
			}
			return columnar.NewEager(b, s.ctx.Alloc), nil
		}
		if !s.open {
			if s.next >= len(s.tasks) {
				return nil, nil
			}
			t := &s.tasks[s.next]
			s.next++
			data, err := s.files.Next()
			if err != nil {
				return nil, readError(t.Path, &parquet.FileError{Path: t.Path, Err: fmt.Errorf("open: %w", err)})
			}
			if err := s.reader.Open(t, data); err != nil {
				var unsupported *parquet.UnsupportedError
				if errors.As(err, &unsupported) && s.ctx.Fallback != nil {
					s.reader.Close()
					src, ferr := s.ctx.Fallback.OpenFile(s.nodeID, s.next-1)
					if ferr != nil {
						return nil, readError(t.Path, fmt.Errorf("read with Iceberg Java's reader (%v): %w", unsupported, ferr))
					}
					s.fallback, s.what = src, t.Path
					continue
				}
				return nil, readError(t.Path, err)
			}
			s.open = true
		}
		path := s.tasks[s.next-1].Path
		l, err := s.reader.NextLazy()
		if err != nil {
			s.reader.Close()
			return nil, readError(path, err)
		}
		if l == nil {
			s.open = false
			continue
		}
		return &icebergBatch{Lazy: l, path: path}, nil
	}
}

// icebergBatch turns the decoding errors of a task's batch into Spark's, naming the file.
type icebergBatch struct {
	columnar.Lazy
	path string
}

func (b *icebergBatch) Column(i int) (arrow.Array, error) {
	c, err := b.Lazy.Column(i)
	if err != nil {
		return nil, readError(b.path, err)
	}
	return c, nil
}

func (b *icebergBatch) Take(i int, sel []int32) (arrow.Array, error) {
	c, err := b.Lazy.Take(i, sel)
	if err != nil {
		return nil, readError(b.path, err)
	}
	return c, nil
}

func (b *icebergBatch) Codes(i int) ([]int32, arrow.Array, bool, error) {
	codes, dict, ok, err := b.Lazy.Codes(i)
	if err != nil {
		return nil, nil, false, readError(b.path, err)
	}
	return codes, dict, ok, nil
}

// readError: Spark's FAILED_READ_FILE naming the file that failed (a delete file's own name is
// in the cause), or the error itself when no file is to blame.
func readError(dataFile string, err error) error {
	var se *exec.SparkError
	if errors.As(err, &se) {
		return err
	}
	path := dataFile
	var fe *parquet.FileError
	if errors.As(err, &fe) {
		path = fe.Path
		if errors.Is(err, fs.ErrNotExist) {
			return exec.FailedReadFile("FILE_NOT_EXIST", path, fmt.Errorf("iceberg: %w", fe.Err), nil)
		}
		return exec.FailedReadFile("NO_HINT", path, fmt.Errorf("iceberg: %w", fe.Err), nil)
	}
	return exec.FailedReadFile("NO_HINT", path, err, nil)
}

func (s *IcebergScan) Close() {
	if s.reader != nil {
		s.reader.Close()
	}
	if s.files != nil {
		_ = s.files.Close()
	}
	if s.cancel != nil {
		s.cancel()
	}
}
