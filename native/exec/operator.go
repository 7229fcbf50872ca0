// Package exec owns the execution contract shared by every native operator: the Operator
// interface, the per-task context (allocator, session settings, inputs from the JVM) and the error
// type that carries Spark error classes back to the JVM.
package exec

import (
	"encoding/json"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Operator is a node of a native block, built once per task from the block's plan.
//
// Open prepares the operator (and its children); Next returns the next batch, owned by the caller,
// or nil at the end of the stream; Close releases everything and is idempotent and safe without
// Open. All three run on the task's thread, inside a JNI call.
type Operator interface {
	// Schema is the operator's output, in Spark's output attribute order.
	Schema() []sparktype.Field
	Open(ctx *TaskContext) error
	Next() (*columnar.Batch, error)
	Close()
}

// LazyOperator is an operator that can hand its batches out undecoded (a scan): the operator
// above decodes only the columns and rows it needs (columnar.Lazy, late materialization). A
// stream is read with Next or with NextLazy, never both; NextLazy may be used only when LazyOK.
type LazyOperator interface {
	Operator
	LazyOK() bool
	// NextLazy returns the next batch, or nil at the end; the caller releases it before the next
	// call.
	NextLazy() (columnar.Lazy, error)
}

// RowTest is a parent's test of its child's rows that the child may apply before it decodes the
// columns the test does not read: a hash join hands its key lookup to a filter that reads a scan
// lazily, so that the columns it does not key on are decoded only for the rows whose keys have a
// match (late materialization through the join). Keep must drop only rows the parent would drop
// itself, and must not fail on a row the parent would not have read.
type RowTest interface {
	// Refs are the child's output columns Keep reads.
	Refs() []int
	// Keep narrows the rows sel (every row of b when all) to those the parent can use, in order,
	// writing them to dst (which may share sel's array); b holds at least the columns Refs, over
	// all its rows. It returns the rows and whether they are all of b's.
	Keep(b *columnar.Batch, sel []int32, all bool, dst []int32) ([]int32, bool, error)
}

// RowTestTaker is an operator that can apply its parent's RowTest (a filter over a scan); it
// reports whether it will.
type RowTestTaker interface {
	TakeRowTest(t RowTest) bool
}

// InputSource delivers the batches of a child that stays in Spark (a fallback operator, an
// exchange). Next returns nil at the end.
type InputSource interface {
	Next() (*columnar.Batch, error)
}

// FrameSource delivers the frames of a native shuffle read (see package shuffle). NextFrame returns
// nil at the end; a frame is valid until the next call.
type FrameSource interface {
	NextFrame() ([]byte, error)
}

// TaskContext is what a task's operators share.
type TaskContext struct {
	Alloc *memory.TaskAllocator
	Conf  *plan.Conf
	// Inputs are indexed like plan.Node.Input.
	Inputs []InputSource
	// Frames are the inputs that deliver a native shuffle's encoded blocks rather than batches,
	// by input index (decoded by the input leaf).
	Frames map[int]FrameSource
	// Files are the task's file splits per scan node id.
	Files map[string][]plan.PartitionedFile
	// IcebergTasks are the task's Iceberg FileScanTasks per scan node id (package iceberg's form).
	IcebergTasks   map[string]json.RawMessage
	PartitionIndex int
	// Broadcasts are the Spark broadcast ids of the inputs that deliver a native broadcast, by
	// input index: the joins that build from one share its hash table across the executor's tasks.
	Broadcasts map[int]int64
	// Storage reserves the executor's storage memory for what the tasks share; nil when Spark has
	// no off-heap pool (nothing is shared then) and in unit tests.
	Storage memory.StorageReserver
	// Pool is the executor's off-heap pool (spark.memory.offHeap.size), 0 when unknown.
	Pool int64
	// Fallback reads a file split with Spark's own reader, for the files the native reader finds
	// it cannot decode (an unsupported codec, say); nil when there is none (unit tests).
	Fallback FileFallback
	// Spill creates the task's spill files in Spark's local directories and removes those left
	// when the task closes; nil in unit tests (operators then use the temporary directory).
	Spill *memory.SpillFiles
	// Spillers are the operators that can spill at a safe point when the task runs out of memory
	// or Spark asks it to spill (RelieveMemory).
	Spillers []SpillOnRequest
	// spillRequested is set by RequestSpill, from any thread, and taken by RelieveMemory.
	spillRequested atomic.Bool
	// Meter counts and times the block's operators for their Spark nodes' metrics; nil leaves
	// them untimed (planning, unit tests).
	Meter *Meter
	// Dispatch evaluates expressions the engine has no kernel for with Spark's own code in the
	// JVM (expr.Dispatch); nil when the task has no JVM evaluator (planning, unit tests).
	Dispatch ExprDispatcher
}

// ExprDispatcher evaluates encoded expression id (plan.Expr.ID) with Spark's code over one batch
// of its input columns: cols[i] holds the attribute exprIDs[i]; the result has rows values. One
// call per batch.
type ExprDispatcher interface {
	Dispatch(id int, exprIDs []int64, cols []arrow.Array, rows int) (arrow.Array, error)
}

// FileFallback reads split `file` (an index into Files[scan]) of a scan node with Spark's own
// reader, as batches of the scan's output columns.
type FileFallback interface {
	OpenFile(scan string, file int) (InputSource, error)
}

// BatchSize is the number of rows operators aim for per batch.
func (c *TaskContext) BatchSize() int {
	if c.Conf != nil && c.Conf.BatchSize > 0 {
		return c.Conf.BatchSize
	}
	return 8192
}

// SpillOnRequest is an operator that can give memory up between batches: SpillNow writes what it
// holds to disk (or drops what it no longer needs) and reports whether it freed anything. It is
// called at a safe point, on the task thread, when none of the block's operators is running.
type SpillOnRequest interface {
	SpillNow() (freed bool, err error)
}

// RequestSpill asks the task to spill what it can at its next safe point: Spark wants memory for
// another consumer of the task (Spark's MemoryConsumer.spill on the block's reserver). It only
// sets a flag, so it is safe on any thread and while the task's operators run; RelieveMemory, on
// the task thread between batches, does the spilling.
func (c *TaskContext) RequestSpill() { c.spillRequested.Store(true) }

// SpillRequested reports whether a spill request is waiting for the next safe point.
func (c *TaskContext) SpillRequested() bool { return c.spillRequested.Load() }

// RelieveMemory answers a refused reservation (the allocator's ErrOutOfMemory) or a spill request
// (RequestSpill) between batches. A refusal is first answered by dropping the freed buffers the
// allocator keeps for reuse, when that makes the task's use fit its reservation
// (TaskAllocator.TrimToFit); otherwise, and on a request, every registered spiller spills, and if
// any freed memory the refusal is forgotten (the next allocation asks Spark again) after the freed
// memory went back to Spark. Without either it does nothing (two atomic loads).
func (c *TaskContext) RelieveMemory() error {
	a := c.Alloc
	if a == nil {
		return nil
	}
	requested := c.spillRequested.Load() && c.spillRequested.Swap(false)
	if !requested && !a.OutOfMemory() {
		return nil
	}
	// A refusal that dropping the task's cache of freed buffers answers needs no spill.
	if !requested && a.TrimToFit() {
		a.Settle()
		return nil
	}
	freed := false
	for _, s := range c.Spillers {
		f, err := s.SpillNow()
		if err != nil {
			return err
		}
		freed = freed || f
	}
	if freed {
		a.Trim()
		a.ClearOutOfMemory()
		a.Settle()
	}
	return nil
}
