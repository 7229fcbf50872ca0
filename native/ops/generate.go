package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Generate is Spark's GenerateExec for the collection generators explode, posexplode and inline,
// and for stack: every input row becomes the rows its generator yields, each joined with the
// required input columns, in Spark's order (input row by input row, elements in order). With
// outer, a row whose collection is null or empty still gives one row, its generated columns null
// (posexplode's pos included).
//
// Per input batch the collection is evaluated once; each output batch is then a list of (input
// row, element) references built by a plain loop over the collection's offsets, and every output
// column is one typed gather (columnar.Take / Gather). Output batches hold at most the task's
// batch size rows: a row with a huge array continues in the next batch (the cursor is the input
// row and the element within it).
type Generate struct {
	child    exec.Operator
	spec     GenerateSpec
	required []int // child column of each required output column
	schema   []sparktype.Field

	ctx *exec.TaskContext
	in  *columnar.Batch // current input batch (nil: read the next one)

	// The current batch's generator input: the evaluated collection and views of it (valid while
	// coll lives), or the stack's evaluated arguments.
	coll    arrow.Array
	offs    []int32 // rows+1 offsets of coll into its values
	valid   []byte  // coll's validity bitmap (nil: no nulls), read at validOff+row
	validOf int
	elems   arrow.Array    // explode of an array: the elements
	kv      [2]arrow.Array // explode of a map: keys and values
	st      *array.Struct  // inline: the struct elements
	stack   []arrow.Array

	row, elem int // cursor: next input row, and next element within it

	// Scratch per output batch: the input row and the element (-1: the outer null row) of each
	// output row, and its position within its input row.
	sel  []int32
	elix []int32
	pos  []int32
	refs []columnar.RowRef
}

// GeneratorKind is the generator a Generate runs.
type GeneratorKind int

const (
	// GenExplodeArray is explode / posexplode of an array: [pos,] col.
	GenExplodeArray GeneratorKind = iota
	// GenExplodeMap is explode / posexplode of a map: [pos,] key, value.
	GenExplodeMap
	// GenInline is inline of an array of structs: one column per struct field; a null struct
	// element gives a row of nulls.
	GenInline
	// GenStack is stack(n, v1, ..., vk): n rows of ceil(k/n) columns per input row, the missing
	// trailing values null.
	GenStack
)

// GenerateSpec describes the generator of a Generate.
type GenerateSpec struct {
	Kind     GeneratorKind
	Position bool // posexplode: an int pos column first
	Outer    bool
	// Collection is the array or map argument of explode, posexplode and inline.
	Collection expr.Expr
	// StackRows and StackArgs: stack's n and its values (v1, ..., vk).
	StackRows int
	StackArgs []expr.Expr
}

// generatedTypes are the types of the columns a generator yields, for validation.
func (s *GenerateSpec) generatedTypes() ([]sparktype.Type, error) {
	var out []sparktype.Type
	if s.Position {
		if s.Kind != GenExplodeArray && s.Kind != GenExplodeMap {
			return nil, fmt.Errorf("generate: position column on a generator other than explode")
		}
		out = append(out, sparktype.IntType)
	}
	switch s.Kind {
	case GenExplodeArray, GenInline:
		t := s.Collection.Type()
		e, _ := t.Elem()
		if t.Kind != sparktype.Array {
			return nil, fmt.Errorf("generate: %s of %s, not an array", s.name(), t)
		}
		if s.Kind == GenExplodeArray {
			return append(out, e), nil
		}
		if e.Kind != sparktype.Struct {
			return nil, fmt.Errorf("generate: inline of %s, not an array of structs", t)
		}
		for _, f := range e.Fields() {
			out = append(out, f.Type)
		}
		return out, nil
	case GenExplodeMap:
		t := s.Collection.Type()
		if t.Kind != sparktype.Map {
			return nil, fmt.Errorf("generate: explode of %s, not a map", t)
		}
		k, v, _ := t.KeyValue()
		return append(out, k, v), nil
	case GenStack:
		if s.StackRows < 1 || len(s.StackArgs) == 0 {
			return nil, fmt.Errorf("generate: stack of %d rows over %d values", s.StackRows, len(s.StackArgs))
		}
		nf := s.stackFields()
		for c := 0; c < nf; c++ {
			t := s.StackArgs[c].Type()
			for i := c + nf; i < len(s.StackArgs); i += nf {
				if !s.StackArgs[i].Type().Equal(t) {
					return nil, fmt.Errorf("generate: stack column %d mixes %s and %s", c, t, s.StackArgs[i].Type())
				}
			}
			out = append(out, t)
		}
		return out, nil
	}
	return nil, fmt.Errorf("generate: unknown generator %d", s.Kind)
}

