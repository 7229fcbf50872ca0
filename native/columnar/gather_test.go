package columnar

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// testColumn builds n values of typ starting at v0, every third row null when nulls.
func testColumn(alloc memory.Allocator, typ sparktype.Type, v0, n int, nulls bool) arrow.Array {
	b := array.NewBuilder(alloc, typ.Arrow())
	defer b.Release()
	for i := v0; i < v0+n; i++ {
		if nulls && i%3 == 0 {
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
			bb.Append(string(rune('a' + i%26)))
		case *array.BinaryBuilder:
			bb.Append([]byte{byte(i), byte(i)})
		case *array.Date32Builder:
			bb.Append(arrow.Date32(i))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(i))
		}
	}
	return b.NewArray()
}

// Every Spark type's layout gathers from several sources (one sliced, one with nulls), with null
// references, in any order.
func TestGatherEveryType(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	types := []sparktype.Type{sparktype.BooleanType, sparktype.ByteType, sparktype.ShortType,
		sparktype.IntType, sparktype.LongType, sparktype.FloatType, sparktype.DoubleType,
		sparktype.DecimalOf(20, 3), sparktype.StringType, sparktype.BinaryType, sparktype.DateType,
		sparktype.TimestampType, sparktype.TimestampNTZType}
	for _, typ := range types {
		for _, nulls := range []bool{false, true} {
			full := testColumn(alloc, typ, 10, 12, nulls)
			srcs := []arrow.Array{
				testColumn(alloc, typ, 0, 5, false),
				array.NewSlice(full, 3, 9),
				testColumn(alloc, typ, 40, 4, nulls),
			}
			full.Release()
			for _, withNullRef := range []bool{false, true} {
				refs := []RowRef{{2, 3}, {0, 0}, {1, 5}, {1, 0}, {0, 4}, {2, 0}, {1, 2}}
				if withNullRef {
					refs = append(refs, NullRef, RowRef{0, 1}, NullRef)
				}
				got, err := Gather(alloc, srcs, refs)
				if err != nil {
					t.Fatalf("%s: %v", typ, err)
				}
				if got.Len() != len(refs) {
					t.Fatalf("%s: %d rows, want %d", typ, got.Len(), len(refs))
				}
				for i, r := range refs {
					if r.Src == NullSrc {
						if !got.IsNull(i) {
							t.Errorf("%s row %d: want null, got %s", typ, i, got.ValueStr(i))
						}
						continue
					}
					src := srcs[r.Src]
					if got.IsNull(i) != src.IsNull(int(r.Row)) || (!got.IsNull(i) && got.ValueStr(i) != src.ValueStr(int(r.Row))) {
						t.Errorf("%s row %d: got %s, want %s", typ, i, got.ValueStr(i), src.ValueStr(int(r.Row)))
					}
				}
				if !withNullRef && !nulls && got.NullN() != 0 {
					t.Errorf("%s: %d nulls gathered from no null", typ, got.NullN())
				}
				got.Release()
			}
			for _, s := range srcs {
				s.Release()
			}
		}
	}
}

func TestGatherRefusesMixedTypes(t *testing.T) {
	a := testColumn(memory.DefaultAllocator, sparktype.IntType, 0, 2, false)
	b := testColumn(memory.DefaultAllocator, sparktype.LongType, 0, 2, false)
	defer a.Release()
	defer b.Release()
	if _, err := Gather(memory.DefaultAllocator, []arrow.Array{a, b}, []RowRef{{0, 0}}); err == nil {
		t.Error("gathered int and long sources into one column")
	}
}
