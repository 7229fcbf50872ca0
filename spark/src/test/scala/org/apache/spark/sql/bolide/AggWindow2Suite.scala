package org.apache.spark.sql.bolide

import org.junit.Assert.{assertFalse, assertTrue}
import org.junit.{Before, Test}

/**
 * first_value, last_value and nth_value over window frames (BolideWindow), Bolide off vs on, over
 * a Parquet table with nulls, NaN, -0.0, multi-byte strings, dates, timestamps and decimals:
 * every frame that starts at the partition's first row (RANGE by default with ORDER BY,
 * ROWS running, whole partition), with and without IGNORE NULLS; and frames the engine refuses,
 * which stay in Spark and answer. The order keys are total where the pick depends on ties.
 * Also percentile_approx (BolideHashAggregate) and to_csv (BolideProject) over the same data.
 */
class AggWindow2Suite extends BolideSuiteBase {
  private val Window = "BolideWindow"

  @Before def setUp(): Unit = AggWindow2Suite.ensure(spark)

  private val cols = Seq("i", "x", "s", "d", "ts", "dec")

  @Test def picksOverTheDefaultRangeFrame(): Unit = {
    // ORDER BY k (ties): the frame runs to the last peer. The values picked are functions of k, so
    // the order of the rows among peers (not fixed) cannot change the answer.
    val ofK = Seq("k", "k * 1.5", "if(k % 3 = 0, null, concat('é日', k))", "date_add(date'2020-02-28', cast(k as int))",
      "cast(k / 7 as decimal(10, 3))")
    val tied = ofK.zipWithIndex.map { case (c, j) => s"first_value($c) OVER w AS f$j, last_value($c) OVER w AS l$j, " +
      s"nth_value($c, 2) OVER w AS n$j, first_value($c) IGNORE NULLS OVER w AS fi$j, last_value($c, true) OVER w AS li$j, " +
      s"nth_value($c, 3) IGNORE NULLS OVER w AS ni$j" }.mkString(", ")
    checkNative(s"SELECT id, $tied FROM aw2 WINDOW w AS (PARTITION BY p ORDER BY k)", Seq(Window))
    // A total order: every column, as it is.
    val picks = cols.map(c => s"first_value($c) OVER w AS f_$c, last_value($c) OVER w AS l_$c, " +
      s"nth_value($c, 2) OVER w AS n_$c, first_value($c) IGNORE NULLS OVER w AS fi_$c, " +
      s"last_value($c, true) OVER w AS li_$c, nth_value($c, 3) IGNORE NULLS OVER w AS ni_$c").mkString(", ")
    checkNative(s"SELECT id, $picks FROM aw2 WINDOW w AS (PARTITION BY p ORDER BY k, id)", Seq(Window))
  }

  @Test def picksOverRowsFrames(): Unit = {
    // first_value over ROWS from UNBOUNDED PRECEDING: Spark rewrites it to nth_value(_, 1).
    val picks = cols.map(c => s"first_value($c) OVER w AS f_$c, last_value($c) IGNORE NULLS OVER w AS l_$c, " +
      s"nth_value($c, 4) OVER w AS n_$c, nth_value($c, 2) IGNORE NULLS OVER w AS m_$c").mkString(", ")
    checkNative(s"SELECT id, $picks FROM aw2 WINDOW w AS (PARTITION BY p ORDER BY k, id " +
      "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", Seq(Window))
    checkNative(s"SELECT id, $picks FROM aw2 WINDOW w AS (PARTITION BY p ORDER BY k, id " +
      "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)", Seq(Window))
  }

