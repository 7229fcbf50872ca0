package org.apache.spark.sql.bolide

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.execution.{CoalesceExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's CoalesceExec (df.coalesce(n), the COALESCE hint) over a native block, columnar: the
 * block's Arrow batches pass through untouched, and its partitions are merged by the same
 * `RDD.coalesce(n, shuffle = false)` Spark applies to rows, so every output partition holds the
 * same input partitions, in the same order, as with Spark. A native block merges nothing itself
 * (it runs once per partition), so the Go side plans CoalesceExec as ending its block; a native
 * parent reads this node's batches as an input. Each input partition's native block is released
 * as soon as its batches are read (NativeBatchIterator), not when the merged task ends.
 */
case class BolideCoalesceExec(numPartitions: Int, child: SparkPlan) extends UnaryExecNode with BolideNode {
  override def nodeName: String = "BolideCoalesce"
  override def output: Seq[Attribute] = child.output
  override def supportsColumnar: Boolean = true

  override def outputPartitioning: Partitioning =
    if (numPartitions == 1) SinglePartition else UnknownPartitioning(numPartitions)

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added a transition")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val rdd = child.executeColumnar()
    if (numPartitions == 1 && rdd.getNumPartitions < 1) {
      // As Spark's: one (empty) partition when claiming SinglePartition.
      new BolideCoalesceExec.EmptyBatches(sparkContext, numPartitions)
    } else {
      rdd.coalesce(numPartitions, shuffle = false)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}

object BolideCoalesceExec {
  /** No batches, in the given number of partitions. */
  class EmptyBatches(@transient private val sc: SparkContext, numPartitions: Int)
    extends RDD[ColumnarBatch](sc, Nil) {
    override def getPartitions: Array[Partition] =
      Array.tabulate(numPartitions)(i => CoalesceExec.EmptyPartition(i))
    override def compute(split: Partition, context: TaskContext): Iterator[ColumnarBatch] = Iterator.empty
  }
}
