// Command jni is the JNI boundary of the Bolide engine, built with -buildmode=c-shared into the
// library the plugin JAR carries. It is the only package with cgo. Every exported function
// recovers panics into Java exceptions; every call runs on the calling task thread, and upcalls to
// Java (input batches, memory reservations) use that call's JNIEnv only (shared/go-in-jvm.md).
package main

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/ops/join"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/translate"
	"github.com/bolide-dev/bolide/native/version"
)

func main() {}

func init() {
	// In checking mode (BOLIDE_MEMCHECK=1, the JVM test suites), Free may run on a JVM thread in an
	// Arrow release callback, where a Go panic would kill the JVM: violations are recorded instead,
	// fail the task through the allocator's Err, and are reported by memoryReport.
	memory.SetPanicOnViolation(false)
}

// memoryReport returns, in checking mode, memory.CheckAll's report of native buffers still
// allocated by any task allocator and of every misuse seen (double frees, writes after free),
// with allocation sites; empty when all is well or checking is off. The JVM suites call it after
// their queries.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_memoryReport
func Java_org_apache_spark_sql_bolide_NativeLib_memoryReport(env *C.JNIEnv, _ C.jclass) (out C.jbyteArray) {
	defer guard(env, "memoryReport")
	if !memory.Checking() {
		return javaBytes(env, nil)
	}
	// Broadcast builds cached for later tasks are not leaks: drop them first.
	join.DropIdleShared(jvmStorage{env: func() *C.JNIEnv { return env }})
	if err := memory.CheckAll(); err != nil {
		return javaBytes(env, []byte(err.Error()))
	}
	return javaBytes(env, nil)
}

//export Java_org_apache_spark_sql_bolide_NativeLib_memoryChecking
func Java_org_apache_spark_sql_bolide_NativeLib_memoryChecking(env *C.JNIEnv, _ C.jclass) C.jboolean {
	defer guard(env, "memoryChecking")
	if memory.Checking() {
		return C.JNI_TRUE
	}
	return C.JNI_FALSE
}

//export Java_org_apache_spark_sql_bolide_NativeLib_version
func Java_org_apache_spark_sql_bolide_NativeLib_version(env *C.JNIEnv, _ C.jclass) (out C.jstring) {
	defer guard(env, "version")
	s := C.CString(version.Version)
	defer C.free(unsafe.Pointer(s))
	return C.new_string(env, s)
}

// configure sizes the Go runtime after the executor: GOMAXPROCS = executor cores, GOMEMLIMIT = the
// memory a container holds beyond the JVM heap (off-heap pool + memory overhead, as the JVM side
// derives it: BolideExecutorPlugin.goMemoryLimit), so that Go's GC works harder before the
// container limit is hit. Values <= 0 leave the setting alone.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_configure
func Java_org_apache_spark_sql_bolide_NativeLib_configure(env *C.JNIEnv, _ C.jclass, cores C.jint, memLimit C.jlong) {
	defer guard(env, "configure")
	if cores > 0 {
		runtime.GOMAXPROCS(int(cores))
	}
	if memLimit > 0 {
		debug.SetMemoryLimit(int64(memLimit))
	}
}

// setJavaVersion tells the engine the feature version of the JVM that loaded it (Java's
// Double.toString prints other digits from Java 19 on; casts that print or parse it depend on it).
//
//export Java_org_apache_spark_sql_bolide_NativeLib_setJavaVersion
func Java_org_apache_spark_sql_bolide_NativeLib_setJavaVersion(env *C.JNIEnv, _ C.jclass, feature C.jint) {
	defer guard(env, "setJavaVersion")
	expr.SetJavaVersion(int(feature))
}

// setZoneIds tells the engine which region IDs the JVM's java.time knows
// (ZoneId.getAvailableZoneIds, one per line): timestamp strings may name them.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_setZoneIds
func Java_org_apache_spark_sql_bolide_NativeLib_setZoneIds(env *C.JNIEnv, _ C.jclass, ids C.jstring) {
	defer guard(env, "setZoneIds")
	expr.SetJavaZoneIDs(strings.Split(goString(env, ids), "\n"))
}

// plan answers, on the driver, which nodes of an encoded Spark plan run natively (JSON in, JSON out).
//
//export Java_org_apache_spark_sql_bolide_NativeLib_plan
func Java_org_apache_spark_sql_bolide_NativeLib_plan(env *C.JNIEnv, _ C.jclass, req C.jbyteArray) (out C.jbyteArray) {
	defer guard(env, "plan")
	var r plan.PlanRequest
	if err := json.Unmarshal(goBytes(env, req), &r); err != nil {
		throwError(env, fmt.Errorf("decode plan request: %w", err))
		return 0
	}
	if r.Plan == nil {
		throwError(env, fmt.Errorf("plan request without a plan"))
		return 0
	}
	b, err := json.Marshal(translate.Decide(&r))
	if err != nil {
		throwError(env, err)
		return 0
	}
	return javaBytes(env, b)
}

// supportDoc returns the generated support document (markdown) from the registries.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_supportDoc
func Java_org_apache_spark_sql_bolide_NativeLib_supportDoc(env *C.JNIEnv, _ C.jclass) (out C.jbyteArray) {
	defer guard(env, "supportDoc")
	return javaBytes(env, []byte(translate.SupportDoc()))
}

// functionsDoc renders docs/functions.md: the JVM lists Spark's built-in functions (JSON array of
// translate.BuiltinFunction), the engine says how it runs each.
//
//export Java_org_apache_spark_sql_bolide_NativeLib_functionsDoc
func Java_org_apache_spark_sql_bolide_NativeLib_functionsDoc(env *C.JNIEnv, _ C.jclass, functions C.jbyteArray,
	sparkVersion C.jstring) (out C.jbyteArray) {
	defer guard(env, "functionsDoc")
	var fns []translate.BuiltinFunction
	if err := json.Unmarshal(goBytes(env, functions), &fns); err != nil {
		throwError(env, fmt.Errorf("decode the function list: %w", err))
		return 0
	}
	return javaBytes(env, []byte(translate.FunctionsDoc(fns, goString(env, sparkVersion))))
}