  @Test def picksOverTheWholePartition(): Unit = {
    checkNative("SELECT id, p, nth_value(s, 1000) OVER (PARTITION BY p ORDER BY id RANGE BETWEEN UNBOUNDED " +
      "PRECEDING AND UNBOUNDED FOLLOWING) AS a, last_value(x) OVER (PARTITION BY p ORDER BY id RANGE BETWEEN " +
      "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS b, nth_value(dec, 5, true) OVER (PARTITION BY p ORDER BY id " +
      "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS c FROM aw2", Seq(Window))
    // One big partition, with other window functions alongside.
    checkNative("SELECT id, nth_value(s, 7) OVER (ORDER BY k, id) AS a, last_value(ts, true) OVER (ORDER BY k, id) AS b, " +
      "first_value(x) IGNORE NULLS OVER (ORDER BY k, id) AS c, row_number() OVER (ORDER BY k, id) AS rn, " +
      "sum(i) OVER (ORDER BY k, id) AS sm FROM aw2", Seq(Window))
  }

  @Test def refusedPicksFallBack(): Unit = {
    // A bounded frame is not native: the window stays in Spark and answers.
    val df = checkNative("SELECT id, nth_value(s, 2) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 2 PRECEDING AND " +
      "1 FOLLOWING) AS a FROM aw2", Seq.empty)
    assertFalse(nativeOperators(df).contains(Window))
    assertTrue(bolideReport(df), bolideReport(df).contains("not supported natively"))
    val df2 = checkNative("SELECT id, last_value(s) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN CURRENT ROW AND " +
      "UNBOUNDED FOLLOWING) AS a FROM aw2", Seq.empty)
    assertFalse(nativeOperators(df2).contains(Window))
  }

  private val Agg = "BolideHashAggregate"

  @Test def approxPercentileOverOnePartition(): Unit = {
    // One partition: the digest is built from the same sequence of values both ways.
    val exprs = Seq("i", "x", "k", "cast(i % 100 as tinyint)", "cast(i as smallint)", "cast(x as float)", "d", "ts", "dec")
    exprs.foreach { e =>
      checkNative(s"SELECT percentile_approx($e, 0.5), approx_percentile($e, 0.25, 100), " +
        s"percentile_approx($e, 0.99, 10), percentile_approx($e, 0.0), percentile_approx($e, 1.0) " +
        "FROM aw2_one", Seq(Agg))
    }
    // No rows, only nulls.
    checkNative("SELECT percentile_approx(i, 0.5), percentile_approx(x, 0.3, 50) FROM aw2_one WHERE id < 0", Seq(Agg))
    checkNative("SELECT percentile_approx(i, 0.5) FROM aw2_one WHERE i IS NULL", Seq(Agg))
  }

  @Test def approxPercentileOverManyValues(): Unit = {
    // 150000 values in one partition: the head buffer flushes at 50000 and the summary compresses.
    checkNative("SELECT percentile_approx(v, 0.5), percentile_approx(v, 0.1, 1000), percentile_approx(v, 0.999, 100000), " +
      "percentile_approx(w, 0.7, 500) FROM aw2_big", Seq(Agg))
  }

  @Test def approxPercentileMergesPartialDigests(): Unit = {
    // Three partial digests, merged in the final aggregate.
    checkNative("SELECT percentile_approx(i, 0.5, 1000), percentile_approx(x, 0.9), percentile_approx(ts, 0.3) FROM aw2",
      Seq(Agg))
  }

  @Test def approxPercentileDigestsCrossTheBoundary(): Unit = {
    // Spark's partial digests merged natively: cos is not native, so without dispatch the partial
    // aggregate stays in Spark and the final one reads its bytes.
    withoutDispatch {
      val df = checkNative("SELECT percentile_approx(cos(v), 0.5), percentile_approx(cos(w), 0.2, 100) FROM aw2_big",
        Seq(Agg))
      assertTrue(bolideReport(df), nativeOperators(df).count(_ == Agg) == 1)
    }
    // Native partial digests merged by Spark: the final aggregate's result (cos) is not native.
    val df2 = checkNative("SELECT cos(percentile_approx(v, 0.5)), cos(percentile_approx(w, 0.9, 1000)) FROM aw2_big",
      Seq(Agg))
    assertTrue(bolideReport(df2), nativeOperators(df2).count(_ == Agg) == 1)
  }

