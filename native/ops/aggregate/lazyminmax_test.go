package aggregate

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	aparquet "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// fileScan is a scan of one Parquet file through the native reader, readable lazily (like
// ops.ParquetScan) when lazy is set; live, when set, drops rows of batch k as an Iceberg task's
// deletes would.
type fileScan struct {
	path   string
	schema []sparktype.Field
	lazy   bool
	live   func(k, n int) []int32
	ctx    *exec.TaskContext
	r      *parquet.Reader
	k      int
	// coded counts, per column, the Codes calls that returned codes.
	coded map[int]int
}

func (s *fileScan) Schema() []sparktype.Field { return s.schema }
func (s *fileScan) LazyOK() bool              { return s.lazy }
func (s *fileScan) Open(ctx *exec.TaskContext) error {
	s.ctx, s.coded = ctx, map[int]int{}
	r, err := parquet.Open(s.path, 0, math.MaxInt64, &parquet.ScanSpec{Columns: s.schema, BatchSize: ctx.BatchSize()}, ctx.Alloc)
	s.r = r
	return err
}
func (s *fileScan) Close() {
	if s.r != nil {
		_ = s.r.Close()
		s.r = nil
	}
}

func (s *fileScan) NextLazy() (columnar.Lazy, error) {
	lb, err := s.r.NextLazy()
	if err != nil || lb == nil {
		return nil, err
	}
	l := &liveBatch{LazyBatch: lb, s: s}
	if s.live != nil {
		l.live = s.live(s.k, lb.NumRows())
	}
	s.k++
	return l, nil
}

func (s *fileScan) Next() (*columnar.Batch, error) {
	l, err := s.NextLazy()
	if err != nil || l == nil {
		return nil, err
	}
	defer l.Release()
	return columnar.Materialize(l, len(s.schema))
}

type liveBatch struct {
	*parquet.LazyBatch
	s    *fileScan
	live []int32
}

func (l *liveBatch) Live() []int32 { return l.live }
func (l *liveBatch) Codes(i int) ([]int32, arrow.Array, bool, error) {
	codes, dict, ok, err := l.LazyBatch.Codes(i)
	if ok {
		l.s.coded[i]++
	}
	return codes, dict, ok, err
}

