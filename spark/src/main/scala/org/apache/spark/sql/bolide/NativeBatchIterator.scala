package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.complex.StructVector

import org.apache.spark.TaskContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}

object NativeBatchIterator {
  /** The column vector over one vector of the reused root. */
  private def column(v: FieldVector): ColumnVector = v match {
    case s: StructVector => new ReusedStructColumnVector(s)
    case _ => DirectArrowColumnVector.of(v).getOrElse(new ArrowColumnVector(v))
  }
}

/**
 * A struct column of the reused root. Spark's ColumnarToRow calls `closeIfFreeable` after every
 * batch, and closing an Arrow StructVector drops its child vectors (and ArrowColumnVector its
 * child columns), so the next batch could not be imported into the root ("should have as many
 * children as in the schema: found 0"). Here closing only releases the batch's buffers; the
 * vectors stay, and the root closes them when the task ends. (Lists and maps keep their children
 * when closed; their element structs are cleared, not closed.)
 */
private[bolide] final class ReusedStructColumnVector(v: StructVector) extends ArrowColumnVector(v) {
  override def closeIfFreeable(): Unit = v.clear()
  override def close(): Unit = v.clear()
}

/**
 * The output of a native block in one task: each `hasNext` asks Go for one batch (one JNI
 * crossing), imported zero-copy into a VectorSchemaRoot reused for the whole task. Importing the
 * next batch releases the previous one, as Spark expects of a columnar producer.
 */
class NativeBatchIterator(
    handle: Long,
    allocator: BufferAllocator,
    reserver: NativeMemoryReserver,
    numOutputRows: SQLMetric,
    numOutputBatches: SQLMetric,
    nativeTime: SQLMetric,
    closeInputs: () => Unit = () => (),
    operators: Seq[NativeOperatorMetrics] = Nil)
  extends Iterator[ColumnarBatch] with AutoCloseable with Logging {

  private var open = true
  private var pending = false
  private var finished = false

  // Spark may now ask the block to spill (NativeMemoryReserver.spill); detached before close.
  if (reserver != null) reserver.attach(handle)

  private val root: VectorSchemaRoot = {
    val s = ArrowSchema.allocateNew(allocator)
    try {
      BolideErrors.rethrow(NativeLib.exportSchema(handle, s.memoryAddress()))
      VectorSchemaRoot.create(Data.importSchema(allocator, s, null), allocator)
    } finally s.close()
  }

  private val columns = root.getFieldVectors.asScala.map(NativeBatchIterator.column).toArray
  private val batch = new ColumnarBatch(columns)
  private val direct = columns.collect { case d: DirectArrowColumnVector => d }

  override def hasNext: Boolean = {
    if (!pending && !finished) fetch()
    pending
  }

  override def next(): ColumnarBatch = {
    if (!hasNext) throw new NoSuchElementException("end of native block output")
    pending = false
    batch
  }

  private def fetch(): Unit = {
    val arr = ArrowArray.allocateNew(allocator)
    try {
      val start = System.nanoTime()
      val rows = BolideErrors.rethrow(NativeLib.next(handle, arr.memoryAddress()))
      if (rows < 0) {
        finished = true
      } else {
        Data.importIntoVectorSchemaRoot(allocator, arr, root, null)
        direct.foreach(_.load())
        batch.setNumRows(rows.toInt)
        pending = true
        numOutputRows += rows
        numOutputBatches += 1
      }
      nativeTime += System.nanoTime() - start
    } finally arr.close()
    // The consumer is done with the last batch (it asked for the next one): release the block
    // now, so that a task reading several blocks in turn (a coalesced partition) holds one at a
    // time.
    if (finished) close()
  }

  /**
   * One JNI call per task: the engine's counts of every operator, into their nodes' metrics, and
   * what its operators spilled, into the task's spill metrics (as Spark's own spilling operators
   * report them).
   */
  private def addOperatorMetrics(): Unit = if (operators.nonEmpty) {
    val byId = operators.map(o => o.id -> o).toMap
    val values = BolideErrors.rethrow(NativeLib.metrics(handle))
    var memSpilled, diskSpilled = 0L
    var i = 0
    while (i + NativeOperatorMetrics.Longs - 1 < values.length) {
      byId.get(values(i).toInt).foreach { o =>
        if (!o.top) {
          o.numOutputRows += values(i + 1)
          o.numOutputBatches += values(i + 2)
        }
        o.time += values(i + 3)
        o.spillSize.foreach(_ += values(i + 4))
      }
      memSpilled += values(i + 4)
      diskSpilled += values(i + 5)
      i += NativeOperatorMetrics.Longs
    }
    val tc = TaskContext.get()
    if (tc != null && (memSpilled > 0 || diskSpilled > 0)) {
      tc.taskMetrics().incMemoryBytesSpilled(memSpilled)
      tc.taskMetrics().incDiskBytesSpilled(diskSpilled)
    }
  }

  override def close(): Unit = if (open) {
    open = false
    try addOperatorMetrics() catch {
      // Metrics must never fail a task, nor keep it from releasing the block.
      case NonFatal(t) => logWarning(s"Bolide operator metrics: ${t.getMessage}")
    }
    if (reserver != null) reserver.detach()
    try root.close() finally {
      try NativeLib.close(handle) finally {
        // Go has released what it imported; the batches the task made itself can go.
        try closeInputs() catch { case t: Throwable => logWarning(s"Bolide task inputs: ${t.getMessage}") }
        if (reserver != null) reserver.releaseAll()
        try allocator.close() catch {
          case t: Throwable => logWarning(s"Bolide task allocator: ${t.getMessage}")
        }
      }
    }
  }
}
