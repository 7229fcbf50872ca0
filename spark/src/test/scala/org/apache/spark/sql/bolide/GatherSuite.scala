package org.apache.spark.sql.bolide

import org.junit.Assert._
import org.junit.{Before, Test}

import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerStageSubmitted}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike

/**
 * Global aggregates (no GROUP BY) whose partial states are gathered to the driver (BolideGather)
 * instead of shuffled to one partition, Bolide off vs on: every fixed-width state type, empty
 * inputs and tables without files, one and many partitions, AQE on and off, distinct aggregates,
 * scalar subqueries; and the states that must keep the shuffle (strings, arrays, sketches).
 * Collected, the final block runs in the driver (BolideDriverCollect): one job per query, and an
 * error of the final step (an overflow) raised as Spark raises it.
 */
class GatherSuite extends BolideSuiteBase {
  private val Gather = "BolideGather"

  @Before def setUp(): Unit = TestData.ensure(spark)

  private def shuffles(df: DataFrame): Int =
    planNodes(df.queryExecution.executedPlan).count(_.isInstanceOf[ShuffleExchangeLike])

  /** Gathered with Bolide on, and no shuffle left in a plan that had only the global one. */
  private def gathered(sql: String, extra: Seq[String] = Nil): DataFrame = {
    val df = checkNative(sql, Seq(Gather, "BolideHashAggregate", "BolideHashAggregate") ++ extra)
    df
  }

  @Test def everyFixedWidthState(): Unit = {
    Seq(true, false).foreach { aqe =>
      withConf("spark.sql.adaptive.enabled" -> aqe.toString) {
        val df = gathered("SELECT count(*), count(str), sum(i), sum(l), sum(d), sum(dec), sum(wdec), " +
          "avg(i), avg(dec), avg(d), min(dt), max(ts), min(ntz), max(y), min(s), max(f), min(b), " +
          "max(ndec), stddev(d), var_pop(l), count_if(b), bool_and(b), bit_or(l), sum(ndec) FROM types")
        assertEquals(s"aqe=$aqe: no shuffle left\n${df.queryExecution.executedPlan}", 0, shuffles(df))
        gathered("SELECT sum(l * 3), avg(dec * dec), max(id) FROM types WHERE id % 7 = 3")
      }
    }
  }

  @Test def emptyInputs(): Unit = {
    // Every row filtered out: one partial state per partition, still one answer row.
    gathered("SELECT count(*), sum(l), avg(dec), min(dt) FROM types WHERE id < 0")
    // A table whose files hold no rows.
    checkNative("SELECT count(*), sum(l), max(dec) FROM empty", Seq("BolideHashAggregate"))
  }

  @Test def partitionCounts(): Unit = {
    // Many splits (small row groups), a single partition, and a repartitioned input.
    gathered("SELECT count(*), sum(id), max(id) FROM splits")
    withConf("spark.sql.files.maxPartitionBytes" -> "1g", "spark.sql.files.openCostInBytes" -> "1") {
      gathered("SELECT count(*), sum(l) FROM types")
    }
    gathered("SELECT count(*), sum(l) FROM (SELECT /*+ REPARTITION(13, g) */ * FROM types)",
      Seq("BolideShuffleExchange"))
  }

  @Test def distinctAndSubqueries(): Unit = {
    gathered("SELECT count(DISTINCT g), sum(l) FROM types")
    val df = checkNative("SELECT id, l FROM types WHERE l > (SELECT avg(l) FROM types WHERE id % 3 = 0)",
      Seq("BolideFilter"))
    val (native, _) = operatorReport(df)
    assertTrue(s"the subquery's aggregate gathered: ${native.mkString(", ")}", native.contains(Gather))
    // The result of a gathered aggregate read by a parent above (a projection of its columns).
    gathered("SELECT s + 1, c * 2 FROM (SELECT sum(l) AS s, count(*) AS c FROM types)")
  }

  @Test def growingStatesKeepTheShuffle(): Unit = {
    // Answers as Spark's, the scan native, and Spark's shuffle kept.
    Seq("SELECT min(str), count(*) FROM types", "SELECT sort_array(collect_list(id)) FROM types WHERE id < 40",
      "SELECT max(bin) FROM types").foreach { sql =>
      val df = checkNative(sql, Seq("BolideScan"))
      assertFalse(s"$sql: no gather for a state of unbounded width\n${df.queryExecution.executedPlan}",
        nativeOperators(df).contains(Gather))
    }
    checkNative("SELECT min(str), count(*) FROM types", Seq("BolideHashAggregate"))
  }

