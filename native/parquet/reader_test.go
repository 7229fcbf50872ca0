package parquet

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/bolide-dev/bolide/native/sparktype"
)

func enc(n pq.Node, e encoding.Encoding) pq.Node {
	if e == nil {
		return n
	}
	return pq.Encoded(n, e)
}

// allTypes returns one column per supported type; dict selects dictionary encoding where the
// type allows it, delta selects DELTA encodings for ints and strings.
func allTypes(dict, delta bool) []tcol {
	var intEnc, strEnc encoding.Encoding = &pq.Plain, &pq.Plain
	switch {
	case dict:
		intEnc, strEnc = &pq.RLEDictionary, &pq.RLEDictionary
	case delta:
		intEnc, strEnc = &pq.DeltaBinaryPacked, &pq.DeltaLengthByteArray
	}
	var anyEnc encoding.Encoding
	if dict {
		anyEnc = &pq.RLEDictionary
	}
	var baEnc encoding.Encoding = strEnc
	if delta {
		baEnc = &pq.DeltaByteArray
	}
	bigTs := time.Date(2800, 3, 4, 5, 6, 7, 123456000, time.UTC).UnixMicro() // beyond 2262
	oldTs := time.Date(1000, 1, 2, 3, 4, 5, 654321000, time.UTC).UnixMicro() // before 1677
	return []tcol{
		{"c_bool", pq.Optional(pq.Leaf(pq.BooleanType)), sparktype.BooleanType, func(i int) (pq.Value, any) {
			if isNull(i, 5) {
				return pq.NullValue(), nil
			}
			v := i%3 == 0
			return pq.BooleanValue(v), v
		}},
		{"c_bool_rle", pq.Optional(pq.Encoded(pq.Leaf(pq.BooleanType), &pq.RLE)), sparktype.BooleanType, func(i int) (pq.Value, any) {
			if isNull(i, 9) {
				return pq.NullValue(), nil
			}
			v := (i/7)%2 == 0
			return pq.BooleanValue(v), v
		}},
		{"c_byte", pq.Optional(enc(pq.Int(8), intEnc)), sparktype.ByteType, gInt32(4, func(i int) int32 { return int32(int8(i*7 - 100)) })},
		{"c_short", pq.Optional(enc(pq.Int(16), intEnc)), sparktype.ShortType, gInt32(6, func(i int) int32 { return int32(int16(i*311 - 20000)) })},
		{"c_int", pq.Optional(enc(pq.Int(32), intEnc)), sparktype.IntType, gInt32(7, func(i int) int32 { return int32(i%50) * -123457 })},
		{"c_int_req", pq.Required(enc(pq.Leaf(pq.Int32Type), intEnc)), sparktype.IntType, gInt32(0, func(i int) int32 { return int32(i) })},
		{"c_long", pq.Optional(enc(pq.Int(64), intEnc)), sparktype.LongType, gInt64(3, func(i int) int64 { return int64(i%100)*1e12 - 7 })},
		{"c_long_req", pq.Required(enc(pq.Leaf(pq.Int64Type), intEnc)), sparktype.LongType, gInt64(0, func(i int) int64 { return int64(i) * 3 })},
		{"c_float", pq.Optional(enc(pq.Leaf(pq.FloatType), anyEnc)), sparktype.FloatType, func(i int) (pq.Value, any) {
			if isNull(i, 8) {
				return pq.NullValue(), nil
			}
			v := float32(i%40) * 1.5
			return pq.FloatValue(v), float64(v)
		}},
		{"c_float_wide", pq.Optional(pq.Leaf(pq.FloatType)), sparktype.DoubleType, func(i int) (pq.Value, any) {
			if isNull(i, 8) {
				return pq.NullValue(), nil
			}
			v := float32(i) / 3
			return pq.FloatValue(v), float64(v)
		}},
		{"c_double", pq.Optional(enc(pq.Leaf(pq.DoubleType), anyEnc)), sparktype.DoubleType, func(i int) (pq.Value, any) {
			if isNull(i, 10) {
				return pq.NullValue(), nil
			}
			v := float64(i%30) / 7
			if i%97 == 0 {
				v = math.Inf(-1)
			}
			return pq.DoubleValue(v), v
		}},
		{"c_int_as_long", pq.Optional(pq.Int(32)), sparktype.LongType, gInt32(11, func(i int) int32 { return -int32(i) })},
		{"c_string", pq.Optional(enc(pq.String(), strEnc)), sparktype.StringType, func(i int) (pq.Value, any) {
			if isNull(i, 4) {
				return pq.NullValue(), nil
			}
			s := fmt.Sprintf("value-%d", i%57)
			if i%13 == 0 {
				s = ""
			}
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"c_string_long", pq.Optional(enc(pq.String(), baEnc)), sparktype.StringType, func(i int) (pq.Value, any) {
			if isNull(i, 6) {
				return pq.NullValue(), nil
			}
			s := strings.Repeat(string(rune('a'+i%26)), i%200) + fmt.Sprint(i)
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"c_binary", pq.Optional(enc(pq.Leaf(pq.ByteArrayType), strEnc)), sparktype.BinaryType, func(i int) (pq.Value, any) {
			if isNull(i, 3) {
				return pq.NullValue(), nil
			}
			b := []byte{byte(i), 0, byte(i >> 8), 0xff}[:i%5]
			return pq.ByteArrayValue(b), b
		}},
		{"c_fixed", pq.Optional(enc(pq.Leaf(pq.FixedLenByteArrayType(5)), anyEnc)), sparktype.BinaryType, func(i int) (pq.Value, any) {
			if isNull(i, 7) {
				return pq.NullValue(), nil
			}
			b := []byte{byte(i), byte(i >> 8), 1, 2, byte(i % 3)}
			return pq.FixedLenByteArrayValue(b), b
		}},
		{"c_date", pq.Optional(enc(pq.Date(), intEnc)), sparktype.DateType, gInt32(5, func(i int) int32 { return int32(i%1000) - 500 })},
		{"c_dec32", pq.Optional(enc(pq.Decimal(2, 9, pq.Int32Type), intEnc)), sparktype.DecimalOf(9, 2), func(i int) (pq.Value, any) {
			if isNull(i, 6) {
				return pq.NullValue(), nil
			}
			v := int32(i%1000)*997 - 400000
			return pq.Int32Value(v), decimal128.FromI64(int64(v))
		}},
		{"c_dec64", pq.Optional(enc(pq.Decimal(3, 18, pq.Int64Type), intEnc)), sparktype.DecimalOf(18, 3), func(i int) (pq.Value, any) {
			if isNull(i, 6) {
				return pq.NullValue(), nil
			}
			v := int64(i%1000)*123456789013 - 5e13
			return pq.Int64Value(v), decimal128.FromI64(v)
		}},
		{"c_dec_widen", pq.Optional(pq.Decimal(2, 9, pq.Int32Type)), sparktype.DecimalOf(12, 2), func(i int) (pq.Value, any) {
			if isNull(i, 6) {
				return pq.NullValue(), nil
			}
			v := int32(i)
			return pq.Int32Value(v), decimal128.FromI64(int64(v))
		}},
		{"c_dec_flba", pq.Optional(enc(pq.Decimal(4, 30, pq.FixedLenByteArrayType(13)), anyEnc)), sparktype.DecimalOf(30, 4), func(i int) (pq.Value, any) {
			if isNull(i, 5) {
				return pq.NullValue(), nil
			}
			v := decimal128.FromI64(int64(i%500) - 250).Mul(decimal128.FromU64(1e18)).Add(decimal128.FromI64(int64(i)))
			return pq.FixedLenByteArrayValue(beBytes(v, 13)), v
		}},
		{"c_dec_ba", pq.Optional(enc(pq.Decimal(2, 25, pq.ByteArrayType), strEnc)), sparktype.DecimalOf(25, 2), func(i int) (pq.Value, any) {
			if isNull(i, 5) {
				return pq.NullValue(), nil
			}
			v := decimal128.FromI64(int64(i%300) - 150).Mul(decimal128.FromU64(1e17)).Sub(decimal128.FromI64(int64(i)))
			return pq.ByteArrayValue(minimalBE(v)), v
		}},
		{"c_ts_micros", pq.Optional(enc(pq.Timestamp(pq.Microsecond), intEnc)), sparktype.TimestampType, gInt64(4, func(i int) int64 {
			return 1700000000000000 + int64(i%500)*1000003
		})},
		{"c_ts_millis", pq.Optional(enc(pq.Timestamp(pq.Millisecond), intEnc)), sparktype.TimestampType, func(i int) (pq.Value, any) {
			if isNull(i, 4) {
				return pq.NullValue(), nil
			}
			v := int64(1600000000000) + int64(i%500)*1003
			return pq.Int64Value(v), v * 1000
		}},
		{"c_ts_ntz", pq.Optional(enc(pq.TimestampAdjusted(pq.Microsecond, false), intEnc)), sparktype.TimestampNTZType, gInt64(4, func(i int) int64 {
			return -1000000 + int64(i%500)*17
		})},
		{"c_ts_ntz_as_ts", pq.Optional(pq.TimestampAdjusted(pq.Millisecond, false)), sparktype.TimestampType, func(i int) (pq.Value, any) {
			if isNull(i, 4) {
				return pq.NullValue(), nil
			}
			v := int64(i) * 86400000
			return pq.Int64Value(v), v * 1000
		}},
		{"c_int96", pq.Optional(enc(pq.Leaf(pq.Int96Type), anyEnc)), sparktype.TimestampType, func(i int) (pq.Value, any) {
			if isNull(i, 4) {
				return pq.NullValue(), nil
			}
			var v int64
			switch i % 4 {
			case 0:
				v = bigTs + int64(i%50)
			case 1:
				v = oldTs - int64(i%50)*1000
			default:
				v = 1700000000123456 - int64(i%50)*3600000000
			}
			return pq.Int96Value(int96Of(v)), v
		}},
		{"c_uint8", pq.Optional(pq.Uint(8)), sparktype.ShortType, gInt32(5, func(i int) int32 { return int32(uint8(i * 13)) })},
		{"c_uint16", pq.Optional(pq.Uint(16)), sparktype.IntType, gInt32(5, func(i int) int32 { return int32(uint16(i * 1013)) })},
		{"c_uint32", pq.Optional(pq.Uint(32)), sparktype.LongType, func(i int) (pq.Value, any) {
			if isNull(i, 5) {
				return pq.NullValue(), nil
			}
			v := uint32(4000000000) + uint32(i)
			return pq.Int32Value(int32(v)), int64(v)
		}},
		{"c_uint64", pq.Optional(pq.Uint(64)), sparktype.DecimalOf(20, 0), func(i int) (pq.Value, any) {
			if isNull(i, 5) {
				return pq.NullValue(), nil
			}
			v := uint64(math.MaxUint64) - uint64(i)
			return pq.Int64Value(int64(v)), decimal128.FromU64(v)
		}},
	}
}

func checkRows(t *testing.T, cols []tcol, rows [][]any, n int) {
	t.Helper()
	if len(rows) != n {
		t.Fatalf("got %d rows, want %d", len(rows), n)
	}
	for i, row := range rows {
		for j, c := range cols {
			_, want := c.gen(i)
			if !equalCell(row[j], want) {
				t.Fatalf("row %d column %s: got %v (%T), want %v (%T)", i, c.name, row[j], row[j], want, want)
			}
		}
	}
}

func TestAllTypes(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		name        string
		dict, delta bool
		opts        []pq.WriterOption
	}{
		{"plain_v2", false, false, nil},
		{"plain_v1_snappy", false, false, []pq.WriterOption{pq.DataPageVersion(1), pq.Compression(&pq.Snappy)}},
		{"dict_v2_zstd", true, false, []pq.WriterOption{pq.Compression(&pq.Zstd)}},
		{"dict_v1", true, false, []pq.WriterOption{pq.DataPageVersion(1)}},
		{"delta_v2", false, true, nil},
		{"delta_v1_snappy", false, true, []pq.WriterOption{pq.DataPageVersion(1), pq.Compression(&pq.Snappy)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cols := allTypes(tc.dict, tc.delta)
			opts := append([]pq.WriterOption{pq.PageBufferSize(2048), pq.MaxRowsPerRowGroup(1700)}, tc.opts...)
			path := writeFile(t, cols, n, opts...)
			encs := chunkEncodings(t, path, "c_string")
			switch {
			case tc.dict && !strings.Contains(encs, "RLE_DICTIONARY"),
				tc.delta && !strings.Contains(encs, "DELTA_LENGTH_BYTE_ARRAY"),
				!tc.dict && !tc.delta && encs != "PLAIN RLE" && encs != "RLE PLAIN":
				t.Fatalf("c_string encodings: %s", encs)
			}
			for _, bs := range []int{0, 777, 1} {
				if bs == 1 && tc.name != "plain_v2" {
					continue
				}
				mem := checkedAlloc(t)
				rows, st := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols), BatchSize: bs}, mem)
				checkRows(t, cols, rows, n)
				if st.RowGroupsTotal != 3 || st.RowGroupsRead != 3 || st.RowsRead != n {
					t.Fatalf("stats %+v", st)
				}
			}
		})
	}
}

