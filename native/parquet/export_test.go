package parquet

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"
)

// cArray mirrors the C Data Interface's struct ArrowArray, so that the test reads what an
// importer reads without cgo.
type cArray struct {
	length, nullCount, offset, nBuffers, nChildren int64
	buffers                                        unsafe.Pointer
	children                                       **cArray
	dictionary                                     *cArray
	release                                        unsafe.Pointer
	privateData                                    unsafe.Pointer
}

// checkExported walks an exported array the way Arrow Java's importer does: every node at offset
// 0 (Java refuses others), as many children as its type has, lengths consistent with the type.
func checkExported(path string, c *cArray, dt arrow.DataType, length int64) error {
	if c.release == nil {
		return fmt.Errorf("%s: released", path)
	}
	if c.offset != 0 {
		return fmt.Errorf("%s: offset %d", path, c.offset)
	}
	if c.length != length {
		return fmt.Errorf("%s: length %d, want %d", path, c.length, length)
	}
	var kids []arrow.Field
	switch t := dt.(type) {
	case *arrow.StructType:
		kids = t.Fields()
	case *arrow.MapType:
		kids = []arrow.Field{{Name: "entries", Type: t.Elem()}}
	case *arrow.ListType:
		kids = []arrow.Field{t.ElemField()}
	}
	if c.nChildren != int64(len(kids)) {
		return fmt.Errorf("%s (%s): %d children, want %d", path, dt, c.nChildren, len(kids))
	}
	if len(kids) == 0 {
		return nil
	}
	ch := unsafe.Slice(c.children, c.nChildren)
	for i, f := range kids {
		n := length
		if dt.ID() == arrow.LIST || dt.ID() == arrow.MAP {
			// The child holds as many values as the last offset says.
			offs := unsafe.Slice((**int32)(c.buffers), 2)[1]
			n = int64(unsafe.Slice(offs, length+1)[length])
			if length == 0 {
				n = ch[0].length
			}
		}
		if err := checkExported(path+"."+f.Name, ch[i], f.Type, n); err != nil {
			return err
		}
	}
	return nil
}

// Nested batches from the reader, compacted as the JNI boundary does, exported through the C Data
// Interface: the exported tree must be what Arrow Java imports (no offsets, every child present),
// also after a slice (a limit) and a selection (a filter).
func TestNestedExport(t *testing.T) {
	recs := genNested(1500)
	path := writeNested(t, recs, pq.MaxRowsPerRowGroup(400), pq.PageBufferSize(256))
	mem := checkedAlloc(t)
	r, err := Open(path, 0, 1<<40, &ScanSpec{Columns: nestedSpec, BatchSize: 97}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	schema := arrow.NewSchema(func() []arrow.Field {
		fs := make([]arrow.Field, len(nestedSpec))
		for i, f := range nestedSpec {
			fs[i] = arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: f.Nullable}
		}
		return fs
	}(), nil)
	batches := 0
	for {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		batches++
		variants := map[string][]arrow.Array{"read": b.Cols}
		var owned []arrow.Array
		if b.NumRows > 3 {
			var sl, sel []arrow.Array
			idx := []int32{int32(b.NumRows - 1), 0, 2}
			for _, c := range b.Cols {
				sl = append(sl, array.NewSlice(c, 1, int64(b.NumRows-1)))
				tk, err := columnar.Take(mem, c, idx)
				if err != nil {
					t.Fatal(err)
				}
				// A struct field of a taken struct, sliced: offsets below the top level.
				sel = append(sel, tk)
			}
			owned = append(append(owned, sl...), sel...)
			variants["sliced"], variants["taken"] = sl, sel
		}
		for name, cols := range variants {
			n := int64(cols[0].Len())
			compact := make([]arrow.Array, len(cols))
			for i, c := range cols {
				if compact[i], err = columnar.Compact(mem, c); err != nil {
					t.Fatal(err)
				}
			}
			rec := array.NewRecordBatch(schema, compact, n)
			for i, c := range compact {
				if !array.Equal(c, cols[i]) {
					t.Fatalf("batch %d %s: compacted column %s differs", batches, name, schema.Field(i).Name)
				}
				c.Release()
			}
			out := new(cArray)
			cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(unsafe.Pointer(out)), nil)
			rec.Release()
			err := checkExported("batch", out, arrow.StructOf(schema.Fields()...), n)
			cdata.ReleaseCArrowArray((*cdata.CArrowArray)(unsafe.Pointer(out)))
			if err != nil {
				t.Fatalf("batch %d %s: %v", batches, name, err)
			}
		}
		for _, c := range owned {
			c.Release()
		}
		b.Release()
	}
	if batches < 10 {
		t.Fatalf("%d batches", batches)
	}
}
