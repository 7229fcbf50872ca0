package main

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/cgo"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/cdata"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/ops/join"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
	"github.com/bolide-dev/bolide/native/translate"
)

// task is one task's native block: its operator tree, allocator and the Java objects it calls back.
// It is used by one task thread at a time; env is the JNIEnv of the call in progress.
type task struct {
	env      *C.JNIEnv
	root     exec.Operator
	ctx      *exec.TaskContext
	schema   *arrow.Schema
	globals  []C.jobject
	opened   bool
	closed   bool
	rootName string
}

func (t *task) setEnv(env *C.JNIEnv) { t.env = env }

//export Java_org_apache_spark_sql_bolide_NativeLib_createPlan
func Java_org_apache_spark_sql_bolide_NativeLib_createPlan(env *C.JNIEnv, _ C.jclass, req C.jbyteArray,
	inputs C.jobjectArray, reserver C.jobject, fallback C.jobject) (handle C.jlong) {
	defer guard(env, "createPlan")
	var r plan.TaskRequest
	raw := goBytes(env, req)
	if err := json.Unmarshal(raw, &r); err != nil {
		throwError(env, fmt.Errorf("decode task request: %w", err))
		return 0
	}
	t := &task{env: env}
	if reserver != 0 {
		g := C.new_global(env, reserver)
		t.globals = append(t.globals, g)
	}
	var res memory.Reserver
	if reserver != 0 {
		res = &jvmReserver{t: t, obj: t.globals[0]}
	}
	t.ctx = &exec.TaskContext{
		Alloc: memory.NewTaskAllocatorFor(res, r.Memory.Pool), Conf: &r.Conf,
		Spill: memory.NewSpillFiles(r.Memory.SpillDirs), Files: r.Files, IcebergTasks: r.IcebergTasks,
		PartitionIndex: r.PartitionIndex,
		Meter:          exec.NewMeter(),
		Pool:           r.Memory.Pool,
	}
	if res != nil && r.Memory.Pool > 0 {
		t.ctx.Storage = jvmStorage{env: func() *C.JNIEnv { return t.env }}
		// Broadcast builds cached for later tasks give their memory up to any task short of it.
		join.RegisterSharedIdle(t.ctx)
	}
	for k, id := range r.Broadcasts {
		i, err := strconv.Atoi(k)
		if err != nil {
			throwError(env, fmt.Errorf("task request: broadcast input %q: %w", k, err))
			return 0
		}
		if t.ctx.Broadcasts == nil {
			t.ctx.Broadcasts = map[int]int64{}
		}
		t.ctx.Broadcasts[i] = id
	}
	// Spill files compress as the shuffle does; a codec the shuffle refuses (its planner says why)
	// leaves them LZ4.
	_ = t.ctx.Spill.SetCodec(r.Conf.Settings[translate.ShuffleCodecKey])
	n := int(C.array_length(env, C.jarray(inputs)))
	if n == 0 {
		dumpRequest(raw)
	}
	for i := 0; i < n; i++ {
		local := C.object_at(env, inputs, C.jsize(i))
		g := C.new_global(env, local)
		C.delete_local(env, local)
		t.globals = append(t.globals, g)
		if C.is_frame_source(env, g) != 0 {
			if t.ctx.Frames == nil {
				t.ctx.Frames = map[int]exec.FrameSource{}
			}
			t.ctx.Frames[i] = &jvmFrames{t: t, obj: g, name: fmt.Sprintf("shuffle input %d", i)}
			t.ctx.Inputs = append(t.ctx.Inputs, nil)
			continue
		}
		t.ctx.Inputs = append(t.ctx.Inputs, &jvmInput{t: t, obj: g, name: fmt.Sprintf("input %d", i)})
	}
	if fallback != 0 {
		g := C.new_global(env, fallback)
		t.globals = append(t.globals, g)
		t.ctx.Fallback = &jvmFallback{t: t, obj: g}
	}
	root, err := translate.Build(r.Plan, &r.Conf)
	if err != nil {
		_ = t.release()
		throwError(env, err)
		return 0
	}
	t.root = root
	t.rootName = r.Plan.NodeName
	t.schema = sparktype.ArrowSchema(root.Schema())
	return C.jlong(cgo.NewHandle(t))
}

func taskOf(env *C.JNIEnv, h C.jlong) *task {
	t := cgo.Handle(h).Value().(*task)
	t.setEnv(env)
	return t
}

// exportSchema writes the block's output schema into a JVM-allocated ArrowSchema (once per task).
//
//export Java_org_apache_spark_sql_bolide_NativeLib_exportSchema
func Java_org_apache_spark_sql_bolide_NativeLib_exportSchema(env *C.JNIEnv, _ C.jclass, h C.jlong, schemaAddr C.jlong) {
	defer guard(env, "exportSchema")
	t := taskOf(env, h)
	cdata.ExportArrowSchema(t.schema, (*cdata.CArrowSchema)(C.jlong_to_ptr(schemaAddr)))
}

// next fills a JVM-allocated ArrowArray with the block's next batch and returns its row count, or
// -1 at the end of the stream.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_next
func Java_org_apache_spark_sql_bolide_NativeLib_next(env *C.JNIEnv, _ C.jclass, h C.jlong, arrayAddr C.jlong) (rows C.jlong) {
	defer guard(env, "next")
	t := taskOf(env, h)
	defer func() { t.env = nil }()
	b, err := t.nextBatch()
	if err != nil {
		throwError(env, err)
		return -1
	}
	if b == nil {
		return -1
	}
	defer b.Release()
	for i, c := range b.Cols {
		compact, err := columnar.Compact(t.ctx.Alloc, c)
		if err != nil {
			throwError(env, err)
			return -1
		}
		c.Release()
		b.Cols[i] = compact
	}
	rec := b.Record(t.schema)
	defer rec.Release()
	cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(C.jlong_to_ptr(arrayAddr)), nil)
	return C.jlong(b.NumRows)
}

