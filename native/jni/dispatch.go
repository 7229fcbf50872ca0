package main

/*
#include "bridge.h"
#include "dispatch.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
)

// setDispatcher gives a task's block the JVM evaluator of its dispatched expressions
// (expr.Dispatched, the JVM-side NativeDispatcher), before its first batch.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_setDispatcher
func Java_org_apache_spark_sql_bolide_NativeLib_setDispatcher(env *C.JNIEnv, _ C.jclass, h C.jlong, d C.jobject) {
	defer guard(env, "setDispatcher")
	t := taskOf(env, h)
	defer func() { t.env = nil }()
	if t.closed {
		throwError(env, fmt.Errorf("native block %s: dispatcher set after close", t.rootName))
		return
	}
	if d == 0 {
		t.ctx.Dispatch = nil
		return
	}
	g := C.new_global(env, d)
	t.globals = append(t.globals, g)
	t.ctx.Dispatch = &jvmDispatch{t: t, obj: g}
}

// jvmDispatch evaluates dispatched expressions in the JVM: one upcall per batch, on the task
// thread. The input columns are exported as one record batch into structs this side allocates
// and frees (the JVM imports, and so moves, them, or only reads the buffers in place during the
// call, and this side releases the export after it); the JVM exports the result, one array, into a
// second pair this side allocates, imports and frees: the discipline of jvmInput.Next.
//
// Schemas cross once per expression and task (shared/go-in-jvm.md: the schema is a good part of a
// crossing's cost): the input schema and the attributes' exprIds whenever the columns' Arrow types
// differ from those of the schema the JVM last took (so on the first batch), the result's schema
// on the first batch only; otherwise the pointers are null and both sides reuse what they kept.
//
// A fixed-width result (rawBits) is not exported at all after the first batch: this side
// allocates its validity and data buffers and the JVM writes the values into them during the call
// (it keeps no reference), then returns the null count; the JVM may still export instead (-1).
type jvmDispatch struct {
	t     *task
	obj   C.jobject
	mu    sync.Mutex // the task's batches are evaluated on its thread; this only keeps state sound
	state map[int]*dispatchState
}

// dispatchState is what one dispatched expression's earlier batches left on this side.
type dispatchState struct {
	schema  *arrow.Schema  // the input schema the JVM holds (nil: none yet)
	outType arrow.DataType // the result's Arrow type, from the JVM's first export (nil: none yet)
}

// rawBits is the width in bits of a result the JVM writes straight into this side's buffers (the
// types BolideDispatcher's DispatchResult writes), or 0.
func rawBits(t arrow.DataType) int {
	switch t.ID() {
	case arrow.BOOL:
		return 1
	case arrow.INT8:
		return 8
	case arrow.INT16:
		return 16
	case arrow.INT32, arrow.DATE32, arrow.FLOAT32:
		return 32
	case arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64:
		return 64
	}
	return 0
}

// sameTypes: cols have the Arrow types of s's fields.
func sameTypes(s *arrow.Schema, cols []arrow.Array) bool {
	if s == nil || s.NumFields() != len(cols) {
		return false
	}
	for i, c := range cols {
		if !arrow.TypeEqual(s.Field(i).Type, c.DataType()) {
			return false
		}
	}
	return true
}

func (d *jvmDispatch) Dispatch(id int, exprIDs []int64, cols []arrow.Array, rows int) (arrow.Array, error) {
	env := d.t.env
	if env == nil {
		return nil, fmt.Errorf("dispatched expression %d evaluated outside a JNI call", id)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == nil {
		d.state = map[int]*dispatchState{}
	}
	st := d.state[id]
	if st == nil {
		st = &dispatchState{}
		d.state[id] = st
	}
	// Arrow Java's import does not accept offsets (a filtered or sliced column): compact.
	in := make([]arrow.Array, len(cols))
	defer func() {
		for _, c := range in {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range cols {
		cc, err := columnar.Compact(d.t.ctx.Alloc, c)
		if err != nil {
			return nil, fmt.Errorf("dispatched expression %d: %w", id, err)
		}
		in[i] = cc
	}
	schema := st.schema
	sendSchema := !sameTypes(schema, in)
	if sendSchema {
		fields := make([]arrow.Field, len(in))
		for i, c := range in {
			fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
		}
		schema = arrow.NewSchema(fields, nil)
		// Until the JVM has taken the new schema, it holds none this side can rely on.
		st.schema = nil
	}
	sendOutSchema := st.outType == nil
	var outValidity, outData *memory.Buffer
	bits := 0
	if !sendOutSchema && rows > 0 {
		bits = rawBits(st.outType)
	}
	if bits > 0 {
		outValidity = memory.NewResizableBuffer(d.t.ctx.Alloc)
		outData = memory.NewResizableBuffer(d.t.ctx.Alloc)
		defer outValidity.Release()
		defer outData.Release()
		outValidity.Resize(int(bitutil.BytesForBits(int64(rows))))
		if bits == 1 {
			outData.Resize(int(bitutil.BytesForBits(int64(rows))))
		} else {
			outData.Resize(rows * bits / 8)
		}
	}
	rec := array.NewRecordBatch(schema, in, int64(rows))
	defer rec.Release()

	inArr := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	outArr := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	var inSch, outSch *cdata.CArrowSchema
	if sendSchema {
		inSch = (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	}
	if sendOutSchema {
		outSch = (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	}
	defer func() {
		// Whatever the JVM did not take (it read the input in place, or failed before importing)
		// is released here; what it imported was moved out (release set to NULL) and releasing it
		// again is a no-op.
		cdata.ReleaseCArrowArray(inArr)
		C.free(unsafe.Pointer(inArr))
		C.free(unsafe.Pointer(outArr))
		if inSch != nil {
			cdata.ReleaseCArrowSchema(inSch)
			C.free(unsafe.Pointer(inSch))
		}
		if outSch != nil {
			cdata.ReleaseCArrowSchema(outSch)
			C.free(unsafe.Pointer(outSch))
		}
	}()
	cdata.ExportArrowRecordBatch(rec, inArr, inSch)

	var ids C.jlongArray
	if sendSchema {
		ids = C.new_longs(env, C.jsize(len(exprIDs)))
		if ids == 0 {
			return nil, errJavaException // OutOfMemoryError pending
		}
		defer C.delete_local(env, C.jobject(ids))
		if len(exprIDs) > 0 {
			C.set_longs(env, ids, C.jsize(len(exprIDs)), (*C.jlong)(unsafe.Pointer(&exprIDs[0])))
		}
	}
	var va, da C.jlong
	if bits > 0 {
		va = C.jlong(uintptr(unsafe.Pointer(&outValidity.Bytes()[0])))
		da = C.jlong(uintptr(unsafe.Pointer(&outData.Bytes()[0])))
	}
	nulls := C.call_dispatch(env, d.obj, C.jint(id), ids, C.jlong(rows),
		C.jlong(uintptr(unsafe.Pointer(inArr))), C.jlong(uintptr(unsafe.Pointer(inSch))),
		C.jlong(uintptr(unsafe.Pointer(outArr))), C.jlong(uintptr(unsafe.Pointer(outSch))),
		va, da, C.jlong(bits))
	if C.exception_pending(env) != 0 {
		cdata.ReleaseCArrowArray(outArr)
		return nil, errJavaException
	}
	if sendSchema {
		st.schema = schema
	}
	if bits > 0 && nulls >= 0 {
		if int(nulls) > rows {
			return nil, fmt.Errorf("dispatched expression %d: the JVM counted %d nulls in %d rows", id, nulls, rows)
		}
		data := array.NewData(st.outType, rows, []*memory.Buffer{outValidity, outData}, nil, int(nulls), 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	var out arrow.Array
	var err error
	if sendOutSchema {
		var f arrow.Field
		f, out, err = cdata.ImportCArray(outArr, outSch)
		if err == nil {
			st.outType = f.Type
		}
	} else {
		out, err = cdata.ImportCArrayWithType(outArr, st.outType)
	}
	if err != nil {
		cdata.ReleaseCArrowArray(outArr)
		return nil, fmt.Errorf("dispatched expression %d: import the JVM's result: %w", id, err)
	}
	return out, nil
}
