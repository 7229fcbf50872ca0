// Package sparktype owns the engine's view of Spark SQL data types: parsing the JSON form Spark
// writes (DataType.json), and the one mapping from a Spark type to the Arrow type that carries it
// across the JNI boundary (the mapping Spark's own ArrowColumnVector accepts).
package sparktype

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

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

// Parse reads Spark's DataType.json form. Types the engine does not know come back as Unsupported
// with their name (never an error) so that planning can refuse them with a reason.
func Parse(raw json.RawMessage) (Type, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if t, ok := simple[s]; ok {
			return t, nil
		}
		if m := decimalRe.FindStringSubmatch(s); m != nil {
			p, _ := strconv.Atoi(m[1])
			sc, _ := strconv.Atoi(m[2])
			return DecimalOf(int32(p), int32(sc)), nil
		}
		return Type{Kind: Unsupported, Name: s}, nil
	}
	var obj struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Type{}, fmt.Errorf("parse Spark data type %s: %w", string(raw), err)
	}
	return Type{Kind: Unsupported, Name: obj.Type}, nil
}

// Supported reports whether columns of this type can live in native batches.
func (t Type) Supported() bool {
	return t.Kind != Unsupported && t.Kind != Null
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
	return t.Kind == o.Kind && t.Precision == o.Precision && t.Scale == o.Scale &&
		(t.Kind != Unsupported || t.Name == o.Name)
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
