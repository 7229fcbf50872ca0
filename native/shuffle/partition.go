package shuffle

import (
	"fmt"
	"math"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparkrand"
)

// Partitioner assigns Spark partition ids to the rows of a batch.
type Partitioner interface {
	NumPartitions() int
	// Partition writes the partition id of each of b's rows into ids[:b.NumRows].
	Partition(ctx *exec.TaskContext, b *columnar.Batch, ids []int32) error
	Close() // releases whatever the partitioner holds (range bounds); idempotent
}

func checkIDs(b *columnar.Batch, ids []int32) error {
	if len(ids) < b.NumRows {
		return fmt.Errorf("partition ids: %d slots for a batch of %d rows", len(ids), b.NumRows)
	}
	return nil
}

// ---- single ----

// NewSinglePartitioner is Spark's SinglePartition (ConstantPartitioner): every row to partition 0.
func NewSinglePartitioner() Partitioner { return singlePartitioner{} }

type singlePartitioner struct{}

func (singlePartitioner) NumPartitions() int { return 1 }
func (singlePartitioner) Close()             {}
func (singlePartitioner) Partition(_ *exec.TaskContext, b *columnar.Batch, ids []int32) error {
	if err := checkIDs(b, ids); err != nil {
		return err
	}
	clear(ids[:b.NumRows])
	return nil
}

// ---- round robin ----

// NewRoundRobinPartitioner is Spark's RoundRobinPartitioning as ShuffleExchangeExec runs it: the
// map task with partition index i starts at position new XORShiftRandom(i).nextInt(n) and gives
// each row the next position, whose partition is HashPartitioner's nonNegativeMod(position, n).
//
// The start position is Spark's exactly (xorShiftNextInt, checked against Spark 4.1.3's own
// class in the tests), and the position is a Java int that wraps after 2^31 rows as Spark's does.
// Even where a start differed, no answer would: round robin promises only an even spread, which
// consecutive positions give from any start. Which rows land where depends on the input order;
// Spark sorts the rows first (spark.sql.execution.sortBeforeRepartition) so that a retried task
// repeats it, and that sort belongs to the plan, not to the partitioner.
func NewRoundRobinPartitioner(numPartitions, partitionIndex int) Partitioner {
	rr := &roundRobin{n: numPartitions}
	if numPartitions > 0 && numPartitions <= math.MaxInt32 {
		rr.pos = xorShiftNextInt(int64(partitionIndex), int32(numPartitions))
		rr.cur = nonNegativeMod(rr.pos, rr.n)
	}
	return rr
}

type roundRobin struct {
	n   int
	pos int32 // Spark's position: the last one given out
	cur int   // nonNegativeMod(pos, n)
}

func (r *roundRobin) NumPartitions() int { return r.n }
func (r *roundRobin) Close()             {}

func (r *roundRobin) Partition(_ *exec.TaskContext, b *columnar.Batch, ids []int32) error {
	if r.n <= 0 || r.n > math.MaxInt32 {
		return fmt.Errorf("round robin partitioning into %d partitions", r.n)
	}
	if err := checkIDs(b, ids); err != nil {
		return err
	}
	pos, cur, n := r.pos, r.cur, r.n
	for i := range ids[:b.NumRows] {
		pos++
		if pos == math.MinInt32 {
			cur = nonNegativeMod(pos, n) // the Java int wrapped: the sequence jumps as Spark's does
		} else if cur++; cur == n {
			cur = 0
		}
		ids[i] = int32(cur)
	}
	r.pos, r.cur = pos, cur
	return nil
}

// nonNegativeMod is Spark's Utils.nonNegativeMod.
func nonNegativeMod(x int32, n int) int {
	m := int(x) % n
	if m < 0 {
		m += n
	}
	return m
}

// xorShiftNextInt is new org.apache.spark.util.random.XORShiftRandom(seed).nextInt(bound)
// (package sparkrand reproduces the generator).
func xorShiftNextInt(seed int64, bound int32) int32 {
	return sparkrand.NewXORShift(seed).NextIntN(bound)
}
