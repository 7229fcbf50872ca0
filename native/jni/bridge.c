// C side of the JNI boundary: JNI_OnLoad caches classes and method ids; small helpers wrap the
// JNI function table (cgo cannot call through it, nor call variadic functions).
// The JDK headers come from CGO_CFLAGS (the Makefile points them at $JAVA_HOME/include).
#include <jni.h>
#include <stdlib.h>
#include <string.h>

// Cached at JNI_OnLoad: FindClass on a thread Go attaches would use the system class loader and not
// find the plugin's classes (shared/go-in-jvm.md), so every class and method id is looked up once,
// here, on the loading thread.
static JavaVM* bolide_vm;
static jclass bolide_error_cls;
static jmethodID bolide_error_ctor;
static jmethodID bolide_input_next;
static jmethodID bolide_reserve;
static jmethodID bolide_unreserve;
static jclass bolide_reserver_cls;
static jmethodID bolide_acquire_storage;
static jmethodID bolide_release_storage;
static jmethodID bolide_fallback_open;
static jclass bolide_frames_cls;
static jmethodID bolide_next_frame;
static jmethodID bolide_frame_address;

int bolide_dispatch_onload(JNIEnv* env); // dispatch.c

static jclass global_class(JNIEnv* env, const char* name) {
	jclass local = (*env)->FindClass(env, name);
	if (local == NULL) return NULL;
	jclass g = (jclass)(*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	return g;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
	JNIEnv* env;
	bolide_vm = vm;
	if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
	bolide_error_cls = global_class(env, "org/apache/spark/sql/bolide/BolideNativeException");
	if (bolide_error_cls == NULL) return JNI_ERR;
	bolide_error_ctor = (*env)->GetMethodID(env, bolide_error_cls, "<init>",
		"(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)V");
	jclass input = global_class(env, "org/apache/spark/sql/bolide/NativeInput");
	if (input == NULL) return JNI_ERR;
	bolide_input_next = (*env)->GetMethodID(env, input, "next", "(JJ)Z");
	jclass res = global_class(env, "org/apache/spark/sql/bolide/NativeMemoryReserver");
	if (res == NULL) return JNI_ERR;
	bolide_reserve = (*env)->GetMethodID(env, res, "reserve", "(J)J");
	bolide_unreserve = (*env)->GetMethodID(env, res, "unreserve", "(J)V");
	bolide_reserver_cls = res;
	bolide_acquire_storage = (*env)->GetStaticMethodID(env, res, "acquireStorage", "(J)Z");
	bolide_release_storage = (*env)->GetStaticMethodID(env, res, "releaseStorage", "(J)V");
	jclass fb = global_class(env, "org/apache/spark/sql/bolide/NativeFileFallback");
	if (fb == NULL) return JNI_ERR;
	bolide_fallback_open = (*env)->GetMethodID(env, fb, "open",
		"(II)Lorg/apache/spark/sql/bolide/NativeInput;");
	bolide_frames_cls = global_class(env, "org/apache/spark/sql/bolide/NativeFrameSource");
	if (bolide_frames_cls == NULL) return JNI_ERR;
	bolide_next_frame = (*env)->GetMethodID(env, bolide_frames_cls, "nextFrame", "()J");
	bolide_frame_address = (*env)->GetMethodID(env, bolide_frames_cls, "frameAddress", "()J");
	if (bolide_error_ctor == NULL || bolide_input_next == NULL || bolide_reserve == NULL ||
		bolide_unreserve == NULL || bolide_fallback_open == NULL || bolide_next_frame == NULL ||
		bolide_frame_address == NULL || bolide_acquire_storage == NULL ||
		bolide_release_storage == NULL) return JNI_ERR;
	if (bolide_dispatch_onload(env) != 0) return JNI_ERR;
	return JNI_VERSION_1_8;
}

jstring new_string(JNIEnv* env, const char* s) { return (*env)->NewStringUTF(env, s); }

// throw_native raises BolideNativeException(message, errorClass, paramsJson); errorClass and params
// may be NULL for errors that are not Spark error classes.
void throw_native(JNIEnv* env, const char* msg, const char* cls, const char* params) {
	if ((*env)->ExceptionCheck(env)) return; // an exception from an upcall is already pending
	jstring jm = (*env)->NewStringUTF(env, msg);
	jstring jc = cls ? (*env)->NewStringUTF(env, cls) : NULL;
	jstring jp = params ? (*env)->NewStringUTF(env, params) : NULL;
	jobject ex = (*env)->NewObject(env, bolide_error_cls, bolide_error_ctor, jm, jc, jp);
	if (ex != NULL) (*env)->Throw(env, (jthrowable)ex);
}

jbyteArray new_bytes(JNIEnv* env, const void* data, jsize n) {
	jbyteArray a = (*env)->NewByteArray(env, n);
	if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, n, (const jbyte*)data);
	return a;
}

