package org.apache.spark.sql.bolide

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.text.NumberFormat
import java.util.Locale

import org.junit.Assert._
import org.junit.{Before, Test}

import org.apache.spark.sql.{classic, DataFrame}
import org.apache.spark.sql.bolide.tpch.TpchSuite
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, SortMergeJoinExec}
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * Every native operator of a block reports its own SQL metrics (rows, batches, own time), not
 * only the block's top: each Bolide node's numOutputRows must equal what Spark's own operator
 * reports for the same query with Bolide off, and every operator that did work must have taken
 * some time. Expected counts are also checked against the data, so all-zero metrics on both
 * sides cannot pass.
 */
class MetricsSuite extends BolideSuiteBase {
  @Before def setUp(): Unit = TestData.ensure(spark)

  /** The final plan's nodes of `sql` run with Bolide off. */
  private def sparkNodes(sql: String): Seq[SparkPlan] = withConf("spark.bolide.enabled" -> "false") {
    val df = spark.sql(sql)
    df.collect()
    planNodes(df.queryExecution.executedPlan)
  }

  /** The final plan's nodes of a query checkNative ran (once: a second run would add up twice). */
  private def nodes(df: DataFrame): Seq[SparkPlan] = planNodes(df.queryExecution.executedPlan)

  private def value(p: SparkPlan, metric: String): Long = p.metrics(metric).value

  private def rows(nodes: Seq[SparkPlan], name: String): Seq[Long] =
    nodes.filter(_.nodeName == name).map(value(_, "numOutputRows")).sorted

  /** The native blocks of a plan: each top BolideExec with the BolideExec nodes under it. */
  private def blocks(nodes: Seq[SparkPlan]): Seq[(BolideExec, Seq[BolideExec])] = {
    def members(b: BolideExec): Seq[BolideExec] =
      b +: b.children.collect { case c: BolideExec => members(c) }.flatten
    val inner = nodes.flatMap {
      case b: BolideExec => b.children.collect { case c: BolideExec => c }
      case _ => Nil
    }.toSet
    nodes.collect { case b: BolideExec if !inner.contains(b) => b -> members(b) }
  }

  /**
   * Every native operator that returned rows has batches and some own time, and no block's
   * operators took more time than the task waited for the block (which they would if each
   * counted its children's time).
   */
  private def checkTimes(nodes: Seq[SparkPlan]): Unit = {
    val native = nodes.collect { case b: BolideExec => b }
    assertTrue("no native operators", native.nonEmpty)
    // Shown with every failure: what each operator reported.
    val table = native.map { b =>
      f"  ${b.nodeName}%-28s rows ${value(b, "numOutputRows")}%7d batches ${value(b, "numOutputBatches")}%4d " +
        f"own ${value(b, "operatorTime") / 1000}%8d us block ${value(b, "nativeTime") / 1000}%8d us"
    }.mkString("\nnative operator metrics:\n", "\n", "")
    native.foreach { b =>
      if (value(b, "numOutputRows") > 0) {
        assertTrue(s"${b.nodeName} returned rows in no batch$table", value(b, "numOutputBatches") > 0)
        assertTrue(s"${b.nodeName} took no time$table", value(b, "operatorTime") > 0)
      }
    }
    blocks(nodes).foreach { case (top, ops) =>
      val block = value(top, "nativeTime")
      val own = ops.map(value(_, "operatorTime")).sum
      if (ops.exists(value(_, "numOutputRows") > 0)) {
        assertTrue(s"${top.nodeName}'s block took no time$table", block > 0)
      }
      assertTrue(s"operators of ${top.nodeName}'s block (${ops.map(_.nodeName).mkString(", ")}) " +
        s"took $own ns, more than the block's $block ns$table", own <= block)
    }
  }

  @Test def scanFilterProjectAggregateShuffle(): Unit = {
    // Scan -> filter -> project -> partial aggregate, native shuffle, final aggregate.
    val sql = "SELECT g, count(*), sum(l) FROM types WHERE id % 3 = 0 GROUP BY g"
    val off = sparkNodes(sql)
    val df = checkNative(sql,
      Seq("BolideScan", "BolideFilter", "BolideProject", "BolideHashAggregate", "BolideHashAggregate",
        "BolideShuffleExchange"))
    val on = nodes(df)

    val scanned = off.collect { case s: FileSourceScanExec => value(s, "numOutputRows") }
    assertEquals(Seq(2000L), scanned)
    assertEquals(scanned, rows(on, "BolideScan"))
    val filtered = off.collect { case f: FilterExec => value(f, "numOutputRows") }
    assertEquals(Seq(667L), filtered)
    assertEquals(filtered, rows(on, "BolideFilter"))
    // Spark's ProjectExec counts nothing; the native one returns what the filter let through.
    assertEquals(filtered, rows(on, "BolideProject"))
    // Partial (one row per group per map task) and final (one per group).
    val aggregated = off.collect { case a: HashAggregateExec => value(a, "numOutputRows") }.sorted
    assertEquals(2, aggregated.size)
    assertEquals(5L, aggregated.head)
    assertTrue(s"partial aggregate rows $aggregated", aggregated(1) >= 5)
    assertEquals(aggregated, rows(on, "BolideHashAggregate"))
    checkTimes(on)
  }

