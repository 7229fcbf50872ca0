package ops

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/iceberg"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// IcebergScan reads the FileScanTasks Iceberg Java planned for this Spark task (after runtime
// filtering), in their order, with their deletes applied (package iceberg).
type IcebergScan struct {
	nodeID string
	scan   *iceberg.Scan
	schema []sparktype.Field

	ctx    *exec.TaskContext
	tasks  []iceberg.Task
	next   int
	reader *iceberg.Reader
	open   bool // a task is open in reader
}

// NewIcebergScan builds the scan of node nodeID.
func NewIcebergScan(nodeID string, scan *iceberg.Scan, schema []sparktype.Field) *IcebergScan {
	return &IcebergScan{nodeID: nodeID, scan: scan, schema: schema}
}

func (s *IcebergScan) Schema() []sparktype.Field { return s.schema }

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
	s.reader, err = iceberg.NewReader(&scan, s.schema, ctx.Alloc, ctx.BatchSize())
	return err
}

func (s *IcebergScan) Next() (*columnar.Batch, error) {
	for {
		if !s.open {
			if s.next >= len(s.tasks) {
				return nil, nil
			}
			t := &s.tasks[s.next]
			s.next++
			if err := s.reader.Open(t); err != nil {
				return nil, readError(t.Path, err)
			}
			s.open = true
		}
		b, err := s.reader.Next()
		if err != nil {
			s.reader.Close()
			return nil, readError(s.tasks[s.next-1].Path, err)
		}
		if b == nil {
			s.open = false
			continue
		}
		return b, nil
	}
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
}
