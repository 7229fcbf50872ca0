package org.apache.spark.sql.bolide

import java.io.{File, RandomAccessFile}
import java.nio.file.Files

import org.junit.Test
import org.junit.Assert._

import org.apache.spark.sql.DataFrame

/**
 * Files that Spark reads or tolerates must give the same result with Bolide on: corrupt and
 * missing files under ignoreCorruptFiles / ignoreMissingFiles, integer columns read as wider
 * decimals, a damaged leading magic. Where Spark fails, Bolide fails with Spark's error class,
 * the file named once. Every case runs with Bolide off and on, and asserts that BolideScan ran.
 */
class FileHandlingSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"

  /** A fresh directory of 3 Parquet files (ids 0..2999) written by Spark. */
  private def parquetDir(name: String): File = {
    val d = Files.createTempDirectory(BolideTestSession.dataDir.toPath, name).toFile
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, 3000, 1, 3).selectExpr("id", "cast(id % 7 as int) AS k", "concat('v', id) AS s")
        .write.mode("overwrite").parquet(d.getAbsolutePath)
    }
    d
  }

  private def dataFiles(d: File): Seq[File] =
    d.listFiles().filter(f => f.getName.endsWith(".parquet")).sortBy(_.getName).toSeq

  /** Hadoop's local checksums would reject a file we change on purpose: drop them. */
  private def dropChecksums(d: File): Unit = d.listFiles().filter(_.getName.endsWith(".crc")).foreach(_.delete())

  /** A view over d with the schema given, so that no schema inference reads a damaged footer. */
  private def view(d: File, name: String, options: (String, String)*): String = {
    spark.read.options(options.toMap).schema("id bigint, k int, s string").parquet(d.getAbsolutePath)
      .createOrReplaceTempView(name)
    name
  }

  private def corrupt(f: File): Unit = {
    // Keep the size, destroy the footer (Spark's reader cannot read it either).
    val raf = new RandomAccessFile(f, "rw")
    try {
      raf.seek(raf.length() - 12)
      raf.write(Array.fill[Byte](12)(0x11))
    } finally raf.close()
  }

  private def failure(body: => Any): Throwable = {
    try { body } catch { case t: Throwable => return t }
    fail("expected the query to fail")
    null
  }

  /** Both engines fail, with the same error class; Bolide's message names the file once. */
  private def checkSameFailure(run: () => DataFrame): Unit = {
    val off = withConf("spark.bolide.enabled" -> "false") { failure(run().collect()) }
    val df = run()
    val on = failure(df.collect())
    assertEquals(messages(on), errorClassOf(off), errorClassOf(on))
    assertTrue(s"expected a FAILED_READ_FILE class, got ${errorClassOf(on)}",
      errorClassOf(on).exists(_.startsWith("FAILED_READ_FILE")))
    assertTrue(nativeOperators(df).contains(Scan))
    // Spark's message names the file; the engine's cause does not repeat it.
    val sparkMessage = firstWithClass(on).getMessage
    assertEquals(s"one file named once in: $sparkMessage", 1, "part-\\d+".r.findAllIn(sparkMessage).size)
    val native = causes(on).collect { case b: BolideNativeException => b }
    assertTrue(s"the engine's cause is kept: ${messages(on)}", native.nonEmpty)
    assertFalse(s"the cause repeats the path: ${native.head.getMessage}", native.head.getMessage.contains("part-"))
  }

  private def firstWithClass(t: Throwable): Throwable =
    causes(t).find {
      case s: org.apache.spark.SparkThrowable => s.getCondition != null && s.getCondition.startsWith("FAILED_READ_FILE")
      case _ => false
    }.get

  private def causes(t: Throwable): Seq[Throwable] = Iterator.iterate(t)(_.getCause).takeWhile(_ != null).toSeq

  @Test def ignoreCorruptFilesSkipsTheCorruptFile(): Unit = {
    val d = parquetDir("corrupt")
    corrupt(dataFiles(d).head)
    dropChecksums(d)
    val t = view(d, "corrupt_t")
    withConf("spark.sql.files.ignoreCorruptFiles" -> "true") {
      checkNative(s"SELECT count(*), sum(id), max(s) FROM $t", Seq(Scan))
      checkNative(s"SELECT k, count(*) FROM $t GROUP BY k", Seq(Scan))
    }
    // The data source option does the same.
    val q = () => spark.table(view(d, "corrupt_opt", "ignoreCorruptFiles" -> "true"))
      .selectExpr("count(*)", "sum(id)")
    val expected = withConf("spark.bolide.enabled" -> "false") { q().collect().toSeq }
    val df = q()
    assertEquals(expected, df.collect().toSeq)
    assertTrue(nativeOperators(df).contains(Scan))
    // Without it, both fail with FAILED_READ_FILE.
    checkSameFailure(() => spark.sql(s"SELECT count(*), sum(id) FROM $t"))
  }

  @Test def ignoreMissingFilesSkipsAFileDeletedAfterPlanning(): Unit = {
    // Each engine gets its own directory: a file is deleted between planning and execution.
    def run(enabled: Boolean, ignore: Boolean): (Either[Throwable, Seq[String]], DataFrame, File) = {
      val d = parquetDir("missing")
      withConf("spark.bolide.enabled" -> enabled.toString,
        "spark.sql.files.ignoreMissingFiles" -> ignore.toString) {
        val df = spark.read.parquet(d.getAbsolutePath).selectExpr("count(*)", "sum(id)", "min(s)")
        df.queryExecution.executedPlan // plans: lists the files
        val victim = dataFiles(d)(1)
        assertTrue(victim.delete())
        val r = try Right(canonical(df.collect().toSeq)) catch { case t: Throwable => Left(t) }
        (r, df, victim)
      }
    }
    val (off, _, _) = run(enabled = false, ignore = true)
    val (on, df, _) = run(enabled = true, ignore = true)
    assertEquals(off, on)
    assertTrue(off.isRight)
    assertTrue(nativeOperators(df).contains(Scan))
    // Without it, both fail with FAILED_READ_FILE.FILE_NOT_EXIST.
    val (offErr, _, _) = run(enabled = false, ignore = false)
    val (onErr, dfErr, victim) = run(enabled = true, ignore = false)
    assertEquals(Some("FAILED_READ_FILE.FILE_NOT_EXIST"), errorClassOf(offErr.swap.toOption.get))
    assertEquals(messages(onErr.swap.toOption.get), Some("FAILED_READ_FILE.FILE_NOT_EXIST"),
      errorClassOf(onErr.swap.toOption.get))
    assertTrue(nativeOperators(dfErr).contains(Scan))
    assertTrue(messages(onErr.swap.toOption.get).contains(victim.getName))
  }

  @Test def integersReadAsWiderDecimals(): Unit = {
    val d = Files.createTempDirectory(BolideTestSession.dataDir.toPath, "intdec").toFile
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, 2000, 1, 2).selectExpr(
        "cast(id * 37 - 30000 as int) AS i", "id * 1000003 - 999999999 AS l",
        "if(id % 9 = 0, null, cast(id as int)) AS n", "cast(id / 8.0 as decimal(7,2)) AS d")
        .write.mode("overwrite").parquet(d.getAbsolutePath)
    }
    val path = d.getAbsolutePath
    def read(schema: String) = {
      val view = s"intdec_${schema.hashCode.abs}"
      spark.read.schema(schema).parquet(path).createOrReplaceTempView(view)
      view
    }
    Seq(
      "i decimal(20,0), l decimal(20,0), n decimal(12,2), d decimal(7,2)",
      "i decimal(12,2), l decimal(25,3), n decimal(10,0), d decimal(10,5)",
      "i long, l decimal(38,10), n double, d decimal(38,2)").foreach { schema =>
      val v = read(schema)
      checkNative(s"SELECT * FROM $v", Seq(Scan))
      // Statistics pruning compares in the widened domain.
      checkNative(s"SELECT count(*), sum(i) FROM $v WHERE i > 100 AND n < 1500", Seq(Scan))
    }
  }

  @Test def damagedLeadingMagicIsRead(): Unit = {
    val d = parquetDir("magic")
    dataFiles(d).foreach { f =>
      val raf = new RandomAccessFile(f, "rw")
      try raf.write("JUNK".getBytes("US-ASCII")) finally raf.close()
    }
    dropChecksums(d)
    checkNative(s"SELECT count(*), sum(id), max(s) FROM ${view(d, "magic_t")}", Seq(Scan))
  }

  @Test def filesTheNativeReaderCannotDecodeAreReadBySpark(): Unit = {
    // LZ4_RAW (parquet-go misdecodes some pages) and Hadoop's LZ4 (it has no decoder): those files
    // go to Spark's reader from inside the native scan, the others stay native.
    val d = Files.createTempDirectory(BolideTestSession.dataDir.toPath, "codecs").toFile
    withConf("spark.bolide.enabled" -> "false") {
      Seq("snappy", "lz4_raw", "lz4", "zstd").zipWithIndex.foreach { case (codec, k) =>
        withConf("spark.sql.parquet.compression.codec" -> codec) {
          spark.range(k * 10000, (k + 1) * 10000, 1, 1).selectExpr("id", "cast(id % 7 as int) AS k",
            "concat('v', id % 1000) AS s", "id * 0.25 AS d", s"'$codec' AS codec")
            .write.mode("append").partitionBy("codec").parquet(d.getAbsolutePath)
        }
      }
    }
    spark.read.parquet(d.getAbsolutePath).createOrReplaceTempView("codecs_t")
    // Spark's reader is built on the driver only when a task meets such a file, once per scan.
    val before = SparkFileReaders.builds.get()
    checkNative("SELECT codec, count(*), sum(id), max(s), sum(d) FROM codecs_t GROUP BY codec", Seq(Scan))
    assertEquals(1, SparkFileReaders.builds.get() - before)
    checkNative("SELECT * FROM codecs_t WHERE k = 3 AND id % 100 = 1", Seq(Scan))
    assertEquals(2, SparkFileReaders.builds.get() - before)
    checkNative("SELECT codec, count(*), sum(id) FROM codecs_t WHERE codec IN ('snappy', 'zstd') GROUP BY codec", Seq(Scan))
    assertEquals("no file needed Spark's reader, so none was built", 2, SparkFileReaders.builds.get() - before)
  }

  @Test def typeMismatchFailsWithSparksErrorClass(): Unit = {
    val d = parquetDir("mismatch")
    checkSameFailure(() => spark.read.schema("id int, k int, s string").parquet(d.getAbsolutePath)
      .selectExpr("sum(id)"))
  }

  @Test def remainderByZeroHasSparksErrorClass(): Unit = {
    TestData.ensure(spark)
    Seq("i % (g - g)", "l % 0", "dec % 0", "d % 0").foreach { e =>
      val q = s"SELECT $e FROM types WHERE i IS NOT NULL AND l IS NOT NULL AND dec IS NOT NULL AND d IS NOT NULL"
      val off = withConf("spark.bolide.enabled" -> "false") { errorClassOf(failure(spark.sql(q).collect())) }
      val df = spark.sql(q)
      val on = errorClassOf(failure(df.collect()))
      assertEquals(q, Some("REMAINDER_BY_ZERO"), off)
      assertEquals(q, off, on)
      assertTrue(nativeOperators(df).contains("BolideProject"))
    }
  }
}
