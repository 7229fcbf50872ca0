package org.apache.spark.sql.bolide

import java.time.{Instant, LocalDate, ZoneId}

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Date and time functions evaluated natively (native/expr: datetime.go, datearith.go,
 * datetrunc.go, timefields.go, tz.go) against Spark itself, Bolide off vs on, in several session
 * time zones. The input (4000 rows, several Parquet files) has dates from year 1 to 9999 (many
 * month ends), timestamps from year 1 to 9999 and next to every DST transition of four zones
 * from 1850 to 2100 (java.time's own rules pick the instants), and nulls. Timestamps results are
 * compared as unix_micros, so that two instants of a DST overlap never print alike. ANSI errors
 * (next_day of an unknown name, make_date of an invalid date) must match Spark's.
 */
class DateFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Zones = Seq("UTC", "America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata",
    "+05:30", "America/Sao_Paulo")

  @Before def setUp(): Unit = DateFunctionsSuite.ensure(spark)

  private def inZones(body: String => Unit): Unit =
    Zones.foreach(z => withConf("spark.sql.session.timeZone" -> z)(body(z)))

  @Test def timestampFields(): Unit = inZones { _ =>
    checkNative("SELECT id, hour(ts), minute(ts), second(ts), unix_seconds(ts), unix_millis(ts), unix_micros(ts), " +
      "hour(ts2), minute(ts2), second(ts2) FROM dt_gen", Seq(Scan, Project))
  }

  @Test def dateTrunc(): Unit = inZones { _ =>
    val levels = Seq("YEAR", "yyyy", "yy", "QUARTER", "MONTH", "mm", "mon", "WEEK", "DAY", "dd", "HOUR", "MINUTE",
      "second", "MILLISECOND", "MICROSECOND", "decade", "")
    checkNative("SELECT id, " + levels.map(l => s"unix_micros(date_trunc('$l', ts))").mkString(", ") + " FROM dt_gen",
      Seq(Scan, Project))
    checkNative("SELECT id, unix_micros(date_trunc('HOUR', ts2)), unix_micros(date_trunc('DAY', ts2)), " +
      "unix_micros(date_trunc('WEEK', ts2)) FROM dt_gen", Seq(Scan, Project))
  }

  @Test def monthsBetween(): Unit = inZones { _ =>
    checkNative("SELECT id, months_between(ts, ts2), months_between(ts2, ts, false), months_between(ts, ts), " +
      "months_between(ts, ts3), months_between(ts3, ts, false) FROM dt_gen", Seq(Scan, Project))
  }

  @Test def dateFunctions(): Unit = {
    checkNative("SELECT id, add_months(d, n), add_months(d, 1), add_months(d, -13), last_day(d), dayofweek(d), " +
      "weekofyear(d), quarter(d), next_day(d, 'TU'), next_day(d, 'sunday'), trunc(d, 'WEEK'), trunc(d, 'MM'), " +
      "trunc(d, 'quarter'), trunc(d, 'YEAR'), trunc(d, 'DD') FROM dt_gen", Seq(Scan, Project))
  }

  @Test def nonAnsiForms(): Unit = withConf("spark.sql.ansi.enabled" -> "false") {
    checkNative("SELECT id, next_day(d, dname), next_day(d, 'xx'), make_date(y, m, dd), make_date(y, 2, 29), " +
      "add_months(d, n) FROM dt_gen", Seq(Scan, Project))
  }

  @Test def ansiForms(): Unit = withConf("spark.sql.ansi.enabled" -> "true") {
    checkNative("SELECT id, next_day(d, 'mon'), next_day(d, 'Fri') FROM dt_gen", Seq(Scan, Project))
    checkNative("SELECT id, next_day(d, dname) FROM dt_gen WHERE dname IN ('MO', 'tue', 'Wednesday', 'THU')",
      Seq(Scan, Project))
    // An unknown name: Spark's ILLEGAL_DAY_OF_WEEK (a SparkIllegalArgumentException), an invalid
    // date: DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION (a SparkDateTimeException) with
    // java.time's message. Where every failing row fails alike the messages must be equal; a
    // column of bad values fails with the same class (which row a task meets first is not
    // deterministic).
    checkNative("SELECT id, make_date(y, m, 1), make_date(y, 2, 28) FROM dt_gen WHERE m BETWEEN 1 AND 12",
      Seq(Scan, Project))
    Seq(("SELECT id, next_day(d, 'xy') FROM dt_gen", "ILLEGAL_DAY_OF_WEEK", true),
      ("SELECT id, next_day(d, dname) FROM dt_gen", "ILLEGAL_DAY_OF_WEEK", false),
      ("SELECT id, make_date(y, 2, 30) FROM dt_gen", "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", true),
      ("SELECT id, make_date(y, 14, 1) FROM dt_gen", "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", true),
      ("SELECT id, make_date(y, m, dd) FROM dt_gen", "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", false)
    ).foreach { case (q, cls, sameMessage) =>
      val expected = withConf("spark.bolide.enabled" -> "false")(thrownBy(spark.sql(q).collect()))
      val df = spark.sql(q)
      val actual = thrownBy(df.collect())
      assertEquals(s"error class for $q", errorClassOf(expected), errorClassOf(actual))
      assertEquals(s"error class for $q", Some(cls), errorClassOf(actual))
      assertEquals(s"exception for $q", sparkErrorOf(expected).map(_.getClass), sparkErrorOf(actual).map(_.getClass))
      if (sameMessage) assertEquals(sparkErrorOf(expected).map(_.getMessage), sparkErrorOf(actual).map(_.getMessage))
      assertTrue(s"native Project must have run: $q", nativeOperators(df).contains(Project))
    }
  }
}

object DateFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    val rnd = new scala.util.Random(20261203)
    // Every transition of these zones from 1850 to 2100, by java.time's rules.
    val transitions: IndexedSeq[Long] = Seq("America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe",
      "America/Sao_Paulo").flatMap { z =>
      val rules = ZoneId.of(z).getRules
      Iterator.iterate(rules.nextTransition(Instant.parse("1850-01-01T00:00:00Z")))(t => rules.nextTransition(t.getInstant))
        .takeWhile(t => t != null && t.getInstant.getEpochSecond < 4102444800L).map(_.getInstant.getEpochSecond)
    }.toIndexedSeq
    val deltas = Seq(-86400L, -5400L, -3600L, -1800L, -1L, 0L, 1L, 1799L, 1800L, 3599L, 3600L, 5400L, 86400L)
    val minSec = -62135596800L // 0001-01-01
    val maxSec = 253402300799L // 9999-12-31 23:59:59
    def randomSec(): Long = minSec + (rnd.nextDouble() * (maxSec - minSec)).toLong
    def micros(sec: Long): Long = sec * 1000000L + (if (rnd.nextInt(3) == 0) 0L else rnd.nextInt(1000000).toLong)
    val minDay = LocalDate.of(1, 1, 1).toEpochDay
    val maxDay = LocalDate.of(9999, 12, 31).toEpochDay
    val names = Seq("MO", "tue", "Wednesday", "THU", "fr", "sat", "SUN", "xx", "", "mon ", "FRIDAY", "Sunday")
    val rows = (0 until 4000).map { i =>
      val ts: Option[Long] = if (i % 17 == 0) None
        else if (i % 2 == 0) Some(micros(transitions(rnd.nextInt(transitions.size)) + deltas(rnd.nextInt(deltas.size))))
        else Some(micros(randomSec()))
      val ts2: Option[Long] = if (i % 19 == 0) None else rnd.nextInt(3) match {
        case 0 => Some(micros(randomSec()))
        case 1 => ts.map(t => t + rnd.nextInt(4000).toLong * 86400000000L - 2000L * 86400000000L)
        case _ => Some(micros(transitions(rnd.nextInt(transitions.size)) + deltas(rnd.nextInt(deltas.size))))
      }
      // ts3: the same day of month or a month end, months away from ts (whole-month answers).
      val ts3: Option[Long] = ts.map { t =>
        val ld = LocalDate.ofEpochDay(Math.floorDiv(t, 86400000000L))
        val other = if (rnd.nextBoolean()) ld.plusMonths(rnd.nextInt(200) - 100)
          else ld.plusMonths(rnd.nextInt(200) - 100).withDayOfMonth(1).plusMonths(1).minusDays(1)
        other.toEpochDay * 86400000000L + rnd.nextInt(86400).toLong * 1000000L
      }
      val d: Option[Int] = if (i % 23 == 0) None else {
        val ld = LocalDate.ofEpochDay(minDay + (rnd.nextDouble() * (maxDay - minDay)).toLong)
        Some((if (i % 5 == 0) ld.withDayOfMonth(ld.lengthOfMonth) else ld).toEpochDay.toInt)
      }
      val n: Option[Int] = if (i % 29 == 0) None else Some(rnd.nextInt(2401) - 1200)
      val dname: Option[String] = if (i % 31 == 0) None else Some(names(rnd.nextInt(names.size)))
      val y: Option[Int] = if (i % 37 == 0) None else Some(rnd.nextInt(10001))
      val m: Option[Int] = if (i % 41 == 0) None else Some(rnd.nextInt(14))
      val dd: Option[Int] = if (i % 43 == 0) None else Some(rnd.nextInt(33))
      (i.toLong, ts, ts2, ts3, d, n, dname, y, m, dd)
    }
    // TIMESTAMP_MICROS and no calendar rebasing: the values written are the values generated.
    val writeConf = Seq("spark.bolide.enabled" -> "false", "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS",
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED", "spark.sql.parquet.int96RebaseModeInWrite" -> "CORRECTED")
    writeConf.foreach { case (k, v) => spark.conf.set(k, v) }
    try {
      import spark.implicits._
      rows.toDF("id", "tsm", "ts2m", "ts3m", "di", "n", "dname", "y", "m", "dd")
        .selectExpr("id", "timestamp_micros(tsm) AS ts", "timestamp_micros(ts2m) AS ts2", "timestamp_micros(ts3m) AS ts3",
          "date_from_unix_date(di) AS d", "n", "dname", "y", "m", "dd")
        .repartition(4)
        .write.mode("overwrite").option("compression", "snappy")
        .parquet(TestData.path("dt_gen"))
      spark.read.parquet(TestData.path("dt_gen")).createOrReplaceTempView("dt_gen")
    } finally writeConf.foreach { case (k, _) => spark.conf.unset(k) }
  }
}