// stackFields is Spark's numFields: ceil(k / n).
func (s *GenerateSpec) stackFields() int {
	return (len(s.StackArgs) + s.StackRows - 1) / s.StackRows
}

func (s *GenerateSpec) name() string {
	switch s.Kind {
	case GenInline:
		return "inline"
	case GenStack:
		return "stack"
	}
	if s.Position {
		return "posexplode"
	}
	return "explode"
}

// NewGenerate validates the generator against the output schema: the required child columns,
// then the generated ones, of the generator's types.
func NewGenerate(child exec.Operator, required []int, spec GenerateSpec, schema []sparktype.Field) (*Generate, error) {
	gen, err := spec.generatedTypes()
	if err != nil {
		return nil, err
	}
	if len(required)+len(gen) != len(schema) {
		return nil, fmt.Errorf("generate: %d required and %d generated columns for %d output columns",
			len(required), len(gen), len(schema))
	}
	in := child.Schema()
	for i, c := range required {
		if c < 0 || c >= len(in) {
			return nil, fmt.Errorf("generate: required column %d of a child with %d columns", c, len(in))
		}
		if !in[c].Type.Equal(schema[i].Type) {
			return nil, fmt.Errorf("generate: required column %s is %s in the child, %s in the output",
				schema[i].Name, in[c].Type, schema[i].Type)
		}
	}
	for i, t := range gen {
		f := schema[len(required)+i]
		if !t.Equal(f.Type) {
			return nil, fmt.Errorf("generate: %s yields %s for column %s of type %s", spec.name(), t, f.Name, f.Type)
		}
	}
	return &Generate{child: child, spec: spec, required: required, schema: schema}, nil
}

func (g *Generate) Schema() []sparktype.Field { return g.schema }

func (g *Generate) Open(ctx *exec.TaskContext) error {
	g.ctx = ctx
	g.releaseInput()
	return g.child.Open(ctx)
}

func (g *Generate) Next() (*columnar.Batch, error) {
	for {
		if g.in == nil {
			b, err := g.child.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if err := g.load(b); err != nil {
				return nil, err
			}
		}
		if n := g.plan(max(1, g.ctx.BatchSize())); n > 0 {
			return g.build(n)
		}
		g.releaseInput()
	}
}

