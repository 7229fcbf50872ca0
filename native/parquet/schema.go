package parquet

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// logical is the annotation of a leaf column, from its LogicalType or, for older writers, its
// ConvertedType.
type logical uint8

const (
	lNone logical = iota
	lString
	lInt // Integer(bits, signed)
	lDate
	lDecimal
	lTimestamp
	lTime
	lOther // an annotation the reader does not map (interval, float16, UUID, ...)
)

// timeUnit of TIMESTAMP annotations.
type timeUnit uint8

const (
	unitMicros timeUnit = iota
	unitMillis
	unitNanos
)

// leafInfo describes one primitive top-level column of the file.
type leafInfo struct {
	name     string
	index    int // ordinal among all leaf columns = column chunk index in a row group
	phys     format.Type
	typeLen  int // FIXED_LEN_BYTE_ARRAY width
	maxDef   byte
	logical  logical
	bits     int  // lInt
	signed   bool // lInt
	prec     int32
	scale    int32
	utc      bool // lTimestamp
	unit     timeUnit
	annotStr string
}

// topField is one top-level field of the file schema.
type topField struct {
	name string
	id   int32     // the Parquet field_id (Iceberg's field id); 0 when the file has none
	leaf *leafInfo // nil for groups and repeated fields
	desc string    // for errors
}

type fileSchema struct {
	top       []topField
	numLeaves int
	els       []format.SchemaElement // the whole schema, for nested columns (nested.go)
	nodes     []*pnode               // the top-level fields as trees, parsed when needed
	ownIDs    bool                   // the file carries field ids (not assigned by assignIDs)
}

func readSchema(meta *format.FileMetaData) (*fileSchema, error) {
	els := meta.Schema
	if len(els) == 0 {
		return nil, fmt.Errorf("the file has no schema")
	}
	s := &fileSchema{els: els}
	pos := 1
	nchild := 0
	if els[0].NumChildren.Valid {
		nchild = int(els[0].NumChildren.V)
	}
	if nchild < 0 || nchild > len(els) {
		return nil, fmt.Errorf("corrupt schema: root has %d children, %d elements", nchild, len(els))
	}
	for i := 0; i < nchild; i++ {
		if pos >= len(els) {
			return nil, fmt.Errorf("corrupt schema: %d elements, root declares %d children", len(els), nchild)
		}
		el := &els[pos]
		if el.NumChildren.Valid && el.NumChildren.V > 0 || !el.Type.Valid {
			next, leaves, err := skipGroup(els, pos, 0)
			if err != nil {
				return nil, err
			}
			s.top = append(s.top, topField{name: el.Name, id: el.FieldID, desc: "group"})
			s.numLeaves += leaves
			pos = next
			continue
		}
		rep := format.Required
		if el.RepetitionType.Valid {
			rep = el.RepetitionType.V
		}
		if rep == format.Repeated {
			s.top = append(s.top, topField{name: el.Name, id: el.FieldID, desc: "repeated " + physName(el)})
			s.numLeaves++
			pos++
			continue
		}
		l := &leafInfo{name: el.Name, index: s.numLeaves, phys: el.Type.V}
		if rep == format.Optional {
			l.maxDef = 1
		}
		if el.TypeLength.Valid {
			l.typeLen = int(el.TypeLength.V)
		}
		classify(el, l)
		s.top = append(s.top, topField{name: el.Name, id: el.FieldID, leaf: l, desc: l.String()})
		s.numLeaves++
		pos++
	}
	return s, nil
}

// skipGroup returns the position after the subtree at pos and the number of leaves in it.
func skipGroup(els []format.SchemaElement, pos, depth int) (int, int, error) {
	if depth > 100 {
		return 0, 0, fmt.Errorf("corrupt schema: nesting deeper than 100")
	}
	el := &els[pos]
	pos++
	if !el.NumChildren.Valid || el.NumChildren.V <= 0 {
		if !el.Type.Valid {
			return 0, 0, fmt.Errorf("corrupt schema: element %q has neither type nor children", el.Name)
		}
		return pos, 1, nil
	}
	leaves := 0
	for i := 0; i < int(el.NumChildren.V); i++ {
		if pos >= len(els) {
			return 0, 0, fmt.Errorf("corrupt schema: group %q declares more children than there are elements", el.Name)
		}
		next, n, err := skipGroup(els, pos, depth+1)
		if err != nil {
			return 0, 0, err
		}
		pos, leaves = next, leaves+n
	}
	return pos, leaves, nil
}

