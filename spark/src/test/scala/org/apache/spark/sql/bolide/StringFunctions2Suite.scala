package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * More string functions evaluated natively (native/expr: strsplit.go, ...) against Spark itself:
 * every query runs with Bolide off and on, the answers must be identical and the projection
 * native; error cases must raise the same Spark error class both ways. Inputs are a Parquet table
 * (nothing is folded) with nulls, empty strings, separators at both ends, line terminators,
 * multi-byte and supplementary characters and invalid UTF-8 (Spark's regex functions see U+FFFD
 * for it, split by the empty pattern keeps its bytes).
 */
class StringFunctions2Suite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = StringFunctions2Suite.ensure(spark)

  private def assertStaysInSpark(expr: String, reason: String): Unit = withoutDispatch {
    val df = checkNative(s"SELECT id, $expr FROM str2_data", Seq(Scan))
    val (native, fallback) = operatorReport(df)
    assertFalse(s"$expr ran natively: $native", native.contains(Project))
    assertTrue(s"no Project fallback mentioning '$reason' for $expr in $fallback",
      fallback.exists { case (n, r) => n.contains("Project") && r.contains(reason) })
  }

  @Test def split(): Unit = {
    checkNative("SELECT id, split(s, ','), split(s, ',', 2), split(s, ',', 0), split(s, ',', 1), split(s, ',', -3), " +
      "split(s, ''), split(s, '', 2), split(s, '', 1), split(s, '', -1), split(p, '') FROM str2_data", Seq(Scan, Project))
    checkNative("SELECT id, split(s, r'\\d+'), split(s, r'\\d+', 2), split(s, 'b$'), split(s, r'[é😀]'), " +
      "split(s, r'\\s', -1), split(s, r'\\.'), split(s, 'a|b'), split(s, '\uFFFD'), split(p, r'x+') " +
      "FROM str2_data", Seq(Scan, Project))
    checkNative("SELECT id, size(split(s, ',')), size(split(p, '')) FROM str2_data", Seq(Scan, Project))
  }

  @Test def regexpExtractAll(): Unit = {
    checkNative("SELECT id, regexp_extract_all(s, r'(\\d+)'), regexp_extract_all(s, r'\\d+', 0), " +
      "regexp_extract_all(s, r'(\\d+)-(\\d+)', 2), regexp_extract_all(s, r'([a-z])(\\d)?', 2), " +
      "regexp_extract_all(s, '.', 0), regexp_extract_all(s, 'b$', 0), regexp_extract_all(s, r'[^a-c]+', 0), " +
      "regexp_extract_all(p, r'(x)+', 1) FROM str2_data",
      Seq(Scan, Project))
  }

  @Test def regexpExtractAllGroupIndexError(): Unit = {
    val q = "SELECT id, regexp_extract_all(s, r'(a)', 2) FROM str2_data"
    assertTrue(nativeOperators(spark.sql(q)).contains(Project))
    val (off, on) = errorClassBothWays(q)
    assertEquals(Some("INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX"), off)
    assertEquals(off, on)
    // No row matches: no error either way.
    checkNative("SELECT id, regexp_extract_all(s, r'(q)', 3) FROM str2_data", Seq(Scan, Project))
  }

  @Test def unbase64(): Unit = {
    checkNative("SELECT id, unbase64(b), unbase64(base64(s)), unbase64(base64(p)) FROM str2_data " +
      "WHERE id NOT IN (11, 16, 17)", Seq(Scan, Project))
    checkNative("SELECT id, to_binary(b, 'base64') FROM str2_data WHERE id IN (0, 1, 2, 3, 4, 5, 6, 12, 13, 15)",
      Seq(Scan, Project))
    // Malformed input: Java's decoder throws (no error class either way); to_binary raises
    // CONVERSION_INVALID_INPUT.
    val (off, on) = errorClassBothWays("SELECT id, unbase64(b) FROM str2_data")
    assertEquals(off, on)
    val (off2, on2) = errorClassBothWays("SELECT id, to_binary(b, 'base64') FROM str2_data")
    assertEquals(Some("CONVERSION_INVALID_INPUT"), off2)
    assertEquals(off2, on2)
  }

  @Test def toNumber(): Unit = {
    checkNative("SELECT id, try_to_number(n, '999.99'), try_to_number(n, '9,999.99'), try_to_number(n, 'S9999.99'), " +
      "try_to_number(n, '9999.99S'), try_to_number(n, '9999MI'), try_to_number(n, '9999.99PR'), " +
      "try_to_number(n, '$9,999.99'), try_to_number(n, '0000'), try_to_number(n, '99G999D99'), " +
      "try_to_number(n, '999,999,999'), try_to_number(n, '99999999999999999999999999999999999999'), " +
      "try_to_number(s, '999'), try_to_number(n, CAST(NULL AS STRING)) FROM str2_data", Seq(Scan, Project))
    checkNative("SELECT id, to_number(n, '9,999.99') FROM str2_data WHERE id IN (0, 3, 9)", Seq(Scan, Project))
    val q = "SELECT id, to_number(n, '999') FROM str2_data"
    assertTrue(nativeOperators(spark.sql(q)).contains(Project))
    val (off, on) = errorClassBothWays(q)
    assertEquals(Some("INVALID_FORMAT.MISMATCH_INPUT"), off)
    assertEquals(off, on)
    assertStaysInSpark("try_to_number(substr(n, 1, 0), '.99')", "before the decimal point")
  }

  @Test def formatString(): Unit = {
    checkNative("SELECT id, format_string('%s|%5s|%-4s|%.2s|%.1s', s, p, s, p, b), printf('[%s] %b %B', n, s, p), " +
      "format_string('%d %05d %+d % d %-4d|', id, id - 8, id, id - 8, CAST(id AS BIGINT) * -1000000000000), " +
      "format_string('%x %X %o %#x %#o %08x', id - 8, CAST(id - 8 AS TINYINT), CAST(id - 8 AS SMALLINT), " +
      "CAST(id AS BIGINT) - 8, id, CAST(id - 8 AS BIGINT)), format_string('%2$s-%1$s %% %n', s, p), " +
      "format_string('no args'), format_string(CAST(NULL AS STRING), s), format_string('%s %d', s, CAST(NULL AS INT)) " +
      "FROM str2_data", Seq(Scan, Project))
    assertStaysInSpark("format_string('%f', CAST(id AS DOUBLE))", "not supported")
    assertStaysInSpark("format_string('%,d', id)", "flag")
  }

  @Test def patternsOutsideTheSubsetStayInSpark(): Unit = {
    assertStaysInSpark("split(s, 'a*')", "empty string")
    assertStaysInSpark("split(s, r'(?i)a')", "group construct")
    assertStaysInSpark("regexp_extract_all(s, r'(a)?', 1)", "empty string")
    assertStaysInSpark("split(s, p)", "non-literal")
  }
}

