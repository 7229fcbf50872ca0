package join

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Test values, one Go form per Spark type: bool; int64 for the integral, date and timestamp
// types; float64 for float and double; *big.Int (the unscaled value) for decimals; string for
// string and binary; nil for null.

const cat = "org.apache.spark.sql.catalyst.expressions."

// gomem holds the test inputs (the join copies its build side into the task allocator).
var gomem = memory.NewGoAllocator()

func sparkType(t testing.TB, name string) sparktype.Type {
	t.Helper()
	ty, err := sparktype.Parse(json.RawMessage(fmt.Sprintf("%q", name)))
	if err != nil || !ty.Supported() {
		t.Fatalf("type %s: %v", name, err)
	}
	return ty
}

func buildCol(t testing.TB, ty sparktype.Type, vals []any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(gomem, ty.Arrow())
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
			bb.Append(int8(v.(int64)))
		case *array.Int16Builder:
			bb.Append(int16(v.(int64)))
		case *array.Int32Builder:
			bb.Append(int32(v.(int64)))
		case *array.Int64Builder:
			bb.Append(v.(int64))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v.(int64)))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v.(int64)))
		case *array.Float32Builder:
			bb.Append(float32(v.(float64)))
		case *array.Float64Builder:
			bb.Append(v.(float64))
		case *array.Decimal128Builder:
			bb.Append(decimal128.FromBigInt(v.(*big.Int)))
		case *array.StringBuilder:
			bb.Append(v.(string))
		case *array.BinaryBuilder:
			bb.Append([]byte(v.(string)))
		default:
			t.Fatalf("no builder for %s", ty)
		}
	}
	return b.NewArray()
}

func cellOf(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
	case *array.Boolean:
		return c.Value(i)
	case *array.Int8:
		return int64(c.Value(i))
	case *array.Int16:
		return int64(c.Value(i))
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int64:
		return c.Value(i)
	case *array.Date32:
		return int64(c.Value(i))
	case *array.Timestamp:
		return int64(c.Value(i))
	case *array.Float32:
		return float64(c.Value(i))
	case *array.Float64:
		return c.Value(i)
	case *array.Decimal128:
		return c.Value(i).BigInt()
	case *array.String:
		return strings.Clone(c.Value(i))
	case *array.Binary:
		return string(c.Value(i))
	}
	panic(fmt.Sprintf("cellOf %T", a))
}

// show renders a value exactly: floats by their bits, so that -0.0 and NaN payloads are checked.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return fmt.Sprintf("f%016x", math.Float64bits(x))
	case *big.Int:
		return "d" + x.String()
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func showRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = show(v)
	}
	return strings.Join(parts, " ")
}

// source replays batches, handing out new references.
type source struct {
	schema  []sparktype.Field
	batches []*columnar.Batch
	i       int
	closed  int
}

func (s *source) Schema() []sparktype.Field    { return s.schema }
func (s *source) Open(*exec.TaskContext) error { s.i = 0; return nil }
func (s *source) Close()                       { s.closed++ }
func (s *source) Next() (*columnar.Batch, error) {
	if s.i >= len(s.batches) {
		return nil, nil
	}
	b := s.batches[s.i]
	s.i++
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		c.Retain()
		cols[i] = c
	}
	return columnar.NewBatch(cols, b.NumRows), nil
}

func (s *source) release() {
	for _, b := range s.batches {
		b.Release()
	}
}

// newSource cuts rows into batches of random sizes up to maxBatch (some empty, some sliced out
// of a larger array, so that column offsets are exercised).
func newSource(t testing.TB, rng *rand.Rand, types []sparktype.Type, rows [][]any, maxBatch int) *source {
	t.Helper()
	s := &source{}
	for i, ty := range types {
		s.schema = append(s.schema, sparktype.Field{Name: fmt.Sprintf("c%d", i), Type: ty, Nullable: true})
	}
	for lo := 0; lo < len(rows); {
		n := 1 + rng.IntN(maxBatch)
		if rng.IntN(10) == 0 {
			n = 0
		}
		hi := min(len(rows), lo+n)
		part := rows[lo:hi]
		pad := 0
		if rng.IntN(3) == 0 {
			pad = 1 + rng.IntN(5)
		}
		cols := make([]arrow.Array, len(types))
		for c, ty := range types {
			vals := make([]any, 0, len(part)+2*pad)
			for range pad {
				vals = append(vals, rows[rng.IntN(len(rows))][c])
			}
			for _, r := range part {
				vals = append(vals, r[c])
			}
			for range pad {
				vals = append(vals, nil)
			}
			full := buildCol(t, ty, vals)
			if pad > 0 {
				cols[c] = array.NewSlice(full, int64(pad), int64(pad+len(part)))
				full.Release()
			} else {
				cols[c] = full
			}
		}
		s.batches = append(s.batches, columnar.NewBatch(cols, len(part)))
		lo = hi
	}
	return s
}

