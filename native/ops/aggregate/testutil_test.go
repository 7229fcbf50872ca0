package aggregate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	memalloc "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// --- a source operator replaying batches ---

type source struct {
	schema  []sparktype.Field
	batches []*columnar.Batch
	i       int
}

func (s *source) Schema() []sparktype.Field    { return s.schema }
func (s *source) Open(*exec.TaskContext) error { s.i = 0; return nil }
func (s *source) Close()                       {}
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

// --- JSON plan builders, shaped like the JVM encoder's output ---

const (
	pkgExpr = "org.apache.spark.sql.catalyst.expressions."
	pkgAgg  = "org.apache.spark.sql.catalyst.expressions.aggregate."
)

type col struct {
	name string
	typ  string // Spark DataType.json
	id   int64
}

func attr(c col, ordinal int, nullable bool) map[string]any {
	return map[string]any{"class": pkgExpr + "AttributeReference", "dataType": c.typ, "nullable": nullable,
		"deterministic": true, "fields": map[string]any{"name": c.name}, "exprId": c.id, "ordinal": ordinal, "name": c.name}
}

func alias(child map[string]any, name string, id int64) map[string]any {
	return map[string]any{"class": pkgExpr + "Alias", "dataType": child["dataType"], "nullable": child["nullable"],
		"deterministic": true, "fields": map[string]any{"child": child, "name": name}, "exprId": id, "name": name}
}

// aggFn is one aggregate function of a test plan.
type aggFn struct {
	class    string // Sum, Count, Min, Max, Average
	args     []int  // input columns (Count: several; none = count(*))
	evalMode string // Sum/Average
	result   string // result type
	buffers  []string
	// ignoreNulls: First/Last
	ignoreNulls bool
}

func (a aggFn) json(in []col, mode string, bindOrdinals bool, nullable bool) map[string]any {
	return a.jsonWith(mode, func(i int) map[string]any {
		o := i
		if !bindOrdinals {
			o = -1
		}
		return attr(in[i], o, nullable)
	}, nil)
}

// jsonWith encodes the AggregateExpression with arguments arg(a.args[k]) and an optional FILTER.
func (a aggFn) jsonWith(mode string, arg func(i int) map[string]any, filter any) map[string]any {
	fields := map[string]any{}
	switch a.class {
	case "Count":
		children := []any{}
		for _, i := range a.args {
			children = append(children, arg(i))
		}
		if len(a.args) == 0 {
			children = append(children, map[string]any{"class": pkgExpr + "Literal", "dataType": "integer",
				"nullable": false, "deterministic": true, "fields": map[string]any{"value": 1}})
		}
		fields["children"] = children
	case "Sum":
		fields["child"] = arg(a.args[0])
		fields["evalContext"] = map[string]any{"class": pkgExpr + "NumericEvalContext",
			"fields": map[string]any{"evalMode": a.evalMode, "allowDecimalPrecisionLoss": true}}
	case "Average":
		fields["child"] = arg(a.args[0])
		fields["evalMode"] = a.evalMode
	case "First", "Last":
		fields["child"] = arg(a.args[0])
		fields["ignoreNulls"] = a.ignoreNulls
	default:
		fields["child"] = arg(a.args[0])
	}
	fn := map[string]any{"class": pkgAgg + a.class, "dataType": a.result, "nullable": a.class != "Count",
		"deterministic": true, "fields": fields}
	return map[string]any{"class": pkgAgg + "AggregateExpression", "dataType": a.result, "nullable": true,
		"deterministic": true, "fields": map[string]any{"aggregateFunction": fn, "mode": mode,
			"isDistinct": false, "filter": filter, "resultId": map[string]any{"class": pkgExpr + "ExprId",
				"fields": map[string]any{"id": 1}}}}
}

func outAttr(c col, nullable bool) map[string]any {
	return map[string]any{"name": c.name, "exprId": c.id, "dataType": c.typ, "nullable": nullable}
}

