package parquet

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	memalloc "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// tcol is a test column: its Parquet node, the Spark type it is read as, and a generator of the
// written value and the value expected back (nil = null).
type tcol struct {
	name  string
	node  pq.Node
	spark sparktype.Type
	gen   func(i int) (pq.Value, any)
}

// writeFile writes n rows of the columns and returns the path.
func writeFile(t testing.TB, cols []tcol, n int, opts ...pq.WriterOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeFileAt(t, path, cols, n, opts...)
	return path
}

func writeFileAt(t testing.TB, path string, cols []tcol, n int, opts ...pq.WriterOption) {
	t.Helper()
	g := pq.Group{}
	for _, c := range cols {
		g[c.name] = c.node
	}
	schema := pq.NewSchema("spark_schema", g)
	idx := make([]int, len(cols))
	opt := make([]bool, len(cols))
	for i, c := range cols {
		lc, ok := schema.Lookup(c.name)
		if !ok {
			t.Fatalf("no column %s", c.name)
		}
		idx[i] = lc.ColumnIndex
		opt[i] = lc.MaxDefinitionLevel > 0
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewWriter(f, append([]pq.WriterOption{schema}, opts...)...)
	rows := make([]pq.Row, 0, 1024)
	flush := func() {
		if _, err := w.WriteRows(rows); err != nil {
			t.Fatal(err)
		}
		rows = rows[:0]
	}
	for r := 0; r < n; r++ {
		row := make(pq.Row, len(cols))
		for i, c := range cols {
			v, _ := c.gen(r)
			def := 0
			if opt[i] && !v.IsNull() {
				def = 1
			}
			row[idx[i]] = v.Level(0, def, idx[i])
		}
		rows = append(rows, row)
		if len(rows) == cap(rows) {
			flush()
		}
	}
	flush()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func fields(cols []tcol) []sparktype.Field {
	fs := make([]sparktype.Field, len(cols))
	for i, c := range cols {
		fs[i] = sparktype.Field{Name: c.name, Type: c.spark, Nullable: true}
	}
	return fs
}

// cell returns a normalized Go value of arr[i]: nil, bool, int64, float64, string, []byte,
// decimal128.Num.
func cell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		// A copy: the value views the batch's buffer, which readAll releases next.
		return strings.Clone(a.Value(i))
	case *array.Binary:
		return bytes.Clone(a.Value(i))
	case *array.Decimal128:
		return a.Value(i)
	}
	panic(fmt.Sprintf("cell: %T", a))
}

func equalCell(a, b any) bool {
	ab, ok1 := a.([]byte)
	bb, ok2 := b.([]byte)
	if ok1 || ok2 {
		return ok1 && ok2 && bytes.Equal(ab, bb)
	}
	return a == b
}

// readAll reads every batch, checks types, and returns rows of cells plus the stats.
func readAll(t testing.TB, path string, start, length int64, spec *ScanSpec, mem memory.Allocator) ([][]any, Stats) {
	t.Helper()
	r, err := Open(path, start, length, spec, mem)
	if err != nil {
		t.Fatal(err)
	}
	return readRest(t, r, spec)
}

// readRest is readAll after Open: it reads r to its end and closes it.
func readRest(t testing.TB, r *Reader, spec *ScanSpec) ([][]any, Stats) {
	t.Helper()
	var rows [][]any
	for {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		if len(b.Cols) != len(spec.Columns) {
			t.Fatalf("got %d columns, want %d", len(b.Cols), len(spec.Columns))
		}
		for j, c := range b.Cols {
			if !arrow.TypeEqual(c.DataType(), spec.Columns[j].Type.Arrow()) {
				t.Fatalf("column %s: type %s, want %s", spec.Columns[j].Name, c.DataType(), spec.Columns[j].Type.Arrow())
			}
			if c.Len() != b.NumRows {
				t.Fatalf("column %s: %d rows, batch has %d", spec.Columns[j].Name, c.Len(), b.NumRows)
			}
			if v, ok := c.(interface{ ValidateFull() error }); ok {
				if err := v.ValidateFull(); err != nil {
					t.Fatalf("column %s: %v", spec.Columns[j].Name, err)
				}
			}
			if got := c.NullN(); got != countNulls(c) {
				t.Fatalf("column %s: NullN %d, bitmap says %d", spec.Columns[j].Name, got, countNulls(c))
			}
		}
		for i := 0; i < b.NumRows; i++ {
			row := make([]any, len(b.Cols))
			for j, c := range b.Cols {
				row[j] = cell(c, i)
			}
			rows = append(rows, row)
		}
		b.Release()
	}
	st := r.Stats()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return rows, st
}

func countNulls(a arrow.Array) int {
	n := 0
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			n++
		}
	}
	return n
}

// checkedAlloc is the engine's allocator (C memory, checking mode in tests: freed buffers are
// poisoned and quarantined, double frees caught); a test that leaves buffers live fails with
// their allocation sites.
func checkedAlloc(t testing.TB) *memalloc.TaskAllocator {
	mem := memalloc.NewTaskAllocator(nil)
	t.Cleanup(func() {
		if n, _ := mem.Live(); n != 0 {
			t.Errorf("leaked %d bytes:\n%s", n, mem.LeakReport())
		}
		mem.ReleaseAll()
	})
	return mem
}

// ---- generators ------------------------------------------------------------------------------

func isNull(i, every int) bool { return every > 0 && i%every == every-1 }

func gInt64(every int, f func(i int) int64) func(int) (pq.Value, any) {
	return func(i int) (pq.Value, any) {
		if isNull(i, every) {
			return pq.NullValue(), nil
		}
		v := f(i)
		return pq.Int64Value(v), v
	}
}

func gInt32(every int, f func(i int) int32) func(int) (pq.Value, any) {
	return func(i int) (pq.Value, any) {
		if isNull(i, every) {
			return pq.NullValue(), nil
		}
		v := f(i)
		return pq.Int32Value(v), int64(v)
	}
}

func int96Of(micros int64) deprecated.Int96 {
	day := micros / microsPerDay
	rem := micros % microsPerDay
	if rem < 0 {
		rem += microsPerDay
		day--
	}
	nanos := uint64(rem) * 1000
	jd := uint32(day + julianDayOfEpoch)
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), jd}
}

// beBytes encodes v as a big-endian two's complement of n bytes.
func beBytes(v decimal128.Num, n int) []byte {
	out := make([]byte, n)
	lo, hi := v.LowBits(), uint64(v.HighBits())
	for i := n - 1; i >= 0; i-- {
		out[i] = byte(lo)
		lo = lo>>8 | hi<<56
		hi = uint64(int64(hi) >> 8)
	}
	return out
}

// minimalBE is the shortest big-endian two's complement of v (what Spark writes for BYTE_ARRAY decimals).
func minimalBE(v decimal128.Num) []byte {
	b := beBytes(v, 16)
	for len(b) > 1 && (b[0] == 0 && b[1]&0x80 == 0 || b[0] == 0xff && b[1]&0x80 != 0) {
		b = b[1:]
	}
	return b
}
