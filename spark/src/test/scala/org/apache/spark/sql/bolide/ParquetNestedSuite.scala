package org.apache.spark.sql.bolide

import java.io.File
import java.nio.file.Files

import org.junit.Test
import org.junit.Assert._

/**
 * Nested columns (structs, arrays, maps, and their combinations, with nulls at every level) in
 * Parquet files written by Spark, read by BolideScan: every query runs with Bolide off and on, the
 * answers must be equal and BolideScan must have run. Operators above the scan that cannot take
 * nested values stay in Spark, with a reason; the ones that only move rows (filter, limit) pass
 * them through natively.
 */
class ParquetNestedSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"

  private lazy val dir: File = {
    val d = Files.createTempDirectory(BolideTestSession.dataDir.toPath, "nested").toFile
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, 5000, 1, 3).selectExpr(
        "id",
        """CASE WHEN id % 7 = 3 THEN NULL ELSE named_struct(
             'a', CASE WHEN id % 3 = 0 THEN NULL ELSE cast(id AS int) END,
             'b', CASE WHEN id % 5 = 0 THEN NULL ELSE concat('b', id) END,
             'c', CASE WHEN id % 11 = 0 THEN NULL ELSE named_struct(
                    'd', cast(id AS double) / 4,
                    'e', CASE WHEN id % 13 = 0 THEN NULL
                              ELSE sequence(0, cast(id % 4 AS int)) END) END) END AS s""",
        """CASE WHEN id % 6 = 0 THEN NULL WHEN id % 6 = 1 THEN array()
                ELSE transform(sequence(0, cast(id % 9 AS int)),
                               x -> CASE WHEN (x + id) % 4 = 0 THEN NULL ELSE cast(x + id AS int) END) END AS arr""",
        """transform(sequence(1, cast(id % 3 AS int)),
                     x -> CASE WHEN x = 2 AND id % 2 = 0 THEN NULL
                               ELSE named_struct('x', x, 'y', repeat('y', x)) END) AS arrs""",
        """CASE WHEN id % 9 = 0 THEN NULL
                ELSE map_from_arrays(transform(sequence(1, cast(id % 4 AS int)), x -> concat('k', x)),
                                     transform(sequence(1, cast(id % 4 AS int)),
                                               x -> CASE WHEN x = 2 THEN NULL ELSE cast(id * x AS int) END)) END AS m""",
        """CASE WHEN id % 4 = 1 THEN map(cast(id AS int), array('p', NULL, cast(id AS string)),
                                         cast(-id AS int), CAST(NULL AS array<string>))
                ELSE NULL END AS mm""",
        "array(array(cast(id AS int)), CAST(NULL AS array<int>), array()) AS aa",
        "CASE WHEN id % 2 = 0 THEN array(cast(id AS decimal(20, 2)), NULL) END AS decs",
        "map('t', CAST(id AS timestamp), 'n', CAST(NULL AS timestamp)) AS ts",
        "named_struct('flag', id % 2 = 0, 'bin', cast(concat('x', id) AS binary)) AS misc")
        .write.option("parquet.block.size", "65536").option("parquet.page.size", "4096")
        .mode("overwrite").parquet(d.getAbsolutePath)
    }
    d
  }

  private def view(name: String, schema: String = null): String = {
    val r = if (schema == null) spark.read else spark.read.schema(schema)
    r.parquet(dir.getAbsolutePath).createOrReplaceTempView(name)
    name
  }

  @Test def everyNestedColumn(): Unit = {
    val v = view("nested_all")
    checkNative(s"SELECT * FROM $v", Seq(Scan))
    checkNative(s"SELECT id, s FROM $v", Seq(Scan))
    checkNative(s"SELECT m, mm, arrs FROM $v", Seq(Scan))
  }

  @Test def smallBatches(): Unit = withConf("spark.sql.parquet.columnarReaderBatchSize" -> "7",
    "spark.bolide.batchSize" -> "7") {
    val v = view("nested_small")
    checkNative(s"SELECT * FROM $v", Seq(Scan))
  }

  /**
   * Operators above the scan that stay in Spark (projections of nested values) say why; none is
   * left without a reason.
   */
  private def checkFallback(sql: String, operator: String): Unit = {
    val df = checkNative(sql, Seq(Scan))
    val (_, fallback) = operatorReport(df)
    assertTrue(s"$operator expected in Spark: $fallback\n${bolideReport(df)}",
      fallback.exists(_._1 == operator))
    fallback.foreach { case (name, reason) =>
      assertFalse(s"$name stayed in Spark without a reason\n${bolideReport(df)}",
        reason == "not planned by Bolide")
    }
  }

  /** Nested schema pruning hands the scan a struct of the used fields only. */
  @Test def structFieldsAndGenerators(): Unit = {
    val v = view("nested_fields")
    checkNative(s"SELECT id, s.a, s.c.e FROM $v", Seq(Scan))
    // Generators over the scan's nested columns run natively (BolideGenerate, GenerateSuite).
    checkNative(s"SELECT id, e FROM $v LATERAL VIEW explode(arr) t AS e", Seq(Scan, "BolideGenerate"))
    checkNative(s"SELECT id, k, val FROM $v LATERAL VIEW explode(m) t AS k, val", Seq(Scan, "BolideGenerate"))
    // Element access into nested columns without a kernel: Spark's code evaluates it in the
    // native Project (dispatch), or, with dispatch off, the Project stays in Spark.
    withConf("spark.bolide.dispatch.enabled" -> "false") {
      checkFallback(s"SELECT id, size(arr), m['k1'], arrs[0].y FROM $v", "Project")
    }
    checkNative(s"SELECT id, size(arr), m['k1'], arrs[0].y FROM $v", Seq(Scan, "BolideProject"))
    checkNative(s"SELECT count(*), sum(s.a) FROM $v WHERE s.b IS NOT NULL", Seq(Scan))
  }

  /** A filter and a limit carry nested columns through natively. */
  @Test def filterAndLimitPassThrough(): Unit = {
    val v = view("nested_filter")
    checkNative(s"SELECT * FROM $v WHERE id % 3 = 1", Seq(Scan, "BolideFilter"))
    checkNative(s"SELECT arr, m, s FROM $v WHERE id > 4000 AND id % 5 <> 0", Seq(Scan, "BolideFilter"))
    val limited = checkNative(s"SELECT s, arr FROM $v WHERE id < 100 LIMIT 37", Seq(Scan))
    assertEquals(37, limited.collect().length)
  }

  /** Requested fields none of which the file has: the native reader leaves the files to Spark's. */
  @Test def structWithOnlyAbsentFields(): Unit = {
    val v = view("nested_absent", "id bigint, s struct<zz: int>, arr array<int>")
    checkNative(s"SELECT * FROM $v", Seq(Scan))
  }

  /** Fields the file lacks inside a struct read as nulls; case-insensitive field names. */
  @Test def evolvedSchema(): Unit = {
    val v = view("nested_evolved", "id bigint, s struct<B: string, zz: int, c: struct<d: double, q: string>>, " +
      "arrs array<struct<Y: string, x: bigint>>")
    checkNative(s"SELECT * FROM $v", Seq(Scan))
  }
}
