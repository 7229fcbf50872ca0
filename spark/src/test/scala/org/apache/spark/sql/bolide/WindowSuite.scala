package org.apache.spark.sql.bolide

import org.junit.Assert.{assertFalse, assertTrue}
import org.junit.{Before, Test}

/**
 * Native window functions (BolideWindow), Bolide off vs on: ranking functions and lag/lead over
 * many small partitions, one big partition, ties, nulls, NaN and -0.0 in the keys, decimals and
 * strings; TPC-DS-like shapes; and windows the engine refuses, which stay in Spark and still answer.
 * Functions that depend on the order of ties (row_number, lag, lead, ntile) get a total order.
 */
class WindowSuite extends BolideSuiteBase {
  private val Window = "BolideWindow"

  @Before def setUp(): Unit = {
    TestData.ensure(spark)
    WindowSuite.ensure(spark)
  }

  private val ranks = "rank() OVER w AS rk, dense_rank() OVER w AS dr, percent_rank() OVER w AS pr, " +
    "cume_dist() OVER w AS cd"

  @Test def rankingOverSmallPartitions(): Unit = {
    Seq("x", "dec", "str", "k", "x DESC NULLS LAST, str").foreach { o =>
      checkNative(s"SELECT id, p, x, dec, str, k, $ranks FROM win WINDOW w AS (PARTITION BY p ORDER BY $o)", Seq(Window))
      checkNative(s"SELECT id, p, row_number() OVER (PARTITION BY p ORDER BY $o, id) AS rn, " +
        s"ntile(4) OVER (PARTITION BY p ORDER BY $o, id) AS nt FROM win", Seq(Window))
    }
  }

  @Test def rankingOverOneBigPartition(): Unit = {
    checkNative(s"SELECT id, x, $ranks FROM win WINDOW w AS (ORDER BY x)", Seq(Window))
    checkNative("SELECT id, row_number() OVER (ORDER BY k DESC, id) AS rn, ntile(7) OVER (ORDER BY k DESC, id) AS nt " +
      "FROM win", Seq(Window))
    checkNative(s"SELECT id, $ranks FROM win WINDOW w AS (PARTITION BY one ORDER BY str NULLS LAST)", Seq(Window))
  }

  @Test def floatingPartitionKeys(): Unit = {
    // NaN equals NaN and -0.0 equals 0.0 in partition keys and among peers.
    checkNative(s"SELECT id, x, $ranks, row_number() OVER (PARTITION BY x ORDER BY id) AS rn FROM win " +
      "WINDOW w AS (PARTITION BY x ORDER BY k)", Seq(Window))
    checkNative(s"SELECT id, $ranks FROM win WINDOW w AS (PARTITION BY dec, str ORDER BY x)", Seq(Window))
  }

  @Test def lagAndLead(): Unit = {
    checkNative("SELECT id, lag(str) OVER w AS a, lead(x, 2) OVER w AS b, lag(dec, 3, 0.5) OVER w AS c, " +
      "lead(id, 1, -1) OVER w AS d, lag(k + 1, 5) OVER w AS e FROM win WINDOW w AS (PARTITION BY p ORDER BY k, id)",
      Seq(Window))
    checkNative("SELECT id, lag(str, 100, 'none') OVER w AS a, lead(x, 1000) OVER w AS b FROM win " +
      "WINDOW w AS (ORDER BY id)", Seq(Window))
  }

  @Test def tpcdsLikeShapes(): Unit = {
    // Rank then filter on the rank (Spark may add a WindowGroupLimit below the window).
    checkNative("SELECT * FROM (SELECT p, id, k, rank() OVER (PARTITION BY p ORDER BY k DESC) AS rk FROM win) " +
      "WHERE rk <= 3", Seq(Window))
    // Ranks over an aggregate.
    checkNative("SELECT g, s, rank() OVER (ORDER BY s DESC) AS rk, dense_rank() OVER (PARTITION BY g % 2 ORDER BY s) " +
      "AS dr FROM (SELECT g, sum(l) AS s FROM types GROUP BY g)", Seq(Window, "BolideHashAggregate"))
    // Two windows with different specs stacked.
    checkNative("SELECT id, rank() OVER (PARTITION BY p ORDER BY k) AS a, row_number() OVER (ORDER BY str, id) AS b " +
      "FROM win", Seq(Window, Window))
  }

