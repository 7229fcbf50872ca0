// Package sparktype owns the engine's view of Spark SQL data types: parsing the JSON form Spark
// writes (DataType.json), and the one mapping from a Spark type to the Arrow type that carries it
// across the JNI boundary (the mapping Spark's own ArrowColumnVector accepts).
package sparktype

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is a Spark SQL atomic type.
type Kind uint8

const (
	Unsupported Kind = iota
	Null
	Boolean
	Byte
	Short
	Int
	Long
	Float
	Double
	Decimal
	String
	Binary
	Date
	Timestamp    // microseconds since the epoch, UTC; shown in the session time zone
	TimestampNTZ // microseconds, wall clock without a zone
	// The nested types. They are never Supported (no operator computes on them); scans read them
	// (Readable) and operators that only move rows (filter, limit, project of a column) pass them
	// through when they say so.
	Struct
	Array
	Map
)

// MaxDecimalPrecision is Spark's DecimalType.MAX_PRECISION.
const MaxDecimalPrecision = 38

// Type is a Spark data type. Precision and Scale are set for Decimal only; Name keeps Spark's
// spelling so that a refusal can say which type it refused.
type Type struct {
	Kind      Kind
	Precision int32
	Scale     int32
	Name      string
	// nest describes a struct, array or map (nil otherwise). A pointer keeps Type comparable.
	nest *nested
}

// nested is the shape of a nested type.
type nested struct {
	fields       []Field // Struct
	elem         Type    // Array: element; Map: key
	value        Type    // Map
	containsNull bool    // Array: containsNull; Map: valueContainsNull
}

var (
	BooleanType      = Type{Kind: Boolean, Name: "boolean"}
	ByteType         = Type{Kind: Byte, Name: "byte"}
	ShortType        = Type{Kind: Short, Name: "short"}
	IntType          = Type{Kind: Int, Name: "integer"}
	LongType         = Type{Kind: Long, Name: "long"}
	FloatType        = Type{Kind: Float, Name: "float"}
	DoubleType       = Type{Kind: Double, Name: "double"}
	StringType       = Type{Kind: String, Name: "string"}
	BinaryType       = Type{Kind: Binary, Name: "binary"}
	DateType         = Type{Kind: Date, Name: "date"}
	TimestampType    = Type{Kind: Timestamp, Name: "timestamp"}
	TimestampNTZType = Type{Kind: TimestampNTZ, Name: "timestamp_ntz"}
	NullType         = Type{Kind: Null, Name: "void"}
)

// DecimalOf returns decimal(p, s).
func DecimalOf(p, s int32) Type {
	return Type{Kind: Decimal, Precision: p, Scale: s, Name: fmt.Sprintf("decimal(%d,%d)", p, s)}
}

