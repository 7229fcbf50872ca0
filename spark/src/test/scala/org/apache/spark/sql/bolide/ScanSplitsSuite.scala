package org.apache.spark.sql.bolide

import java.nio.file.Files

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.DynamicPruningExpression
import org.apache.spark.sql.execution.FileSourceScanExec

/**
 * A native scan's splits are made as FileSourceScanExec makes them, without building Spark's
 * reader (ScanSplits, SparkFileReader): bucketed scans (one split per bucket, no shuffle),
 * dynamic partition pruning (the splits of the partitions the join's other side selects), and the
 * scan's driver metrics (files, partitions, size), Bolide off vs on.
 */
class ScanSplitsSuite extends BolideSuiteBase {
  private def scans(df: DataFrame): Seq[FileSourceScanExec] = planNodes(df.queryExecution.executedPlan).flatMap {
    case s: FileSourceScanExec => Seq(s)
    case b: BolideExec => b.original match {
      case s: FileSourceScanExec => Seq(s)
      case _ => Nil
    }
    case _ => Nil
  }

  /**
   * The driver metrics of the query's scans of `table` as the SQL UI shows them once it ran (posted
   * by the driver, not carried by tasks): `df` must be the last query run.
   */
  private def driverMetrics(df: DataFrame, table: String): Seq[(String, String)] = {
    spark.sparkContext.listenerBus.waitUntilEmpty()
    val store = spark.sharedState.statusStore
    val shown = store.executionMetrics(store.executionsList().map(_.executionId).max)
    scans(df).filter(_.relation.location.rootPaths.exists(_.toString.contains(table))).flatMap { s =>
      Seq("numFiles", "numPartitions", "filesSize").flatMap(m =>
        s.metrics.get(m).map(v => s"$table.$m" -> shown.getOrElse(v.id, "not shown")))
    }.sortBy(_._1)
  }

  /** Runs `sql` Bolide off then on; answers and the scans' driver metrics must agree. */
  private def sameMetrics(sql: String, table: String, native: Seq[String]): DataFrame = {
    val off = withConf("spark.bolide.enabled" -> "false") {
      val df = spark.sql(sql)
      df.collect()
      driverMetrics(df, table)
    }
    val df = checkNative(sql, native)
    val on = driverMetrics(df, table)
    assertTrue(s"no driver metrics for $table's scan: $off", off.nonEmpty && off.forall(_._2 != "not shown"))
    assertEquals(s"$sql: driver metrics of the scan", off, on)
    df
  }

  @Test def bucketedTables(): Unit = {
    val dir = Files.createTempDirectory(BolideTestSession.dataDir.toPath, "bucketed").toFile
    withConf("spark.bolide.enabled" -> "false") {
      spark.sql("DROP TABLE IF EXISTS bucketed_t")
      spark.range(0, 30000, 1, 3).selectExpr("id", "id % 50 AS k", "concat('v', id % 97) AS s")
        .write.bucketBy(4, "k").sortBy("k").option("path", dir.getAbsolutePath).saveAsTable("bucketed_t")
    }
    try {
      // Bucketing off: the same files, split by size, read natively.
      withConf("spark.sql.sources.bucketing.enabled" -> "false") {
        sameMetrics("SELECT count(*), sum(k), max(s) FROM bucketed_t WHERE id > 100", "bucketed",
          Seq("BolideScan", "BolideHashAggregate", "BolideHashAggregate"))
      }
      // A bucketed scan (one split per bucket, no shuffle under the aggregate) stays Spark's for now:
      // the answer is Spark's.
      val df = checkNative("SELECT k, count(*), sum(id) FROM bucketed_t WHERE id % 3 = 1 GROUP BY k", Nil)
      assertTrue(s"a bucketed scan\n${df.queryExecution.executedPlan}", scans(df).exists(_.bucketedScan))
      assertTrue(bolideReport(df), bolideReport(df).contains("bucketed scans are not supported natively"))
    } finally {
      withConf("spark.bolide.enabled" -> "false") { spark.sql("DROP TABLE IF EXISTS bucketed_t") }
    }
  }

  @Test def partitionPruning(): Unit = {
    val dir = Files.createTempDirectory(BolideTestSession.dataDir.toPath, "pruned_fact").toFile
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, 40000, 1, 4).selectExpr("id", "id % 10 AS p", "id * 0.5 AS v")
        .write.mode("overwrite").partitionBy("p").parquet(dir.getAbsolutePath)
    }
    spark.read.parquet(dir.getAbsolutePath).createOrReplaceTempView("pruned_fact")
    // Static pruning: 3 of the 10 partitions are listed and split.
    val df = sameMetrics("SELECT p, count(*), sum(v) FROM pruned_fact WHERE p IN (1, 5, 9) GROUP BY p",
      "pruned_fact", Seq("BolideScan", "BolideHashAggregate", "BolideHashAggregate"))
    assertEquals(Some(3L), scans(df).headOption.flatMap(_.metrics.get("numPartitions")).map(_.value))
    // Dynamic pruning (the partitions the join's other side selects) stays Spark's scan for now.
    spark.range(0, 10).selectExpr("id AS p", "concat('n', id % 4) AS name").createOrReplaceTempView("pruned_dim")
    withConf("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false") {
      val dpp = checkNative("SELECT f.p, count(*), sum(f.v) FROM pruned_fact f JOIN pruned_dim d ON f.p = d.p " +
        "WHERE d.name = 'n1' GROUP BY f.p", Nil)
      assertTrue(s"dynamic pruning in the fact table's scan\n${dpp.queryExecution.executedPlan}",
        scans(dpp).exists(_.partitionFilters.exists(_.isInstanceOf[DynamicPruningExpression])))
      assertTrue(bolideReport(dpp), bolideReport(dpp).contains("dynamic partition pruning is not supported natively"))
      // The rest of the query (the join, the aggregates) still runs natively over Spark's scan.
      assertTrue(nativeOperators(dpp).mkString(", "), nativeOperators(dpp).nonEmpty)
    }
  }
}