// TestManyPages checks that columns really have several pages per chunk and that batches that
// straddle pages and row groups come out right, with columns read in a different order.
func TestManyPages(t *testing.T) {
	cols := allTypes(false, false)
	path := writeFile(t, cols, 3000, pq.PageBufferSize(512), pq.MaxRowsPerRowGroup(2000))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := pq.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	pages := pf.RowGroups()[0].ColumnChunks()[0].Pages()
	np := 0
	for {
		p, err := pages.ReadPage()
		if err != nil {
			break
		}
		pq.Release(p)
		np++
	}
	pages.Close()
	if np < 3 {
		t.Fatalf("only %d pages in the first column chunk", np)
	}
	// reversed projection
	rev := make([]tcol, len(cols))
	for i := range cols {
		rev[i] = cols[len(cols)-1-i]
	}
	rows, _ := readAll(t, path, 0, fi.Size(), &ScanSpec{Columns: fields(rev), BatchSize: 333}, checkedAlloc(t))
	checkRows(t, rev, rows, 3000)
}

func TestSplits(t *testing.T) {
	cols := []tcol{
		{"id", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return int64(i) })},
		{"s", pq.Optional(pq.String()), sparktype.StringType, func(i int) (pq.Value, any) {
			s := fmt.Sprint("row", i)
			return pq.ByteArrayValue([]byte(s)), s
		}},
	}
	const n = 20000
	path := writeFile(t, cols, n, pq.MaxRowsPerRowGroup(1500), pq.Compression(&pq.Snappy))
	fi, _ := os.Stat(path)
	size := fi.Size()
	for _, parts := range []int{1, 2, 3, 7} {
		seen := make([]int, n)
		groups := 0
		step := (size + int64(parts) - 1) / int64(parts)
		for p := 0; p < parts; p++ {
			start := int64(p) * step
			rows, st := readAll(t, path, start, step, &ScanSpec{Columns: fields(cols)}, checkedAlloc(t))
			groups += st.RowGroupsRead
			for _, r := range rows {
				seen[r[0].(int64)]++
				if r[1] != fmt.Sprint("row", r[0]) {
					t.Fatalf("row %v", r)
				}
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d parts: row %d seen %d times", parts, i, c)
			}
		}
		if groups != 14 {
			t.Fatalf("%d parts: %d row groups read, want 14", parts, groups)
		}
	}
	// a split that contains no midpoint reads nothing
	rows, st := readAll(t, path, 0, 4, &ScanSpec{Columns: fields(cols)}, checkedAlloc(t))
	if len(rows) != 0 || st.RowGroupsInSplit != 0 {
		t.Fatalf("tiny split read %d rows, %+v", len(rows), st)
	}
}

