package org.apache.spark.sql.bolide

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec
import org.junit.Assert._
import org.junit.{Before, Test}

/**
 * Object-buffer aggregates, Bolide off vs on, over a table of its own (4 files, so 4 tasks and a
 * shuffle between the halves of every aggregate): percentile / percentile_cont / percentile_disc /
 * median (exact, with frequency; their serialized count maps cross the exchange, and the mixed
 * cases run one half in Spark), listagg / string_agg, collect_set (in Scala's HashSet order) and
 * collect_list's Final and Complete aggregates. Every native case
 * asserts the BolideHashAggregate nodes that ran; the refused ones assert the same answers with
 * the aggregates in Spark.
 */
class AggregateFunctions2Suite extends BolideSuiteBase {
  private val Agg = "BolideHashAggregate"

  @Before def setUp(): Unit = AggregateFunctions2Suite.ensure(spark)

  private def sparkObjectAggregates(sql: String): Int =
    planNodes(spark.sql(sql).queryExecution.executedPlan).count(_.isInstanceOf[ObjectHashAggregateExec])

  private val pctColumns = Seq("y", "s", "i", "l", "dec", "dec18")

  @Test def percentileEveryType(): Unit = {
    val fns = pctColumns.flatMap(c => Seq(s"percentile($c, 0.5)", s"percentile($c, 0.25)", s"percentile($c, 0)",
      s"percentile($c, 1)", s"percentile($c, 0.999)", s"median($c)")).mkString(", ")
    checkNative(s"SELECT $fns FROM pct", Seq(Agg, Agg))
    checkNative(s"SELECT g, $fns FROM pct GROUP BY g", Seq(Agg, Agg))
  }

  @Test def percentileContDisc(): Unit = {
    val fns = pctColumns.flatMap(c => Seq(
      s"percentile_cont(0.3) WITHIN GROUP (ORDER BY $c)",
      s"percentile_cont(0.3) WITHIN GROUP (ORDER BY $c DESC)",
      s"percentile_disc(0.3) WITHIN GROUP (ORDER BY $c)",
      s"percentile_disc(0.7) WITHIN GROUP (ORDER BY $c DESC)",
      s"percentile_disc(0) WITHIN GROUP (ORDER BY $c)",
      s"percentile_disc(1) WITHIN GROUP (ORDER BY $c DESC)")).mkString(", ")
    checkNative(s"SELECT $fns FROM pct", Seq(Agg, Agg))
    checkNative(s"SELECT g, $fns FROM pct GROUP BY g", Seq(Agg, Agg))
    withConf("spark.sql.legacy.percentileDiscCalculation" -> "true") {
      checkNative("SELECT g, percentile_disc(0.3) WITHIN GROUP (ORDER BY i), " +
        "percentile_disc(0.55) WITHIN GROUP (ORDER BY dec DESC) FROM pct GROUP BY g", Seq(Agg, Agg))
    }
  }

  @Test def percentileManyGroupsAndFrequency(): Unit = {
    // ~1500 groups of a few values each: small maps, positions on and between values.
    checkNative("SELECT k, percentile(i, 0.5), percentile(l, 0.1), percentile(dec, 0.75), median(y) " +
      "FROM pct GROUP BY k", Seq(Agg, Agg))
    checkNative("SELECT k % 7, percentile(i, 0.4, 3), percentile(s, 0.9, 2L), percentile(y, 0.5, 0) " +
      "FROM pct GROUP BY k % 7", Seq(Agg, Agg))
    // Few distinct values with large counts.
    checkNative("SELECT g, percentile(small, 0.33), percentile(small, 0.66, 1000000000000), median(small) " +
      "FROM pct GROUP BY g", Seq(Agg, Agg))
  }

  @Test def percentileNullsAndEmpty(): Unit = {
    checkNative("SELECT percentile(i, 0.5), median(dec), percentile(nul, 0.5) FROM pct WHERE id < 0", Seq(Agg, Agg))
    checkNative("SELECT g, percentile(i, 0.5), percentile(nul, 0.2) FROM pct WHERE id < 0 GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT g, percentile(nul, 0.5), median(i) FROM pct GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT g, percentile(i, 0.5, cast(null as int)) FROM pct GROUP BY g", Seq(Agg, Agg))
    // With DISTINCT aggregates the count maps go through PartialMerge aggregates.
    checkNative("SELECT g, percentile(l, 0.5), count(DISTINCT i) FROM pct GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT percentile(i, 0.5), sum(DISTINCT y) FROM pct", Seq(Agg, Agg))
  }

