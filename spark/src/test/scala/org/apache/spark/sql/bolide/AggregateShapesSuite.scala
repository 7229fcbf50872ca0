package org.apache.spark.sql.bolide

import org.junit.Assert._
import org.junit.{Before, Test}

/**
 * The aggregate and partition shapes of TPC-DS-like plans, Bolide off vs on: ROLLUP, CUBE and
 * GROUPING SETS (BolideExpand under the aggregates), DISTINCT aggregates mixed with regular ones
 * (Spark's PartialMerge and per-function modes), several DISTINCT columns (Expand, FILTER clauses
 * and first(...) IGNORE NULLS in Spark's rewrite), FILTER clauses, and coalesce(n) under and over
 * native operators (BolideCoalesce); and TPC-DS queries of those shapes.
 */
class AggregateShapesSuite extends BolideSuiteBase {
  private val Agg = "BolideHashAggregate"
  private val Expand = "BolideExpand"
  private val Coalesce = "BolideCoalesce"

  @Before def setUp(): Unit = TestData.ensure(spark)

  @Test def caseOverAggregateResults(): Unit = {
    // The result expressions read the aggregates through CaseWhen branches (scala.Tuple2
    // products): they are rebound to the aggregate's output like any other reference.
    checkNative("SELECT g, CASE WHEN sum(l) > 0 THEN sum(s) WHEN max(i) IS NULL THEN -1 ELSE max(i) END, " +
      "CASE WHEN count(*) > 300 THEN 'many' ELSE 'few' END FROM types GROUP BY g", Seq(Agg, Agg))
  }

  @Test def minMaxOverDictionaryCodes(): Unit = {
    // With no grouping keys right above the scan, min and max of a column read the file's
    // dictionary codes (Spark writes dictionary pages), taking the extreme over the entries used:
    // every primitive type, with nulls, NaN, -0.0 and the types' extremes (RowOutputSuite's table),
    // beside functions that read decoded values, and with a FILTER clause (values, not codes).
    RowOutputSuite.ensure(spark)
    val cols = Seq("b", "y", "sh", "i", "l", "f", "d", "dec9", "dec18", "dec38", "dt", "ts", "ntz", "s",
      "bin", "nothing")
    val fns = cols.flatMap(c => Seq(s"min($c)", s"max($c)")).mkString(", ")
    checkNative(s"SELECT count(*), sum(id), $fns FROM row_types", Seq(Agg, Agg))
    checkNative(s"SELECT $fns, max(s) FILTER (WHERE id % 2 = 0) FROM row_types", Seq(Agg, Agg))
  }

  @Test def statisticalAggregates(): Unit = {
    val fns = "stddev_samp(d), stddev_pop(d), var_samp(d), var_pop(i), stddev(l), variance(f), std(dec), " +
      "stddev_samp(if(id % 97 = 0, d, null)), skewness(d), kurtosis(d), skewness(i), kurtosis(f), " +
      "skewness(if(id % 89 = 0, d, null)), kurtosis(if(id % 97 = 0, l, null))"
    checkNative(s"SELECT g, $fns FROM types GROUP BY g", Seq(Agg, Agg))
    checkNative(s"SELECT $fns FROM types", Seq(Agg, Agg))
    // One row per group: n - 1 = 0 and m2 = 0.
    checkNative("SELECT g, stddev_samp(d), var_samp(d), skewness(d), kurtosis(d) FROM types WHERE id % 500 = 1 " +
      "GROUP BY g", Seq(Agg, Agg))
    withConf("spark.sql.legacy.statisticalAggregate" -> "true") {
      checkNative("SELECT g, stddev_samp(d), var_samp(d), skewness(d), kurtosis(d) FROM types WHERE id % 500 = 1 " +
        "GROUP BY g", Seq(Agg, Agg))
    }
  }