func TestMissingColumnAndCase(t *testing.T) {
	cols := []tcol{
		{"MixedCase", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(3, func(i int) int64 { return int64(i) })},
	}
	path := writeFile(t, cols, 100)
	spec := &ScanSpec{Columns: []sparktype.Field{
		{Name: "mixedcase", Type: sparktype.LongType, Nullable: true},
		{Name: "absent", Type: sparktype.StringType, Nullable: true},
		{Name: "absent_dec", Type: sparktype.DecimalOf(20, 3), Nullable: true},
	}}
	rows, _ := readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
	if len(rows) != 100 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		_, want := cols[0].gen(i)
		if !equalCell(r[0], want) || r[1] != nil || r[2] != nil {
			t.Fatalf("row %d: %v", i, r)
		}
	}
	spec.CaseSensitive = true
	rows, _ = readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
	for i, r := range rows {
		if r[0] != nil {
			t.Fatalf("case-sensitive row %d: %v", i, r)
		}
	}
	// zero columns: only a row count
	rows, _ = readAll(t, path, 0, math.MaxInt64, &ScanSpec{}, checkedAlloc(t))
	if len(rows) != 100 {
		t.Fatalf("count: %d", len(rows))
	}
}

func TestDuplicateNames(t *testing.T) {
	cols := []tcol{
		{"a", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return 1 })},
		{"A", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return 2 })},
	}
	path := writeFile(t, cols, 10)
	_, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: []sparktype.Field{{Name: "a", Type: sparktype.LongType}}}, checkedAlloc(t))
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("err = %v", err)
	}
	rows, _ := readAll(t, path, 0, math.MaxInt64, &ScanSpec{CaseSensitive: true,
		Columns: []sparktype.Field{{Name: "A", Type: sparktype.LongType}}}, checkedAlloc(t))
	if rows[0][0] != int64(2) {
		t.Fatalf("%v", rows[0])
	}
}

