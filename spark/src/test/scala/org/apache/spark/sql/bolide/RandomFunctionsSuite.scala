package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.classic

/**
 * The partition-seeded and nondeterministic functions (native/expr/random.go: rand, random,
 * randn, randstr, uuid, shuffle, monotonically_increasing_id, spark_partition_id) against Spark:
 * the same analyzed plan (so the same seeds, including those the analyzer draws for rand(),
 * uuid() and shuffle()) runs with Bolide off and on over inputs of several partitions and several
 * batches per partition, the answers must be identical row by row and the projection or filter
 * native. Where the native engine cannot evaluate them on Spark's rows (a CASE branch, a filter
 * over a scan with conjuncts Spark may push into its reader) the operator must stay in Spark with
 * a reason.
 */
class RandomFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Filter = "BolideFilter"

  @Before def setUp(): Unit = RandomFunctionsSuite.ensure(spark)

  /** Small batches: the generators' state must carry over from one batch to the next. */
  private def smallBatches[T](body: => T): T =
    withConf("spark.bolide.batchSize" -> "1000", "spark.sql.parquet.columnarReaderBatchSize" -> "1000")(body)

  /**
   * Runs the analyzed plan of `df` twice, with Bolide off then on, and compares the answers
   * (sorted: every query carries the unique id next to the drawn values) and the native operators.
   */
  private def checkSamePlan(df: DataFrame, expectNative: Seq[String]): DataFrame = {
    val analyzed = df.queryExecution.analyzed
    val session = spark.asInstanceOf[classic.SparkSession]
    def fresh(): DataFrame = classic.Dataset.ofRows(session, analyzed)
    val expected = withConf("spark.bolide.enabled" -> "false") {
      val off = fresh()
      val rows = off.collect().toSeq
      assertTrue("with Bolide off no native operator may run", nativeOperators(off).isEmpty)
      rows
    }
    val on = fresh()
    val actual = on.collect().toSeq
    assertTrue(s"no rows for ${analyzed.treeString}", expected.nonEmpty)
    val e = canonical(expected).sorted
    val a = canonical(actual).sorted
    if (e != a) {
      val firstDiff = e.zip(a).find { case (x, y) => x != y }
      fail(s"answers differ (${e.size} vs ${a.size} rows), first: $firstDiff\nplan:\n${on.queryExecution.executedPlan}")
    }
    val ran = nativeOperators(on)
    expectNative.foreach { n =>
      assertTrue(s"$n expected natively, ran: ${ran.mkString(", ")}\n${bolideReport(on)}", ran.contains(n))
    }
    assertMemoryClean(analyzed.toString)
    on
  }

  private def check(sql: String, expectNative: Seq[String]): DataFrame = checkSamePlan(spark.sql(sql), expectNative)

  private def assertStaysInSpark(sql: String, node: String, reason: String): Unit = {
    val df = spark.sql(sql)
    checkSamePlan(df, Seq())
    val (native, fallback) = operatorReport(df)
    assertFalse(s"$sql: $node ran natively: $native", native.contains("Bolide" + node))
    assertTrue(s"$sql: no $node fallback mentioning '$reason' in $fallback",
      fallback.exists { case (n, r) => n.contains(node) && r.contains(reason) })
  }

  @Test def randAndRandnOverPartitionsAndBatches(): Unit = {
    val q = "SELECT id, rand(42), random(-3), randn(7), rand(), randn(), rand(null), rand(cast(5 AS INT)) FROM rnd"
    check(q, Seq(Scan, Project))
    smallBatches(check(q, Seq(Scan, Project)))
    // A Spark source (range, 4 partitions) below the native projection.
    smallBatches(check("SELECT id, rand(1), randn(2) FROM range(0, 50000, 1, 4)", Seq(Project)))
  }

  @Test def randUnderArithmeticAndComparisons(): Unit = smallBatches {
    // x is null on some rows: Spark skips the right side of x + rand(..) there, and so must Bolide.
    check("SELECT id, rand(1) * 10, x + rand(2), cast(rand(3) * 100 AS FLOAT), -randn(4), " +
      "x * 2 - randn(5), rand(6) < 0.5, x > rand(7), uniform(1.5D, 2.5D, 9), " +
      "b AND rand(10) < 0.5, b OR rand(11) < 0.5, NOT (rand(12) < 0.5) FROM rnd", Seq(Scan, Project))
  }

  @Test def randAfterFilter(): Unit = smallBatches {
    check("SELECT id, rand(3), randn(4), monotonically_increasing_id() FROM rnd WHERE id % 3 <> 1 AND x IS NULL",
      Seq(Scan, Project))
  }

  @Test def randInFilter(): Unit = smallBatches {
    check("SELECT id, x FROM rnd WHERE rand(9) < 0.3", Seq(Scan, Filter))
    // Spark infers isnotnull(x) and evaluates it before x > 5: the draws are for the rows that
    // pass both, in the generated code's order, not the written one.
    check("SELECT id, x FROM rnd WHERE x > 5 AND rand(9) < 0.3", Seq(Scan, Filter))
    check("SELECT id, x FROM rnd WHERE (x > 5 OR b) AND rand(9) < 0.3 AND randn(3) > 0", Seq(Scan, Filter))
    check("SELECT id, x FROM rnd WHERE id % 7 = 0 OR rand(1) < 0.1", Seq(Scan, Filter))
    // Over a Spark source, deterministic conjuncts may follow the draws.
    check("SELECT id FROM range(0, 40000, 1, 4) WHERE rand(5) < 0.25 AND id % 5 <> 0 AND randn(2) > 0", Seq(Filter))
    check("SELECT id, rand(6) FROM range(0, 40000, 1, 4) WHERE id % 3 = 0 AND rand(5) < 0.5", Seq(Filter, Project))
  }

  @Test def refusedWhereSparkSkipsRows(): Unit = {
    // A CASE branch: Spark draws only on the rows taking it.
    assertStaysInSpark("SELECT id, CASE WHEN id % 2 = 0 THEN rand(1) ELSE 0 END FROM rnd", "Project",
      "draws from a per-task generator")
    assertStaysInSpark("SELECT id, x / rand(1) FROM rnd", "Project", "draws from a per-task generator")
    // Over a native scan a conjunct after the draws could be pushed into Spark's reader, which
    // skips row groups by it before drawing.
    assertStaysInSpark("SELECT id FROM rnd WHERE rand(2) < 0.5 AND x > 5", "Filter", "row groups")
  }

  @Test def randstr(): Unit = smallBatches {
    check("SELECT id, randstr(5, 11), randstr(0, 1), randstr(cast(3 AS SMALLINT), 2), randstr(20) " +
      "FROM rnd", Seq(Scan, Project))
  }

  @Test def uuid(): Unit = smallBatches {
    // The analyzer draws uuid's seed: both runs reuse the same analyzed plan.
    check("SELECT id, uuid(), uuid() FROM rnd", Seq(Scan, Project))
    check("SELECT id, uuid() FROM range(0, 30000, 1, 3)", Seq(Project))
  }

  @Test def shuffle(): Unit = smallBatches {
    check("SELECT id, shuffle(arr), shuffle(array(id, x, 3L)), shuffle(strs) FROM rnd",
      Seq(Scan, Project))
  }

  @Test def partitionIds(): Unit = smallBatches {
    check("SELECT id, monotonically_increasing_id(), spark_partition_id(), " +
      "monotonically_increasing_id() + 1 FROM rnd", Seq(Scan, Project))
    check("SELECT id, monotonically_increasing_id(), spark_partition_id() FROM range(0, 30000, 1, 5)", Seq(Project))
    check("SELECT id, spark_partition_id() FROM rnd WHERE spark_partition_id() = 2", Seq(Scan, Filter))
  }
}

object RandomFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      // Four files, one partition each; x and b are null on some rows, arr has null arrays,
      // empty ones and null elements.
      spark.range(0, 24000, 1, 4).selectExpr(
        "id",
        "if(id % 5 = 0, null, cast(id % 97 AS double)) AS x",
        "if(id % 6 = 0, null, id % 4 = 0) AS b",
        "if(id % 9 = 0, null, if(id % 9 = 1, array(), array(id, if(id % 4 = 0, null, id + 1), id * 3, 7L))) AS arr",
        "if(id % 11 = 0, null, array(cast(id AS string), 'a', 'é😀', if(id % 3 = 0, null, 'z'))) AS strs"
      ).write.mode("overwrite").parquet(TestData.path("rnd"))
      spark.read.parquet(TestData.path("rnd")).createOrReplaceTempView("rnd")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
