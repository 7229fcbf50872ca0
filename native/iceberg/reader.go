package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/objstore"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// source says where an output column's values come from.
type source uint8

const (
	fromFile     source = iota // a data column of the file (index into the reader's columns)
	fromConstant               // identity-partition value, _file, _spec_id, an initial default or null
	fromPosition               // _pos
	fromDeleted                // _deleted
)

// Reader reads the FileScanTasks of one Spark task, one after another, as batches of the scan's
// output columns with every delete applied.
type Reader struct {
	scan      *Scan
	ctx       context.Context // bounds the object-store reads of the Spark task
	alloc     memory.Allocator
	batchSize int
	mapping   *nameMapping             // the table's name mapping, or nil
	fieldType map[int32]sparktype.Type // table fields' Spark types, for equality deletes
	hasDelCol bool                     // _deleted is projected: deleted rows are flagged, not dropped
	prune     []parquet.Predicate      // row-group pruning by statistics, on output column names
	nested    []*parquet.FieldNode     // per output column, the field ids inside a nested one

	// Delete files read so far in this Spark task (a delete file often applies to several tasks).
	posFiles map[string]map[string][]int64 // delete file -> data file -> positions
	eqFiles  map[string]*equalitySet

	// The current task.
	task     *Task
	data     objstore.File // the task's data file
	file     *parquet.Reader
	srcs     []source
	fileIdx  []int // per output column, its index among the file's columns (fromFile)
	consts   []any // per output column (fromConstant)
	eqCols   [][]int
	eqSets   []*equalitySet
	deleted  *cursor
	flags    []bool
	live     []int32
	RowsRead int64 // rows decoded from data files, before deletes
	Deleted  int64 // rows dropped (or flagged) by deletes
}

// NewReader prepares a scan's reader; out is the scan's output (Spark's types, in order).
// prune are predicates over output columns (by name) that only skip row groups by statistics.
func NewReader(ctx context.Context, scan *Scan, out []sparktype.Field, alloc memory.Allocator, batchSize int,
	prune []parquet.Predicate) (*Reader, error) {
	if len(out) != len(scan.Columns) {
		return nil, fmt.Errorf("iceberg scan: %d output columns, %d described", len(out), len(scan.Columns))
	}
	r := &Reader{scan: scan, ctx: ctx, alloc: alloc, prune: prune, batchSize: batchSize, fieldType: map[int32]sparktype.Type{},
		posFiles: map[string]map[string][]int64{}, eqFiles: map[string]*equalitySet{}}
	r.nested = make([]*parquet.FieldNode, len(scan.Columns))
	for i := range scan.Columns {
		c := &scan.Columns[i]
		c.Type = out[i].Type
		if c.ID == IsDeletedID {
			r.hasDelCol = true
		}
		n, err := c.FieldNode()
		if err != nil {
			return nil, fmt.Errorf("iceberg scan: %w", err)
		}
		r.nested[i] = n
	}
	for _, f := range scan.TableFields {
		if len(f.SparkType) == 0 || string(f.SparkType) == "null" {
			continue
		}
		t, err := sparktype.Parse(f.SparkType)
		if err == nil && t.Supported() {
			r.fieldType[f.ID] = t
		}
	}
	if scan.NameMapping != "" {
		m, err := parseNameMapping(scan.NameMapping)
		if err != nil {
			return nil, err
		}
		r.mapping = m
	}
	return r, nil
}