func physName(el *format.SchemaElement) string {
	if !el.Type.Valid {
		return "group"
	}
	return el.Type.V.String()
}

func classify(el *format.SchemaElement, l *leafInfo) {
	switch lt := el.LogicalType.Value.(type) {
	case *format.StringType, *format.EnumType, *format.JsonType, *format.BsonType:
		l.logical, l.annotStr = lString, lt.String()
		return
	case *format.DecimalType:
		l.logical, l.prec, l.scale, l.annotStr = lDecimal, lt.Precision, lt.Scale, lt.String()
		return
	case *format.DateType:
		l.logical, l.annotStr = lDate, lt.String()
		return
	case *format.TimeType:
		l.logical, l.annotStr = lTime, lt.String()
		return
	case *format.TimestampType:
		l.logical, l.utc, l.annotStr = lTimestamp, lt.IsAdjustedToUTC, lt.String()
		switch lt.Unit.Value.(type) {
		case *format.MilliSeconds:
			l.unit = unitMillis
		case *format.MicroSeconds:
			l.unit = unitMicros
		default:
			l.unit = unitNanos
		}
		return
	case *format.IntType:
		l.logical, l.bits, l.signed, l.annotStr = lInt, int(lt.BitWidth), lt.IsSigned, lt.String()
		return
	case nil:
	default:
		l.logical, l.annotStr = lOther, lt.String()
		return
	}
	if !el.ConvertedType.Valid {
		return
	}
	ct := el.ConvertedType.V
	l.annotStr = convertedName(ct)
	switch ct {
	case deprecated.UTF8, deprecated.Enum, deprecated.Json, deprecated.Bson:
		l.logical = lString
	case deprecated.Decimal:
		l.logical = lDecimal
		if el.Precision.Valid {
			l.prec = el.Precision.V
		}
		if el.Scale.Valid {
			l.scale = el.Scale.V
		}
		l.annotStr = fmt.Sprintf("DECIMAL(%d,%d)", l.prec, l.scale)
	case deprecated.Date:
		l.logical = lDate
	case deprecated.TimeMillis, deprecated.TimeMicros:
		l.logical = lTime
	case deprecated.TimestampMillis:
		l.logical, l.utc, l.unit = lTimestamp, true, unitMillis
	case deprecated.TimestampMicros:
		l.logical, l.utc, l.unit = lTimestamp, true, unitMicros
	case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		l.logical, l.signed = lInt, true
		l.bits = map[deprecated.ConvertedType]int{deprecated.Int8: 8, deprecated.Int16: 16, deprecated.Int32: 32, deprecated.Int64: 64}[ct]
	case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		l.logical = lInt
		l.bits = map[deprecated.ConvertedType]int{deprecated.Uint8: 8, deprecated.Uint16: 16, deprecated.Uint32: 32, deprecated.Uint64: 64}[ct]
	default:
		l.logical = lOther
	}
}

// String describes the Parquet type for error messages, e.g. "INT64 (TIMESTAMP(...))".
func (l *leafInfo) String() string {
	s := l.phys.String()
	if l.phys == format.FixedLenByteArray {
		s = fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", l.typeLen)
	}
	if l.annotStr != "" {
		s += " (" + l.annotStr + ")"
	}
	return s
}

func (l *leafInfo) unsigned() bool { return l.logical == lInt && !l.signed }

// plainSignedInt: an integer column without annotation or with a signed INT annotation.
func (l *leafInfo) plainSignedInt() bool {
	return l.logical == lNone || l.logical == lInt && l.signed
}

// conv says how a file column becomes a Spark column.
type conv uint8

const (
	cvMissing conv = iota // absent from the file: all nulls
	cvBool
	cvI32     // INT32 -> int32 (int, date, uint16)
	cvI32toI8 // INT32 -> byte
	cvI32toI16
	cvI32toI64
	cvU32toI64
	cvI32toF64
	cvI64
	cvI64Millis // INT64 millis -> micros
	cvF32
	cvF32toF64
	cvF64
	cvDecI32
	cvDecI64
	cvDecU64
	cvDecFLBA
	cvDecBA
	cvInt96
	cvDateToNTZ // INT32 DATE -> TIMESTAMP_NTZ micros
	cvBytes     // BYTE_ARRAY -> string / binary
	cvFLBABytes // FIXED_LEN_BYTE_ARRAY -> binary
	cvNested    // a struct, array or map column (nested.go)
	cvUUID      // Iceberg's uuid: FIXED_LEN_BYTE_ARRAY(16) -> canonical string (uuid.go)
)

