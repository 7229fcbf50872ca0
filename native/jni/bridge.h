#ifndef BOLIDE_BRIDGE_H
#define BOLIDE_BRIDGE_H
#include <jni.h>
#include <stdlib.h>
#include <stdint.h>

jstring new_string(JNIEnv* env, const char* s);
void throw_native(JNIEnv* env, const char* msg, const char* cls, const char* params);
jbyteArray new_bytes(JNIEnv* env, const void* data, jsize n);
jsize array_length(JNIEnv* env, jarray a);
void copy_bytes(JNIEnv* env, jbyteArray a, void* dst, jsize n);
jobject object_at(JNIEnv* env, jobjectArray a, jsize i);
jobject new_global(JNIEnv* env, jobject o);
void delete_global(JNIEnv* env, jobject o);
void delete_local(JNIEnv* env, jobject o);
int exception_pending(JNIEnv* env);
jboolean call_input_next(JNIEnv* env, jobject in, jlong arr, jlong schema);
jlong call_reserve(JNIEnv* env, jobject r, jlong n);
void call_unreserve(JNIEnv* env, jobject r, jlong n);
jboolean call_acquire_storage(JNIEnv* env, jlong n);
void call_release_storage(JNIEnv* env, jlong n);
jobject call_fallback_open(JNIEnv* env, jobject fb, jint scan, jint file);
jboolean is_frame_source(JNIEnv* env, jobject o);
jlong call_next_frame(JNIEnv* env, jobject f);
jlong call_frame_address(JNIEnv* env, jobject f);
jlongArray new_longs(JNIEnv* env, jsize n);
void set_longs(JNIEnv* env, jlongArray a, jsize n, const jlong* v);
char* get_string(JNIEnv* env, jstring s);

// Addresses of JVM-allocated Arrow structs arrive as jlong.
static inline void* jlong_to_ptr(jlong a) { return (void*)(intptr_t)a; }

#endif