// Open starts a task over its data file, already opened (the scan opens data files ahead,
// concurrently): it reads the task's delete files and opens the file's split. The reader owns
// data from here on and closes it.
func (r *Reader) Open(t *Task, data objstore.File) error {
	r.closeFile()
	r.task = t
	r.data = data
	if t.Format != "PARQUET" {
		return &parquet.FileError{Path: t.Path, Err: &parquet.UnsupportedError{What: "Iceberg data file in " + t.Format + " format"}}
	}
	consts := map[int32]json.RawMessage{}
	for _, c := range t.Constants {
		consts[c.ID] = c.Value
	}
	// The file's columns: projected table fields without a constant, then the equality delete
	// fields that are not among them.
	var fields []sparktype.Field
	var ids []int32
	var nested []*parquet.FieldNode
	colOf := map[int32]int{}
	r.srcs = r.srcs[:0]
	r.fileIdx = r.fileIdx[:0]
	r.consts = r.consts[:0]
	for ci, c := range r.scan.Columns {
		src, idx, val := fromConstant, -1, any(nil)
		switch c.ID {
		case RowPositionID:
			src = fromPosition
		case IsDeletedID:
			src = fromDeleted
		case FilePathID:
			val = t.Path
		case SpecIDID:
			val = int64(t.SpecID)
		default:
			if raw, ok := consts[c.ID]; ok {
				v, err := plan.DecodeValue(raw, c.Type)
				if err != nil {
					return fmt.Errorf("iceberg data file %s: constant of column %s: %w", t.Path, c.Name, err)
				}
				if c.IcebergType == "uuid" {
					// The JVM sends a uuid partition value as the string Iceberg Java shows it
					// as (IcebergScans.constantValue); a value in another form goes to Iceberg
					// Java's reader rather than be shown differently.
					if err := checkUUIDConstant(v); err != nil {
						return &parquet.FileError{Path: t.Path, Err: &parquet.UnsupportedError{
							What: fmt.Sprintf("the identity-partition value of uuid column %s: %v", c.Name, err)}}
					}
				}
				val = v
			} else if IsMetadataColumn(c.ID) {
				return fmt.Errorf("iceberg metadata column %s (id %d) is not read natively", c.Name, c.ID)
			} else {
				src = fromFile
				if j, ok := colOf[c.ID]; ok {
					idx = j
				} else {
					idx = len(fields)
					colOf[c.ID] = idx
					fields = append(fields, sparktype.Field{Name: c.Name, Type: c.Type, Nullable: true})
					ids = append(ids, c.ID)
					nested = append(nested, r.nested[ci])
				}
			}
		}
		r.srcs = append(r.srcs, src)
		r.fileIdx = append(r.fileIdx, idx)
		r.consts = append(r.consts, val)
	}
	r.eqCols, r.eqSets = r.eqCols[:0], r.eqSets[:0]
	var positions *Positions
	for i := range t.Deletes {
		d := &t.Deletes[i]
		switch d.Content {
		case "POSITION_DELETES":
			ps, err := r.positionDeletes(d, t.Path)
			if err != nil {
				return fmt.Errorf("iceberg delete file %s of data file %s: %w", d.Path, t.Path, err)
			}
			positions = union(positions, ps)
		case "EQUALITY_DELETES":
			set, err := r.equalityDeletes(d)
			if err != nil {
				return fmt.Errorf("iceberg equality delete file %s of data file %s: %w", d.Path, t.Path, err)
			}
			cols := make([]int, len(set.ids))
			for k, id := range set.ids {
				j, ok := colOf[id]
				if !ok {
					typ, known := r.fieldType[id]
					if !known {
						return fmt.Errorf("iceberg equality delete file %s: %w", d.Path, unsupportedField(id))
					}
					j = len(fields)
					colOf[id] = j
					fields = append(fields, sparktype.Field{Name: fmt.Sprintf("_eq_%d", id), Type: typ, Nullable: true})
					ids = append(ids, id)
					nested = append(nested, nil)
				}
				cols[k] = j
			}
			r.eqCols = append(r.eqCols, cols)
			r.eqSets = append(r.eqSets, set)
		default:
			return fmt.Errorf("iceberg delete file %s: unknown content %q", d.Path, d.Content)
		}
	}
	if n := positions.Len(); n > 0 && t.RecordCount > 0 && positions.sorted[n-1] >= t.RecordCount {
		return fmt.Errorf("iceberg data file %s: its deletes name row position %d, but the file has %d rows (a delete file that does not belong to it?)",
			t.Path, positions.sorted[n-1], t.RecordCount)
	}
	r.deleted = newCursor(positions)
	spec := &parquet.ScanSpec{Columns: fields, FieldIDs: ids, BatchSize: r.batchSize,
		CaseSensitive: true, Filters: r.prune, Nested: nested}
	if r.mapping != nil {
		spec.IDsByName, spec.Mapping = r.mapping.top, r.mapping.nested
	}
	if ids == nil {
		spec.FieldIDs = []int32{}
	}
	f, err := parquet.OpenReaderAt(t.Path, data, data.Size(), t.Start, t.Length, spec, r.alloc)
	if err != nil {
		return err
	}
	r.file = f
	// A table field the file lacks reads as its initial default (v3), else null.
	for i, c := range r.scan.Columns {
		if r.srcs[i] == fromFile && f.Missing(r.fileIdx[i]) {
			r.srcs[i] = fromConstant
			v, err := plan.DecodeValue(c.Default, c.Type)
			if err != nil {
				return fmt.Errorf("iceberg column %s: initial default: %w", c.Name, err)
			}
			r.consts[i] = v
		}
	}
	return nil
}

