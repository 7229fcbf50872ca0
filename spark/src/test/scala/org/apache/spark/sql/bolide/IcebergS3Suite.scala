package org.apache.spark.sql.bolide

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.junit.{Before, Test}
import org.junit.Assert._

/**
 * The native Iceberg reader on S3: a real S3-compatible server (versitygw over a local directory,
 * scripts/s3-server.sh) started by the suite on loopback, an Iceberg catalog whose warehouse is a
 * bucket of it (a JDBC catalog on SQLite, Iceberg's S3FileIO with the catalog's s3.* properties: endpoint, path-style
 * access, static credentials, client.region), and a second catalog without keys whose credentials come
 * from the AWS default chain (the shared credentials file surefire points AWS_SHARED_CREDENTIALS_FILE
 * at, written here for both Iceberg's Java SDK and the engine). Tables are written with Bolide off; every query runs
 * with Bolide off (Iceberg Java reading S3) and on, and must have been read by BolideIcebergScan.
 * The secret key must not appear in any plan, explain output or error.
 */
class IcebergS3Suite extends BolideSuiteBase {
  import IcebergS3Suite._

  @Before def setUp(): Unit = ensure(spark)

  private val Scan = "BolideIcebergScan"

  @Test def readsTablesOnS3(): Unit = {
    checkNative(s"SELECT * FROM ${table("plain")}", Seq(Scan))
    checkNative(s"SELECT kind, count(*), sum(id), max(ts) FROM ${table("plain")} GROUP BY kind",
      Seq(Scan, "BolideHashAggregate"))
    checkNative(s"SELECT id, kind FROM ${table("plain")} WHERE id % 9 = 2", Seq(Scan, "BolideFilter"))
  }

  @Test def deletesOnS3(): Unit = {
    checkNative(s"SELECT * FROM ${table("mor")}", Seq(Scan))
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${table("mor")} GROUP BY kind", Seq(Scan))
    checkNative(s"SELECT * FROM ${table("dv")}", Seq(Scan))
    checkNative(s"SELECT _file, _pos, id FROM ${table("dv")} WHERE id % 11 = 0", Seq(Scan))
  }

  @Test def oneFileAtATime(): Unit = withConf("spark.bolide.scan.iceberg.dataFileConcurrencyLimit" -> "1") {
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${table("mor")} GROUP BY kind", Seq(Scan))
  }

  @Test def credentialsFromTheDefaultChain(): Unit = {
    checkNative(s"SELECT * FROM $ChainCatalog.db.chained", Seq(Scan))
    checkNative(s"SELECT kind, count(*), sum(id) FROM $ChainCatalog.db.chained GROUP BY kind",
      Seq(Scan, "BolideHashAggregate"))
  }

  @Test def secretsNeverShown(): Unit = {
    val df = spark.sql(s"SELECT kind, count(*) FROM ${table("mor")} GROUP BY kind")
    df.collect()
    val shown = Seq(df.queryExecution.executedPlan.toString, extendedExplain(df), bolideReport(df),
      df.queryExecution.toString)
    shown.foreach(s => assertFalse("the secret key appears in a plan or explain output", s.contains(Secret)))
  }

  @Test def missingObjectNamesTheFile(): Unit = {
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"DROP TABLE IF EXISTS ${table("gone")}")
      spark.sql(s"CREATE TABLE ${table("gone")} (id BIGINT) USING iceberg")
      spark.range(0, 100, 1, 2).writeTo(table("gone")).append()
    } finally spark.conf.unset("spark.bolide.enabled")
    val loc = spark.sql(s"SELECT file_path FROM ${table("gone")}.files LIMIT 1").head().getString(0)
    // The posix backend keeps bucket b's object k at data/b/k.
    val key = loc.stripPrefix(s"s3://$Bucket/")
    assertTrue(s"object $loc", new File(server, s"data/$Bucket/$key").delete())
    val e = try { spark.sql(s"SELECT * FROM ${table("gone")}").collect(); null } catch { case e: Exception => e }
    assertNotNull(e)
    val m = messages(e)
    assertTrue(m, m.contains(new File(key).getName))
    assertFalse("the secret key appears in an error", m.contains(Secret))
    checkNative(s"SELECT count(*), sum(id) FROM ${table("plain")}", Seq(Scan))
  }
}

object IcebergS3Suite {
  val Catalog = "bolide_s3"
  val ChainCatalog = "bolide_s3chain"
  val Bucket = "bolide"
  val AccessKey = "bolidetest"
  val Secret: String = "s3cret-" + java.util.UUID.randomUUID().toString.replace("-", "")

  def table(name: String): String = s"$Catalog.db.$name"

  lazy val server: File = {
    val d = TempDirs.create("bolide-s3")
    new File(d, s"data/$Bucket").mkdirs() // a top-level directory is a bucket
    d
  }

  private var endpoint: String = _
  private var failure: Throwable = _