// load evaluates the generator's input over b, which the operator then owns.
func (g *Generate) load(b *columnar.Batch) error {
	g.in, g.row, g.elem = b, 0, 0
	if g.spec.Kind == GenStack {
		for i, x := range g.spec.StackArgs {
			a, err := x.Eval(g.ctx, b)
			if err != nil {
				g.releaseInput()
				return fmt.Errorf("stack value %d: %w", i+1, err)
			}
			g.stack = append(g.stack, a)
		}
		return nil
	}
	a, err := g.spec.Collection.Eval(g.ctx, b)
	if err != nil {
		g.releaseInput()
		return fmt.Errorf("%s argument %s: %w", g.spec.name(), g.spec.Collection, err)
	}
	g.coll = a
	if a.Len() != b.NumRows {
		g.releaseInput()
		return fmt.Errorf("%s argument: %d values for %d rows", g.spec.name(), a.Len(), b.NumRows)
	}
	var values arrow.Array
	switch l := a.(type) {
	case *array.List:
		values = l.ListValues()
		g.offs = rowOffsets(l.Offsets(), l.Data())
	case *array.Map:
		values = l.ListValues()
		g.offs = rowOffsets(l.Offsets(), l.Data())
	default:
		g.releaseInput()
		return fmt.Errorf("%s argument is %s, not a list or map", g.spec.name(), a.DataType())
	}
	if a.NullN() > 0 {
		g.valid, g.validOf = a.NullBitmapBytes(), a.Data().Offset()
	}
	switch g.spec.Kind {
	case GenExplodeArray:
		g.elems = values
	case GenExplodeMap:
		st := values.(*array.Struct)
		g.kv = [2]arrow.Array{st.Field(0), st.Field(1)}
	case GenInline:
		st, ok := values.(*array.Struct)
		if !ok {
			g.releaseInput()
			return fmt.Errorf("inline argument elements are %s, not structs", values.DataType())
		}
		g.st = st
	}
	return nil
}

// rowOffsets are the Len()+1 offsets of a list or map, the array's offset applied (Arrow's
// Offsets() is the whole buffer, and empty for an empty array without one).
func rowOffsets(all []int32, d arrow.ArrayData) []int32 {
	if d.Len() == 0 {
		return []int32{0}
	}
	return all[d.Offset() : d.Offset()+d.Len()+1]
}

// plan fills the scratch references of the next output batch, at most limit rows, from the
// cursor on, and returns how many rows it holds (0: the input batch is used up).
func (g *Generate) plan(limit int) int {
	g.sel, g.elix, g.pos = g.sel[:0], g.elix[:0], g.pos[:0]
	rows := g.in.NumRows
	if g.spec.Kind == GenStack {
		n := g.spec.StackRows
		for g.row < rows && len(g.sel) < limit {
			m := min(n-g.elem, limit-len(g.sel))
			for j := g.elem; j < g.elem+m; j++ {
				g.sel = append(g.sel, int32(g.row))
				g.pos = append(g.pos, int32(j))
			}
			if g.elem += m; g.elem == n {
				g.row, g.elem = g.row+1, 0
			}
		}
		return len(g.sel)
	}
	for g.row < rows && len(g.sel) < limit {
		r := g.row
		cnt := 0
		start := g.offs[r]
		if g.valid == nil || bitutil.BitIsSet(g.valid, g.validOf+r) {
			cnt = int(g.offs[r+1] - start)
		}
		if cnt == 0 {
			if g.spec.Outer {
				g.sel = append(g.sel, int32(r))
				g.elix = append(g.elix, -1)
				g.pos = append(g.pos, -1)
			}
			g.row, g.elem = r+1, 0
			continue
		}
		m := min(cnt-g.elem, limit-len(g.sel))
		for k := g.elem; k < g.elem+m; k++ {
			g.sel = append(g.sel, int32(r))
			g.elix = append(g.elix, start+int32(k))
			g.pos = append(g.pos, int32(k))
		}
		if g.elem += m; g.elem == cnt {
			g.row, g.elem = r+1, 0
		}
	}
	return len(g.sel)
}

