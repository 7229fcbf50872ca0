// Lambda machinery for Spark's higher-order functions (transform, filter, exists, aggregate,
// map_filter, ...; see lambdaarray.go and lambdamap.go).
//
// Spark evaluates a lambda element by element, setting each NamedLambdaVariable before each call
// of the body. Bolide evaluates the body once per batch over a "lambda batch" whose rows are the
// elements (or map entries) of every row's collection, flattened: the lambda variables are
// columns of that batch (the list's values sliced or taken, the element index, an accumulator),
// and the row's own columns the body reads (captured outer attributes) are taken from the
// enclosing batch once per element, by the element's parent row.
//
// The binding happens on the encoded plan, before translation: the body's attribute references
// to the enclosing row are renumbered to the first columns of the lambda batch, and the
// function's NamedLambdaVariables become attribute references to the columns after them. The
// body is then translated by the ordinary registry, so every native expression works inside a
// lambda, and a body the registry refuses makes the whole function refuse with that reason.
// Nested lambdas need nothing more: by the time an inner function is translated, the outer
// function has already turned its variables into plain attribute references, which the inner
// function captures like any other column of its enclosing batch.
package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

const lambdaAttrClass = "org.apache.spark.sql.catalyst.expressions.AttributeReference"

// lambdaFn is a translated LambdaFunction: its body reads the lambda batch, whose columns are
// outer (the enclosing batch's columns, by ordinal, taken per lambda row) then the parameters.
type lambdaFn struct {
	body   Expr
	outer  []int
	params []sparktype.Type
	names  []string
}

