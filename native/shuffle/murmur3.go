package shuffle

import (
	"fmt"
	"math"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparkhash"
)

// NewHashPartitioner is Spark's HashPartitioning: a row's partition is
// Pmod(Murmur3Hash(keys..., seed 42), n), so the hashes start at 42 and each key column folds in,
// in order, a null leaving the hash as it is (sparkhash.Murmur3Fold). The error is a refusal
// reason: a key whose type Spark's hash covers but the native kernels do not.
func NewHashPartitioner(keys []expr.Expr, numPartitions int) (Partitioner, error) {
	if numPartitions < 1 || numPartitions > math.MaxInt32 {
		return nil, fmt.Errorf("hash partitioning into %d partitions", numPartitions)
	}
	for _, k := range keys {
		if !sparkhash.Hashable(k.Type()) {
			return nil, fmt.Errorf("hash partitioning by %s of type %s is not supported natively", k, k.Type())
		}
	}
	return &hashPartitioner{keys: keys, n: numPartitions}, nil
}

type hashPartitioner struct {
	keys   []expr.Expr
	n      int
	hashes []int32 // scratch, one per row of the largest batch seen
}

func (h *hashPartitioner) NumPartitions() int { return h.n }
func (h *hashPartitioner) Close()             { h.hashes = nil }

func (h *hashPartitioner) Partition(ctx *exec.TaskContext, b *columnar.Batch, ids []int32) error {
	if err := checkIDs(b, ids); err != nil {
		return err
	}
	// Keys are evaluated even into one partition: a key that fails (an ANSI error) fails in Spark.
	n := b.NumRows
	if cap(h.hashes) < n {
		h.hashes = make([]int32, n)
	}
	hs := h.hashes[:n]
	for i := range hs {
		hs[i] = sparkhash.DefaultSeed
	}
	for _, k := range h.keys {
		col, err := k.Eval(ctx, b)
		if err != nil {
			return err
		}
		err = sparkhash.Murmur3Fold(k.Type(), col, hs)
		col.Release()
		if err != nil {
			return fmt.Errorf("hash partitioning key %s: %w", k, err)
		}
	}
	sparkhash.Pmod(hs, int32(h.n), ids[:n])
	return nil
}
