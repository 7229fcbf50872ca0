// Constructors: array(a, b, ...) and named_struct / struct. An array's elements interleave its
// arguments row by row, which a gather over the argument columns lays out in one pass; a struct
// shares its argument columns as children (a constructed struct is never null).
package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("CreateArray", "array(a, b, ...) of atomic elements", translateCreateArray)
	RegisterNested("CreateNamedStruct", "named_struct / struct: a struct of its arguments, never null", translateCreateNamedStruct)
}

type createArray struct {
	elems []Expr
	typ   sparktype.Type
}

func translateCreateArray(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	elem, _ := t.Elem()
	if !elem.Supported() {
		return nil, unsupported("array of %s elements is not supported natively", elem)
	}
	kids, err := translateChildren(e, "children", conf)
	if err != nil {
		return nil, err
	}
	if len(kids) == 0 {
		return nil, unsupported("an empty array() is not supported natively")
	}
	for _, k := range kids {
		if !k.Type().Equal(elem) {
			return nil, unsupported("array element %s of type %s, not %s", k, k.Type(), elem)
		}
	}
	return &createArray{elems: kids, typ: t}, nil
}

func (c *createArray) Type() sparktype.Type { return c.typ }
func (c *createArray) mayFail() bool {
	for _, k := range c.elems {
		if mayFail(k) {
			return true
		}
	}
	return false
}
func (c *createArray) String() string { return fmt.Sprintf("array(%s)", joinExprs(c.elems)) }

// evalAll evaluates each expression into a full column; on error it releases what it made.
func evalAll(ctx *exec.TaskContext, b *columnar.Batch, es []Expr) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(es))
	for i, e := range es {
		a, err := e.Eval(ctx, b)
		if err == nil && a.Len() != b.NumRows {
			a.Release()
			err = fmt.Errorf("%s returned %d rows for a batch of %d", e, a.Len(), b.NumRows)
		}
		if err != nil {
			releaseArrays(out[:i])
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func (c *createArray) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n, w := b.NumRows, len(c.elems)
	cols, err := evalAll(ctx, b, c.elems)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(cols)
	refs := make([]columnar.RowRef, n*w)
	for i := 0; i < n; i++ {
		for j := 0; j < w; j++ {
			refs[i*w+j] = columnar.RowRef{Src: uint32(j), Row: uint32(i)}
		}
	}
	vals, err := columnar.Gather(ctx.Alloc, cols, refs)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	for i := range offs {
		offs[i] = int32(i * w)
	}
	d := array.NewData(c.typ.Arrow(), n, []*memory.Buffer{nil, offBuf}, []arrow.ArrayData{vals.Data()}, 0, 0)
	offBuf.Release()
	defer d.Release()
	return array.MakeFromData(d), nil
}

type createStruct struct {
	names  []string
	fields []Expr
	typ    sparktype.Type
}

func translateCreateNamedStruct(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	kids, err := translateChildren(e, "children", conf)
	if err != nil {
		return nil, err
	}
	fs := t.Fields()
	if len(kids) != 2*len(fs) {
		return nil, unsupported("named_struct with %d arguments for %d fields", len(kids), len(fs))
	}
	c := &createStruct{typ: t}
	for i, f := range fs {
		v := kids[2*i+1]
		if !v.Type().Equal(f.Type) {
			return nil, unsupported("named_struct field %s: %s is not %s", f.Name, v.Type(), f.Type)
		}
		c.names = append(c.names, f.Name)
		c.fields = append(c.fields, v)
	}
	return c, nil
}

func (c *createStruct) Type() sparktype.Type { return c.typ }
func (c *createStruct) mayFail() bool {
	for _, k := range c.fields {
		if mayFail(k) {
			return true
		}
	}
	return false
}
func (c *createStruct) String() string {
	s := make([]string, len(c.fields))
	for i, f := range c.fields {
		s[i] = c.names[i] + ": " + f.String()
	}
	return "named_struct(" + strings.Join(s, ", ") + ")"
}

func (c *createStruct) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	cols, err := evalAll(ctx, b, c.fields)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(cols)
	kids := make([]arrow.ArrayData, len(cols))
	for i, a := range cols {
		kids[i] = a.Data()
	}
	d := array.NewData(c.typ.Arrow(), b.NumRows, []*memory.Buffer{nil}, kids, 0, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
