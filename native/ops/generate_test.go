package ops

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// genRow is one input row of the generator tests: an id, an array of ints, a map of string to
// int and an array of structs <a: int, b: string>. A nil slice is a null collection; a nil
// element a null element.
type genRow struct {
	id   int64
	arr  []any
	m    [][2]any
	sts  []any // nil or []any{a, b}
	null [3]bool
}

const (
	genArrJSON = `{"type":"array","elementType":"integer","containsNull":true}`
	genMapJSON = `{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`
	genStJSON  = `{"type":"array","elementType":{"type":"struct","fields":[` +
		`{"name":"a","type":"integer","nullable":true,"metadata":{}},` +
		`{"name":"b","type":"string","nullable":true,"metadata":{}}]},"containsNull":true}`
)

func genType(t *testing.T, js string) sparktype.Type {
	t.Helper()
	ty, err := sparktype.Parse(json.RawMessage(js))
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func genRows(rng *rand.Rand, n int) []genRow {
	rows := make([]genRow, n)
	for i := range rows {
		r := genRow{id: int64(i)}
		for c := 0; c < 3; c++ {
			r.null[c] = rng.IntN(6) == 0
		}
		size := func() int {
			if rng.IntN(15) == 0 {
				return 10 + rng.IntN(30) // larger than the small batch sizes
			}
			return rng.IntN(4)
		}
		val := func() any {
			if rng.IntN(5) == 0 {
				return nil
			}
			return int64(rng.IntN(100) - 50)
		}
		for k := size(); k > 0; k-- {
			r.arr = append(r.arr, val())
		}
		for k := size(); k > 0; k-- {
			r.m = append(r.m, [2]any{fmt.Sprintf("k%d", k), val()})
		}
		for k := size(); k > 0; k-- {
			if rng.IntN(5) == 0 {
				r.sts = append(r.sts, nil)
				continue
			}
			var b any
			if rng.IntN(4) > 0 {
				b = strings.Repeat("é", rng.IntN(3))
			}
			r.sts = append(r.sts, []any{val(), b})
		}
		rows[i] = r
	}
	return rows
}

// genSource builds batches of up to maxBatch rows (id, arr, m, sts), some sliced out of a larger
// array so that offsets are exercised.
func genSource(t *testing.T, rng *rand.Rand, rows []genRow, maxBatch int) *coltest.Source {
	types := []sparktype.Type{sparktype.LongType, genType(t, genArrJSON), genType(t, genMapJSON), genType(t, genStJSON)}
	src := &coltest.Source{Fields: coltest.Fields(types)}
	for lo := 0; lo < len(rows); {
		hi := min(len(rows), lo+1+rng.IntN(maxBatch))
		pad := rng.IntN(3)
		part := append(append([]genRow{}, rows[lo:hi]...), make([]genRow, pad)...)
		part = append(make([]genRow, pad), part...)
		cols := make([]arrow.Array, len(types))
		for c, ty := range types {
			b := array.NewBuilder(coltest.Mem, ty.Arrow())
			for _, r := range part {
				appendGenValue(b, r, c)
			}
			full := b.NewArray()
			b.Release()
			cols[c] = array.NewSlice(full, int64(pad), int64(pad+hi-lo))
			full.Release()
		}
		src.Batches = append(src.Batches, columnar.NewBatch(cols, hi-lo))
		lo = hi
	}
	return src
}

func appendInt(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
	} else {
		b.(*array.Int32Builder).Append(int32(v.(int64)))
	}
}

func appendGenValue(b array.Builder, r genRow, c int) {
	switch c {
	case 0:
		b.(*array.Int64Builder).Append(r.id)
	case 1:
		lb := b.(*array.ListBuilder)
		if r.null[0] {
			lb.AppendNull()
			return
		}
		lb.Append(true)
		for _, v := range r.arr {
			appendInt(lb.ValueBuilder(), v)
		}
	case 2:
		mb := b.(*array.MapBuilder)
		if r.null[1] {
			mb.AppendNull()
			return
		}
		mb.Append(true)
		for _, kv := range r.m {
			mb.KeyBuilder().(*array.StringBuilder).Append(kv[0].(string))
			appendInt(mb.ItemBuilder(), kv[1])
		}
	case 3:
		lb := b.(*array.ListBuilder)
		if r.null[2] {
			lb.AppendNull()
			return
		}
		lb.Append(true)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		for _, s := range r.sts {
			if s == nil {
				sb.AppendNull() // (the builder appends null fields too)
				continue
			}
			f := s.([]any)
			sb.Append(true)
			appendInt(sb.FieldBuilder(0), f[0])
			if f[1] == nil {
				sb.FieldBuilder(1).AppendNull()
			} else {
				sb.FieldBuilder(1).(*array.StringBuilder).Append(f[1].(string))
			}
		}
	}
}

