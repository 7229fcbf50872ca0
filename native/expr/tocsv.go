// to_csv (StructsToCsv) over structs of booleans, integers and small-scale decimals with the
// default options. Spark formats each non-null field with its toString and hands the strings to
// univocity's CsvWriter, which trims, quotes and escapes them; the values admitted here never
// hold whitespace, a delimiter, a quote or a line break, so the writer's rules reduce to joining
// them with commas, a null field being empty. The line is empty only for a one-field struct whose
// field is null: univocity then returns no line, and Spark a null string even where to_csv is
// declared non-null (its generated code then fails), so a lone nullable field is refused.
//
// Decimals are admitted up to precision 18 and scale 6: java.math.BigDecimal.toString, which
// Spark's Decimal.toString is, switches to scientific notation below an adjusted exponent of -6
// ("1E-7"), which a scale of at most 6 never reaches. Strings (trimming, quoting, escaping,
// the empty value written as ""), floating values (Java's Double.toString), dates and timestamps
// (Spark's formatters) and any option are refused.
package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("StructsToCsv", "to_csv(struct) with the default options, for structs of booleans, integers and "+
		"decimals of precision <= 18 and scale <= 6", translateStructsToCsv)
}

// maxCsvDecimalScale: BigDecimal.toString stays plain for scales up to 6.
const maxCsvDecimalScale = 6

type structsToCsv struct {
	child  Expr
	fields []sparktype.Field
}

func translateStructsToCsv(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	raw, err := e.Raw("options")
	if err != nil {
		return nil, err
	}
	// The options map is not part of the plan encoding; an empty one is encoded as Scala's
	// EmptyMap object.
	if !strings.Contains(string(raw), "EmptyMap") {
		return nil, unsupported("to_csv with options is not supported natively")
	}
	c, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	ct := c.Type()
	if ct.Kind != sparktype.Struct || len(ct.Fields()) == 0 {
		return nil, unsupported("to_csv of %s is not supported natively", ct)
	}
	if fs := ct.Fields(); len(fs) == 1 && fs[0].Nullable {
		// univocity writes no line for a lone null field, and Spark's result is then null even
		// where to_csv is declared non-null (its generated code fails on it).
		return nil, unsupported("to_csv of a struct with a single nullable field is not supported natively")
	}
	for _, f := range ct.Fields() {
		switch f.Type.Kind {
		case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
		case sparktype.Decimal:
			if f.Type.Precision > 18 || f.Type.Scale < 0 || f.Type.Scale > maxCsvDecimalScale {
				return nil, unsupported("to_csv of a %s field is not supported natively (only decimals of "+
					"precision <= 18 and scale <= %d)", f.Type, maxCsvDecimalScale)
			}
		default:
			return nil, unsupported("to_csv of a %s field is not supported natively (only booleans, integers "+
				"and decimals)", f.Type)
		}
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if t.Kind != sparktype.String {
		return nil, unsupported("to_csv returning %s", t)
	}
	return &structsToCsv{child: c, fields: ct.Fields()}, nil
}

func (s *structsToCsv) Type() sparktype.Type { return sparktype.StringType }
func (s *structsToCsv) mayFail() bool        { return mayFail(s.child) }
func (s *structsToCsv) String() string       { return fmt.Sprintf("to_csv(%s)", s.child) }

// csvField appends field values of rows to a line.
type csvField struct {
	bits []byte // validity (nil: all valid)
	off  int
	put  func(dst []byte, row int) []byte
}

func newCsvField(a arrow.Array, t sparktype.Type) (csvField, error) {
	f := csvField{off: a.Data().Offset()}
	if a.NullN() > 0 {
		f.bits = a.NullBitmapBytes()
	}
	switch c := a.(type) {
	case *array.Boolean:
		f.put = func(dst []byte, row int) []byte { return strconv.AppendBool(dst, c.Value(row)) }
	case *array.Int8:
		v := c.Int8Values()
		f.put = func(dst []byte, row int) []byte { return strconv.AppendInt(dst, int64(v[row]), 10) }
	case *array.Int16:
		v := c.Int16Values()
		f.put = func(dst []byte, row int) []byte { return strconv.AppendInt(dst, int64(v[row]), 10) }
	case *array.Int32:
		v := c.Int32Values()
		f.put = func(dst []byte, row int) []byte { return strconv.AppendInt(dst, int64(v[row]), 10) }
	case *array.Int64:
		v := c.Int64Values()
		f.put = func(dst []byte, row int) []byte { return strconv.AppendInt(dst, v[row], 10) }
	case *array.Decimal128:
		scale := int(t.Scale)
		f.put = func(dst []byte, row int) []byte {
			return appendPlainDecimal(dst, int64(c.Value(row).LowBits()), scale)
		}
	default:
		return f, fmt.Errorf("to_csv: field of Arrow type %s", a.DataType())
	}
	return f, nil
}

// appendPlainDecimal appends unscaled * 10^-scale in BigDecimal.toString's plain form.
func appendPlainDecimal(dst []byte, unscaled int64, scale int) []byte {
	if scale == 0 {
		return strconv.AppendInt(dst, unscaled, 10)
	}
	u := uint64(unscaled)
	if unscaled < 0 {
		dst = append(dst, '-')
		u = uint64(-unscaled) // -MinInt64 wraps to its own magnitude as uint64
	}
	var digits [24]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	if len(ds) <= scale {
		dst = append(dst, '0', '.')
		for i := len(ds); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ds...)
	}
	dst = append(dst, ds[:len(ds)-scale]...)
	dst = append(dst, '.')
	return append(dst, ds[len(ds)-scale:]...)
}

func (s *structsToCsv) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	a, err := s.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	st, ok := a.(*array.Struct)
	if !ok || st.NumField() != len(s.fields) {
		return nil, fmt.Errorf("%s: child is %s, not a struct of %d fields", s, a.DataType(), len(s.fields))
	}
	fs := make([]csvField, len(s.fields))
	for i := range fs {
		if fs[i], err = newCsvField(st.Field(i), s.fields[i].Type); err != nil {
			return nil, err
		}
	}
	n := st.Len()
	var sbits []byte
	soff := st.Data().Offset()
	if st.NullN() > 0 {
		sbits = st.NullBitmapBytes()
	}
	bld := array.NewStringBuilder(ctx.Alloc)
	defer bld.Release()
	bld.Reserve(n)
	var line []byte
	for r := 0; r < n; r++ {
		if sbits != nil && !bitutil.BitIsSet(sbits, soff+r) {
			bld.AppendNull()
			continue
		}
		line = line[:0]
		for i := range fs {
			if i > 0 {
				line = append(line, ',')
			}
			f := &fs[i]
			if f.bits == nil || bitutil.BitIsSet(f.bits, f.off+r) {
				line = f.put(line, r)
			}
		}
		if len(line) == 0 { // univocity writes no line: Spark's result is null
			bld.AppendNull()
			continue
		}
		bld.BinaryBuilder.Append(line)
	}
	return bld.NewArray(), nil
}
