package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * The regular expression functions of native/expr/regex.go against Spark itself: only patterns
 * that regexsafe.go proves to mean the same in java.util.regex and Go run natively, so every query
 * here runs with Bolide off and on, the answers must be identical and the projection native; the
 * last tests check that patterns outside the subset stay in Spark with the construct named. Inputs
 * are a Parquet table (nothing is folded) with nulls, empty strings, line terminators of every
 * kind before the end, supplementary characters (Java counts them as two UTF-16 units) and invalid
 * UTF-8 (Spark matches and returns U+FFFD for it).
 */
class RegexFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Filter = "BolideFilter"

  @Before def setUp(): Unit = RegexFunctionsSuite.ensure(spark)

  @Test def rlike(): Unit = {
    checkNative("SELECT id, s RLIKE r'\\d+', s RLIKE r'^a', rlike(s, r'c$'), regexp_like(s, r'^$'), regexp(s, r'[^a-c]+'), " +
      "s RLIKE r'\\s', s RLIKE r'^.*$', s RLIKE r'\\W', s RLIKE '.', s RLIKE r'[é😀]', s RLIKE r'\\x{1F600}', " +
      "s RLIKE '\uFFFD', s RLIKE r'(a)?b', s RLIKE r'a{2}', s RLIKE r'^\\w+\\.\\w+$', s RLIKE CAST(NULL AS STRING), " +
      "p RLIKE r'\\d*$' FROM rx_data", Seq(Scan, Project))
    checkNative("SELECT id FROM rx_data WHERE s RLIKE r'[0-9]{2,}' OR p RLIKE r'^x'", Seq(Scan, Filter))
  }

  @Test def extractAndInstr(): Unit = {
    checkNative("SELECT id, regexp_extract(s, r'(\\d+)-(\\d+)', 1), regexp_extract(s, r'(\\d+)-(\\d+)', 2), " +
      "regexp_extract(s, r'[a-z]+', 0), regexp_extract(s, r'([a-z]+)(\\d)?', 2), regexp_extract(s, r'(.)$', 1), " +
      "regexp_extract(s, r'(\\S+)\\s', 1), regexp_extract(s, r'(a|ab)(c|bcd)?', 0), regexp_extract(s, r'é(.)', 1), " +
      "regexp_extract(p, r'(.+?)x', 1), regexp_substr(s, r'\\d+'), regexp_extract(s, r'(a)', CAST(NULL AS INT)) FROM rx_data",
      Seq(Scan, Project))
    checkNative("SELECT id, regexp_instr(s, r'\\d'), regexp_instr(s, r'z'), regexp_instr(s, r'b+$'), regexp_instr(s, '.'), " +
      "regexp_instr(s, r'[^\\x00-\\x7f]'), regexp_instr(p, r'x+'), regexp_instr(s, 'b') FROM rx_data", Seq(Scan, Project))
  }

  @Test def replace(): Unit = {
    checkNative("SELECT id, regexp_replace(s, r'\\d+', 'N'), regexp_replace(s, r'(\\w)(\\w)', '$2$1'), " +
      "regexp_replace(s, r'([a-z])(\\d)?', '<$2|$1|$12>'), regexp_replace(s, r'\\s', r'\\$'), regexp_replace(s, '.', '*'), " +
      "regexp_replace(s, r'b$', 'END'), regexp_replace(s, r'^a', ''), regexp_replace(s, r'[😀é]', 'E'), " +
      "regexp_replace(s, '\uFFFD', '?'), regexp_replace(p, r'x+', r'\\\\'), " +
      "regexp_replace(s, r'(a)|(b)', '[$1$2]', 1) FROM rx_data", Seq(Scan, Project))
  }

  @Test def patternsOutsideTheSubsetStayInSpark(): Unit = withoutDispatch {
    Seq("s RLIKE r'(?i)a'" -> "group construct", "regexp_replace(s, r'\\bfoo', 'x')" -> "escape \\b",
      "regexp_extract(s, r'(a)\\1', 1)" -> "escape \\1", "regexp_instr(s, r'a++')" -> "possessive",
      "s RLIKE r'\\s$'" -> "line terminator", "s RLIKE r'\\p{L}'" -> "escape \\p",
      "regexp_replace(s, r'a*', 'x')" -> "empty string", "regexp_replace(s, 'a', 'x', 2)" -> "position 2"
    ).foreach { case (e, reason) =>
      val df = checkNative(s"SELECT id, $e FROM rx_data", Seq(Scan))
      val (native, fallback) = operatorReport(df)
      assertFalse(s"$e ran natively: $native", native.contains(Project))
      assertTrue(s"no Project fallback mentioning '$reason' for $e in $fallback",
        fallback.exists { case (n, r) => n.contains("Project") && r.contains(reason) })
    }
  }
}

object RegexFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, 'abc', 'x'),
          |  (1, '', ''),
          |  (2, NULL, 'xx'),
          |  (3, 'a1b22c333', NULL),
          |  (4, 'foo bar\tbaz', 'yxx'),
          |  (5, 'line1\nline2\n', 'x\n'),
          |  (6, 'x\r\nab\r\n', 'x\r'),
          |  (7, 'ab\r', '9\u2028'),
          |  (8, 'é😀z😀é1', 'x😀x'),
          |  (9, 'ÀÉ', 'a\u0085'),
          |  (10, CAST(X'0B' AS STRING), '5\u2029'),
          |  (11, 'a\u2028', 'xxx'),
          |  (12, CAST(X'FFFE6162' AS STRING), CAST(X'E08078' AS STRING)),
          |  (13, CAST(X'E0806162' AS STRING), 'x'),
          |  (14, '100-200, 300-400', '1x2x'),
          |  (15, 'AbC', 'X'),
          |  (16, 'a.b', 'x.x'),
          |  (17, '$5 abcd ab', '$'),
          |  (18, 'ab\u0085', '😀'),
          |  (19, 'aab', ' x '),
          |  (20, CAST(X'EDA080F09F9880' AS STRING), 'x')
          |AS t(id, s, p)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("rx_data"))
      spark.read.parquet(TestData.path("rx_data")).createOrReplaceTempView("rx_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