func TestTypeMismatch(t *testing.T) {
	cols := []tcol{
		{"l", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return 1 })},
		{"d", pq.Optional(pq.Decimal(2, 9, pq.Int32Type)), sparktype.DecimalOf(9, 2), gInt32(0, func(i int) int32 { return 1 })},
		{"ts", pq.Optional(pq.Timestamp(pq.Microsecond)), sparktype.TimestampType, gInt64(0, func(i int) int64 { return 1 })},
		{"n", pq.Optional(pq.Timestamp(pq.Nanosecond)), sparktype.TimestampType, gInt64(0, func(i int) int64 { return 1 })},
	}
	path := filepath.Join(t.TempDir(), "m.parquet")
	writeFileAt(t, path, cols, 10)
	for _, tc := range []struct {
		field sparktype.Field
		want  []string
	}{
		{sparktype.Field{Name: "l", Type: sparktype.StringType}, []string{path, "column l", "INT64", "string"}},
		{sparktype.Field{Name: "l", Type: sparktype.IntType}, []string{"column l", "integer"}},
		// Spark widens decimals only when the precision grows at least as much as the scale.
		{sparktype.Field{Name: "d", Type: sparktype.DecimalOf(9, 3)}, []string{"column d", "DECIMAL(9,2)", "decimal(9,3)"}},
		{sparktype.Field{Name: "d", Type: sparktype.DecimalOf(8, 2)}, []string{"column d", "decimal(8,2)"}},
		{sparktype.Field{Name: "ts", Type: sparktype.DateType}, []string{"column ts", "date"}},
		{sparktype.Field{Name: "n", Type: sparktype.TimestampType}, []string{"column n", "NANOS"}},
	} {
		_, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: []sparktype.Field{tc.field}}, checkedAlloc(t))
		if err == nil {
			t.Fatalf("%v: no error", tc.field)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not mention %q", tc.field, err, w)
			}
		}
		// Spark's PARQUET_COLUMN_DATA_TYPE_MISMATCH parameters travel with the error.
		var mm *TypeMismatchError
		if !errors.As(err, &mm) || mm.Column != "["+tc.field.Name+"]" || mm.Spark != tc.field.Type.CatalogString() {
			t.Errorf("%v: error %q is not a type mismatch of [%s] as %s: %+v", tc.field, err, tc.field.Name,
				tc.field.Type.CatalogString(), mm)
		}
	}
}