// lazyCols are the test file's columns: every type min and max support.
var lazyCols = []struct {
	name, spark string
	arrow       arrow.DataType
}{
	{"b", "byte", arrow.PrimitiveTypes.Int8},
	{"h", "short", arrow.PrimitiveTypes.Int16},
	{"i", "integer", arrow.PrimitiveTypes.Int32},
	{"l", "long", arrow.PrimitiveTypes.Int64},
	{"f", "float", arrow.PrimitiveTypes.Float32},
	{"d", "double", arrow.PrimitiveTypes.Float64},
	{"z", "double", arrow.PrimitiveTypes.Float64}, // zeros of both signs, some NaNs
	{"p", "decimal(9,2)", &arrow.Decimal128Type{Precision: 9, Scale: 2}},
	{"q", "decimal(18,2)", &arrow.Decimal128Type{Precision: 18, Scale: 2}},
	{"r", "decimal(25,3)", &arrow.Decimal128Type{Precision: 25, Scale: 3}},
	{"dt", "date", arrow.FixedWidthTypes.Date32},
	{"ts", "timestamp", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{"s", "string", arrow.BinaryTypes.String},
	{"bin", "binary", arrow.BinaryTypes.Binary},
	{"bo", "boolean", arrow.FixedWidthTypes.Boolean},
	{"nl", "long", arrow.PrimitiveTypes.Int64}, // all null
	{"ns", "string", arrow.BinaryTypes.String}, // all null
	{"g", "string", arrow.BinaryTypes.String},  // values only in some row groups, null elsewhere
	{"e", "long", arrow.PrimitiveTypes.Int64},  // extremes only in rows the deletes drop
	{"es", "string", arrow.BinaryTypes.String}, // likewise
}

var lazyWords = []string{"", "a", "abcdefgh", "abcdefgh1", "abcdefgh12", "abcdefgi", "é", "日本語", "zz", "\u00ff",
	"Zebra", "abcdefg", "abcdefgh\x00"}

// writeLazyFile writes n rows of lazyCols; card bounds the distinct values of a column (a large
// one overflows a small dictionary page: the chunk falls back to PLAIN mid-way).
func writeLazyFile(t *testing.T, path string, n, card, rowGroup int, dict, decInt bool, dictLimit int64) {
	t.Helper()
	fields := make([]arrow.Field, len(lazyCols))
	for i, c := range lazyCols {
		fields[i] = arrow.Field{Name: c.name, Type: c.arrow, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []aparquet.WriterProperty{aparquet.WithDictionaryDefault(dict), aparquet.WithMaxRowGroupLength(int64(rowGroup)),
		aparquet.WithDataPageSize(2048), aparquet.WithStoreDecimalAsInteger(decInt)}
	if dictLimit > 0 {
		opts = append(opts, aparquet.WithDictionaryPageSizeLimit(dictLimit))
	} else {
		// The dictionary asked for, even where plain pages would be smaller.
		for _, c := range lazyCols {
			opts = append(opts, aparquet.WithDictionaryCostFallbackFor(c.name, false))
		}
	}
	w, err := pqarrow.NewFileWriter(schema, f, aparquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	nan1 := math.Float64frombits(0x7ff8000000000001)
	nan2 := math.Float64frombits(0x7ff8000000000002)
	floats := []float64{-0.0, 0.0, 1.5, -3, nan1, math.Inf(1), math.Inf(-1), nan2, 2.25}
	// Zeros and NaNs equal in Spark's ordering but not in bits: those of the rows the deletes
	// drop come first in the dictionary, those of the live rows in another order.
	zeros := []float64{0.0, nan2, -0.0, nan1, 2.0}
	for i := 0; i < n; i++ {
		// A value index that wanders, changes per row group and is bounded by card.
		x := (i*7919 + (i/rowGroup)*31) % card
		// The row's index in its batch (batches of 1000 rows from each row group's start).
		inBatch := (i % rowGroup) % 1000
		dropped := inBatch%3 == 0 || inBatch <= 50 // by the "deletes" selection
		null := i%9 == 4
		for j, c := range lazyCols {
			fb := rb.Field(j)
			if null || c.name == "nl" || c.name == "ns" || (c.name == "g" && (i/rowGroup)%2 == 0) {
				fb.AppendNull()
				continue
			}
			v := x - card/2
			switch b := fb.(type) {
			case *array.Int8Builder:
				b.Append(int8(v))
			case *array.Int64Builder:
				switch {
				case c.name == "e" && inBatch%3 == 0:
					b.Append(int64(1-2*(i%2)) * (1<<60 + int64(i)))
				default:
					b.Append(int64(v) * 1_000_000_007)
				}
			case *array.Int16Builder:
				b.Append(int16(v * 3))
			case *array.Int32Builder:
				b.Append(int32(v * 1001))
			case *array.Float32Builder:
				if x%4 == 0 {
					b.Append(float32(floats[x%len(floats)]))
				} else {
					b.Append(float32(v) / 4)
				}
			case *array.Float64Builder:
				switch {
				case c.name == "z" && dropped:
					b.Append([]float64{-0.0, nan1}[inBatch%2])
				case c.name == "z":
					b.Append(zeros[((inBatch-51)/3)%len(zeros)])
				case x%3 == 0:
					b.Append(floats[x%len(floats)])
				default:
					b.Append(float64(v) / 8)
				}
			case *array.Decimal128Builder:
				u := big.NewInt(int64(v) * 12345)
				if c.name == "r" {
					u.Mul(u, big.NewInt(1_000_000_000_000))
				}
				b.Append(decimal128.FromBigInt(u))
			case *array.Date32Builder:
				b.Append(arrow.Date32(v * 17))
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(int64(v) * 86_400_000_123))
			case *array.StringBuilder:
				if c.name == "es" && inBatch%3 == 0 {
					b.Append([]string{"", "\xff\xffmax"}[i%2])
					continue
				}
				b.Append(fmt.Sprintf("%s%d", lazyWords[x%len(lazyWords)], x%5))
			case *array.BinaryBuilder:
				b.Append([]byte(lazyWords[(x+3)%len(lazyWords)] + string(rune(x%200))))
			case *array.BooleanBuilder:
				b.Append(x%3 == 1)
			default:
				t.Fatalf("builder %T", fb)
			}
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// lazyAggs: min and max of every column, with count(*) and a sum of a column (read as values).
func lazyAggs() ([]col, []aggFn) {
	in := make([]col, len(lazyCols))
	var aggs []aggFn
	for i, c := range lazyCols {
		in[i] = col{name: c.name, typ: c.spark, id: int64(i + 1)}
		aggs = append(aggs, aggFn{class: "Max", args: []int{i}, result: c.spark, buffers: []string{c.spark}},
			aggFn{class: "Min", args: []int{i}, result: c.spark, buffers: []string{c.spark}})
	}
	aggs = append(aggs, aggFn{class: "Count", result: "long", buffers: []string{"long"}},
		aggFn{class: "Sum", args: []int{2}, evalMode: "LEGACY", result: "long", buffers: []string{"long"}})
	return in, aggs
}

// runScan drains an aggregate node over a scan of path and returns its rows and the scan's
// coded reads.
func runScan(t *testing.T, n *plan.Node, s *fileScan) ([][]any, map[int]int) {
	t.Helper()
	op, err := New(n, s, &plan.Conf{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []*columnar.Batch
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		out = append(out, b)
	}
	rows := rowsOf(out)
	release(out)
	op.Close()
	if u := ctx.Alloc.Used(); u != 0 {
		t.Errorf("%d bytes left allocated", u)
	}
	return rows, s.coded
}

func TestLazyMinMaxMatchesMaterialized(t *testing.T) {
	dir := t.TempDir()
	type file struct {
		name         string
		n, card, rg  int
		dict, decInt bool
		dictLimit    int64
		wantCoded    bool
	}
	files := []file{
		{name: "dict", n: 9000, card: 40, rg: 3000, dict: true, wantCoded: true},
		{name: "dict-int-decimals", n: 7000, card: 25, rg: 2500, dict: true, decInt: true, wantCoded: true},
		{name: "fallback", n: 9000, card: 5000, rg: 4500, dict: true, dictLimit: 1024, wantCoded: true},
		{name: "plain", n: 5000, card: 40, rg: 3000},
		{name: "empty", n: 0, card: 1, rg: 1000, dict: true},
		{name: "small-row-groups", n: 400, card: 7, rg: 100, dict: true, wantCoded: true},
	}
	lives := map[string]func(k, n int) []int32{
		"all": nil,
		"deletes": func(k, n int) []int32 {
			// Batch 1 loses every row, batch 2 none; others every third row and a prefix, so
			// that entries used only by deleted rows (and the first use of others) are dropped.
			if k%4 == 2 {
				return nil
			}
			live := []int32{}
			if k%4 == 1 {
				return live
			}
			for i := 0; i < n; i++ {
				if i%3 != 0 && i > 50 {
					live = append(live, int32(i))
				}
			}
			return live
		},
	}
	in, aggs := lazyAggs()
	p := buildPlans(t, in, nil, aggs)
	schema := fieldsOf(t, in)
	for _, f := range files {
		path := filepath.Join(dir, f.name+".parquet")
		writeLazyFile(t, path, f.n, f.card, f.rg, f.dict, f.decInt, f.dictLimit)
		for lname, live := range lives {
			for _, mode := range []struct {
				name string
				n    *plan.Node
			}{{"partial", p.partial}, {"complete", p.complete}} {
				t.Run(f.name+"/"+lname+"/"+mode.name, func(t *testing.T) {
					want, _ := runScan(t, mode.n, &fileScan{path: path, schema: schema, live: live})
					got, coded := runScan(t, mode.n, &fileScan{path: path, schema: schema, live: live, lazy: true})
					for j, c := range lazyCols {
						if f.wantCoded && coded[j] == 0 && c.name != "bo" && (f.dictLimit == 0 || c.name == "bo") {
							t.Errorf("column %s never read as codes", c.name)
						}
					}
					if f.wantCoded && len(coded) == 0 || !f.dict && len(coded) != 0 {
						t.Errorf("coded reads: %v", coded)
					}
					if len(want) != 1 || len(got) != 1 {
						t.Fatalf("rows: materialized %d, lazy %d", len(want), len(got))
					}
					for i := range want[0] {
						if !reflect.DeepEqual(want[0][i], got[0][i]) {
							name := "count/sum"
							if i/2 < len(lazyCols) {
								name = aggs[i].class + "(" + lazyCols[i/2].name + ")"
							}
							t.Errorf("%s: materialized %v, lazy %v", name, want[0][i], got[0][i])
						}
					}
				})
			}
		}
	}
}

// floatRec is a row of the float-order file, written by parquet-go, whose dictionaries keep
// values of different bits apart (0.0 and -0.0, NaN payloads) where Arrow's writer merges them.
type floatRec struct {
	Z *float64 `parquet:"z,optional,dict"`
	F *float32 `parquet:"f,optional,dict"`
}

// TestLazyMinMaxFloatOrder: among values equal in Spark's ordering the first one a live row has
// is kept, not the first in the dictionary. Each batch's first rows (dropped by the deletes)
// hold -0.0 and one NaN, so they come first in the dictionary; the live rows then have 0.0
// before -0.0 and another NaN before that one.
func TestLazyMinMaxFloatOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "floats.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[floatRec](f, pq.MaxRowsPerRowGroup(2000))
	nan1 := math.Float64frombits(0x7ff8000000000001)
	nan2 := math.Float64frombits(0x7ff8000000000002)
	negZero := math.Copysign(0, -1)
	live := []float64{0.0, nan2, negZero, nan1, 2.0}
	rows := make([]floatRec, 5000)
	for i := range rows {
		inBatch := (i % 2000) % 1000
		var v float64
		switch {
		case i%7 == 3:
			continue // null
		case inBatch%3 == 0 || inBatch <= 50:
			v = []float64{negZero, nan1}[inBatch%2]
		default:
			v = live[((inBatch-51)/3)%len(live)]
		}
		v32 := float32(v)
		if v != v {
			v32 = math.Float32frombits(0x7fc00000 | uint32(math.Float64bits(v)&3))
		}
		rows[i] = floatRec{Z: &v, F: &v32}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	in := []col{{name: "z", typ: "double", id: 1}, {name: "f", typ: "float", id: 2}}
	aggs := []aggFn{
		{class: "Max", args: []int{0}, result: "double", buffers: []string{"double"}},
		{class: "Min", args: []int{0}, result: "double", buffers: []string{"double"}},
		{class: "Max", args: []int{1}, result: "float", buffers: []string{"float"}},
		{class: "Min", args: []int{1}, result: "float", buffers: []string{"float"}},
	}
	p := buildPlans(t, in, nil, aggs)
	schema := fieldsOf(t, in)
	deletes := func(k, n int) []int32 {
		var l []int32
		for i := 0; i < n; i++ {
			if i%3 != 0 && i > 50 {
				l = append(l, int32(i))
			}
		}
		return l
	}
	want, _ := runScan(t, p.complete, &fileScan{path: path, schema: schema, live: deletes})
	got, coded := runScan(t, p.complete, &fileScan{path: path, schema: schema, live: deletes, lazy: true})
	if coded[0] == 0 || coded[1] == 0 {
		t.Fatalf("coded reads %v", coded)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("materialized %v, lazy %v", want, got)
	}
	if exp := []any{fkey(nan2), fkey(0)}; !reflect.DeepEqual(got[0][:2], exp) {
		t.Errorf("max, min of z: %v, want %v", got[0][:2], exp)
	}
}

// TestLazyMarksAccounted: the marks (a byte or an int64 per dictionary entry) are part of the
// memory the aggregate reports to the task after each batch, and given back at Close.
func TestLazyMarksAccounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide-dict.parquet")
	writeLazyFile(t, path, 20000, 8000, 20000, true, false, 0)
	in, aggs := lazyAggs()
	p := buildPlans(t, in, nil, aggs)
	s := &fileScan{path: path, schema: fieldsOf(t, in), lazy: true}
	op, err := New(p.complete, s, &plan.Conf{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	st := op.st
	if st.lazy == nil {
		t.Fatal("the aggregate does not read its scan lazily")
	}
	more, err := op.consumeLazy(st.cur)
	if err != nil || !more {
		t.Fatalf("first batch: %v, %v", more, err)
	}
	if err := op.afterBatch(st.cur); err != nil {
		t.Fatal(err)
	}
	marks := st.lazy.memSize()
	if len(s.coded) == 0 || marks < 8000 {
		t.Fatalf("marks of %d bytes for dictionaries of 8000 entries (coded reads %v)", marks, s.coded)
	}
	if st.cur.accounted < marks {
		t.Errorf("the aggregate accounts %d bytes, below its marks' %d", st.cur.accounted, marks)
	}
	op.Close()
	if u := ctx.Alloc.Used(); u != 0 {
		t.Errorf("%d bytes left allocated", u)
	}
}

// A function's marks become full once every valid entry of the dictionary is marked (a null
// entry, last, need not be), never for a dictionary with a null elsewhere; full marks still
// refuse a code outside the dictionary, of a live row only.
func TestCodedFnFull(t *testing.T) {
	mem := memory.NewGoAllocator()
	mk := func(vals []int64, valid []bool) arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(vals, valid)
		return b.NewArray()
	}
	c := &codedFn{in: &codesInput{}}
	lastNull := mk([]int64{5, 1, 9, 0}, []bool{true, true, true, false})
	defer lastNull.Release()
	c.hold(lastNull)
	if !c.mark([]int32{0, 1, 0, 1}, nil, 4, 0) || c.full {
		t.Fatalf("two of three entries marked: full %v", c.full)
	}
	if !c.mark([]int32{2, 2}, nil, 2, 0) || c.full {
		t.Fatal("a batch smaller than the dictionary looked at it")
	}
	if !c.mark([]int32{2, 2, 2, 2}, nil, 4, 0) || !c.full {
		t.Fatal("every value entry marked, not full")
	}
	if !c.mark([]int32{3, 0, 2}, nil, 3, 0) || c.mark([]int32{0, 4}, nil, 2, 0) || c.mark([]int32{-1}, nil, 1, 0) {
		t.Fatal("full marks: the null code refused or a code outside accepted")
	}
	if !c.mark([]int32{0, 7}, []int32{0}, 2, 0) || c.mark([]int32{0, 7}, []int32{1}, 2, 0) {
		t.Fatal("full marks, live rows: a dead row's code checked or a live one's not")
	}
	c.drop()

	noNull := mk([]int64{1, 2}, nil)
	defer noNull.Release()
	c.hold(noNull)
	if c.full || !c.mark([]int32{1}, nil, 1, 0) || c.full || !c.mark([]int32{0, 1}, nil, 2, 0) || !c.full {
		t.Fatalf("no null entry: full %v", c.full)
	}
	c.drop()

	midNull := mk([]int64{1, 0, 3, 0}, []bool{true, false, true, false})
	defer midNull.Release()
	c.hold(midNull)
	if !c.mark([]int32{0, 1, 2, 3, 0, 1, 2, 3}, nil, 8, 0) || c.full {
		t.Fatal("a null entry not last: full")
	}
	c.drop()
}