var decimalRe = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$`)

var simple = map[string]Type{
	"boolean": BooleanType, "byte": ByteType, "short": ShortType, "integer": IntType,
	"long": LongType, "float": FloatType, "double": DoubleType, "string": StringType,
	"binary": BinaryType, "date": DateType, "timestamp": TimestampType,
	"timestamp_ntz": TimestampNTZType, "void": NullType,
}

// plainString decodes a JSON string of printable ASCII without escapes (every type name Spark
// writes), which is its text as it is: planning parses types by the thousand, and encoding/json
// would validate and reflect for each.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	for _, c := range in {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(in), true
}

// plainDecimal reads "decimal(p,s)" as Spark writes it (no spaces, small non-negative numbers)
// without the regular expression, which also reads the other forms.
func plainDecimal(s string) (p, sc int32, ok bool) {
	inner, ok := strings.CutPrefix(s, "decimal(")
	if !ok {
		return 0, 0, false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return 0, 0, false
	}
	ps, ss, ok := strings.Cut(inner, ",")
	if !ok {
		return 0, 0, false
	}
	num := func(d string) (int32, bool) {
		if len(d) == 0 || len(d) > 4 {
			return 0, false
		}
		n := int32(0)
		for _, c := range []byte(d) {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int32(c-'0')
		}
		return n, true
	}
	p, okP := num(ps)
	sc, okS := num(ss)
	return p, sc, okP && okS
}

// Parse reads Spark's DataType.json form. Types the engine does not know come back as Unsupported
// with their name (never an error) so that planning can refuse them with a reason.
func Parse(raw json.RawMessage) (Type, error) {
	s, ok := plainString(raw)
	if !ok {
		ok = json.Unmarshal(raw, &s) == nil
	}
	if ok {
		if t, ok := simple[s]; ok {
			return t, nil
		}
		if p, sc, ok := plainDecimal(s); ok {
			return DecimalOf(p, sc), nil
		}
		if m := decimalRe.FindStringSubmatch(s); m != nil {
			p, _ := strconv.Atoi(m[1])
			sc, _ := strconv.Atoi(m[2])
			return DecimalOf(int32(p), int32(sc)), nil
		}
		return Type{Kind: Unsupported, Name: s}, nil
	}
	var obj struct {
		Type              string          `json:"type"`
		Fields            []jsonField     `json:"fields"`
		ElementType       json.RawMessage `json:"elementType"`
		ContainsNull      bool            `json:"containsNull"`
		KeyType           json.RawMessage `json:"keyType"`
		ValueType         json.RawMessage `json:"valueType"`
		ValueContainsNull bool            `json:"valueContainsNull"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Type{}, fmt.Errorf("parse Spark data type %s: %w", string(raw), err)
	}
	switch obj.Type {
	case "struct":
		fs := make([]Field, len(obj.Fields))
		for i, f := range obj.Fields {
			t, err := Parse(f.Type)
			if err != nil {
				return Type{}, err
			}
			fs[i] = Field{Name: f.Name, Type: t, Nullable: f.Nullable}
		}
		return StructOf(fs...), nil
	case "array":
		e, err := Parse(obj.ElementType)
		if err != nil {
			return Type{}, err
		}
		return ArrayOf(e, obj.ContainsNull), nil
	case "map":
		k, err := Parse(obj.KeyType)
		if err != nil {
			return Type{}, err
		}
		v, err := Parse(obj.ValueType)
		if err != nil {
			return Type{}, err
		}
		return MapOf(k, v, obj.ValueContainsNull), nil
	}
	return Type{Kind: Unsupported, Name: obj.Type}, nil
}

type jsonField struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable bool            `json:"nullable"`
}

// StructOf returns struct<fields>.
func StructOf(fields ...Field) Type {
	var b strings.Builder
	b.WriteString("struct<")
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.Name + ":" + f.Type.CatalogString())
	}
	b.WriteByte('>')
	return Type{Kind: Struct, Name: b.String(), nest: &nested{fields: fields}}
}

// ArrayOf returns array<elem>.
func ArrayOf(elem Type, containsNull bool) Type {
	return Type{Kind: Array, Name: "array<" + elem.CatalogString() + ">", nest: &nested{elem: elem, containsNull: containsNull}}
}

// MapOf returns map<key,value>.
func MapOf(key, value Type, valueContainsNull bool) Type {
	return Type{Kind: Map, Name: "map<" + key.CatalogString() + "," + value.CatalogString() + ">",
		nest: &nested{elem: key, value: value, containsNull: valueContainsNull}}
}

// Nested reports whether t is a struct, an array or a map.
func (t Type) Nested() bool { return t.Kind == Struct || t.Kind == Array || t.Kind == Map }

// Fields are the fields of a struct (nil for other types).
func (t Type) Fields() []Field {
	if t.Kind != Struct {
		return nil
	}
	return t.nest.fields
}

// Elem is the element type of an array and whether elements may be null.
func (t Type) Elem() (Type, bool) {
	if t.Kind != Array {
		return Type{}, false
	}
	return t.nest.elem, t.nest.containsNull
}

// KeyValue is the key and value types of a map and whether values may be null.
func (t Type) KeyValue() (key, value Type, valueContainsNull bool) {
	if t.Kind != Map {
		return Type{}, Type{}, false
	}
	return t.nest.elem, t.nest.value, t.nest.containsNull
}

// Supported reports whether operators can compute on columns of this type: the atomic types.
// Nested types are not Supported (see Readable).
func (t Type) Supported() bool {
	return t.Kind != Unsupported && t.Kind != Null && !t.Nested()
}

