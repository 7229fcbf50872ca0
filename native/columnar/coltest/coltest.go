// Package coltest owns the helpers that build columns, batches and row sources from Go values for
// the engine's tests, and read them back. It is test support only: it must not be imported by
// non-test code.
//
// Test values have one Go form per Spark type: bool; int64 for the integral, date and timestamp
// types; float64 for float and double; *big.Int (the unscaled value) for decimals; string for
// string and binary; nil for null.
package coltest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
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

// Mem holds test inputs: Go memory, which the operators under test copy into their task
// allocator when they keep it (so the native memory checks see only what the operators allocate).
var Mem = memory.NewGoAllocator()

// ---- types ----

// Type parses a Spark type name ("long", "decimal(10,2)", ...); the type must be supported.
func Type(t testing.TB, name string) sparktype.Type {
	t.Helper()
	ty, err := sparktype.Parse(json.RawMessage(fmt.Sprintf("%q", name)))
	if err != nil || !ty.Supported() {
		t.Fatalf("type %s: %v", name, err)
	}
	return ty
}

// Types parses Spark type names (see Type).
func Types(t testing.TB, names ...string) []sparktype.Type {
	t.Helper()
	out := make([]sparktype.Type, len(names))
	for i, n := range names {
		out[i] = Type(t, n)
	}
	return out
}

// Fields is a schema of nullable columns c0, c1, ... of types.
func Fields(types []sparktype.Type) []sparktype.Field {
	fs := make([]sparktype.Field, len(types))
	for i, ty := range types {
		fs[i] = sparktype.Field{Name: fmt.Sprintf("c%d", i), Type: ty, Nullable: true}
	}
	return fs
}

// ---- values ----

// Col builds a column of type ty in Mem from test values.
func Col(t testing.TB, ty sparktype.Type, vals []any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(Mem, ty.Arrow())
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

// Cell reads value i of a column back in its test form (a copy: it outlives the column).
func Cell(a arrow.Array, i int) any {
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
	panic(fmt.Sprintf("coltest.Cell %T", a))
}

// Rows reads a batch back as rows of test values.
func Rows(b *columnar.Batch) [][]any {
	rows := make([][]any, b.NumRows)
	for r := range rows {
		row := make([]any, len(b.Cols))
		for c, a := range b.Cols {
			row[c] = Cell(a, r)
		}
		rows[r] = row
	}
	return rows
}

// Show renders a value exactly: floats by their bits, so that -0.0 and NaN payloads are checked.
func Show(v any) string {
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

// ShowRow renders a row with Show.
func ShowRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = Show(v)
	}
	return strings.Join(parts, " ")
}

// CompareRows reports (as what) the first row where got and want differ, and a difference in
// their numbers of rows.
func CompareRows(t testing.TB, what string, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if g, w := ShowRow(got[i]), ShowRow(want[i]); g != w {
			t.Errorf("%s: row %d is %s, want %s", what, i, g, w)
			return
		}
	}
}

// SortRows orders rows by their shown form, for results whose order is not defined.
func SortRows(rows [][]any) {
	sort.SliceStable(rows, func(i, j int) bool { return ShowRow(rows[i]) < ShowRow(rows[j]) })
}

// GenRows draws n rows over types, each value by gen (the test's own value domain).
func GenRows(rng *rand.Rand, types []sparktype.Type, n int, nullRate float64,
	gen func(rng *rand.Rand, ty sparktype.Type, nullRate float64) any) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		r := make([]any, len(types))
		for c, ty := range types {
			r[c] = gen(rng, ty, nullRate)
		}
		rows[i] = r
	}
	return rows
}

// ---- sources ----

// Source is an operator replaying batches, handing out new references; it counts how it is used.
type Source struct {
	Fields  []sparktype.Field
	Batches []*columnar.Batch
	Pos     int   // the next batch Next hands out (Open resets it)
	Opened  int   // calls of Open
	Closed  int   // calls of Close
	Err     error // returned by Next after the batches
}

func (s *Source) Schema() []sparktype.Field    { return s.Fields }
func (s *Source) Open(*exec.TaskContext) error { s.Pos = 0; s.Opened++; return nil }
func (s *Source) Close()                       { s.Closed++ }
func (s *Source) Next() (*columnar.Batch, error) {
	if s.Pos >= len(s.Batches) {
		return nil, s.Err
	}
	b := s.Batches[s.Pos]
	s.Pos++
	cols := make([]arrow.Array, len(b.Cols))
	for i, c := range b.Cols {
		c.Retain()
		cols[i] = c
	}
	return columnar.NewBatch(cols, b.NumRows), nil
}

// Release releases the batches (the source's own references).
func (s *Source) Release() {
	for _, b := range s.Batches {
		b.Release()
	}
}

// NewSource cuts rows of types into batches of random sizes up to maxBatch (some empty, some
// sliced out of a larger array, so that column offsets are exercised). No rows make no batches.
func NewSource(t testing.TB, rng *rand.Rand, types []sparktype.Type, rows [][]any, maxBatch int) *Source {
	t.Helper()
	s := &Source{Fields: Fields(types)}
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
			full := Col(t, ty, vals)
			if pad > 0 {
				cols[c] = array.NewSlice(full, int64(pad), int64(pad+len(part)))
				full.Release()
			} else {
				cols[c] = full
			}
		}
		s.Batches = append(s.Batches, columnar.NewBatch(cols, len(part)))
		lo = hi
	}
	return s
}

// EmptySource has the schema of types and only empty batches (count of them).
func EmptySource(t testing.TB, types []sparktype.Type, count int) *Source {
	t.Helper()
	s := &Source{Fields: Fields(types)}
	for range count {
		cols := make([]arrow.Array, len(types))
		for c, ty := range types {
			cols[c] = Col(t, ty, nil)
		}
		s.Batches = append(s.Batches, columnar.NewBatch(cols, 0))
	}
	return s
}

// ---- running ----

// NewCtx is a task with an unlimited allocator and the given batch size.
func NewCtx(batchSize int) *exec.TaskContext {
	return &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(nil), Conf: &plan.Conf{BatchSize: batchSize}}
}

// Reserver grants reservations up to Limit, like a TaskMemoryManager with little memory.
type Reserver struct{ Limit, Reserved int64 }

func (f *Reserver) Reserve(n int64) (int64, error) {
	got := min(n, f.Limit-f.Reserved)
	f.Reserved += got
	return got, nil
}
func (f *Reserver) Unreserve(n int64) { f.Reserved -= n }

// Drain opens op, reads everything and closes it (twice: Close is idempotent), checking batch
// shapes (1 to maxRows rows, the schema's columns and types) and that the task's memory is all
// given back. It returns the rows read and the error that ended the reading.
func Drain(t testing.TB, op exec.Operator, ctx *exec.TaskContext, maxRows int) ([][]any, error) {
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
		for c, a := range b.Cols {
			if a.Len() != b.NumRows {
				t.Fatalf("column of %d rows in a batch of %d", a.Len(), b.NumRows)
			}
			if !arrow.TypeEqual(a.DataType(), op.Schema()[c].Type.Arrow()) {
				t.Fatalf("column %d is %s, schema says %s", c, a.DataType(), op.Schema()[c].Type)
			}
		}
		rows = append(rows, Rows(b)...)
		b.Release()
	}
	op.Close()
	op.Close() // idempotent
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("%d bytes still held after Close", used)
	}
	return rows, err
}
