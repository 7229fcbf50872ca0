package org.apache.spark.sql.bolide

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{CollectLimitExec, ColumnarToRowExec, ColumnarToRowTransition, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * The row end of a native CollectLimit. Each partition of `child` (the native block, whose top
 * keeps limit + offset rows per partition) is already limited; Spark's own CollectLimit logic then
 * takes the first rows, scanning partitions incrementally on collect (as vanilla Spark does) or
 * gathering them into one partition through a shuffle when executed as an RDD.
 */
case class BolideCollectLimitExec(original: CollectLimitExec, child: SparkPlan)
  extends ColumnarToRowTransition {

  override def nodeName: String = "BolideCollectLimitRows"
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = SinglePartition
  override def simpleString(maxFields: Int): String =
    s"$nodeName limit=${original.limit}, offset=${original.offset}"

  private lazy val delegate: CollectLimitExec = original.copy(child = ColumnarToRowExec(child))

  override lazy val metrics: Map[String, SQLMetric] = delegate.metrics

  override def executeCollect(): Array[InternalRow] = delegate.executeCollect()
  override def executeTake(n: Int): Array[InternalRow] = delegate.executeTake(n)
  override protected def doExecute(): RDD[InternalRow] = delegate.execute()

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}
