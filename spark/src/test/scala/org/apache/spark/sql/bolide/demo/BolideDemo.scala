package org.apache.spark.sql.bolide.demo

import java.io.File

import scala.io.Source

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.bolide.{BolideConf, BolideExec}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * `make demo`: writes the `sales` table (once; Parquet, and an Iceberg copy with deletes), runs the demo queries through Spark local mode with
 * Bolide off and on in the same session, prints the native plan, checks the answers are equal and
 * prints the times (median of the timed runs, after a warm-up run of each).
 *
 * Settings (environment): BOLIDE_DEMO_ROWS (default 3,000,000), BOLIDE_DEMO_RUNS (default 3),
 * BOLIDE_DEMO_DATA (default data/), BOLIDE_DEMO_MODES (off,on; a single mode for RSS runs).
 */
object BolideDemo {
  val Queries: Seq[(String, String)] = Seq(
    "q1-sales-by-region" ->
      """SELECT region, SUM(amount) AS total FROM sales
        |WHERE sale_date >= DATE '2026-08-17' GROUP BY region""".stripMargin,
    "q2-region-stats" ->
      """SELECT region, COUNT(*) AS n, AVG(price) AS avg_price, MIN(sale_date) AS first_sale,
        |MAX(amount) AS biggest FROM sales WHERE quantity > 5 GROUP BY region""".stripMargin,
    "q3-filtered-revenue" ->
      """SELECT COUNT(*) AS n, SUM(amount * quantity) AS revenue, SUM(price) AS price_sum
        |FROM sales WHERE region IN ('north', 'east') AND price < 50.0""".stripMargin,
    // The same data as an Iceberg table (format v2) with 5% of its rows deleted (merge-on-read).
    "q4-iceberg-with-deletes" ->
      """SELECT region, COUNT(*) AS n, SUM(amount) AS total, MAX(sale_date) AS last_sale
        |FROM demo.db.sales_ice WHERE quantity > 5 GROUP BY region""".stripMargin)

  private def env(k: String, d: String): String = Option(System.getenv(k)).filter(_.nonEmpty).getOrElse(d)

