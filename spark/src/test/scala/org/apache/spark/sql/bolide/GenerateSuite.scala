package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * BolideGenerate (native/ops/generate.go): explode, posexplode, inline (outer or not) and stack
 * over a Parquet table with null and empty arrays and maps, null elements, null structs and
 * large arrays, against Spark on this JVM: each query runs with Bolide off and on, the answers
 * must be identical and the generator must have run natively.
 */
class GenerateSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Gen = "BolideGenerate"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = GenerateSuite.ensure(spark)

  @Test def explodeArrays(): Unit = {
    checkNative("SELECT id, explode(ai) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode_outer(ai) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, s, explode(astr) AS x FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode_outer(astr) AS x FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT explode(aai) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode(ast) FROM gen_data", Seq(Scan, Gen))
    // The rows' order is Spark's: input row by input row, elements in order.
    checkNative("SELECT id, x FROM gen_data LATERAL VIEW explode(ai) t AS x", Seq(Scan, Gen), ordered = true)
    checkNative("SELECT id, k, v FROM gen_data LATERAL VIEW OUTER explode(m) t AS k, v", Seq(Scan, Gen), ordered = true)
  }

  @Test def posexplode(): Unit = {
    checkNative("SELECT id, posexplode(ai) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, posexplode_outer(ai) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, posexplode(m) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, posexplode_outer(m) FROM gen_data", Seq(Scan, Gen))
  }

  @Test def explodeMaps(): Unit = {
    checkNative("SELECT id, explode(m) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode_outer(m) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, k, v FROM gen_data LATERAL VIEW OUTER explode(m) t AS k, v", Seq(Scan, Gen))
  }

  @Test def inline(): Unit = {
    checkNative("SELECT id, inline(ast) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, inline_outer(ast) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, a, b FROM gen_data LATERAL VIEW inline(ast) t AS a, b", Seq(Scan, Gen))
    checkNative("SELECT id, a, b FROM gen_data LATERAL VIEW OUTER inline(ast) t AS a, b", Seq(Scan, Gen))
  }

  @Test def stack(): Unit = {
    checkNative("SELECT id, stack(2, s, id, 'x', CAST(n AS BIGINT)) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT stack(3, id, s, id + 1, s, id + 2) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, stack(1, ai, m) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, c0, c1 FROM gen_data LATERAL VIEW stack(2, id, n, CAST(n AS BIGINT), NULL) t AS c0, c1", Seq(Scan, Gen))
  }

  @Test def lateralViews(): Unit = {
    // Two generators in a row, and a generator under a filter and a projection.
    checkNative("SELECT id, x, y FROM gen_data LATERAL VIEW explode(ai) a AS x LATERAL VIEW OUTER explode(astr) b AS y",
      Seq(Scan, Gen, Gen))
    checkNative("SELECT id, x * 2 FROM gen_data LATERAL VIEW explode(ai) a AS x WHERE x > 1", Seq(Scan, Gen))
    checkNative("SELECT id, p, x FROM gen_data LATERAL VIEW posexplode(ai) a AS p, x WHERE p % 2 = 0", Seq(Scan, Gen))
  }

  @Test def aggregateAfterGenerate(): Unit = {
    checkNative("SELECT x, count(*), sum(id) FROM gen_data LATERAL VIEW explode(ai) a AS x GROUP BY x",
      Seq(Scan, Gen))
    checkNative("SELECT k, sum(v), count(v) FROM gen_data LATERAL VIEW OUTER explode(m) t AS k, v GROUP BY k",
      Seq(Scan, Gen))
    checkNative("SELECT count(*), sum(pos) FROM gen_data LATERAL VIEW posexplode(big) t AS pos, x", Seq(Scan, Gen))
  }

  /** Rows with tens of thousands of elements: the output comes in bounded batches. */
  @Test def manyRowsPerInputRow(): Unit = {
    checkNative("SELECT id, x FROM gen_data LATERAL VIEW explode(big) t AS x", Seq(Scan, Gen))
    checkNative("SELECT id, pos, x FROM gen_data LATERAL VIEW OUTER posexplode(big) t AS pos, x WHERE pos % 997 = 3",
      Seq(Scan, Gen))
    withConf("spark.bolide.batchSize" -> "7") {
      checkNative("SELECT id, pos, x FROM gen_data LATERAL VIEW posexplode_outer(ai) t AS pos, x", Seq(Scan, Gen))
    }
  }

  @Test def sequence(): Unit = {
    checkNative("SELECT id, sequence(n, 5), sequence(5, n), sequence(CAST(n AS BIGINT), id % 7) FROM gen_data", Seq(Scan, Project))
    checkNative("SELECT id, sequence(n, 12, 3), sequence(CAST(n AS TINYINT), CAST(-5 AS TINYINT), CAST(-2 AS TINYINT)), " +
      "sequence(CAST(id AS SMALLINT), CAST(id + 3 AS SMALLINT)) FROM gen_data WHERE n IS NULL OR n <= 12", Seq(Scan, Project))
    checkNative("SELECT id, sequence(d, DATE'2024-03-05'), sequence(DATE'2024-02-27', d) FROM gen_data", Seq(Scan, Project))
    // A generator over a sequence, and a sequence of zero step between equal boundaries.
    checkNative("SELECT id, x FROM gen_data LATERAL VIEW explode(sequence(1, n, 1)) t AS x WHERE n > 0", Seq(Scan, Gen))
    checkNative("SELECT id, sequence(n, n, 0) FROM gen_data", Seq(Scan, Project))
    // Interval steps stay in Spark (the projection falls back), with the same answer.
    checkNative("SELECT id, sequence(d, DATE'2024-03-09', INTERVAL 2 DAY) FROM gen_data", Seq(Scan))
  }

  /** Spark's sequence errors, raised natively with the same class and exception type. */
  @Test def sequenceErrors(): Unit = {
    for (ansi <- Seq("false", "true")) withConf("spark.sql.ansi.enabled" -> ansi) {
      for (sql <- Seq("SELECT id, sequence(n, 0, 1) FROM gen_data WHERE n > 0",
        "SELECT id, sequence(n, 10, 0) FROM gen_data WHERE n = 3",
        "SELECT id, sequence(-2147483648 + n, 2147483647) FROM gen_data WHERE n = 1",
        "SELECT id, sequence(CAST(-9223372036854775807 AS BIGINT) - n, CAST(9223372036854775807 AS BIGINT)) FROM gen_data WHERE n = 1")) {
        val (off, on) = errorClassBothWays(sql)
        assertTrue(sql, off.isDefined)
        assertEquals(sql, off, on)
        // The error came from the native projection.
        assertTrue(sql, nativeOperators(spark.sql(sql)).contains(Project))
      }
    }
  }

  @Test def strToMap(): Unit = {
    checkNative("SELECT id, str_to_map(kv), str_to_map(kv, ';', '='), str_to_map(kv, '[;,]', '=+'), str_to_map(s, 'c') " +
      "FROM gen_data WHERE id % 100 < 3 OR kv IS NULL", Seq(Scan, Project))
    withConf("spark.sql.mapKeyDedupPolicy" -> "LAST_WIN") {
      checkNative("SELECT id, str_to_map(dup), str_to_map(kv, ';', '=') FROM gen_data", Seq(Scan, Project))
    }
    checkNative("SELECT id, k, v FROM gen_data LATERAL VIEW explode(str_to_map(kv, ';', '=')) t AS k, v", Seq(Scan, Gen))
  }

  @Test def strToMapErrors(): Unit = {
    for (ansi <- Seq("false", "true")) withConf("spark.sql.ansi.enabled" -> ansi) {
      val sql = "SELECT id, str_to_map(dup) FROM gen_data"
      val (off, on) = errorClassBothWays(sql)
      assertEquals(Some("DUPLICATED_MAP_KEY"), off)
      assertEquals(sql, off, on)
      assertTrue(sql, nativeOperators(spark.sql(sql)).contains(Project))
    }
  }

  @Test def generatorOverExpressions(): Unit = {
    checkNative("SELECT id, explode(array(id, id + 1, n)) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode(map(id, s)) FROM gen_data", Seq(Scan, Gen))
    checkNative("SELECT id, explode(split(s, 'b')) FROM gen_data", Seq(Scan, Gen))
  }

  @Test def operatorSwitch(): Unit = {
    withConf("spark.bolide.exec.generate.enabled" -> "false") {
      val df = checkNative("SELECT id, explode(ai) FROM gen_data", Seq(Scan))
      assertFalse(nativeOperators(df).contains(Gen))
      assertTrue(bolideReport(df).contains("spark.bolide.exec.generate.enabled=false"))
    }
  }
}

object GenerateSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, array(3, 1, NULL, 2), array('ü€', NULL, ''), array(array(1, 2), array(), NULL),
          |      map('a', 1, 'b', NULL), array(named_struct('a', 1, 'b', 'x'), NULL, named_struct('a', NULL, 'b', 'y')),
          |      3, 'abc'),
          |  (1, array(), array(), array(), map(), array(), 1, ''),
          |  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          |  (3, array(NULL), array(NULL, 'b'), array(NULL), map('ü€', 3), array(CAST(NULL AS STRUCT<a: INT, b: STRING>)),
          |      4, 'bb'),
          |  (4, array(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17), array('z', 'y'), array(array(4, NULL)),
          |      map('k', 5, 'l', 6, 'm', NULL), array(named_struct('a', 5, 'b', NULL), named_struct('a', 6, 'b', 'ü')),
          |      -1, 'cbd')
          |AS t(id, ai, astr, aai, m, ast, n, s)""".stripMargin)
        .crossJoin(spark.range(0, 40).selectExpr("id AS rep"))
        .selectExpr("id * 100 + rep AS id", "ai", "astr", "aai", "m", "ast", "n", "s",
          "IF(rep % 13 = 0, sequence(0, CAST(id * 10000 + rep AS INT)), IF(rep % 13 = 1, array(), NULL)) AS big",
          "IF(rep % 9 = 4, NULL, date_add(DATE'2024-02-26', CAST(rep % 11 AS INT))) AS d",
          "CASE rep % 5 WHEN 0 THEN 'a=1;b==2;c' WHEN 1 THEN '' WHEN 2 THEN NULL WHEN 3 THEN 'ü€=é,x=y;;z=' " +
            "ELSE concat('k', CAST(rep AS STRING), '=', CAST(id AS STRING)) END AS kv",
          "IF(rep % 4 = 0, 'a:1,b:2,a:3', concat('q:', CAST(rep AS STRING))) AS dup")
        .repartition(3).write.mode("overwrite").parquet(TestData.path("gen_data"))
      spark.read.parquet(TestData.path("gen_data")).createOrReplaceTempView("gen_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
