package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.Row
import org.apache.spark.sql.types._

/**
 * Native blocks whose children stay in Spark and come from sources Bolide does not read itself:
 * Iceberg tables (with and without deletes, metadata columns), cached tables, RDD-backed
 * DataFrames, local relations, and Spark's own columnar readers (constant partition vectors,
 * dictionary-encoded vectors, ORC). Each query runs with Bolide off and on: the answers must be
 * the same, and the native operator above the Spark child must have run. Whatever a child
 * produces, the boundary must take it or the planner refuse it; a failed task is a failed test.
 */
class SparkChildrenSuite extends BolideSuiteBase {
  private val Filter = "BolideFilter"
  private val Project = "BolideProject"
  private val Agg = "BolideHashAggregate"
  private val Union = "BolideUnion"

  @Before def setUp(): Unit = SparkChildrenSuite.ensure(spark)

  private def ice(t: String) = s"${SparkChildrenSuite.Catalog}.db.$t"

  // The query of the report that found the bug: every task failed once the table had deletes.
  private def deleteQuery(t: String) =
    s"SELECT id, kind FROM ${ice(t)} WHERE ts >= TIMESTAMP '2026-01-03 05:00:00' AND id % 5 = 1"

  @Test def icebergWithoutDeletes(): Unit = {
    checkNative(deleteQuery("plain"), Seq(Filter))
    checkNative(s"SELECT kind, count(*), sum(id), min(ts), max(id) FROM ${ice("plain")} GROUP BY kind",
      Seq(Agg, Agg))
  }

  @Test def icebergWithPositionalDeletes(): Unit = {
    checkNative(deleteQuery("mor"), Seq(Filter))
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${ice("mor")} GROUP BY kind", Seq(Agg, Agg))
    checkNative(s"SELECT count(*), sum(id) FROM ${ice("mor")} WHERE id % 3 = 0", Seq(Filter, Agg))
  }

  @Test def icebergWithUpdatesMergeOnRead(): Unit = {
    checkNative(deleteQuery("upd"), Seq(Filter))
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${ice("upd")} GROUP BY kind", Seq(Agg, Agg))
  }

  @Test def icebergV3DeletionVectors(): Unit = {
    checkNative(deleteQuery("dv"), Seq(Filter))
    checkNative(s"SELECT kind, count(*), sum(id) FROM ${ice("dv")} GROUP BY kind", Seq(Agg, Agg))
  }

  @Test def icebergCopyOnWrite(): Unit = {
    checkNative(deleteQuery("cow"), Seq(Filter))
  }

  @Test def icebergMetadataColumns(): Unit = {
    checkNative(s"SELECT _file, _pos, id FROM ${ice("mor")} WHERE id % 7 = 0", Seq(Filter))
    checkNative(s"SELECT _spec_id, count(*), sum(_pos) FROM ${ice("mor")} GROUP BY _spec_id", Seq(Agg, Agg))
    // _partition is a struct, which native operators do not take yet: the filter stays in Spark
    // (with a reason), and the query must still answer the same.
    checkNative(s"SELECT _partition, id FROM ${ice("mor")} WHERE id % 97 = 0", Seq.empty)
  }

  @Test def cachedTable(): Unit = {
    checkNative("SELECT k, count(*), sum(v), count(s), max(d) FROM cached_t GROUP BY k", Seq(Agg, Agg))
    checkNative("SELECT k, v, s FROM cached_t WHERE v % 3 = 1 AND s <> 'x'", Seq(Filter))
  }

  @Test def rddBackedDataFrame(): Unit = {
    checkNative("SELECT k, count(*), sum(v), count(s) FROM rdd_t GROUP BY k", Seq(Agg, Agg))
    checkNative("SELECT k, v * 2 FROM rdd_t WHERE v > 10", Seq(Filter))
  }

  @Test def localRelation(): Unit = {
    checkNative("SELECT a, sum(b) FROM VALUES (1, 2L), (1, 3L), (2, NULL), (NULL, 5L) AS t(a, b) " +
      "WHERE b IS NULL OR b > 2 GROUP BY a", Seq(Agg))
  }

  @Test def sparkParquetReaderConstantAndDictionaryVectors(): Unit = {
    // Bolide's scan off: Spark's vectorized reader feeds the native operators, with partition
    // columns as constant vectors and dictionary-encoded strings.
    withConf("spark.bolide.exec.scan.enabled" -> "false") {
      checkNative("SELECT p, kind, count(*), sum(v) FROM spark_parted GROUP BY p, kind", Seq(Agg, Agg))
      checkNative("SELECT p, kind, v FROM spark_parted WHERE kind = 'k3' AND v % 2 = 0", Seq(Filter))
    }
  }

  @Test def fileMetadataColumns(): Unit = {
    // _metadata makes Bolide leave the scan to Spark, whose batches carry constant metadata vectors.
    checkNative("SELECT _metadata.file_name IS NOT NULL AS named, count(*), sum(v) FROM " +
      s"parquet.`${TestData.path("spark_parted")}` GROUP BY 1", Seq(Agg))
  }

  @Test def orcSource(): Unit = {
    checkNative("SELECT kind, count(*), sum(v), max(p) FROM orc_t GROUP BY kind", Seq(Agg, Agg))
    checkNative("SELECT kind, v FROM orc_t WHERE v % 5 = 0", Seq(Filter))
  }

