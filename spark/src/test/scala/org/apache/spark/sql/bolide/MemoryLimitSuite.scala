package org.apache.spark.sql.bolide

import org.junit.Test
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * A session whose off-heap pool is far too small for a native task: the query must fail with a
 * message naming the setting to raise, the session must keep working, and with Bolide off the same
 * query succeeds. Runs in its own JVM (surefire forks per test class), with its own session.
 */
class MemoryLimitSuite {
  import MemoryLimitSuite.spark

  @Test def nativeTaskOverItsMemoryFailsWithTheSettingToRaise(): Unit = {
    val dir = TempDirs.create("bolide-mem").getPath
    spark.conf.set("spark.bolide.enabled", "false")
    spark.range(0, 200000, 1, 2)
      .selectExpr("id", "repeat(cast(id as string), 16) as s", "id * 1.5 as d")
      .write.mode("overwrite").parquet(dir)
    val expected = spark.read.parquet(dir).selectExpr("sum(d)", "sum(length(s))").collect().toSeq
    spark.conf.set("spark.bolide.enabled", "true")
    // Batches of 100k rows need over 10 MiB (s is ~100 bytes a row), ten times the whole pool. The
    // overrun is released before the task's next safe point; the refusal must still fail it.
    spark.conf.set("spark.bolide.batchSize", "100000")
    val df = spark.read.parquet(dir).selectExpr("sum(d)", "sum(length(s))")
    val e = try { df.collect(); null } catch { case t: Throwable => t }
    assertNotNull("a 1 MiB off-heap pool cannot hold native batches", e)
    val msg = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).map(String.valueOf(_)).mkString("\n")
    assertTrue(msg, msg.contains("spark.memory.offHeap.size"))
    assertTrue(msg, msg.contains("BolideScan") || msg.contains("Bolide"))
    // The session lives: with Bolide off the query runs.
    spark.conf.set("spark.bolide.enabled", "false")
    assertEquals(expected, spark.read.parquet(dir).selectExpr("sum(d)", "sum(length(s))").collect().toSeq)
  }
}

object MemoryLimitSuite {
  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("bolide-memory-limit")
    .config("spark.plugins", BolideConf.PluginClass)
    .config("spark.memory.offHeap.enabled", "true")
    .config("spark.memory.offHeap.size", "1m")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.host", "127.0.0.1")
    .getOrCreate()
}