// Readable reports whether a scan can produce columns of this type natively: a Supported type,
// or a nested type made of Readable types. Only operators that say so accept the nested ones.
func (t Type) Readable() bool {
	switch t.Kind {
	case Struct:
		for _, f := range t.nest.fields {
			if !f.Type.Readable() {
				return false
			}
		}
		return true
	case Array:
		return t.nest.elem.Readable()
	case Map:
		return t.nest.elem.Readable() && t.nest.value.Readable()
	}
	return t.Supported()
}

func (t Type) String() string { return t.Name }

// CatalogString is the type as Spark's DataType.catalogString writes it (in error messages).
func (t Type) CatalogString() string {
	switch t.Kind {
	case Byte:
		return "tinyint"
	case Short:
		return "smallint"
	case Int:
		return "int"
	case Long:
		return "bigint"
	}
	return t.Name
}

// IsIntegral: byte, short, int, long.
func (t Type) IsIntegral() bool {
	return t.Kind == Byte || t.Kind == Short || t.Kind == Int || t.Kind == Long
}

// IsFloating: float, double.
func (t Type) IsFloating() bool { return t.Kind == Float || t.Kind == Double }

// IsNumeric: integral, floating or decimal.
func (t Type) IsNumeric() bool { return t.IsIntegral() || t.IsFloating() || t.Kind == Decimal }

// Equal compares kinds and, for decimals, precision and scale.
func (t Type) Equal(o Type) bool {
	if t.Kind != o.Kind || t.Precision != o.Precision || t.Scale != o.Scale || t.Kind == Unsupported && t.Name != o.Name {
		return false
	}
	if !t.Nested() {
		return true
	}
	a, b := t.nest, o.nest
	if a.containsNull != b.containsNull || !a.elem.Equal(b.elem) || !a.value.Equal(b.value) || len(a.fields) != len(b.fields) {
		return false
	}
	for i := range a.fields {
		if a.fields[i].Name != b.fields[i].Name || a.fields[i].Nullable != b.fields[i].Nullable || !a.fields[i].Type.Equal(b.fields[i].Type) {
			return false
		}
	}
	return true
}

// TimestampArrowType is the Arrow type of Spark's TIMESTAMP. The zone only tags the column: the
// values are UTC microseconds either way, and Spark's ArrowColumnVector reads any zone.
var TimestampArrowType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// TimestampNTZArrowType is the Arrow type of Spark's TIMESTAMP_NTZ (no zone).
var TimestampNTZArrowType = &arrow.TimestampType{Unit: arrow.Microsecond}

// Arrow returns the Arrow type that carries values of t, or nil when t is not supported.
func (t Type) Arrow() arrow.DataType {
	switch t.Kind {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Byte:
		return arrow.PrimitiveTypes.Int8
	case Short:
		return arrow.PrimitiveTypes.Int16
	case Int:
		return arrow.PrimitiveTypes.Int32
	case Long:
		return arrow.PrimitiveTypes.Int64
	case Float:
		return arrow.PrimitiveTypes.Float32
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Decimal:
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}
	case String:
		return arrow.BinaryTypes.String
	case Binary:
		return arrow.BinaryTypes.Binary
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Timestamp:
		return TimestampArrowType
	case TimestampNTZ:
		return TimestampNTZArrowType
	case Null:
		return arrow.Null
	case Struct:
		fs := make([]arrow.Field, len(t.nest.fields))
		for i, f := range t.nest.fields {
			if fs[i].Type = f.Type.Arrow(); fs[i].Type == nil {
				return nil
			}
			fs[i].Name, fs[i].Nullable = f.Name, f.Nullable
		}
		return arrow.StructOf(fs...)
	case Array:
		e := t.nest.elem.Arrow()
		if e == nil {
			return nil
		}
		return arrow.ListOfField(arrow.Field{Name: "element", Type: e, Nullable: t.nest.containsNull})
	case Map:
		k, v := t.nest.elem.Arrow(), t.nest.value.Arrow()
		if k == nil || v == nil {
			return nil
		}
		m := arrow.MapOf(k, v)
		m.SetItemNullable(t.nest.containsNull)
		return m
	}
	return nil
}

// Field is a named, typed column of a native schema.
type Field struct {
	Name     string
	Type     Type
	Nullable bool
}

// ArrowSchema builds the Arrow schema of a list of fields.
func ArrowSchema(fields []Field) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: f.Nullable}
	}
	return arrow.NewSchema(fs, nil)
}
