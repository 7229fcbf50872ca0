package sort

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	gosort "sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Test values, one Go form per Spark type: bool; int64 for the integral, date and timestamp
// types; float64 for float and double; *big.Int (the unscaled value) for decimals; string for
// string and binary; nil for null.

const cat = "org.apache.spark.sql.catalyst.expressions."

// gomem holds the test inputs (the operators copy them into their task allocator).
var gomem = memory.NewGoAllocator()

func sparkType(t testing.TB, name string) sparktype.Type {
	t.Helper()
	ty, err := sparktype.Parse(json.RawMessage(fmt.Sprintf("%q", name)))
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// buildCol builds a column of type ty from test values.
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

// cellOf reads one output value back in its test form.
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

// ---- the reference ordering, written from Spark's rules ----

// refCompare orders two non-null values of a type as Spark does (see keys.go for the sources).
func refCompare(kind sparktype.Kind, x, y any) int {
	switch kind {
	case sparktype.Boolean:
		a, b := x.(bool), y.(bool)
		switch {
		case a == b:
			return 0
		case !a:
			return -1
		}
		return 1
	case sparktype.Float, sparktype.Double:
		a, b := x.(float64), y.(float64)
		an, bn := math.IsNaN(a), math.IsNaN(b)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0 // equal, including -0.0 against 0.0
	case sparktype.Decimal:
		return x.(*big.Int).Cmp(y.(*big.Int))
	case sparktype.String, sparktype.Binary:
		a, b := x.(string), y.(string)
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				if a[i] < b[i] { // bytes are unsigned
					return -1
				}
				return 1
			}
		}
		return len(a) - len(b)
	}
	a, b := x.(int64), y.(int64)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refKey is one key of the reference ordering: a column of the test rows.
type refKey struct {
	col        int
	kind       sparktype.Kind
	desc       bool
	nullsFirst bool
}

func refLess(keys []refKey) func(a, b []any) bool {
	return func(a, b []any) bool {
		for _, k := range keys {
			x, y := a[k.col], b[k.col]
			if x == nil || y == nil {
				if x == nil && y == nil {
					continue
				}
				return (x == nil) == k.nullsFirst
			}
			c := refCompare(k.kind, x, y)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	}
}

// refSort returns the rows stably sorted by keys.
func refSort(rows [][]any, keys []refKey) [][]any {
	out := append([][]any(nil), rows...)
	less := refLess(keys)
	gosort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// ---- inputs ----

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

// newSource cuts rows into batches of random sizes (some empty, some sliced out of a larger
// array, so that column offsets are exercised).
func newSource(t testing.TB, rng *rand.Rand, types []sparktype.Type, rows [][]any) *source {
	t.Helper()
	s := &source{}
	for i, ty := range types {
		s.schema = append(s.schema, sparktype.Field{Name: fmt.Sprintf("c%d", i), Type: ty, Nullable: true})
	}
	for lo := 0; lo <= len(rows); {
		n := rng.IntN(300)
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
				var v any
				if len(rows) > 0 {
					v = rows[rng.IntN(len(rows))][c]
				}
				vals = append(vals, v)
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
		if hi == len(rows) {
			break
		}
		lo = hi
	}
	return s
}

// ---- values ----

// genValue draws a value of kind for a column with the given null rate; small domains give
// duplicates, and each type's edge values come up often.
func genValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return pick(rng, []int64{math.MinInt8, math.MaxInt8, -1, 0, 1}, func() int64 { return int64(int8(rng.Uint32())) })
	case sparktype.Short:
		return pick(rng, []int64{math.MinInt16, math.MaxInt16, -1, 0, 1}, func() int64 { return int64(int16(rng.Uint32())) })
	case sparktype.Int, sparktype.Date:
		return pick(rng, []int64{math.MinInt32, math.MaxInt32, -1, 0, 1}, func() int64 { return int64(int32(rng.Uint32())) })
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return pick(rng, []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 1 << 32, -1 << 32}, func() int64 { return int64(rng.Uint64()) })
	case sparktype.Float, sparktype.Double:
		specials := []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Inf(1), math.Inf(-1),
			0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
		v := specials[rng.IntN(len(specials))]
		if rng.IntN(2) == 0 {
			v = float64(rng.IntN(20)-10) / 4
		} else if rng.IntN(3) == 0 {
			v = rng.NormFloat64() * 1e10
		}
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil)
		limit.Sub(limit, big.NewInt(1))
		var v *big.Int
		switch rng.IntN(4) {
		case 0:
			v = big.NewInt(int64(rng.IntN(9) - 4))
		case 1:
			v = new(big.Int).Set(limit)
		default:
			v = new(big.Int).Lsh(new(big.Int).SetUint64(rng.Uint64()), 64)
			v.Add(v, new(big.Int).SetUint64(rng.Uint64()))
			v.Mod(v, new(big.Int).Add(limit, big.NewInt(1)))
			// Values sharing their high word differ only in the low one (wide decimals).
			if ty.Precision > 18 && rng.IntN(2) == 0 {
				v = new(big.Int).Lsh(big.NewInt(int64(rng.IntN(3))), 64)
				v.Add(v, new(big.Int).SetUint64(rng.Uint64()>>uint(rng.IntN(64))))
				if v.Cmp(limit) > 0 {
					v.Set(limit)
				}
			}
		}
		if rng.IntN(2) == 0 {
			v.Neg(v)
		}
		return v
	case sparktype.String, sparktype.Binary:
		prefixes := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghijklmn", "abcdefghijklmno", "\xff\xff\xff\xff\xff\xff\xff\xff"}
		alphabet := "\x00\x01ab\x7f\xc3\xa9\xff"
		s := []byte(prefixes[rng.IntN(len(prefixes))])
		for n := rng.IntN(12); n > 0; n-- {
			s = append(s, alphabet[rng.IntN(len(alphabet))])
		}
		return string(s)
	}
	panic("genValue: " + ty.String())
}

