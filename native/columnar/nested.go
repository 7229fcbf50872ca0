package columnar

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take and Gather of the nested layouts (struct, list, map): the parent's validity and offsets
// are built here, the children recurse with the rows they hold for the selected parents.

func takeStruct(alloc memory.Allocator, a *array.Struct, sel []int32) (arrow.Array, error) {
	validity, nulls := takeValidity(alloc, a, sel)
	kids := make([]arrow.ArrayData, a.NumField())
	defer releaseData(kids)
	for i := range kids {
		c, err := Take(alloc, a.Field(i), sel)
		if err != nil {
			if validity != nil {
				validity.Release()
			}
			return nil, err
		}
		kids[i] = c.Data()
		kids[i].Retain()
		c.Release()
	}
	return finishNested(a.DataType(), len(sel), validity, nulls, nil, kids), nil
}

// takeList serves lists and maps (a map is a list of key-value structs).
func takeList(alloc memory.Allocator, a arrow.Array, offs []int32, child arrow.Array, sel []int32) (arrow.Array, error) {
	validity, nulls := takeValidity(alloc, a, sel)
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((len(sel) + 1) * 4)
	out := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	total := int32(0)
	for i, j := range sel {
		out[i] = total
		total += offs[j+1] - offs[j]
	}
	out[len(sel)] = total
	inner := make([]int32, 0, total)
	for _, j := range sel {
		for k := offs[j]; k < offs[j+1]; k++ {
			inner = append(inner, k)
		}
	}
	c, err := Take(alloc, child, inner)
	if err != nil {
		offBuf.Release()
		if validity != nil {
			validity.Release()
		}
		return nil, err
	}
	kids := []arrow.ArrayData{c.Data()}
	kids[0].Retain()
	c.Release()
	defer releaseData(kids)
	return finishNested(a.DataType(), len(sel), validity, nulls, offBuf, kids), nil
}

func gatherStruct(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) (arrow.Array, error) {
	validity, nulls := gatherValidity(alloc, srcs, refs)
	st := srcs[0].(*array.Struct)
	kids := make([]arrow.ArrayData, st.NumField())
	defer releaseData(kids)
	fs := make([]arrow.Array, len(srcs))
	for i := range kids {
		for s, src := range srcs {
			fs[s] = src.(*array.Struct).Field(i)
		}
		c, err := Gather(alloc, fs, refs)
		if err != nil {
			if validity != nil {
				validity.Release()
			}
			return nil, err
		}
		kids[i] = c.Data()
		kids[i].Retain()
		c.Release()
	}
	return finishNested(st.DataType(), len(refs), validity, nulls, nil, kids), nil
}

type listLike interface {
	arrow.Array
	Offsets() []int32
	ListValues() arrow.Array
}

// listOffsets are the Len()+1 offsets of a list or map into its values, the array's offset
// applied (Arrow's Offsets() returns the whole buffer).
func listOffsets(a listLike) []int32 {
	d := a.Data()
	if d.Len() == 0 && len(a.Offsets()) == 0 {
		return []int32{0}
	}
	return a.Offsets()[d.Offset() : d.Offset()+d.Len()+1]
}

func gatherList(alloc memory.Allocator, srcs []arrow.Array, refs []RowRef) (arrow.Array, error) {
	validity, nulls := gatherValidity(alloc, srcs, refs)
	offs := make([][]int32, len(srcs))
	kidSrcs := make([]arrow.Array, len(srcs))
	for i, s := range srcs {
		l := s.(listLike)
		offs[i], kidSrcs[i] = listOffsets(l), l.ListValues()
	}
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((len(refs) + 1) * 4)
	out := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	var inner []RowRef
	for i, r := range refs {
		out[i] = int32(len(inner))
		if r.Src == NullSrc {
			continue
		}
		o := offs[r.Src]
		for k := o[r.Row]; k < o[r.Row+1]; k++ {
			inner = append(inner, RowRef{Src: r.Src, Row: uint32(k)})
		}
	}
	out[len(refs)] = int32(len(inner))
	c, err := Gather(alloc, kidSrcs, inner)
	if err != nil {
		offBuf.Release()
		if validity != nil {
			validity.Release()
		}
		return nil, err
	}
	kids := []arrow.ArrayData{c.Data()}
	kids[0].Retain()
	c.Release()
	defer releaseData(kids)
	return finishNested(srcs[0].DataType(), len(refs), validity, nulls, offBuf, kids), nil
}

// finishNested builds the array and drops the caller's references to the buffers (the children
// stay the caller's to release).
func finishNested(dt arrow.DataType, n int, validity *memory.Buffer, nulls int, offsets *memory.Buffer, kids []arrow.ArrayData) arrow.Array {
	bufs := []*memory.Buffer{validity}
	if offsets != nil {
		bufs = append(bufs, offsets)
	}
	d := array.NewData(dt, n, bufs, kids, nulls, 0)
	defer d.Release()
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return array.MakeFromData(d)
}

func releaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}