object StringFunctions2Suite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, 'a,b,,c,,', 'x', 'QUJD', '12'),
          |  (1, '', '', '', ''),
          |  (2, NULL, 'xx', NULL, NULL),
          |  (3, 'a1b22c333', NULL, 'QUJDRA', '1,234.56'),
          |  (4, ',a', 'yxx', 'QU JD\nRA==', '-12'),
          |  (5, 'line1\nline2\n', 'x\n', 'Zm9vYmFy', '12-'),
          |  (6, 'ab\r', 'x\r', 'QQ', '<12>'),
          |  (7, 'é😀z😀é1', 'x😀x', '\t QUJD é', '$1,234.56'),
          |  (8, CAST(X'FFFE61622C63' AS STRING), CAST(X'E08078' AS STRING), CAST(X'FFFE51554A44' AS STRING), '٣٤'),
          |  (9, CAST(X'E08061' AS STRING), CAST(X'61E2' AS STRING), 'QUJDRA==\n', ' 12 '),
          |  (10, '100-200, 300-400', '1x2x', '!!!!', '1234.56'),
          |  (11, 'a.b', 'x.x', 'QQ==QQ==', '<$1,234.56>'),
          |  (12, 'aab', ' x ', 'A\tB\u000BCD', '12,34'),
          |  (13, ',', 'é', 'QUJ=', '1 234'),
          |  (14, 'foo bar\tbaz', '$', 'QUJD😀', '+1'),
          |  (15, 'x', 'y', 'Zm9v+/8=', '12.'),
          |  (16, 'x', 'y', 'Q', 'x'),
          |  (17, 'x', 'y', 'QQ=a', CAST(X'FF3132' AS STRING))
          |AS t(id, s, p, b, n)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("str2_data"))
      spark.read.parquet(TestData.path("str2_data")).createOrReplaceTempView("str2_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
