package org.apache.spark.sql.bolide

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.ExtendedExplainGenerator
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * Spark 4's extended explain hook (spark.sql.extendedExplainProviders, registered by the plugin):
 * prints which operators run natively and, for each one left in Spark, why.
 */
class BolideExplainGenerator extends ExtendedExplainGenerator {
  override def title: String = "Bolide"

  override def generateExtendedInfo(plan: SparkPlan): String = {
    val native = ArrayBuffer.empty[String]
    val fallback = ArrayBuffer.empty[String]
    val dispatched = ArrayBuffer.empty[String]
    def walk(p: SparkPlan): Unit = {
      p match {
        case a: AdaptiveSparkPlanExec => walk(a.executedPlan); return
        case q: QueryStageExec => walk(q.plan); return
        case b: BolideExec =>
          native += b.nodeName
          dispatched ++= b.dispatched
        case b: BolideNode => native += b.nodeName
        case other if !BolidePlanRule.isWrapper(other) =>
          val reason = other.getTagValue(BolideExec.FallbackReason).getOrElse("not planned by Bolide")
          fallback += s"${other.nodeName}: $reason"
        case _ =>
      }
      p.children.foreach(walk)
      p.subqueries.foreach(walk)
    }
    walk(plan)
    val total = native.size + fallback.size
    val sb = new StringBuilder
    sb ++= s"Bolide: ${native.size} of $total operators run natively"
    if (native.nonEmpty) sb ++= s" (${native.distinct.mkString(", ")})"
    sb ++= "\n"
    if (dispatched.nonEmpty) {
      sb ++= s"  ${dispatched.size} expressions evaluated by the JVM for native operators: " +
        s"${dispatched.distinct.mkString(", ")}\n"
    }
    fallback.distinct.foreach(f => sb ++= s"  stays in Spark: $f\n")
    sb.toString
  }
}