func genAttr(typeJSON string, ordinal int) string {
	return fmt.Sprintf(`{"class":"%sAttributeReference","dataType":%s,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat, typeJSON, ordinal, ordinal)
}

// TestGenerateCollections: explode and posexplode of arrays and maps, and inline, outer or not,
// against the rows computed here, across batch sizes smaller and larger than one row's output.
func TestGenerateCollections(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rows := genRows(rng, 300)
	st := genType(t, genStJSON)
	stElem, _ := st.Elem()
	cases := []struct {
		name     string
		kind     GeneratorKind
		position bool
		col      int
		typeJSON string
		out      []sparktype.Type
		// gen yields the generated rows of an input row (nil: none).
		gen func(r genRow) [][]any
	}{
		{"explode array", GenExplodeArray, false, 1, genArrJSON, []sparktype.Type{sparktype.IntType},
			func(r genRow) (out [][]any) {
				for _, v := range r.arr {
					if !r.null[0] {
						out = append(out, []any{v})
					}
				}
				return out
			}},
		{"posexplode array", GenExplodeArray, true, 1, genArrJSON, []sparktype.Type{sparktype.IntType, sparktype.IntType},
			func(r genRow) (out [][]any) {
				for i, v := range r.arr {
					if !r.null[0] {
						out = append(out, []any{int64(i), v})
					}
				}
				return out
			}},
		{"posexplode map", GenExplodeMap, true, 2, genMapJSON,
			[]sparktype.Type{sparktype.IntType, sparktype.StringType, sparktype.IntType},
			func(r genRow) (out [][]any) {
				for i, kv := range r.m {
					if !r.null[1] {
						out = append(out, []any{int64(i), kv[0], kv[1]})
					}
				}
				return out
			}},
		{"inline", GenInline, false, 3, genStJSON, []sparktype.Type{stElem.Fields()[0].Type, stElem.Fields()[1].Type},
			func(r genRow) (out [][]any) {
				for _, s := range r.sts {
					if r.null[2] {
						continue
					}
					if s == nil {
						out = append(out, []any{nil, nil})
					} else {
						out = append(out, append([]any{}, s.([]any)...))
					}
				}
				return out
			}},
	}
	for _, c := range cases {
		for _, outer := range []bool{false, true} {
			var want [][]any
			for _, r := range rows {
				g := c.gen(r)
				if len(g) == 0 && outer {
					g = [][]any{make([]any, len(c.out))}
				}
				for _, o := range g {
					want = append(want, append([]any{r.id}, o...))
				}
			}
			for _, batchSize := range []int{1, 3, 16, 1024} {
				what := fmt.Sprintf("%s outer=%v batch size %d", c.name, outer, batchSize)
				src := genSource(t, rng, rows, 40)
				spec := GenerateSpec{Kind: c.kind, Position: c.position, Outer: outer,
					Collection: translateExpr(t, genAttr(c.typeJSON, c.col))}
				op, err := NewGenerate(src, []int{0}, spec, coltest.Fields(append([]sparktype.Type{sparktype.LongType}, c.out...)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := coltest.Drain(t, op, coltest.NewCtx(batchSize), batchSize)
				if err != nil {
					t.Fatal(err)
				}
				coltest.CompareRows(t, what, got, want)
				src.Release()
			}
		}
	}
}

// TestGenerateStack: stack(3, id, 'x', id * 2... ) with an uneven last row, and no required
// columns.
func TestGenerateStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := genRows(rng, 50)
	lit := func(v string) expr.Expr { return translateExpr(t, literalJSON(sparktype.LongType, v)) }
	id := translateExpr(t, attrJSON(sparktype.LongType, 0))
	// stack(3, id, 1, 2, id, 3): 3 rows of 2 columns: (id, 1), (2, id), (3, null).
	spec := GenerateSpec{Kind: GenStack, StackRows: 3, StackArgs: []expr.Expr{id, lit("1"), lit("2"), id, lit("3")}}
	var want [][]any
	for _, r := range rows {
		want = append(want, []any{r.id, int64(1)}, []any{int64(2), r.id}, []any{int64(3), nil})
	}
	for _, batchSize := range []int{1, 2, 5, 1024} {
		src := genSource(t, rng, rows, 20)
		op, err := NewGenerate(src, nil, spec, coltest.Fields([]sparktype.Type{sparktype.LongType, sparktype.LongType}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := coltest.Drain(t, op, coltest.NewCtx(batchSize), batchSize)
		if err != nil {
			t.Fatal(err)
		}
		coltest.CompareRows(t, fmt.Sprintf("stack batch size %d", batchSize), got, want)
		src.Release()
	}
	// Columns of different types are refused.
	bad := GenerateSpec{Kind: GenStack, StackRows: 2, StackArgs: []expr.Expr{id, translateExpr(t, literalJSON(sparktype.IntType, "1"))}}
	if _, err := NewGenerate(&coltest.Source{}, nil, bad, coltest.Fields([]sparktype.Type{sparktype.LongType})); err == nil ||
		!strings.Contains(err.Error(), "stack column 0 mixes") {
		t.Errorf("mixed stack column: %v", err)
	}
}

// TestGenerateRefusesMismatchedOutput: an output type other than the generator's is an error.
func TestGenerateRefusesMismatchedOutput(t *testing.T) {
	spec := GenerateSpec{Kind: GenExplodeArray, Collection: translateExpr(t, genAttr(genArrJSON, 0))}
	src := &coltest.Source{Fields: coltest.Fields([]sparktype.Type{genType(t, genArrJSON)})}
	_, err := NewGenerate(src, nil, spec, coltest.Fields([]sparktype.Type{sparktype.LongType}))
	if err == nil || !strings.Contains(err.Error(), "explode yields int") {
		t.Errorf("got %v", err)
	}
}

// TestGenerateInlineHidesNullStructFields: a null struct element whose fields hold values (as a
// computed struct may) gives a row of nulls, not its fields.
func TestGenerateInlineHidesNullStructFields(t *testing.T) {
	st := genType(t, genStJSON)
	lb := array.NewBuilder(coltest.Mem, st.Arrow()).(*array.ListBuilder)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	lb.Append(true)
	for i := 0; i < 3; i++ {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprint("v", i))
	}
	full := lb.NewArray()
	lb.Release()
	// The same list with its second struct element marked null (the fields keep their values).
	l := full.(*array.List)
	sd := l.ListValues().Data()
	valid := memory.NewResizableBuffer(coltest.Mem)
	valid.Resize(1)
	valid.Bytes()[0] = 0b101
	nsd := array.NewData(sd.DataType(), sd.Len(), []*memory.Buffer{valid, nil}, sd.Children(), 1, 0)
	ld := array.NewData(l.DataType(), l.Len(), l.Data().Buffers(), []arrow.ArrayData{nsd}, 0, 0)
	col := array.MakeFromData(ld)
	ld.Release()
	nsd.Release()
	valid.Release()
	full.Release()
	src := &coltest.Source{Fields: coltest.Fields([]sparktype.Type{st}),
		Batches: []*columnar.Batch{columnar.NewBatch([]arrow.Array{col}, 1)}}
	defer src.Release()
	e, _ := st.Elem()
	spec := GenerateSpec{Kind: GenInline, Collection: translateExpr(t, genAttr(genStJSON, 0))}
	op, err := NewGenerate(src, nil, spec, coltest.Fields([]sparktype.Type{e.Fields()[0].Type, e.Fields()[1].Type}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := coltest.Drain(t, op, coltest.NewCtx(16), 16)
	if err != nil {
		t.Fatal(err)
	}
	coltest.CompareRows(t, "inline", got, [][]any{{int64(0), "v0"}, {nil, nil}, {int64(2), "v2"}})
}