  @Test def percentileBuffersCrossTheBoundary(): Unit = {
    // A Scala UDF (never native) in the result keeps the Final in Spark, which reads the engine's
    // serialized maps; in the argument it keeps the Partial in Spark, whose maps the engine reads.
    spark.udf.register("pct_same", (x: Double) => x)
    spark.udf.register("pct_same_int", (x: Int) => x)
    val finalInSpark = "SELECT g, pct_same(percentile(i, 0.5)), pct_same(percentile(dec, 0.1)), " +
      "pct_same(percentile(y, 0.7)), pct_same(percentile(s, 0.3)) FROM pct GROUP BY g"
    checkNative(finalInSpark, Seq(Agg))
    assertTrue("the Final aggregate should stay in Spark", sparkObjectAggregates(finalInSpark) >= 1)
    val partialInSpark = "SELECT g, percentile(pct_same_int(i), 0.5), percentile(pct_same_int(s), 0.25) " +
      "FROM pct GROUP BY g"
    // With dispatch (the default) the JVM would evaluate the UDF inside a native Partial.
    withoutDispatch {
      checkNative(partialInSpark, Seq(Agg))
      assertTrue("the Partial aggregate should stay in Spark", sparkObjectAggregates(partialInSpark) >= 1)
    }
  }

  @Test def percentileRefused(): Unit = {
    // Same answers with the aggregates in Spark: doubles (-0.0 and 0.0), an array of
    // percentages, a frequency column, wide decimals.
    checkNative("SELECT g, percentile(d, 0.5) FROM pct GROUP BY g", Seq())
    checkNative("SELECT g, percentile(i, array(0.25, 0.75)) FROM pct GROUP BY g", Seq())
    checkNative("SELECT g, percentile(i, 0.5, cast(id % 3 + 1 as int)) FROM pct GROUP BY g", Seq())
    checkNative("SELECT g, percentile(wdec, 0.5) FROM pct GROUP BY g", Seq())
  }

  private val listColumns = Seq("y", "i", "l", "dec", "str")

  @Test def collectListFinalAndComplete(): Unit = {
    // The Final aggregate merges the four tasks' lists in arrival order (not defined, in Spark
    // either): compared sorted here, in input order below.
    val sorted = listColumns.map(c => s"sort_array(collect_list($c))").mkString(", ")
    checkNative(s"SELECT $sorted, count(*) FROM pct", Seq(Agg, Agg))
    val asIs = listColumns.map(c => s"collect_list($c)").mkString(", ")
    checkNative(s"SELECT $asIs FROM (SELECT /*+ COALESCE(1) */ * FROM pct WHERE id < 5000)", Seq(Agg, Agg),
      ordered = true)
    checkNative("SELECT collect_list(i), collect_list(str) FROM pct WHERE id < 0", Seq(Agg, Agg))
    checkNative("SELECT size(collect_list(nul)), collect_list(nul) FROM pct", Seq(Agg, Agg))
    // A Partial in Spark (UDF argument): the engine's Final reads Spark's lists.
    spark.udf.register("list_same", (x: Int) => x)
    val partialInSpark = "SELECT sort_array(collect_list(list_same(i))) FROM pct"
    // With dispatch (the default) the JVM would evaluate the UDF inside a native Partial.
    withoutDispatch {
      checkNative(partialInSpark, Seq(Agg))
      assertTrue("the Partial aggregate should stay in Spark", sparkObjectAggregates(partialInSpark) >= 1)
    }
  }

  @Test def listAggOrderedByItself(): Unit = {
    // Sorted by the aggregated column the answer does not depend on arrival order: native with and
    // without grouping keys, strings (multibyte: bytewise order) and binary.
    val fns = Seq("listagg(str, ', ') WITHIN GROUP (ORDER BY str)", "string_agg(str) WITHIN GROUP (ORDER BY str DESC)",
      "hex(listagg(bin, X'00ff') WITHIN GROUP (ORDER BY bin))", "hex(listagg(bin) WITHIN GROUP (ORDER BY bin DESC))",
      "listagg(str, NULL) WITHIN GROUP (ORDER BY str DESC)").mkString(", ")
    checkNative(s"SELECT g, $fns FROM pct GROUP BY g", Seq(Agg, Agg))
    checkNative(s"SELECT k, $fns FROM pct GROUP BY k", Seq(Agg, Agg))
    checkNative(s"SELECT $fns FROM pct", Seq(Agg, Agg))
    checkNative(s"SELECT g, $fns FROM pct WHERE id < 0 GROUP BY g", Seq(Agg, Agg))
    checkNative(s"SELECT $fns FROM pct WHERE id < 0", Seq(Agg, Agg))
    checkNative("SELECT g, listagg(DISTINCT str, '|') WITHIN GROUP (ORDER BY str) FROM pct GROUP BY g", Seq(Agg))
  }

