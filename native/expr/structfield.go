// Struct field access. A field of a null struct is null even where the child column holds a value
// (Arrow keeps the child's own bits), so the struct's validity is folded into the field's.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("GetStructField", "struct.field: null when the struct is null", translateGetStructField)
}

type getStructField struct {
	child   Expr
	ordinal int
	name    string
	typ     sparktype.Type
}

func translateGetStructField(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	ord, err := e.Int("ordinal")
	if err != nil {
		return nil, err
	}
	ct := c.Type()
	if ct.Kind != sparktype.Struct || ord < 0 || int(ord) >= len(ct.Fields()) {
		return nil, unsupported("GetStructField ordinal %d of %s", ord, ct)
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	f := ct.Fields()[ord]
	if !f.Type.Equal(t) {
		return nil, unsupported("GetStructField of %s: field type %s differs from result type %s", ct, f.Type, t)
	}
	return &getStructField{child: c, ordinal: int(ord), name: f.Name, typ: t}, nil
}

func (g *getStructField) Type() sparktype.Type { return g.typ }
func (g *getStructField) mayFail() bool        { return mayFail(g.child) }
func (g *getStructField) String() string       { return fmt.Sprintf("%s.%s", g.child, g.name) }

func (g *getStructField) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	a, err := g.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	st, ok := a.(*array.Struct)
	if !ok || g.ordinal >= st.NumField() {
		return nil, fmt.Errorf("%s: child is %s, not a struct with field %d", g, a.DataType(), g.ordinal)
	}
	return withParentNulls(ctx.Alloc, st.Field(g.ordinal), a), nil
}

// withParentNulls returns child (a new reference) with the rows where parent is null made null;
// child and parent have the same length.
func withParentNulls(alloc memory.Allocator, child, parent arrow.Array) arrow.Array {
	if parent.NullN() == 0 || child.DataType().ID() == arrow.NULL {
		child.Retain()
		return child
	}
	pbm, poff := validity(parent)
	return withValidity(alloc, child, pbm, poff)
}

// withValidity returns child (a new reference) with the rows whose bit in keep (from bit koff) is
// clear made null. Only the validity bitmap is new: it is laid out at the child's offset so that
// every other buffer and the children are shared.
func withValidity(alloc memory.Allocator, child arrow.Array, keep []byte, koff int) arrow.Array {
	d := child.Data()
	n, off := d.Len(), d.Offset()
	buf, bm := newBitmap(alloc, off+n)
	bitutil.CopyBitmap(keep, koff, n, bm, off)
	if cbm, coff := validity(child); cbm != nil {
		bitutil.BitmapAnd(bm, cbm, int64(off), int64(coff), bm, int64(off), int64(n))
	}
	nulls := n - bitutil.CountSetBits(bm, off, n)
	bufs := append([]*memory.Buffer{buf}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	buf.Release()
	out := array.MakeFromData(nd)
	nd.Release()
	return out
}
