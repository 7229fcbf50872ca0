package org.apache.spark.sql.bolide

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.junit.Assert._
import org.junit.{Before, Test}

/**
 * Aggregate functions with non-trivial buffers, Bolide off vs on, over a table of its own (nulls,
 * NaN, -0.0 and 0.0, multibyte strings, narrow and wide decimals, dates, timestamps, few and many
 * groups): approx_count_distinct (HLL++, whose buffer words Spark's Final may read from the
 * engine's Partial and the other way round, which the mixed cases prove), and collect_list, native
 * without grouping keys in every mode (AggregateFunctions2Suite has it across the boundary).
 */
class AggregateFunctionsSuite extends BolideSuiteBase {
  private val Agg = "BolideHashAggregate"

  @Before def setUp(): Unit = AggregateFunctionsSuite.ensure(spark)

  private val columns = Seq("y", "s", "i", "l", "f", "d", "dec", "wdec", "str", "bin", "b", "dt", "ts", "ntz",
    "nul", "id")

  @Test def approxCountDistinctEveryType(): Unit = {
    val fns = columns.map(c => s"approx_count_distinct($c)").mkString(", ")
    checkNative(s"SELECT g, $fns FROM aggfn GROUP BY g", Seq(Agg, Agg))
    checkNative(s"SELECT $fns FROM aggfn", Seq(Agg, Agg))
    // Many groups: most of them small (linear counting), the registers of each group apart.
    checkNative("SELECT k, approx_count_distinct(l), approx_count_distinct(str), approx_count_distinct(d) " +
      "FROM aggfn GROUP BY k", Seq(Agg, Agg))
  }

  @Test def approxCountDistinctRelativeSD(): Unit = {
    // Precisions 4 to 14: from 2 buffer words to 1639, raw estimates with bias correction
    // (cardinalities around 5 m) and without.
    val fns = Seq("approx_count_distinct(id, 0.3)", "approx_count_distinct(id, 0.2)",
      "approx_count_distinct(l, 0.1)", "approx_count_distinct(id, 0.01)", "approx_count_distinct(str, 0.39)",
      "approx_count_distinct(d, 0.02)", "approx_count_distinct(id % 300, 0.15)",
      "approx_count_distinct(id % 60, 0.25)", "approx_count_distinct(id % 2500)").mkString(", ")
    checkNative(s"SELECT $fns FROM aggfn", Seq(Agg, Agg))
    checkNative(s"SELECT g, $fns FROM aggfn GROUP BY g", Seq(Agg, Agg))
  }

  @Test def approxCountDistinctFloatingPoint(): Unit = {
    // NaN and -0.0 count as NaN and 0.0 (Spark normalizes them before hashing).
    checkNative("SELECT approx_count_distinct(d), approx_count_distinct(f), approx_count_distinct(z) FROM aggfn " +
      "WHERE d IS NULL OR isnan(d) OR d = 0", Seq(Agg, Agg))
    checkNative("SELECT g, approx_count_distinct(z), approx_count_distinct(cast(z AS float)) FROM aggfn GROUP BY g",
      Seq(Agg, Agg))
  }

  @Test def approxCountDistinctEmptyAndDistinct(): Unit = {
    checkNative("SELECT approx_count_distinct(l), approx_count_distinct(str, 0.01) FROM aggfn WHERE id < 0",
      Seq(Agg, Agg))
    checkNative("SELECT g, approx_count_distinct(l) FROM aggfn WHERE id < 0 GROUP BY g", Seq(Agg, Agg))
    // With a DISTINCT aggregate: the HLL buffers go through PartialMerge aggregates.
    checkNative("SELECT g, approx_count_distinct(l), count(DISTINCT i), approx_count_distinct(str, 0.1) " +
      "FROM aggfn GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT approx_count_distinct(d), sum(DISTINCT s) FROM aggfn", Seq(Agg, Agg))
  }

  /** Spark's own HashAggregateExec nodes that ran (with Bolide on). */
  private def sparkAggregates(sql: String): Int =
    planNodes(spark.sql(sql).queryExecution.executedPlan).count(_.isInstanceOf[HashAggregateExec])

  @Test def approxCountDistinctBuffersCrossTheBoundary(): Unit = {
    // No configuration makes only one half native, so a Scala UDF (never native) does: in the
    // result expressions it keeps the Final aggregate in Spark, which then reads the engine's
    // Partial buffer words; in the argument it keeps the Partial in Spark, whose words the
    // engine's Final reads.
    spark.udf.register("aggfn_same", (x: Long) => x)
    val finalInSpark = "SELECT g, aggfn_same(approx_count_distinct(l)), aggfn_same(approx_count_distinct(str, 0.02)), " +
      "aggfn_same(approx_count_distinct(d, 0.3)) FROM aggfn GROUP BY g"
    checkNative(finalInSpark, Seq(Agg))
    assertTrue("the Final aggregate should stay in Spark", sparkAggregates(finalInSpark) >= 1)
    val partialInSpark = "SELECT g, approx_count_distinct(aggfn_same(l)), approx_count_distinct(aggfn_same(id), 0.02) " +
      "FROM aggfn GROUP BY g"
    // With dispatch (the default) the JVM would evaluate the UDF inside a native Partial.
    withoutDispatch {
      checkNative(partialInSpark, Seq(Agg))
      assertTrue("the Partial aggregate should stay in Spark", sparkAggregates(partialInSpark) >= 1)
    }
    val globalMixed = "SELECT aggfn_same(approx_count_distinct(id, 0.01)), aggfn_same(approx_count_distinct(k)) " +
      "FROM aggfn"
    checkNative(globalMixed, Seq(Agg))
  }

