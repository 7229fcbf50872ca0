package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Spark's higher-order functions (native/expr/lambda*.go) against Spark on this JVM, over a
 * Parquet table with null arrays and maps, empty ones, null elements and values: each query runs
 * with Bolide off and on, the answers must be identical and the projection must have run natively.
 * Bodies read outer columns, lambdas nest, and errors raised inside a lambda carry the same Spark
 * error class on both sides.
 */
class LambdaFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Native = Seq(Scan, Project)

  @Before def setUp(): Unit = LambdaFunctionsSuite.ensure(spark)

  @Test def transform(): Unit = {
    checkNative("SELECT id, transform(ai, x -> x + 1), transform(ai, (x, i) -> x * i + n), " +
      "transform(astr, x -> concat(x, s)), transform(ai, x -> x IS NULL), transform(al, x -> x - id) " +
      "FROM lambda_data", Native)
    checkNative("SELECT id, transform(ai, (x, i) -> i), transform(astr, x -> length(x)), " +
      "transform(ai, x -> CAST(x AS STRING)), transform(m2a, x -> upper(x)) FROM lambda_data", Native)
  }

  @Test def filter(): Unit = {
    checkNative("SELECT id, filter(ai, x -> x > 2), filter(ai, (x, i) -> i % 2 = 0), filter(astr, x -> x = s), " +
      "filter(ai, x -> x IS NULL OR x < n), filter(al, x -> x > id) FROM lambda_data", Native)
  }

  @Test def existsAndForall(): Unit = {
    checkNative("SELECT id, exists(ai, x -> x > n), exists(ai, x -> x = 3), exists(astr, x -> x IS NULL), " +
      "forall(ai, x -> x > 0), forall(ai, x -> x < n), forall(astr, x -> length(x) < 3) FROM lambda_data", Native)
    // Bodies that can raise: Spark stops at the deciding element, before the overflowing one.
    checkNative("SELECT id, exists(ai, x -> x + n > 100), exists(array(5, 2147483647, id), x -> x + 1 > 4), " +
      "forall(array(0, 2147483647, id), x -> x + 1 > 4), forall(ai, x -> x + 1 > 0) FROM lambda_data", Native)
    sameError("SELECT id, exists(array(0, 2147483647, id), x -> x + 1 > 4) FROM lambda_data")
    withConf("spark.sql.legacy.followThreeValuedLogicInArrayExists" -> "false") {
      checkNative("SELECT id, exists(ai, x -> x > n), exists(ai, x -> x = 3) FROM lambda_data", Native)
    }
  }

  @Test def aggregate(): Unit = {
    checkNative("SELECT id, aggregate(ai, 0, (acc, x) -> acc + coalesce(x, 0)), " +
      "aggregate(ai, n, (acc, x) -> acc + x, acc -> acc - 10), aggregate(ai, CAST(0 AS BIGINT), (acc, x) -> acc + x + id), " +
      "reduce(astr, '', (acc, x) -> concat(acc, coalesce(x, '?'))), aggregate(al, 1L, (acc, x) -> acc * 2 + x, acc -> acc IS NULL) " +
      "FROM lambda_data", Native)
  }

  @Test def nestedValues(): Unit = {
    checkNative("SELECT id, transform(ai, x -> named_struct('v', x, 'next', x + 1)), " +
      "aggregate(ai, named_struct('s', CAST(n AS BIGINT), 'c', CAST(id AS BIGINT)), (acc, x) -> named_struct('s', acc.s + coalesce(x, 0), 'c', acc.c + 1L), " +
      "acc -> acc.s * 100 + acc.c), transform(ai, x -> array(x, n)) FROM lambda_data", Native)
  }

  @Test def zipWith(): Unit = {
    checkNative("SELECT id, zip_with(ai, ai2, (x, y) -> x + y), zip_with(ai, astr, (x, y) -> concat(CAST(x AS STRING), y)), " +
      "zip_with(ai2, ai, (x, y) -> coalesce(x, y, n)) FROM lambda_data", Native)
  }

  @Test def mapFunctions(): Unit = {
    checkNative("SELECT id, map_filter(m, (k, v) -> v > 1), map_filter(m, (k, v) -> k = s OR v IS NULL), " +
      "transform_values(m, (k, v) -> v * n), transform_values(m, (k, v) -> concat(k, s)), " +
      "transform_keys(m, (k, v) -> concat(k, '#', CAST(id AS STRING))), transform_keys(mi, (k, v) -> k * 10 + coalesce(v, 0)) " +
      "FROM lambda_data", Native)
    withConf("spark.sql.mapKeyDedupPolicy" -> "LAST_WIN") {
      checkNative("SELECT id, transform_keys(m, (k, v) -> length(k)), transform_keys(mi, (k, v) -> k % 2) " +
        "FROM lambda_data", Native)
    }
  }

  @Test def mapZipWith(): Unit = {
    checkNative("SELECT id, map_zip_with(m, map_filter(m, (k, v) -> v > 1), (k, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0) + n), " +
      "map_zip_with(transform_keys(m, (k, v) -> concat(k, coalesce(s, '?'))), m, (k, v1, v2) -> concat(k, '=', CAST(v1 AS STRING), '/', CAST(v2 AS STRING))), " +
      "map_zip_with(mi, mi, (k, v1, v2) -> v1 * v2), map_zip_with(m, m, (k, v1, v2) -> concat(k, s)) FROM lambda_data", Native)
  }

  @Test def nestedLambdas(): Unit = {
    checkNative("SELECT id, transform(aa, a -> transform(a, x -> x + n + size(a))), " +
      "transform(ai, x -> exists(ai2, y -> y = x)), filter(aa, a -> exists(a, x -> x > id)), " +
      "transform(ai, x -> aggregate(ai2, x, (acc, y) -> acc + y)) FROM lambda_data", Native)
  }

  @Test def inConditionsAndFilters(): Unit = {
    checkNative("SELECT id, CASE WHEN id BETWEEN 2 AND 5 THEN aggregate(ai, 0, (a, x) -> a + coalesce(x, 0) * 2) ELSE -1 END, " +
      "id > 4 AND exists(ai, x -> x > 3), size(transform(ai, x -> x + 2)) FROM lambda_data", Native)
    // Spark evaluates the branch only for id = 6, whose array overflows: the same error, from the same row.
    sameError("SELECT id, CASE WHEN id = 6 THEN transform(ai, x -> x * 2) END FROM lambda_data", native = false)
    checkNative("SELECT id, CASE WHEN id < 6 THEN aggregate(ai, 0, (a, x) -> a + x * 2) END FROM lambda_data", Native)
    checkNative("SELECT id FROM lambda_data WHERE exists(ai, x -> x = 3)", Seq(Scan))
  }

  @Test def errors(): Unit = {
    sameError("SELECT transform(ai, x -> x + 2147483647) FROM lambda_data")
    sameError("SELECT transform(ai, x -> x * 2) FROM lambda_data")
    sameError("SELECT aggregate(ai, 2147483600, (acc, x) -> acc + x * 100) FROM lambda_data")
    sameError("SELECT transform_keys(m, (k, v) -> 1) FROM lambda_data")
    sameError("SELECT transform_keys(m, (k, v) -> IF(v > 1, NULL, k)) FROM lambda_data")
  }

  /** transform_keys' map-building errors carry Spark's message too. */
  @Test def mapKeyErrorMessages(): Unit = {
    for (sql <- Seq("SELECT transform_keys(m, (k, v) -> 1) FROM lambda_data",
      "SELECT transform_keys(mi, (k, v) -> CAST(v AS INT)) FROM lambda_data WHERE id = 3")) {
      def firstLine(t: Throwable) = t.getMessage.split("\n").head
      val off = withConf("spark.bolide.enabled" -> "false") { firstLine(thrownBy(spark.sql(sql).collect())) }
      assertEquals(sql, off, firstLine(thrownBy(spark.sql(sql).collect())))
    }
  }

  /** Not-native shapes fall back with the reason, and still answer. */
  @Test def refusals(): Unit = {
    // rand() is seeded per partition: compare plans, not answers.
    val df2 = spark.sql("SELECT id, transform(ai, x -> x + rand(7)) FROM lambda_data")
    df2.collect()
    val (native2, fallback2) = operatorReport(df2)
    assertFalse(native2.mkString(", "), native2.contains(Project))
    assertTrue(fallback2.mkString("; "), fallback2.exists(_._2.contains("non-deterministic")))
  }

  /** The query fails with the same error class with Bolide off and on; on, the projection was native. */
  private def sameError(sql: String, native: Boolean = true): Unit = {
    val off = withConf("spark.bolide.enabled" -> "false") { errorClassOf(thrownBy(spark.sql(sql).collect())) }
    val df = spark.sql(sql)
    val on = errorClassOf(thrownBy(df.collect()))
    assertEquals(sql, off, on)
    assertTrue(sql, off.isDefined)
    if (native) {
      val (ops, fallback) = operatorReport(df)
      assertTrue(s"$sql: ${ops.mkString(", ")}; ${fallback.mkString("; ")}", ops.contains(Project))
    }
  }
}

object LambdaFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, array(1, 2, 3), array(10, 20), array('a', 'ü€', ''), map('a', 1, 'b', 2), map(1, 1, 2, 2),
          |      3, 'ü€', array(array(1, 2), array()), array(5L, 6L), array('x')),
          |  (1, array(), array(1), array(), map(), map(), 1, '', array(), array(), array()),
          |  (2, NULL, array(1, 2), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          |  (3, array(NULL, 3), NULL, array(NULL, 'b'), map('x', NULL, 'b', 5), map(3, NULL), 4, 'b',
          |      array(NULL, array(1, NULL)), array(NULL, -1L), array(NULL)),
          |  (4, array(NULL), array(NULL, NULL, 7), array(NULL), map('k', 7), map(-1, 7, 0, 8), NULL, NULL,
          |      array(array(NULL)), array(1000000000000L), array('ü', 'a')),
          |  (5, array(4, 3, 3, NULL), array(1, 2, 3, 4, 5), array('😀', '😀'), map('a', 1, 'ü', 2, 'cc', 3),
          |      map(5, 1, 6, 2, 7, 3), 4, '😀', array(array(3), array(4, 5)), array(1L, 2L, 3L), array('b', 'c')),
          |  (6, array(2147480000), array(), array('zz'), map('zz', 1), map(1, 2), 0, 'zz', array(array(0)),
          |      array(0L), array('q'))
          |AS t(id, ai, ai2, astr, m, mi, n, s, aa, al, m2a)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("lambda_data"))
      spark.read.parquet(TestData.path("lambda_data")).createOrReplaceTempView("lambda_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