func TestNestedColumnRefused(t *testing.T) {
	type Inner struct {
		X int64 `parquet:"x"`
	}
	type Row struct {
		ID  int64   `parquet:"id"`
		G   Inner   `parquet:"g"`
		Arr []int64 `parquet:"arr,list"`
		Z   int64   `parquet:"z"`
	}
	path := filepath.Join(t.TempDir(), "n.parquet")
	rowsIn := []Row{{1, Inner{2}, []int64{3, 4}, 5}, {6, Inner{7}, nil, 8}}
	if err := pq.WriteFile(path, rowsIn); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: []sparktype.Field{{Name: "g", Type: sparktype.LongType}}}, checkedAlloc(t))
	if err == nil || !strings.Contains(err.Error(), "column g") {
		t.Fatalf("err = %v", err)
	}
	// columns after nested ones map to the right column chunk
	rows, _ := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: []sparktype.Field{
		{Name: "z", Type: sparktype.LongType}, {Name: "id", Type: sparktype.LongType}}}, checkedAlloc(t))
	if len(rows) != 2 || rows[0][0] != int64(5) || rows[0][1] != int64(1) || rows[1][0] != int64(8) {
		t.Fatalf("%v", rows)
	}
}

func TestEmptyFile(t *testing.T) {
	cols := []tcol{{"a", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return 1 })}}
	path := writeFile(t, cols, 0)
	rows, st := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols)}, checkedAlloc(t))
	if len(rows) != 0 || st.RowsRead != 0 {
		t.Fatalf("%d rows %+v", len(rows), st)
	}
}

