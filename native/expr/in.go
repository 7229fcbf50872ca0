package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// In and InSet (predicates.scala): null when the value is null; true when some list element
// equals it (ordering.equiv: NaN = NaN, -0.0 = 0.0); otherwise null when the list holds a null,
// else false. The list must consist of literals of the value's type.

func init() {
	Register("In", "value IN (literal list) with SQL null semantics; non-literal lists refused", translateIn)
	Register("InSet", "value IN (set) for integral/date/timestamp values when the set is encoded as a JSON array of numbers; otherwise refused", translateInSet)
}

type inList struct {
	value   Expr
	typ     sparktype.Type
	hasNull bool
	ints    []int64  // integral, date, timestamp, boolean (0/1)
	fbits   []uint64 // float/double, normalized bit patterns
	strs    [][]byte
	decs    []decimal128.Num
	text    string
}

func (e *inList) Type() sparktype.Type { return sparktype.BooleanType }
func (e *inList) mayFail() bool        { return mayFail(e.value) }
func (e *inList) String() string       { return fmt.Sprintf("(%s IN (%s))", e.value, e.text) }

func inKindSupported(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Float, sparktype.Double, sparktype.Decimal, sparktype.String, sparktype.Binary,
		sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
		return true
	}
	return false
}

func translateIn(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	v, err := translateChild(pe, "value", conf)
	if err != nil {
		return nil, err
	}
	items, err := translateChildren(pe, "list", conf)
	if err != nil {
		return nil, err
	}
	t := v.Type()
	if !inKindSupported(t) {
		return nil, unsupported("In over %s is not supported natively", t)
	}
	e := &inList{value: v, typ: t}
	var texts []string
	for _, it := range items {
		lit, ok := it.(*Literal)
		if !ok {
			return nil, unsupported("In with a non-literal list element (%s) is not supported natively", it)
		}
		texts = append(texts, lit.String())
		if lit.IsNull() {
			e.hasNull = true
			continue
		}
		if !lit.Type().Equal(t) {
			return nil, unsupported("In of %s with a %s element is not supported natively", t, lit.Type())
		}
		e.add(lit.one)
	}
	e.text = strings.Join(texts, ", ")
	return e, nil
}

func normFloatBits(f float64) uint64 {
	if f != f {
		return math.Float64bits(math.NaN())
	}
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

// add appends the value of a one-row array.
func (e *inList) add(one arrow.Array) {
	switch e.typ.Kind {
	case sparktype.Boolean:
		e.ints = append(e.ints, int64(b2u(values1Bool(one))))
	case sparktype.Byte:
		e.ints = append(e.ints, int64(values[int8](one)[0]))
	case sparktype.Short:
		e.ints = append(e.ints, int64(values[int16](one)[0]))
	case sparktype.Int, sparktype.Date:
		e.ints = append(e.ints, int64(values[int32](one)[0]))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		e.ints = append(e.ints, values[int64](one)[0])
	case sparktype.Float:
		e.fbits = append(e.fbits, normFloatBits(float64(values[float32](one)[0])))
	case sparktype.Double:
		e.fbits = append(e.fbits, normFloatBits(values[float64](one)[0]))
	case sparktype.Decimal:
		e.decs = append(e.decs, values[decimal128.Num](one)[0])
	case sparktype.String, sparktype.Binary:
		offs, data := binaryParts(one)
		e.strs = append(e.strs, append([]byte(nil), data[offs[0]:offs[1]]...))
	}
}

func translateInSet(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	v, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	raw, err := pe.Raw("hset")
	if err != nil {
		return nil, err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, unsupported("InSet: its set is not encoded (%s)", truncate(string(raw), 80))
	}
	t := v.Type()
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ:
	default:
		return nil, unsupported("InSet over %s is not supported natively", t)
	}
	e := &inList{value: v, typ: t, text: fmt.Sprintf("%d values", len(elems))}
	for _, el := range elems {
		if isJSONNull(el) {
			e.hasNull = true
			continue
		}
		var x int64
		if err := json.Unmarshal(el, &x); err != nil {
			return nil, unsupported("InSet: set element %s is not an integer", truncate(string(el), 40))
		}
		e.ints = append(e.ints, x)
	}
	return e, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func (e *inList) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *inList) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	in, err := evalActive(ctx, b, e.value, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	obuf, out := newBitmap(ctx.Alloc, n)
	switch e.typ.Kind {
	case sparktype.Boolean:
		d := in.Data()
		bm := d.Buffers()[1].Bytes()
		for i := 0; i < n; i++ {
			x := int64(b2u(bitutil.BitIsSet(bm, d.Offset()+i)))
			out[i>>3] |= b2u(containsInt(e.ints, x)) << (i & 7)
		}
	case sparktype.Byte:
		inInts(values[int8](in), e.ints, out)
	case sparktype.Short:
		inInts(values[int16](in), e.ints, out)
	case sparktype.Int, sparktype.Date:
		inInts(values[int32](in), e.ints, out)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		inInts(values[int64](in), e.ints, out)
	case sparktype.Float:
		for i, x := range values[float32](in) {
			out[i>>3] |= b2u(containsU64(e.fbits, normFloatBits(float64(x)))) << (i & 7)
		}
	case sparktype.Double:
		for i, x := range values[float64](in) {
			out[i>>3] |= b2u(containsU64(e.fbits, normFloatBits(x))) << (i & 7)
		}
	case sparktype.Decimal:
		for i, x := range values[decimal128.Num](in) {
			hit := false
			for _, y := range e.decs {
				if x == y {
					hit = true
					break
				}
			}
			out[i>>3] |= b2u(hit) << (i & 7)
		}
	case sparktype.String, sparktype.Binary:
		offs, data := binaryParts(in)
		for i := 0; i < n; i++ {
			v := data[offs[i]:offs[i+1]]
			hit := false
			for _, y := range e.strs {
				if bytes.Equal(v, y) {
					hit = true
					break
				}
			}
			out[i>>3] |= b2u(hit) << (i & 7)
		}
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	if e.hasNull {
		// No match -> null.
		vb := vbuf
		if vb == nil {
			var bits []byte
			vb, bits = newBitmap(ctx.Alloc, n)
			bitutil.SetBitsTo(bits, 0, int64(n), true)
		}
		bits := vb.Bytes()
		for i := range out {
			bits[i] &= out[i]
		}
		vbuf, nulls = vb, countNulls(bits, n)
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, vbuf, obuf, nulls), nil
}

func inInts[T integer](vals []T, set []int64, out []byte) {
	for i, x := range vals {
		out[i>>3] |= b2u(containsInt(set, int64(x))) << (i & 7)
	}
}

func containsInt(set []int64, x int64) bool {
	for _, y := range set {
		if x == y {
			return true
		}
	}
	return false
}

func containsU64(set []uint64, x uint64) bool {
	for _, y := range set {
		if x == y {
			return true
		}
	}
	return false
}
