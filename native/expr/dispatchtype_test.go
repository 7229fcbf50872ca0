package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A nested result as Spark's ArrowUtils may write it (other names, nullability flags and zone
// tags) takes the engine's type over the same buffers; any difference of layout is refused.
func TestAsType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)

	ts := func(zone string) arrow.DataType { return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: zone} }
	jvmType := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, ts("America/Los_Angeles")), Nullable: true},
	)
	want := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: false},
		arrow.Field{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, ts("UTC")), Nullable: true},
	)
	b := array.NewStructBuilder(mem, jvmType)
	defer b.Release()
	ab := b.FieldBuilder(0).(*array.Int32Builder)
	lb := b.FieldBuilder(1).(*array.ListBuilder)
	mb := b.FieldBuilder(2).(*array.MapBuilder)
	for i := 0; i < 3; i++ {
		if i == 1 {
			b.AppendNull()
			ab.AppendNull()
			lb.AppendNull()
			mb.AppendNull()
			continue
		}
		b.Append(true)
		ab.Append(int32(i))
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"x", "yz"}, nil)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k")
		mb.ItemBuilder().(*array.TimestampBuilder).Append(arrow.Timestamp(i * 1000))
	}
	got := b.NewArray()
	before := got.String()
	out, err := asType(got, want, "dispatch(JsonToStructs)")
	if err != nil {
		t.Fatal(err)
	}
	if !arrow.TypeEqual(out.DataType(), want) {
		t.Errorf("type %s, want %s", out.DataType(), want)
	}
	if out.String() != before {
		t.Errorf("values %s, want %s", out.String(), before)
	}
	out.Release()

	// Another layout is an error naming the expression, and releases the result.
	got = b.NewArray()
	bad := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, ts("UTC")), Nullable: true},
	)
	if _, err := asType(got, bad, "dispatch(JsonToStructs)"); err == nil || !strings.Contains(err.Error(), "dispatch(JsonToStructs)") ||
		!strings.Contains(err.Error(), "int64") {
		t.Errorf("int32 for int64: %v", err)
	}
	got = b.NewArray()
	if _, err := asType(got, arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32}), "x"); err == nil {
		t.Error("three fields for one: no error")
	}
}