// lookupTop finds a top-level field by name. ok is false when absent; an error when the name is
// ambiguous in case-insensitive mode (Spark's behaviour).
func lookupTop(s *fileSchema, name string, caseSensitive bool) (*topField, bool, error) {
	var found *topField
	var names []string
	for i := range s.top {
		t := &s.top[i]
		if sameName(t.name, name, caseSensitive) {
			if found == nil {
				found = t
			}
			names = append(names, t.name)
		}
	}
	if len(names) > 1 {
		return nil, false, fmt.Errorf("found duplicate field(s) %q: [%s] in case-insensitive mode", name, strings.Join(names, ", "))
	}
	return found, found != nil, nil
}

// hasIDs: some top-level field carries a field id (Iceberg's ParquetSchemaUtil.hasIds looks at
// every field; a file written by Iceberg has ids on all of them).
func (s *fileSchema) hasIDs() bool {
	for i := range s.top {
		if s.top[i].id != 0 {
			return true
		}
	}
	return false
}

// assignIDs gives a file without field ids the ids Iceberg would read it with: those of the
// table's name mapping (exact top-level names), or, without a mapping, the fallback ids
// Iceberg's ParquetSchemaUtil.addFallbackIds assigns (1, 2, ... in field order).
func (s *fileSchema) assignIDs(byName map[string]int32) {
	for i := range s.top {
		if byName != nil {
			s.top[i].id = byName[s.top[i].name]
		} else {
			s.top[i].id = int32(i + 1)
		}
	}
}

// lookupID finds a top-level field by field id.
func lookupID(s *fileSchema, id int32) (*topField, bool, error) {
	var found *topField
	for i := range s.top {
		if id != 0 && s.top[i].id == id {
			if found != nil {
				return nil, false, fmt.Errorf("field id %d appears twice in the file schema (%s, %s)", id, found.name, s.top[i].name)
			}
			found = &s.top[i]
		}
	}
	return found, found != nil, nil
}

func planColumn(s *fileSchema, f sparktype.Field, caseSensitive bool, id int32, byID bool, fn *FieldNode,
	mapping map[string][]MappedName) (*column, error) {
	if f.Type.Nested() {
		return planNested(s, f, caseSensitive, id, byID, fn, mapping)
	}
	dt := f.Type.Arrow()
	if dt == nil || !f.Type.Supported() {
		return nil, fmt.Errorf("column %s: Spark type %s is not supported by the native Parquet reader", f.Name, f.Type)
	}
	c := &column{field: f, dt: dt}
	var t *topField
	var ok bool
	var err error
	if byID {
		t, ok, err = lookupID(s, id)
	} else {
		t, ok, err = lookupTop(s, f.Name, caseSensitive)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		c.conv = cvMissing
		return c, nil
	}
	mismatch := func(physical string) error {
		return &TypeMismatchError{Column: "[" + t.name + "]", Physical: physical, Spark: f.Type.CatalogString(),
			Detail: fmt.Sprintf("column %s: Parquet type %s cannot be read as Spark type %s", t.name, t.desc, f.Type)}
	}
	if t.leaf == nil {
		return nil, mismatch(t.desc)
	}
	cv, up, ok := conversion(t.leaf, f.Type)
	if byID && f.Type.Kind == sparktype.String && isUUID(t.leaf) {
		cv, ok = cvUUID, true // Iceberg's uuid (uuid.go)
	}
	if !ok {
		return nil, mismatch(t.leaf.phys.String())
	}
	c.leaf, c.conv, c.up = t.leaf, cv, up
	c.init()
	return c, nil
}

