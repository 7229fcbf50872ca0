package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * The array, map and struct functions of native/expr (structfield.go, arraysize.go,
 * arraysearch.go) against Spark on this JVM, over a Parquet table of nested columns with null
 * collections, null elements, empty collections, NaN and both zeros, and multi-byte strings: each
 * query runs with Bolide off and on, the answers must be identical and the projection must have
 * run natively over the native scan's nested columns.
 */
class CollectionFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = CollectionFunctionsSuite.ensure(spark)

  @Test def nestedColumnsPassThroughAProjection(): Unit = {
    checkNative("SELECT id, ai, m, st, id + 1 FROM coll_data", Seq(Scan, Project))
    checkNative("SELECT id, ai IS NULL, m IS NOT NULL, st IS NULL FROM coll_data", Seq(Scan, Project))
  }

  @Test def structFields(): Unit = {
    checkNative("SELECT id, st.a, st.b, CAST(st.a AS BIGINT) + 1, upper(st.b) FROM coll_data", Seq(Scan, Project))
    checkNative("SELECT id, st.c.d, st.c FROM coll_data", Seq(Scan, Project))
  }

  @Test def sizes(): Unit = {
    checkNative("SELECT id, size(ai), cardinality(m), size(ad), size(astr) FROM coll_data", Seq(Scan, Project))
    withConf("spark.sql.ansi.enabled" -> "false", "spark.sql.legacy.sizeOfNull" -> "true") {
      checkNative("SELECT id, size(ai), cardinality(m), size(astr) FROM coll_data", Seq(Scan, Project))
    }
    withConf("spark.sql.ansi.enabled" -> "true", "spark.sql.legacy.sizeOfNull" -> "true") {
      checkNative("SELECT id, size(ai), size(m) FROM coll_data", Seq(Scan, Project))
    }
  }

  @Test def containsAndPosition(): Unit = {
    checkNative("SELECT id, array_contains(ai, 3), array_position(ai, 3), array_contains(ai, n), " +
      "array_position(ai, n), array_contains(ai, CAST(NULL AS INT)) FROM coll_data", Seq(Scan, Project))
    checkNative("SELECT id, array_contains(ad, CAST('NaN' AS DOUBLE)), array_position(ad, -0.0D), " +
      "array_contains(ad, 0.0D), array_position(ad, CAST('NaN' AS DOUBLE)), array_contains(ad, d) FROM coll_data",
      Seq(Scan, Project))
    checkNative("SELECT id, array_contains(astr, 'ü€'), array_position(astr, s), array_contains(astr, '') " +
      "FROM coll_data", Seq(Scan, Project))
    checkNative("SELECT id FROM coll_data WHERE array_contains(ai, 3) OR size(m) > 1", Seq(Scan))
  }

  @Test def elementAccess(): Unit = {
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative("SELECT id, ai[1], ai[0], ai[n], ai[-1], astr[1], ad[2], element_at(ai, 2), element_at(ai, -1), " +
        "element_at(astr, -3), element_at(ai, 100), element_at(ai, CAST(NULL AS INT)) FROM coll_data", Seq(Scan, Project))
    }
    checkNative("SELECT id, try_element_at(ai, 1), try_element_at(astr, -1), try_element_at(ad, 5) FROM coll_data",
      Seq(Scan, Project))
  }

  /**
   * ANSI element access raises INVALID_ARRAY_INDEX*, which has no kernel: Spark's code evaluates it
   * (dispatch), or, with dispatch off, the projection stays in Spark. Same error either way.
   */
  @Test def ansiElementAccessStaysInSpark(): Unit = {
    withConf("spark.bolide.dispatch.enabled" -> "false") {
      val df = checkNative("SELECT id, element_at(ai, 1), ai[0] FROM coll_data WHERE size(ai) > 0", Seq(Scan))
      assertFalse(operatorReport(df)._1.contains(Project))
    }
    checkNative("SELECT id, element_at(ai, 1), ai[0] FROM coll_data WHERE size(ai) > 0", Seq(Scan, Project))
    val sql = "SELECT id, element_at(ai, 3) FROM coll_data"
    val off = withConf("spark.bolide.enabled" -> "false") { errorClassOf(thrownBy(spark.sql(sql).collect())) }
    val on = errorClassOf(thrownBy(spark.sql(sql).collect()))
    assertEquals(off, on)
  }

  @Test def minAndMax(): Unit = {
    checkNative("SELECT id, array_min(ai), array_max(ai), array_min(ad), array_max(ad), array_min(astr), " +
      "array_max(astr), array_max(map_values(m)), array_min(map_keys(m)) FROM coll_data", Seq(Scan, Project))
  }

  @Test def constructors(): Unit = {
    checkNative("SELECT id, array(id, n), array(s, 'ü€', NULL), array(d, -0.0D), named_struct('k', id, 'v', s), " +
      "struct(n, ai, m), named_struct('x', st.a, 'y', array(n)) FROM coll_data", Seq(Scan, Project))
    checkNative("SELECT id, size(array(n, n, 1)), array_max(array(n, id * 2)), array_contains(array(s, 'x'), 'b') " +
      "FROM coll_data", Seq(Scan, Project))
    // Arrays whose type says they hold no null (containsNull = false) run natively too.
    checkNative("SELECT id, array_max(array(coalesce(n, 0), 3)), array_contains(array(coalesce(n, 0), 7), 7), " +
      "array_position(array(coalesce(s, ''), 'x'), 'x'), try_element_at(array(coalesce(n, 0), 5), 2) FROM coll_data",
      Seq(Scan, Project))
  }

  @Test def mapParts(): Unit = {
    checkNative("SELECT id, map_keys(m), map_values(m), size(map_keys(m)), array_contains(map_keys(m), 'a'), " +
      "array_position(map_values(m), 2) FROM coll_data", Seq(Scan, Project))
  }

  /**
   * Nested elements have no kernel: Spark's code evaluates the call (dispatch), or, with dispatch
   * off, the projection stays in Spark and still answers.
   */
  @Test def nestedElementsFallBack(): Unit = {
    withConf("spark.bolide.dispatch.enabled" -> "false") {
      val df = checkNative("SELECT id, array_contains(aa, array(1, 2)) FROM coll_data", Seq(Scan))
      val (native, fallback) = operatorReport(df)
      assertFalse(s"the projection ran natively: ${native.mkString(", ")}", native.contains(Project))
      assertTrue(fallback.mkString("; "), fallback.exists(_._1 == "Project"))
    }
    checkNative("SELECT id, array_contains(aa, array(1, 2)) FROM coll_data", Seq(Scan, Project))
  }

  /**
   * A struct with a repeated field name (struct(n, n) names both fields n) cannot cross to the
   * JVM, whose Arrow keys a struct's children by name: the projection stays in Spark, with the
   * reason, and answers.
   */
  @Test def structWithRepeatedFieldNamesFallsBack(): Unit = {
    val df = checkNative("SELECT id, struct(n, n, s), named_struct('a', id, 'a', s) FROM coll_data", Seq(Scan))
    val (native, fallback) = operatorReport(df)
    assertFalse(s"the projection ran natively: ${native.mkString(", ")}", native.contains(Project))
    assertTrue(fallback.mkString("; "), fallback.exists { case (op, why) => op == "Project" && why.contains("two fields named") })
  }
}

object CollectionFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, array(1, 2, 3), map('a', 1, 'b', 2), named_struct('a', 1, 'b', 'x', 'c', named_struct('d', 1.5D)),
          |      array(1.0D, -0.0D, CAST('NaN' AS DOUBLE)), array('a', 'ü€', ''), 3, 0.0D, 'ü€', array(array(1, 2))),
          |  (1, array(), map(), named_struct('a', NULL, 'b', 'ü€😀', 'c', NULL),
          |      array(), array(), 1, -0.0D, '', array()),
          |  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          |  (3, array(NULL, 3), map('x', NULL), named_struct('a', -2147483648, 'b', '', 'c', named_struct('d', NULL)),
          |      array(NULL, 0.0D), array(NULL, 'b'), 4, CAST('NaN' AS DOUBLE), 'b', array(NULL, array(1, 2))),
          |  (4, array(NULL), map('k', 7), named_struct('a', 2147483647, 'b', NULL, 'c', named_struct('d', -0.0D)),
          |      array(CAST('NaN' AS DOUBLE)), array(NULL), NULL, 1.0D, NULL, array(array())),
          |  (5, array(4, 3, 3, NULL), map('a', 1, 'ü', 2, 'c', 3), named_struct('a', 5, 'b', 'y', 'c', named_struct('d', 2.0D)),
          |      array(-0.0D, 0.0D), array('😀', '😀'), 4, 2.0D, '😀', array(array(3)))
          |AS t(id, ai, m, st, ad, astr, n, d, s, aa)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("coll_data"))
      spark.read.parquet(TestData.path("coll_data")).createOrReplaceTempView("coll_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
