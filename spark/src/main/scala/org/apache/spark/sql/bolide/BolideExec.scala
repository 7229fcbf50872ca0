package org.apache.spark.sql.bolide

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A Spark operator that runs natively. One generic node for every operator: the Go engine
 * decided, at planning time, that `original` runs natively and named it (`nativeName`, e.g.
 * BolideHashAggregate). Contiguous Bolide nodes form one native block: only the block's top node
 * executes, shipping the whole block to Go once per task; the others are parts of its plan.
 */
case class BolideExec(
    nativeName: String,
    original: SparkPlan,
    children: Seq[SparkPlan],
    childRows: Option[Seq[SortOrder]] = None,
    unordered: Boolean = false)
  extends SparkPlan with BolideNode {

  // childRows: the native operator does the per-partition part of `original` and outputs rows of
  // its child, in this order (TakeOrderedAndProject's top-k); a Spark wrapper above it does the
  // rest (BolideTakeOrderedAndProjectExec). unordered: the native operator does not keep the order
  // `original` would report (Go found that nothing above reads it: a sort-merge join without its
  // streamed side's sort, a hash join that may partition its inputs to disk).
  override def nodeName: String = nativeName
  override def output: Seq[Attribute] =
    if (childRows.isDefined) original.children.head.output else original.output

  /**
   * The Spark node over this node's current children: `original` keeps the children it had when
   * Bolide planned it, which AQE replaces afterwards (a shuffle becomes a coalesced shuffle read
   * of fewer partitions). Partitioning and ordering must describe what this node produces now,
   * or Spark pairs partitions that do not exist (a partitioning-aware union) or skips a shuffle.
   */
  @transient private lazy val current: SparkPlan =
    if (children.isEmpty) original
    else try original.withNewChildren(children) catch { case _: Exception => original }

  override def outputPartitioning: Partitioning =
    if (childRows.isDefined) children.head.outputPartitioning else current.outputPartitioning
  override def outputOrdering: Seq[SortOrder] =
    if (unordered) Nil else childRows.getOrElse(current.outputOrdering)
  override def supportsColumnar: Boolean = true

  // The block runs the subqueries of the Spark node it stands for (BolideBlock.waitForSubqueries);
  // listing them here keeps them visible to explain and plan walkers.
  override def subqueries: Seq[SparkPlan] = original.subqueries

  // Every operator of a block reports its rows, batches and own time: its children's time is
  // excluded, so that the operators of a block add up (to at most the block's time) and a slow
  // one stands out (docs/tuning.md). Only the block's top node executes and has "time in native
  // block": the whole block as the task waited for it, inputs and hand-over to Spark included.
  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numOutputBatches" -> SQLMetrics.createMetric(sparkContext, "number of output batches"),
    "operatorTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "own time in native operator"),
    "nativeTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time in native block")) ++
    (if (BolideExec.Spilling(nativeName)) {
      Map("spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))
    } else Map.empty) ++
    // A file scan's listing metrics (files, their size, partitions, listing time): the driver
    // fills and posts Spark's own scan's, which the UI shows under this node.
    (original match {
      case s: org.apache.spark.sql.execution.FileSourceScanExec => s.metrics.filter { case (k, _) => BolideExec.ScanDriverMetrics(k) }
      case _ => Map.empty
    })

  override def simpleString(maxFields: Int): String = {
    val s = original.simpleString(maxFields)
    val named = if (s.startsWith(original.nodeName)) nativeName + s.substring(original.nodeName.length)
      else s"$nativeName $s"
    // Expressions the JVM evaluates for the native operator (spark.bolide.dispatch.enabled).
    dispatched match {
      case Nil => named
      case ds => s"$named, ${ds.size} dispatched: ${ds.map(d => s"dispatch($d)").mkString(", ")}"
    }
  }

  /** The classes of the expressions the JVM evaluates for this operator (the planner's answer). */
  def dispatched: Seq[String] = getTagValue(BolideExec.Dispatched).getOrElse(Nil)

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nativeName is columnar; Spark should have added a transition")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = BolideBlock.execute(this, sparkContext)

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): SparkPlan =
    copy(children = newChildren)

  override def doCanonicalize(): SparkPlan =
    BolideExec(nativeName, original.canonicalized, children.map(_.canonicalized),
      childRows.map(_.map(_.canonicalized.asInstanceOf[SortOrder])), unordered)
}

/** A node that runs as Bolide (counted as native in explain and tests): named Bolide*. */
trait BolideNode extends SparkPlan

object BolideExec {
  /** The native operators that spill (docs/tuning.md): they show Spark's "spill size". */
  val Spilling: Set[String] = Set("BolideHashAggregate", "BolideSort", "BolideShuffledHashJoin",
    "BolideSortMergeJoin", "BolideBroadcastHashJoin", "BolideWindow")

  /** FileSourceScanExec's metrics that its driver fills while listing and splitting the files. */
  val ScanDriverMetrics: Set[String] = Set("numFiles", "filesSize", "numPartitions", "metadataTime",
    "pruningTime", "staticFilesNum", "staticFilesSize")

  /** Why a Spark node was not replaced; read by the explain generator. */
  val FallbackReason: TreeNodeTag[String] = TreeNodeTag[String]("bolide.fallback")

  /** The classes of a native node's expressions that the JVM evaluates (dispatched). */
  val Dispatched: TreeNodeTag[Seq[String]] = TreeNodeTag[Seq[String]]("bolide.dispatched")
}