func TestCorruptFiles(t *testing.T) {
	cols := allTypes(true, false)
	good := writeFile(t, cols, 3000, pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(1024), pq.Compression(&pq.Snappy))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := &ScanSpec{Columns: fields(cols)}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	expectOpenErr := func(p string) {
		r, err := Open(p, 0, math.MaxInt64, spec, checkedAlloc(t))
		if err == nil {
			r.Close()
			t.Fatalf("%s: no error", p)
		}
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not name the file", err)
		}
	}
	expectOpenErr(write("truncated.parquet", data[:len(data)/2]))
	expectOpenErr(write("truncated_tail.parquet", data[:len(data)-3]))
	expectOpenErr(write("empty.parquet", nil))
	garbage := make([]byte, 10000)
	rand.New(rand.NewSource(1)).Read(garbage)
	expectOpenErr(write("garbage.parquet", garbage))
	// garbage between valid magic bytes
	g2 := append([]byte("PAR1"), garbage...)
	g2 = append(g2, 0x10, 0, 0, 0, 'P', 'A', 'R', '1')
	expectOpenErr(write("garbage_footer.parquet", g2))
	expectOpenErr(filepath.Join(dir, "does-not-exist.parquet"))

	// Damaged pages behind a valid footer: an error (naming the file) or, when the damage is
	// in values only, data; never a panic or a hang.
	rng := rand.New(rand.NewSource(2))
	footerStart := len(data) - 8 - int(uint32(data[len(data)-8])|uint32(data[len(data)-7])<<8|uint32(data[len(data)-6])<<16|uint32(data[len(data)-5])<<24)
	errs := 0
	for k := 0; k < 60; k++ {
		b := append([]byte(nil), data...)
		for j := 0; j < 1+k%5; j++ {
			off := 4 + rng.Intn(footerStart-4)
			b[off] = byte(rng.Intn(256))
		}
		p := write(fmt.Sprintf("damaged%d.parquet", k), b)
		mem := checkedAlloc(t)
		done := make(chan error, 1)
		go func() {
			r, err := Open(p, 0, math.MaxInt64, spec, mem)
			if err != nil {
				done <- err
				return
			}
			defer r.Close()
			for {
				bt, err := r.Next()
				if err != nil {
					done <- err
					return
				}
				if bt == nil {
					done <- nil
					return
				}
				bt.Release()
			}
		}()
		select {
		case err := <-done:
			if err != nil {
				errs++
				if !strings.Contains(err.Error(), p) {
					t.Fatalf("error %q does not name the file", err)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("damaged file %d: hang", k)
		}
	}
	t.Logf("%d of 60 damaged files gave errors", errs)
}

func TestErrorsAreSticky(t *testing.T) {
	cols := []tcol{{"a", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return int64(i) })}}
	path := writeFile(t, cols, 100)
	r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols)}, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	r.err = errors.New("boom")
	if _, err := r.Next(); err == nil {
		t.Fatal("no error")
	}
	r.Close()
	if _, err := r.Next(); err == nil {
		t.Fatal("no error after close")
	}
}

const pruneGroups, prunePer = 10, 1000

// pruneCase is a pushed-down predicate, the row groups whose statistics keep it, and the rows
// that satisfy it.
type pruneCase struct {
	name  string
	preds []Predicate
	keep  int
	match func(i int) bool
}

