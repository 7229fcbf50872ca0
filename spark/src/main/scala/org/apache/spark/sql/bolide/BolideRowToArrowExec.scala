package org.apache.spark.sql.bolide

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.Schema

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{RowToColumnarTransition, SparkPlan}
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.ArrowUtils
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}

/**
 * Rows of a Spark child (an exchange, a fallback operator) into Arrow batches for a native block,
 * replacing Spark's RowToColumnarExec (which builds Spark's own vectors, not Arrow).
 */
case class BolideRowToArrowExec(child: SparkPlan) extends RowToColumnarTransition {
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = true
  override def nodeName: String = "BolideRowToArrow"

  override protected def doExecute(): RDD[InternalRow] = child.execute()

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] =
    BolideRowToArrowExec.toArrow(child.execute(), child.schema, BolideConf.BATCH_SIZE.getInt(conf))

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}

object BolideRowToArrowExec {
  /**
   * Timestamps are tagged UTC: the values are UTC microseconds whatever the session zone, and the
   * engine's schemas use that tag.
   */
  def newRoot(schema: StructType, allocator: BufferAllocator): VectorSchemaRoot =
    VectorSchemaRoot.create(arrowSchema(schema), allocator)

  def arrowSchema(schema: StructType): Schema = ArrowUtils.toArrowSchema(schema, "UTC", true, false)

  // mapPartitionsInternal: the function holds nothing but its arguments, so it needs none of the
  // closure cleaning (reading classes' bytecode) mapPartitions does on the driver for every query.
  def toArrow(rows: RDD[InternalRow], schema: StructType, batchSize: Int): RDD[ColumnarBatch] =
    rows.mapPartitionsInternal { it =>
      val allocator = BolideArrow.newTaskAllocator("bolide-row-to-arrow")
      val batches = new ArrowBatches(it, schema, batchSize, allocator)
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit] { _ =>
        batches.close()
        allocator.close()
      })
      batches
    }
}

/**
 * Rows into Arrow batches of `batchSize` rows. The previous batch is closed when the next one is
 * made (its consumer is done with it: Spark's columnar contract; a native block that exported it
 * holds its own references), the last one at the end or on close.
 */
class ArrowBatches(rows: Iterator[InternalRow], schema: StructType, batchSize: Int, allocator: BufferAllocator)
  extends Iterator[ColumnarBatch] with AutoCloseable {
  private var current: VectorSchemaRoot = null

  override def close(): Unit = if (current != null) { current.close(); current = null }

  override def hasNext: Boolean = {
    val more = rows.hasNext
    if (!more) close()
    more
  }

  override def next(): ColumnarBatch = {
    close()
    current = BolideRowToArrowExec.newRoot(schema, allocator)
    val writer = ArrowWriter.create(current)
    var n = 0
    while (n < batchSize && rows.hasNext) {
      writer.write(rows.next())
      n += 1
    }
    writer.finish()
    val vectors = (0 until current.getFieldVectors.size()).map { i =>
      new ArrowColumnVector(current.getVector(i)): ColumnVector
    }.toArray
    new ColumnarBatch(vectors, n)
  }
}