func (t *task) nextBatch() (*columnar.Batch, error) {
	if t.closed {
		return nil, fmt.Errorf("native block %s used after close", t.rootName)
	}
	if !t.opened {
		t.opened = true
		if err := t.root.Open(t.ctx); err != nil {
			return nil, err
		}
	}
	for {
		b, err := t.root.Next()
		if err == nil {
			// A safe point: no operator is running, so those holding memory may spill it.
			err = t.ctx.RelieveMemory()
		}
		if err == nil {
			err = t.ctx.Alloc.Err()
		}
		if err != nil {
			if b != nil {
				b.Release()
			}
			return nil, err
		}
		t.ctx.Alloc.Settle()
		// Empty batches carry nothing to Spark; skip them rather than cross the boundary.
		if b != nil && b.NumRows == 0 {
			b.Release()
			continue
		}
		return b, nil
	}
}

// metrics returns what each operator of the block did so far, six longs per operator: plan node
// id, output rows, output batches, own nanoseconds, memory and disk bytes spilled (exec.OpMetrics). The JVM calls it once, when
// the task ends, before close.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_metrics
func Java_org_apache_spark_sql_bolide_NativeLib_metrics(env *C.JNIEnv, _ C.jclass, h C.jlong) (out C.jlongArray) {
	defer guard(env, "metrics")
	t := taskOf(env, h)
	defer func() { t.env = nil }()
	if t.closed {
		throwError(env, fmt.Errorf("native block %s: metrics read after close", t.rootName))
		return 0
	}
	ms := t.ctx.Meter.Snapshot()
	vals := make([]int64, 0, exec.MetricLongs*len(ms))
	for _, m := range ms {
		vals = append(vals, int64(m.ID), m.Rows, m.Batches, m.Nanos, m.SpilledMem, m.SpilledDisk)
	}
	arr := C.new_longs(env, C.jsize(len(vals)))
	if arr == 0 || len(vals) == 0 {
		return arr
	}
	C.set_longs(env, arr, C.jsize(len(vals)), (*C.jlong)(unsafe.Pointer(&vals[0])))
	return arr
}

// close releases the block; batches already handed to the JVM stay valid until it releases them.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_close
func Java_org_apache_spark_sql_bolide_NativeLib_close(env *C.JNIEnv, _ C.jclass, h C.jlong) {
	defer guard(env, "close")
	if h == 0 {
		return
	}
	hd := cgo.Handle(h)
	t := hd.Value().(*task)
	t.setEnv(env)
	hd.Delete()
	if err := t.release(); err != nil {
		throwError(env, err)
	}
}

// release closes the operators and gives the task's memory back. In checking mode it returns an
// error when the task leaves native buffers allocated (the JVM has released every batch it
// imported before it closes the block) or misused its memory, so that the task fails with the
// allocation sites.
func (t *task) release() error {
	if t.closed {
		return nil
	}
	t.closed = true
	if t.root != nil {
		t.root.Close()
	}
	var err error
	if t.ctx != nil && t.ctx.Spill != nil {
		// Operators remove their spill files as they go and at Close; this removes what a failed
		// or cancelled task left. A file that cannot be removed is reported, not turned into a
		// task failure: the task's output is complete (Spark's own temporary files are handled
		// the same way).
		if e := t.ctx.Spill.RemoveAll(); e != nil {
			fmt.Fprintf(os.Stderr, "WARN Bolide: native block %s: %v\n", t.rootName, e)
		}
	}
	if t.ctx != nil {
		a := t.ctx.Alloc
		a.ReleaseAll()
		if memory.Checking() {
			if n, _ := a.Live(); n > 0 {
				err = fmt.Errorf("native block %s leaked %d bytes of native memory:\n%s", t.rootName, n, a.LeakReport())
			} else if e := a.Err(); e != nil {
				var v *memory.Violation
				if errors.As(e, &v) {
					err = fmt.Errorf("native block %s misused native memory: %w", t.rootName, e)
				}
			}
		}
	}
	for _, g := range t.globals {
		C.delete_global(t.env, g)
	}
	t.globals = nil
	t.env = nil
	return err
}

// requestSpill asks the block to spill what it can at its next safe point (exec.TaskContext's
// RequestSpill). Spark calls it, through the block's NativeMemoryReserver.spill, when another
// consumer of the task needs memory: possibly on another thread, possibly while the block runs
// (the native shuffle writer's whole write is one call). So it only sets an atomic flag: it never
// touches the task's JNIEnv, its operators or its allocator, and returns at once. The JVM keeps
// the handle valid for the call (the reserver detaches before the block is closed).
//
//export Java_org_apache_spark_sql_bolide_NativeLib_requestSpill
func Java_org_apache_spark_sql_bolide_NativeLib_requestSpill(env *C.JNIEnv, _ C.jclass, h C.jlong) {
	defer guard(env, "requestSpill")
	if h == 0 {
		return
	}
	if t, ok := cgo.Handle(h).Value().(*task); ok && t.ctx != nil {
		t.ctx.RequestSpill()
	}
}
