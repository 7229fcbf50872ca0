package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// ---- building encoded expressions (the JSON the JVM encoder sends) ----

const pkg = "org.apache.spark.sql.catalyst.expressions."

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// col is a bound AttributeReference to input column ord.
func col(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		pkg+"AttributeReference", q(typ), ord, ord)
}

// lit is a Literal; value is the encoded value JSON (see plan/wire.go).
func lit(typ, value string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{"value":%s}}`, pkg+"Literal", q(typ), value)
}

func litInt(v int64) string { return lit("integer", fmt.Sprint(v)) }
func litDouble(v float64) string {
	return lit("double", fmt.Sprintf(`{"bits":%d}`, int64(math.Float64bits(v))))
}
func litStr(s string) string {
	return lit("string", fmt.Sprintf(`{"b64":%q}`, base64.StdEncoding.EncodeToString([]byte(s))))
}
func litDec(unscaled string, p, s int) string {
	return lit(fmt.Sprintf("decimal(%d,%d)", p, s), fmt.Sprintf(`{"unscaled":%q,"precision":%d,"scale":%d}`, unscaled, p, s))
}

// node builds an expression of class with fields (name -> raw JSON).
func node(class, typ string, fields ...string) string {
	var fs []string
	for i := 0; i+1 < len(fields); i += 2 {
		fs = append(fs, fmt.Sprintf("%q:%s", fields[i], fields[i+1]))
	}
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{%s}}`, pkg+class, q(typ), strings.Join(fs, ","))
}

// arithJSON builds a Spark 4.1 binary arithmetic node with its NumericEvalContext.
func arithJSON(class, typ, mode, l, r string) string {
	ctx := fmt.Sprintf(`{"class":%q,"fields":{"evalMode":%q,"allowDecimalPrecisionLoss":true}}`, pkg+"NumericEvalContext", mode)
	return node(class, typ, "left", l, "right", r, "evalContext", ctx)
}

func castJSON(child, to, mode string) string {
	return node("Cast", to, "child", child, "dataType", fmt.Sprintf(`{"type":%s}`, q(to)), "timeZoneId", `"UTC"`, "evalMode", q(mode))
}

func parse(t testing.TB, js string) *plan.Expr {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	return &e
}

func mustTranslate(t testing.TB, js string) Expr {
	t.Helper()
	e, err := Translate(parse(t, js), &plan.Conf{})
	if err != nil {
		t.Fatalf("translate %s: %v", js, err)
	}
	return e
}

// ---- batches ----

// column builds an Arrow column of Spark type typ from Go values (nil = null). Decimals are
// given as strings of the unscaled value.
func column(t testing.TB, typ string, vals ...any) arrow.Array {
	t.Helper()
	st, err := sparktype.Parse(json.RawMessage(q(typ)))
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewBuilder(memory.NewTaskAllocator(nil), st.Arrow())
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.BooleanBuilder:
			bb.Append(v.(bool))
		case *array.Int8Builder:
			bb.Append(int8(v.(int)))
		case *array.Int16Builder:
			bb.Append(int16(v.(int)))
		case *array.Int32Builder:
			bb.Append(int32(v.(int)))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v.(int)))
		case *array.Int64Builder:
			switch x := v.(type) {
			case int:
				bb.Append(int64(x))
			case int64:
				bb.Append(x)
			}
		case *array.TimestampBuilder:
			switch x := v.(type) {
			case int:
				bb.Append(arrow.Timestamp(x))
			case int64:
				bb.Append(arrow.Timestamp(x))
			}
		case *array.Float32Builder:
			bb.Append(v.(float32))
		case *array.Float64Builder:
			bb.Append(v.(float64))
		case *array.Decimal128Builder:
			u, ok := new(big.Int).SetString(v.(string), 10)
			if !ok {
				t.Fatalf("bad decimal %v", v)
			}
			bb.Append(decimal128.FromBigInt(u))
		case *array.StringBuilder:
			bb.Append(v.(string))
		case *array.BinaryBuilder:
			bb.Append(v.([]byte))
		default:
			t.Fatalf("no builder for %s", typ)
		}
	}
	arr := b.NewArray()
	// Released when the test ends: the leak check then also proves that no expression releases
	// its input once too often.
	t.Cleanup(arr.Release)
	return arr
}

func batch(cols ...arrow.Array) *columnar.Batch {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	return columnar.NewBatch(cols, n)
}

