package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * The array-reshaping, set and map-building functions of native/expr (arrayset.go,
 * arrayremove.go, arraysort.go, arrayreshape.go, arrayjoin.go, arrayszip.go, mapentries.go)
 * against Spark on this JVM, over a Parquet table with null arrays, null elements, empty arrays,
 * duplicates, NaN and both zeros, and multi-byte strings: each query runs with Bolide off and on,
 * the answers must be identical and the projection must have run natively.
 */
class ArrayMapFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = ArrayMapFunctionsSuite.ensure(spark)

  @Test def distinctAndSetOps(): Unit = {
    checkNative("SELECT id, array_distinct(ai), array_distinct(ad), array_distinct(astr) FROM arrfn_data", Seq(Scan, Project))
    checkNative("SELECT id, array_union(ai, bi), array_intersect(ai, bi), array_except(ai, bi), " +
      "array_union(bi, ai), array_intersect(bi, ai), array_except(bi, ai) FROM arrfn_data", Seq(Scan, Project))
    checkNative("SELECT id, array_union(ad, bd), array_intersect(ad, bd), array_except(ad, bd), " +
      "array_intersect(bd, ad), array_except(bd, ad) FROM arrfn_data", Seq(Scan, Project))
    checkNative("SELECT id, array_union(astr, bstr), array_intersect(astr, bstr), array_except(bstr, astr) " +
      "FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def overlap(): Unit = {
    checkNative("SELECT id, arrays_overlap(ai, bi), arrays_overlap(ad, bd), arrays_overlap(astr, bstr), " +
      "arrays_overlap(bi, ai) FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def remove(): Unit = {
    checkNative("SELECT id, array_remove(ai, 3), array_remove(ai, n), array_remove(ad, 0.0D), " +
      "array_remove(ad, -0.0D), array_remove(ad, CAST('NaN' AS DOUBLE)), array_remove(ad, d), " +
      "array_remove(astr, s), array_remove(astr, 'ü€') FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def sortArray(): Unit = {
    checkNative("SELECT id, sort_array(ai), sort_array(ai, false), sort_array(ad), sort_array(ad, false), " +
      "sort_array(astr), sort_array(astr, false) FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def sliceFlattenRepeat(): Unit = {
    checkNative("SELECT id, slice(ai, 1, 2), slice(ai, -2, 5), slice(astr, 2, 10), slice(ad, 5, 1), " +
      "slice(ai, -10, 2), slice(ai, 1, 0), slice(ai, 2, 1) FROM arrfn_data", Seq(Scan, Project))
    // A column start may be 0 (which raises): the projection stays in Spark and still answers.
    checkNative("SELECT id, slice(ai, n, 1), array_insert(ai, n, 1) FROM arrfn_data WHERE n <> 0", Seq(Scan))
    checkNative("SELECT id, flatten(aai), size(flatten(aai)) FROM arrfn_data", Seq(Scan, Project))
    checkNative("SELECT id, array_repeat(s, n), array_repeat(id, 2), array_repeat(ai, 2), array_repeat(d, n) " +
      "FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def insert(): Unit = {
    for (legacy <- Seq("false", "true")) {
      withConf("spark.sql.legacy.negativeIndexInArrayInsert" -> legacy) {
        checkNative("SELECT id, array_insert(ai, 1, n), array_insert(ai, -1, 9), array_insert(ai, 6, n), " +
          "array_insert(ai, -6, 9), array_insert(ai, -4, 9), array_insert(astr, 2, s), array_insert(ad, -2, d) " +
          "FROM arrfn_data", Seq(Scan, Project))
      }
    }
  }

  @Test def join(): Unit = {
    checkNative("SELECT id, array_join(astr, ', '), array_join(astr, s), array_join(astr, '|', '∅'), " +
      "array_join(bstr, s, s), array_join(astr, '-', CAST(NULL AS STRING)) FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def zip(): Unit = {
    checkNative("SELECT id, arrays_zip(ai, astr), arrays_zip(ai, bi, ad), arrays_zip(aai, bstr) FROM arrfn_data",
      Seq(Scan, Project))
  }

  @Test def mapEntries(): Unit = {
    checkNative("SELECT id, map_entries(m), size(map_entries(m)) FROM arrfn_data", Seq(Scan, Project))
  }

  @Test def mapConstructors(): Unit = {
    checkNative("SELECT id, map(id, s, id + 1, 'x'), map('k', ai), map(s, n) FROM arrfn_data WHERE s IS NOT NULL",
      Seq(Scan, Project))
    checkNative("SELECT id, map_from_arrays(ai, astr), map_from_arrays(array(id, id + 1), array(s, s)) FROM arrfn_data " +
      "WHERE id IN (1, 2)", Seq(Scan, Project))
    checkNative("SELECT id, map_from_arrays(array(id, id + 1), array(s, s)), map_from_entries(arrays_zip(ai, astr)) " +
      "FROM arrfn_data WHERE id IN (1, 2, 6)", Seq(Scan, Project))
    checkNative("SELECT id, map_concat(m, map('new', n)), map_concat(m, map('q', id), map('r', n)) FROM arrfn_data",
      Seq(Scan, Project))
    withConf("spark.sql.mapKeyDedupPolicy" -> "LAST_WIN") {
      checkNative("SELECT id, map(s, 1, s, 2, 'z', 3), map_from_arrays(array(s, 'z', s), array(id, 2, 3)), " +
        "map_concat(m, m, map('a', id)), map_from_entries(arrays_zip(array(id, id), array(id, n))) FROM arrfn_data WHERE id IN (1, 6)",
        Seq(Scan, Project))
    }
  }

  /** Duplicate and null keys raise the same Spark error with Bolide on as off. */
  @Test def mapErrors(): Unit = {
    for (sql <- Seq("SELECT id, map(s, 1, s, 2) FROM arrfn_data WHERE s IS NOT NULL",
      "SELECT id, map(s, 1) FROM arrfn_data WHERE s IS NULL",
      "SELECT id, map_concat(m, m) FROM arrfn_data",
      "SELECT id, map_from_arrays(ai, bi) FROM arrfn_data WHERE id IN (0, 6)",
      "SELECT id, map_from_arrays(astr, astr) FROM arrfn_data WHERE id = 4")) {
      val off = withConf("spark.bolide.enabled" -> "false") { errorClassOf(thrownBy(spark.sql(sql).collect())) }
      val on = errorClassOf(thrownBy(spark.sql(sql).collect()))
      assertTrue(sql, off.isDefined)
      assertEquals(sql, off, on)
    }
  }

  /** Spark's errors (slice start 0, array_insert position 0) are raised by Spark either way. */
  @Test def errorsStayInSpark(): Unit = {
    for (sql <- Seq("SELECT id, slice(ai, 0, 1) FROM arrfn_data", "SELECT id, slice(ai, 1, -1) FROM arrfn_data",
      "SELECT id, array_insert(ai, 0, 1) FROM arrfn_data")) {
      val off = withConf("spark.bolide.enabled" -> "false") { errorClassOf(thrownBy(spark.sql(sql).collect())) }
      val on = errorClassOf(thrownBy(spark.sql(sql).collect()))
      assertTrue(sql, off.isDefined)
      assertEquals(sql, off, on)
    }
  }
}

object ArrayMapFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, array(3, 1, 2, 2, NULL), array(2, 3, NULL),
          |      array(0.0D, -0.0D, CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE), NULL, 1.0D), array(-0.0D, CAST('NaN' AS DOUBLE), 2.0D),
          |      array('ü€', 'a', 'ü€', NULL, ''), array('a', '😀'), array(array(1, 2), array(), array(NULL)), 3, 0.0D, 'ü€',
          |      map('a', 1, 'b', NULL)),
          |  (1, array(), array(1), array(), array(0.0D), array(), array(NULL), array(), 1, -0.0D, '', map()),
          |  (2, NULL, array(1, 2), NULL, array(1.0D), NULL, array('x'), NULL, NULL, NULL, NULL, NULL),
          |  (3, array(NULL, 3), NULL, array(NULL, 0.0D), NULL, array(NULL, 'b'), NULL, array(array(3), NULL), 4,
          |      CAST('NaN' AS DOUBLE), 'b', map('ü€', 3)),
          |  (4, array(NULL), array(NULL), array(CAST('NaN' AS DOUBLE)), array(NULL, CAST('NaN' AS DOUBLE)), array(NULL),
          |      array('ü', NULL), array(NULL), NULL, 1.0D, NULL, map('x', NULL)),
          |  (5, array(4, 3, 3, NULL, 1, 5), array(5, 5, 1, 7), array(-0.0D, 0.0D, -1.5D, 1e300), array(0.0D, -0.0D),
          |      array('😀', '😀', 'b', 'a'), array('b', 'ü€'), array(array(4, NULL), array(5, 6)), 2, 2.0D, '😀', map('k', 5, 'l', 6)),
          |  (6, array(1, 2, 3, 4, 5, 6, 7), array(), array(3.0D, 1.0D, 2.0D), array(), array('z', 'y'), array(),
          |      array(), -1, -1.5D, 'y', map('z', 0))
          |AS t(id, ai, bi, ad, bd, astr, bstr, aai, n, d, s, m)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("arrfn_data"))
      spark.read.parquet(TestData.path("arrfn_data")).createOrReplaceTempView("arrfn_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