// lambdaVarID is the exprId of an encoded NamedLambdaVariable (its exprId field is an encoded
// ExprId product).
func lambdaVarID(v *plan.Expr) (int64, error) {
	raw, err := v.Raw("exprId")
	if err != nil {
		return 0, err
	}
	var p struct {
		Fields struct {
			ID *int64 `json:"id"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Fields.ID == nil {
		return 0, fmt.Errorf("lambda variable: unreadable exprId %s", raw)
	}
	return *p.Fields.ID, nil
}

// translateLambda translates the LambdaFunction in field of e, which must take one of the
// parameter counts arity allows.
func translateLambda(e *plan.Expr, field string, conf *plan.Conf, arity ...int) (*lambdaFn, error) {
	fn, err := e.Child(field)
	if err != nil {
		return nil, err
	}
	if plan.ShortClass(fn.Class) != "LambdaFunction" {
		return nil, unsupported("%s: function is a %s, not a lambda function", plan.ShortClass(e.Class), plan.ShortClass(fn.Class))
	}
	if !fn.Deterministic {
		return nil, unsupported("%s with a non-deterministic lambda body", plan.ShortClass(e.Class))
	}
	args, err := fn.Children("arguments")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(arity, len(args)) {
		return nil, unsupported("%s: a lambda of %d arguments", plan.ShortClass(e.Class), len(args))
	}
	f := &lambdaFn{}
	ids := make(map[int64]int, len(args))
	for i, a := range args {
		if plan.ShortClass(a.Class) != "NamedLambdaVariable" {
			return nil, unsupported("%s: lambda argument is a %s", plan.ShortClass(e.Class), plan.ShortClass(a.Class))
		}
		id, err := lambdaVarID(a)
		if err != nil {
			return nil, err
		}
		t, err := a.Type()
		if err != nil {
			return nil, err
		}
		if !t.Readable() {
			return nil, unsupported("%s: lambda argument of type %s", plan.ShortClass(e.Class), t)
		}
		name, _ := a.String("name")
		ids[id] = i
		f.params = append(f.params, t)
		f.names = append(f.names, name)
	}
	body, err := fn.Child("function")
	if err != nil {
		return nil, err
	}
	// First pass: the enclosing batch's columns the body reads, in ordinal order.
	seen := map[int]bool{}
	if _, err := lambdaRewrite(body, func(x *plan.Expr) (*plan.Expr, error) {
		if o, ok := lambdaOuterOrdinal(x); ok && o >= 0 {
			seen[o] = true
		}
		return nil, nil
	}); err != nil {
		return nil, err
	}
	f.outer = slices.Sorted(maps.Keys(seen))
	pos := make(map[int]int, len(f.outer))
	for i, o := range f.outer {
		pos[o] = i
	}
	// Second pass: renumber the outer references, bind the variables.
	bound, err := lambdaRewrite(body, func(x *plan.Expr) (*plan.Expr, error) {
		if o, ok := lambdaOuterOrdinal(x); ok {
			if o < 0 {
				return nil, nil // unbound: the attribute translator refuses it
			}
			return lambdaAttr(x, pos[o], x.Name), nil
		}
		if plan.ShortClass(x.Class) != "NamedLambdaVariable" {
			return nil, nil
		}
		id, err := lambdaVarID(x)
		if err != nil {
			return nil, err
		}
		k, ok := ids[id]
		if !ok {
			return nil, nil // a variable of no enclosing function: refused when translated
		}
		return lambdaAttr(x, len(f.outer)+k, f.names[k]), nil
	})
	if err != nil {
		return nil, err
	}
	if f.body, err = Translate(bound, conf); err != nil {
		return nil, err
	}
	return f, nil
}

// lambdaOuterOrdinal reports whether x reads a column of the enclosing batch, and which.
func lambdaOuterOrdinal(x *plan.Expr) (int, bool) {
	switch plan.ShortClass(x.Class) {
	case "AttributeReference", "BoundReference":
		if x.Ordinal == nil {
			return -1, true
		}
		return *x.Ordinal, true
	}
	return 0, false
}

// lambdaAttr is an attribute reference of x's type to column ordinal of the lambda batch.
func lambdaAttr(x *plan.Expr, ordinal int, name string) *plan.Expr {
	o := ordinal
	return &plan.Expr{Class: lambdaAttrClass, DataType: x.DataType, Nullable: x.Nullable, Deterministic: true,
		Fields: map[string]json.RawMessage{}, Ordinal: &o, Name: name}
}

// lambdaRewrite returns a copy of e in which every expression for which f returns a replacement
// is replaced (its subtree is not visited); f sees the expressions top-down. e is shared by
// every task and is not modified.
func lambdaRewrite(e *plan.Expr, f func(*plan.Expr) (*plan.Expr, error)) (*plan.Expr, error) {
	if r, err := f(e); err != nil || r != nil {
		return r, err
	}
	out := *e
	if e.Fields != nil {
		out.Fields = make(map[string]json.RawMessage, len(e.Fields))
		for k, v := range e.Fields {
			nv, err := lambdaRewriteValue(v, f)
			if err != nil {
				return nil, err
			}
			out.Fields[k] = nv
		}
	}
	return &out, nil
}

// lambdaRewriteValue rewrites the expressions inside one encoded field value: an expression (an
// object with "class" and "dataType"), a product holding expressions in its fields, or a
// sequence of values; anything else is kept.
func lambdaRewriteValue(raw json.RawMessage, f func(*plan.Expr) (*plan.Expr, error)) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return raw, nil
	}
	switch t[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(t, &elems); err != nil {
			return nil, err
		}
		for i, el := range elems {
			ne, err := lambdaRewriteValue(el, f)
			if err != nil {
				return nil, err
			}
			elems[i] = ne
		}
		return json.Marshal(elems)
	case '{':
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(t, &probe); err != nil {
			return nil, err
		}
		if _, ok := probe["class"]; !ok {
			return raw, nil
		}
		if _, ok := probe["dataType"]; !ok {
			fields := plan.ProductFields(probe)
			if fields == nil {
				return raw, nil
			}
			for k, v := range fields {
				nv, err := lambdaRewriteValue(v, f)
				if err != nil {
					return nil, err
				}
				fields[k] = nv
			}
			nf, err := json.Marshal(fields)
			if err != nil {
				return nil, err
			}
			probe["fields"] = nf
			return json.Marshal(probe)
		}
		var sub plan.Expr
		if err := json.Unmarshal(t, &sub); err != nil {
			return nil, err
		}
		ns, err := lambdaRewrite(&sub, f)
		if err != nil {
			return nil, err
		}
		return json.Marshal(ns)
	}
	return raw, nil
}

func (f *lambdaFn) mayFail() bool { return mayFail(f.body) }

func (f *lambdaFn) String() string {
	return fmt.Sprintf("lambda(%v) -> %s", f.names, f.body)
}

// eval evaluates the body over n lambda rows: args are the parameter columns (n rows each, the
// caller keeps its references), rows maps each lambda row to its row of the enclosing batch b.
func (f *lambdaFn) eval(ctx *exec.TaskContext, b *columnar.Batch, rows []int32, args []arrow.Array, n int) (arrow.Array, error) {
	if n == 0 {
		return allNull(ctx.Alloc, f.body.Type().Arrow(), 0), nil
	}
	lb := &columnar.Batch{Cols: make([]arrow.Array, 0, len(f.outer)+len(args)), NumRows: n}
	defer lb.Release()
	for _, o := range f.outer {
		if o >= len(b.Cols) {
			return nil, fmt.Errorf("%s: column %d of a batch of %d columns", f, o, len(b.Cols))
		}
		c, err := columnar.Take(ctx.Alloc, b.Cols[o], rows)
		if err != nil {
			return nil, fmt.Errorf("%s: captured column %d: %w", f, o, err)
		}
		lb.Cols = append(lb.Cols, c)
	}
	for i, a := range args {
		if a.Len() != n {
			return nil, fmt.Errorf("%s: argument %d has %d rows for %d", f, i, a.Len(), n)
		}
		a.Retain()
		lb.Cols = append(lb.Cols, a)
	}
	out, err := f.body.Eval(ctx, lb)
	if err != nil {
		return nil, err
	}
	if out.Len() != n {
		out.Release()
		return nil, fmt.Errorf("%s: body returned %d rows for %d", f, out.Len(), n)
	}
	return out, nil
}

// lambdaFlat is the elements of the live rows of a list (or map) column, flattened: the rows a
// lambda runs over.
type lambdaFlat struct {
	n      int
	live   []byte  // rows whose collection is non-null (and active); Go heap, n bits
	nlive  int     // set bits of live
	starts []int32 // n+1: row i's elements are the flat rows starts[i] to starts[i+1]
	parent []int32 // the row of each flat element
	index  []int32 // the position of each flat element in the collection's values
}

// lambdaFlatten flattens the live rows of l: those non-null and in active (nil: every row).
func lambdaFlatten(l listArray, active []byte) *lambdaFlat {
	n := l.Len()
	offs := listOffsets(l)
	fl := &lambdaFlat{n: n, live: make([]byte, bitutil.BytesForBits(int64(n))), starts: make([]int32, n+1)}
	total := 0
	for i := 0; i < n; i++ {
		if l.IsValid(i) && isActive(active, i) {
			bitutil.SetBit(fl.live, i)
			fl.nlive++
			total += int(offs[i+1] - offs[i])
		}
	}
	fl.parent = make([]int32, 0, total)
	fl.index = make([]int32, 0, total)
	for i := 0; i < n; i++ {
		fl.starts[i] = int32(len(fl.parent))
		if !bitutil.BitIsSet(fl.live, i) {
			continue
		}
		for k := offs[i]; k < offs[i+1]; k++ {
			fl.parent = append(fl.parent, int32(i))
			fl.index = append(fl.index, k)
		}
	}
	fl.starts[n] = int32(len(fl.parent))
	return fl
}

// gather returns the flat elements of vals (the collection's values, or one of a map's key and
// value columns): a slice when they are contiguous, else a take.
func (fl *lambdaFlat) gather(alloc memory.Allocator, vals arrow.Array) (arrow.Array, error) {
	m := len(fl.index)
	if m == 0 || int(fl.index[m-1]-fl.index[0]) == m-1 {
		lo := int64(0)
		if m > 0 {
			lo = int64(fl.index[0])
		}
		return array.NewSlice(vals, lo, lo+int64(m)), nil
	}
	return columnar.Take(alloc, vals, fl.index)
}

// positions is the 0-based position of each flat element in its row's collection (the index
// parameter of transform and filter).
func (fl *lambdaFlat) positions(alloc memory.Allocator) arrow.Array {
	buf, v := newFixed[int32](alloc, len(fl.parent))
	for k, p := range fl.parent {
		v[k] = int32(k) - fl.starts[p]
	}
	return finish(arrow.PrimitiveTypes.Int32, len(v), nil, buf, 0)
}

// lambdaList builds a list (or map) column of n rows from offsets starts, the live rows' validity
// and the values (or entries); it takes no reference from the caller.
func lambdaList(alloc memory.Allocator, dt arrow.DataType, live []byte, nlive int, starts []int32, vals arrow.Array) arrow.Array {
	n := len(starts) - 1
	offBuf, offs := newFixed[int32](alloc, n+1)
	copy(offs, starts)
	var valid *memory.Buffer
	if nlive < n {
		var bm []byte
		valid, bm = newBitmap(alloc, n)
		copy(bm, live)
	}
	d := array.NewData(dt, n, []*memory.Buffer{valid, offBuf}, []arrow.ArrayData{vals.Data()}, n-nlive, 0)
	if valid != nil {
		valid.Release()
	}
	offBuf.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// lambdaTakeOrNull takes the rows sel of a, a negative entry giving a null row.
func lambdaTakeOrNull(alloc memory.Allocator, a arrow.Array, sel []int32) (arrow.Array, error) {
	var keep []byte
	for i, s := range sel {
		if s >= 0 {
			continue
		}
		if keep == nil {
			keep = make([]byte, bitutil.BytesForBits(int64(len(sel))))
			bitutil.SetBitsTo(keep, 0, int64(len(sel)), true)
		}
		bitutil.ClearBit(keep, i)
	}
	if keep == nil {
		return columnar.Take(alloc, a, sel)
	}
	if a.Len() == 0 || bitutil.CountSetBits(keep, 0, len(sel)) == 0 {
		return allNull(alloc, a.DataType(), len(sel)), nil
	}
	safe := make([]int32, len(sel))
	for i, s := range sel {
		safe[i] = max(s, 0)
	}
	taken, err := columnar.Take(alloc, a, safe)
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	return withValidity(alloc, taken, keep, 0), nil
}

// lambdaCheckList checks that an evaluated argument is a list or map column of n rows.
func lambdaCheckList(what fmt.Stringer, a arrow.Array, n int) (listArray, error) {
	l, ok := a.(listArray)
	if !ok || a.Len() != n {
		return nil, fmt.Errorf("%s: argument is %s of %d rows for %d", what, a.DataType(), a.Len(), n)
	}
	return l, nil
}

// lambdaEvalPair evaluates the two collections of zip_with / map_zip_with: left over the active
// rows, right only over those whose left value is not null (as Spark evaluates them), both checked
// to be lists of the batch's rows. rightActive is the rows right was evaluated for. The caller
// releases la and ra.
func lambdaEvalPair(ctx *exec.TaskContext, b *columnar.Batch, what fmt.Stringer, left, right Expr,
	active []byte) (la, ra arrow.Array, ll, rl listArray, rightActive []byte, err error) {
	n := b.NumRows
	if la, err = evalActive(ctx, b, left, active); err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if ll, err = lambdaCheckList(what, la, n); err != nil {
		la.Release()
		return nil, nil, nil, nil, nil, err
	}
	rightActive = make([]byte, bitutil.BytesForBits(int64(n)))
	for i := 0; i < n; i++ {
		if ll.IsValid(i) && isActive(active, i) {
			bitutil.SetBit(rightActive, i)
		}
	}
	if ra, err = evalActive(ctx, b, right, rightActive); err != nil {
		la.Release()
		return nil, nil, nil, nil, nil, err
	}
	if rl, err = lambdaCheckList(what, ra, n); err != nil {
		la.Release()
		ra.Release()
		return nil, nil, nil, nil, nil, err
	}
	return la, ra, ll, rl, rightActive, nil
}

// lambdaBools builds a boolean column from value and validity bits (Go heap, n bits each).
func lambdaBools(alloc memory.Allocator, vals, valid []byte, n int) arrow.Array {
	vbuf, vb := newBitmap(alloc, n)
	copy(vb, vals)
	nulls := countNulls(valid, n)
	var nbuf *memory.Buffer
	if nulls > 0 {
		var nb []byte
		nbuf, nb = newBitmap(alloc, n)
		copy(nb, valid)
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, nbuf, vbuf, nulls)
}
