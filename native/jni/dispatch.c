// C side of expression dispatch (dispatch.go): the JVM evaluates expressions the engine has no
// kernel for. The class and method id are cached at JNI_OnLoad, on the loading thread, like
// bridge.c's (shared/go-in-jvm.md: FindClass on other threads would miss the plugin's classes).
#include <jni.h>
#include "dispatch.h"

static jclass bolide_dispatcher_cls;
static jmethodID bolide_dispatch_eval;

// Called from JNI_OnLoad; nonzero when the class or method is missing.
int bolide_dispatch_onload(JNIEnv* env) {
	jclass local = (*env)->FindClass(env, "org/apache/spark/sql/bolide/NativeDispatcher");
	if (local == NULL) return 1;
	bolide_dispatcher_cls = (jclass)(*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	bolide_dispatch_eval = (*env)->GetMethodID(env, bolide_dispatcher_cls, "eval", "(I[JJJJJJJJJ)J");
	return bolide_dispatch_eval == NULL;
}

jlong call_dispatch(JNIEnv* env, jobject d, jint id, jlongArray exprIds, jlong rows,
	jlong inArray, jlong inSchema, jlong outArray, jlong outSchema, jlong outValidity, jlong outData,
	jlong outBits) {
	return (*env)->CallLongMethod(env, d, bolide_dispatch_eval, id, exprIds, rows, inArray, inSchema,
		outArray, outSchema, outValidity, outData, outBits);
}
