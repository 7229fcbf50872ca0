package org.apache.spark.sql.bolide

import java.io.File

import scala.jdk.CollectionConverters._

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.iceberg.{FileFormat, Table}
import org.apache.iceberg.data.{GenericFileWriterFactory, GenericRecord, Record}
import org.apache.iceberg.deletes.PositionDelete
import org.apache.iceberg.encryption.EncryptedFiles
import org.apache.iceberg.expressions.Literal
import org.apache.iceberg.spark.Spark3Util
import org.apache.iceberg.types.Types

/**
 * The native Iceberg reader (BolideIcebergScan). Every table is created and changed through Spark
 * SQL with Bolide off (Iceberg's Java API only for what SQL cannot write: equality deletes,
 * initial defaults); every query runs with Bolide off (Iceberg's Java reader) and on, the answers
 * must be equal and the native scan must have run, or stayed in Spark with the expected reason.
 */
class IcebergScanSuite extends BolideSuiteBase {
  private val Scan = "BolideIcebergScan"
  private def t(name: String) = IcebergScanSuite.table(name)

  @Before def setUp(): Unit = IcebergScanSuite.ensure(spark)

  private def scanReasons(sql: String): Seq[String] = withConf() {
    val (_, fallback) = operatorReport(spark.sql(sql))
    fallback.collect { case (name, reason) if name.startsWith("BatchScan") => reason }
  }

  private def checkScan(sql: String, more: Seq[String] = Nil): Unit = checkNative(sql, Scan +: more)

  @Test def formatVersions(): Unit = {
    for (v <- Seq("v1", "v2", "v3")) {
      checkScan(s"SELECT * FROM ${t(v)}")
      checkScan(s"SELECT kind, count(*), sum(id), min(ts), max(d), sum(amount) FROM ${t(v)} GROUP BY kind",
        Seq("BolideHashAggregate"))
      checkScan(s"SELECT id, kind FROM ${t(v)} WHERE id % 7 = 3 AND kind IS NOT NULL", Seq("BolideFilter"))
      // Iceberg answers a bare count(*) from its metadata (aggregate push-down): no scan at all.
      checkNative(s"SELECT count(*) FROM ${t(v)}", Nil)
    }
  }

  @Test def partitionPruningAndIdentityConstants(): Unit = {
    // p is an identity partition: Iceberg Java reads it from metadata, and so does Bolide.
    checkScan(s"SELECT p, count(*), sum(id) FROM ${t("v2")} GROUP BY p")
    checkScan(s"SELECT id, p FROM ${t("v2")} WHERE p = 3")
    checkScan(s"SELECT id, ts FROM ${t("v2")} WHERE ts < TIMESTAMP '2026-01-01 02:00:00'")
  }

  @Test def positionalDeletes(): Unit = {
    checkScan(s"SELECT * FROM ${t("pos")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("pos")} GROUP BY kind", Seq("BolideHashAggregate"))
    assertTrue("the table must have positional delete files",
      spark.sql(s"SELECT count(*) FROM ${t("pos")}.delete_files WHERE content = 1").head().getLong(0) > 0)
  }

  @Test def updatesAndMergeOnRead(): Unit = {
    checkScan(s"SELECT * FROM ${t("upd")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("upd")} GROUP BY kind")
  }

  @Test def deletionVectors(): Unit = {
    checkScan(s"SELECT * FROM ${t("dv")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("dv")} GROUP BY kind")
    assertTrue("the table must have deletion vectors", spark.sql(
      s"SELECT count(*) FROM ${t("dv")}.delete_files WHERE file_format = 'PUFFIN'").head().getLong(0) > 0)
  }

  @Test def equalityDeletes(): Unit = {
    checkScan(s"SELECT * FROM ${t("eq")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("eq")} GROUP BY kind")
    // Only the equality columns, not the projected ones: Bolide must read them to apply the deletes.
    checkScan(s"SELECT amount FROM ${t("eq")}")
    checkScan(s"SELECT count(*) FROM ${t("eq")}")
  }

  @Test def equalityAndPositionalDeletesMixed(): Unit = {
    checkScan(s"SELECT * FROM ${t("mixed")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("mixed")} GROUP BY kind")
  }