// conversion decides whether a leaf can be read as a Spark type, and how. It follows Spark's
// vectorized reader (ParquetVectorUpdaterFactory.getUpdater), branch by branch and in its order,
// so the native reader reads exactly the columns Spark reads: a column Spark would refuse fails
// the same way (PARQUET_COLUMN_DATA_TYPE_MISMATCH), and none that Spark reads is refused. up is
// the power of ten decimal widening multiplies the file's unscaled values by.
func conversion(l *leafInfo, t sparktype.Type) (cv conv, up int32, ok bool) {
	k := t.Kind
	dec := func(c conv) (conv, int32, bool) {
		if up, ok := decimalWidening(l, t); ok {
			return c, up, true
		}
		return 0, 0, false
	}
	switch l.phys {
	case format.Boolean:
		if k == sparktype.Boolean {
			return cvBool, 0, true
		}
	case format.Int32:
		switch k {
		case sparktype.Int:
			return cvI32, 0, true
		case sparktype.Long:
			if l.unsigned() && l.bits == 32 {
				return cvU32toI64, 0, true
			}
			return cvI32toI64, 0, true
		case sparktype.Byte:
			return cvI32toI8, 0, true
		case sparktype.Short:
			return cvI32toI16, 0, true
		case sparktype.Double:
			return cvI32toF64, 0, true
		case sparktype.Date:
			return cvI32, 0, true
		case sparktype.TimestampNTZ:
			if l.logical == lDate {
				return cvDateToNTZ, 0, true
			}
		case sparktype.Decimal:
			return dec(cvDecI32)
		}
	case format.Int64:
		switch k {
		case sparktype.Long:
			return cvI64, 0, true
		case sparktype.Decimal:
			if cv, up, ok := dec(cvDecI64); ok {
				return cv, up, true
			}
			if l.unsigned() && l.bits == 64 && t.Precision == 20 && t.Scale == 0 {
				return cvDecU64, 0, true
			}
		case sparktype.Timestamp, sparktype.TimestampNTZ:
			if l.logical == lTimestamp {
				switch l.unit {
				case unitMicros:
					return cvI64, 0, true
				case unitMillis:
					return cvI64Millis, 0, true
				}
			}
		}
	case format.Int96:
		if k == sparktype.Timestamp || k == sparktype.TimestampNTZ {
			return cvInt96, 0, true
		}
	case format.Float:
		switch k {
		case sparktype.Float:
			return cvF32, 0, true
		case sparktype.Double:
			return cvF32toF64, 0, true
		}
	case format.Double:
		if k == sparktype.Double {
			return cvF64, 0, true
		}
	case format.ByteArray:
		switch k {
		case sparktype.String, sparktype.Binary:
			return cvBytes, 0, true
		case sparktype.Decimal:
			return dec(cvDecBA)
		}
	case format.FixedLenByteArray:
		switch k {
		case sparktype.Decimal:
			if l.typeLen >= 1 && l.typeLen <= 16 {
				return dec(cvDecFLBA)
			}
		case sparktype.Binary:
			if l.typeLen >= 0 {
				return cvFLBABytes, 0, true
			}
		}
	}
	return 0, 0, false
}

// decimalWidening is Spark's isDecimalTypeMatched: a decimal column is readable at a larger scale
// when the precision grows at least as much as the scale; a signed (or unannotated) integer
// column when the requested decimal has room for every value of its type (10 integer digits for
// INT32, 20 for INT64). up is the scale increase.
func decimalWidening(l *leafInfo, t sparktype.Type) (up int32, ok bool) {
	if t.Kind != sparktype.Decimal || t.Precision > sparktype.MaxDecimalPrecision {
		return 0, false
	}
	switch {
	case l.logical == lDecimal:
		up = t.Scale - l.scale
		return up, up >= 0 && t.Precision-l.prec >= up
	case l.plainSignedInt():
		digits := t.Precision - t.Scale
		switch l.phys {
		case format.Int32:
			return t.Scale, digits >= 10
		case format.Int64:
			return t.Scale, digits >= 20
		}
	}
	return 0, false
}

// physWidth is the byte width of one PLAIN value of a fixed-width physical type (0 for
// BYTE_ARRAY, and for BOOLEAN, whose values are bits).
func physWidth(l *leafInfo) int {
	switch l.phys {
	case format.Int32, format.Float:
		return 4
	case format.Int64, format.Double:
		return 8
	case format.Int96:
		return 12
	case format.FixedLenByteArray:
		return l.typeLen
	}
	return 0
}

var convertedNames = [...]string{"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
	"UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"}

func convertedName(ct deprecated.ConvertedType) string {
	if int(ct) >= 0 && int(ct) < len(convertedNames) {
		return convertedNames[ct]
	}
	return fmt.Sprintf("converted type %d", ct)
}
