package main

/*
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"

	"github.com/bolide-dev/bolide/native/exec"
)

// errJavaException marks a failure whose Java exception is already pending (from an upcall):
// return to Java at once and let it propagate.
var errJavaException = errors.New("java exception pending")

func throwError(env *C.JNIEnv, err error) {
	if errors.Is(err, errJavaException) {
		return
	}
	text := err.Error()
	se, isSpark := exec.AsSparkError(err)
	if isSpark && se.Cause != nil {
		// Spark's message (from the class and parameters) names the file; the Java cause says
		// what the engine saw.
		text = se.Cause.Error()
	}
	msg := C.CString(text)
	defer C.free(unsafe.Pointer(msg))
	if isSpark {
		params, _ := json.Marshal(se.Params)
		cls := C.CString(se.Class)
		p := C.CString(string(params))
		defer C.free(unsafe.Pointer(cls))
		defer C.free(unsafe.Pointer(p))
		C.throw_native(env, msg, cls, p)
		return
	}
	C.throw_native(env, msg, nil, nil)
}

// guard turns a panic in an exported function into a Java exception (the JVM must live; Spark fails
// the task and retries it). Use as: defer guard(env, "createPlan").
func guard(env *C.JNIEnv, what string) {
	if r := recover(); r != nil {
		throwError(env, fmt.Errorf("Bolide native %s panicked: %v\n%s", what, r, debug.Stack()))
	}
}

func goBytes(env *C.JNIEnv, a C.jbyteArray) []byte {
	n := C.array_length(env, C.jarray(a))
	b := make([]byte, int(n))
	if n > 0 {
		C.copy_bytes(env, a, unsafe.Pointer(&b[0]), n)
	}
	return b
}

func javaBytes(env *C.JNIEnv, b []byte) C.jbyteArray {
	if len(b) == 0 {
		return C.new_bytes(env, nil, 0)
	}
	return C.new_bytes(env, unsafe.Pointer(&b[0]), C.jsize(len(b)))
}

func goString(env *C.JNIEnv, s C.jstring) string {
	c := C.get_string(env, s)
	if c == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(c))
	return C.GoString(c)
}
