package org.apache.spark.sql.bolide

import java.time.{Instant, LocalDate, ZoneId}

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Datetime conversions and patterns evaluated natively (native/expr: unixtimetotimestamp.go, dayname.go,
 * tzconvert.go, dtpattern.go, dateformat.go, unixtime.go) against Spark itself, Bolide off vs on, in several session time zones. The input
 * (3000 rows, 4 Parquet files) has timestamps next to every DST transition of Los Angeles,
 * Berlin and Lord Howe from 1850 to 2100, random ones from year 1 to 9999, before 1582 and past
 * 9999, epoch counts of every sign up to the edge of the long range, NaN/infinite doubles,
 * decimals with and without fractions of a microsecond, and nulls.
 */
class DatetimePatternSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Zones = Seq("UTC", "America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "+05:30", "Asia/Kolkata")

  @Before def setUp(): Unit = DatetimePatternSuite.ensure(spark)

  private def inZones(body: String => Unit): Unit =
    Zones.foreach(z => withConf("spark.sql.session.timeZone" -> z)(body(z)))

  private def bothModes(body: => Unit): Unit =
    Seq("true", "false").foreach(a => withConf("spark.sql.ansi.enabled" -> a)(body))

  @Test def epochToTimestamp(): Unit = bothModes {
    // As unix_micros: java.sql.Timestamp cannot hold the ends of the long range.
    val calls = Seq("timestamp_seconds(l)", "timestamp_millis(l)", "timestamp_micros(l)", "timestamp_seconds(i)",
      "timestamp_millis(i)", "timestamp_seconds(dbl)", "timestamp_seconds(flt)", "timestamp_seconds(dec6)",
      "timestamp_seconds(CAST(i % 30000 AS SMALLINT))", "timestamp_micros(CAST(i % 100 AS TINYINT))")
    checkNative("SELECT id, " + calls.map(c => s"unix_micros($c)").mkString(", ") + " FROM dtp_gen", Seq(Scan, Project))
    checkNative("SELECT id, timestamp_seconds(i), timestamp_millis(l % 100000000000000) FROM dtp_gen", Seq(Scan, Project))
    checkNative("SELECT id, unix_micros(timestamp_seconds(dec7)) FROM dtp_gen WHERE dec7 * 10000000 % 10 = 0",
      Seq(Scan, Project))
  }

  /** Math.multiplyExact and longValueExact fail (java.lang.ArithmeticException) in every mode. */
  @Test def epochToTimestampErrors(): Unit = bothModes {
    Seq(("SELECT id, timestamp_seconds(big) FROM dtp_gen", "long overflow"),
      ("SELECT id, timestamp_millis(big) FROM dtp_gen", "long overflow"),
      ("SELECT id, timestamp_seconds(dec7) FROM dtp_gen", "Rounding necessary")
    ).foreach { case (q, msg) =>
      val expected = withConf("spark.bolide.enabled" -> "false")(thrownBy(spark.sql(q).collect()))
      val df = spark.sql(q)
      val actual = thrownBy(df.collect())
      assertTrue(s"Spark's error for $q: ${messages(expected)}", messages(expected).contains(msg))
      assertTrue(s"Bolide's error for $q: ${messages(actual)}", messages(actual).contains(msg))
      assertTrue(s"native Project must have run: $q", nativeOperators(df).contains(Project))
    }
  }

  @Test def dayAndMonthNames(): Unit =
    bothModes(checkNative("SELECT id, dayname(d), monthname(d) FROM dtp_gen", Seq(Scan, Project)))

  @Test def utcShifts(): Unit = inZones { _ =>
    val zones = Seq("America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "UTC", "+05:30", "PST", "GMT-3",
      "Asia/Kolkata")
    checkNative("SELECT id, " + zones.map(z => s"from_utc_timestamp(ts, '$z'), to_utc_timestamp(ts, '$z')").mkString(", ") +
      ", from_utc_timestamp(ts, CAST(NULL AS STRING)) FROM dtp_gen", Seq(Scan, Project))
    checkNative("SELECT id, " + zones.map(z => s"unix_micros(to_utc_timestamp(ts, '$z'))").mkString(", ") + " FROM dtp_gen",
      Seq(Scan, Project))
  }

  @Test def convertTimezone(): Unit = inZones { _ =>
    checkNative("SELECT id, convert_timezone('Europe/Berlin', 'America/Los_Angeles', ntz), " +
      "convert_timezone('Australia/Lord_Howe', 'UTC', ntz), convert_timezone('America/Los_Angeles', ntz), " +
      "convert_timezone('+05:30', 'Europe/Berlin', ntz) FROM dtp_gen", Seq(Scan, Project))
  }

  private val Patterns = Seq("yyyy-MM-dd HH:mm:ss", "y yy yyy yyyy yyyyy yyyyyy", "M MM MMM MMMM L LL", "d dd D DD DDD",
    "H HH h hh k kk K KK a", "m mm s ss", "S SS SSS SSSS SSSSS SSSSSS SSSSSSS SSSSSSSS SSSSSSSSS", "E EE EEE EEEE Q QQ",
    "'T''s' '' yyyy'y'", "dd.MM/yy, -HH_mm \u00e9\u6f22", "EEEE, MMMM d, yyyy h:mm:ss a", "yyyyMMddHHmmssSSS", "",
    "yyyy-MM-dd HH:mm:ss Z ZZ ZZZ X XX XXX x xx xxx")

  @Test def dateFormat(): Unit = inZones { _ =>
    bothModes {
      checkNative("SELECT id, " + Patterns.map(p => s"date_format(ts, '${p.replace("'", "\\'")}')").mkString(", ") + " FROM dtp_gen",
        Seq(Scan, Project))
    }
    checkNative("SELECT id, date_format(ts, CAST(NULL AS STRING)), date_format(d, 'yyyy-MM-dd E') FROM dtp_gen",
      Seq(Scan))
  }

  /** Zone names, localized offsets and era letters are refused: Spark formats, with the same answer. */
  @Test def dateFormatFallsBack(): Unit = withoutDispatch {
    Seq("yyyy-MM-dd HH:mm z", "yyyy G", "ZZZZ", "VV", "XXXXX").foreach { p =>
      val q = s"SELECT id, date_format(ts, '$p') FROM dtp_gen"
      val expected = withConf("spark.bolide.enabled" -> "false")(canonical(spark.sql(q).collect().toSeq).sorted)
      val df = spark.sql(q)
      assertEquals(expected, canonical(df.collect().toSeq).sorted)
      assertFalse(s"the projection must stay in Spark:\n${df.queryExecution.executedPlan}",
        nativeOperators(df).contains(Project))
      assertTrue(bolideReport(df), bolideReport(df).contains("not supported natively"))
    }
  }

  @Test def fromUnixTime(): Unit = inZones { _ =>
    bothModes {
      checkNative("SELECT id, from_unixtime(l), from_unixtime(big, 'yyyy-MM-dd HH:mm:ss.SSS'), from_unixtime(i, 'EEEE h a'), " +
        (Patterns.take(8) :+ Patterns.last).map(p => s"from_unixtime(l, '$p')").mkString(", ") + " FROM dtp_gen", Seq(Scan, Project))
    }
  }

  @Test def toUnixSeconds(): Unit = inZones { _ =>
    bothModes {
      checkNative("SELECT id, unix_timestamp(ts), to_unix_timestamp(ts), unix_timestamp(d), to_unix_timestamp(d, 'yyyy'), " +
        "to_unix_timestamp(ntz), unix_timestamp(ts, CAST(NULL AS STRING)) FROM dtp_gen", Seq(Scan, Project))
    }
  }

  /** Strings are parsed by Spark: unix_timestamp of a string stays there. */
  @Test def unixTimestampOfStringFallsBack(): Unit = withoutDispatch {
    val q = "SELECT id, unix_timestamp(zone, 'yyyy') FROM dtp_gen"
    val expected = withConf("spark.bolide.enabled" -> "false", "spark.sql.ansi.enabled" -> "false")(
      canonical(spark.sql(q).collect().toSeq).sorted)
    withConf("spark.sql.ansi.enabled" -> "false") {
      val df = spark.sql(q)
      assertEquals(expected, canonical(df.collect().toSeq).sorted)
      assertFalse(nativeOperators(df).contains(Project))
    }
  }

  /** A zone per row is refused: the projection stays in Spark and still answers. */
  @Test def zoneColumnFallsBack(): Unit = withoutDispatch {
    val q = "SELECT id, from_utc_timestamp(ts, zone), to_utc_timestamp(ts, zone) FROM dtp_gen"
    val expected = withConf("spark.bolide.enabled" -> "false")(canonical(spark.sql(q).collect().toSeq).sorted)
    val df = spark.sql(q)
    assertEquals(expected, canonical(df.collect().toSeq).sorted)
    assertFalse(s"the projection must stay in Spark:\n${df.queryExecution.executedPlan}",
      nativeOperators(df).contains(Project))
    assertTrue(bolideReport(df), bolideReport(df).contains("non-literal time zone"))
  }
}

object DatetimePatternSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    val rnd = new scala.util.Random(20261204)
    val transitions: IndexedSeq[Long] = Seq("America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe").flatMap { z =>
      val rules = ZoneId.of(z).getRules
      Iterator.iterate(rules.nextTransition(Instant.parse("1850-01-01T00:00:00Z")))(t => rules.nextTransition(t.getInstant))
        .takeWhile(t => t != null && t.getInstant.getEpochSecond < 4102444800L).map(_.getInstant.getEpochSecond)
    }.toIndexedSeq
    val deltas = Seq(-86400L, -3600L, -1800L, -1L, 0L, 1L, 1800L, 3599L, 3600L, 5400L, 86400L)
    val minSec = -62135596800L // 0001-01-01
    val maxSec = 253402300799L // 9999-12-31 23:59:59
    def randomSec(): Long = rnd.nextInt(10) match {
      case 0 => -30610224000L + (rnd.nextDouble() * 1.8e10).toLong // 1000..1582
      case 1 => maxSec + (rnd.nextDouble() * 3e12).toLong // past 9999
      case 2 => -(rnd.nextDouble() * 2e9).toLong // a few decades before 1970
      case _ => minSec + (rnd.nextDouble() * (maxSec - minSec)).toLong
    }
    def micros(sec: Long): Long = sec * 1000000L + (if (rnd.nextInt(3) == 0) 0L else rnd.nextInt(1000000).toLong)
    val minDay = LocalDate.of(1, 1, 1).toEpochDay
    val maxDay = LocalDate.of(9999, 12, 31).toEpochDay
    val zoneNames = Seq("America/Los_Angeles", "Europe/Berlin", "UTC", "+01:00", "Australia/Lord_Howe")
    val rows = (0 until 3000).map { i =>
      val ts: Option[Long] = if (i % 17 == 0) None
        else if (i % 2 == 0) Some(micros(transitions(rnd.nextInt(transitions.size)) + deltas(rnd.nextInt(deltas.size))))
        else Some(micros(randomSec()))
      val ntz: Option[Long] = if (i % 19 == 0) None
        else if (i % 2 == 1) Some(micros(transitions(rnd.nextInt(transitions.size)) + deltas(rnd.nextInt(deltas.size)) +
          Seq(-28800L, 3600L, 37800L, 0L)(rnd.nextInt(4))))
        else Some(micros(randomSec()))
      val l: Option[Long] = if (i % 13 == 0) None else rnd.nextInt(6) match {
        case 0 => Some(rnd.nextLong() % 9223372036854L)
        case 1 => Some(Seq(0L, -1L, 1L, 9223372036854L, -9223372036854L, 253402300799L, -62135596800L)(rnd.nextInt(7)))
        case _ => Some((rnd.nextDouble() * 2e11 - 1e11).toLong)
      }
      val int: Option[Int] = if (i % 11 == 0) None else Some(if (rnd.nextInt(5) == 0) rnd.nextInt() else rnd.nextInt(2000) - 1000)
      val dbl: Option[Double] = if (i % 23 == 0) None else rnd.nextInt(8) match {
        case 0 => Some(Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, 1e300, -1e300, -0.0, 1e-7,
          -1.0000005, 9.223372036854776e12)(rnd.nextInt(9)))
        case _ => Some((rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(13)))
      }
      val flt: Option[Float] = dbl.map(_.toFloat)
      // dec6: at most 6 decimals (always exact); dec7: 7 decimals, a fraction of a microsecond when the 7th is not 0.
      val dec6: Option[String] = if (i % 29 == 0) None
        else Some(BigDecimal(rnd.nextLong() % 9223372036854000000L, 6).toString)
      val dec7: Option[String] = if (i % 31 == 0) None
        else Some(BigDecimal((rnd.nextLong() % 100000000000000L) * (if (rnd.nextInt(3) == 0) 1 else 10), 7).toString)
      val big: Option[Long] = if (i % 37 == 0) None
        else Some(if (rnd.nextBoolean()) Long.MaxValue - rnd.nextInt(1000) else Long.MinValue + rnd.nextInt(1000))
      val d: Option[Int] = if (i % 41 == 0) None else Some((minDay + (rnd.nextDouble() * (maxDay - minDay)).toLong).toInt)
      val zone: Option[String] = if (i % 43 == 0) None else Some(zoneNames(rnd.nextInt(zoneNames.size)))
      (i.toLong, ts, ntz, l, int, dbl, flt, dec6, dec7, big, d, zone)
    }
    val writeConf = Seq("spark.bolide.enabled" -> "false", "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS",
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED", "spark.sql.parquet.int96RebaseModeInWrite" -> "CORRECTED",
      "spark.sql.session.timeZone" -> "UTC", "spark.sql.ansi.enabled" -> "false")
    val old = writeConf.map { case (k, _) => k -> spark.conf.getOption(k) }
    writeConf.foreach { case (k, v) => spark.conf.set(k, v) }
    try {
      import spark.implicits._
      rows.toDF("id", "tsm", "ntzm", "l", "i", "dbl", "flt", "dec6s", "dec7s", "big", "di", "zone")
        .selectExpr("id", "timestamp_micros(tsm) AS ts", "CAST(timestamp_micros(ntzm) AS TIMESTAMP_NTZ) AS ntz", "l", "i",
          "dbl", "flt", "CAST(dec6s AS DECIMAL(25,6)) AS dec6", "CAST(dec7s AS DECIMAL(22,7)) AS dec7", "big",
          "date_from_unix_date(di) AS d", "zone")
        .repartition(4)
        .write.mode("overwrite").option("compression", "snappy")
        .parquet(TestData.path("dtp_gen"))
      spark.read.parquet(TestData.path("dtp_gen")).createOrReplaceTempView("dtp_gen")
    } finally old.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }
}