jsize array_length(JNIEnv* env, jarray a) { return a == NULL ? 0 : (*env)->GetArrayLength(env, a); }

void copy_bytes(JNIEnv* env, jbyteArray a, void* dst, jsize n) {
	(*env)->GetByteArrayRegion(env, a, 0, n, (jbyte*)dst);
}

jobject object_at(JNIEnv* env, jobjectArray a, jsize i) { return (*env)->GetObjectArrayElement(env, a, i); }
jobject new_global(JNIEnv* env, jobject o) { return (*env)->NewGlobalRef(env, o); }
void delete_global(JNIEnv* env, jobject o) { (*env)->DeleteGlobalRef(env, o); }
void delete_local(JNIEnv* env, jobject o) { (*env)->DeleteLocalRef(env, o); }
int exception_pending(JNIEnv* env) { return (*env)->ExceptionCheck(env); }

// Upcalls run on the task thread that entered Go, with that call's env.
jboolean call_input_next(JNIEnv* env, jobject in, jlong arr, jlong schema) {
	return (*env)->CallBooleanMethod(env, in, bolide_input_next, arr, schema);
}
jlong call_reserve(JNIEnv* env, jobject r, jlong n) {
	return (*env)->CallLongMethod(env, r, bolide_reserve, n);
}
void call_unreserve(JNIEnv* env, jobject r, jlong n) {
	(*env)->CallVoidMethod(env, r, bolide_unreserve, n);
}
jboolean call_acquire_storage(JNIEnv* env, jlong n) {
	return (*env)->CallStaticBooleanMethod(env, bolide_reserver_cls, bolide_acquire_storage, n);
}
void call_release_storage(JNIEnv* env, jlong n) {
	(*env)->CallStaticVoidMethod(env, bolide_reserver_cls, bolide_release_storage, n);
}
jobject call_fallback_open(JNIEnv* env, jobject fb, jint scan, jint file) {
	return (*env)->CallObjectMethod(env, fb, bolide_fallback_open, scan, file);
}
jboolean is_frame_source(JNIEnv* env, jobject o) {
	return (*env)->IsInstanceOf(env, o, bolide_frames_cls);
}
jlong call_next_frame(JNIEnv* env, jobject f) {
	return (*env)->CallLongMethod(env, f, bolide_next_frame);
}
jlong call_frame_address(JNIEnv* env, jobject f) {
	return (*env)->CallLongMethod(env, f, bolide_frame_address);
}
jlongArray new_longs(JNIEnv* env, jsize n) { return (*env)->NewLongArray(env, n); }
void set_longs(JNIEnv* env, jlongArray a, jsize n, const jlong* v) {
	(*env)->SetLongArrayRegion(env, a, 0, n, v);
}
// get_string copies a Java string's modified UTF-8 into a malloc'd buffer the caller frees.
char* get_string(JNIEnv* env, jstring s) {
	if (s == NULL) return NULL;
	const char* c = (*env)->GetStringUTFChars(env, s, NULL);
	if (c == NULL) return NULL;
	char* out = strdup(c);
	(*env)->ReleaseStringUTFChars(env, s, c);
	return out;
}
