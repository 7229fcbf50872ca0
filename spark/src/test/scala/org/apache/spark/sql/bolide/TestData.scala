package org.apache.spark.sql.bolide

import java.io.File

import org.apache.spark.sql.SparkSession

/** Parquet tables the suites query, written once per JVM by Spark itself (Bolide does not write). */
object TestData {
  private var done = false

  def path(name: String): String = new File(BolideTestSession.dataDir, name).getAbsolutePath

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    // Every supported type, with nulls in every column (row ids where id % 7 == k), 4 files.
    spark.range(0, 2000, 1, 4).selectExpr(
      "id",
      "cast(id % 5 as int) as g",
      "if(id % 5 = 2, null, id * 3) as ng",
      "if(id % 5 = 2, null, cast(id / 4.0 as decimal(9,2))) as ndec",
      "if(id % 7 = 0, null, id % 2 = 0) as b",
      "if(id % 7 = 1, null, cast(id % 100 - 50 as byte)) as y",
      "if(id % 7 = 2, null, cast(id * 7 % 30000 as short)) as s",
      "if(id % 7 = 3, null, cast(id * 104729 % 2000000 - 1000000 as int)) as i",
      "if(id % 7 = 4, null, id * 1000003 - 999999999) as l",
      "if(id % 7 = 5, null, cast(id / 3.0 as float)) as f",
      "if(id % 7 = 6, null, id / 7.0 - 100) as d",
      "if(id % 11 = 0, null, cast(id * 1.37 - 1000 as decimal(10,2))) as dec",
      "if(id % 13 = 0, null, cast(id * 12345.6789012345 as decimal(38,10))) as wdec",
      "if(id % 9 = 0, null, concat('str_', cast(id % 37 as string), if(id % 3 = 0, 'é', ''))) as str",
      "if(id % 10 = 0, null, cast(concat('bin', cast(id % 17 as string)) as binary)) as bin",
      "if(id % 12 = 0, null, date_add(date'2020-01-01', cast(id % 1500 as int))) as dt",
      "if(id % 14 = 0, null, timestamp_seconds(1600000000 + id * 3611)) as ts",
      "if(id % 15 = 0, null, cast(timestamp_seconds(1500000000 + id * 7) as timestamp_ntz)) as ntz"
    ).write.mode("overwrite").parquet(path("types"))
    spark.read.parquet(path("types")).createOrReplaceTempView("types")

    // The same with TIMESTAMP_MICROS instead of Spark's default INT96 timestamps.
    withSqlConf(spark, "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS") {
      spark.table("types").write.mode("overwrite").parquet(path("types_micros"))
    }
    spark.read.parquet(path("types_micros")).createOrReplaceTempView("types_micros")

    // Dates from year 1 to about 10100 (written without the legacy calendar rebase), with nulls.
    withSqlConf(spark, "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED") {
      spark.range(0, 3000, 1, 2).selectExpr("id",
        "if(id % 17 = 0, null, date_from_unix_date(cast(id * 2654435761 % 3700000 - 719162 as int))) as d",
        "if(id % 19 = 0, null, date_from_unix_date(cast(id * 40503 % 100000 - 50000 as int))) as d2",
        "if(id % 23 = 0, null, cast(id * 7919 % 200000 - 100000 as int)) as n")
        .write.mode("overwrite").parquet(path("dates"))
    }
    spark.read.parquet(path("dates")).createOrReplaceTempView("dates")

    // Hive-style partitioned table: partition columns of several types.
    spark.range(0, 600, 1, 3).selectExpr("id", "cast(id % 3 as int) as p_int",
      "concat('r', cast(id % 2 as string)) as p_str", "id * 2.5 as v")
      .write.mode("overwrite").partitionBy("p_int", "p_str").parquet(path("parted"))
    spark.read.parquet(path("parted")).createOrReplaceTempView("parted")

    // An empty table, and a table with empty files (partitions with no rows).
    spark.table("types").where("false").write.mode("overwrite").parquet(path("empty"))
    spark.read.parquet(path("empty")).createOrReplaceTempView("empty")
    spark.range(0, 100, 1, 8).where("id < 10").selectExpr("id", "cast(id as decimal(5,1)) as x")
      .write.mode("overwrite").parquet(path("sparse"))
    spark.read.parquet(path("sparse")).createOrReplaceTempView("sparse")

    // Big decimals whose sum overflows decimal(38, 0).
    spark.range(0, 40, 1, 2).selectExpr(
      "cast(id % 2 as int) as k",
      "cast('99999999999999999999999999999999999999' as decimal(38,0)) as big")
      .write.mode("overwrite").parquet(path("bigdec"))
    spark.read.parquet(path("bigdec")).createOrReplaceTempView("bigdec")

    // One file of many small row groups, read as several byte-range splits (maxPartitionBytes).
    withSqlConf(spark, "parquet.block.size" -> "65536") {
      spark.range(0, 300000, 1, 1).selectExpr("id", "cast(id % 7 as int) as k", "id * 0.5 as v")
        .write.mode("overwrite").option("parquet.block.size", "65536").parquet(path("splits"))
    }
    spark.read.parquet(path("splits")).createOrReplaceTempView("splits")

    // Many files for the concurrency test: 16 files -> at least 8 tasks at once on local[8].
    spark.range(0, 400000, 1, 16).selectExpr("id", "cast(id % 13 as int) as k",
      "cast(id % 1000 as decimal(12,2)) as amount", "id % 97 * 1.5 as v")
      .write.mode("overwrite").parquet(path("wide"))
    spark.read.parquet(path("wide")).createOrReplaceTempView("wide")
  }

  def withSqlConf[T](spark: SparkSession, pairs: (String, String)*)(body: => T): T = {
    val old = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally old.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }
}
