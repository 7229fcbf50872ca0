package org.apache.spark.sql.bolide

import java.nio.charset.StandardCharsets
import java.util.IdentityHashMap

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.bolide.shuffle.{BolideBroadcastExchangeExec, BolideShuffleExchangeExec}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, ShuffleExchangeExec}
import org.apache.spark.sql.execution.{CoalesceExec, CollectLimitExec, ColumnarRule, ColumnarToRowExec, RowToColumnarExec, SparkPlan, TakeOrderedAndProjectExec, UnionExec}
import org.apache.spark.sql.internal.SQLConf

/**
 * Bolide's planner hook. Before Spark inserts row/columnar transitions, the whole plan is encoded
 * and the Go engine decides which nodes run natively; those become BolideExec nodes, the others
 * stay and carry the reason. After the transitions, Spark's RowToColumnarExec under a Bolide node
 * (which would build Spark's own vectors) is replaced by BolideRowToArrowExec. Spark applies
 * columnar rules to every AQE query stage too.
 */
case class BolideColumnarRule(session: SparkSession) extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = BolidePlanRule
  override def postColumnarTransitions: Rule[SparkPlan] = BolideTransitionRule
}

object BolidePlanRule extends Rule[SparkPlan] with Logging {
  private val mapper = new ObjectMapper()

  /** elided: a native node its parent made redundant (a sort-merge join's build-side sort). */
  /** unordered: a native node that does not keep the order its Spark node would report. */
  final case class Decision(native: Boolean, name: String, reason: String, elided: Boolean = false,
      unordered: Boolean = false, dispatched: Seq[String] = Nil)

  /** How many plans were sent to the engine (NativeLib.plan), for tests. */
  val planned = new java.util.concurrent.atomic.AtomicLong()

  override def apply(plan: SparkPlan): SparkPlan = {
    val conf = SQLConf.get
    if (!BolideConf.ENABLED.getBoolean(conf) || !NativeLoader.isAvailable) return plan
    // AQE applies this rule to the whole plan, then again to each query stage and to the final
    // plan. Where the first pass left only Bolide's nodes and plumbing, no Spark operator is left
    // to decide on and the rewrite below would return the plan as it is: encoding it and asking
    // the engine again costs about a millisecond a pass.
    if (onlyBolide(plan)) return plan
    planned.incrementAndGet()
    val ids = new IdentityHashMap[SparkPlan, Integer]()
    var next = 0
    def number(p: SparkPlan): Unit = { ids.put(p, next); next += 1; p.children.foreach(number) }
    number(plan)
    val request = PlanEncoder.planRequest(plan, ids, conf)
    val response = mapper.readTree(NativeLib.plan(request))
    val decisions = response.get("decisions").elements().asScala.map { d =>
      d.get("id").asInt() -> Decision(
        d.path("native").asBoolean(false), d.path("name").asText(""), d.path("reason").asText(""),
        d.path("elided").asBoolean(false), d.path("unordered").asBoolean(false),
        d.path("dispatched").elements().asScala.map(_.asText()).toSeq)
    }.toMap
    val logFallback = BolideConf.EXPLAIN_FALLBACK.getBoolean(conf)

    def rewrite(p: SparkPlan): SparkPlan = {
      val newChildren = p.children.map(rewrite)
      val d = decisions.getOrElse(ids.get(p).intValue, Decision(native = false, "", "not planned"))
      p match {
        case b: BolideExec => b.withNewChildren(newChildren)
        case s: BolideShuffleExchangeExec => s.withNewChildren(newChildren)
        case b: BolideBroadcastExchangeExec => b.withNewChildren(newChildren)
        case c: BolideCoalesceExec => c.withNewChildren(newChildren)
        case g: BolideGatherExec => g.withNewChildren(newChildren)
        case t: TakeOrderedAndProjectExec if d.native =>
          // Native: the top-k of each partition, rows of the child; after the transitions, Spark's
          // own logic is put above it to merge the partitions, drop the offset and project
          // (BolideTransitionRule).
          val b = BolideExec(d.name, t, newChildren, childRows = Some(t.sortOrder))
          b.copyTagsFrom(p)
          if (d.dispatched.nonEmpty) b.setTagValue(BolideExec.Dispatched, d.dispatched)
          b
        case _ if d.native && d.elided && newChildren.size == 1 => newChildren.head
        case h: HashAggregateExec if d.native && BolideGatherExec.gatherable(h, newChildren, conf).isDefined =>
          // A global aggregate's partial states reach it through the driver, not a shuffle stage.
          val gather = BolideGatherExec(BolideGatherExec.gatherable(h, newChildren, conf).get)
          val b = BolideExec(d.name, p, Seq(gather), unordered = d.unordered)
          b.copyTagsFrom(p)
          if (d.dispatched.nonEmpty) b.setTagValue(BolideExec.Dispatched, d.dispatched)
          b
        case c: CoalesceExec if d.native =>
          // Merging partitions is the JVM's part; the blocks below and above stay native.
          val x = BolideCoalesceExec(c.numPartitions, newChildren.head)
          x.copyTagsFrom(p)
          x
        case b: BroadcastExchangeExec if d.native =>
          val x = BolideBroadcastExchangeExec(b.mode, newChildren.head)
          x.copyTagsFrom(p)
          x
        case s: ShuffleExchangeExec if d.native =>
          val b = BolideShuffleExchangeExec(s.outputPartitioning, newChildren.head, s.shuffleOrigin,
            s.advisoryPartitionSize)
          b.copyTagsFrom(p)
          b
        case _ if d.native =>
          // Tags carry the logical link AQE needs to create query stages.
          val b = BolideExec(d.name, p, newChildren, unordered = d.unordered)
          b.copyTagsFrom(p)
          if (d.dispatched.nonEmpty) b.setTagValue(BolideExec.Dispatched, d.dispatched)
          b
        case _ =>
          if (!isWrapper(p)) {
            p.setTagValue(BolideExec.FallbackReason, d.reason)
            if (logFallback) logWarning(s"Bolide: ${p.nodeName} stays in Spark: ${d.reason}")
          }
          p.withNewChildren(newChildren)
      }
    }
    rewrite(plan)
  }

