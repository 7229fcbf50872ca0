package sparktype

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseNested(t *testing.T) {
	raw := `{"type":"struct","fields":[
		{"name":"a","type":"integer","nullable":true,"metadata":{}},
		{"name":"l","type":{"type":"array","elementType":"string","containsNull":false},"nullable":false,"metadata":{}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[{"name":"x","type":"double","nullable":true,"metadata":{}}]},"valueContainsNull":true},"nullable":true,"metadata":{}}]}`
	ty, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if ty.Kind != Struct || ty.Supported() || !ty.Readable() || !ty.Nested() {
		t.Fatalf("kind %v supported %v readable %v", ty.Kind, ty.Supported(), ty.Readable())
	}
	if want := "struct<a:int,l:array<string>,m:map<string,struct<x:double>>>"; ty.Name != want {
		t.Errorf("name %q, want %q", ty.Name, want)
	}
	fs := ty.Fields()
	if len(fs) != 3 || fs[0].Name != "a" || !fs[0].Nullable || fs[1].Nullable {
		t.Fatalf("fields %+v", fs)
	}
	if e, cn := fs[1].Type.Elem(); e.Kind != String || cn {
		t.Errorf("elem %v %v", e, cn)
	}
	k, v, vn := fs[2].Type.KeyValue()
	if k.Kind != String || v.Kind != Struct || !vn {
		t.Errorf("map %v %v %v", k, v, vn)
	}
	want := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String})},
		arrow.Field{Name: "m", Type: func() arrow.DataType {
			m := arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}))
			m.SetItemNullable(true)
			return m
		}(), Nullable: true})
	if got := ty.Arrow(); !arrow.TypeEqual(got, want) {
		t.Errorf("arrow %s, want %s", got, want)
	}
	again, _ := Parse(json.RawMessage(raw))
	if !ty.Equal(again) || ty.Equal(ArrayOf(IntType, true)) || ArrayOf(IntType, true).Equal(ArrayOf(IntType, false)) {
		t.Error("Equal")
	}
	bad, err := Parse(json.RawMessage(`{"type":"array","elementType":"interval","containsNull":true}`))
	if err != nil || bad.Readable() || bad.Supported() || bad.Arrow() != nil {
		t.Errorf("array of an unknown type: %v readable %v", err, bad.Readable())
	}
	if !IntType.Readable() || NullType.Readable() {
		t.Error("atomic Readable")
	}
}

// Type names parse the same whether or not they take the plain-string shortcut.
func TestParsePlainString(t *testing.T) {
	for _, c := range []struct{ plain, other string }{
		{`"integer"`, ` "integer" `},
		{`"integer"`, `"int\u0065ger"`},
		{`"decimal(25,2)"`, `"decimal(25,2)"` + "\n"},
		{`"timestamp_ntz"`, `"timestamp\u005fntz"`},
		{`"char(3)"`, `"char\u00283)"`},
	} {
		a, errA := Parse(json.RawMessage(c.plain))
		b, errB := Parse(json.RawMessage(c.other))
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %v, %v; %s: %v, %v", c.plain, a, errA, c.other, b, errB)
		}
	}
	for _, bad := range []string{`"`, `""x`, `"a"b"`, `"\"`} {
		if _, err := Parse(json.RawMessage(bad)); err == nil {
			t.Errorf("%s parses", bad)
		}
	}
}

// Decimal types read without the regular expression read as with it.
func TestPlainDecimal(t *testing.T) {
	for _, s := range []string{"decimal(38,4)", "decimal(0,0)", "decimal(9999,9999)", "decimal(10000,1)",
		"decimal( 7, 2)", "decimal(7,-2)", "decimal(7,)", "decimal(,2)", "decimal(7,2", "decimal(7;2)",
		"decimal(007,02)", "decimal(1,2,3)", "decimal(١,2)"} {
		var want Type
		if m := decimalRe.FindStringSubmatch(s); m != nil {
			p, _ := strconv.Atoi(m[1])
			sc, _ := strconv.Atoi(m[2])
			want = DecimalOf(int32(p), int32(sc))
		} else {
			want = Type{Kind: Unsupported, Name: s}
		}
		raw, _ := json.Marshal(s)
		if got, err := Parse(raw); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, %v; want %v", s, got, err, want)
		}
	}
}
