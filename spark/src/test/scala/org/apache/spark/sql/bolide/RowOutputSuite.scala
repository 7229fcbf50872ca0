package org.apache.spark.sql.bolide

import java.io.File

import org.junit.{Before, Test}
import org.junit.Assert._

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.util.QueryExecutionListener

/**
 * The rows Spark makes from a native block's output: ColumnarToRow reads the block's batches
 * through DirectArrowColumnVector, which reads the Arrow buffers itself. Every primitive type, with
 * nulls, extreme values, NaN and -0.0, multi-byte and empty strings, decimals on both sides of 18
 * digits, must come out as Spark's own reader gives it; and the columns must really be the direct
 * vectors (a test that passed over Spark's ArrowColumnVector would not test them).
 */
class RowOutputSuite extends BolideSuiteBase {
  @Before def setUp(): Unit = RowOutputSuite.ensure(spark)

  @Test def everyPrimitiveTypeWithNulls(): Unit = {
    checkNative("SELECT * FROM row_types", Seq("BolideScan"))
    checkNative("SELECT * FROM row_types WHERE id % 3 <> 1", Seq("BolideFilter"))
    // A block whose batches have no null row in some columns (the no-null path).
    checkNative("SELECT * FROM row_types WHERE id % 7 = 6", Seq("BolideFilter"))
  }

  @Test def nativeOutputColumnsAreDirect(): Unit = {
    val classes = withConf("spark.sql.adaptive.enabled" -> "false") {
      val df = spark.sql("SELECT * FROM row_types WHERE id % 3 <> 1")
      val top = planNodes(df.queryExecution.executedPlan).collectFirst { case b: BolideNode => b }
        .getOrElse(fail(s"no native operator in:\n${df.queryExecution.executedPlan}"))
        .asInstanceOf[org.apache.spark.sql.execution.SparkPlan]
      top.executeColumnar().mapPartitions { it =>
        var seen = Seq.empty[String]
        while (it.hasNext) {
          val b = it.next()
          seen = (0 until b.numCols()).map(i => b.column(i).getClass.getSimpleName)
        }
        Iterator(seen)
      }.collect().filter(_.nonEmpty)
    }
    assertTrue("no batch came out", classes.nonEmpty)
    val expected = Seq("DirectLongVector", "DirectBooleanVector", "DirectByteVector",
      "DirectShortVector", "DirectIntVector", "DirectLongVector", "DirectFloatVector",
      "DirectDoubleVector", "DirectDecimalVector", "DirectDecimalVector", "DirectDecimalVector",
      "DirectIntVector", "DirectLongVector", "DirectLongVector", "DirectStringVector",
      "DirectBinaryVector", "DirectStringVector")
    classes.foreach(c => assertEquals(expected, c))
  }

  @Test def rowsOfAWriteMatchSpark(): Unit = {
    // A row consumer other than collect: Spark's Parquet writer reads every value of the rows.
    // The write command's own executed plan is captured, to see which operators fed the writer.
    def written(on: Boolean): (Seq[String], Seq[String]) =
        withConf("spark.bolide.enabled" -> on.toString) {
      val out = new File(BolideTestSession.dataDir, s"row_output_write_$on").getAbsolutePath
      val plans = new java.util.concurrent.ConcurrentLinkedQueue[SparkPlan]()
      val listener = new QueryExecutionListener {
        override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
          plans.add(qe.executedPlan)
        override def onFailure(funcName: String, qe: QueryExecution, e: Exception): Unit = ()
      }
      spark.listenerManager.register(listener)
      try {
        spark.sql("SELECT * FROM row_types WHERE id % 5 <> 2").write.mode("overwrite").parquet(out)
        spark.sparkContext.listenerBus.waitUntilEmpty()
      } finally spark.listenerManager.unregister(listener)
      val native =
        plans.asScala.toSeq.flatMap(planNodes).collect { case b: BolideNode => b.nodeName }
      val rows = withConf("spark.bolide.enabled" -> "false") {
        canonical(spark.read.parquet(out).collect().toSeq).sorted
      }
      (rows, native)
    }
    val (expected, nativeOff) = written(on = false)
    assertTrue(s"with Bolide off no native operator may run: $nativeOff", nativeOff.isEmpty)
    val (actual, nativeOn) = written(on = true)
    assertTrue(s"the write's input did not run natively: $nativeOn",
      nativeOn.contains("BolideFilter"))
    assertEquals(expected, actual)
  }
}

object RowOutputSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    val dir = new File(BolideTestSession.dataDir, "row_types").getAbsolutePath
    // Written with Bolide off, as plain Parquet by Spark; nulls fall on a different row of 7 in
    // each column, so each batch has nulls in every nullable column but the rows id % 7 = 6.
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.range(0, 20000, 1, 3).selectExpr(
        "id",
        "IF(id % 7 = 0, NULL, id % 2 = 0) AS b",
        "IF(id % 7 = 1, NULL, CAST(hash(id) % 128 AS TINYINT)) AS y",
        "IF(id % 7 = 2, NULL, CAST(hash(id) % 32768 AS SMALLINT)) AS sh",
        "IF(id % 7 = 3, NULL, CASE id % 13 WHEN 0 THEN 2147483647 WHEN 1 THEN -2147483648 " +
          "ELSE hash(id) END) AS i",
        "IF(id % 7 = 4, NULL, CASE id % 13 WHEN 0 THEN 9223372036854775807L " +
          "WHEN 1 THEN -9223372036854775808L ELSE xxhash64(id) END) AS l",
        "IF(id % 7 = 5, NULL, CASE id % 11 WHEN 0 THEN CAST('NaN' AS FLOAT) " +
          "WHEN 1 THEN CAST('-0.0' AS FLOAT) WHEN 2 THEN CAST('-Infinity' AS FLOAT) " +
          "ELSE CAST(hash(id) / 7 AS FLOAT) END) AS f",
        "IF(id % 7 = 0, NULL, CASE id % 11 WHEN 0 THEN CAST('NaN' AS DOUBLE) " +
          "WHEN 1 THEN CAST('-0.0' AS DOUBLE) WHEN 2 THEN CAST('Infinity' AS DOUBLE) " +
          "WHEN 3 THEN 4.9E-324D ELSE CAST(xxhash64(id) AS DOUBLE) / 3 END) AS d",
        "IF(id % 7 = 1, NULL, CASE id % 13 WHEN 0 THEN 9999999.99 WHEN 1 THEN -9999999.99 " +
          "ELSE CAST(hash(id) % 1000000000 / 100 AS DECIMAL(9, 2)) END) AS dec9",
        "IF(id % 7 = 2, NULL, CASE id % 13 WHEN 0 THEN 99999999999999.9999BD " +
          "WHEN 1 THEN -99999999999999.9999BD " +
          "ELSE CAST(CAST(xxhash64(id) % 1000000000000000000 AS DECIMAL(18, 0)) / 10000 " +
          "AS DECIMAL(18, 4)) END) AS dec18",
        "IF(id % 7 = 3, NULL, CAST(concat(CAST(xxhash64(id) AS STRING), " +
          "lpad(CAST(pmod(hash(id), 100000) AS STRING), 5, '0'), '.', " +
          "lpad(CAST(pmod(hash(id + 1), 2147483647) AS STRING), 10, '0')) AS DECIMAL(38, 10))) AS dec38",
        "IF(id % 7 = 4, NULL, date_add(DATE'1970-01-01', CAST(hash(id) % 200000 AS INT))) AS dt",
        "IF(id % 7 = 5, NULL, timestamp_micros(xxhash64(id) % 4000000000000000)) AS ts",
        "IF(id % 7 = 0, NULL, CAST(timestamp_micros(xxhash64(id + 7) % 4000000000000000) " +
          "AS TIMESTAMP_NTZ)) AS ntz",
        "IF(id % 7 = 1, NULL, CASE id % 5 WHEN 0 THEN '' WHEN 1 THEN concat('é日本🙂', id) " +
          "ELSE concat('row-', id) END) AS s",
        "IF(id % 7 = 2, NULL, IF(id % 9 = 0, X'', unhex(hex(xxhash64(id))))) AS bin",
        "CAST(NULL AS STRING) AS nothing")
        .write.mode("overwrite").parquet(dir)
    } finally spark.conf.set("spark.bolide.enabled", "true")
    spark.read.parquet(dir).createOrReplaceTempView("row_types")
  }
}