func newCtx() *exec.TaskContext {
	return &exec.TaskContext{Alloc: memory.NewTaskAllocator(nil), Conf: &plan.Conf{}}
}

// show renders row i of a like Spark would print it ("null" for nulls, decimals plain).
func show(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case *array.Boolean:
		return fmt.Sprint(x.Value(i))
	case *array.Int8:
		return fmt.Sprint(x.Value(i))
	case *array.Int16:
		return fmt.Sprint(x.Value(i))
	case *array.Int32:
		return fmt.Sprint(x.Value(i))
	case *array.Int64:
		return fmt.Sprint(x.Value(i))
	case *array.Date32:
		return fmt.Sprint(int32(x.Value(i)))
	case *array.Timestamp:
		return fmt.Sprint(int64(x.Value(i)))
	case *array.Float32:
		v := x.Value(i)
		if v == 0 && math.Signbit(float64(v)) {
			return "-0.0"
		}
		return fmt.Sprint(v)
	case *array.Float64:
		v := x.Value(i)
		if v == 0 && math.Signbit(v) {
			return "-0.0"
		}
		return fmt.Sprint(v)
	case *array.Decimal128:
		s := x.DataType().(*arrow.Decimal128Type).Scale
		var b big.Int
		return plainString(numToBig(&b, x.Value(i)), s)
	case *array.String:
		// A copy: the value views the column's buffer, which the caller releases next.
		return strings.Clone(x.Value(i))
	case *array.Binary:
		return fmt.Sprintf("%x", x.Value(i))
	}
	return "?"
}

func showAll(a arrow.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		out[i] = show(a, i)
	}
	return out
}

// run translates js, evaluates it over cols and returns the rendered rows or the error.
func run(t testing.TB, js string, cols ...arrow.Array) ([]string, error) {
	t.Helper()
	e := mustTranslate(t, js)
	ctx := newCtx()
	b := batch(cols...)
	if len(cols) == 0 {
		b = columnar.NewBatch(nil, 1)
	}
	out, err := e.Eval(ctx, b)
	if err != nil {
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%s: %d bytes leaked on error", e, ctx.Alloc.Used())
		}
		return nil, err
	}
	if out.Len() != b.NumRows {
		t.Fatalf("%s: %d rows out, %d in", e, out.Len(), b.NumRows)
	}
	if want := e.Type().Arrow(); !arrow.TypeEqual(out.DataType(), want) {
		t.Fatalf("%s: result type %s, want %s", e, out.DataType(), want)
	}
	if v, ok := out.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			t.Fatalf("%s: invalid result: %v", e, err)
		}
	}
	if nn := out.NullN(); nn != countNullsSlow(out) {
		t.Fatalf("%s: NullN %d, bitmap says %d", e, nn, countNullsSlow(out))
	}
	rows := showAll(out)
	out.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
	}
	return rows, nil
}

func expectRows(t *testing.T, name string, got []string, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: unexpected error %v", name, err)
		return
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s:\n got  %v\n want %v", name, got, want)
	}
}

func expectSparkError(t *testing.T, name string, err error, class string, params map[string]string) {
	t.Helper()
	se, ok := exec.AsSparkError(err)
	if !ok {
		t.Errorf("%s: want Spark error %s, got %v", name, class, err)
		return
	}
	if se.Class != class {
		t.Errorf("%s: error class %s, want %s (%v)", name, se.Class, class, se)
	}
	for k, v := range params {
		if se.Params[k] != v {
			t.Errorf("%s: param %s = %q, want %q", name, k, se.Params[k], v)
		}
	}
}

func expectRefused(t *testing.T, name, js, reasonPart string) {
	t.Helper()
	_, err := Translate(parse(t, js), &plan.Conf{})
	if err == nil {
		t.Errorf("%s: translated, want refusal", name)
		return
	}
	if !strings.Contains(err.Error(), reasonPart) {
		t.Errorf("%s: reason %q does not mention %q", name, err, reasonPart)
	}
}

func countNullsSlow(a arrow.Array) int {
	bm := a.NullBitmapBytes()
	if bm == nil {
		if a.DataType().ID() == arrow.NULL {
			return a.Len()
		}
		return 0
	}
	n := 0
	for i := 0; i < a.Len(); i++ {
		if bm[(a.Data().Offset()+i)/8]&(1<<((a.Data().Offset()+i)%8)) == 0 {
			n++
		}
	}
	return n
}

type bigInt = big.Int