  @Test def schemaEvolution(): Unit = {
    // add, drop, rename, reorder, int->long, float->double, decimal widening, files before and after.
    checkScan(s"SELECT * FROM ${t("evolve")}")
    checkScan(s"SELECT ident, total, added, ratio, price FROM ${t("evolve")} WHERE ident % 3 = 0")
    checkScan(s"SELECT added, count(*) FROM ${t("evolve")} GROUP BY added")
  }

  @Test def initialDefaults(): Unit = {
    checkScan(s"SELECT * FROM ${t("defaults")}")
    checkScan(s"SELECT with_default, count(*) FROM ${t("defaults")} GROUP BY with_default")
  }

  @Test def nameMappingForFilesWithoutFieldIds(): Unit = {
    checkScan(s"SELECT * FROM ${t("imported")}")
    checkScan(s"SELECT k, sum(v) FROM ${t("imported")} GROUP BY k")
  }

  @Test def metadataColumns(): Unit = {
    checkScan(s"SELECT _file, _pos, id FROM ${t("pos")}")
    checkScan(s"SELECT _spec_id, count(*), sum(_pos) FROM ${t("pos")} GROUP BY _spec_id")
    checkScan(s"SELECT _pos, id FROM ${t("dv")} WHERE _pos % 5 = 0")
    // _partition is a struct: the scan stays in Iceberg Java, with the reason.
    val reasons = scanReasons(s"SELECT _partition, id FROM ${t("v2")}")
    assertTrue(reasons.mkString("; "), reasons.exists(_.contains("_partition")))
    checkNative(s"SELECT _partition, id FROM ${t("v2")}", Nil)
  }

  @Test def timeTravelBranchesAndTags(): Unit = {
    val snaps = spark.sql(s"SELECT snapshot_id, committed_at FROM ${t("travel")}.snapshots ORDER BY committed_at")
      .collect()
    assertTrue(snaps.length >= 2)
    val first = snaps.head.getLong(0)
    checkScan(s"SELECT * FROM ${t("travel")} VERSION AS OF $first")
    val at = snaps.head.getTimestamp(1)
    checkScan(s"SELECT * FROM ${t("travel")} TIMESTAMP AS OF '${at.toInstant}'")
    checkScan(s"SELECT * FROM ${t("travel")} VERSION AS OF 'tag1'")
    checkScan(s"SELECT * FROM ${t("travel")}.branch_b1")
    checkScan(s"SELECT count(*), sum(id) FROM ${t("travel")}")
  }

  @Test def binaryAndDecimal38Partitions(): Unit = {
    checkScan(s"SELECT * FROM ${t("wide_parts")}")
    checkScan(s"SELECT bin, dec, count(*) FROM ${t("wide_parts")} GROUP BY bin, dec")
  }

  @Test def filesTheNativeReaderCannotDecodeAreReadByIcebergJava(): Unit = {
    // LZ4_RAW pages (which the native Parquet decoder does not take) in some files, zstd in others:
    // the scan stays native and hands those files' tasks, deletes included, to Iceberg's reader.
    checkScan(s"SELECT * FROM ${t("lz4")}")
    checkScan(s"SELECT kind, count(*), sum(id) FROM ${t("lz4")} GROUP BY kind")
    assertEquals(2L, spark.sql(s"SELECT count(DISTINCT file_path) > 1, count(*) FROM ${t("lz4")}.files")
      .head().getLong(1).min(2L))
  }

  @Test def copyOnWrite(): Unit = {
    checkScan(s"SELECT * FROM ${t("cow")}")
  }

  @Test def fallbacks(): Unit = {
    withConf("spark.bolide.scan.iceberg.enabled" -> "false") {
      val reasons = scanReasons(s"SELECT * FROM ${t("v2")}")
      assertTrue(reasons.mkString("; "), reasons.exists(_.contains("spark.bolide.scan.iceberg.enabled")))
      checkNative(s"SELECT kind, count(*) FROM ${t("v2")} GROUP BY kind", Seq("BolideHashAggregate"))
    }
    val orc = scanReasons(s"SELECT * FROM ${t("orc")}")
    assertTrue(orc.mkString("; "), orc.exists(_.contains("ORC")))
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${t("orc")} GROUP BY kind", Seq("BolideHashAggregate"))
    // A metadata table's tasks are not data file scans.
    checkNative(s"SELECT count(*) FROM ${t("v2")}.files", Nil)
    // Nested columns are read natively (IcebergNestedSuite has their cases); the operators above
    // stay native where they can.
    checkScan(s"SELECT id, st FROM ${t("nested")}")
    checkScan(s"SELECT id, st.a, size(arr) FROM ${t("nested")} WHERE id % 3 = 0")
    checkScan(s"SELECT id, count(*) FROM ${t("nested")} GROUP BY id")
  }

