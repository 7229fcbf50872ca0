package parquet

import (
	"math"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Columns Spark 4 reads as wider types than the file stores (ParquetVectorUpdaterFactory):
// integers and decimals as decimals of a larger scale, DATE as TIMESTAMP_NTZ, any INT32 as date,
// byte, short or double, a UTC timestamp as TIMESTAMP_NTZ. Each is read with dictionary and plain
// pages, and statistics pruning must compare in the widened domain.
func TestSparkWidenings(t *testing.T) {
	scaled := func(v int64, up int) decimal128.Num {
		return decimal128.FromBigInt(new(big.Int).Mul(big.NewInt(v), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(up)), nil)))
	}
	i32 := func(i int) int32 { return int32(i*7919%200001) - 100000 }
	i64 := func(i int) int64 { return int64(i)*1_000_000_007 - 5_000_000_000 }
	for _, dict := range []bool{false, true} {
		var e32, e64 pq.Node = pq.Int(32), pq.Int(64)
		var d32 pq.Node = pq.Decimal(2, 9, pq.Int32Type)
		var dba pq.Node = pq.Decimal(3, 20, pq.ByteArrayType)
		var date pq.Node = pq.Date()
		if dict {
			e32, e64, d32 = pq.Encoded(e32, &pq.RLEDictionary), pq.Encoded(e64, &pq.RLEDictionary), pq.Encoded(d32, &pq.RLEDictionary)
			dba, date = pq.Encoded(dba, &pq.RLEDictionary), pq.Encoded(date, &pq.RLEDictionary)
		}
		type want func(i int) any
		cases := []struct {
			name  string
			node  pq.Node
			gen   func(i int) pq.Value
			spark sparktype.Type
			want  want
		}{
			{"int32 as decimal(12,2)", e32, func(i int) pq.Value { return pq.Int32Value(i32(i)) }, sparktype.DecimalOf(12, 2),
				func(i int) any { return scaled(int64(i32(i)), 2) }},
			{"int32 as decimal(20,0)", e32, func(i int) pq.Value { return pq.Int32Value(i32(i)) }, sparktype.DecimalOf(20, 0),
				func(i int) any { return scaled(int64(i32(i)), 0) }},
			{"int64 as decimal(22,2)", e64, func(i int) pq.Value { return pq.Int64Value(i64(i)) }, sparktype.DecimalOf(22, 2),
				func(i int) any { return scaled(i64(i), 2) }},
			{"decimal(9,2) as decimal(12,5)", d32, func(i int) pq.Value { return pq.Int32Value(i32(i)) }, sparktype.DecimalOf(12, 5),
				func(i int) any { return scaled(int64(i32(i)), 3) }},
			{"decimal(20,3) binary as decimal(38,10)", dba, func(i int) pq.Value {
				return pq.ByteArrayValue(decimalBE(big.NewInt(i64(i))))
			}, sparktype.DecimalOf(38, 10), func(i int) any { return scaled(i64(i), 7) }},
			{"date as timestamp_ntz", date, func(i int) pq.Value { return pq.Int32Value(int32(i - 500)) }, sparktype.TimestampNTZType,
				func(i int) any { return int64(i-500) * 86_400_000_000 }},
			{"int32 as date", e32, func(i int) pq.Value { return pq.Int32Value(i32(i)) }, sparktype.DateType,
				func(i int) any { return int64(i32(i)) }},
			{"int32 as double", e32, func(i int) pq.Value { return pq.Int32Value(i32(i)) }, sparktype.DoubleType,
				func(i int) any { return float64(i32(i)) }},
			{"utc timestamp as timestamp_ntz", pq.Timestamp(pq.Microsecond), func(i int) pq.Value { return pq.Int64Value(i64(i)) },
				sparktype.TimestampNTZType, func(i int) any { return i64(i) }},
		}
		for _, c := range cases {
			c := c
			col := tcol{"c", pq.Optional(c.node), c.spark, func(i int) (pq.Value, any) {
				if i%11 == 3 {
					return pq.NullValue(), nil
				}
				return c.gen(i), c.want(i)
			}}
			path := filepath.Join(t.TempDir(), "w.parquet")
			writeFileAt(t, path, []tcol{col}, 3000, pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(2048))
			rows, _ := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fields([]tcol{col})}, checkedAlloc(t))
			if len(rows) != 3000 {
				t.Fatalf("%s (dict %v): %d rows", c.name, dict, len(rows))
			}
			for i, r := range rows {
				_, w := col.gen(i)
				if !equalCell(r[0], w) {
					t.Fatalf("%s (dict %v) row %d: got %v, want %v", c.name, dict, i, r[0], w)
				}
			}
		}
	}
}

// A predicate on a widened decimal column compares at the requested scale: the literal 1.00 of
// decimal(12,2) is unscaled 100, and the file's INT32 statistics are whole numbers.
func TestPruningComparesWidenedValues(t *testing.T) {
	col := tcol{"c", pq.Optional(pq.Int(32)), sparktype.DecimalOf(12, 2), func(i int) (pq.Value, any) {
		return pq.Int32Value(int32(i)), nil
	}}
	path := filepath.Join(t.TempDir(), "p.parquet")
	writeFileAt(t, path, []tcol{col}, 3000, pq.MaxRowsPerRowGroup(1000))
	for _, tc := range []struct {
		op   string
		v    int64 // unscaled at scale 2
		kept int   // row groups
	}{
		{"=", 150000, 1},  // 1500.00: only the second row group
		{">=", 200000, 1}, // 2000.00
		{"<", 100, 1},     // 1.00
		{">", 300000, 0},  // 3000.00: none
		{"=", 99900, 1},   // 999.00: first row group (whole-number stats 0..999)
	} {
		spec := &ScanSpec{Columns: []sparktype.Field{{Name: "c", Type: col.spark}},
			Filters: []Predicate{{Column: "c", Op: tc.op, Values: []Value{decimal128.FromI64(tc.v)}}}}
		_, st := readAll(t, path, 0, math.MaxInt64, spec, checkedAlloc(t))
		if st.RowGroupsRead != tc.kept {
			t.Errorf("c %s %d (scale 2): %d row groups read, want %d", tc.op, tc.v, st.RowGroupsRead, tc.kept)
		}
	}
}

// decimalBE is v as a minimal big-endian two's complement byte string.
func decimalBE(v *big.Int) []byte {
	n := decimal128.FromBigInt(v)
	hi, lo := uint64(n.HighBits()), n.LowBits()
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	k := 0
	for k < 15 && (b[k] == 0 && b[k+1]&0x80 == 0 || b[k] == 0xff && b[k+1]&0x80 != 0) {
		k++
	}
	return append([]byte(nil), b[k:]...)
}
