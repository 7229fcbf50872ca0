package org.apache.spark.sql.bolide

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{ColumnarToRowExec, ColumnarToRowTransition, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * The row end of a native TakeOrderedAndProject. The native block (`child`) keeps the first
 * `limit` rows of each partition by the ordering, sorted, as rows of the Spark node's child; Spark's
 * own TakeOrderedAndProject logic then does the rest, as in vanilla Spark: it sees the child's
 * ordering, takes `limit` rows per partition, merges them in one partition (a shuffle, or in the
 * driver on collect), drops the offset and applies the projection.
 */
case class BolideTakeOrderedAndProjectExec(original: TakeOrderedAndProjectExec, child: SparkPlan)
  extends ColumnarToRowTransition {

  override def nodeName: String = "BolideTakeOrderedAndProjectRows"
  override def output: Seq[Attribute] = original.output
  override def outputPartitioning: Partitioning = SinglePartition
  override def outputOrdering: Seq[SortOrder] = original.outputOrdering
  override def simpleString(maxFields: Int): String =
    s"$nodeName limit=${original.limit}, offset=${original.offset}"

  private lazy val delegate: TakeOrderedAndProjectExec = original.copy(child = ColumnarToRowExec(child))

  override lazy val metrics: Map[String, SQLMetric] = delegate.metrics

  override def executeCollect(): Array[InternalRow] = delegate.executeCollect()
  override protected def doExecute(): RDD[InternalRow] = delegate.execute()

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}