// Next returns the task's next batch, or nil at its end.
func (r *Reader) Next() (*columnar.Batch, error) {
	l, err := r.NextLazy()
	if err != nil || l == nil {
		return nil, err
	}
	defer l.Release()
	return columnar.Materialize(l, len(r.srcs))
}

// NextLazy returns the task's next batch with its deletes applied (its Live rows) and its
// columns undecoded, or nil at the task's end. Batches whose rows are all deleted are skipped.
func (r *Reader) NextLazy() (columnar.Lazy, error) {
	for {
		if r.file == nil {
			return nil, nil
		}
		fb, err := r.file.NextLazy()
		if err != nil {
			return nil, err
		}
		if fb == nil {
			r.closeFile()
			return nil, nil
		}
		l, err := r.applyDeletes(fb)
		if err != nil || l == nil {
			fb.Release()
			if err != nil {
				return nil, err
			}
			continue
		}
		return l, nil
	}
}

// applyDeletes marks the batch's deleted rows; nil when every row was deleted (and they are
// dropped, not flagged).
func (r *Reader) applyDeletes(fb *parquet.LazyBatch) (*lazyBatch, error) {
	n := fb.NumRows()
	start := r.file.BatchStart()
	r.RowsRead += int64(n)
	if cap(r.flags) < n {
		r.flags = make([]bool, n)
	}
	flags := r.flags[:n]
	clear(flags)
	dels := r.deleted.mark(start, n, flags)
	for k, set := range r.eqSets {
		cols := make([]arrow.Array, len(r.eqCols[k]))
		release := func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}
		for j, c := range r.eqCols[k] {
			var err error
			if cols[j], err = fb.Column(c); err != nil {
				release()
				return nil, err
			}
		}
		m, err := set.mark(cols, n, flags)
		release()
		if err != nil {
			return nil, fmt.Errorf("iceberg data file %s: %w", r.task.Path, err)
		}
		dels += m
	}
	r.Deleted += int64(dels)
	l := &lazyBatch{r: r, file: fb, n: n, start: start, flags: flags}
	if dels > 0 && !r.hasDelCol {
		if dels == n {
			return nil, nil
		}
		live := r.live[:0]
		for i, d := range flags {
			if !d {
				live = append(live, int32(i))
			}
		}
		r.live = live
		l.live = live
	}
	return l, nil
}

// lazyBatch is a batch of the task's output columns over a batch of its data file: file
// columns decoded on demand (parquet.LazyBatch), constants, _pos and _deleted made for the rows
// asked for.
type lazyBatch struct {
	r     *Reader
	file  *parquet.LazyBatch
	n     int
	start int64
	live  []int32
	flags []bool
}

func (l *lazyBatch) NumRows() int  { return l.n }
func (l *lazyBatch) Live() []int32 { return l.live }
func (l *lazyBatch) Release()      { l.file.Release() }

func (l *lazyBatch) Column(i int) (arrow.Array, error) {
	r := l.r
	switch r.srcs[i] {
	case fromFile:
		return l.file.Column(r.fileIdx[i])
	case fromConstant:
		return columnar.Constant(r.alloc, r.scan.Columns[i].Type, r.consts[i], l.n)
	case fromPosition:
		return positionColumn(r.alloc, l.start, l.n, nil), nil
	default:
		return flagColumn(r.alloc, l.flags, nil), nil
	}
}