// build lays out the planned output batch of n rows.
func (g *Generate) build(n int) (*columnar.Batch, error) {
	alloc := g.ctx.Alloc
	out := make([]arrow.Array, 0, len(g.schema))
	fail := func(what string, err error) (*columnar.Batch, error) {
		columnar.NewBatch(out, 0).Release()
		return nil, fmt.Errorf("%s: %s: %w", g.spec.name(), what, err)
	}
	for i, c := range g.required {
		a, err := columnar.Take(alloc, g.in.Cols[c], g.sel)
		if err != nil {
			return fail("column "+g.schema[i].Name, err)
		}
		out = append(out, a)
	}
	if g.spec.Position {
		out = append(out, g.positions(alloc, n))
	}
	switch g.spec.Kind {
	case GenStack:
		nf := g.spec.stackFields()
		// srcOf[j]: the source of row j of the stack in this column's gather, NullSrc when the
		// row has no value for it (the last row of an uneven stack).
		srcOf := make([]uint32, g.spec.StackRows)
		var srcs []arrow.Array
		for c := 0; c < nf; c++ {
			srcs = srcs[:0]
			for j := range srcOf {
				if i := j*nf + c; i < len(g.stack) {
					srcOf[j] = uint32(len(srcs))
					srcs = append(srcs, g.stack[i])
				} else {
					srcOf[j] = columnar.NullSrc
				}
			}
			refs := g.refsFor(n)
			for k, r := range g.sel {
				refs[k] = columnar.RowRef{Src: srcOf[g.pos[k]], Row: uint32(r)}
			}
			a, err := columnar.Gather(alloc, srcs, refs)
			if err != nil {
				return fail(fmt.Sprintf("column %d", c), err)
			}
			out = append(out, a)
		}
	case GenExplodeArray, GenExplodeMap:
		refs := g.refsFor(n)
		for k, e := range g.elix {
			refs[k] = elemRef(e)
		}
		srcs := []arrow.Array{g.elems}
		if g.spec.Kind == GenExplodeMap {
			srcs = g.kv[:]
		}
		for _, s := range srcs {
			a, err := columnar.Gather(alloc, []arrow.Array{s}, refs)
			if err != nil {
				return fail("elements", err)
			}
			out = append(out, a)
		}
	case GenInline:
		// A null struct element gives nulls in every column, whatever its fields hold.
		refs := g.refsFor(n)
		for k, e := range g.elix {
			if e >= 0 && g.st.IsNull(int(e)) {
				e = -1
			}
			refs[k] = elemRef(e)
		}
		for f := 0; f < g.st.NumField(); f++ {
			a, err := columnar.Gather(alloc, []arrow.Array{g.st.Field(f)}, refs)
			if err != nil {
				return fail(fmt.Sprintf("field %d", f), err)
			}
			out = append(out, a)
		}
	}
	return columnar.NewBatch(out, n), nil
}

func elemRef(e int32) columnar.RowRef {
	if e < 0 {
		return columnar.NullRef
	}
	return columnar.RowRef{Src: 0, Row: uint32(e)}
}

func (g *Generate) refsFor(n int) []columnar.RowRef {
	if cap(g.refs) < n {
		g.refs = make([]columnar.RowRef, n)
	}
	return g.refs[:n]
}

// positions is posexplode's int column: the element's index, null on an outer null row.
func (g *Generate) positions(alloc memory.Allocator, n int) arrow.Array {
	vals := memory.NewResizableBuffer(alloc)
	vals.Resize(n * 4)
	copy(arrow.Int32Traits.CastFromBytes(vals.Bytes()), g.pos[:n])
	var valid *memory.Buffer
	nulls := 0
	for _, p := range g.pos[:n] {
		if p < 0 {
			nulls++
		}
	}
	if nulls > 0 {
		valid = memory.NewResizableBuffer(alloc)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		bm := valid.Bytes()
		for k, p := range g.pos[:n] {
			bitutil.SetBitTo(bm, k, p >= 0)
		}
	}
	d := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	vals.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// releaseInput drops the current input batch and everything evaluated from it.
func (g *Generate) releaseInput() {
	if g.in != nil {
		g.in.Release()
		g.in = nil
	}
	if g.coll != nil {
		g.coll.Release()
		g.coll = nil
	}
	for _, a := range g.stack {
		a.Release()
	}
	g.stack = g.stack[:0]
	g.offs, g.valid, g.elems, g.kv, g.st = nil, nil, nil, [2]arrow.Array{}, nil
	g.row, g.elem = 0, 0
}

func (g *Generate) Close() {
	g.releaseInput()
	g.child.Close()
}