  private val listColumns = Seq("y", "s", "i", "l", "f", "d", "z", "dec", "str", "b", "dt", "ts", "ntz", "nul")

  /** Binary lists as hex strings (the suites compare rows as strings; arrays of byte[] print as identities). */
  private def hexList(list: String): String = s"transform($list, x -> hex(x))"

  @Test def collectListEveryType(): Unit = {
    // Over 4 tasks the order in which Spark's Final merges the partial lists is not defined (in
    // Spark either): these lists are compared sorted; collectListInputOrder compares them as they are.
    val fns = (listColumns.map(c => s"sort_array(collect_list($c))") :+
      hexList("sort_array(collect_list(bin))")).mkString(", ")
    val q = s"SELECT $fns, sort_array(array_agg(id)), count(*) FROM aggfn"
    // transform(.., x -> hex(x)) over the binary list is not native: that Final stays in Spark and
    // reads the engine's buffers; without it the Final is native too.
    checkNative(q, Seq(Agg))
    checkNative(s"SELECT $fns FROM aggfn WHERE id % 3 = 0 AND g = 2", Seq(Agg))
    // (Not f, d, z: sort_array keeps -0.0 and 0.0, equal, in list order, which is the order in
    // which the Final receives the four tasks' lists: not defined, in Spark either.)
    val noBin = listColumns.filterNot(Set("f", "d", "z")).map(c => s"sort_array(collect_list($c))").mkString(", ")
    checkNative(s"SELECT $noBin FROM aggfn", Seq(Agg, Agg))
  }

  @Test def collectListInputOrder(): Unit = {
    // One task reads the rows in order: the list is in input order, in Spark and natively.
    val fns = (listColumns.map(c => s"collect_list($c)") :+ hexList("collect_list(bin)")).mkString(", ")
    checkNative(s"SELECT $fns FROM (SELECT /*+ COALESCE(1) */ * FROM aggfn WHERE id < 3000)", Seq(Agg))
    checkNative("SELECT array_agg(str), collect_list(d), collect_list(z) FROM (SELECT /*+ COALESCE(1) */ * FROM aggfn)",
      Seq(Agg, Agg))
  }

  @Test def collectListEmptyAndRefused(): Unit = {
    checkNative("SELECT collect_list(l), collect_list(str), collect_list(nul) FROM aggfn WHERE id < 0", Seq(Agg, Agg))
    // Refused (the aggregates stay in Spark), same answers: grouping keys (past 128 groups in a
    // task Spark's sort-based fallback reorders the lists), wide decimals, collect_set, DISTINCT.
    checkNative("SELECT k, collect_list(id), collect_list(str) FROM (SELECT /*+ COALESCE(1) */ * FROM aggfn) " +
      "GROUP BY k", Seq())
    checkNative("SELECT g, sort_array(collect_list(l)) FROM aggfn GROUP BY g", Seq())
    checkNative("SELECT sort_array(collect_list(wdec)) FROM aggfn", Seq())
    checkNative("SELECT sort_array(collect_set(i)), sort_array(collect_set(str)) FROM aggfn", Seq())
    checkNative("SELECT count(DISTINCT i), sort_array(collect_list(l)) FROM aggfn", Seq())
  }
}

object AggregateFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 30000, 1, 4).selectExpr(
      "id",
      "cast(id % 5 as int) as g",
      "cast(id * 7 % 1499 as int) as k",
      "if(id % 7 = 1, null, cast(id % 200 - 100 as byte)) as y",
      "if(id % 7 = 2, null, cast(id * 7 % 30000 as short)) as s",
      "if(id % 7 = 3, null, cast(id * 104729 % 2000000 - 1000000 as int)) as i",
      "if(id % 7 = 4, null, id * 1000003 - 999999999) as l",
      "if(id % 7 = 5, null, if(id % 11 = 0, float('NaN'), if(id % 13 = 0, float(-0.0), cast(id / 3.0 as float)))) as f",
      "if(id % 7 = 6, null, if(id % 11 = 0, double('NaN'), if(id % 13 = 0, -0.0d, if(id % 17 = 0, 0.0d, " +
        "id / 7.0 - 100)))) as d",
      "case id % 4 when 0 then -0.0d when 1 then 0.0d when 2 then double('NaN') else null end as z",
      "if(id % 11 = 0, null, cast(id * 1.37 - 1000 as decimal(10,2))) as dec",
      "if(id % 13 = 0, null, cast(id * 12345.6789012345 as decimal(38,10))) as wdec",
      "if(id % 9 = 0, null, concat(if(id % 2 = 0, 'é', 'ü漢字'), cast(id % 3001 as string), " +
        "if(id % 3 = 0, '😀', ''))) as str",
      "if(id % 10 = 0, null, cast(concat('bin', cast(id % 1700 as string)) as binary)) as bin",
      "if(id % 7 = 0, null, id % 2 = 0) as b",
      "if(id % 12 = 0, null, date_add(date'2020-01-01', cast(id % 1500 as int))) as dt",
      "if(id % 14 = 0, null, timestamp_seconds(1600000000 + id * 3611)) as ts",
      "if(id % 15 = 0, null, cast(timestamp_seconds(1500000000 + id * 7) as timestamp_ntz)) as ntz",
      "cast(null as int) as nul"
    ).write.mode("overwrite").parquet(TestData.path("aggfn"))
    spark.read.parquet(TestData.path("aggfn")).createOrReplaceTempView("aggfn")
  }
}