  @Test def bitwiseAndCoMomentAggregates(): Unit = {
    val fns = "bit_and(y), bit_or(s), bit_xor(i), bit_and(l), bit_or(l), bit_xor(if(id % 3 = 0, null, l)), " +
      "bit_and(g), covar_pop(d, f), covar_samp(d, l), corr(d, i), covar_samp(if(id % 97 = 0, d, null), d), " +
      "corr(f, if(id % 89 = 0, d, null)), covar_pop(dec, s), regr_sxy(d, l), regr_r2(d, i), " +
      "regr_r2(if(id % 7 = 0, null, f), d), regr_r2(cast(g AS DOUBLE), d), regr_r2(d, cast(g AS DOUBLE)), " +
      "regr_sxy(if(id % 5 = 0, null, d), i), regr_slope(d, i), regr_intercept(d, l), " +
      "regr_slope(if(id % 3 = 0, null, d), f), regr_intercept(f, if(id % 4 = 0, null, d)), " +
      "regr_slope(d, cast(g AS DOUBLE)), regr_intercept(if(id % 6 = 0, null, d), i)"
    checkNative(s"SELECT g, $fns FROM types GROUP BY g", Seq(Agg, Agg))
    checkNative(s"SELECT $fns FROM types", Seq(Agg, Agg))
    // One row per group: covar_samp and corr divide by n - 1 = 0.
    checkNative("SELECT g, covar_samp(d, l), corr(d, i), covar_pop(d, l) FROM types WHERE id % 500 = 1 GROUP BY g",
      Seq(Agg, Agg))
    withConf("spark.sql.legacy.statisticalAggregate" -> "true") {
      checkNative("SELECT g, covar_samp(d, l), corr(d, i) FROM types WHERE id % 500 = 1 GROUP BY g", Seq(Agg, Agg))
    }
    // corr of a constant divides by zero (Spark's Divide): null in legacy mode, DIVIDE_BY_ZERO in
    // ANSI mode, from the engine as from Spark.
    val constant = "SELECT g, corr(d, cast(g AS DOUBLE)) FROM types GROUP BY g"
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative(constant, Seq(Agg, Agg))
    }
    withConf("spark.sql.ansi.enabled" -> "true") {
      val expected = withConf("spark.bolide.enabled" -> "false")(thrownBy(spark.sql(constant).collect()))
      val df = spark.sql(constant)
      val actual = thrownBy(df.collect())
      assertEquals(messages(actual), errorClassOf(expected), errorClassOf(actual))
      assertTrue(nativeOperators(df).toString, nativeOperators(df).contains(Agg))
    }
  }

  @Test def maxByMinBy(): Unit = {
    // Values of every stored type, orderings of every native type with nulls, NaN orderings. No
    // ties: among equal orderings the last row seen wins, and the order partial buffers arrive
    // in is not defined (in Spark either).
    val fns = "max_by(dec, d), min_by(ts, f), max_by(b, l), max_by(dt, s), min_by(ntz, ts), max_by(wdec, ts), " +
      "max_by(ng, ng), min_by(y, l), min_by(f, if(id % 11 = 0, double('NaN'), d)), " +
      "max_by(id, if(id % 11 = 0, null, d))"
    checkNative(s"SELECT g, $fns FROM types GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT b, max_by(id, i), min_by(l, l) FROM types WHERE id % 500 = 1 GROUP BY b", Seq(Agg, Agg))
    // String and binary values: Spark plans a SortAggregate (not mutable in UnsafeRow buffers),
    // native without grouping keys.
    checkNative(s"SELECT $fns, max_by(str, i), min_by(str, i), min_by(bin, s) FROM types", Seq(Agg, Agg))
  }

  @Test def rollup(): Unit = {
    checkNative("SELECT g, b, sum(l), count(*), avg(d), min(dec), grouping_id() FROM types GROUP BY ROLLUP(g, b)",
      Seq(Expand, Agg, Agg))
    checkNative("SELECT str, dt, count(i), max(ts) FROM types GROUP BY ROLLUP(str, dt)", Seq(Expand, Agg, Agg))
    // Keys of every type, nulls in the keys meeting the nulls of the rolled-up rows.
    Seq("y", "s", "i", "l", "f", "d", "dec", "wdec", "bin", "ts", "ntz").foreach { k =>
      checkNative(s"SELECT g, $k, count(*), sum(id), grouping_id() FROM types GROUP BY ROLLUP(g, $k)",
        Seq(Expand, Agg, Agg))
    }
  }

  @Test def cube(): Unit = {
    checkNative("SELECT g, b, str, count(*), sum(s), max(dec), grouping_id() FROM types GROUP BY CUBE(g, b, str)",
      Seq(Expand, Agg, Agg))
    checkNative("SELECT dt, ndec, avg(ndec), count(ng) FROM types GROUP BY CUBE(dt, ndec)", Seq(Expand, Agg, Agg))
  }

  @Test def groupingSets(): Unit = {
    checkNative("SELECT g, b, str, sum(i), count(*), grouping_id() FROM types " +
      "GROUP BY GROUPING SETS ((g, b), (str), ())", Seq(Expand, Agg, Agg))
    // Duplicate sets are kept apart by Spark's _gen_grouping_pos column.
    checkNative("SELECT g, sum(l), grouping_id() FROM types GROUP BY GROUPING SETS ((g), (g), ())",
      Seq(Expand, Agg, Agg))
    checkNative("SELECT g, grouping_id(g, b) AS gid, count(*) FROM types GROUP BY g, b GROUPING SETS ((g, b), (g))",
      Seq(Expand, Agg, Agg))
    // grouping(col) is a shift and a mask of the grouping id.
    checkNative("SELECT g, b, grouping(g), grouping(b), grouping(g) + grouping(b) AS lvl, count(*) FROM types " +
      "GROUP BY ROLLUP(g, b)", Seq(Expand, Agg, Agg))
    // The grouping id in a filter over the aggregate.
    checkNative("SELECT g, b, count(*) AS c FROM types GROUP BY ROLLUP(g, b) HAVING grouping_id() > 0",
      Seq(Expand, Agg, Agg))
  }

  @Test def distinctMixedWithRegularAggregates(): Unit = {
    // Partial by (g, str) -> PartialMerge by (g, str) -> PartialMerge + Partial(count) by g -> Final.
    checkNative("SELECT g, count(DISTINCT str), sum(l), avg(d), min(dt), max(dec) FROM types GROUP BY g",
      Seq(Agg, Agg, Agg, Agg))
    checkNative("SELECT b, sum(DISTINCT i), count(*), avg(dec), max(l) FROM types GROUP BY b", Seq(Agg, Agg, Agg, Agg))
    // Without grouping keys the last two aggregates have a single group.
    checkNative("SELECT count(DISTINCT i), sum(l), avg(dec), max(d), count(*) FROM types", Seq(Agg, Agg, Agg, Agg))
    checkNative("SELECT g, avg(DISTINCT dec), sum(wdec), count(s) FROM types GROUP BY g", Seq(Agg, Agg, Agg, Agg))
  }

  @Test def severalDistinctColumns(): Unit = {
    // Spark rewrites these with an Expand: one projection per distinct column (and one for the
    // regular aggregates), FILTER (WHERE gid = k) and first(...) IGNORE NULLS in the last aggregate.
    checkNative("SELECT g, count(DISTINCT str), count(DISTINCT b) FROM types GROUP BY g", Seq(Expand, Agg, Agg))
    checkNative("SELECT g, count(DISTINCT str), count(DISTINCT b), sum(l), max(d), count(*) FROM types GROUP BY g",
      Seq(Expand, Agg, Agg))
    checkNative("SELECT count(DISTINCT y), sum(DISTINCT s), avg(DISTINCT i), sum(dec) FROM types",
      Seq(Expand, Agg, Agg))
  }

  @Test def distinctOverNulls(): Unit = {
    // ng and ndec are null in every row of g = 2; b is a nullable key.
    checkNative("SELECT b, count(DISTINCT ng), sum(DISTINCT ng) FROM types GROUP BY b", Seq(Agg, Agg, Agg, Agg))
    checkNative("SELECT g, count(DISTINCT ng), count(DISTINCT ndec), avg(DISTINCT ndec) FROM types GROUP BY g",
      Seq(Expand, Agg, Agg))
    // Several columns in one count: a row counts when none is null.
    checkNative("SELECT g, count(DISTINCT ng, str) FROM types GROUP BY g", Seq(Agg, Agg))
    checkNative("SELECT count(DISTINCT ndec) FROM types WHERE g = 2", Seq(Agg, Agg))
  }

  @Test def filterClauses(): Unit = {
    checkNative("SELECT g, count(*) FILTER (WHERE i > 0), sum(l) FILTER (WHERE b), " +
      "avg(d) FILTER (WHERE str LIKE 'str_1%'), max(dec) FILTER (WHERE ng IS NULL), count(i) FROM types GROUP BY g",
      Seq(Agg, Agg))
    checkNative("SELECT count(*) FILTER (WHERE i > 0), sum(dec) FILTER (WHERE id % 3 = 0) FROM types", Seq(Agg, Agg))
    // Spark's generated code computes the subexpressions aggregate functions share before it checks
    // a FILTER: avg's argument (read by both of its updates) divides by zero on the rows the clause
    // rejects, sum's (read once) does not. A FILTER over an argument that can fail stays in Spark.
    Seq("avg", "sum").foreach { f =>
      val q = s"SELECT b, $f(100 / (g - 2)) FILTER (WHERE g <> 2), count(*) FROM types GROUP BY b"
      val expected = withConf("spark.bolide.enabled" -> "false")(outcome(spark.sql(q)))
      val df = spark.sql(q)
      assertEquals(q, expected, outcome(df))
      assertTrue(bolideReport(df), bolideReport(df).contains("FILTER clause over an argument that can raise an error"))
    }
    // A FILTER on a DISTINCT aggregate makes Spark rewrite it through Expand.
    checkNative("SELECT g, count(DISTINCT str) FILTER (WHERE i > 0), sum(l) FROM types GROUP BY g",
      Seq(Expand, Agg, Agg))
  }

  @Test def coalesceUnderNativeOperators(): Unit = {
    checkNative("SELECT g, sum(l), count(*) FROM (SELECT /*+ COALESCE(3) */ * FROM types WHERE i > 0) GROUP BY g",
      Seq(Coalesce, "BolideFilter", Agg, Agg))
    checkNative("SELECT g, count(DISTINCT str) FROM (SELECT /*+ COALESCE(1) */ g, str FROM types) GROUP BY g",
      Seq(Coalesce, Agg))
    // The same partitions as Spark's coalesce, with Spark's own operators above.
    checkNative("SELECT p, count(*), sum(id) FROM (SELECT spark_partition_id() AS p, id " +
      "FROM (SELECT /*+ COALESCE(3) */ id FROM types WHERE l > 0)) GROUP BY p", Seq(Coalesce))
  }

  @Test def coalesceOverNativeOperators(): Unit = {
    checkNative("SELECT /*+ COALESCE(1) */ g, sum(l), avg(dec) FROM types GROUP BY g", Seq(Coalesce, Agg, Agg))
    checkNative("SELECT /*+ COALESCE(3) */ id, str, dt FROM types WHERE i > 0", Seq(Coalesce, "BolideScan"))
    checkNative("SELECT /*+ COALESCE(1) */ id, x FROM sparse", Seq(Coalesce))
    // More partitions than the input has: the input's partitions, unchanged.
    checkNative("SELECT /*+ COALESCE(50) */ id, str FROM types", Seq(Coalesce))
    val df = spark.table("types").where("i > 0").coalesce(1).groupBy("g").count()
    val expected = withConf("spark.bolide.enabled" -> "false") {
      canonical(spark.table("types").where("i > 0").coalesce(1).groupBy("g").count().collect().toSeq).sorted
    }
    assertEquals(expected, canonical(df.collect().toSeq).sorted)
    assertTrue(nativeOperators(df).contains(Coalesce))
  }

  @Test def coalesceStaysInSparkOverSparkOperators(): Unit = withoutDispatch {
    // regexp_replace with (?i) is not native: the coalesce over Spark's project stays in Spark, with its reason.
    val df = checkNative("SELECT /*+ COALESCE(2) */ regexp_replace(str, '(?i)a', 'b') AS h FROM types", Seq.empty)
    assertFalse(nativeOperators(df).contains(Coalesce))
    assertTrue(bolideReport(df), bolideReport(df).contains("CoalesceExec stays in Spark over Project"))
  }

  /** These plans must leave no aggregate, expand or coalesce in Spark. */
  @Test def nothingLeftInSpark(): Unit = {
    Seq(
      "SELECT g, b, sum(l), count(*), avg(d), grouping_id() FROM types GROUP BY ROLLUP(g, b)",
      "SELECT g, b, str, count(*), max(dec) FROM types GROUP BY CUBE(g, b, str)",
      "SELECT g, b, str, sum(i), grouping_id() FROM types GROUP BY GROUPING SETS ((g, b), (str), ())",
      "SELECT g, b, grouping(g), grouping(b), count(*) FROM types GROUP BY ROLLUP(g, b)",
      "SELECT g, count(DISTINCT str), sum(l), avg(d), max(dec) FROM types GROUP BY g",
      "SELECT count(DISTINCT i), sum(l), avg(dec) FROM types",
      "SELECT g, count(DISTINCT str), count(DISTINCT b), sum(l), max(d) FROM types GROUP BY g",
      "SELECT g, count(*) FILTER (WHERE i > 0), sum(l) FILTER (WHERE b) FROM types GROUP BY g",
      "SELECT /*+ COALESCE(1) */ g, sum(l) FROM types GROUP BY g",
      "SELECT g, sum(l) FROM (SELECT /*+ COALESCE(3) */ * FROM types WHERE i > 0) GROUP BY g"
    ).foreach { q =>
      val df = spark.sql(q)
      df.collect()
      val (native, fallback) = operatorReport(df)
      val left = fallback.filter { case (name, _) =>
        name.contains("Aggregate") || name.contains("Expand") || name.contains("Coalesce")
      }
      assertTrue(s"$q left in Spark: ${left.mkString("; ")}\n${bolideReport(df)}", left.isEmpty)
      assertTrue(s"$q: no native aggregate ran (${native.mkString(", ")})",
        native.contains(Agg) || native.contains(Coalesce))
      assertTrue(s"$q: everything fell back: ${fallback.mkString("; ")}", fallback.size < native.size)
    }
  }

  /** TPC-DS shapes (q27, q36, q67, q16), over the TPC-DS SF 0.01 tables. */
  @Test def tpcdsShapes(): Unit = {
    tpcds.TpcdsTablesSuite.ensureTables(spark)
    val queries = Seq(
      // q27: a rollup of averages with grouping().
      """SELECT i_item_id, s_state, grouping(s_state) AS g_state, avg(ss_quantity), avg(ss_list_price),
        |  avg(ss_coupon_amt), avg(ss_sales_price)
        |FROM store_sales, customer_demographics, date_dim, store, item
        |WHERE ss_sold_date_sk = d_date_sk AND ss_item_sk = i_item_sk AND ss_store_sk = s_store_sk
        |  AND ss_cdemo_sk = cd_demo_sk AND cd_gender = 'M' AND cd_marital_status = 'S' AND d_year = 2002
        |GROUP BY ROLLUP(i_item_id, s_state)""".stripMargin -> Seq(Expand, Agg, Agg),
      // q36: the hierarchy level of each rolled-up row.
      """SELECT sum(ss_net_profit) / sum(ss_ext_sales_price) AS gross_margin, i_category, i_class,
        |  grouping(i_category) + grouping(i_class) AS lochierarchy
        |FROM store_sales, date_dim, item, store
        |WHERE d_year = 2001 AND d_date_sk = ss_sold_date_sk AND i_item_sk = ss_item_sk AND s_store_sk = ss_store_sk
        |GROUP BY ROLLUP(i_category, i_class)""".stripMargin -> Seq(Expand, Agg, Agg),
      // q67: a four-level rollup.
      """SELECT i_category, i_class, i_brand, d_year, sum(coalesce(ss_sales_price * ss_quantity, 0)) AS sumsales
        |FROM store_sales, date_dim, item
        |WHERE ss_sold_date_sk = d_date_sk AND ss_item_sk = i_item_sk AND d_year BETWEEN 1999 AND 2001
        |GROUP BY ROLLUP(i_category, i_class, i_brand, d_year)""".stripMargin -> Seq(Expand, Agg, Agg),
      // q16: a distinct count and sums without keys.
      """SELECT count(DISTINCT cs_order_number), sum(cs_ext_ship_cost), sum(cs_net_profit)
        |FROM catalog_sales WHERE cs_ship_date_sk IS NOT NULL""".stripMargin -> Seq(Agg, Agg, Agg, Agg),
      // Two distinct columns per store.
      """SELECT ss_store_sk, count(DISTINCT ss_customer_sk), count(DISTINCT ss_item_sk), sum(ss_net_paid),
        |  avg(ss_quantity) FROM store_sales GROUP BY ss_store_sk""".stripMargin -> Seq(Expand, Agg, Agg))
    queries.foreach { case (q, ops) =>
      val df = checkNative(q, ops)
      val left = operatorReport(df)._2.filter { case (n, _) => n.contains("Aggregate") || n.contains("Expand") }
      assertTrue(s"$q left in Spark: ${left.mkString("; ")}", left.isEmpty)
    }
  }

  @Test def operatorSwitches(): Unit = {
    withConf("spark.bolide.exec.expand.enabled" -> "false") {
      val df = checkNative("SELECT g, b, count(*) FROM types GROUP BY ROLLUP(g, b)", Seq(Agg))
      assertFalse(nativeOperators(df).contains(Expand))
      assertTrue(bolideReport(df).contains("spark.bolide.exec.expand.enabled=false"))
    }
    withConf("spark.bolide.exec.coalesce.enabled" -> "false") {
      val df = checkNative("SELECT /*+ COALESCE(1) */ g, sum(l) FROM types GROUP BY g", Seq(Agg))
      assertFalse(nativeOperators(df).contains(Coalesce))
    }
  }

  /** The sorted answer, or the error class the query failed with. */
  private def outcome(df: org.apache.spark.sql.DataFrame): String =
    try canonical(df.collect().toSeq).sorted.mkString("\n")
    catch { case t: Throwable => s"error ${errorClassOf(t)}" }
}
