#ifndef BOLIDE_DISPATCH_H
#define BOLIDE_DISPATCH_H
#include <jni.h>

int bolide_dispatch_onload(JNIEnv* env);
jlong call_dispatch(JNIEnv* env, jobject d, jint id, jlongArray exprIds, jlong rows,
	jlong inArray, jlong inSchema, jlong outArray, jlong outSchema, jlong outValidity, jlong outData,
	jlong outBits);

#endif