  @Test def switchedOff(): Unit = {
    withConf(BolideConf.GATHER_ENABLED.key -> "false") {
      val df = checkNative("SELECT count(*), sum(l) FROM types", Seq("BolideHashAggregate"))
      assertFalse(nativeOperators(df).contains(Gather))
      assertEquals(1, shuffles(df))
    }
  }

  /** The stages `body` ran. */
  private def stages(body: => Any): Int = {
    val n = new AtomicInteger()
    val l = new SparkListener {
      override def onStageSubmitted(e: SparkListenerStageSubmitted): Unit = n.incrementAndGet()
    }
    spark.sparkContext.listenerBus.waitUntilEmpty()
    spark.sparkContext.addSparkListener(l)
    try {
      body
      spark.sparkContext.listenerBus.waitUntilEmpty()
      n.get()
    } finally spark.sparkContext.removeSparkListener(l)
  }

  private def driverCollected(df: DataFrame): Boolean =
    planNodes(df.queryExecution.executedPlan).exists(_.isInstanceOf[BolideDriverCollectExec])

  @Test def finalBlockRunsInTheDriver(): Unit = {
    val sql = "SELECT sum(l), count(*), avg(dec) FROM types WHERE id % 5 = 1"
    Seq(true, false).foreach { aqe =>
      withConf("spark.sql.adaptive.enabled" -> aqe.toString) {
        val off = withConf("spark.bolide.enabled" -> "false") { stages(spark.sql(sql).collect()) }
        val df = gathered(sql)
        assertTrue(s"aqe=$aqe: final block collected in the driver\n${df.queryExecution.executedPlan}",
          driverCollected(df))
        // Spark runs the partial aggregates' stage and the final one's; with Bolide on only the
        // gather's runs.
        assertEquals(s"aqe=$aqe: stages of one collect with Bolide on", 1, stages(spark.sql(sql).collect()))
        assertEquals(s"aqe=$aqe: stages of one collect with Bolide off", 2, off)
      }
    }
    // Its metrics count the final aggregate's row.
    val df = spark.sql(sql)
    df.collect()
    val top = planNodes(df.queryExecution.executedPlan).collectFirst {
      case b: BolideExec if b.nodeName == "BolideHashAggregate" => b
    }.get
    assertEquals(1L, top.metrics("numOutputRows").value)
  }

  @Test def otherConsumersOfTheResult(): Unit = {
    val sql = "SELECT sum(l) AS s, count(*) AS c FROM types WHERE id % 4 = 0"
    val expected = withConf("spark.bolide.enabled" -> "false") { spark.sql(sql).collect().toSeq }
    // take/show (executeTake), the RDD of rows, and a parent operator in Spark above it.
    val taken = spark.sql(sql)
    assertEquals(expected, taken.take(5).toSeq)
    val viaRdd = spark.sql(sql)
    assertEquals(expected, viaRdd.rdd.collect().toSeq)
    val iterated = spark.sql(sql)
    assertEquals(expected.map(_.getLong(1)), iterated.toLocalIterator().asScala.map(_.getLong(1)).toSeq)
    Seq(taken, viaRdd, iterated).foreach { df =>
      val ran = nativeOperators(df)
      assertTrue(s"gathered natively: ${ran.mkString(", ")}",
        ran.contains(Gather) && ran.count(_ == "BolideHashAggregate") >= 2)
    }
    gathered(s"SELECT s, c, uuid() IS NOT NULL FROM ($sql)")
  }

  @Test def finalStepErrorsAsSpark(): Unit = {
    // Each partition's partial sum fits a long; the final merge overflows (ANSI): the error is
    // raised as Spark raises it.
    val sql = "SELECT sum(l) FROM (SELECT CAST(6000000000000000000 AS BIGINT) + id AS l FROM range(0, 2, 1, 2))"
    withConf("spark.sql.ansi.enabled" -> "true") {
      val plan = spark.sql(sql).queryExecution.executedPlan
      assertTrue(s"gathered:\n$plan", planNodes(plan).exists(_.isInstanceOf[BolideGatherExec]) ||
        plan.toString.contains("BolideGather"))
      val (off, on) = errorClassBothWays(sql)
      assertEquals(off, on)
      assertTrue(s"$off", off.exists(_.contains("ARITHMETIC_OVERFLOW")))
    }
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative(sql, Seq(Gather))
    }
  }
}
