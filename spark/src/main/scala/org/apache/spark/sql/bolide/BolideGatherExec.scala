package org.apache.spark.sql.bolide

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeRow}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, ShuffleExchangeLike}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.DecimalType
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * In place of the shuffle to a single partition under a global aggregate (no GROUP BY): the
 * partial states, one row per partition, are collected to the driver by the partial side's own
 * job and handed to the final aggregate as one partition. A shuffle there would cost a stage of
 * its own: its scheduling, its shuffle files, and, with AQE, a re-optimization of the whole plan
 * between the two stages, which is most of a short query's time (TPC-H Q6: about 20 ms of 150).
 * This is what Spark's own `RDD.aggregate` does, and what `SparkPlan.executeCollect` does for a
 * query's result: partition results travel to the driver as task results (bounded by
 * `spark.driver.maxResultSize`), as rows.
 *
 * Only for states of fixed width (sums, counts, averages, min/max of numbers and dates...): a
 * state that grows with its input (collect_list, a sketch) keeps Spark's shuffle, whose reducer
 * is an executor, not the driver.
 */
case class BolideGatherExec(child: SparkPlan) extends UnaryExecNode with BolideNode {
  override def nodeName: String = "BolideGather"
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = SinglePartition
  // Columnar both ways: the partial block's batches are read without Spark's transition to rows
  // (its code generation and closure cleaning cost a short query milliseconds), and the final
  // block reads the gathered states as Arrow.
  override def supportsColumnar: Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numPartitions" -> SQLMetrics.createMetric(sparkContext, "partitions gathered"))

  /**
   * The partial side runs now, as a job of its own (as a range shuffle's sampling job does while
   * the plan executes); the rows are copies owned by the driver.
   */
  private def gather(): Array[InternalRow] = {
    val partial = child.executeColumnar()
    val rows = BolideDriverCollectExec.collectRows(partial, child.schema)
    longMetric("numOutputRows") += rows.length
    longMetric("numPartitions") += partial.getNumPartitions
    rows
  }

  override protected def doExecute(): RDD[InternalRow] = sparkContext.parallelize(gather().toSeq, 1)

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] =
    BolideRowToArrowExec.toArrow(sparkContext.parallelize(gather().toSeq, 1), child.schema,
      BolideConf.BATCH_SIZE.getInt(conf))

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}

object BolideGatherExec {
  val Enabled: BolideConf.Entry = BolideConf.GATHER_ENABLED

  /**
   * The native partial side of a global aggregate, under the final aggregate `h` whose (already
   * rewritten) children are `children`, when the shuffle between them can be a gather.
   */
  def gatherable(h: HashAggregateExec, children: Seq[SparkPlan], conf: SQLConf): Option[SparkPlan] = {
    // A streaming aggregate keeps its state between micro-batches through Spark's state store.
    if (!Enabled.getBoolean(conf) || h.isStreaming || h.groupingExpressions.nonEmpty ||
      !h.aggregateExpressions.forall(_.mode == org.apache.spark.sql.catalyst.expressions.aggregate.Final)) {
      return None
    }
    children match {
      case Seq(s: ShuffleExchangeLike) if s.outputPartitioning == SinglePartition &&
        s.shuffleOrigin == ENSURE_REQUIREMENTS && s.child.isInstanceOf[BolideExec] &&
        s.child.output.forall(a => fixedWidth(a.dataType)) => Some(s.child)
      case _ => None
    }
  }

  private def fixedWidth(dt: org.apache.spark.sql.types.DataType): Boolean =
    UnsafeRow.isFixedLength(dt) || dt.isInstanceOf[DecimalType]
}
