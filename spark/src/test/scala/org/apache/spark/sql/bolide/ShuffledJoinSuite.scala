package org.apache.spark.sql.bolide

import org.junit.Assert._
import org.junit.{Before, Test}

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SortExec
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec
import org.apache.spark.sql.execution.joins.{ShuffledHashJoinExec, SortMergeJoinExec}

/**
 * Native shuffled joins, Bolide off vs on: Spark's ShuffledHashJoinExec (BolideShuffledHashJoin,
 * building the side Spark chose, outer build sides included) and SortMergeJoinExec
 * (BolideSortMergeJoin: a hash join streaming the side whose order Spark's plan relies on, the
 * build side's sort dropped). Every join type each strategy allows, forced with hints, with nulls
 * and duplicates in the keys, extra conditions, empty sides, skewed keys, and an operator above
 * that reads the sort-merge join's ordering.
 */
class ShuffledJoinSuite extends BolideSuiteBase {
  private val Shj = "BolideShuffledHashJoin"
  private val Smj = "BolideSortMergeJoin"

  @Before def setUp(): Unit = JoinSuite.ensure(spark)

  /** No broadcast, so that the hints (or Spark's defaults) pick a shuffled join, with AQE too. */
  private def shuffled[T](body: => T): T = withConf(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.adaptive.autoBroadcastJoinThreshold" -> "-1")(body)

  private val conditions = Seq(
    "l.k = r.k",
    "l.k = r.k AND l.s = r.s",
    "l.k = r.k AND l.v > r.w",
    "l.s = r.s AND l.d = r.d")

  private val outerTypes = Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN")

  /** No join of the strategy may be left in Spark. */
  private def assertNoSparkJoin(df: DataFrame): Unit = {
    val left = planNodes(df.queryExecution.executedPlan).filter {
      case _: SortMergeJoinExec | _: ShuffledHashJoinExec => true
      case _ => false
    }
    assertTrue(s"a join stayed in Spark:\n${df.queryExecution.executedPlan}\n${bolideReport(df)}", left.isEmpty)
  }

  @Test def sortMergeJoinsOfEveryType(): Unit = shuffled {
    for (c <- conditions; jt <- outerTypes) {
      assertNoSparkJoin(checkNative(s"SELECT /*+ MERGE(r) */ l.id, l.k, r.id, r.w FROM jl l $jt jr r ON $c", Seq(Smj)))
    }
    for (c <- conditions; jt <- Seq("LEFT SEMI JOIN", "LEFT ANTI JOIN")) {
      assertNoSparkJoin(checkNative(s"SELECT /*+ MERGE(r) */ l.id, l.s FROM jl l $jt jr r ON $c", Seq(Smj)))
    }
  }

  @Test def shuffledHashJoinsOfEveryTypeAndBuildSide(): Unit = shuffled {
    for (c <- conditions; jt <- outerTypes; side <- Seq("l", "r")) {
      val df = checkNative(s"SELECT /*+ SHUFFLE_HASH($side) */ l.id, l.v, r.id, r.s FROM jl l $jt jr r ON $c", Seq(Shj))
      assertNoSparkJoin(df)
    }
    for (c <- conditions; jt <- Seq("LEFT SEMI JOIN", "LEFT ANTI JOIN")) {
      assertNoSparkJoin(checkNative(s"SELECT /*+ SHUFFLE_HASH(r) */ l.id, l.s FROM jl l $jt jr r ON $c", Seq(Shj)))
    }
  }

  @Test def buildOuterSidesOutputUnmatchedRowsOnce(): Unit = shuffled {
    // Left outer building the left side and right outer building the right: every unmatched
    // build row (null keys included) exactly once, over several partitions.
    withConf("spark.sql.shuffle.partitions" -> "5") {
      checkNative("SELECT /*+ SHUFFLE_HASH(l) */ l.id, l.k, r.id FROM jl l LEFT JOIN jr r ON l.k = r.k", Seq(Shj))
      checkNative("SELECT /*+ SHUFFLE_HASH(r) */ l.id, r.id, r.k FROM jl l RIGHT JOIN jr r ON l.k = r.k AND l.v < r.w",
        Seq(Shj))
      checkNative("SELECT /*+ SHUFFLE_HASH(l) */ count(*), count(l.id), count(r.id) FROM jl l FULL JOIN jr r ON l.k = r.k",
        Seq(Shj))
    }
  }

  @Test def existenceAndNullSafeKeys(): Unit = shuffled {
    checkNative("SELECT id, v FROM jl WHERE k IN (SELECT k FROM jr WHERE w > 10) OR v > 2900", Seq(Smj))
    checkNative("SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k <=> r.k", Seq(Smj))
    checkNative("SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l FULL JOIN jr r ON l.f = r.f", Seq(Smj))
    checkNative("SELECT /*+ SHUFFLE_HASH(r) */ l.id, r.id FROM jl l LEFT JOIN jr r ON l.f = r.f AND l.k = r.k", Seq(Shj))
  }

  @Test def keyTypes(): Unit = shuffled {
    Seq("dec", "dt", "s", "b", "d").foreach { k =>
      checkNative(s"SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l JOIN jr r ON l.$k = r.$k", Seq(Smj))
      checkNative(s"SELECT /*+ SHUFFLE_HASH(l) */ l.id, r.id FROM jl l FULL JOIN jr r ON l.$k = r.$k", Seq(Shj))
    }
  }

  @Test def emptySides(): Unit = shuffled {
    // Without AQE, so that the join runs over its empty side instead of being replaced.
    withConf("spark.sql.adaptive.enabled" -> "false") {
      val emptyR = "(SELECT * FROM jr WHERE w < -1)"
      val emptyL = "(SELECT * FROM jl WHERE v < -1)"
      for (jt <- outerTypes) {
        checkNative(s"SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l $jt $emptyR r ON l.k = r.k", Seq(Smj))
        checkNative(s"SELECT /*+ MERGE(r) */ l.id, r.id FROM $emptyL l $jt jr r ON l.k = r.k", Seq(Smj))
        checkNative(s"SELECT /*+ SHUFFLE_HASH(l) */ l.id, r.id FROM $emptyL l $jt jr r ON l.k = r.k", Seq(Shj))
      }
      checkNative(s"SELECT /*+ MERGE(r) */ l.id FROM jl l LEFT ANTI JOIN $emptyR r ON l.k = r.k", Seq(Smj))
    }
  }

  @Test def buildSideSortIsNotRun(): Unit = shuffled {
    // Under a limit (whose rows depend on the order) the streamed side keeps its sort (the join's
    // order is its order); the build side's goes.
    //
    // The limit lies between the join's rows (10420: it keeps them all, so the answer does not
    // depend on the order) and the most rows AQE can prove the join has once its inputs ran (the
    // product of their rows, 2769 x 470): with a limit at or above that bound, AQE's
    // EliminateLimits drops the limit when both shuffle stages have finished by its first
    // re-optimization (a timing matter: Join.maxRows is computed once), the query no longer reads
    // its root's order, and the streamed sort rightly goes too.
    val limit = 100000
    val df = checkNative(s"SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k = r.k LIMIT $limit",
      Seq(Smj))
    val plan = df.queryExecution.executedPlan
    assertTrue(s"the limit is gone:\n$plan", planNodes(plan).exists(_.nodeName == "BolideCollectLimit"))
    val rows = df.collect().length
    assertTrue(s"the limit cut the join's $rows rows", rows < limit)
    val sorts = planNodes(plan).count(_.nodeName == "BolideSort")
    assertEquals(s"one sort under the join:\n$plan", 1, sorts)
    assertTrue(s"Spark sort left:\n$plan", !planNodes(plan).exists(_.isInstanceOf[SortExec]))
  }

  @Test def resultOfAQueryWithoutOrderIsNotSorted(): Unit = shuffled {
    // No ORDER BY, no LIMIT: nothing reads the order of the query's result, so neither side of the
    // join at its root is sorted.
    val df = checkNative("SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k = r.k", Seq(Smj))
    val plan = df.queryExecution.executedPlan
    assertEquals(s"sorts under the join:\n$plan", 0,
      planNodes(plan).count(p => p.nodeName == "BolideSort" || p.isInstanceOf[SortExec]))
  }

  @Test def unreadOrderIsNotMade(): Unit = shuffled {
    // Under an aggregate nothing reads the join's order: neither side is sorted.
    Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "LEFT SEMI JOIN").foreach { jt =>
      val cols = if (jt.contains("SEMI")) "l.k" else "l.k, r.s"
      val df = checkNative(s"SELECT /*+ MERGE(r) */ $cols, count(*) FROM jl l $jt jr r ON l.k = r.k GROUP BY $cols",
        Seq(Smj, "BolideHashAggregate"))
      val plan = df.queryExecution.executedPlan
      assertEquals(s"sorts under the join:\n$plan", 0,
        planNodes(plan).count(p => p.nodeName == "BolideSort" || p.isInstanceOf[SortExec]))
    }
  }