  /** The file surefire's AWS_SHARED_CREDENTIALS_FILE names (see the pom): the chain catalog's keys. */
  private def writeSharedCredentials(): Unit = {
    val path = sys.env.getOrElse("AWS_SHARED_CREDENTIALS_FILE",
      throw new IllegalStateException("AWS_SHARED_CREDENTIALS_FILE is not set (surefire sets it)"))
    val f = new File(path)
    f.getParentFile.mkdirs()
    Files.write(f.toPath, s"[default]\naws_access_key_id = $AccessKey\naws_secret_access_key = $Secret\n"
      .getBytes(StandardCharsets.UTF_8))
  }

  private def script(args: String*): String = {
    val pb = new ProcessBuilder(("bash" +: "scripts/s3-server.sh" +: args): _*)
      .directory(GeneratedData.repoRoot).redirectError(ProcessBuilder.Redirect.INHERIT)
    pb.environment().put("S3_ACCESS_KEY", AccessKey)
    pb.environment().put("S3_SECRET_KEY", Secret)
    val p = pb.start()
    val out = new String(p.getInputStream.readAllBytes(), StandardCharsets.UTF_8).trim
    assertEquals(s"s3-server.sh ${args.mkString(" ")} failed: $out", 0, p.waitFor())
    out
  }

  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (failure != null) throw new IllegalStateException("starting the S3 server failed", failure)
    if (endpoint != null) return
    try {
      endpoint = script("start", server.getAbsolutePath).split("\n").last.trim
      sys.addShutdownHook {
        script("stop", server.getAbsolutePath)
        org.apache.commons.io.FileUtils.deleteQuietly(server)
      }
      val c = s"spark.sql.catalog.$Catalog"
      val chain = s"spark.sql.catalog.$ChainCatalog"
      writeSharedCredentials()
      Seq(
        c -> "org.apache.iceberg.spark.SparkCatalog",
        // A JDBC catalog on SQLite (the tables' pointers), every file of the tables on S3.
        s"$c.type" -> "jdbc",
        s"$c.uri" -> s"jdbc:sqlite:${new File(server, "catalog.db").getAbsolutePath}",
        s"$c.jdbc.schema-version" -> "V1",
        s"$c.warehouse" -> s"s3://$Bucket/warehouse",
        s"$c.io-impl" -> "org.apache.iceberg.aws.s3.S3FileIO",
        s"$c.s3.endpoint" -> endpoint,
        s"$c.s3.path-style-access" -> "true",
        s"$c.s3.access-key-id" -> AccessKey,
        s"$c.s3.secret-access-key" -> Secret,
        s"$c.client.region" -> "us-east-1",
        // No keys: Iceberg's DefaultCredentialsProvider and the engine's default chain both find
        // them in the shared credentials file.
        chain -> "org.apache.iceberg.spark.SparkCatalog",
        s"$chain.type" -> "jdbc",
        s"$chain.uri" -> s"jdbc:sqlite:${new File(server, "chain-catalog.db").getAbsolutePath}",
        s"$chain.jdbc.schema-version" -> "V1",
        s"$chain.warehouse" -> s"s3://$Bucket/chain",
        s"$chain.io-impl" -> "org.apache.iceberg.aws.s3.S3FileIO",
        s"$chain.s3.endpoint" -> endpoint,
        s"$chain.s3.path-style-access" -> "true",
        s"$chain.client.region" -> "us-east-1").foreach { case (k, v) => spark.conf.set(k, v) }
      spark.conf.set("spark.bolide.enabled", "false")
      try {
        spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $Catalog.db")
        def create(name: String, props: String): Unit = {
          spark.sql(s"DROP TABLE IF EXISTS ${table(name)}")
          spark.sql(s"CREATE TABLE ${table(name)} (id BIGINT, kind STRING, ts TIMESTAMP) USING iceberg " +
            s"PARTITIONED BY (bucket(4, id)) TBLPROPERTIES ($props)")
          spark.range(0, 8000, 1, 4).selectExpr("id",
            "if(id % 19 = 0, null, concat('k', cast(id % 6 as string))) AS kind",
            "timestamp_seconds(1767225600 + id * 11) AS ts").writeTo(table(name)).append()
        }
        create("plain", "'format-version'='2'")
        create("mor", "'format-version'='2', 'write.delete.mode'='merge-on-read'")
        spark.sql(s"DELETE FROM ${table("mor")} WHERE id % 10 = 3")
        create("dv", "'format-version'='3', 'write.delete.mode'='merge-on-read'")
        spark.sql(s"DELETE FROM ${table("dv")} WHERE id % 10 = 3")
        spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $ChainCatalog.db")
        spark.sql(s"DROP TABLE IF EXISTS $ChainCatalog.db.chained")
        spark.sql(s"CREATE TABLE $ChainCatalog.db.chained USING iceberg " +
          s"TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read') AS SELECT * FROM ${table("plain")}")
        spark.sql(s"DELETE FROM $ChainCatalog.db.chained WHERE id % 7 = 1")
      } finally spark.conf.unset("spark.bolide.enabled")
    } catch {
      case t: Throwable => failure = t; throw t
    }
  }
}