  /**
   * The values the Spark UI's SQL tab shows for `metric` (from the same status store, which exists
   * with the UI off too), once the listener has seen every task of the query.
   */
  private def uiValue(metric: SQLMetric): Option[String] = {
    spark.sparkContext.listenerBus.waitUntilEmpty()
    val store = spark.asInstanceOf[classic.SparkSession].sharedState.statusStore
    store.executionsList().reverseIterator.find(_.metrics.exists(_.accumulatorId == metric.id))
      .flatMap(e => store.executionMetrics(e.executionId).get(metric.id))
  }

  @Test def shownInTheSqlTab(): Unit = {
    val df = checkNative("SELECT g, count(*) FROM types WHERE id % 3 = 0 GROUP BY g",
      Seq("BolideScan", "BolideFilter", "BolideHashAggregate"))
    val native = nodes(df).collect { case b: BolideExec => b }
    native.foreach { b =>
      val rows = b.metrics("numOutputRows")
      assertEquals(s"${b.nodeName}'s rows in the SQL tab", Some(NumberFormat.getIntegerInstance(Locale.US)
        .format(rows.value)), uiValue(rows))
      assertTrue(s"${b.nodeName}'s own time in the SQL tab", uiValue(b.metrics("operatorTime")).isDefined)
    }
    assertEquals(Seq(667L), rows(nodes(df), "BolideFilter"))
  }

  @Test def broadcastJoin(): Unit = {
    // 1000 probe rows, 200 per key g, each meeting the 10 build rows of its key: 10000 rows.
    val sql = "SELECT a.id, b.id, b.str FROM types a JOIN (SELECT * FROM types WHERE id < 50) b " +
      "ON a.g = b.g WHERE a.id < 1000"
    val off = sparkNodes(sql)
    val df = checkNative(sql, Seq("BolideBroadcastHashJoin", "BolideBroadcastExchange", "BolideFilter"))
    val on = nodes(df)

    val joined = off.collect { case j: BroadcastHashJoinExec => value(j, "numOutputRows") }
    assertEquals(Seq(10000L), joined)
    assertEquals(joined, rows(on, "BolideBroadcastHashJoin"))
    val filtered = off.collect { case f: FilterExec => value(f, "numOutputRows") }.sorted
    assertEquals(Seq(50L, 1000L), filtered)
    assertEquals(filtered, rows(on, "BolideFilter"))
    // Both engines skip row groups by the pushed filters, perhaps not the same ones: the scans
    // read at least what passes.
    rows(on, "BolideScan").zip(filtered).foreach { case (scan, kept) =>
      assertTrue(s"scanned $scan rows, kept $kept", scan >= kept)
    }
    checkTimes(on)
  }

  @Test def sortMergeJoin(): Unit = withConf(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.adaptive.autoBroadcastJoinThreshold" -> "-1") {
    // The join above as a sort-merge join: shuffles on both sides, the join native as a hash join.
    val sql = "SELECT /*+ MERGE(b) */ a.id, b.id, b.str FROM types a JOIN (SELECT * FROM types WHERE id < 50) b " +
      "ON a.g = b.g WHERE a.id < 1000"
    val off = sparkNodes(sql)
    val df = checkNative(sql, Seq("BolideSortMergeJoin", "BolideShuffleExchange", "BolideShuffleExchange"))
    val on = nodes(df)

    val joined = off.collect { case j: SortMergeJoinExec => value(j, "numOutputRows") }
    assertEquals(Seq(10000L), joined)
    assertEquals(joined, rows(on, "BolideSortMergeJoin"))
    val filtered = off.collect { case f: FilterExec => value(f, "numOutputRows") }.sorted
    assertEquals(Seq(50L, 1000L), filtered)
    assertEquals(filtered, rows(on, "BolideFilter"))
    checkTimes(on)
  }

  @Test def tpchTimesAddUp(): Unit = {
    // Blocks of every shape: joins, aggregates, sorts, top-k, subqueries, several per stage.
    TpchSuite.ensureTables(spark, "parquet")
    Seq(1, 3, 5, 13, 18).foreach { n =>
      val sql = new String(Files.readAllBytes(
        new File(GeneratedData.repoRoot, s"tpch/queries/q$n.sql").toPath), StandardCharsets.UTF_8)
      val df = spark.sql(sql)
      df.collect()
      checkTimes(nodes(df))
      if (n == 1) {
        // The same counts as Spark's, which include the final aggregate's second run: the range
        // exchange of the ORDER BY samples its input with a job of its own, in both engines.
        val off = sparkNodes(sql)
        val filtered = off.collect { case f: FilterExec => value(f, "numOutputRows") }
        assertEquals(Seq(59307L), filtered)
        assertEquals(filtered, rows(nodes(df), "BolideFilter"))
        val aggregated = off.collect { case a: HashAggregateExec => value(a, "numOutputRows") }.sorted
        assertTrue(s"aggregate rows $aggregated", aggregated.size == 2 && aggregated.head >= 4)
        assertEquals(aggregated, rows(nodes(df), "BolideHashAggregate"))
      }
    }
  }

  @Test def blockTopKeepsItsRowCount(): Unit = {
    // A one-block query whose top returns the answer: its rows are the answer's.
    val df = checkNative("SELECT id, l FROM types WHERE g = 1 AND id < 500", Seq("BolideFilter"))
    val on = nodes(df)
    val top = blocks(on).map(_._1)
    assertEquals(1, top.size)
    assertEquals(100L, value(top.head, "numOutputRows"))
    checkTimes(on)
  }
}
