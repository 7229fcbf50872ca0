package ops

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	bmemory "github.com/bolide-dev/bolide/native/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// source is a leaf operator over prepared batches of one int64 column "x".
type source struct {
	batches [][]int64
	i       int
	alloc   memory.Allocator
}

func (s *source) Schema() []sparktype.Field {
	return []sparktype.Field{{Name: "x", Type: sparktype.LongType, Nullable: true}}
}
func (s *source) Open(ctx *exec.TaskContext) error { s.alloc = ctx.Alloc; return nil }
func (s *source) Close()                           {}
func (s *source) Next() (*columnar.Batch, error) {
	if s.i >= len(s.batches) {
		return nil, nil
	}
	vals := s.batches[s.i]
	s.i++
	b := array.NewInt64Builder(s.alloc)
	defer b.Release()
	b.AppendValues(vals, nil)
	return columnar.NewBatch([]arrow.Array{b.NewArray()}, len(vals)), nil
}

func newCtx() *exec.TaskContext {
	return &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(nil), Conf: &plan.Conf{BatchSize: 4}}
}

func drain(t *testing.T, op exec.Operator, ctx *exec.TaskContext) []int64 {
	t.Helper()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []int64
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		if b.Cols[0].Len() != b.NumRows {
			t.Fatalf("batch of %d rows has a column of %d", b.NumRows, b.Cols[0].Len())
		}
		out = append(out, b.Cols[0].(*array.Int64).Int64Values()...)
		b.Release()
	}
	op.Close()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
	return out
}

func translateExpr(t *testing.T, js string) expr.Expr {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatal(err)
	}
	x, err := expr.Translate(&e, &plan.Conf{})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

const cat = "org.apache.spark.sql.catalyst.expressions."

// x > 2
var xGreaterThan2 = `{"class":"` + cat + `GreaterThan","dataType":"boolean","nullable":true,"fields":{
 "left":{"class":"` + cat + `AttributeReference","dataType":"long","nullable":true,"fields":{},"ordinal":0,"name":"x"},
 "right":{"class":"` + cat + `Literal","dataType":"long","nullable":false,"fields":{"value":2}}}}`

func TestFilterSelectsPassesAndSkips(t *testing.T) {
	src := &source{batches: [][]int64{{1, 2, 3, 4}, {0, 1}, {5, 6}, {}, {2, 9}}}
	f, err := NewFilter(src, translateExpr(t, xGreaterThan2))
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, f, newCtx())
	if want := []int64{3, 4, 5, 6, 9}; !equal(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
}

func TestFilterRefusesNonBoolean(t *testing.T) {
	x := translateExpr(t, `{"class":"`+cat+`AttributeReference","dataType":"long","nullable":true,"fields":{},"ordinal":0}`)
	if _, err := NewFilter(&source{}, x); err == nil || !strings.Contains(err.Error(), "not boolean") {
		t.Errorf("want a refusal, got %v", err)
	}
}

func TestProjectEvaluates(t *testing.T) {
	src := &source{batches: [][]int64{{1, 2}, {3}}}
	add := `{"class":"` + cat + `Add","dataType":"long","nullable":true,"fields":{
 "left":{"class":"` + cat + `AttributeReference","dataType":"long","nullable":true,"fields":{},"ordinal":0},
 "right":{"class":"` + cat + `Literal","dataType":"long","nullable":false,"fields":{"value":10}},
 "evalContext":{"class":"` + cat + `NumericEvalContext","fields":{"evalMode":"ANSI","allowDecimalPrecisionLoss":true}}}}`
	p := NewProject(src, []expr.Expr{translateExpr(t, add)},
		[]sparktype.Field{{Name: "y", Type: sparktype.LongType, Nullable: true}})
	if got := drain(t, p, newCtx()); !equal(got, []int64{11, 12, 13}) {
		t.Errorf("got %v", got)
	}
}

