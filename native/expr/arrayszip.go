// arrays_zip(a, b, ...): the i-th struct holds the i-th element of every array, null where an
// array is shorter; a null array makes the row null. Each struct field is one gather over its
// array's elements (a null reference pads), so any element type zips. The structs themselves are
// never null. map_entries (mapentries.go) is the same shape read straight from a map.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("ArraysZip", "arrays_zip(a, b, ...): structs of the i-th elements, null-padded to the longest array, null if any array is null", translateArraysZip)
}

type arrZipExpr struct {
	arrs []Expr
	typ  sparktype.Type
}

func translateArraysZip(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arrs, err := translateChildren(e, "children", conf)
	if err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	st, ok := arrElem(t)
	if !ok || st.Kind != sparktype.Struct || len(st.Fields()) != len(arrs) || len(arrs) == 0 {
		return nil, unsupported("arrays_zip of %d arrays returning %s", len(arrs), t)
	}
	for i, a := range arrs {
		el, ok := arrElem(a.Type())
		if !ok || !el.Equal(st.Fields()[i].Type) {
			return nil, unsupported("arrays_zip argument %s of type %s for field %s", a, a.Type(), st.Fields()[i].Type)
		}
	}
	return &arrZipExpr{arrs: arrs, typ: t}, nil
}

func (z *arrZipExpr) Type() sparktype.Type { return z.typ }
func (z *arrZipExpr) mayFail() bool {
	for _, a := range z.arrs {
		if mayFail(a) {
			return true
		}
	}
	return false
}
func (z *arrZipExpr) String() string { return fmt.Sprintf("arrays_zip(%s)", joinExprs(z.arrs)) }

func (z *arrZipExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n, w := b.NumRows, len(z.arrs)
	ls := make([]listArray, 0, w)
	defer func() {
		for _, l := range ls {
			l.Release()
		}
	}()
	for _, a := range z.arrs {
		l, err := arrEvalList(ctx, b, a, z)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	offs := make([][]int32, w)
	for j, l := range ls {
		offs[j] = listOffsets(l)
	}
	out := newArrListOut(n, 0)
	fieldRefs := make([][]columnar.RowRef, w)
	for i := 0; i < n; i++ {
		length, ok := int32(0), true
		for j, l := range ls {
			bm, off := validity(l)
			if !arrRowValid(bm, off, i) {
				ok = false
				break
			}
			length = max(length, offs[j][i+1]-offs[j][i])
		}
		if !ok {
			out.nullRow()
			continue
		}
		for j := range ls {
			o0, size := offs[j][i], offs[j][i+1]-offs[j][i]
			for k := int32(0); k < length; k++ {
				if k < size {
					fieldRefs[j] = append(fieldRefs[j], columnar.RowRef{Row: uint32(o0 + k)})
				} else {
					fieldRefs[j] = append(fieldRefs[j], columnar.NullRef)
				}
			}
		}
		// The list's own references only count the structs; the fields are gathered apart.
		for k := int32(0); k < length; k++ {
			out.addNull()
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", z, err)
		}
	}
	total := len(out.refs)
	structType := z.typ.Arrow().(*arrow.ListType).Elem()
	kids := make([]arrow.ArrayData, w)
	defer func() {
		for _, k := range kids {
			if k != nil {
				k.Release()
			}
		}
	}()
	for j, l := range ls {
		var f arrow.Array
		if total == 0 {
			f = array.MakeArrayOfNull(ctx.Alloc, l.ListValues().DataType(), 0)
		} else {
			var err error
			if f, err = columnar.Gather(ctx.Alloc, []arrow.Array{l.ListValues()}, fieldRefs[j]); err != nil {
				return nil, fmt.Errorf("%s: %w", z, err)
			}
		}
		kids[j] = f.Data()
		kids[j].Retain()
		f.Release()
	}
	sd := array.NewData(structType, total, []*memory.Buffer{nil}, kids, 0, 0)
	defer sd.Release()
	offBuf, o := newFixed[int32](ctx.Alloc, n+1)
	copy(o, out.offs)
	var vbuf *memory.Buffer
	nulls := 0
	if out.valid != nil {
		var vb []byte
		vbuf, vb = newBitmap(ctx.Alloc, n)
		copy(vb, out.valid)
		nulls = countNulls(vb, n)
	}
	d := array.NewData(z.typ.Arrow(), n, []*memory.Buffer{vbuf, offBuf}, []arrow.ArrayData{sd}, nulls, 0)
	offBuf.Release()
	if vbuf != nil {
		vbuf.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}