  private def onlyBolide(p: SparkPlan): Boolean = (p match {
    case _: BolideExec | _: BolideShuffleExchangeExec | _: BolideBroadcastExchangeExec | _: BolideCoalesceExec |
        _: BolideGatherExec => true
    case other => isWrapper(other)
  }) && p.children.forall(onlyBolide)

  /** Plumbing nodes that are never operators of their own (not counted, no reason shown). */
  def isWrapper(p: SparkPlan): Boolean = {
    val n = p.getClass.getSimpleName
    n.startsWith("AdaptiveSparkPlan") || n.contains("QueryStage") || n == "InputAdapter" ||
      n == "WholeStageCodegenExec" || n.contains("ColumnarToRow") || n.contains("RowToColumnar") ||
      n == "ReusedExchangeExec" || n == "AQEShuffleReadExec" || n == "BolideRowToArrowExec" ||
      n == "BolideCollectLimitExec" || n == "BolideGatherExec" || n == "BolideDriverCollectExec" ||
      n == "BolideTakeOrderedAndProjectExec" || n == "SubqueryExec" ||
      n == "ReusedSubqueryExec" ||
      n == "SubqueryBroadcastExec" || n == "SubqueryAdaptiveBroadcastExec"
  }
}

object BolideTransitionRule extends Rule[SparkPlan] {
  /** A native TakeOrderedAndProject's top-k, which needs Spark's merge above it. */
  private object TopK {
    def unapply(p: SparkPlan): Option[(TakeOrderedAndProjectExec, BolideExec)] = p match {
      case b @ BolideExec(_, t: TakeOrderedAndProjectExec, _, Some(_), _) => Some((t, b))
      case _ => None
    }
  }

  override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
    case ColumnarToRowExec(b @ BolideExec(_, limit: CollectLimitExec, _, _, _)) =>
      BolideCollectLimitExec(limit, b)
    case ColumnarToRowExec(TopK(t, b)) => BolideTakeOrderedAndProjectExec(t, b)
    // Spark's columnar union ignores the partitioning it reports (see BolideUnionExec).
    case u: UnionExec if u.supportsColumnar && u.children.exists(_.isInstanceOf[BolideExec]) =>
      BolideUnionExec(u, topKMerged(u.children))
    case b: BolideExec if b.children.exists(c => c.isInstanceOf[RowToColumnarExec] || TopK.unapply(c).isDefined) =>
      b.withNewChildren(topKMerged(b.children).map {
        // A broadcast is read whole by every task of the block (BolideBlock), not as rows.
        case r: RowToColumnarExec if BolideBlock.isBroadcast(r.child) => r.child
        case r: RowToColumnarExec => BolideRowToArrowExec(r.child)
        case c => c
      })
    // A native shuffle of a Spark row operator converts the rows once, before partitioning.
    case s: BolideShuffleExchangeExec if s.child.isInstanceOf[RowToColumnarExec] =>
      s.withNewChildren(Seq(BolideRowToArrowExec(s.child.asInstanceOf[RowToColumnarExec].child)))
    // A native broadcast reads its child's batches itself (Spark put a transition to rows there).
    case b: BolideBroadcastExchangeExec => b.child match {
      case ColumnarToRowExec(c) => b.withNewChildren(Seq(c))
      case c if !c.supportsColumnar => b.withNewChildren(Seq(BolideRowToArrowExec(c)))
      case _ => b
    }
    // Any other columnar parent of a top-k reads the merged rows too, never the top-k's own.
    case p if p.supportsColumnar && p.children.exists(TopK.unapply(_).isDefined) =>
      p.withNewChildren(topKMerged(p.children))
  } match {
    case TopK(t, b) => BolideRowToArrowExec(BolideTakeOrderedAndProjectExec(t, b))
    case other => driverCollect(other)
  }

  /**
   * A gathered global aggregate's final block, under Spark's transition to rows: collected, it
   * runs in the driver (BolideDriverCollectExec). Top-down, so that a plan this rule already
   * wrapped (AQE applies it again to the final stage) is not wrapped twice.
   */
  private def driverCollect(p: SparkPlan): SparkPlan = p match {
    case d: BolideDriverCollectExec => d
    case c @ ColumnarToRowExec(b: BolideExec) if BolideDriverCollectExec.applies(b) => BolideDriverCollectExec(c)
    case other if other.children.isEmpty => other
    case other =>
      val children = other.children.map(driverCollect)
      if (children.zip(other.children).forall { case (a, b) => a eq b }) other else other.withNewChildren(children)
  }

  private def topKMerged(children: Seq[SparkPlan]): Seq[SparkPlan] = children.map {
    case TopK(t, b) => BolideRowToArrowExec(BolideTakeOrderedAndProjectExec(t, b))
    case c => c
  }
}
