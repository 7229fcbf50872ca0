package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * String functions evaluated natively (native/expr: strcase.go, ...) against Spark itself: every
 * query runs with Bolide off and on, the answers must be identical, and the project must have run
 * natively. Inputs are Parquet tables (nothing is folded): str_data with nulls, empty strings,
 * multi-byte and invalid UTF-8, and boundary numbers; str_cp with every code point but the
 * surrogates, 16 to a row, for the case mappings.
 */
class StringFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = StringFunctionsSuite.ensure(spark)

  @Test def caseMappings(): Unit = {
    checkNative("SELECT id, upper(s), lower(s), initcap(s), ucase(p), lcase(p), initcap(p), upper(q), " +
      "lower(q), initcap(q) FROM str_data", Seq(Scan, Project))
  }

  @Test def searchAndEdit(): Unit = {
    checkNative("SELECT id, find_in_set(q, s), find_in_set(s, p), find_in_set('ab', p), find_in_set(q, 'a,b,,ŉ ΐ ǆ ﬃ'), " +
      "space(n), space(k % 7) FROM str_data", Seq(Scan, Project))
    checkNative("SELECT id, translate(s, q, p), translate(s, 'aé😀l', 'xy'), translate(p, s, q), translate(q, 'Σ', '') " +
      "FROM str_data", Seq(Scan, Project))
    checkNative("SELECT id, overlay(s PLACING q FROM n), overlay(s PLACING p FROM n FOR 2), " +
      "overlay(q PLACING p FROM 2 FOR n), overlay(s PLACING q FROM k FOR k), overlay(q PLACING s FROM n FOR k), " +
      "overlay(s PLACING '' FROM -3 FOR -1) FROM str_data", Seq(Scan, Project))
  }

  @Test def trimWithATrimString(): Unit = {
    // (Only s as the source: p and q end in a truncated code point on one row, past whose end
    // UTF8String's trim reads.)
    checkNative("SELECT id, trim(BOTH q FROM s), trim(LEADING p FROM s), trim(TRAILING q FROM s), btrim(s, p), " +
      "ltrim(s, 'Sa😀'), rtrim(s, 'ldr😀b'), btrim(s, ''), trim(BOTH 'a' FROM s) FROM str_data", Seq(Scan, Project))
  }

  @Test def utf8ValidityLuhnQuote(): Unit = {
    checkNative("SELECT id, is_valid_utf8(s), is_valid_utf8(p), is_valid_utf8(q), make_valid_utf8(s), " +
      "make_valid_utf8(p), make_valid_utf8(q), try_validate_utf8(s), try_validate_utf8(q) FROM str_data", Seq(Scan, Project))
    checkNative("SELECT id, luhn_check(s), luhn_check(cast(l AS STRING)), luhn_check(cast(k AS STRING)), " +
      "luhn_check(concat(cast(n AS STRING), q)), quote(s), quote(p), quote(q) FROM str_data", Seq(Scan, Project))
    checkNative("SELECT id, is_valid_utf8(bad), make_valid_utf8(bad), try_validate_utf8(bad), luhn_check(digits), " +
      "quote(bad) FROM str_bytes", Seq(Scan, Project))
  }

  @Test def base64Encoding(): Unit = {
    checkNative("SELECT id, base64(s), base64(p), base64(q), base64(repeat(s, 9)), base64(cast(l AS STRING)) FROM str_data",
      Seq(Scan, Project))
    withConf("spark.sql.chunkBase64String.enabled" -> "true") {
      checkNative("SELECT id, base64(s), base64(repeat(s, 9)), base64(repeat(p, 30)), base64(bad) FROM str_data " +
        "JOIN str_bytes USING (id)", Seq(Scan, Project))
    }
  }

  @Test def jvmCaseMappingsStayInSpark(): Unit = withoutDispatch {
    withConf("spark.sql.icu.caseMappings.enabled" -> "false") {
      val df = checkNative("SELECT id, upper(s), lower(p), initcap(q) FROM str_data", Seq(Scan))
      assertTrue(bolideReport(df), bolideReport(df).contains("JVM's case mappings"))
    }
  }

  @Test def caseMappingsOfEveryCodePoint(): Unit = {
    // cps: 16 code points separated by spaces (initcap title-cases each); sigma: each code point
    // between 'Α' and 'Σ', and after 'ΑΣ' (Final_Sigma reads its case properties both ways).
    checkNative("SELECT id, upper(cps), lower(cps), initcap(cps), lower(sigma), initcap(sigma), " +
      "upper(sigma) FROM str_cp", Seq(Scan, Project))
  }
}

object StringFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      // id, s (the main string), p and q (second strings), n (small ints), l (boundary longs),
      // k (boundary ints).
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, 'Spark SQL', 'straße', 'ŉ ΐ ǆ ﬃ', 5, 0L, 0),
          |  (1, '', '', '', 0, -1L, -1),
          |  (2, NULL, 'ab', 'a', 3, 65L, 1),
          |  (3, 'héllo wörld', 'ΑΣ ΒΣ Σ Α\'Σ ΑΣ\'Α ΑΣΑ', 'İstanbul ıi', 10, 233L, 2147483647),
          |  (4, '😀a😀b😀', '😀 é', '𐐀𐐨 ꭰ Ꭰ', 2, 322L, CAST(-2147483648 AS INT)),
          |  (5, 'www.apache.org', 'hello  wORLD', 'a\tb c\nd', -2, 9223372036854775807L, 2147483646),
          |  (6, 'Miller', NULL, NULL, NULL, -9223372036854775808L, NULL),
          |  (7, 'aaaa', 'KK Åå', ' x y ', 3, -13L, -2147483647),
          |  (8, CAST(X'61FF62' AS STRING), CAST(X'80' AS STRING), CAST(X'FF2061' AS STRING), 4, NULL, 3),
          |  (9, CAST(X'EDA080CEA3' AS STRING), CAST(X'E282' AS STRING), CAST(X'CEA3F0' AS STRING), 1, 255L, -3),
          |  (10, 'kitten', 'sitting', 'aBc', -1, 1099511627776L, 100),
          |  (11, 'Tymczak 1', ' ', 'A', 7, -256L, 7)
          |AS t(id, s, p, q, n, l, k)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("str_data"))
      spark.read.parquet(TestData.path("str_data")).createOrReplaceTempView("str_data")
      // bad: invalid UTF-8 of every kind makeValid distinguishes; digits: Luhn inputs.
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, CAST(X'C0AF' AS STRING), '79927398713'),
          |  (1, CAST(X'E080AF' AS STRING), '79927398714'),
          |  (2, CAST(X'EDA080' AS STRING), '٧٩٩٢٧٣٩٨٧١٣'),
          |  (3, CAST(X'E282' AS STRING), '７９９２７３９８７１３'),
          |  (4, CAST(X'E28278' AS STRING), '4111 1111'),
          |  (5, CAST(X'F09F98' AS STRING), '00'),
          |  (6, CAST(X'F4908080' AS STRING), '𝟎'),
          |  (7, CAST(X'F5' AS STRING), ''),
          |  (8, 'it\'s \\\' ok', NULL),
          |  (9, NULL, '4012888888881881'),
          |  (10, CAST(X'EFBFBD' AS STRING), '१२३')
          |AS t(id, bad, digits)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("str_bytes"))
      spark.read.parquet(TestData.path("str_bytes")).createOrReplaceTempView("str_bytes")
      import spark.implicits._
      val cps = (0 to 0x10FFFF).filter(c => c < 0xD800 || c > 0xDFFF).grouped(16).zipWithIndex.map {
        case (g, i) =>
          val chars = g.map(c => new String(Character.toChars(c)))
          (i, chars.mkString(" "), chars.map(c => s"Α${c}Σ ΑΣ$c").mkString(" "))
      }.toSeq
      cps.toDF("id", "cps", "sigma").repartition(4).write.mode("overwrite").parquet(TestData.path("str_cp"))
      spark.read.parquet(TestData.path("str_cp")).createOrReplaceTempView("str_cp")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