  @Test def refusedApproxPercentileFallsBack(): Unit = {
    // With grouping keys the aggregate stays in Spark and answers.
    val df = checkNative("SELECT p, percentile_approx(i, 0.5) FROM aw2 GROUP BY p", Seq.empty)
    assertTrue(bolideReport(df), bolideReport(df).contains("percentile_approx with grouping keys"))
    // An array of percentages.
    val df2 = checkNative("SELECT percentile_approx(i, array(0.1, 0.5)) FROM aw2_one", Seq.empty)
    assertTrue(bolideReport(df2), bolideReport(df2).contains("array of percentages"))
  }

  @Test def toCsvOfStructs(): Unit = {
    checkNative("SELECT id, to_csv(named_struct('a', i, 'b', k, 'c', dec, 'd', id % 3 = 0, 'e', cast(i % 100 as tinyint), " +
      "'f', cast(i as smallint), 'g', cast(k as decimal(18, 6)))) AS c FROM aw2", Seq("BolideProject"))
    // One non-null field; two fields, both null in places.
    checkNative("SELECT id, to_csv(named_struct('a', coalesce(i, -1))) AS a, " +
      "to_csv(named_struct('x', k, 'y', i)) AS b, to_csv(struct(coalesce(dec, 0.5))) AS c FROM aw2",
      Seq("BolideProject"))
  }

  @Test def refusedToCsvFallsBack(): Unit = withoutDispatch {
    val df = checkNative("SELECT id, to_csv(named_struct('a', s, 'b', i)) AS c FROM aw2", Seq.empty)
    assertFalse(nativeOperators(df).contains("BolideProject"))
    assertTrue(bolideReport(df), bolideReport(df).contains("to_csv of a string field"))
    val df2 = checkNative("SELECT id, to_csv(named_struct('a', coalesce(i, 0)), map('sep', ';')) AS c FROM aw2", Seq.empty)
    assertTrue(bolideReport(df2), bolideReport(df2).contains("to_csv with options"))
  }
}

object AggWindow2Suite {
  private var done = false

  /** aw2: 4000 rows in ~150 partitions p (one of them large), order key k with ties and nulls. */
  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 4000, 1, 3).selectExpr(
      "id",
      "if(id % 5 = 0, 0, cast(id * 7919 % 150 as int)) as p",
      "if(id % 19 = 0, null, cast(id * 31 % 17 as bigint)) as k",
      "if(id % 3 = 0, null, cast(id % 1000 - 500 as int)) as i",
      "CASE id % 9 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 WHEN 3 THEN NULL " +
        "ELSE cast(id % 13 as double) / 4 END as x",
      "CASE id % 7 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN concat('é日', cast(id as string)) " +
        "ELSE concat('s', cast(id % 29 as string)) END as s",
      "if(id % 4 = 0, null, date_add(date'2020-02-28', cast(id % 400 as int))) as d",
      "if(id % 6 = 0, null, timestamp'2021-03-14 01:59:59.123456' + make_interval(0, 0, 0, 0, 0, 0, id * 37)) as ts",
      "if(id % 11 = 0, null, cast(id % 19 / 3.0 as decimal(10,2))) as dec"
    ).write.mode("overwrite").parquet(TestData.path("aw2"))
    spark.read.parquet(TestData.path("aw2")).createOrReplaceTempView("aw2")
    spark.read.parquet(TestData.path("aw2")).coalesce(1).createOrReplaceTempView("aw2_one")
    spark.range(0, 150000, 1, 1).selectExpr(
      "if(id % 101 = 0, null, cast((id * 7919) % 100003 as double) / 7 - 5000) as v",
      "cast(id * 31 % 977 as bigint) as w"
    ).coalesce(1).write.mode("overwrite").parquet(TestData.path("aw2_big"))
    spark.read.parquet(TestData.path("aw2_big")).coalesce(1).createOrReplaceTempView("aw2_big")
  }
}
