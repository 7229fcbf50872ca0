package org.apache.spark.sql.bolide

import org.apache.spark.rdd.{RDD, SQLPartitioningAwareUnionRDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{SparkPlan, UnionExec}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A union of columnar children (native blocks), batches passed through untouched. It replaces
 * Spark's UnionExec when that would run columnar: Spark's columnar union concatenates its
 * children's partitions even when it reports their common hash partitioning, so a native
 * aggregate that relies on that partitioning (no shuffle between a union of aggregates and the
 * aggregate over it) would merge groups of different partitions. Like Spark's row-based union,
 * this one pairs partition i of every child when the partitioning is known, and concatenates
 * otherwise.
 */
case class BolideUnionExec(original: UnionExec, children: Seq[SparkPlan])
  extends SparkPlan with BolideNode {
  override def nodeName: String = "BolideUnion"
  override def output: Seq[Attribute] = current.output
  override def supportsColumnar: Boolean = true

  @transient private lazy val current: UnionExec = original.withNewChildren(children).asInstanceOf[UnionExec]

  override def outputPartitioning: Partitioning = current.outputPartitioning

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added a transition")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val rdds = children.map(_.executeColumnar())
    outputPartitioning match {
      case _: UnknownPartitioning => sparkContext.union(rdds)
      case p =>
        val nonEmpty = rdds.filter(_.partitions.nonEmpty)
        val mismatched = nonEmpty.filter(_.getNumPartitions != p.numPartitions)
        if (mismatched.nonEmpty) {
          throw new IllegalStateException(s"$nodeName: children disagree with their partitioning " +
            s"$p: ${nonEmpty.map(_.getNumPartitions).mkString(", ")} partitions")
        }
        new SQLPartitioningAwareUnionRDD(sparkContext, nonEmpty, p.numPartitions)
    }
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): SparkPlan =
    copy(children = newChildren)

  override def doCanonicalize(): SparkPlan = current.canonicalized
}