  @Test def aggregatesOverFrames(): Unit = {
    // Running (RANGE by default with ORDER BY: peers share the value), ROWS running, whole partition.
    checkNative("SELECT id, sum(k) OVER (PARTITION BY p ORDER BY k) AS a, avg(x) OVER (PARTITION BY p ORDER BY k) AS b, " +
      "count(str) OVER (PARTITION BY p ORDER BY k) AS c, count(*) OVER (PARTITION BY p ORDER BY k) AS d, " +
      "min(k) OVER (PARTITION BY p ORDER BY k) AS e, max(cast(k as int)) OVER (PARTITION BY p ORDER BY k) AS f FROM win",
      Seq(Window))
    checkNative("SELECT id, sum(x) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a, " +
      "avg(k) OVER (PARTITION BY p ORDER BY id ROWS UNBOUNDED PRECEDING) AS b FROM win", Seq(Window))
    checkNative("SELECT id, p, sum(x) OVER (PARTITION BY p) AS a, avg(k) OVER (PARTITION BY p) AS b, " +
      "max(k) OVER (PARTITION BY p) AS c, count(x) OVER (PARTITION BY p) AS d FROM win", Seq(Window))
    // One big partition, doubles added in row order (a total order makes the order Spark's).
    checkNative("SELECT id, sum(x) OVER (ORDER BY k, id) AS a, sum(x) OVER () AS b, " +
      "sum(cast(x * 1e15 as double)) OVER (ORDER BY str, id) AS c FROM win", Seq(Window))
    // TPC-DS-like: running sum of an aggregate, ratio to the partition total.
    checkNative("SELECT g, i, s, sum(s) OVER (PARTITION BY g ORDER BY i ROWS UNBOUNDED PRECEDING) AS run, " +
      "s / sum(s) OVER (PARTITION BY g) AS ratio FROM (SELECT g, i, sum(l) AS s FROM types GROUP BY g, i)",
      Seq(Window))
  }

  @Test def refusedWindowsFallBack(): Unit = {
    // A bounded frame is not native yet: the window stays in Spark and answers.
    val df = checkNative("SELECT id, sum(k) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) " +
      "AS s FROM win", Seq.empty)
    assertFalse(nativeOperators(df).contains(Window))
    assertTrue(bolideReport(df), bolideReport(df).contains("not supported natively"))
    // IGNORE NULLS.
    val df2 = checkNative("SELECT id, lag(str) IGNORE NULLS OVER (PARTITION BY p ORDER BY id) AS s FROM win", Seq.empty)
    assertFalse(nativeOperators(df2).contains(Window))
    withConf("spark.bolide.exec.window.enabled" -> "false") {
      val df3 = checkNative("SELECT id, rank() OVER (ORDER BY k) AS r FROM win", Seq.empty)
      assertFalse(nativeOperators(df3).contains(Window))
    }
  }
}

object WindowSuite {
  private var done = false

  /** win: 5000 rows, ~300 small partitions p, one value of one, keys with nulls, ties, NaN, -0.0. */
  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 5000, 1, 3).selectExpr(
      "id",
      "cast(id * 7919 % 300 as int) as p",
      "1 as one",
      "if(id % 17 = 0, null, cast(id * 31 % 23 as bigint)) as k",
      "CASE id % 9 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 WHEN 3 THEN NULL " +
        "ELSE cast(id % 13 as double) / 4 END as x",
      "if(id % 11 = 0, null, cast(id % 19 / 3.0 as decimal(10,2))) as dec",
      "if(id % 13 = 0, null, concat('s', cast(id % 29 as string))) as str"
    ).write.mode("overwrite").parquet(TestData.path("win"))
    spark.read.parquet(TestData.path("win")).createOrReplaceTempView("win")
  }
}
