package ops

import (
	"fmt"
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
type ParquetScan struct {
	nodeID     string
	data       []sparktype.Field
	partitions []sparktype.Field
	filters    []parquet.Predicate
	schema     []sparktype.Field

	ctx    *exec.TaskContext
	files  []plan.PartitionedFile
	next   int
	reader *parquet.Reader
	consts []any // partition values of the current file
	path   string
}

// NewParquetScan builds the scan of node nodeID; filters only prune row groups.
func NewParquetScan(nodeID string, data, partitions []sparktype.Field, filters []parquet.Predicate) *ParquetScan {
	schema := append(append([]sparktype.Field{}, data...), partitions...)
	return &ParquetScan{nodeID: nodeID, data: data, partitions: partitions, filters: filters, schema: schema}
}

func (s *ParquetScan) Schema() []sparktype.Field { return s.schema }

func (s *ParquetScan) Open(ctx *exec.TaskContext) error {
	s.ctx = ctx
	s.files = ctx.Files[s.nodeID]
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
	if s.next >= len(s.files) {
		return false, nil
	}
	f := s.files[s.next]
	s.next++
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
	if err != nil {
		return false, fmt.Errorf("open Parquet file %s: %w", path, err)
	}
	s.reader, s.path = r, path
	return true, nil
}

func (s *ParquetScan) Next() (*columnar.Batch, error) {
	for {
		if s.reader == nil {
			ok, err := s.openNext()
			if err != nil || !ok {
				return nil, err
			}
		}
		b, err := s.reader.Next()
		if err != nil {
			return nil, fmt.Errorf("read Parquet file %s: %w", s.path, err)
		}
		if b == nil {
			err := s.reader.Close()
			s.reader = nil
			if err != nil {
				return nil, fmt.Errorf("close Parquet file %s: %w", s.path, err)
			}
			continue
		}
		if len(s.partitions) == 0 {
			return b, nil
		}
		cols := make([]arrow.Array, 0, len(s.schema))
		cols = append(cols, b.Cols...)
		for i, p := range s.partitions {
			c, err := columnar.Constant(s.ctx.Alloc, p.Type, s.consts[i], b.NumRows)
			if err != nil {
				columnar.NewBatch(cols, 0).Release()
				return nil, err
			}
			cols = append(cols, c)
		}
		return columnar.NewBatch(cols, b.NumRows), nil
	}
}

func (s *ParquetScan) Close() {
	if s.reader != nil {
		_ = s.reader.Close()
		s.reader = nil
	}
}
