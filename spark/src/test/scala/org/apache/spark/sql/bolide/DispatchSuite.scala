package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.{DataFrame, SparkSession}

/**
 * Expression dispatch (native/expr/dispatch.go, BolideDispatcher), on by default
 * (spark.bolide.dispatch.enabled): a Project, a Filter, an aggregate, a sort or a join holding an
 * expression the engine has no kernel for stays native and the JVM evaluates that expression with Spark's own code, one call
 * per batch. Every query runs with Bolide off and on over a Parquet table of several batches
 * with nulls; the answers must be identical, the operator native, and the expression reported
 * as dispatched. Errors raised by Spark's code inside a dispatched expression reach the task as
 * the same Spark error; a nondeterministic expression is not dispatched (its operator stays in
 * Spark, with the reason).
 */
class DispatchSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Filter = "BolideFilter"

  @Before def setUp(): Unit = {
    DispatchSuite.ensure(spark)
    spark.udf.register("dispatch_len", (v: String) => if (v == null) -1 else v.length)
  }

  /** The classes dispatched by the native operators of df's executed plan. */
  private def dispatched(df: DataFrame): Seq[String] =
    planNodes(df.queryExecution.executedPlan).collect { case b: BolideExec => b.dispatched }.flatten

  private def checkDispatched(sql: String, operators: Seq[String], classes: String*): DataFrame = {
    val df = checkNative(sql, operators)
    val ds = dispatched(df)
    assertTrue(s"nothing dispatched in $sql\n${df.queryExecution.executedPlan}", ds.nonEmpty)
    classes.foreach { c =>
      assertTrue(s"$c not dispatched in $sql: $ds\n${df.queryExecution.executedPlan}", ds.contains(c))
    }
    df
  }

  @Test def projectOfSparkOnlyFunctions(): Unit = {
    // Sin, Cos and Tan stay in Spark without dispatch (MathFunctionsSuite.intrinsifiedOnesStayInSpark).
    val df = checkDispatched("SELECT id, sin(x), cos(x) * 2.0D, upper(s), tan(x) FROM dispatch_data",
      Seq(Scan, Project), "Sin", "Multiply", "Tan")
    val plan = df.queryExecution.executedPlan.toString
    assertTrue(plan, plan.contains("dispatch(Sin)") && plan.contains("3 dispatched"))
    val report = bolideReport(df)
    assertTrue(report, report.contains("3 expressions evaluated by the JVM for native operators"))
    // Without dispatch, the same projection stays in Spark.
    withConf("spark.bolide.dispatch.enabled" -> "false") {
      val off = checkNative("SELECT id, sin(x) FROM dispatch_data", Seq(Scan))
      assertFalse(nativeOperators(off).contains(Project))
      assertTrue(dispatched(off).isEmpty)
    }
  }

  @Test def allTypesCross(): Unit = {
    // Each atomic type in and out of the JVM (a disabled native kernel is dispatched as well).
    withConf("spark.bolide.expression.Coalesce.enabled" -> "false") {
      checkDispatched("SELECT id, coalesce(b, false), coalesce(i, 0), coalesce(id, 0L), coalesce(x, 0.0D), " +
        "coalesce(d, 0.0BD), coalesce(s, ''), coalesce(bin, X''), coalesce(dt, DATE'2000-01-01'), " +
        "coalesce(ts, TIMESTAMP'2000-01-01 00:00:00'), coalesce(tb, CAST(0 AS TINYINT)), " +
        "coalesce(sh, CAST(0 AS SMALLINT)), coalesce(f, 0.0F) FROM dispatch_data",
        Seq(Scan, Project), "Coalesce")
    }
  }

  @Test def nullsInEveryResultType(): Unit = {
    // Each atomic type out of the JVM with nulls (the fixed-width ones are written straight into
    // the Arrow buffers, the others by ArrowWriter), and every input type read through the row
    // view: null where Spark's CASE WHEN says, the column's value (or its null) elsewhere.
    withConf("spark.bolide.expression.CaseWhen.enabled" -> "false") {
      val cols = Seq("b", "tb", "sh", "i", "id", "f", "x", "d", "s", "u", "bin", "dt", "ts")
      checkDispatched(cols.map(c => s"CASE WHEN id % 3 = 0 THEN NULL ELSE $c END AS r_$c")
        .mkString("SELECT id, ", ", ", " FROM dispatch_data"), Seq(Scan, Project), "CaseWhen")
    }
  }

  @Test def fixedWidthResultsUseAGeneratedLoop(): Unit = {
    // After a task's first batch, a fixed-width result is computed by a loop generated with the
    // expression's code, straight into Go's buffers; the answers stay Spark's.
    val before = BolideDispatcher.loopsGenerated.get
    val failed = BolideDispatcher.loopsFailed.get
    checkDispatched("SELECT id, sin(x), cos(x) > 0.5D, dispatch_len(s) FROM dispatch_data", Seq(Scan, Project),
      "Sin", "GreaterThan", "ScalaUDF")
    // A CASE WHEN large enough that Spark splits its code into functions taking the row.
    withConf("spark.bolide.expression.CaseWhen.enabled" -> "false") {
      val branches = (0 until 60).map(k => s"WHEN i = $k THEN x * $k").mkString(" ")
      checkDispatched(s"SELECT id, CASE $branches ELSE NULL END FROM dispatch_data", Seq(Scan, Project), "CaseWhen")
    }
    assertTrue("no loop generated", BolideDispatcher.loopsGenerated.get > before)
    assertEquals("loops that did not compile", failed, BolideDispatcher.loopsFailed.get)
  }

  @Test def multiByteStrings(): Unit = {
    // Strings read without a copy from Go's buffers (empties, nulls, multi-byte characters) and
    // results of each width computed from them.
    withConf("spark.bolide.expression.Length.enabled" -> "false", "spark.bolide.expression.Upper.enabled" -> "false",
        "spark.bolide.expression.Concat.enabled" -> "false") {
      checkDispatched("SELECT id, upper(u), length(u), concat(u, s), u = 'É1日本' FROM dispatch_data",
        Seq(Scan, Project), "Upper", "Length", "Concat")
    }
    // get_json_object is native: its kernel is turned off to have a string function dispatched.
    withConf("spark.bolide.expression.GetJsonObject.enabled" -> "false") {
      checkDispatched("SELECT id, u FROM dispatch_data WHERE get_json_object(j, '$.a') = '7' AND u <> ''",
        Seq(Scan, Filter))
    }
  }

  @Test def afterANativeFilter(): Unit = {
    // The filtered columns cross (compacted) and every batch of a task reuses the JVM's vectors.
    withConf("spark.bolide.expression.GetJsonObject.enabled" -> "false") {
      checkDispatched("SELECT id, sin(x) + i, get_json_object(j, '$.a') FROM dispatch_data WHERE i > 40 AND x IS NOT NULL",
        Seq(Scan, Filter, Project), "Add", "GetJsonObject")
    }
  }

  @Test def filterOnDispatchedCondition(): Unit = {
    checkDispatched("SELECT id, s FROM dispatch_data WHERE sin(x) > 0.5D AND i > 10", Seq(Scan, Filter))
    checkDispatched("SELECT id, x FROM dispatch_data WHERE tan(x) > 1.0D OR s IS NULL",
      Seq(Scan, Filter))
  }

  @Test def scalaUdf(): Unit = {
    spark.udf.register("dispatch_twice", (v: Int) => v * 2)
    spark.udf.register("dispatch_tag", (v: String) => if (v == null) "none" else s"<$v>")
    checkDispatched("SELECT id, dispatch_twice(i), dispatch_tag(s) FROM dispatch_data", Seq(Scan, Project), "ScalaUDF")
    checkDispatched("SELECT id FROM dispatch_data WHERE dispatch_twice(i) > 30", Seq(Scan, Filter))
  }

  @Test def ansiErrorInsideDispatchedExpression(): Unit = {
    withConf("spark.sql.ansi.enabled" -> "true", "spark.bolide.expression.IntegralDivide.enabled" -> "false") {
      val q = "SELECT id, i div z FROM dispatch_data"
      val planned = spark.sql(q)
      assertTrue(nativeOperators(planned).mkString(", "), nativeOperators(planned).contains(Project))
      assertTrue(dispatched(planned).mkString(", "), dispatched(planned).contains("IntegralDivide"))
      val (off, on) = errorClassBothWays(q)
      assertEquals(Some("DIVIDE_BY_ZERO"), off)
      assertEquals(off, on)
      // The zero divisor in the second batch of a task: the error is raised by the generated loop
      // that writes into Go's buffers (the first batch goes through the projection).
      val late = "SELECT id, id div (id - 29000) FROM dispatch_data"
      assertTrue(dispatched(spark.sql(late)).mkString(", "), dispatched(spark.sql(late)).contains("IntegralDivide"))
      val (lateOff, lateOn) = errorClassBothWays(late)
      assertEquals(Some("DIVIDE_BY_ZERO"), lateOff)
      assertEquals(lateOff, lateOn)
      // No zero divisor: no error either way, and the answer is Spark's.
      checkDispatched("SELECT id, i div z FROM dispatch_data WHERE z <> 0", Seq(Scan, Project), "IntegralDivide")
    }
  }

  @Test def aggregateArgumentsAreDispatched(): Unit = {
    // Spark evaluates an aggregate function's arguments inside its aggregate (complex grouping
    // keys it pulls out into a Project below): the partial aggregate stays native.
    val Agg = "BolideHashAggregate"
    checkDispatched("SELECT i % 7 AS k, sum(sin(x)), max(tan(x)), sum(dispatch_len(s)), min(cos(x) + i) " +
      "FROM dispatch_data GROUP BY i % 7", Seq(Scan, Agg), "Sin", "Tan", "ScalaUDF", "Add")
    checkDispatched("SELECT sum(cos(x)), avg(dispatch_len(u)), max(sin(d)) FROM dispatch_data", Seq(Scan, Agg),
      "Cos", "ScalaUDF", "Sin")
    // Both halves in one task set: the final aggregate reads the native partial's buffers.
    checkDispatched("SELECT s, sum(sin(x)) FROM dispatch_data GROUP BY s ORDER BY s", Seq(Scan, Agg), "Sin")
    // A FILTER clause over an argument that may fail (a dispatched one may: Spark's code can
    // raise) stays in Spark, with the reason.
    val filtered = spark.sql("SELECT i % 3, sum(sin(x)) FILTER (WHERE i > 10) FROM dispatch_data GROUP BY i % 3")
    filtered.collect()
    val (_, fallback) = operatorReport(filtered)
    assertTrue(fallback.toString, fallback.exists { case (n, r) =>
      n.contains("HashAggregate") && r.contains("FILTER clause over an argument that can raise an error")
    })
    withoutDispatch {
      val off = spark.sql("SELECT sum(sin(x)) FROM dispatch_data")
      off.collect()
      val (_, fb) = operatorReport(off)
      assertTrue(fb.toString, fb.exists { case (n, r) => n.contains("HashAggregate") && r.contains("Sin") })
    }
  }

  @Test def sortKeysAreDispatched(): Unit = {
    // Per-partition sort (the global sort's range shuffle keeps Spark's partitioner: its keys are
    // not dispatched) and the per-partition top-k of ORDER BY ... LIMIT.
    val sorted = checkDispatched(
      "SELECT id, x FROM dispatch_data SORT BY sin(x) DESC, id", Seq(Scan, "BolideSort"), "Sin")
    val top = checkDispatched("SELECT id, s, x FROM dispatch_data ORDER BY tan(x), dispatch_len(s) DESC, id LIMIT 25",
      Seq(Scan, "BolideTakeOrderedAndProject"), "Tan", "ScalaUDF")
    assertEquals(25, top.collect().length)
    assertTrue(sorted.collect().length == DispatchSuite.Rows)
  }

  /**
   * The forms the other suites show refused with dispatch off (their operator in Spark, with the
   * reason) are dispatched by default: same answers, operator native.
   */
  @Test def refusedFormsAreDispatchedByDefault(): Unit = {
    Seq(
      "regexp_replace(s, '(?i)S', 'b')" -> "RegExpReplace", // RegexFunctionsSuite: outside the safe subset
      "format_number(x, '#,##0.0')" -> "FormatNumber", // FormatFunctionsSuite: a pattern argument
      "date_format(ts, 'yyyy G')" -> "DateFormatClass", // DatetimePatternSuite: era letters
      "hash(array(i, z))" -> "Murmur3Hash", // HashSuite: hash of an array
      "levenshtein(s, u, i)" -> "Levenshtein", // FunctionsSuite: a nullable threshold
      "cot(x)" -> "Cot" // MathFunctionsSuite: Java's intrinsics
    ).foreach { case (e, cls) =>
      checkDispatched(s"SELECT id, $e FROM dispatch_data", Seq(Scan, Project), cls)
    }
    withConf("spark.sql.ansi.enabled" -> "false") { // CastSuite: binary to string
      checkDispatched("SELECT id, CAST(bin AS STRING) FROM dispatch_data", Seq(Scan, Project), "Cast")
    }
    withConf("spark.sql.icu.caseMappings.enabled" -> "false") { // StringFunctionsSuite: the JVM's mappings
      checkDispatched("SELECT id, upper(u), lower(s) FROM dispatch_data", Seq(Scan, Project), "Upper", "Lower")
    }
    // The condition (Spark's IsNotNull(s) AND the RLIKE) is dispatched whole.
    checkDispatched("SELECT id FROM dispatch_data WHERE s RLIKE '(?i)S1'", Seq(Scan, Filter))
    // The same expressions as checked elsewhere in each mode: answers equal, operators native.
    checkDispatched("SELECT id, to_csv(named_struct('a', s, 'b', i)), get_json_object(j, s) FROM dispatch_data",
      Seq(Scan, Project), "StructsToCsv", "GetJsonObject")
  }

  /** The sketch functions (docs/functions.md: dispatch) over sketches stored as binary columns. */
  @Test def sketchFunctionsOverBinaryColumns(): Unit = {
    val path = TestData.path("dispatch_sketches")
    withConf("spark.bolide.enabled" -> "false") {
      spark.sql("SELECT z, kll_sketch_agg_bigint(id) AS k, hll_sketch_agg(i) AS h, theta_sketch_agg(s) AS t " +
        "FROM dispatch_data GROUP BY z").write.mode("overwrite").parquet(path)
    }
    spark.read.parquet(path).createOrReplaceTempView("dispatch_sketches")
    checkDispatched("SELECT z, kll_sketch_get_n_bigint(k), kll_sketch_get_quantile_bigint(k, 0.5D), " +
      "kll_sketch_to_string_bigint(k) IS NOT NULL, hll_sketch_estimate(h), hll_sketch_estimate(hll_union(h, h)), " +
      "theta_sketch_estimate(t), theta_sketch_estimate(theta_union(t, t)) FROM dispatch_sketches",
      Seq(Scan, Project), "KllSketchGetNBigint", "HllSketchEstimate", "ThetaSketchEstimate")
  }

  @Test def nestedTypesCross(): Unit = {
    // Structs, arrays and maps as results (from_json, from_csv, from_xml: no native kernel) and as
    // inputs (to_xml; size and element_at with their kernels turned off), with nulls at every level.
    checkDispatched("SELECT id, from_json(j, 'a INT, b STRING') AS st, from_json(j, 'map<string,int>') AS m, " +
      "from_json(concat('[', CAST(i AS STRING), ',null,', CAST(z AS STRING), ']'), 'array<int>') AS arr, " +
      "from_csv(s, 'x STRING, y INT') AS csv FROM dispatch_data",
      Seq(Scan, Project), "JsonToStructs", "CsvToStructs")
    checkDispatched("SELECT id, from_xml(concat('<r><a>', CAST(i AS STRING), '</a><t>', CAST(ts AS STRING), '</t></r>'), " +
      "'a INT, t TIMESTAMP') AS x FROM dispatch_data WHERE id % 3 = 0", Seq(Scan, Project), "XmlToStructs")
    withConf("spark.bolide.expression.Size.enabled" -> "false", "spark.bolide.expression.ElementAt.enabled" -> "false") {
      checkDispatched("SELECT id, to_xml(st), size(arr), element_at(m, 'k1'), size(sts) FROM dispatch_nested",
        Seq(Scan, Project), "StructsToXml", "Size", "ElementAt")
    }
  }

  @Test def joinConditionsAreDispatched(): Unit = {
    // The condition beyond the keys is evaluated by the JVM over the candidate pairs, on the
    // broadcast, the shuffled and the nested-loop join, inner and outer.
    val small = "(SELECT * FROM dispatch_data WHERE id % 50 = 1)"
    checkDispatched(s"SELECT a.id, b.id, a.s FROM dispatch_data a JOIN $small b ON a.i = b.i AND sin(a.x) > cos(b.x)",
      Seq(Scan, "BolideBroadcastHashJoin"), "GreaterThan")
    checkDispatched(s"SELECT a.id, b.id FROM dispatch_data a LEFT JOIN $small b ON a.z = b.z AND sin(a.x + b.x) > 0.5D",
      Seq(Scan, "BolideBroadcastHashJoin"), "GreaterThan")
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true") {
      checkDispatched(s"SELECT a.id, b.id FROM dispatch_data a FULL JOIN $small b ON a.i = b.i AND tan(a.x) < b.x",
        Seq(Scan, "BolideSortMergeJoin"), "LessThan")
    }
    checkDispatched(s"SELECT a.id, b.id FROM $small a JOIN (SELECT * FROM dispatch_data WHERE id < 40) b ON sin(a.x) < sin(b.x)",
      Seq(Scan, "BolideBroadcastNestedLoopJoin"), "LessThan")
    // A semi join stops at a row's first match in Spark: a condition that may raise stays there.
    val semi = spark.sql(s"SELECT a.id FROM dispatch_data a LEFT SEMI JOIN $small b ON a.i = b.i AND sin(a.x) > cos(b.x)")
    semi.collect()
    val (_, fallback) = operatorReport(semi)
    assertTrue(fallback.toString, fallback.exists { case (n, r) => n.contains("Join") && r.contains("can raise errors") })
  }

  @Test def nondeterministicIsNotDispatched(): Unit = {
    val df = spark.sql("SELECT id, sin(x) + rand(7) FROM dispatch_data")
    df.collect()
    val (native, fallback) = operatorReport(df)
    assertFalse(native.mkString(", "), native.contains(Project))
    assertTrue(fallback.toString, fallback.exists { case (n, r) =>
      n.contains("Project") && r.contains("not dispatched to the JVM") && r.contains("not deterministic")
    })
  }
}