// emptySource has the schema of types and only empty batches (count of them).
func emptySource(t testing.TB, types []sparktype.Type, count int) *source {
	s := &source{}
	for i, ty := range types {
		s.schema = append(s.schema, sparktype.Field{Name: fmt.Sprintf("c%d", i), Type: ty, Nullable: true})
	}
	for range count {
		cols := make([]arrow.Array, len(types))
		for c, ty := range types {
			cols[c] = buildCol(t, ty, nil)
		}
		s.batches = append(s.batches, columnar.NewBatch(cols, 0))
	}
	return s
}

// genValue draws a value of a type from a small domain (so that keys repeat), with edge values
// (NaNs with different payloads, -0.0, extreme integers, long common string prefixes).
func genValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return []int64{math.MinInt8, -1, 0, 1, 2, math.MaxInt8}[rng.IntN(6)]
	case sparktype.Short:
		return []int64{math.MinInt16, -1, 0, 1, 2, math.MaxInt16}[rng.IntN(6)]
	case sparktype.Int, sparktype.Date:
		return []int64{math.MinInt32, -1, 0, 1, 2, 3, math.MaxInt32}[rng.IntN(7)]
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return []int64{math.MinInt64, -1, 0, 1, 2, 3, 1 << 32, math.MaxInt64}[rng.IntN(8)]
	case sparktype.Float, sparktype.Double:
		v := []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Inf(1), math.Inf(-1),
			0, math.Copysign(0, -1), 1.5, -1, 2}[rng.IntN(9)]
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil)
		limit.Sub(limit, big.NewInt(1))
		vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(12345), limit,
			new(big.Int).Neg(limit)}
		return new(big.Int).Set(vals[rng.IntN(len(vals))])
	case sparktype.String, sparktype.Binary:
		return []string{"", "a", "b", "abcdefghij", "abcdefghik", "\xff\x00", "é"}[rng.IntN(7)]
	}
	panic("genValue: " + ty.String())
}

func genRows(rng *rand.Rand, types []sparktype.Type, n int, nullRate float64) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		r := make([]any, len(types))
		for c, ty := range types {
			r[c] = genValue(rng, ty, nullRate)
		}
		rows[i] = r
	}
	return rows
}

// ---- expressions ----

func columnJSON(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat+"AttributeReference", typ, ord, ord)
}

// normalizedJSON is a floating key as Spark's NormalizeFloatingNumbers leaves it.
func normalizedJSON(child, typ string) string {
	n := fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{"child":%s}}`, cat+"NormalizeNaNAndZero", typ, child)
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{"child":%s}}`, cat+"KnownFloatingPointNormalized", typ, n)
}

func compareJSON(class, left, right string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":"boolean","nullable":true,"fields":{"left":%s,"right":%s}}`, cat+class, left, right)
}

func translate(t testing.TB, js string) expr.Expr {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	x, err := expr.Translate(&e, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// ---- running ----

// fakeReserver grants reservations up to a limit, like a TaskMemoryManager with little memory.
type fakeReserver struct{ limit, reserved int64 }

func (f *fakeReserver) Reserve(n int64) (int64, error) {
	got := min(n, f.limit-f.reserved)
	f.reserved += got
	return got, nil
}
func (f *fakeReserver) Unreserve(n int64) { f.reserved -= n }

func newCtx(batchSize int) *exec.TaskContext {
	return &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(nil), Conf: &plan.Conf{BatchSize: batchSize}}
}

// drain opens op, reads everything and closes it, checking batch sizes (at most maxRows) and that
// the task's memory is all given back.
func drain(t testing.TB, op exec.Operator, ctx *exec.TaskContext, maxRows int) ([][]any, error) {
	t.Helper()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	var err error
	for {
		var b *columnar.Batch
		if b, err = op.Next(); err != nil || b == nil {
			break
		}
		if b.NumRows == 0 || b.NumRows > maxRows {
			t.Errorf("batch of %d rows (at most %d expected)", b.NumRows, maxRows)
		}
		if len(b.Cols) != len(op.Schema()) {
			t.Fatalf("batch of %d columns, schema of %d", len(b.Cols), len(op.Schema()))
		}
		for r := 0; r < b.NumRows; r++ {
			row := make([]any, len(b.Cols))
			for c, a := range b.Cols {
				if a.Len() != b.NumRows {
					t.Fatalf("column of %d rows in a batch of %d", a.Len(), b.NumRows)
				}
				if !arrow.TypeEqual(a.DataType(), op.Schema()[c].Type.Arrow()) {
					t.Fatalf("column %d is %s, schema says %s", c, a.DataType(), op.Schema()[c].Type)
				}
				row[c] = cellOf(a, r)
			}
			rows = append(rows, row)
		}
		b.Release()
	}
	op.Close()
	op.Close() // idempotent
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("%d bytes still held after Close", used)
	}
	return rows, err
}

func compareRows(t testing.TB, what string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if g, w := showRow(got[i]), showRow(want[i]); g != w {
			t.Errorf("%s: row %d is %s, want %s", what, i, g, w)
			return
		}
	}
}