  /** Creates table `name` of two data files and returns the location of one of them. */
  private def twoFileTable(name: String): String = {
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"DROP TABLE IF EXISTS ${t(name)}")
      spark.sql(s"CREATE TABLE ${t(name)} (id BIGINT, kind STRING) USING iceberg")
      spark.range(0, 1000, 1, 2).selectExpr("id", "cast(id % 3 as string) AS kind").writeTo(t(name)).append()
    } finally spark.conf.unset("spark.bolide.enabled")
    spark.sql(s"SELECT file_path FROM ${t(name)}.files LIMIT 1").head().getString(0)
  }

  private def localFile(location: String): File =
    new File(new java.net.URI(if (location.startsWith("/")) "file:" + location else location))

  private def assertFailsNaming(sql: String, file: String): Unit = {
    val e = try { spark.sql(sql).collect(); null } catch { case e: Exception => e }
    assertNotNull(s"$sql must fail", e)
    val m = messages(e)
    assertTrue(m, m.contains(localFile(file).getName))
    // The session still answers, natively.
    checkScan(s"SELECT sum(id) FROM ${t("v1")}")
  }

  @Test def missingDataFileNamesTheFile(): Unit = {
    val file = twoFileTable("broken")
    assertTrue(localFile(file).delete())
    assertFailsNaming(s"SELECT * FROM ${t("broken")}", file)
  }

  @Test def filtersOverDeletes(): Unit = {
    // The filter reads the scan lazily: the deletes first, then its predicate's columns (kind and
    // p by their dictionaries), then the other columns for the rows that survive.
    for (tbl <- Seq("pos", "dv", "eq", "mixed", "upd")) {
      checkScan(s"SELECT * FROM ${t(tbl)} WHERE kind = 'k2' AND id > 1000", Seq("BolideFilter"))
      checkScan(s"SELECT id, amount, ts FROM ${t(tbl)} WHERE kind IN ('k1', 'k3', 'updated') AND amount > 100 " +
        "AND id % 3 = 0", Seq("BolideFilter"))
      checkScan(s"SELECT id, kind, d FROM ${t(tbl)} WHERE kind IS NULL OR id < 10", Seq("BolideFilter"))
      checkScan(s"SELECT id, p FROM ${t(tbl)} WHERE id + p > 5900 AND d > DATE '2025-12-10'", Seq("BolideFilter"))
      checkScan(s"SELECT kind, count(*), sum(amount) FROM ${t(tbl)} WHERE ts < TIMESTAMP '2026-01-01 05:00:00' " +
        "AND coalesce(kind, 'none') <> 'k4' GROUP BY kind", Seq("BolideFilter", "BolideHashAggregate"))
      checkScan(s"SELECT * FROM ${t(tbl)} WHERE id < 0", Seq("BolideFilter"))
    }
  }

  @Test def failingPredicateNeverSeesDeletedRows(): Unit = {
    // Iceberg applies a task's deletes before Spark's filter: an ANSI overflow the predicate would
    // raise on a deleted row must not fail the query.
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"DROP TABLE IF EXISTS ${t("ansi")}")
      spark.sql(s"""CREATE TABLE ${t("ansi")} (id BIGINT, kind STRING) USING iceberg
                   |TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')""".stripMargin)
      spark.range(0, 3000, 1, 1).selectExpr("if(id % 100 = 7, 9223372036854775807, id) AS id",
        "concat('k', cast(id % 4 as string)) AS kind").writeTo(t("ansi")).append()
      spark.sql(s"DELETE FROM ${t("ansi")} WHERE id = 9223372036854775807")
    } finally spark.conf.unset("spark.bolide.enabled")
    withConf("spark.sql.ansi.enabled" -> "true") {
      checkScan(s"SELECT id, kind FROM ${t("ansi")} WHERE kind = 'k3' AND id + 1 > 100", Seq("BolideFilter"))
      checkScan(s"SELECT count(*) FROM ${t("ansi")} WHERE id * 2 > 10", Seq("BolideFilter"))
    }
  }

  @Test def deleteFileBeyondItsDataFileIsAnError(): Unit = {
    // A positional delete naming a row the data file does not have: the delete file belongs to
    // another version of the file. Bolide refuses to guess and names the data file.
    val file = twoFileTable("baddelete")
    val tbl = IcebergScanSuite.load(spark, "baddelete")
    val factory = new GenericFileWriterFactory.Builder(tbl).deleteFileFormat(FileFormat.PARQUET).build()
    val out = tbl.io().newOutputFile(tbl.locationProvider().newDataLocation(s"bad-pos-${System.nanoTime()}.parquet"))
    val w = factory.newPositionDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(out), tbl.spec(), null)
    try w.write(PositionDelete.create[Record]().set(file, 1000000L)) finally w.close()
    tbl.newRowDelta().addDeletes(w.toDeleteFile).commit()
    assertFailsNaming(s"SELECT * FROM ${t("baddelete")}", file)
  }

  @Test def truncatedDataFileNamesTheFile(): Unit = {
    val file = twoFileTable("truncated")
    val f = localFile(file)
    val raf = new java.io.RandomAccessFile(f, "rw")
    try raf.setLength(f.length() / 2) finally raf.close()
    assertFailsNaming(s"SELECT * FROM ${t("truncated")}", file)
  }
}