object DispatchSuite {
  private var done = false
  val Rows = 30000

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.range(0, Rows, 1, 2).selectExpr(
        "id",
        "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id % 97 AS INT) END AS i",
        "CAST(id % 5 AS INT) AS z",
        "CASE WHEN id % 13 = 0 THEN NULL ELSE (id - 15000) / 977.0D END AS x",
        "CASE WHEN id % 7 = 0 THEN NULL ELSE concat('s', CAST(id % 101 AS STRING)) END AS s",
        "CASE WHEN id % 17 = 0 THEN NULL WHEN id % 3 = 0 THEN 'not json' " +
          "ELSE concat('{\"a\":', CAST(id % 9 AS STRING), '}') END AS j",
        "CASE WHEN id % 19 = 0 THEN NULL ELSE id % 2 = 0 END AS b",
        "CASE WHEN id % 23 = 0 THEN NULL ELSE CAST(id AS DECIMAL(12, 2)) / 100 END AS d",
        "CASE WHEN id % 29 = 0 THEN NULL ELSE CAST(concat('b', CAST(id AS STRING)) AS BINARY) END AS bin",
        "CASE WHEN id % 31 = 0 THEN NULL ELSE date_add(DATE'2020-01-01', CAST(id % 1000 AS INT)) END AS dt",
        "CASE WHEN id % 37 = 0 THEN NULL ELSE timestamp_micros(id * 123456789L) END AS ts",
        "CASE WHEN id % 41 = 0 THEN NULL ELSE CAST(id % 100 AS TINYINT) END AS tb",
        "CASE WHEN id % 43 = 0 THEN NULL ELSE CAST(id % 30000 AS SMALLINT) END AS sh",
        "CASE WHEN id % 47 = 0 THEN NULL ELSE CAST(id / 7.0D AS FLOAT) END AS f",
        "CASE WHEN id % 53 = 0 THEN NULL WHEN id % 5 = 0 THEN '' " +
          "ELSE concat('é', CAST(id % 89 AS STRING), '日本') END AS u")
        .write.mode("overwrite").parquet(TestData.path("dispatch_data"))
      spark.read.parquet(TestData.path("dispatch_data")).createOrReplaceTempView("dispatch_data")
      spark.read.parquet(TestData.path("dispatch_data")).selectExpr(
        "id",
        "CASE WHEN id % 7 = 0 THEN NULL ELSE named_struct('a', i, 's', s, 'd', d) END AS st",
        "CASE WHEN id % 11 = 0 THEN NULL WHEN id % 5 = 0 THEN array() ELSE array(i, z, NULL) END AS arr",
        "CASE WHEN id % 13 = 0 THEN NULL ELSE map('k1', x, concat('j', CAST(z AS STRING)), CAST(NULL AS DOUBLE)) END AS m",
        "CASE WHEN id % 17 = 0 THEN NULL ELSE array(named_struct('t', ts, 'u', u), NULL) END AS sts")
        .write.mode("overwrite").parquet(TestData.path("dispatch_nested"))
      spark.read.parquet(TestData.path("dispatch_nested")).createOrReplaceTempView("dispatch_nested")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