func TestLimitAndOffsetAcrossBatches(t *testing.T) {
	cases := []struct {
		limit, offset int64
		want          []int64
	}{
		{3, 0, []int64{0, 1, 2}},
		{5, 2, []int64{2, 3, 4, 5, 6}},
		{-1, 6, []int64{6, 7, 8, 9}},
		{0, 0, nil},
		{100, 0, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{2, 9, []int64{9}},
	}
	for _, c := range cases {
		src := &source{batches: [][]int64{{0, 1, 2, 3}, {4, 5}, {6, 7, 8, 9}}}
		got := drain(t, NewLimit(src, c.limit, c.offset), newCtx())
		if !equal(got, c.want) {
			t.Errorf("limit %d offset %d: got %v want %v", c.limit, c.offset, got, c.want)
		}
	}
}

// The scan appends Hive-style partition values as constant columns after the data columns.
func TestParquetScanWithPartitionColumns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "part-0.parquet")
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3, 4, 5}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 5)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	col.Release()
	b.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	data := []sparktype.Field{{Name: "x", Type: sparktype.LongType, Nullable: true}}
	parts := []sparktype.Field{{Name: "p", Type: sparktype.StringType, Nullable: true},
		{Name: "q", Type: sparktype.IntType, Nullable: true}}
	scan := NewParquetScan("3", data, parts, nil, FileErrorPolicy{})
	ctx := newCtx()
	ctx.Conf.BatchSize = 8
	ctx.Files = map[string][]plan.PartitionedFile{"3": {{Path: "file://" + path, Start: 0, Length: st.Size(),
		FileSize: st.Size(), PartitionValues: []json.RawMessage{json.RawMessage(`{"b64":"YWI="}`), json.RawMessage(`null`)}}}}
	if err := scan.Open(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := scan.Next()
	if err != nil {
		t.Fatal(err)
	}
	if out.NumRows != 5 || len(out.Cols) != 3 || out.Cols[1].ValueStr(4) != "ab" || !out.Cols[2].IsNull(0) {
		t.Fatalf("unexpected batch: %d rows, %d cols", out.NumRows, len(out.Cols))
	}
	out.Release()
	if b, err := scan.Next(); b != nil || err != nil {
		t.Fatalf("want end, got %v %v", b, err)
	}
	scan.Close()

	// A corrupt file's error names the file.
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("PAR1 not really parquet PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	scan = NewParquetScan("3", data, nil, nil, FileErrorPolicy{})
	ctx.Files = map[string][]plan.PartitionedFile{"3": {{Path: bad, Length: 28, FileSize: 28}}}
	if err := scan.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := scan.Next(); err == nil || !strings.Contains(err.Error(), "bad.parquet") {
		t.Errorf("want an error naming the file, got %v", err)
	}
	scan.Close()
}

// Unreadable files under Spark's ignoreCorruptFiles / ignoreMissingFiles, and Spark's error
// classes without them: FAILED_READ_FILE.NO_HINT, .FILE_NOT_EXIST and
// .PARQUET_COLUMN_DATA_TYPE_MISMATCH, each naming the file once.
func TestParquetScanFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeInt64Parquet(t, good, []int64{1, 2, 3})
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("PAR1 not really parquet PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone.parquet")
	split := func(p string) plan.PartitionedFile {
		return plan.PartitionedFile{Path: "file://" + p, Length: 1 << 30, FileSize: 1 << 30}
	}
	data := []sparktype.Field{{Name: "x", Type: sparktype.LongType, Nullable: true}}
	run := func(policy FileErrorPolicy, cols []sparktype.Field, files ...string) (int, error) {
		ctx := newCtx()
		var splits []plan.PartitionedFile
		for _, f := range files {
			splits = append(splits, split(f))
		}
		ctx.Files = map[string][]plan.PartitionedFile{"1": splits}
		scan := NewParquetScan("1", cols, nil, nil, policy)
		defer scan.Close()
		if err := scan.Open(ctx); err != nil {
			t.Fatal(err)
		}
		rows := 0
		for {
			b, err := scan.Next()
			if err != nil || b == nil {
				return rows, err
			}
			rows += b.NumRows
			b.Release()
		}
	}
	expect := func(name string, err error, class string, params map[string]string) {
		t.Helper()
		se, ok := exec.AsSparkError(err)
		if !ok || se.Class != class {
			t.Fatalf("%s: want %s, got %v", name, class, err)
		}
		for k, v := range params {
			if se.Params[k] != v {
				t.Errorf("%s: parameter %s = %q, want %q", name, k, se.Params[k], v)
			}
		}
		if strings.Contains(se.Cause.Error(), dir) {
			t.Errorf("%s: the cause repeats the path: %v", name, se.Cause)
		}
	}
	_, err := run(FileErrorPolicy{}, data, good, bad)
	expect("corrupt", err, "FAILED_READ_FILE.NO_HINT", map[string]string{"path": "file://" + bad})
	_, err = run(FileErrorPolicy{}, data, gone)
	expect("missing", err, "FAILED_READ_FILE.FILE_NOT_EXIST", map[string]string{"path": "file://" + gone})
	// ignoreCorruptFiles alone does not skip missing files (Spark rethrows FileNotFoundException).
	_, err = run(FileErrorPolicy{IgnoreCorrupt: true}, data, gone)
	expect("missing, corrupt ignored", err, "FAILED_READ_FILE.FILE_NOT_EXIST", nil)
	_, err = run(FileErrorPolicy{IgnoreMissing: true}, data, bad)
	expect("corrupt, missing ignored", err, "FAILED_READ_FILE.NO_HINT", nil)
	_, err = run(FileErrorPolicy{}, []sparktype.Field{{Name: "x", Type: sparktype.IntType, Nullable: true}}, good)
	expect("mismatch", err, "FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH",
		map[string]string{"column": "[x]", "expectedType": "int", "actualType": "INT64"})

	if n, err := run(FileErrorPolicy{IgnoreCorrupt: true}, data, bad, good, bad); err != nil || n != 3 {
		t.Errorf("ignoreCorruptFiles: %d rows, %v", n, err)
	}
	if n, err := run(FileErrorPolicy{IgnoreMissing: true}, data, gone, good); err != nil || n != 3 {
		t.Errorf("ignoreMissingFiles: %d rows, %v", n, err)
	}
	// Garbage in the leading magic: Spark (parquet-mr) checks only the trailing one.
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	copy(raw, "XXXX")
	lead := filepath.Join(dir, "lead.parquet")
	if err := os.WriteFile(lead, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := run(FileErrorPolicy{}, data, lead); err != nil || n != 3 {
		t.Errorf("damaged leading magic: %d rows, %v", n, err)
	}
}

// A file the native reader cannot decode goes to the task's FileFallback (Spark's reader in the
// JVM), in the scan's order; without one it fails with Spark's error class, never skipped as
// corrupt.
func TestParquetScanHandsUnreadableFilesToSpark(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeInt64Parquet(t, good, []int64{1, 2, 3})
	lz4 := filepath.Join(dir, "lz4.parquet")
	writeInt64Parquet(t, lz4, []int64{10, 20}, parquet.WithCompression(compress.Codecs.Lz4Raw))
	data := []sparktype.Field{{Name: "x", Type: sparktype.LongType, Nullable: true}}
	split := func(p string) plan.PartitionedFile {
		return plan.PartitionedFile{Path: "file://" + p, Length: 1 << 30, FileSize: 1 << 30}
	}
	run := func(fb exec.FileFallback, policy FileErrorPolicy) ([]int64, error) {
		ctx := newCtx()
		ctx.Fallback = fb
		ctx.Files = map[string][]plan.PartitionedFile{"7": {split(good), split(lz4), split(good)}}
		scan := NewParquetScan("7", data, nil, nil, policy)
		defer scan.Close()
		if err := scan.Open(ctx); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for {
			b, err := scan.Next()
			if err != nil || b == nil {
				return got, err
			}
			got = append(got, b.Cols[0].(*array.Int64).Int64Values()...)
			b.Release()
		}
	}
	fb := &fakeFallback{t: t, rows: []int64{-10, -20}}
	got, err := run(fb, FileErrorPolicy{})
	if err != nil || !equal(got, []int64{1, 2, 3, -10, -20, 1, 2, 3}) || len(fb.opened) != 1 || fb.opened[0] != "7/1" {
		t.Fatalf("got %v, %v; fallback opened %v", got, err, fb.opened)
	}
	_, err = run(nil, FileErrorPolicy{IgnoreCorrupt: true})
	if se, ok := exec.AsSparkError(err); !ok || se.Class != "FAILED_READ_FILE.NO_HINT" || !strings.Contains(err.Error(), "LZ4_RAW") {
		t.Fatalf("without a fallback: %v", err)
	}
}

type fakeFallback struct {
	t      *testing.T
	rows   []int64
	opened []string
}

func (f *fakeFallback) OpenFile(scan string, file int) (exec.InputSource, error) {
	f.opened = append(f.opened, fmt.Sprintf("%s/%d", scan, file))
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(f.rows, nil)
	return &onceSource{b: columnar.NewBatch([]arrow.Array{b.NewArray()}, len(f.rows))}, nil
}

type onceSource struct{ b *columnar.Batch }

func (s *onceSource) Next() (*columnar.Batch, error) {
	b := s.b
	s.b = nil
	return b, nil
}

func writeInt64Parquet(t *testing.T, path string, vals []int64, opts ...parquet.WriterProperty) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
