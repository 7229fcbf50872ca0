package parquet

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	aparquet "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// arrowFile writes n rows with arrow-go's pqarrow writer (another writer than parquet-go: v1
// pages, no page CRCs, INT96 timestamps when int96 is set) and returns the path and the
// expected rows.
func arrowFile(t testing.TB, n int, int96, stats bool) (string, []sparktype.Field, [][]any) {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 25, Scale: 2}, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "sh", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	}, nil)
	fs := []sparktype.Field{
		{Name: "i", Type: sparktype.LongType}, {Name: "s", Type: sparktype.StringType},
		{Name: "dec", Type: sparktype.DecimalOf(25, 2)}, {Name: "dt", Type: sparktype.DateType},
		{Name: "ts", Type: sparktype.TimestampType}, {Name: "b", Type: sparktype.BooleanType},
		{Name: "f", Type: sparktype.DoubleType}, {Name: "sh", Type: sparktype.ShortType},
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var want [][]any
	for r := 0; r < n; r++ {
		row := make([]any, len(fs))
		null := func(k int) bool { return (r+k)%7 == 0 }
		if null(0) {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(r) * 11)
			row[0] = int64(r) * 11
		}
		if null(1) {
			b.Field(1).AppendNull()
		} else {
			s := fmt.Sprint("v", r%37)
			b.Field(1).(*array.StringBuilder).Append(s)
			row[1] = s
		}
		if null(2) {
			b.Field(2).AppendNull()
		} else {
			d := decimal128.FromI64(int64(r) - 1000).Mul(decimal128.FromU64(1e15))
			b.Field(2).(*array.Decimal128Builder).Append(d)
			row[2] = d
		}
		if null(3) {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(r - 3000))
			row[3] = int64(r - 3000)
		}
		if null(4) {
			b.Field(4).AppendNull()
		} else {
			v := int64(r)*3600_000_000 - 1e15 // micros, whole: INT96 keeps them
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			row[4] = v
		}
		if null(5) {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.BooleanBuilder).Append(r%3 == 1)
			row[5] = r%3 == 1
		}
		if null(6) {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.Float64Builder).Append(float64(r) / 4)
			row[6] = float64(r) / 4
		}
		if null(7) {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.Int16Builder).Append(int16(r))
			row[7] = int64(int16(r))
		}
		want = append(want, row)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "arrow.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := aparquet.NewWriterProperties(aparquet.WithStats(stats), aparquet.WithMaxRowGroupLength(1000),
		aparquet.WithDataPageSize(1024), aparquet.WithCompression(compress.Codecs.Snappy),
		aparquet.WithDictionaryFor("f", false))
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(int96))
	w, err := pqarrow.NewFileWriter(schema, f, props, aprops)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, fs, want
}

func TestArrowWrittenFiles(t *testing.T) {
	for _, int96 := range []bool{false, true} {
		t.Run(fmt.Sprint("int96=", int96), func(t *testing.T) {
			path, fs, want := arrowFile(t, 4500, int96, true)
			rows, st := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fs, BatchSize: 1234}, checkedAlloc(t))
			if len(rows) != len(want) || st.RowGroupsRead != 5 {
				t.Fatalf("%d rows, %+v", len(rows), st)
			}
			for i := range want {
				for j := range fs {
					if !equalCell(rows[i][j], want[i][j]) {
						t.Fatalf("row %d col %s: %v want %v", i, fs[j].Name, rows[i][j], want[i][j])
					}
				}
			}
			// statistics written by another writer prune too
			spec := &ScanSpec{Columns: fs, Filters: []Predicate{{Column: "i", Op: ">=", Values: []Value{int64(4000 * 11)}}}}
			_, st = readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
			if st.RowGroupsSkippedByStats != 4 {
				t.Fatalf("%+v", st)
			}
		})
	}
}

func TestNoStatisticsNeverSkips(t *testing.T) {
	path, fs, _ := arrowFile(t, 3000, false, false)
	for _, pr := range []Predicate{
		{Column: "i", Op: "=", Values: []Value{int64(-1)}},
		{Column: "i", Op: "isnull"},
		{Column: "i", Op: "isnotnull"},
		{Column: "s", Op: "<", Values: []Value{""}},
	} {
		rows, st := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fs, Filters: []Predicate{pr}}, checkedAlloc(t))
		if st.RowGroupsSkippedByStats != 0 || len(rows) != 3000 {
			t.Fatalf("%v: %+v", pr, st)
		}
	}
}

// TestDamagedPagesNoCRC damages the pages of a file without page checksums, so that the damage
// reaches the decoders.
func TestDamagedPagesNoCRC(t *testing.T) {
	path, fs, _ := arrowFile(t, 3000, true, true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	footerLen := int(uint32(data[len(data)-8]) | uint32(data[len(data)-7])<<8 | uint32(data[len(data)-6])<<16 | uint32(data[len(data)-5])<<24)
	footerStart := len(data) - 8 - footerLen
	rng := rand.New(rand.NewSource(3))
	dir := t.TempDir()
	results := map[string]int{}
	for k := 0; k < 200; k++ {
		b := append([]byte(nil), data...)
		for j := 0; j < 1+k%3; j++ {
			b[4+rng.Intn(footerStart-4)] ^= byte(1 + rng.Intn(255))
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d.parquet", k))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		mem := checkedAlloc(t)
		r, err := Open(p, 0, math.MaxInt64, &ScanSpec{Columns: fs}, mem)
		if err != nil {
			results["open error"]++
			continue
		}
		for {
			bt, err := r.Next()
			if err != nil {
				if !strings.Contains(err.Error(), p) {
					t.Fatalf("error %q does not name the file", err)
				}
				if strings.Contains(err.Error(), "corrupt file (") {
					results["recovered panic"]++
				} else {
					results["error"]++
				}
				break
			}
			if bt == nil {
				results["read fine"]++
				break
			}
			for _, c := range bt.Cols {
				if v, ok := c.(interface{ ValidateFull() error }); ok {
					if err := v.ValidateFull(); err != nil {
						t.Fatalf("invalid array from damaged file: %v", err)
					}
				}
			}
			bt.Release()
		}
		r.Close()
	}
	t.Logf("%v", results)
}