func toNode(t testing.TB, m map[string]any) *plan.Node {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var n plan.Node
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

// aggPlans builds the Partial, Final (over the partial's output) and Complete HashAggregateExec
// nodes of `SELECT keys..., aggs... FROM in GROUP BY keys`.
type aggPlans struct {
	partial, final, complete *plan.Node
	partialSchema            []sparktype.Field
}

func buildPlans(t testing.TB, in []col, keys []int, aggs []aggFn) aggPlans {
	nextID := int64(1000)
	id := func() int64 { nextID++; return nextID }
	// grouping attributes keep the input attributes' ids
	var groupIn, groupOut, keyOut []any
	var keyCols []col
	for ki, k := range keys {
		groupIn = append(groupIn, attr(in[k], k, true))
		groupOut = append(groupOut, attr(in[k], ki, true))
		keyOut = append(keyOut, outAttr(in[k], true))
		keyCols = append(keyCols, in[k])
	}
	var partialAE, finalAE, completeAE, aggAttrs, bufOut, results []any
	var bufCols []col
	for _, a := range aggs {
		partialAE = append(partialAE, a.json(in, "Partial", true, true))
		finalAE = append(finalAE, a.json(in, "Final", false, true))
		completeAE = append(completeAE, a.json(in, "Complete", true, true))
		r := col{name: a.class, typ: a.result, id: id()}
		aggAttrs = append(aggAttrs, attr(r, -1, true))
		results = append(results, alias(attr(r, -1, true), a.class+"_out", id()))
		for bi, bt := range a.buffers {
			b := col{name: fmt.Sprintf("buf%d", bi), typ: bt, id: id()}
			bufCols = append(bufCols, b)
			bufOut = append(bufOut, outAttr(b, true))
		}
	}
	finalOut := append([]any{}, keyOut...)
	var resultExprs []any
	for ki := range keys {
		resultExprs = append(resultExprs, attr(keyCols[ki], -1, true))
	}
	for i, r := range results {
		resultExprs = append(resultExprs, r)
		rm := r.(map[string]any)
		finalOut = append(finalOut, outAttr(col{name: rm["name"].(string), typ: aggs[i].result, id: rm["exprId"].(int64)}, true))
	}
	partialResults := []any{}
	for ki := range keys {
		partialResults = append(partialResults, attr(keyCols[ki], -1, true))
	}
	for _, b := range bufCols {
		partialResults = append(partialResults, attr(b, -1, true))
	}
	node := func(mode string, ae []any, group []any, out []any, res []any, offset int) map[string]any {
		return map[string]any{"id": 1, "class": "org.apache.spark.sql.execution.aggregate.HashAggregateExec",
			"nodeName": "HashAggregate", "output": out, "children": []any{},
			"fields": map[string]any{"requiredChildDistributionExpressions": nil, "isStreaming": false,
				"numShufflePartitions": nil, "groupingExpressions": group, "aggregateExpressions": ae,
				"aggregateAttributes": aggAttrs, "initialInputBufferOffset": offset, "resultExpressions": res}}
	}
	if groupIn == nil {
		groupIn, groupOut = []any{}, []any{}
	}
	var p aggPlans
	p.partial = toNode(t, node("Partial", partialAE, groupIn, append(append([]any{}, keyOut...), bufOut...), partialResults, 0))
	p.final = toNode(t, node("Final", finalAE, groupOut, finalOut, resultExprs, len(keys)))
	p.complete = toNode(t, node("Complete", completeAE, groupIn, finalOut, resultExprs, 0))
	var err error
	if p.partialSchema, err = p.partial.OutputFields(); err != nil {
		t.Fatal(err)
	}
	return p
}

// --- running ---

func newCtx() *exec.TaskContext {
	return &exec.TaskContext{Alloc: memalloc.NewTaskAllocator(nil), Conf: &plan.Conf{BatchSize: 1000}}
}

func fieldsOf(t testing.TB, cols []col) []sparktype.Field {
	out := make([]sparktype.Field, len(cols))
	for i, c := range cols {
		ty, err := sparktype.Parse(json.RawMessage(`"` + c.typ + `"`))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = sparktype.Field{Name: c.name, Type: ty, Nullable: true}
	}
	return out
}

// run builds node over a source of batches and returns all output batches (Go copies are not made:
// the caller releases them).
func run(t testing.TB, n *plan.Node, schema []sparktype.Field, batches []*columnar.Batch) ([]*columnar.Batch, error) {
	t.Helper()
	src := &source{schema: schema, batches: batches}
	op, err := New(n, src, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatalf("build %s: %v", n.NodeName, err)
	}
	ctx := newCtx()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var out []*columnar.Batch
	for {
		b, err := op.Next()
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		out = append(out, b)
	}
}

// cell reads one value as a comparable Go value: nil, int64, float64 bits, bool, string, or
// "dec:<unscaled>".
func cell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
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
		return fmt.Sprintf("f:%x", math.Float64bits(float64(c.Value(i))))
	case *array.Float64:
		return fmt.Sprintf("f:%x", math.Float64bits(c.Value(i)))
	case *array.Boolean:
		return c.Value(i)
	case *array.String:
		// A copy: the value views the batch's buffer, which callers release after reading.
		return strings.Clone(c.Value(i))
	case *array.Binary:
		return string(c.Value(i))
	case *array.Decimal128:
		return "dec:" + c.Value(i).BigInt().String()
	}
	panic(fmt.Sprintf("cell: %T", a))
}

func rowsOf(batches []*columnar.Batch) [][]any {
	var rows [][]any
	for _, b := range batches {
		for r := 0; r < b.NumRows; r++ {
			row := make([]any, len(b.Cols))
			for c, a := range b.Cols {
				row[c] = cell(a, r)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func release(bs []*columnar.Batch) {
	for _, b := range bs {
		b.Release()
	}
}

func fkey(v float64) any  { return fmt.Sprintf("f:%x", math.Float64bits(v)) }
func dkey(v *big.Int) any { return "dec:" + v.String() }

// --- column builders (Go memory: test inputs) ---

var gomem = memory.NewGoAllocator()

func i64Col(vals []int64, valid []bool) arrow.Array {
	b := array.NewInt64Builder(gomem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func i32Col(vals []int32, valid []bool) arrow.Array {
	b := array.NewInt32Builder(gomem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func f64Col(vals []float64, valid []bool) arrow.Array {
	b := array.NewFloat64Builder(gomem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func strCol(vals []string, valid []bool) arrow.Array {
	b := array.NewStringBuilder(gomem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func decCol(p, s int32, vals []*big.Int, valid []bool) arrow.Array {
	b := array.NewDecimal128Builder(gomem, &arrow.Decimal128Type{Precision: p, Scale: s})
	defer b.Release()
	for i, v := range vals {
		if valid != nil && !valid[i] {
			b.AppendNull()
			continue
		}
		b.Append(decimal128.FromBigInt(v))
	}
	return b.NewArray()
}
