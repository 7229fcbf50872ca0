package columnar

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Every Spark type's Arrow layout goes through Take and Compact; nulls must follow their rows.
func TestTakeEveryType(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	types := []sparktype.Type{sparktype.BooleanType, sparktype.ByteType, sparktype.ShortType,
		sparktype.IntType, sparktype.LongType, sparktype.FloatType, sparktype.DoubleType,
		sparktype.DecimalOf(20, 3), sparktype.StringType, sparktype.BinaryType, sparktype.DateType,
		sparktype.TimestampType, sparktype.TimestampNTZType}
	for _, typ := range types {
		b := array.NewBuilder(alloc, typ.Arrow())
		for i := 0; i < 10; i++ {
			if i%3 == 0 {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.BooleanBuilder:
				bb.Append(i%2 == 0)
			case *array.Int8Builder:
				bb.Append(int8(i))
			case *array.Int16Builder:
				bb.Append(int16(i))
			case *array.Int32Builder:
				bb.Append(int32(i))
			case *array.Int64Builder:
				bb.Append(int64(i))
			case *array.Float32Builder:
				bb.Append(float32(i))
			case *array.Float64Builder:
				bb.Append(float64(i))
			case *array.Decimal128Builder:
				bb.Append(decimal128.FromI64(int64(i)))
			case *array.StringBuilder:
				bb.Append(string(rune('a' + i)))
			case *array.BinaryBuilder:
				bb.Append([]byte{byte(i)})
			case *array.Date32Builder:
				bb.Append(arrow.Date32(i))
			case *array.TimestampBuilder:
				bb.Append(arrow.Timestamp(i))
			}
		}
		arr := b.NewArray()
		b.Release()
		sel := []int32{9, 0, 4, 3, 8}
		got, err := Take(alloc, arr, sel)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		for i, j := range sel {
			if got.IsNull(i) != arr.IsNull(int(j)) || (!got.IsNull(i) && got.ValueStr(i) != arr.ValueStr(int(j))) {
				t.Errorf("%s row %d: got %s want %s", typ, i, got.ValueStr(i), arr.ValueStr(int(j)))
			}
		}
		sliced := array.NewSlice(arr, 2, 7)
		compact, err := Compact(alloc, sliced)
		if err != nil {
			t.Fatal(err)
		}
		if compact.Data().Offset() != 0 || !array.Equal(compact, sliced) {
			t.Errorf("%s: compact differs from its slice", typ)
		}
		for _, a := range []arrow.Array{arr, got, sliced, compact} {
			a.Release()
		}
	}
}

func TestConstantColumns(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	cases := []struct {
		typ  sparktype.Type
		v    any
		want string
	}{
		{sparktype.IntType, int64(7), "7"},
		{sparktype.DateType, int64(3), "1970-01-04"},
		{sparktype.StringType, "p=1", "p=1"},
		{sparktype.DecimalOf(5, 2), decimal128.FromI64(123), "1.23"},
		{sparktype.LongType, nil, "(null)"},
	}
	for _, c := range cases {
		arr, err := Constant(alloc, c.typ, c.v, 3)
		if err != nil {
			t.Fatal(err)
		}
		if arr.Len() != 3 || arr.ValueStr(2) != c.want {
			t.Errorf("%s: got %s x%d, want %s", c.typ, arr.ValueStr(2), arr.Len(), c.want)
		}
		arr.Release()
	}
}

// Strings of every length from 0 to 40 (short ones take the byte loop, long ones copy), sliced,
// through a selection that repeats and skips rows.
func TestTakeStringsOfEveryLength(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	b := array.NewStringBuilder(alloc)
	var want []string
	for i := 0; i < 200; i++ {
		s := ""
		for k := 0; k < i%41; k++ {
			s += string(rune('a' + (i+k)%26))
		}
		want = append(want, s)
		b.Append(s)
	}
	whole := b.NewArray()
	defer whole.Release()
	b.Release()
	arr := array.NewSlice(whole, 7, 190).(*array.String)
	defer arr.Release()
	sel := []int32{0, 1, 1, 5, 40, 41, 42, 100, 182, 3}
	out, err := Take(alloc, arr, sel)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := out.(*array.String)
	for i, j := range sel {
		if got.Value(i) != want[7+int(j)] {
			t.Fatalf("row %d (input %d): got %q, want %q", i, j, got.Value(i), want[7+int(j)])
		}
	}
}

// One-byte strings (TPC-H's flags) and 40-byte ones through a selection keeping 98% of the rows.
func BenchmarkTakeStrings(b *testing.B) {
	for _, n := range []int{1, 40} {
		bld := array.NewStringBuilder(memory.DefaultAllocator)
		for i := 0; i < 8192; i++ {
			s := make([]byte, n)
			for k := range s {
				s[k] = byte('A' + (i+k)%26)
			}
			bld.Append(string(s))
		}
		arr := bld.NewArray()
		var sel []int32
		for i := int32(0); i < 8192; i++ {
			if i%50 != 0 {
				sel = append(sel, i)
			}
		}
		b.Run(fmt.Sprintf("len%d", n), func(b *testing.B) {
			for b.Loop() {
				out, _ := Take(memory.DefaultAllocator, arr, sel)
				out.Release()
			}
		})
		arr.Release()
	}
}

// The validity of a sliced column with nulls, through selections of every length up to 40 (whole
// bytes and tails), in and out of order, must follow the rows.
func TestTakeValiditySlicedAndUnordered(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	bld := array.NewInt64Builder(alloc)
	for i := 0; i < 100; i++ {
		if i%7 == 3 || i%11 == 0 {
			bld.AppendNull()
		} else {
			bld.Append(int64(i))
		}
	}
	whole := bld.NewArray()
	defer whole.Release()
	arr := array.NewSlice(whole, 5, 95)
	defer arr.Release()
	for n := 0; n <= 40; n++ {
		for _, reverse := range []bool{false, true} {
			sel := make([]int32, n)
			for k := range sel {
				sel[k] = int32((k * 13) % arr.Len())
				if reverse {
					sel[k] = int32(arr.Len() - 1 - (k*13)%arr.Len())
				}
			}
			out, err := Take(alloc, arr, sel)
			if err != nil {
				t.Fatal(err)
			}
			nulls := 0
			for k, j := range sel {
				if out.IsValid(k) != arr.IsValid(int(j)) {
					t.Fatalf("n=%d reverse=%v row %d (source %d): valid %v, want %v", n, reverse, k, j, out.IsValid(k), arr.IsValid(int(j)))
				}
				if arr.IsNull(int(j)) {
					nulls++
				} else if got, want := out.(*array.Int64).Value(k), arr.(*array.Int64).Value(int(j)); got != want {
					t.Fatalf("n=%d row %d: %d, want %d", n, k, got, want)
				}
			}
			if out.NullN() != nulls {
				t.Fatalf("n=%d reverse=%v: %d nulls, want %d", n, reverse, out.NullN(), nulls)
			}
			out.Release()
		}
	}
}

// A dictionary with a null entry expanded through codes that never refer to it (how a lazily read
// Parquet column is materialized), the shape that calls takeValidity for every row of a batch.
func BenchmarkTakeValidity(b *testing.B) {
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < 4096; i++ {
		bld.Append(int64(i) * 31)
	}
	bld.AppendNull()
	dict := bld.NewArray()
	defer dict.Release()
	codes := make([]int32, 8192)
	for i := range codes {
		codes[i] = int32((i * 2654435761) % 4096)
	}
	for b.Loop() {
		out, _ := Take(memory.DefaultAllocator, dict, codes)
		out.Release()
	}
}
