package org.apache.spark.sql.bolide

import java.math.{BigDecimal => JBigDecimal}
import java.nio.charset.StandardCharsets.UTF_8

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Casts from and to strings evaluated natively (native/expr: caststring.go, castdecimal.go,
 * castfloat.go, castdate.go, castformat.go, javadouble.go) against Spark itself, Bolide off vs on,
 * in LEGACY, ANSI and TRY modes. The input (cast_gen, several Parquet files) holds 4000 generated
 * strings: integers with signs, leading zeros, fractions and whitespace (bytes 0x00-0x20 and 0x7F
 * included), decimals with exponents and Unicode digits, Java's and longer renderings of random
 * doubles and floats, the midpoints between neighbouring doubles, hexadecimal literals, the
 * special names of infinity and NaN, dates from 1 to 7 digit years with signs and trailing time
 * parts, invalid UTF-8, and typed columns (every integral type, float, double, three decimal
 * types, boolean, date) to print. ANSI errors must carry Spark's error class and exception, and,
 * where one row fails, Spark's message.
 */
class CastSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Filter = "BolideFilter"

  @Before def setUp(): Unit = CastSuite.ensure(spark)

  private val fromString = Seq("TINYINT", "SMALLINT", "INT", "BIGINT", "BOOLEAN", "DECIMAL(10,2)", "DECIMAL(38,18)",
    "DECIMAL(20,0)", "DECIMAL(5,5)", "DOUBLE", "FLOAT", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ")
  private val Zones = Seq("UTC", "America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "+05:30")

  /** A cast of s as the result column; dates as their epoch day (java.sql.Date, which collect
   * makes of a DATE, cannot hold years past 9999 nor the far past exactly). */
  private def castCol(cast: String, t: String): String = t match {
    case "DATE" => s"unix_date($cast(s AS $t))"
    case "TIMESTAMP" => s"unix_micros($cast(s AS $t))"
    case "TIMESTAMP_NTZ" => s"cast($cast(s AS $t) AS STRING)"
    case _ => s"$cast(s AS $t)"
  }

  @Test def stringsLegacy(): Unit = withConf("spark.sql.ansi.enabled" -> "false") {
    val df = checkNative("SELECT id, s, " + fromString.map(castCol("cast", _)).mkString(", ") + " FROM cast_gen",
      Seq(Scan, Project))
    // The input must exercise every parser: hundreds of strings each one accepts, more it rejects.
    val parsed = df.collect().foldLeft(Array.fill(fromString.size)(0)) { (acc, r) =>
      fromString.indices.foreach(j => if (!r.isNullAt(j + 2)) acc(j) += 1); acc
    }
    fromString.zip(parsed).foreach { case (t, n) =>
      assertTrue(s"$n strings parse as $t (${fromString.zip(parsed).mkString(", ")})", n >= 300 && n < 3600)
    }
  }

  @Test def stringsTry(): Unit = Seq("true", "false").foreach { ansi =>
    withConf("spark.sql.ansi.enabled" -> ansi) {
      checkNative("SELECT id, s, " + fromString.map(castCol("try_cast", _)).mkString(", ") + " FROM cast_gen",
        Seq(Scan, Project))
    }
  }

  @Test def stringsAnsiWhereTheyParse(): Unit = withConf("spark.sql.ansi.enabled" -> "true") {
    fromString.foreach { t =>
      checkNative(s"SELECT id, s, ${castCol("cast", t)} FROM cast_gen WHERE try_cast(s AS $t) IS NOT NULL",
        Seq(Scan, Filter, Project))
    }
  }

  @Test def timestampsInZones(): Unit = Zones.foreach { z =>
    withConf("spark.sql.session.timeZone" -> z, "spark.sql.ansi.enabled" -> "false") {
      checkNative("SELECT id, s, unix_micros(cast(s AS TIMESTAMP)), unix_micros(try_cast(s AS TIMESTAMP)), " +
        "cast(ts AS STRING), cast(tsn AS STRING), cast(cast(ts AS STRING) AS TIMESTAMP) = ts FROM cast_gen",
        Seq(Scan, Project))
    }
    withConf("spark.sql.session.timeZone" -> z, "spark.sql.ansi.enabled" -> "true") {
      checkNative("SELECT id, s, unix_micros(cast(s AS TIMESTAMP)) FROM cast_gen WHERE try_cast(s AS TIMESTAMP) IS NOT NULL",
        Seq(Scan, Filter, Project))
    }
  }

  @Test def stringsInFilters(): Unit = Seq("true", "false").foreach { ansi =>
    withConf("spark.sql.ansi.enabled" -> ansi) {
      checkNative("SELECT id FROM cast_gen WHERE try_cast(s AS INT) > 5 OR try_cast(s AS DATE) < DATE '2000-01-01' " +
        "OR try_cast(s AS DOUBLE) BETWEEN -1 AND 1", Seq(Scan, Filter))
    }
  }

  @Test def doublesRoundTrip(): Unit = withConf("spark.sql.ansi.enabled" -> "false") {
    // Printed by Java and parsed back: every double survives, and so does every float.
    checkNative("SELECT id, d, cast(cast(d AS STRING) AS DOUBLE) = d OR isnan(d), " +
      "cast(cast(f AS STRING) AS FLOAT) = f OR isnan(f), cast(cast(d AS STRING) AS DECIMAL(38,10)) FROM cast_gen",
      Seq(Scan, Project))
  }

  @Test def toStrings(): Unit = Seq("false", "true").foreach { ansi =>
    withConf("spark.sql.ansi.enabled" -> ansi) {
      // Decimals print BigDecimal.toString in LEGACY mode (0E-8) and plainly in ANSI mode.
      checkNative("SELECT id, cast(b AS STRING), cast(sh AS STRING), cast(i AS STRING), cast(l AS STRING), " +
        "cast(f AS STRING), cast(d AS STRING), cast(d1 AS STRING), cast(d2 AS STRING), cast(d3 AS STRING), " +
        "cast(bo AS STRING), cast(dt AS STRING), try_cast(d3 AS STRING), concat(d, '|', f, '|', d3) FROM cast_gen",
        Seq(Scan, Project))
    }
  }

  @Test def numbersToDecimal(): Unit = withConf("spark.sql.ansi.enabled" -> "false") {
    // Decimal(double) parses Double.toString: on Java 17, 1e23 is 99999999999999990000000.
    checkNative("SELECT id, cast(d AS DECIMAL(38,0)), cast(d AS DECIMAL(38,10)), cast(f AS DECIMAL(38,18)), " +
      "cast(d * 1e20 AS DECIMAL(38,0)) FROM cast_gen", Seq(Scan, Project))
  }

  @Test def ansiErrors(): Unit = withConf("spark.sql.ansi.enabled" -> "true") {
    // One failing row per query: Spark's message must be equal too.
    CastSuite.badRows.zipWithIndex.foreach { case ((_, t, cls), k) =>
      val q = s"SELECT id, cast(s AS $t) FROM cast_bad WHERE id = $k"
      val expected = withConf("spark.bolide.enabled" -> "false")(thrownBy(spark.sql(q).collect()))
      val df = spark.sql(q)
      val actual = thrownBy(df.collect())
      assertEquals(s"error class for $q", Some(cls), errorClassOf(expected))
      assertEquals(s"error class for $q", errorClassOf(expected), errorClassOf(actual))
      assertEquals(s"exception for $q", sparkErrorOf(expected).map(_.getClass), sparkErrorOf(actual).map(_.getClass))
      // Spark's message ends with the query context (the SQL text around the cast), which the
      // engine's errors do not carry: compare up to it.
      def text(t: Throwable) = sparkErrorOf(t).map(_.getMessage.split("\n== SQL")(0))
      assertEquals(s"message for $q", text(expected), text(actual))
      assertTrue(s"native Project must have run: $q", nativeOperators(df).contains(Project))
    }
    // A whole column of bad values: the same class (which row fails first differs, so only rows
    // that fail alike: for decimals, ASCII strings without a digit, not numbers out of range).
    fromString.filter(_ != "BOOLEAN").foreach { t =>
      val where = if (t.startsWith("DECIMAL")) " WHERE s NOT RLIKE '[0-9]' AND length(s) = octet_length(s)" else ""
      val q = s"SELECT id, ${castCol("cast", t)} FROM cast_gen$where"
      val expected = withConf("spark.bolide.enabled" -> "false")(thrownBy(spark.sql(q).collect()))
      val df = spark.sql(q)
      val actual = thrownBy(df.collect())
      assertEquals(s"error class for $q", errorClassOf(expected).map(_.split('.')(0)), errorClassOf(actual).map(_.split('.')(0)))
      assertTrue(s"native Project must have run: $q", nativeOperators(df).contains(Project))
    }
  }

  @Test def refusedCastsSayWhy(): Unit =
    withConf("spark.sql.ansi.enabled" -> "false", "spark.bolide.dispatch.enabled" -> "false") {
    val df = checkNative("SELECT id, cast(unhex(hex(s)) AS STRING) FROM cast_gen", Seq(Scan))
    assertTrue(bolideReport(df), bolideReport(df).contains("cast from binary to string"))
    withConf("spark.sql.legacy.timeParserPolicy" -> "LEGACY") {
      val df = checkNative("SELECT id, cast(dt AS STRING) FROM cast_gen", Seq(Scan))
      assertTrue(bolideReport(df), bolideReport(df).contains("timeParserPolicy"))
    }
  }
}

object CastSuite {
  private var done = false

  /** Strings that fail one cast in ANSI mode: the string, the type, Spark's error class. */
  val badRows: Seq[(Array[Byte], String, String)] = Seq(
    ("abc", "INT", "CAST_INVALID_INPUT"),
    (" 1.5 ", "BIGINT", "CAST_INVALID_INPUT"),
    ("128", "TINYINT", "CAST_INVALID_INPUT"),
    ("it's \\ 7", "SMALLINT", "CAST_INVALID_INPUT"),
    ("maybe", "BOOLEAN", "CAST_INVALID_INPUT"),
    ("1.2.3", "DECIMAL(10,2)", "CAST_INVALID_INPUT"),
    ("123456789.5", "DECIMAL(10,2)", "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"),
    ("1e50", "DECIMAL(10,2)", "NUMERIC_OUT_OF_SUPPORTED_RANGE"),
    ("0x1.8", "DOUBLE", "CAST_INVALID_INPUT"),
    ("1,5", "FLOAT", "CAST_INVALID_INPUT"),
    ("2020-02-30", "DATE", "CAST_INVALID_INPUT"),
    ("2020-01-01 25:00:00", "TIMESTAMP", "CAST_INVALID_INPUT"),
    ("2020-01-01T00:00:00 Mars/Phobos", "TIMESTAMP", "CAST_INVALID_INPUT"),
    ("12:00:00", "TIMESTAMP_NTZ", "CAST_INVALID_INPUT"),
    ("20201-1-1x", "DATE", "CAST_INVALID_INPUT")
  ).map { case (s, t, c) => (s.getBytes(UTF_8), t, c) } :+
    ((Array[Byte]('1', 0xff.toByte, '2'), "INT", "CAST_INVALID_INPUT")) :+
    ((Array[Byte]('x', 0xc3.toByte, 'y'), "DATE", "CAST_INVALID_INPUT"))

  private val digitSets = Seq("0123456789", "٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "۰۱۲۳۴۵۶۷۸۹")
  private val spaces = Seq("", "", "", " ", "  ", "\t", "\n", "\u0000", "\u001f", "\u007f", "\u00a0", "\r\n ")

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    val rnd = new scala.util.Random(20261204)
    def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.size))
    def digits(n: Int): String = (0 until n).map(_ => ('0' + rnd.nextInt(10)).toChar).mkString
    def pad(s: String): String = if (rnd.nextInt(4) == 0) pick(spaces) + s + pick(spaces) else s
    def sign: String = pick(Seq("", "", "", "-", "+"))
    def integer: String = {
      val body = rnd.nextInt(6) match {
        case 0 => rnd.nextInt().toString
        case 1 => rnd.nextLong().toString
        case 2 => "0" * rnd.nextInt(4) + digits(1 + rnd.nextInt(20))
        case 3 => digits(1 + rnd.nextInt(5)) + "." + digits(rnd.nextInt(4))
        case 4 => pick(Seq("127", "128", "-128", "-129", "32767", "32768", "-32769", "2147483647", "2147483648",
          "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
          "-9223372036854775809", ".", "-.", "+.5", "1.", "1e3", "0x10", "1 2", "--1", ""))
        case _ => (rnd.nextInt(200) - 100).toString + pick(Seq("", "x", ".5x", "..", "e"))
      }
      pad(if (body.startsWith("-")) body else sign + body)
    }
    def decimal: String = {
      val ds = if (rnd.nextInt(8) == 0) pick(digitSets.tail) else digitSets.head
      def dg(n: Int) = (0 until n).map(_ => ds(rnd.nextInt(10))).mkString
      val mant = rnd.nextInt(4) match {
        case 0 => dg(1 + rnd.nextInt(12))
        case 1 => dg(rnd.nextInt(8)) + "." + dg(1 + rnd.nextInt(12))
        case 2 => dg(1 + rnd.nextInt(40)) + "." + dg(rnd.nextInt(30))
        case _ => dg(1 + rnd.nextInt(3)) + "." + "5" * rnd.nextInt(12)
      }
      val exp = rnd.nextInt(5) match {
        case 0 => pick(Seq("e", "E")) + pick(Seq("", "+", "-")) + (rnd.nextInt(60))
        case 1 => pick(Seq("e", "E")) + "-" + (rnd.nextInt(20) + 30)
        case _ => ""
      }
      pad(sign + mant + exp)
    }
    def double: String = {
      val d = rnd.nextInt(5) match {
        case 0 => java.lang.Double.longBitsToDouble(rnd.nextLong())
        case 1 => rnd.nextGaussian() * math.pow(10, rnd.nextInt(40) - 20)
        case 2 => java.lang.Double.longBitsToDouble(rnd.nextLong() & 0x000fffffffffffffL)
        case 3 => (rnd.nextInt(2000000) - 1000000) / math.pow(10, rnd.nextInt(10))
        case _ => rnd.nextFloat() * math.pow(2, rnd.nextInt(256) - 128)
      }
      val text = rnd.nextInt(8) match {
        case 0 | 1 | 2 => java.lang.Double.toString(d)
        case 3 => java.lang.Float.toString(d.toFloat)
        case 4 => // the exact midpoint between d and the next double, or a hair off it
          if (d.isNaN || d.isInfinite) "NaN" else {
            val mid = new JBigDecimal(d).add(new JBigDecimal(Math.nextUp(d))).divide(JBigDecimal.valueOf(2))
            val m = mid.toString
            if (rnd.nextBoolean()) m else if (m.contains("E")) m.replace("E", "0001E") else m + "0001"
          }
        case 5 => java.lang.Double.toHexString(d)
        case 6 => String.format("%.25g", Double.box(d))
        case _ => pick(Seq("NaN", "-NaN", "nan", "Infinity", "-Infinity", "inf", "-INF", "+infinity", "Infinityx",
          "1f", "1.5d", "1e", ".", "-", "1e400", "1e-400", "4.9e-324", "2.4703282292062328e-324", "3.4028236e38",
          "0x1p-1074", "0x1.fffffffffffffp1023", "0X1.8P1f", "1_0"))
      }
      pad(text)
    }
    def date: String = {
      val y = rnd.nextInt(6) match {
        case 0 => digits(4)
        case 1 => (1 + rnd.nextInt(9999)).toString
        case 2 => digits(1 + rnd.nextInt(8))
        case 3 => "%04d".format(rnd.nextInt(3000))
        case _ => (1900 + rnd.nextInt(200)).toString
      }
      val m = rnd.nextInt(5) match {
        case 0 => ""
        case 1 => "-" + (1 + rnd.nextInt(12))
        case 2 => "-%02d".format(rnd.nextInt(14))
        case _ => "-%02d".format(1 + rnd.nextInt(12))
      }
      val d = if (m.isEmpty || rnd.nextInt(5) == 0) "" else rnd.nextInt(4) match {
        case 0 => "-" + (1 + rnd.nextInt(31))
        case 1 => "-%02d".format(rnd.nextInt(33))
        case _ => "-%02d".format(1 + rnd.nextInt(28))
      }
      val tail = if (d.isEmpty) pick(Seq("", "", "T", " x")) else pick(Seq("", "", "", "T", "T12:34:56", " 12:00", " junk", "x", "T\u00e9"))
      pad(pick(Seq("", "", "", "", "-", "+")) + y + m + d + tail)
    }
    def timestamp: String = {
      val day = pick(Seq(date, "2024-03-10", "2024-11-03", "2024-03-31", "2024-10-27", "1883-11-18", "2020-01-01",
        "%04d-%02d-%02d".format(1 + rnd.nextInt(9999), 1 + rnd.nextInt(12), 1 + rnd.nextInt(28))))
      val time = "%d:%02d:%02d".format(rnd.nextInt(25), rnd.nextInt(61), rnd.nextInt(61)) +
        pick(Seq("", "", "." + digits(1 + rnd.nextInt(9)), "."))
      val zone = pick(Seq("", "", "", "Z", "+05:00", "-8", "+5:30", "-08:00:01", " UTC", "GMT+3", "UTC-05:30", " PST", " EST",
        " America/New_York", " Europe/Paris", " Mars/Phobos", " utc", "+19:00", "UT", "+0130"))
      rnd.nextInt(10) match {
        case 0 => pad(pick(Seq("T", "", " ")) + time + zone)
        case 1 => pad(day.trim)
        case _ => pad(day.trim.takeWhile(c => c != 'T' && c != ' ') + pick(Seq("T", " ")) + time + zone)
      }
    }
    def boolean: String = {
      val w = pick(Seq("t", "true", "y", "yes", "1", "f", "false", "n", "no", "0", "tru", "yess", "2", "on", "off", "-1", ""))
      pad(w.map(c => if (rnd.nextBoolean()) c.toUpper else c))
    }
    def bytes(s: String): Array[Byte] = {
      val b = s.getBytes(UTF_8)
      if (b.nonEmpty && rnd.nextInt(40) == 0) { // invalid UTF-8 somewhere
        val i = rnd.nextInt(b.length)
        b.updated(i, pick(Seq(0xff, 0x80, 0xc3, 0xe2)).toByte)
      } else b
    }
    val fixed = Seq("", " ", "t", "TRUE", " yes ", "n", "No", "0", "1", "2", "on", "\u0000false\u007f", "ｔｒｕｅ",
      "0e50", "0e37", "1e-2147483648", "1e2147483648", "+", "-", "٣٤٥", "1e٢", "１２.５", "𝟏𝟐",
      "2020-02-29", "2019-02-29", "-0001-12-31", "+10000-01-01", "5881580-07-11", "5881580-07-12", "-5877641-06-23",
      "-5877641-06-22", "2020-01-01T", "2020-01-01 whatever", "2020-1-1", "2020-01", "2020", "202", "20200101")
    val strings: IndexedSeq[Array[Byte]] = (fixed.map(_.getBytes(UTF_8)) ++ (fixed.size until 4000).map { i =>
      bytes(i % 7 match {
        case 0 => integer
        case 1 => decimal
        case 2 => double
        case 3 => date
        case 4 => boolean
        case 5 => timestamp
        case _ => pick(Seq(integer, decimal, double, date, boolean, timestamp))
      })
    }).toIndexedSeq
    val minDay = java.time.LocalDate.of(-3000, 1, 1).toEpochDay
    val maxDay = java.time.LocalDate.of(12000, 12, 31).toEpochDay
    val rows = strings.zipWithIndex.map { case (s, i) =>
      val nul = (k: Int) => i % k == 0
      val d = rnd.nextInt(5) match {
        case 0 => java.lang.Double.longBitsToDouble(rnd.nextLong())
        case 1 => math.pow(10, rnd.nextInt(60) - 30) * (if (rnd.nextBoolean()) 1 else -1)
        case 2 => (rnd.nextInt(2000000) - 1000000) / math.pow(10, rnd.nextInt(10))
        case 3 => pick(Seq(0.0, -0.0, 1e23, 2e23, 8.41e21, 2e-3, 1e7, 1e-3, 9.999999999999998e-4, 5e-324,
          Double.MaxValue, Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, 0.1, 100.0))
        case _ => rnd.nextGaussian() * 1000
      }
      val f = rnd.nextInt(3) match {
        case 0 => java.lang.Float.intBitsToFloat(rnd.nextInt())
        case 1 => (rnd.nextGaussian() * math.pow(10, rnd.nextInt(20) - 10)).toFloat
        case _ => pick(Seq(0.0f, -0.0f, 1e10f, 2.4414062e-4f, 1.4e-45f, Float.MaxValue, Float.NaN, 0.1f, 1e7f))
      }
      (i.toLong, if (nul(97)) null else s,
        if (nul(11)) None else Some(rnd.nextInt().toByte), if (nul(13)) None else Some(rnd.nextInt().toShort),
        if (nul(17)) None else Some(pick(Seq(rnd.nextInt(), rnd.nextInt(1000), Int.MinValue, Int.MaxValue))),
        if (nul(19)) None else Some(pick(Seq(rnd.nextLong(), rnd.nextInt(100).toLong, Long.MinValue, Long.MaxValue))),
        if (nul(23)) None else Some(f), if (nul(29)) None else Some(d),
        if (nul(31)) None else Some(BigDecimal(rnd.nextLong() % 10000000000L, 2)),
        if (nul(37)) None else Some(BigDecimal(BigInt(128, rnd) * pick(Seq(1, -1)) % BigInt(10).pow(38), 18)),
        if (nul(41)) None else Some(BigDecimal(BigInt(pick(Seq(rnd.nextLong() % 1000, rnd.nextLong() % 100000000L,
          rnd.nextLong(), 0L, 1L, 10L, 99L))), 8)),
        if (nul(43)) None else Some(rnd.nextBoolean()),
        if (nul(47)) None else Some((minDay + (rnd.nextDouble() * (maxDay - minDay)).toLong).toInt),
        if (nul(53)) None else Some(pick(Seq(rnd.nextLong(), (rnd.nextDouble() * 4e17 - 2e17).toLong,
          pick(Seq(1710064800000000L, 1730620800000000L, 1711846800000000L, 1729990800000000L)) + rnd.nextInt(7200) * 1000000L - 3600000000L,
          rnd.nextLong() / 1000000 * 1000000, Long.MinValue, Long.MaxValue, 0L))))
    }
    // TIMESTAMP_MICROS and no calendar rebasing: the values written are the values generated.
    val writeConf = Seq("spark.bolide.enabled" -> "false", "spark.sql.session.timeZone" -> "UTC",
      "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS",
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED", "spark.sql.parquet.int96RebaseModeInWrite" -> "CORRECTED")
    val old = writeConf.map { case (k, _) => k -> spark.conf.getOption(k) }
    writeConf.foreach { case (k, v) => spark.conf.set(k, v) }
    try {
      import spark.implicits._
      rows.toDF("id", "raw", "b", "sh", "i", "l", "f", "d", "d1", "d2", "d3", "bo", "di", "tsm")
        .selectExpr("id", "cast(raw AS STRING) AS s", "b", "sh", "i", "l", "f", "d",
          "cast(d1 AS DECIMAL(10,2)) AS d1", "cast(d2 AS DECIMAL(38,18)) AS d2", "cast(d3 AS DECIMAL(20,8)) AS d3",
          "bo", "date_from_unix_date(di) AS dt", "timestamp_micros(tsm) AS ts",
          "cast(timestamp_micros(tsm DIV 10) AS TIMESTAMP_NTZ) AS tsn")
        .repartition(4)
        .write.mode("overwrite").parquet(TestData.path("cast_gen"))
      spark.read.parquet(TestData.path("cast_gen")).createOrReplaceTempView("cast_gen")
      badRows.zipWithIndex.map { case ((s, _, _), k) => (k.toLong, s) }.toDF("id", "raw")
        .selectExpr("id", "cast(raw AS STRING) AS s")
        .repartition(2)
        .write.mode("overwrite").parquet(TestData.path("cast_bad"))
      spark.read.parquet(TestData.path("cast_bad")).createOrReplaceTempView("cast_bad")
    } finally old.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }
}
