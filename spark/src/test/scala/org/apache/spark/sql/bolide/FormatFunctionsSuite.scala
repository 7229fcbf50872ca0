package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * format_number (native/expr/formatnumber.go) against Spark: each query runs with Bolide off and
 * on over a Parquet table, answers must be identical and the projection native. Refused forms (a
 * string pattern, a non-literal d) must fall back and still answer.
 */
class FormatFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = FormatFunctionsSuite.ensure(spark)

  @Test def formatNumberIntegral(): Unit = {
    for (ansi <- Seq("true", "false")) withConf("spark.sql.ansi.enabled" -> ansi) {
      checkNative("SELECT id, format_number(b, 0), format_number(s, 2), format_number(i, 3), format_number(l, 0), " +
        "format_number(l, 5), format_number(i, -1), format_number(l, cast(NULL AS INT)) FROM fmt_data",
        Seq(Scan, Project))
    }
  }

  @Test def formatNumberDecimal(): Unit = {
    checkNative("SELECT id, format_number(d2, 0), format_number(d2, 1), format_number(d2, 4), " +
      "format_number(d10, 0), format_number(d10, 3), format_number(d10, 12), format_number(d38, 2), " +
      "format_number(d38, 0), format_number(d2, 40) FROM fmt_data", Seq(Scan, Project))
  }

  @Test def formatNumberDouble(): Unit = {
    checkNative("SELECT id, format_number(x, 0), format_number(x, 2), format_number(x, 3), format_number(x, 10), " +
      "format_number(x, 20), format_number(f, 0), format_number(f, 2), format_number(f, 7) FROM fmt_data",
      Seq(Scan, Project))
  }

  @Test def formatNumberRefused(): Unit = withoutDispatch {
    Seq(
      "format_number(x, '#,##0.0')" -> "non-literal or non-int",
      "format_number(l, cast(b % 5 AS INT))" -> "non-literal or non-int"
    ).foreach { case (e, reason) =>
      val df = checkNative(s"SELECT id, $e FROM fmt_data", Seq(Scan))
      val (native, fallback) = operatorReport(df)
      assertFalse(s"$e ran natively: $native", native.contains(Project))
      assertTrue(s"no Project fallback mentioning '$reason' for $e in $fallback",
        fallback.exists { case (n, r) => n.contains("Project") && r.contains(reason) })
    }
  }
}

object FormatFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      // b, s, i, l: integral types with extremes; d2, d10, d38: decimals of scales 2, 10 and 0 or
      // 38 digits; x: doubles with ties, tiny and huge values, NaN and infinities; f: floats.
      spark.sql(
        """SELECT id, cast(b AS TINYINT) b, cast(s AS SMALLINT) s, cast(i AS INT) i, cast(l AS BIGINT) l,
          |  cast(d2 AS DECIMAL(10, 2)) d2, cast(d10 AS DECIMAL(20, 10)) d10, cast(d38 AS DECIMAL(38, 0)) d38,
          |  cast(x AS DOUBLE) x, cast(f AS FLOAT) f FROM VALUES
          |  (0, 0, 0, 0, 0, '0.00', '0', '0', '0.0', '0.0'),
          |  (1, 127, 32767, 2147483647, 9223372036854775807, '99999999.99', '1234567890.0123456789',
          |     '99999999999999999999999999999999999999', '12332.123456', '1.15'),
          |  (2, -128, -32768, -2147483648, -9223372036854775808, '-0.05', '-0.0000000005',
          |     '-99999999999999999999999999999999999999', '-12332.123456', '-2.5'),
          |  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          |  (4, 5, 1000, 1000000, -1234567, '0.25', '0.0000000015', '123', '0.125', '0.1'),
          |  (5, -1, -999, -1, 1, '-2.50', '2.5000000000', '-5', '0.135', '3.4028235e38'),
          |  (6, 12, 123, 1234, 12345, '1.05', '-0.5', '1', '2.675', '1.4e-45'),
          |  (7, 1, 1, 1, 1, '0.01', '0.05', '0', '-0.001', '16777217'),
          |  (8, 1, 1, 1, 1, '1.15', '1.15', '0', '1.0E23', '-0.0'),
          |  (9, 1, 1, 1, 1, '1.00', '1.00', '0', '4.9E-324', 'NaN'),
          |  (10, 1, 1, 1, 1, '1.00', '1.00', '0', '1.7976931348623157E308', 'Infinity'),
          |  (11, 1, 1, 1, 1, '1.00', '1.00', '0', 'NaN', '-Infinity'),
          |  (12, 1, 1, 1, 1, '1.00', '1.00', '0', 'Infinity', '0.3'),
          |  (13, 1, 1, 1, 1, '1.00', '1.00', '0', '-Infinity', '0.5'),
          |  (14, 1, 1, 1, 1, '1.00', '1.00', '0', '-0.0', '1'),
          |  (15, 1, 1, 1, 1, '1.00', '1.00', '0', '0.005', '1'),
          |  (16, 1, 1, 1, 1, '1.00', '1.00', '0', '1.005', '1'),
          |  (17, 1, 1, 1, 1, '1.00', '1.00', '0', '4503599627370497.5', '1'),
          |  (18, 1, 1, 1, 1, '1.00', '1.00', '0', '0.0005', '1'),
          |  (19, 1, 1, 1, 1, '1.00', '1.00', '0', '9.995', '1'),
          |  (20, 1, 1, 1, 1, '1.00', '1.00', '0', '1e-7', '1')
          |AS t(id, b, s, i, l, d2, d10, d38, x, f)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("fmt_data"))
      spark.read.parquet(TestData.path("fmt_data")).createOrReplaceTempView("fmt_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
