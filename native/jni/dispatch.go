package main

/*
#include "bridge.h"
#include "dispatch.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"

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
// and frees (the JVM imports, and so moves, them); the JVM exports the result, a one-column
// record batch, into a second pair this side allocates, imports and frees: the discipline of
// jvmInput.Next.
type jvmDispatch struct {
	t   *task
	obj C.jobject
}

func (d *jvmDispatch) Dispatch(id int, exprIDs []int64, cols []arrow.Array, rows int) (arrow.Array, error) {
	env := d.t.env
	if env == nil {
		return nil, fmt.Errorf("dispatched expression %d evaluated outside a JNI call", id)
	}
	// Arrow Java's import does not accept offsets (a filtered or sliced column): compact.
	fields := make([]arrow.Field, len(cols))
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
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), in, int64(rows))
	defer rec.Release()

	inArr := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	inSch := (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	outArr := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	outSch := (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	defer func() {
		// Whatever the JVM did not take (it failed before importing) is released here; what it
		// imported was moved out (release set to NULL) and releasing it again is a no-op.
		cdata.ReleaseCArrowArray(inArr)
		cdata.ReleaseCArrowSchema(inSch)
		cdata.ReleaseCArrowSchema(outSch)
		C.free(unsafe.Pointer(inArr))
		C.free(unsafe.Pointer(inSch))
		C.free(unsafe.Pointer(outArr))
		C.free(unsafe.Pointer(outSch))
	}()
	cdata.ExportArrowRecordBatch(rec, inArr, inSch)

	ids := C.new_longs(env, C.jsize(len(exprIDs)))
	if ids == 0 {
		return nil, errJavaException // OutOfMemoryError pending
	}
	defer C.delete_local(env, C.jobject(ids))
	if len(exprIDs) > 0 {
		C.set_longs(env, ids, C.jsize(len(exprIDs)), (*C.jlong)(unsafe.Pointer(&exprIDs[0])))
	}
	C.call_dispatch(env, d.obj, C.jint(id), ids, C.jlong(rows),
		C.jlong(uintptr(unsafe.Pointer(inArr))), C.jlong(uintptr(unsafe.Pointer(inSch))),
		C.jlong(uintptr(unsafe.Pointer(outArr))), C.jlong(uintptr(unsafe.Pointer(outSch))))
	if C.exception_pending(env) != 0 {
		cdata.ReleaseCArrowArray(outArr)
		return nil, errJavaException
	}
	res, err := cdata.ImportCRecordBatch(outArr, outSch)
	if err != nil {
		cdata.ReleaseCArrowArray(outArr)
		return nil, fmt.Errorf("dispatched expression %d: import the JVM's result: %w", id, err)
	}
	defer res.Release()
	if res.NumCols() != 1 {
		return nil, fmt.Errorf("dispatched expression %d: the JVM returned %d columns", id, res.NumCols())
	}
	out := res.Column(0)
	out.Retain()
	return out, nil
}