  def main(args: Array[String]): Unit = {
    val rows = env("BOLIDE_DEMO_ROWS", "3000000").toLong
    val runs = env("BOLIDE_DEMO_RUNS", "3").toInt
    val modes = env("BOLIDE_DEMO_MODES", "off,on").split(",").map(_.trim).toSeq
    val dir = new File(env("BOLIDE_DEMO_DATA", "data"), s"sales-$rows").getAbsolutePath

    val spark = SparkSession.builder()
      .master("local[2]")
      .appName("bolide-demo")
      .config("spark.plugins", BolideConf.PluginClass)
      .config("spark.shuffle.manager", "org.apache.spark.sql.bolide.shuffle.BolideShuffleManager")
      .config("spark.memory.offHeap.enabled", "true")
      .config("spark.memory.offHeap.size", "2g")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.ui.enabled", "false")
      .config("spark.driver.host", "127.0.0.1")
      // Iceberg: a Hadoop catalog in a local warehouse.
      .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
      .config("spark.sql.catalog.demo", "org.apache.iceberg.spark.SparkCatalog")
      .config("spark.sql.catalog.demo.type", "hadoop")
      .config("spark.sql.catalog.demo.warehouse", dir + "-iceberg")
      .getOrCreate()
    spark.sparkContext.setLogLevel("WARN")

    if (!new File(dir, "_SUCCESS").exists()) {
      println(s"writing $rows rows of sales to $dir ...")
      spark.conf.set("spark.bolide.enabled", "false")
      spark.range(0, rows, 1, 8).selectExpr(
        "id AS sale_id",
        "element_at(array('north', 'south', 'east', 'west', 'central'), cast(id % 5 + 1 as int)) AS region",
        "cast((id * 7919 % 100000) / 100.0 as decimal(12,2)) AS amount",
        "date_add(date'2026-01-01', cast(id * 31 % 365 as int)) AS sale_date",
        "cast(id * 13 % 20 as int) AS quantity",
        "(id * 104729 % 10000) / 100.0 AS price",
        "id % 100000 AS customer_id")
        .write.mode("overwrite").parquet(dir)
    }
    spark.read.parquet(dir).createOrReplaceTempView("sales")
    if (!spark.catalog.tableExists("demo.db.sales_ice")) {
      println(s"writing the Iceberg copy to $dir-iceberg and deleting 5% of its rows ...")
      spark.conf.set("spark.bolide.enabled", "false")
      spark.sql("CREATE NAMESPACE IF NOT EXISTS demo.db")
      spark.sql("CREATE TABLE demo.db.sales_ice USING iceberg TBLPROPERTIES ('format-version'='2', " +
        "'write.delete.mode'='merge-on-read') AS SELECT * FROM sales")
      spark.sql("DELETE FROM demo.db.sales_ice WHERE customer_id % 20 = 7")
    }
    println(s"sales: $rows rows in $dir; Spark ${spark.version}, Bolide ${spark.conf.get(BolideConf.VERSION_KEY)}")

    var allEqual = true
    val summary = Seq.newBuilder[String]
    Queries.foreach { case (name, sql) =>
      println(s"\n=== $name\n$sql")
      val results = modes.map { mode =>
        spark.conf.set("spark.bolide.enabled", (mode == "on").toString)
        val warm = spark.sql(sql)
        val answer = warm.collect().map(_.toString).sorted.toSeq
        if (mode == "on") {
          println("\nPhysical plan with Bolide on:")
          println(finalPlan(warm.queryExecution.executedPlan).treeString)
          println(warm.queryExecution.explainString(org.apache.spark.sql.execution.ExtendedMode)
            .split("\n").dropWhile(!_.startsWith("== Extended Information")).mkString("\n"))
        }
        val times = (1 to runs).map { _ =>
          val t0 = System.nanoTime()
          spark.sql(sql).collect()
          (System.nanoTime() - t0) / 1e9
        }
        mode -> (answer, median(times), times)
      }.toMap
      modes.foreach { m =>
        val (_, med, times) = results(m)
        println(f"Bolide $m%-3s: median $med%.3f s over ${times.size} runs (${times.map(t => f"$t%.3f").mkString(", ")})")
      }
      if (results.contains("off") && results.contains("on")) {
        val equal = results("off")._1 == results("on")._1
        allEqual &&= equal
        val ratio = results("off")._2 / results("on")._2
        println(s"answers equal: $equal; speed-up off/on: ${f"$ratio%.2f"}x")
        println("answer: " + results("on")._1.mkString(" "))
        summary += f"| $name | ${results("off")._2}%.3f | ${results("on")._2}%.3f | $ratio%.2fx | $equal |"
      }
    }
    if (modes.size == 2) {
      println("\n| query | Bolide off (s) | Bolide on (s) | speed-up | equal |\n|---|---|---|---|---|")
      summary.result().foreach(println)
    }
    println(s"peak RSS of this process: ${peakRssMiB()} MiB")
    spark.stop()
    if (!allEqual) {
      System.err.println("ANSWERS DIFFER between Bolide off and on")
      sys.exit(1)
    }
  }

  def finalPlan(p: SparkPlan): SparkPlan = p match {
    case a: AdaptiveSparkPlanExec => a.executedPlan
    case other => other
  }

  def median(xs: Seq[Double]): Double = {
    val s = xs.sorted
    if (s.size % 2 == 1) s(s.size / 2) else (s(s.size / 2 - 1) + s(s.size / 2)) / 2
  }

  def peakRssMiB(): Long = {
    val src = Source.fromFile("/proc/self/status")
    try src.getLines().find(_.startsWith("VmHWM")).map(_.split("\\s+")(1).toLong / 1024).getOrElse(-1L)
    finally src.close()
  }
}