  @Test def unionOfShuffledAggregatesReaggregated(): Unit = {
    // The TPC-DS q33/q56/q60 shape: a partial aggregate straight over a Union of two final
    // aggregates, whose shuffles AQE coalesces.
    checkNative(
      """SELECT kind, sum(total) FROM (
        |  SELECT kind, sum(v) AS total FROM spark_parted GROUP BY kind
        |  UNION ALL
        |  SELECT kind, sum(v) AS total FROM orc_t GROUP BY kind) u
        |GROUP BY kind""".stripMargin, Seq(Agg, Agg, Union))
    checkNative(
      """SELECT kind, count(*) FROM (
        |  SELECT kind FROM cached_t_kinds GROUP BY kind
        |  UNION ALL
        |  SELECT kind FROM orc_t GROUP BY kind) u
        |GROUP BY kind""".stripMargin, Seq(Agg))
  }

  @Test def exceptAllAndIntersectAllOfAggregates(): Unit = {
    // From Spark's own golden files (except-all.sql, intersect-all.sql).
    checkNative("SELECT v FROM tab3 GROUP BY v EXCEPT ALL SELECT k FROM tab4 GROUP BY k", Seq(Agg))
    checkNative("SELECT v FROM tab3 GROUP BY v INTERSECT ALL SELECT k FROM tab4 GROUP BY k", Seq(Agg))
  }

  @Test def icebergUnionWithParquet(): Unit = {
    checkNative(
      s"""SELECT kind, sum(n) FROM (
         |  SELECT kind, count(*) AS n FROM ${ice("mor")} GROUP BY kind
         |  UNION ALL
         |  SELECT kind, count(*) AS n FROM spark_parted GROUP BY kind) u
         |GROUP BY kind""".stripMargin, Seq(Agg))
  }
}

object SparkChildrenSuite {
  val Catalog = "bolide_ice"
  private var done = false

  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (done) return
    done = true
    // Iceberg tables through Spark SQL (Hadoop catalog in a local warehouse), written with
    // Bolide off so that only reads are under test.
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $Catalog.db")
      def create(name: String, props: String): Unit = {
        spark.sql(s"DROP TABLE IF EXISTS $Catalog.db.$name")
        spark.sql(
          s"""CREATE TABLE $Catalog.db.$name (id BIGINT, kind STRING, ts TIMESTAMP) USING iceberg
             |PARTITIONED BY (bucket(8, id), days(ts)) TBLPROPERTIES ($props)""".stripMargin)
        spark.range(0, 20000, 1, 4).selectExpr("id",
          "if(id % 17 = 0, null, concat('k', cast(id % 7 as string))) AS kind",
          "timestamp_seconds(1767225600 + id * 37) AS ts")
          .writeTo(s"$Catalog.db.$name").append()
      }
      val mor = "'format-version'='2', 'write.delete.mode'='merge-on-read', " +
        "'write.update.mode'='merge-on-read'"
      create("plain", "'format-version'='2'")
      create("mor", mor)
      spark.sql(s"DELETE FROM $Catalog.db.mor WHERE id % 10 = 3")
      create("upd", mor)
      spark.sql(s"UPDATE $Catalog.db.upd SET kind = 'updated' WHERE id % 9 = 4")
      create("dv", "'format-version'='3', 'write.delete.mode'='merge-on-read'")
      spark.sql(s"DELETE FROM $Catalog.db.dv WHERE id % 10 = 3")
      create("cow", "'format-version'='2', 'write.delete.mode'='copy-on-write'")
      spark.sql(s"DELETE FROM $Catalog.db.cow WHERE id % 10 = 3")

      // A cached table (InMemoryTableScan: Spark's own column vectors).
      spark.range(0, 5000, 1, 3).selectExpr("id % 13 AS k", "id AS v",
        "if(id % 11 = 0, null, concat('s', cast(id % 50 as string))) AS s", "id / 7.0 AS d")
        .createOrReplaceTempView("cached_src")
      spark.sql("CACHE TABLE cached_t AS SELECT * FROM cached_src")
      spark.sql("CACHE TABLE cached_t_kinds AS SELECT concat('k', cast(id % 9 as string)) AS kind " +
        "FROM range(0, 300)")

      // An RDD-backed DataFrame (rows, not batches).
      val schema = new StructType().add("k", IntegerType).add("v", LongType).add("s", StringType)
      val rows = spark.sparkContext.parallelize(0 until 3000, 3).map { i =>
        Row(if (i % 29 == 0) null else i % 10, i.toLong, if (i % 7 == 0) null else s"r${i % 31}")
      }
      spark.createDataFrame(rows, schema).createOrReplaceTempView("rdd_t")

      // Parquet partitioned by p (constant vectors in Spark's reader), dictionary strings.
      spark.range(0, 4000, 1, 4).selectExpr("id AS v", "concat('k', cast(id % 5 as string)) AS kind",
        "cast(id % 3 as int) AS p").write.mode("overwrite").partitionBy("p")
        .parquet(TestData.path("spark_parted"))
      spark.read.parquet(TestData.path("spark_parted")).createOrReplaceTempView("spark_parted")

      spark.range(0, 3000, 1, 3).selectExpr("id AS v", "concat('k', cast(id % 4 as string)) AS kind",
        "cast(id % 6 as int) AS p").write.mode("overwrite").orc(TestData.path("orc_t"))
      spark.read.orc(TestData.path("orc_t")).createOrReplaceTempView("orc_t")

      spark.sql("CREATE OR REPLACE TEMPORARY VIEW tab3 AS SELECT * FROM VALUES " +
        "(1, 2), (1, 2), (1, 3), (2, 3), (2, 2), (NULL, 3) AS tab3(k, v)")
      spark.sql("CREATE OR REPLACE TEMPORARY VIEW tab4 AS SELECT * FROM VALUES " +
        "(1, 2), (2, 3), (2, 2), (2, 2), (2, 20), (NULL, 3) AS tab4(k, v)")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