func pick(rng *rand.Rand, specials []int64, random func() int64) int64 {
	switch rng.IntN(3) {
	case 0:
		return specials[rng.IntN(len(specials))]
	case 1:
		return int64(rng.IntN(7) - 3)
	}
	return random()
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

// drain opens op, reads everything and closes it, checking batch sizes and that the task's
// memory is all given back.
func drain(t testing.TB, op exec.Operator, ctx *exec.TaskContext) ([][]any, error) {
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
		if b.NumRows == 0 || b.NumRows > ctx.BatchSize() {
			t.Errorf("batch of %d rows (batch size %d)", b.NumRows, ctx.BatchSize())
		}
		for r := 0; r < b.NumRows; r++ {
			row := make([]any, len(b.Cols))
			for c, a := range b.Cols {
				if a.Len() != b.NumRows {
					t.Fatalf("column of %d rows in a batch of %d", a.Len(), b.NumRows)
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

// column translates a bound AttributeReference to input column ord of type typ.
func columnExpr(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat+"AttributeReference", typ, ord, ord)
}

func sortOrderJSON(child, direction, nulls string) string {
	f := fmt.Sprintf(`"child":%s,"direction":%q,"sameOrderExpressions":[]`, child, direction)
	if nulls != "" {
		f += fmt.Sprintf(`,"nullOrdering":%q`, nulls)
	}
	return fmt.Sprintf(`{"class":%q,"dataType":"unresolved","nullable":true,"fields":{%s}}`, cat+"SortOrder", f)
}

func decodeOrders(t testing.TB, orders ...string) ([]Order, error) {
	t.Helper()
	es := make([]*plan.Expr, len(orders))
	for i, o := range orders {
		if err := json.Unmarshal([]byte(o), &es[i]); err != nil {
			t.Fatalf("bad test JSON %s: %v", o, err)
		}
	}
	return DecodeOrders(es, &plan.Conf{})
}

// ordersFor builds column orders matching refKeys over columns of the given Spark type names.
func ordersFor(t testing.TB, typeNames []string, keys []refKey) []Order {
	t.Helper()
	js := make([]string, len(keys))
	for i, k := range keys {
		dir, nulls := "Ascending", "NullsLast"
		if k.desc {
			dir = "Descending"
		}
		if k.nullsFirst {
			nulls = "NullsFirst"
		}
		js[i] = sortOrderJSON(columnExpr(k.col, typeNames[k.col]), dir, nulls)
	}
	os, err := decodeOrders(t, js...)
	if err != nil {
		t.Fatal(err)
	}
	return os
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