object IcebergScanSuite {
  private val Namespace = s"${SparkChildrenSuite.Catalog}.ice_scan"
  def table(name: String): String = s"$Namespace.$name"
  private var done = false
  private var failure: Throwable = null

  def load(spark: org.apache.spark.sql.SparkSession, name: String): Table =
    Spark3Util.loadIcebergTable(spark, table(name))

  /** Writes an equality delete file of `rows` (values of the equality columns) and commits it. */
  private def equalityDelete(tbl: Table, columns: Seq[String], rows: Seq[Seq[Any]]): Unit = {
    tbl.refresh()
    val schema = tbl.schema()
    val eqSchema = schema.select(columns.asJava)
    val ids = columns.map(c => schema.findField(c).fieldId()).toArray
    val factory = new GenericFileWriterFactory.Builder(tbl).deleteFileFormat(FileFormat.PARQUET)
      .equalityFieldIds(ids).equalityDeleteRowSchema(eqSchema).build()
    val out = tbl.io().newOutputFile(tbl.locationProvider().newDataLocation(
      s"eq-delete-${System.nanoTime()}.parquet"))
    val writer = factory.newEqualityDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(out), tbl.spec(), null)
    try rows.foreach { r =>
      val rec = GenericRecord.create(eqSchema)
      columns.zip(r).foreach { case (c, v) => rec.setField(c, v) }
      writer.write(rec)
    } finally writer.close()
    tbl.newRowDelta().addDeletes(writer.toDeleteFile).commit()
  }

  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (done) return
    if (failure != null) throw new IllegalStateException("setting up the tables failed", failure)
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $Namespace")
      def sql(s: String): Unit = spark.sql(s)
      def create(name: String, props: String, partitioning: String = "PARTITIONED BY (p, bucket(4, id), days(ts))",
          format: String = "parquet"): Unit = {
        sql(s"DROP TABLE IF EXISTS ${table(name)}")
        sql(s"""CREATE TABLE ${table(name)} (id BIGINT, kind STRING, ts TIMESTAMP, d DATE,
               |amount DECIMAL(12, 2), p INT) USING iceberg $partitioning
               |TBLPROPERTIES ($props, 'write.format.default'='$format')""".stripMargin)
        spark.range(0, 6000, 1, 3).selectExpr("id",
          "if(id % 13 = 0, null, concat('k', cast(id % 5 as string))) AS kind",
          "timestamp_seconds(1767225600 + id * 7) AS ts",
          "date_add(DATE '2025-12-01', cast(id % 40 as int)) AS d",
          "if(id % 17 = 0, null, cast(id * 1.25 as decimal(12, 2))) AS amount",
          "cast(id % 6 as int) AS p")
          .writeTo(table(name)).append()
      }
      val mor = "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', " +
        "'write.merge.mode'='merge-on-read'"
      create("v1", "'format-version'='1'")
      create("v2", "'format-version'='2'")
      create("v3", "'format-version'='3'")
      create("pos", s"'format-version'='2', $mor")
      sql(s"DELETE FROM ${table("pos")} WHERE id % 10 = 3 OR kind IS NULL")
      create("upd", s"'format-version'='2', $mor")
      sql(s"UPDATE ${table("upd")} SET kind = 'updated' WHERE id % 9 = 4")
      sql(s"""MERGE INTO ${table("upd")} t USING (SELECT id, 'merged' AS kind FROM range(5990, 6010)) s
             |ON t.id = s.id WHEN MATCHED THEN UPDATE SET kind = s.kind
             |WHEN NOT MATCHED THEN INSERT (id, kind, ts, d, amount, p)
             |VALUES (s.id, s.kind, TIMESTAMP '2026-02-01 00:00:00', DATE '2026-02-01', 1.00, 1)""".stripMargin)
      create("dv", s"'format-version'='3', $mor")
      sql(s"DELETE FROM ${table("dv")} WHERE id % 10 = 3")
      sql(s"UPDATE ${table("dv")} SET kind = 'updated' WHERE id % 11 = 4")
      create("cow", "'format-version'='2', 'write.delete.mode'='copy-on-write'")
      sql(s"DELETE FROM ${table("cow")} WHERE id % 10 = 3")

      create("eq", "'format-version'='2'", partitioning = "")
      equalityDelete(load(spark, "eq"), Seq("id"), (0L until 6000L by 7L).map(i => Seq(i)))
      equalityDelete(load(spark, "eq"), Seq("kind", "p"), Seq(Seq("k1", 1), Seq(null, 0), Seq("k3", 99)))
      create("mixed", s"'format-version'='2', $mor", partitioning = "")
      sql(s"DELETE FROM ${table("mixed")} WHERE id % 10 = 3")
      equalityDelete(load(spark, "mixed"), Seq("id"), (1L until 6000L by 4L).map(i => Seq(i)))

      // Schema evolution by field id.
      sql(s"DROP TABLE IF EXISTS ${table("evolve")}")
      sql(s"""CREATE TABLE ${table("evolve")} (id INT, gone STRING, ratio FLOAT, price DECIMAL(9, 2),
             |name STRING) USING iceberg TBLPROPERTIES ('format-version'='2')""".stripMargin)
      spark.range(0, 2000, 1, 2).selectExpr("cast(id as int) AS id", "concat('g', cast(id as string)) AS gone",
        "cast(id / 3.0 as float) AS ratio", "cast(id * 0.5 as decimal(9, 2)) AS price",
        "concat('n', cast(id % 9 as string)) AS name")
        .writeTo(table("evolve")).append()
      sql(s"ALTER TABLE ${table("evolve")} RENAME COLUMN id TO ident")
      sql(s"ALTER TABLE ${table("evolve")} ALTER COLUMN ident TYPE BIGINT")
      sql(s"ALTER TABLE ${table("evolve")} ALTER COLUMN ratio TYPE DOUBLE")
      sql(s"ALTER TABLE ${table("evolve")} ALTER COLUMN price TYPE DECIMAL(14, 2)")
      sql(s"ALTER TABLE ${table("evolve")} DROP COLUMN gone")
      sql(s"ALTER TABLE ${table("evolve")} ADD COLUMN added STRING")
      sql(s"ALTER TABLE ${table("evolve")} ADD COLUMN gone INT")
      sql(s"ALTER TABLE ${table("evolve")} ALTER COLUMN name FIRST")
      sql(s"ALTER TABLE ${table("evolve")} ADD COLUMN total BIGINT AFTER ident")
      spark.range(2000, 3000, 1, 2).selectExpr("concat('n', cast(id % 9 as string)) AS name",
        "id AS ident", "id * 10 AS total", "cast(id / 7.0 as double) AS ratio",
        "cast(id * 0.25 as decimal(14, 2)) AS price", "if(id % 2 = 0, 'a', null) AS added",
        "cast(id % 4 as int) AS gone")
        .writeTo(table("evolve")).append()

      // v3 initial defaults (Iceberg's API: Spark SQL cannot set one).
      sql(s"DROP TABLE IF EXISTS ${table("defaults")}")
      sql(s"CREATE TABLE ${table("defaults")} (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ('format-version'='3')")
      spark.range(0, 500, 1, 2).selectExpr("id", "cast(id as string) AS s").writeTo(table("defaults")).append()
      load(spark, "defaults").updateSchema()
        .addColumn("with_default", Types.IntegerType.get(), "doc", Literal.of(42))
        .addColumn("str_default", Types.StringType.get(), "doc", Literal.of("dflt"))
        .commit()
      sql(s"INSERT INTO ${table("defaults")} VALUES (1000, 'new', 7, 'x'), (1001, 'new2', NULL, NULL)")

      // Plain Parquet files without field ids, imported with add_files (which sets a name mapping).
      val src = new File(BolideTestSession.dataDir, "ice_import_src").getAbsolutePath
      spark.range(0, 1500, 1, 3).selectExpr("id % 11 AS k", "id AS v", "concat('s', cast(id as string)) AS s")
        .write.mode("overwrite").parquet(src)
      sql(s"DROP TABLE IF EXISTS ${table("imported")}")
      sql(s"CREATE TABLE ${table("imported")} (k BIGINT, v BIGINT, s STRING) USING iceberg " +
        "TBLPROPERTIES ('format-version'='2')")
      sql(s"CALL ${SparkChildrenSuite.Catalog}.system.add_files(table => '${table("imported").split('.').drop(1).mkString(".")}', " +
        s"source_table => '`parquet`.`$src`')")

      // Time travel, a tag and a branch.
      create("travel", "'format-version'='2'", partitioning = "")
      sql(s"ALTER TABLE ${table("travel")} CREATE TAG tag1")
      sql(s"ALTER TABLE ${table("travel")} CREATE BRANCH b1")
      Thread.sleep(20)
      sql(s"INSERT INTO ${table("travel")} SELECT id + 100000, 'later', ts, d, amount, p FROM ${table("v2")} WHERE id < 100")
      sql(s"INSERT INTO ${table("travel")}.branch_b1 SELECT id + 200000, 'branch', ts, d, amount, p FROM ${table("v2")} WHERE id < 50")

      // BINARY and DECIMAL(38) identity partitions.
      sql(s"DROP TABLE IF EXISTS ${table("wide_parts")}")
      sql(s"""CREATE TABLE ${table("wide_parts")} (id BIGINT, bin BINARY, dec DECIMAL(38, 10))
             |USING iceberg PARTITIONED BY (bin, dec) TBLPROPERTIES ('format-version'='2')""".stripMargin)
      spark.range(0, 600, 1, 2).selectExpr("id",
        "if(id % 7 = 0, null, cast(concat('b', cast(id % 3 as string)) as binary)) AS bin",
        "cast(concat(cast(id % 4 as string), '234567890123456789012345678.0123456789') as decimal(38, 10)) AS dec")
        .writeTo(table("wide_parts")).append()

      create("orc", "'format-version'='2'", format = "orc")
      create("lz4", s"'format-version'='2', $mor, 'write.parquet.compression-codec'='lz4_raw'", partitioning = "")
      sql(s"ALTER TABLE ${table("lz4")} SET TBLPROPERTIES ('write.parquet.compression-codec'='zstd')")
      sql(s"INSERT INTO ${table("lz4")} SELECT * FROM ${table("v2")} WHERE id < 500")
      sql(s"DELETE FROM ${table("lz4")} WHERE id % 10 = 3")
      sql(s"DROP TABLE IF EXISTS ${table("nested")}")
      sql(s"CREATE TABLE ${table("nested")} (id BIGINT, st STRUCT<a: INT, b: STRING>, arr ARRAY<INT>) " +
        "USING iceberg TBLPROPERTIES ('format-version'='2')")
      spark.range(0, 300, 1, 2).selectExpr("id", "named_struct('a', cast(id as int), 'b', cast(id as string)) AS st",
        "array(cast(id as int), 1) AS arr").writeTo(table("nested")).append()
      done = true
    } catch {
      case t: Throwable => failure = t; throw t
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