func (l *lazyBatch) Take(i int, sel []int32) (arrow.Array, error) {
	r := l.r
	switch r.srcs[i] {
	case fromFile:
		return l.file.Take(r.fileIdx[i], sel)
	case fromConstant:
		return columnar.Constant(r.alloc, r.scan.Columns[i].Type, r.consts[i], len(sel))
	case fromPosition:
		return positionColumn(r.alloc, l.start, l.n, sel), nil
	default:
		return flagColumn(r.alloc, l.flags, sel), nil
	}
}

func (l *lazyBatch) Codes(i int) ([]int32, arrow.Array, bool, error) {
	if l.r.srcs[i] != fromFile {
		return nil, nil, false, nil
	}
	return l.file.Codes(l.r.fileIdx[i])
}

func positionColumn(alloc memory.Allocator, start int64, n int, sel []int32) arrow.Array {
	bld := array.NewInt64Builder(alloc)
	defer bld.Release()
	if sel == nil {
		bld.Reserve(n)
		for i := 0; i < n; i++ {
			bld.UnsafeAppend(start + int64(i))
		}
	} else {
		bld.Reserve(len(sel))
		for _, i := range sel {
			bld.UnsafeAppend(start + int64(i))
		}
	}
	return bld.NewArray()
}

// flagColumn is _deleted over the rows sel (every row when nil).
func flagColumn(alloc memory.Allocator, flags []bool, sel []int32) arrow.Array {
	bld := array.NewBooleanBuilder(alloc)
	defer bld.Release()
	if sel == nil {
		bld.Reserve(len(flags))
		for _, f := range flags {
			bld.UnsafeAppend(f)
		}
	} else {
		bld.Reserve(len(sel))
		for _, i := range sel {
			bld.UnsafeAppend(flags[i])
		}
	}
	return bld.NewArray()
}

// positionDeletes returns the positions a positional delete file or deletion vector deletes in
// the data file.
func (r *Reader) positionDeletes(d *DeleteFile, dataPath string) (*Positions, error) {
	if d.IsDeletionVector() {
		blob, err := r.readRange(d.Path, *d.ContentOffset, *d.ContentSize)
		if err != nil {
			return nil, err
		}
		ps, err := decodeDeletionVector(blob)
		if err != nil {
			return nil, err
		}
		if d.RecordCount > 0 && int64(len(ps)) != d.RecordCount {
			return nil, fmt.Errorf("deletion vector holds %d positions, its metadata says %d", len(ps), d.RecordCount)
		}
		return newPositions(ps), nil
	}
	if d.Format != "PARQUET" {
		return nil, &parquet.UnsupportedError{What: "positional delete files in " + d.Format + " format"}
	}
	byData, ok := r.posFiles[d.Path]
	if !ok {
		var err error
		if byData, err = r.readPositionFile(d); err != nil {
			return nil, err
		}
		r.posFiles[d.Path] = byData
	}
	ps := byData[dataPath]
	if len(ps) == 0 {
		return nil, nil
	}
	return newPositions(append([]int64(nil), ps...)), nil
}

var positionFileFields = []sparktype.Field{
	{Name: "file_path", Type: sparktype.StringType}, {Name: "pos", Type: sparktype.LongType}}

func (r *Reader) readPositionFile(d *DeleteFile) (map[string][]int64, error) {
	spec := &parquet.ScanSpec{Columns: positionFileFields, FieldIDs: []int32{DeleteFilePathID, DeleteFilePosID},
		IDsByName: map[string]int32{"file_path": DeleteFilePathID, "pos": DeleteFilePosID}, CaseSensitive: true}
	f, closeFile, err := r.openWhole(d.Path, spec)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	if f.Missing(0) || f.Missing(1) {
		return nil, errors.New("not a positional delete file: no file_path and pos columns")
	}
	out := map[string][]int64{}
	for {
		b, err := f.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		offs, data := columnar.BinaryParts(b.Cols[0])
		pos := columnar.Values[int64](b.Cols[1])
		if b.Cols[0].NullN() > 0 || b.Cols[1].NullN() > 0 {
			b.Release()
			return nil, errors.New("null file_path or pos in a positional delete file")
		}
		// Rows are sorted by file_path: copy each path once per run (the batch's bytes die with it).
		var last string
		for i := 0; i < b.NumRows; i++ {
			p := data[offs[i]:offs[i+1]]
			if string(p) != last {
				last = string(p)
			}
			out[last] = append(out[last], pos[i])
		}
		b.Release()
	}
}