  @Test def operatorsAboveReadTheJoinsOrder(): Unit = shuffled {
    // A window over the join's keys needs no sort of its own (the join reports the order): the
    // native join must deliver it, or the window splits its partitions.
    checkNative("SELECT /*+ MERGE(r) */ l.k, count(*) OVER (PARTITION BY l.k) AS c, r.id FROM jl l JOIN jr r ON l.k = r.k",
      Seq(Smj))
    checkNative("SELECT /*+ MERGE(r) */ l.k, sum(l.v) OVER (PARTITION BY l.k) AS c FROM jl l LEFT JOIN jr r ON l.k = r.k",
      Seq(Smj))
    checkNative("SELECT /*+ MERGE(l) */ r.k, count(*) OVER (PARTITION BY r.k) AS c FROM jl l RIGHT JOIN jr r ON l.k = r.k",
      Seq(Smj))
    // Two merge joins on one key: the second reads the first's order without a sort.
    checkNative(
      """SELECT /*+ MERGE(r), MERGE(r2) */ l.id, r.id, r2.id
        |FROM jl l JOIN jr r ON l.k = r.k JOIN jr r2 ON l.k = r2.k AND r2.w > 500""".stripMargin, Seq(Smj, Smj))
  }

  @Test def skewedKeysSplitByAqe(): Unit = withConf(
    "spark.sql.adaptive.enabled" -> "true",
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.adaptive.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.adaptive.skewJoin.enabled" -> "true",
    "spark.sql.adaptive.skewJoin.skewedPartitionFactor" -> "1",
    "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes" -> "100",
    "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "100",
    "spark.sql.adaptive.coalescePartitions.enabled" -> "false",
    "spark.sql.shuffle.partitions" -> "4") {
    // The skewed side is the left one, which inner and left outer joins may split.
    for (jt <- Seq("JOIN", "LEFT JOIN")) {
      val df = checkNative(
        s"SELECT a.id, b.id FROM (SELECT id, if(id % 10 = 0, id, 0) AS k FROM jl) a " +
          s"$jt (SELECT id, if(id % 50 = 0, id, 0) AS k FROM jl WHERE id < 400) b ON a.k = b.k",
        Seq(Smj))
      val reads = planNodes(df.queryExecution.executedPlan).collect { case r: AQEShuffleReadExec => r }
      assertTrue(s"no skew split:\n${df.queryExecution.executedPlan}", reads.exists(_.hasSkewedPartition))
    }
  }

  @Test def explainShowsTheNativeJoins(): Unit = shuffled {
    val df = spark.sql("SELECT /*+ SHUFFLE_HASH(r) */ l.id, r.id FROM jl l FULL JOIN jr r ON l.k = r.k")
    df.collect()
    val plan = df.queryExecution.executedPlan.toString
    assertTrue(plan, plan.contains(Shj))
    val df2 = spark.sql("SELECT /*+ MERGE(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k = r.k")
    df2.collect()
    assertTrue(df2.queryExecution.executedPlan.toString, df2.queryExecution.executedPlan.toString.contains(Smj))
  }
}