  @Test def listAggArrivalOrder(): Unit = {
    // Without ORDER BY: native without grouping keys, in arrival order (one task: input order).
    checkNative("SELECT listagg(str, '-'), hex(string_agg(bin)) FROM (SELECT /*+ COALESCE(1) */ * FROM pct " +
      "WHERE id < 3000)", Seq(Agg, Agg), ordered = true)
    checkNative("SELECT length(listagg(str)), length(listagg(str, ',')) FROM pct", Seq(Agg, Agg))
    // Refused, same answers: with keys and no ORDER BY, ordered by another column.
    checkNative("SELECT g, length(listagg(str)) FROM pct GROUP BY g", Seq())
    checkNative("SELECT g, listagg(str) WITHIN GROUP (ORDER BY id) FROM pct WHERE id < 100 GROUP BY g", Seq())
  }

  @Test def collectSetInScalasOrder(): Unit = {
    // Compared unsorted: the order is the iteration order of Scala's HashSet, which the engine
    // replays (over 4 tasks too: for values of distinct hashes it does not depend on arrival order).
    val fns = Seq("y", "s", "i", "l", "str", "small").map(c => s"collect_set($c)").mkString(", ")
    checkNative(s"SELECT $fns FROM pct", Seq(Agg, Agg), ordered = true)
    checkNative(s"SELECT $fns FROM pct WHERE id < 0", Seq(Agg, Agg), ordered = true)
    checkNative(s"SELECT $fns FROM pct WHERE id < 13", Seq(Agg, Agg), ordered = true)
    checkNative("SELECT collect_set(k), collect_set(cast(id % 11 as int)), collect_set(nul) FROM " +
      "(SELECT /*+ COALESCE(1) */ * FROM pct)", Seq(Agg, Agg), ordered = true)
    // Either half in Spark: Spark's Final merges the engine's serialized sets, the engine's
    // Final merges Spark's.
    spark.udf.register("set_same", (x: Seq[Int]) => x)
    spark.udf.register("set_same_int", (x: Int) => x)
    val finalInSpark = "SELECT set_same(collect_set(i)), set_same(collect_set(cast(s as int))) FROM pct"
    checkNative(finalInSpark, Seq(Agg), ordered = true)
    assertTrue("the Final aggregate should stay in Spark", sparkObjectAggregates(finalInSpark) >= 1)
    val partialInSpark = "SELECT collect_set(set_same_int(i)), collect_set(set_same_int(y)) FROM pct"
    // With dispatch (the default) the JVM would evaluate the UDF inside a native Partial.
    withoutDispatch {
      checkNative(partialInSpark, Seq(Agg), ordered = true)
      assertTrue("the Partial aggregate should stay in Spark", sparkObjectAggregates(partialInSpark) >= 1)
    }
    // Refused, same answers: grouping keys, doubles, binary, decimals.
    checkNative("SELECT g, sort_array(collect_set(i)) FROM pct GROUP BY g", Seq())
    checkNative("SELECT sort_array(collect_set(d)), sort_array(collect_set(dec)) FROM pct", Seq())
  }

  @Test def collectListWithKeysStaysInSpark(): Unit = {
    // Past 128 groups in a task Spark's sort-based fallback reorders the lists: refused.
    checkNative("SELECT g, sort_array(collect_list(i)) FROM pct GROUP BY g", Seq())
  }
}

object AggregateFunctions2Suite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 20000, 1, 4).selectExpr(
      "id",
      "cast(id % 5 as int) as g",
      "cast(id * 7 % 1499 as int) as k",
      "if(id % 7 = 1, null, cast(id % 200 - 100 as byte)) as y",
      "if(id % 7 = 2, null, cast(id * 7 % 30000 - 15000 as short)) as s",
      "if(id % 7 = 3, null, cast(id * 104729 % 2000000 - 1000000 as int)) as i",
      "if(id % 7 = 4, null, id * 1000000000003 - 999999999999999) as l",
      "if(id % 11 = 0, null, cast(id * 1.37 - 1000 as decimal(10,2))) as dec",
      "if(id % 12 = 0, null, cast(id * 1234567.891 - 7777777777.5 as decimal(18,4))) as dec18",
      "if(id % 13 = 0, null, cast(id * 12345.6789012345 as decimal(38,10))) as wdec",
      "if(id % 7 = 6, null, if(id % 13 = 0, -0.0d, if(id % 17 = 0, 0.0d, id / 7.0 - 100))) as d",
      "cast(id % 3 as int) as small",
      "if(id % 9 = 0, null, concat(if(id % 2 = 0, 'é', 'zü漢'), cast(id % 3001 as string))) as str",
      "if(id % 10 = 0, null, cast(concat('bin', cast(id % 1700 as string)) as binary)) as bin",
      "cast(null as int) as nul"
    ).write.mode("overwrite").parquet(TestData.path("pct"))
    spark.read.parquet(TestData.path("pct")).createOrReplaceTempView("pct")
  }
}
