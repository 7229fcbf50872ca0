package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * Iceberg's partition transform functions (`<catalog>.system.bucket / truncate / years / months /
 * days / hours`) evaluated natively must equal Iceberg Java's bit for bit: they decide which
 * partition a row belongs to. Spark plans them as StaticInvoke of the Iceberg function's static
 * `invoke` in projections, and as ApplyFunctionExpression in filters (Iceberg's ReplaceStaticInvoke
 * rule). Each query runs with Bolide off and on over an Iceberg table (the scan itself stays in
 * Spark) and the transform must have run in BolideProject or BolideFilter.
 */
class IcebergTransformSuite extends BolideSuiteBase {
  private val Project = "BolideProject"
  private val Filter = "BolideFilter"
  private val Agg = "BolideHashAggregate"
  private val T = IcebergTransformSuite.Table
  private def fn(name: String) = s"${SparkChildrenSuite.Catalog}.system.$name"

  @Before def setUp(): Unit = IcebergTransformSuite.ensure(spark)

  @Test def bucketOfEveryType(): Unit = {
    val b = fn("bucket")
    checkNative(s"SELECT id, $b(16, i), $b(16, l), $b(7, s), $b(5, bin), $b(16, d9), $b(16, d38), " +
      s"$b(16, dt), $b(16, ts), $b(16, ntz), $b(1000, id), $b(2147483647, s), $b(1, i) FROM $T", Seq(Project))
  }

  @Test def truncateOfEveryType(): Unit = {
    val t = fn("truncate")
    checkNative(s"SELECT id, $t(3, i), $t(1000, l), $t(1, s), $t(2, s), $t(3, bin), $t(10, d9), " +
      s"$t(7, d38), $t(100, id), $t(2147483647, i), $t(4, s) FROM $T", Seq(Project))
  }

  @Test def timeTransforms(): Unit = {
    val cols = Seq("dt", "ts", "ntz").flatMap { c =>
      Seq("years", "months", "days") .map(f => s"${fn(f)}($c)") ++
        (if (c == "dt") Nil else Seq(s"${fn("hours")}($c)"))
    }
    checkNative(s"SELECT id, ${cols.mkString(", ")} FROM $T", Seq(Project))
  }

  @Test def transformsInFilters(): Unit = {
    Seq(
      s"${fn("bucket")}(16, i) = 3",
      s"${fn("bucket")}(16, id) IN (1, 7, 11) AND ${fn("bucket")}(4, s) = 2",
      s"${fn("bucket")}(16, d38) = 5 OR ${fn("bucket")}(3, bin) = 0",
      s"${fn("truncate")}(3, s) = 'abc'",
      s"${fn("truncate")}(1, s) = '日'",
      s"${fn("truncate")}(2, bin) = X'C3A9'",
      s"${fn("truncate")}(100, l) < 0",
      s"${fn("truncate")}(10, d9) < -9999999",
      s"${fn("truncate")}(10, d9) IS NULL",
      s"${fn("years")}(ts) = -1",
      s"${fn("months")}(dt) < -12",
      s"${fn("days")}(ts) < DATE '1950-01-01'",
      s"${fn("hours")}(ts) % 24 = 23",
      s"${fn("hours")}(ntz) = -2"
    ).foreach { cond =>
      val df = checkNative(s"SELECT id, s FROM $T WHERE $cond", Seq(Filter))
      assertTrue(s"no row passes $cond: the check would prove little", df.collect().nonEmpty)
    }
  }

  @Test def decimalTruncatedPastItsPrecision(): Unit = {
    // -9999999.99 truncated by 10 (cents) is -10000000.00, a digit more than decimal(9,2) has:
    // Spark's projection writes it as null, a predicate compares the wide value. Both natively.
    val t = fn("truncate")
    val projected = checkNative(s"SELECT id, $t(10, d9), $t(10, d38) FROM $T WHERE id = -2", Seq(Project))
    assertEquals("[-2,null,null]", projected.collect().head.toString)
    val filtered = checkNative(s"SELECT id FROM $T WHERE $t(10, d9) < -9999999", Seq(Filter))
    assertEquals("[-2]", filtered.collect().map(_.toString).mkString)
  }

  @Test def transformsAsGroupingKeys(): Unit = {
    checkNative(s"SELECT ${fn("bucket")}(8, l) AS k, count(*), sum(i) FROM $T GROUP BY 1", Seq(Agg))
    checkNative(s"SELECT ${fn("days")}(ts) AS k, count(*) FROM $T GROUP BY 1", Seq(Agg))
  }

  @Test def preEpochSubSecondEdges(): Unit = {
    // Iceberg takes a pre-1970 timestamp at .999999 of a second one second early: 1969-12-31
    // 23:00:00.999999 is hour -2 for Iceberg (floor division would say -1), and Bolide agrees.
    val df = checkNative(s"SELECT ${fn("hours")}(ts), ${fn("days")}(ts), ${fn("months")}(ts), " +
      s"${fn("years")}(ts) FROM $T WHERE id = -3", Seq(Project))
    assertEquals("[-2,1969-12-31,-1,-1]", df.collect().head.toString)
  }

  @Test def unsupportedCallsStayInSparkWithAReason(): Unit = withoutDispatch {
    // The number of buckets from a column: Iceberg's function takes it, Bolide only a literal.
    val nonLiteral = checkNative(s"SELECT id, ${fn("bucket")}(cast(id % 3 AS INT) + 3, i) FROM $T", Nil)
    assertFallback(nonLiteral, "Project", "number of buckets must be an int literal")
    // A width of 0 (Iceberg Java gives empty strings; a bucket count of 0 would raise / by zero).
    val zero = checkNative(s"SELECT id, ${fn("truncate")}(0, s) FROM $T", Nil)
    assertFallback(zero, "Project", "width must be positive")
    // An argument the native engine cannot evaluate: the reason names it.
    val arg = checkNative(s"SELECT id, ${fn("truncate")}(2, regexp_replace(s, '(?i)a', 'b')) FROM $T", Nil)
    assertFallback(arg, "Project", "RegExpReplace")
    // (Every argument type Iceberg binds these functions to runs natively; collated strings, which
    // Bolide refuses, are refused by Spark's analyzer for these functions already.)
  }

  private def assertFallback(df: org.apache.spark.sql.DataFrame, node: String, reasonPart: String): Unit = {
    val (native, fallback) = operatorReport(df)
    assertFalse(s"$node ran natively: $native", native.contains(s"Bolide$node"))
    assertTrue(s"no $node fallback mentioning '$reasonPart' in $fallback\n${bolideReport(df)}",
      fallback.exists { case (n, r) => n.contains(node) && r.contains(reasonPart) })
  }
}

object IcebergTransformSuite {
  val Table = s"${SparkChildrenSuite.Catalog}.db.transforms"
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"CREATE NAMESPACE IF NOT EXISTS ${SparkChildrenSuite.Catalog}.db")
      spark.sql(s"DROP TABLE IF EXISTS $Table")
      spark.sql(
        s"""CREATE TABLE $Table (id BIGINT, i INT, l BIGINT, s STRING, bin BINARY, d9 DECIMAL(9,2),
           |d38 DECIMAL(38,10), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ) USING iceberg
           |PARTITIONED BY (bucket(4, id)) TBLPROPERTIES ('format-version'='2')""".stripMargin)
      // 3000 generated rows: nulls in every column, both signs, dates from 1900 to 2064, timestamps
      // from 1900 on (some at hour and day boundaries plus .999999 s), multi-byte strings.
      spark.range(0, 3000, 1, 3).selectExpr(
        "id",
        "if(id % 13 = 0, null, cast((id * 7919) % 200001 - 100000 AS INT)) AS i",
        "if(id % 11 = 0, null, (id * 104729 - 150000000) * 1000003) AS l",
        "if(id % 9 = 0, null, concat(element_at(array('abc', 'é', '日本', '😀', 'ab', 'Ünï', 'x'), " +
          "cast(id % 7 + 1 AS INT)), cast(id AS STRING), if(id % 2 = 0, 'ü€', ''))) AS s",
        "if(id % 10 = 0, null, if(id % 3 = 0, encode(concat('é', cast(id AS STRING)), 'UTF-8'), " +
          "unhex(hex(id * 2654435761)))) AS bin",
        "if(id % 8 = 0, null, cast(((id * 7919) % 2000001 - 1000000) / 100.0 AS DECIMAL(9,2))) AS d9",
        "if(id % 7 = 0, null, cast(concat(if(id % 2 = 0, '-', ''), cast(id * 982451653 AS STRING), " +
          "repeat(cast(id % 10 AS STRING), 12), '.', lpad(cast(id * 31 % 10000000000 AS STRING), 10, '0')) " +
          "AS DECIMAL(38,10))) AS d38",
        "if(id % 12 = 5, null, date_add(DATE '1900-01-01', cast(id * 37 % 60000 AS INT))) AS dt",
        "if(id % 15 = 7, null, timestamp_micros((-2208988800L + id * 2520000 + if(id % 3 = 0, 0, id * 37)) " +
          "* 1000000 + if(id % 4 = 0, 999999, id * 7919 % 1000000))) AS ts",
        "if(id % 17 = 3, null, cast(timestamp_micros((-2208988800L + id * 1800000) * 1000000 + " +
          "if(id % 2 = 0, 999999, id * 13 % 1000000)) AS TIMESTAMP_NTZ)) AS ntz")
        .writeTo(Table).append()
      // Edge rows: extremes, the boundaries of the types, epoch neighbours.
      spark.sql(
        s"""INSERT INTO $Table VALUES
           |(-1, 2147483647, 9223372036854775807, '', X'', 9999999.99,
           |  9999999999999999999999999999.9999999999, DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00',
           |  TIMESTAMP_NTZ '1970-01-01 00:00:00'),
           |(-2, -2147483648, -9223372036854775808, 'iceberg', X'00010203', -9999999.99,
           |  -9999999999999999999999999999.9999999999, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999',
           |  TIMESTAMP_NTZ '1969-12-31 23:59:59.999999'),
           |(-3, -1, -1, 'abc', X'FF', -0.01, -0.0000000001, DATE '1969-01-01',
           |  TIMESTAMP '1969-12-31 23:00:00.999999', TIMESTAMP_NTZ '1969-12-31 23:00:00.999999'),
           |(-4, 0, 0, '日本語テキスト', X'C3A9', 0.00, 0, DATE '0001-01-01', TIMESTAMP '1969-12-01 00:00:00.999999',
           |  TIMESTAMP_NTZ '1969-01-01 00:00:00.999999'),
           |(-5, null, null, null, null, null, null, null, null, null)""".stripMargin)
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