// pruningSetup is a file's columns (row i holds values growing with i) and predicates over them.
func pruningSetup() ([]tcol, []pruneCase) {
	const groups, per = pruneGroups, prunePer
	dec := func(i int) decimal128.Num { return decimal128.FromI64(int64(i)) }
	cols := []tcol{
		{"k", pq.Optional(pq.Int(64)), sparktype.LongType, gInt64(0, func(i int) int64 { return int64(i) })},
		{"s", pq.Optional(pq.String()), sparktype.StringType, func(i int) (pq.Value, any) {
			s := fmt.Sprintf("%06d", i)
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"d", pq.Optional(pq.Leaf(pq.DoubleType)), sparktype.DoubleType, func(i int) (pq.Value, any) {
			return pq.DoubleValue(float64(i) / 10), float64(i) / 10
		}},
		{"dec", pq.Optional(pq.Decimal(2, 9, pq.Int32Type)), sparktype.DecimalOf(9, 2), func(i int) (pq.Value, any) {
			return pq.Int32Value(int32(i)), dec(i)
		}},
		{"decf", pq.Optional(pq.Decimal(2, 20, pq.FixedLenByteArrayType(9))), sparktype.DecimalOf(20, 2), func(i int) (pq.Value, any) {
			return pq.FixedLenByteArrayValue(beBytes(dec(i-5000), 9)), dec(i - 5000)
		}},
		{"dt", pq.Optional(pq.Date()), sparktype.DateType, gInt32(0, func(i int) int32 { return int32(i / 100) })},
		{"ts", pq.Optional(pq.Timestamp(pq.Millisecond)), sparktype.TimestampType, func(i int) (pq.Value, any) {
			return pq.Int64Value(int64(i) * 1000), int64(i) * 1000000
		}},
		{"n", pq.Optional(pq.Int(64)), sparktype.LongType, func(i int) (pq.Value, any) {
			if i < 5*per {
				return pq.NullValue(), nil
			}
			return pq.Int64Value(int64(i)), int64(i)
		}},
		{"b", pq.Optional(pq.Leaf(pq.BooleanType)), sparktype.BooleanType, func(i int) (pq.Value, any) {
			return pq.BooleanValue(i >= 5*per), i >= 5*per
		}},
		{"u", pq.Optional(pq.Uint(32)), sparktype.LongType, func(i int) (pq.Value, any) {
			v := uint32(4e9) + uint32(i)
			return pq.Int32Value(int32(v)), int64(v)
		}},
	}
	p := func(col, op string, vals ...Value) Predicate { return Predicate{Column: col, Op: op, Values: vals} }
	cases := []pruneCase{
		{"eq", []Predicate{p("k", "=", int64(2500))}, 1, func(i int) bool { return i == 2500 }},
		{"lt", []Predicate{p("k", "<", int64(1000))}, 1, func(i int) bool { return i < 1000 }},
		{"le", []Predicate{p("k", "<=", int64(1000))}, 2, func(i int) bool { return i <= 1000 }},
		{"gt", []Predicate{p("k", ">", int64(8999))}, 1, func(i int) bool { return i > 8999 }},
		{"ge", []Predicate{p("k", ">=", int64(8999))}, 2, func(i int) bool { return i >= 8999 }},
		{"in", []Predicate{p("k", "in", int64(5), nil, int64(7005), int64(123456))}, 2, func(i int) bool { return i == 5 || i == 7005 }},
		{"in_none", []Predicate{p("k", "in", int64(-5), int64(99999))}, 0, func(i int) bool { return false }},
		{"and", []Predicate{p("k", ">=", int64(2000)), p("k", "<", int64(4000))}, 2, func(i int) bool { return i >= 2000 && i < 4000 }},
		{"str_eq", []Predicate{p("s", "=", "004500")}, 1, func(i int) bool { return i == 4500 }},
		{"str_gt", []Predicate{p("S", ">", "009000")}, 1, func(i int) bool { return i > 9000 }},
		{"bytes_lt", []Predicate{p("s", "<", []byte("000999"))}, 1, func(i int) bool { return i < 999 }},
		{"double_lt", []Predicate{p("d", "<", 100.0)}, 1, func(i int) bool { return i < 1000 }},
		{"double_nan", []Predicate{p("d", "=", math.NaN())}, 10, func(i int) bool { return false }},
		{"dec_eq", []Predicate{p("dec", "=", dec(2500))}, 1, func(i int) bool { return i == 2500 }},
		{"decf_lt", []Predicate{p("decf", "<", dec(-4000))}, 1, func(i int) bool { return i < 1000 }},
		{"decf_ge", []Predicate{p("decf", ">=", dec(3500))}, 2, func(i int) bool { return i >= 8500 }},
		{"date_eq", []Predicate{p("dt", "=", int64(25))}, 1, func(i int) bool { return i/100 == 25 }},
		{"ts_eq", []Predicate{p("ts", "=", int64(3500)*1000000)}, 1, func(i int) bool { return i == 3500 }},
		{"isnull", []Predicate{p("n", "isnull")}, 5, func(i int) bool { return i < 5000 }},
		{"isnotnull", []Predicate{p("n", "isnotnull")}, 5, func(i int) bool { return i >= 5000 }},
		{"isnull_nonull", []Predicate{p("k", "isnull")}, 0, func(i int) bool { return false }},
		{"eq_on_nulls", []Predicate{p("n", "=", int64(7000))}, 1, func(i int) bool { return i == 7000 }},
		{"bool_eq", []Predicate{p("b", "=", true)}, 5, func(i int) bool { return i >= 5000 }},
		{"bool_eq_false", []Predicate{p("b", "=", false)}, 5, func(i int) bool { return i < 5000 }},
		{"unsigned_ge", []Predicate{p("u", ">=", int64(4e9)+9000)}, 1, func(i int) bool { return i >= 9000 }},
		{"unsigned_lt", []Predicate{p("u", "<", int64(4e9)+1)}, 1, func(i int) bool { return i < 1 }},
		{"missing_col", []Predicate{p("zz", "=", int64(1))}, 10, func(i int) bool { return true }},
		{"wrong_type", []Predicate{p("k", "=", "abc")}, 10, func(i int) bool { return true }},
		{"unknown_op", []Predicate{p("k", "like", "abc")}, 10, func(i int) bool { return true }},
		{"null_literal", []Predicate{p("k", "=", nil)}, 10, func(i int) bool { return true }},
	}
	return cols, cases
}

func TestPruning(t *testing.T) {
	const groups, per = pruneGroups, prunePer
	cols, cases := pruningSetup()
	path := writeFile(t, cols, groups*per, pq.MaxRowsPerRowGroup(per))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := &ScanSpec{Columns: fields(cols), Filters: c.preds}
			rows, st := readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
			if st.RowGroupsInSplit != groups || st.RowGroupsSkippedByStats != groups-c.keep || st.RowGroupsRead != c.keep {
				t.Fatalf("stats %+v, want %d kept", st, c.keep)
			}
			if len(rows) != c.keep*per {
				t.Fatalf("%d rows", len(rows))
			}
			got := map[int64]bool{}
			for _, r := range rows {
				got[r[0].(int64)] = true
				i := int(r[0].(int64))
				for j, col := range cols {
					if _, want := col.gen(i); !equalCell(r[j], want) {
						t.Fatalf("row %d col %s: %v want %v", i, col.name, r[j], want)
					}
				}
			}
			for i := 0; i < groups*per; i++ {
				if c.match(i) && !got[int64(i)] {
					t.Fatalf("row %d matches but was pruned", i)
				}
			}
		})
	}
}

