package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Spark built-in functions evaluated natively (native/expr: digest.go, strpad.go, strmisc.go,
 * mathunary.go) against Spark itself: every query runs with Bolide off and on, the answers must be
 * identical, and the project must have run natively. The input is a Parquet table with nulls,
 * empty strings, multi-byte and invalid UTF-8, and boundary numbers, so nothing is folded.
 */
class FunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = FunctionsSuite.ensure(spark)

  @Test def digests(): Unit = {
    checkNative("SELECT id, md5(s), sha1(s), crc32(s), md5(bin), sha1(bin), crc32(bin) FROM fn_data",
      Seq(Scan, Project))
    checkNative("SELECT id, sha2(s, 256), sha2(s, 0), sha2(s, 224), sha2(s, 384), sha2(s, 512), " +
      "sha2(s, 128), sha2(bin, n), sha2(s, cast(null AS INT)) FROM fn_data", Seq(Scan, Project))
  }

  @Test def padding(): Unit = {
    checkNative("SELECT id, lpad(s, n, p), rpad(s, n, p), lpad(s, 8, '-'), rpad(s, 8, 'ü😀'), " +
      "lpad(s, 3), rpad(s, 3), lpad(s, 2, ''), rpad(s, -1, 'x'), lpad(p, 0, s) FROM fn_data", Seq(Scan, Project))
  }

  @Test def stringFunctions(): Unit = {
    checkNative("SELECT id, ascii(s), ascii(p), chr(l), chr(n), reverse(s), reverse(p), soundex(s), soundex(p) " +
      "FROM fn_data", Seq(Scan, Project))
    checkNative("SELECT id, hex(s), hex(bin), hex(l), hex(n), unhex(hex(s)), unhex(q), unhex(p), bin(l), bin(n) " +
      "FROM fn_data", Seq(Scan, Project))
    checkNative("SELECT id, locate(q, s), locate(q, s, n), position(q IN s), locate('', s, n), instr(s, q), " +
      "substring_index(s, q, n), substring_index(s, '.', -1), substring_index(s, 'a', 2), " +
      "substring_index(s, q, -2) FROM fn_data", Seq(Scan, Project))
    checkNative("SELECT id, levenshtein(s, p), levenshtein(s, q), levenshtein(s, p, 2), levenshtein(q, s, 0) " +
      "FROM fn_data", Seq(Scan, Project))
  }

  @Test def mathFunctions(): Unit = {
    checkNative("SELECT id, sqrt(d), signum(d), sqrt(k), signum(l), sqrt(n) FROM fn_data", Seq(Scan, Project))
    checkNative("SELECT id, ~k, ~l, ~cast(n AS SMALLINT), bit_count(k), bit_count(l), bit_count(b), " +
      "bit_count(cast(n AS TINYINT)), factorial(k), factorial(n), e() * n, pi() + d FROM fn_data",
      Seq(Scan, Project))
  }

  @Test def generatedRows(): Unit = {
    // 3000 rows of strings built from ASCII, 2-, 3- and 4-byte fragments, full-range ints and
    // longs (hashes), in several Parquet files: every function of the suite over all of them.
    checkNative("SELECT id, md5(s), sha2(s, 256), crc32(s), lpad(s, n, p), rpad(s, n, p), ascii(s), chr(l), " +
      "reverse(s), soundex(s), hex(s), hex(l), unhex(hex(s)), bin(k), locate(q, s, n), substring_index(s, q, n), " +
      "levenshtein(s, p), levenshtein(s, q, 3) FROM fn_gen", Seq(Scan, Project))
    checkNative("SELECT id, sqrt(d), signum(d), ~k, ~l, bit_count(k), bit_count(l), factorial(n) FROM fn_gen",
      Seq(Scan, Project))
  }

  @Test def refusedFormsStayInSparkWithTheirReason(): Unit = withoutDispatch {
    // A nullable threshold: Spark's interpreted and generated code differ on null.
    val df = checkNative("SELECT id, levenshtein(s, p, n) FROM fn_data", Seq(Scan))
    assertTrue(bolideReport(df), bolideReport(df).contains("nullable threshold"))
  }
}

object FunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      // id, s (the main string), p (a pad / second string), q (a search string), n (small ints),
      // k (boundary ints), l (boundary longs), d (doubles), b (boolean), bin (binary).
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, 'Spark', '??', 'ar', 5, 0, 0L, 4.0D, true, X'537061726B'),
          |  (1, '', '', '', 0, -1, -1L, 2.0D, false, X''),
          |  (2, NULL, 'ab', 'a', 3, 1, 65L, 0.0D, NULL, NULL),
          |  (3, 'héllo wörld', 'ü', 'l', 10, 20, 233L, -0.0D, true, X'00FF10'),
          |  (4, '😀a😀b😀', '😀é', '😀', 2, 21, 256L + 66L, -1.0D, false, X'F09F9880'),
          |  (5, 'www.apache.org', '.', '.', -2, 2147483647, 9223372036854775807L, CAST('NaN' AS DOUBLE), true, X'7777772E'),
          |  (6, 'Miller', NULL, NULL, NULL, CAST(-2147483648 AS INT), CAST(-9223372036854775808 AS BIGINT), CAST('Infinity' AS DOUBLE), NULL, X'FF'),
          |  (7, 'aaaa', 'aa', 'aa', 3, 5, -13L, CAST('-Infinity' AS DOUBLE), false, X'616161'),
          |  (8, CAST(X'61FF62' AS STRING), CAST(X'80' AS STRING), CAST(X'FF' AS STRING), 4, NULL, NULL, NULL, true, X'61FF62'),
          |  (9, 'Ashcraft', 'kitten', '537061726B', 1, 13, 255L, 1.0E-320D, true, X'0102'),
          |  (10, 'kitten', 'sitting', 'aBc', -1, 7, 1099511627776L, 1.0E300D, false, X'6B'),
          |  (11, 'Tymczak 1', ' ', 'A', 7, 3, -256L, 2.25D, true, X'')
          |AS t(id, s, p, q, n, k, l, d, b, bin)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("fn_data"))
      spark.read.parquet(TestData.path("fn_data")).createOrReplaceTempView("fn_data")
      def pick(m: Int, items: String*): String =
        s"element_at(array(${items.map(i => s"'$i'").mkString(", ")}), cast(id % $m + 1 AS INT))"
      spark.range(0, 3000, 1, 3).selectExpr(
        "id",
        s"if(id % 13 = 0, NULL, concat(${pick(9, "a", "é", "😀", "ab", ".", "l", "Ü", "x y", "")}, " +
          s"${pick(7, "b", ".", "😀", "aa", "ll", "", "Robert")}, " +
          s"repeat(${pick(3, "c", "é", ".")}, cast(id % 5 AS INT)))) AS s",
        s"if(id % 17 = 0, NULL, ${pick(5, "", "x", "😀é", "..", "ab")}) AS p",
        s"if(id % 19 = 0, NULL, ${pick(6, "", ".", "a", "é", "ll", "😀")}) AS q",
        "if(id % 29 = 0, NULL, cast(id % 27 - 6 AS INT)) AS n",
        "if(id % 31 = 0, NULL, hash(id)) AS k",
        "if(id % 37 = 0, NULL, xxhash64(id)) AS l",
        "if(id % 41 = 0, NULL, cast(hash(id, 1) AS DOUBLE) / 1000) AS d")
        .write.mode("overwrite").parquet(TestData.path("fn_gen"))
      spark.read.parquet(TestData.path("fn_gen")).createOrReplaceTempView("fn_gen")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
