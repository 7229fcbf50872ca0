package main

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/cdata"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// jvmInput pulls batches of a Spark child from the JVM: one upcall per batch, on the task thread,
// which exports the batch through the C Data Interface into structs this side allocates and frees.
type jvmInput struct {
	t    *task
	obj  C.jobject
	name string // for errors: "input 2", "Spark's reader of file 3 of scan 5"
	done bool
}

func (in *jvmInput) Next() (*columnar.Batch, error) {
	if in.done {
		return nil, nil
	}
	env := in.t.env
	if env == nil {
		return nil, fmt.Errorf("%s read outside a JNI call", in.name)
	}
	arr := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	sch := (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	defer C.free(unsafe.Pointer(arr))
	defer func() {
		cdata.ReleaseCArrowSchema(sch)
		C.free(unsafe.Pointer(sch))
	}()
	ok := C.call_input_next(env, in.obj, C.jlong(uintptr(unsafe.Pointer(arr))), C.jlong(uintptr(unsafe.Pointer(sch))))
	if C.exception_pending(env) != 0 {
		return nil, errJavaException
	}
	if ok == 0 {
		in.done = true
		return nil, nil
	}
	rec, err := cdata.ImportCRecordBatch(arr, sch)
	if err != nil {
		cdata.ReleaseCArrowArray(arr)
		return nil, fmt.Errorf("import a batch of %s: %w", in.name, err)
	}
	defer rec.Release()
	return columnar.FromRecord(rec), nil
}

// jvmReserver reserves off-heap execution memory from the task's TaskMemoryManager through the
// JVM-side NativeMemoryReserver (a Spark MemoryConsumer).
type jvmReserver struct {
	t   *task
	obj C.jobject
}

func (r *jvmReserver) Reserve(n int64) (int64, error) {
	env := r.t.env
	if env == nil {
		return 0, fmt.Errorf("memory reservation outside a JNI call")
	}
	got := int64(C.call_reserve(env, r.obj, C.jlong(n)))
	if C.exception_pending(env) != 0 {
		return got, errJavaException
	}
	return got, nil
}

func (r *jvmReserver) Unreserve(n int64) {
	if env := r.t.env; env != nil {
		C.call_unreserve(env, r.obj, C.jlong(n))
	}
}

// jvmStorage reserves the executor's off-heap storage memory (NativeMemoryReserver's static
// acquireStorage and releaseStorage) with the env of the JNI call in progress: the task's, or a
// memory report's.
type jvmStorage struct{ env func() *C.JNIEnv }

func (s jvmStorage) ReserveStorage(n int64) (bool, error) {
	env := s.env()
	if env == nil {
		return false, fmt.Errorf("storage memory reservation outside a JNI call")
	}
	ok := C.call_acquire_storage(env, C.jlong(n))
	if C.exception_pending(env) != 0 {
		return false, errJavaException
	}
	return ok != 0, nil
}

func (s jvmStorage) ReleaseStorage(n int64) {
	if env := s.env(); env != nil {
		C.call_release_storage(env, C.jlong(n))
	}
}

// jvmFallback opens file splits with Spark's own reader (the JVM-side NativeFileFallback), for the
// files the native reader cannot decode. Each opened file is an input like a Spark child's.
type jvmFallback struct {
	t   *task
	obj C.jobject
}

func (f *jvmFallback) OpenFile(scan string, file int) (exec.InputSource, error) {
	env := f.t.env
	if env == nil {
		return nil, fmt.Errorf("file fallback outside a JNI call")
	}
	id, err := strconv.Atoi(scan)
	if err != nil {
		return nil, fmt.Errorf("file fallback: scan id %q: %w", scan, err)
	}
	local := C.call_fallback_open(env, f.obj, C.jint(id), C.jint(file))
	if C.exception_pending(env) != 0 {
		return nil, errJavaException
	}
	if local == 0 {
		return nil, fmt.Errorf("file fallback: no reader for file %d of scan %s", file, scan)
	}
	g := C.new_global(env, local)
	C.delete_local(env, local)
	f.t.globals = append(f.t.globals, g)
	return &jvmInput{t: f.t, obj: g, name: fmt.Sprintf("Spark's reader of file %d of scan %s", file, scan)}, nil
}

// jvmFrames pulls the frames of a native shuffle read from the JVM (ShuffleFrames): one upcall
// per frame, which reads it from the fetched block streams into a direct buffer this side reads
// until the next call.
type jvmFrames struct {
	t    *task
	obj  C.jobject
	name string
	done bool
}

func (f *jvmFrames) NextFrame() ([]byte, error) {
	if f.done {
		return nil, nil
	}
	env := f.t.env
	if env == nil {
		return nil, fmt.Errorf("%s read outside a JNI call", f.name)
	}
	n := int64(C.call_next_frame(env, f.obj))
	if C.exception_pending(env) != 0 {
		return nil, errJavaException
	}
	if n < 0 {
		f.done = true
		return nil, nil
	}
	addr := C.call_frame_address(env, f.obj)
	if C.exception_pending(env) != 0 {
		return nil, errJavaException
	}
	if addr == 0 || n == 0 {
		return nil, fmt.Errorf("%s: empty frame", f.name)
	}
	return unsafe.Slice((*byte)(C.jlong_to_ptr(addr)), int(n)), nil
}
