package org.apache.spark.sql.bolide

import java.util.concurrent.atomic.AtomicLong

import org.junit.Test
import org.junit.Assert._

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * A 16 MiB off-heap pool, far below what a high-cardinality GROUP BY over 5 million rows holds:
 * Spark spills and answers; so must Bolide, with the same answer, its native hash aggregate
 * spilling (the task's spill metrics and the operator's "spill size" say so). Runs in its own JVM
 * (surefire forks per test class), with its own session.
 */
class SpillSuite {
  import SpillSuite.spark

  private val rows = 5000000L
  private val groups = 2500000L

  /** An order-independent digest of every output row, so that 2.5M groups need not be collected. */
  private def digest(grouped: DataFrame): Seq[String] =
    grouped.selectExpr(Digest: _*).collect().map(_.toString).toSeq

  private def query(): DataFrame = {
    val base = spark.range(0, rows, 1, 2)
      .selectExpr(s"id % $groups as k", "id as v", "cast(id as decimal(12,2)) / 4 as d")
    base.createOrReplaceTempView("t")
    spark.sql("SELECT k, sum(v) AS s, count(*) AS c, min(v) AS mn, max(v) AS mx, sum(d) AS sd, " +
      "avg(v) AS av FROM t GROUP BY k")
  }

  // Sums that cannot overflow a long over 2.5M rows (ANSI mode would fail the query).
  private val Digest = Seq("count(*)", "sum(cast(hash(*) as bigint))", "sum(xxhash64(*) % 1000000007)")

  private def nodes(p: SparkPlan): Seq[SparkPlan] = p match {
    case a: AdaptiveSparkPlanExec => nodes(a.executedPlan)
    case q: QueryStageExec => nodes(q.plan)
    case other => other +: other.children.flatMap(nodes)
  }

  @Test def highCardinalityGroupBySpillsAndAnswersAsSpark(): Unit = {
    spark.conf.set("spark.bolide.enabled", "false")
    val t0 = System.nanoTime()
    val expected = digest(query())
    val t1 = System.nanoTime()

    spark.conf.set("spark.bolide.enabled", "true")
    val memSpilled = new AtomicLong
    val diskSpilled = new AtomicLong
    val listener = new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit = if (e.taskMetrics != null) {
        memSpilled.addAndGet(e.taskMetrics.memoryBytesSpilled)
        diskSpilled.addAndGet(e.taskMetrics.diskBytesSpilled)
      }
    }
    spark.sparkContext.addSparkListener(listener)
    val q = query()
    val d = q.selectExpr(Digest: _*)
    val actual = try d.collect().map(_.toString).toSeq finally {
      spark.sparkContext.listenerBus.waitUntilEmpty()
      spark.sparkContext.removeSparkListener(listener)
    }
    System.err.println(f"SpillSuite: Spark ${(t1 - t0) / 1e9}%.1f s, Bolide ${(System.nanoTime() - t1) / 1e9}%.1f s, " +
      s"spilled ${memSpilled.get} bytes (memory), ${diskSpilled.get} (disk)")
    assertEquals(expected, actual)
    assertTrue(s"expected $groups groups: $expected", expected.head.startsWith(s"[$groups,"))

    val aggs = nodes(d.queryExecution.executedPlan).filter(_.nodeName == "BolideHashAggregate")
    assertTrue(s"no BolideHashAggregate in\n${d.queryExecution.executedPlan}", aggs.nonEmpty)
    val spillSize = aggs.flatMap(_.metrics.get("spillSize")).map(_.value).sum
    assertTrue(s"BolideHashAggregate spill size $spillSize", spillSize > 0)
    assertTrue(s"memory bytes spilled $memSpilled", memSpilled.get > 0)
    assertTrue(s"disk bytes spilled $diskSpilled", diskSpilled.get > 0)
  }
}

object SpillSuite {
  lazy val spark: SparkSession = {
    val s = SparkSession.builder()
      .master("local[2]")
      .appName("bolide-spill")
      .config("spark.plugins", BolideConf.PluginClass)
      // Spark's shuffle: the native shuffle writer does not spill yet, and it reserves from the
      // same task share as the partial aggregate before it (issue 9).
      .config("spark.memory.offHeap.enabled", "true")
      .config("spark.memory.offHeap.size", "16m")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.adaptive.enabled", "false")
      .config("spark.ui.enabled", "false")
      .config("spark.driver.host", "127.0.0.1")
      .getOrCreate()
    s.sparkContext.setLogLevel("WARN")
    s
  }
}