func (r *Reader) equalityDeletes(d *DeleteFile) (*equalitySet, error) {
	if set, ok := r.eqFiles[d.Path]; ok {
		return set, nil
	}
	if d.Format != "PARQUET" {
		return nil, &parquet.UnsupportedError{What: "equality delete files in " + d.Format + " format"}
	}
	if len(d.EqualityIDs) == 0 {
		return nil, errors.New("an equality delete file without equality field ids")
	}
	fields := make([]sparktype.Field, len(d.EqualityIDs))
	for i, id := range d.EqualityIDs {
		t, ok := r.fieldType[id]
		if !ok {
			return nil, unsupportedField(id)
		}
		fields[i] = sparktype.Field{Name: fmt.Sprintf("_eq_%d", id), Type: t, Nullable: true}
	}
	spec := &parquet.ScanSpec{Columns: fields, FieldIDs: d.EqualityIDs, CaseSensitive: true}
	if r.mapping != nil {
		spec.IDsByName = r.mapping.top
	}
	f, closeFile, err := r.openWhole(d.Path, spec)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	for i := range fields {
		if f.Missing(i) {
			return nil, fmt.Errorf("the file has no column with field id %d", d.EqualityIDs[i])
		}
	}
	set := newEqualitySet(d.EqualityIDs)
	for {
		b, err := f.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		err = set.add(b.Cols, b.NumRows)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	r.eqFiles[d.Path] = set
	return set, nil
}

// unsupportedField: an equality delete on a field the native reader cannot compare (nested, of a
// type it does not read, or gone from the table's schema). It is not an error of the data: the
// scan has Iceberg Java read that task instead.
func unsupportedField(id int32) error {
	return &parquet.UnsupportedError{What: fmt.Sprintf(
		"an equality delete on field id %d, which is not a top-level field of a type read natively", id)}
}

// openWhole opens all of a delete file for reading.
func (r *Reader) openWhole(loc string, spec *parquet.ScanSpec) (*parquet.Reader, func(), error) {
	obj, err := objstore.Open(r.ctx, loc, &r.scan.Storage.Config)
	if err != nil {
		return nil, nil, &parquet.FileError{Path: loc, Err: fmt.Errorf("open: %w", err)}
	}
	f, err := parquet.OpenReaderAt(loc, obj, obj.Size(), 0, math.MaxInt64, spec, r.alloc)
	if err != nil {
		obj.Close()
		return nil, nil, err
	}
	return f, func() { f.Close(); obj.Close() }, nil
}

// readRange reads [off, off+n) of an object (a deletion vector's blob in its Puffin file).
func (r *Reader) readRange(loc string, off, n int64) ([]byte, error) {
	obj, err := objstore.Open(r.ctx, loc, &r.scan.Storage.Config)
	if err != nil {
		return nil, &parquet.FileError{Path: loc, Err: fmt.Errorf("open: %w", err)}
	}
	defer obj.Close()
	if off < 0 || n < 0 || off+n > obj.Size() {
		return nil, fmt.Errorf("blob [%d, +%d) lies outside the file (%d bytes)", off, n, obj.Size())
	}
	buf := make([]byte, n)
	if _, err := obj.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && int64(len(buf)) == n) {
		return nil, fmt.Errorf("read blob [%d, +%d): %w", off, n, err)
	}
	return buf, nil
}

func (r *Reader) closeFile() {
	if r.file != nil {
		_ = r.file.Close()
		r.file = nil
	}
	if r.data != nil {
		_ = r.data.Close()
		r.data = nil
	}
}

// Close releases the current file.
func (r *Reader) Close() { r.closeFile() }
