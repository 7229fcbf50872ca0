package main

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/bolide-dev/bolide/native/shuffle"
	"github.com/bolide-dev/bolide/native/translate"
)

// shuffleWrite runs a shuffle map task's block, whose root is a native exchange, to the end and
// writes its data file. It returns each partition's bytes, then rows, uncompressed bytes, write
// nanoseconds, memory and disk bytes spilled, then (with a checksum algorithm) each partition's
// checksum, which the JVM commits through Spark's IndexShuffleBlockResolver and its metrics, then
// each partition's uncompressed bytes (the sizes its MapStatus reports).
//
//export Java_org_apache_spark_sql_bolide_NativeLib_shuffleWrite
func Java_org_apache_spark_sql_bolide_NativeLib_shuffleWrite(env *C.JNIEnv, _ C.jclass, h C.jlong,
	path C.jstring, codecName C.jstring, checksum C.jstring) (out C.jlongArray) {
	defer guard(env, "shuffleWrite")
	t := taskOf(env, h)
	defer func() { t.env = nil }()
	res, err := t.shuffleWrite(goString(env, path), goString(env, codecName), goString(env, checksum))
	if err != nil {
		throwError(env, err)
		return 0
	}
	vals := append(append([]int64{}, res.PartitionLengths...), res.Rows, res.UncompressedBytes, res.WriteNanos,
		res.SpilledMem, res.SpilledDisk)
	vals = append(vals, res.Checksums...)
	vals = append(vals, res.PartitionUncompressed...)
	arr := C.new_longs(env, C.jsize(len(vals)))
	if arr == 0 {
		return 0
	}
	C.set_longs(env, arr, C.jsize(len(vals)), (*C.jlong)(unsafe.Pointer(&vals[0])))
	return arr
}

func (t *task) shuffleWrite(path, codecName, checksum string) (shuffle.WriteResult, error) {
	if t.closed || t.opened {
		return shuffle.WriteResult{}, fmt.Errorf("native shuffle write on a used block %s", t.rootName)
	}
	x, ok := translate.AsShuffleExchange(t.root)
	if !ok {
		return shuffle.WriteResult{}, fmt.Errorf("native shuffle write on block %s, which is not an exchange", t.rootName)
	}
	codec, err := shuffle.ParseCodec(codecName)
	if err != nil {
		return shuffle.WriteResult{}, fmt.Errorf("%s: %w", translate.ShuffleCodecKey, err)
	}
	p, err := x.NewPartitioner(t.ctx)
	if err != nil {
		return shuffle.WriteResult{}, err
	}
	defer p.Close()
	// Write opens and closes the child; the task's release closes it again, which is allowed.
	t.opened = true
	res, err := shuffle.Write(t.ctx, x.Child, p, shuffle.WriterOptions{Codec: codec, BlockRows: t.ctx.BatchSize(), Checksum: checksum}, path)
	if err == nil {
		err = t.ctx.Alloc.Err()
	}
	if err != nil {
		return res, fmt.Errorf("BolideShuffleExchange: %w", err)
	}
	if len(res.PartitionLengths) != x.NumPartitions() {
		return res, fmt.Errorf("BolideShuffleExchange wrote %d partitions, planned %d", len(res.PartitionLengths), x.NumPartitions())
	}
	return res, nil
}