// TestPagePruning: with many small pages, the page index skips the pages whose statistics rule
// the predicates out; every row that satisfies them still comes back, with its values.
func TestPagePruning(t *testing.T) {
	const groups, per = pruneGroups, prunePer
	cols, cases := pruningSetup()
	path := writeFile(t, cols, groups*per, pq.MaxRowsPerRowGroup(per), pq.PageBufferSize(512))
	pruned := 0
	for _, c := range cases {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lazy=%v", c.name, lazy), func(t *testing.T) {
				spec := &ScanSpec{Columns: fields(cols), Filters: c.preds, BatchSize: 333}
				var rows [][]any
				var st Stats
				if lazy {
					rows, st = readLazyAll(t, path, spec)
				} else {
					rows, st = readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
				}
				if st.RowGroupsRead != c.keep {
					t.Fatalf("stats %+v, want %d row groups kept", st, c.keep)
				}
				if int64(len(rows))+st.RowsSkippedByPageIndex != int64(c.keep*per) {
					t.Fatalf("%d rows + %d skipped by the page index, %d row groups read", len(rows), st.RowsSkippedByPageIndex, c.keep)
				}
				if st.RowsSkippedByPageIndex > 0 {
					pruned++
				}
				got := map[int64]bool{}
				for _, r := range rows {
					got[r[0].(int64)] = true
					i := int(r[0].(int64))
					for j, col := range cols {
						if _, want := col.gen(i); !equalCell(r[j], want) {
							t.Fatalf("row %d col %s: %v want %v", i, col.name, r[j], want)
						}
					}
				}
				for i := 0; i < groups*per; i++ {
					if c.match(i) && !got[int64(i)] {
						t.Fatalf("row %d matches but was pruned", i)
					}
				}
			})
		}
	}
	if pruned < 20 {
		t.Errorf("the page index skipped rows in only %d reads", pruned)
	}
}

// readLazyAll reads a file through NextLazy, every column for the batch's rows (Take of all of
// them), and returns the rows and stats.
func readLazyAll(t *testing.T, path string, spec *ScanSpec) ([][]any, Stats) {
	t.Helper()
	r, err := Open(path, 0, math.MaxInt64, spec, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows [][]any
	for {
		lb, err := r.NextLazy()
		if err != nil {
			t.Fatal(err)
		}
		if lb == nil {
			break
		}
		n := lb.NumRows()
		all := make([]int32, n)
		for i := range all {
			all[i] = int32(i)
		}
		cols := make([]arrow.Array, len(spec.Columns))
		for j := range cols {
			if cols[j], err = lb.Take(j, all); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < n; i++ {
			row := make([]any, len(cols))
			for j, c := range cols {
				row[j] = cell(c, i)
			}
			rows = append(rows, row)
		}
		for _, c := range cols {
			c.Release()
		}
		lb.Release()
	}
	return rows, r.Stats()
}

func chunkEncodings(t *testing.T, path, col string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := pq.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	lc, _ := pf.Schema().Lookup(col)
	var out []string
	for _, e := range pf.Metadata().RowGroups[0].Columns[lc.ColumnIndex].MetaData.Encoding {
		out = append(out, e.String())
	}
	return strings.Join(out, " ")
}
