package org.apache.spark.sql.bolide

import org.apache.spark.sql.internal.SQLConf

/**
 * Every setting Bolide reads, with its default and its documentation. docs/configuration.md is
 * generated from this list (`make docs`), so a setting that is not declared here does not exist.
 */
object BolideConf {
  final case class Entry(key: String, default: String, doc: String) {
    def get(conf: SQLConf): String = conf.getConfString(key, default)
    def getBoolean(conf: SQLConf): Boolean = get(conf).trim.toBoolean
    def getInt(conf: SQLConf): Int = get(conf).trim.toInt
  }

  private val entries = scala.collection.mutable.ArrayBuffer.empty[Entry]

  private def entry(key: String, default: String, doc: String): Entry = {
    val e = Entry(key, default, doc)
    entries += e
    e
  }

  val PluginClass = "org.apache.spark.sql.bolide.BolidePlugin"

  val ENABLED: Entry = entry("spark.bolide.enabled", "true",
    "Turns Bolide on or off for a session. Off, every query runs exactly as in vanilla Spark.")

  val VERSION_KEY = "spark.bolide.version"

  val BATCH_SIZE: Entry = entry("spark.bolide.batchSize", "8192",
    "Rows per Arrow batch produced by native operators (one JNI crossing per batch).")

  val EXPLAIN_FALLBACK: Entry = entry("spark.bolide.explain.fallback.enabled", "false",
    "Log, at planning time, every operator that stays in Spark and the reason why.")

  val SHUFFLE_CODEC: Entry = entry("spark.bolide.shuffle.compression.codec", "lz4",
    "Compression of native shuffle blocks: `lz4`, `zstd`, `snappy` or `none`. Needs " +
      "`spark.shuffle.manager=org.apache.spark.sql.bolide.shuffle.BolideShuffleManager`.")

  val ICEBERG_ENABLED: Entry = entry("spark.bolide.scan.iceberg.enabled", "true",
    "Read Iceberg tables with the native reader (Iceberg Java still plans the scan). Off, Iceberg " +
      "Java reads them and the native operators above take its batches.")

  val ICEBERG_FILE_CONCURRENCY: Entry = entry("spark.bolide.scan.iceberg.dataFileConcurrencyLimit", "4",
    "How many data files of its Iceberg tasks a Spark task opens ahead, concurrently (on an object " +
      "store the latency of the next files overlaps the decoding of the current one). 1 opens them " +
      "one after another.")

  val DISPATCH_ENABLED: Entry = entry("spark.bolide.dispatch.enabled", "true",
    "When a native Project, Filter, aggregate (its functions' arguments), sort (its keys) or join (its condition) meets " +
      "an expression the engine cannot evaluate, keep the " +
      "operator native and have the JVM evaluate that expression with Spark's own code, one call " +
      "per batch (deterministic, row-by-row expressions of atomic types and of structs, arrays and maps of them). Off, the operator stays " +
      "in Spark. `spark.bolide.expression.<Class>.enabled=false` (its short name, e.g. `spark.bolide.expression.Upper.enabled`) " +
      "turns one expression class's native kernel off: it is then dispatched, or its operator stays " +
      "in Spark.")

  val GATHER_ENABLED: Entry = entry("spark.bolide.globalAggregate.gather.enabled", "true",
    "A global aggregate (no GROUP BY) whose partial aggregation runs natively gathers the partial " +
      "states (one row per partition) to the driver with the partial aggregation's job " +
      "(BolideGather), instead of shuffling them to a single partition in a stage of their own: a " +
      "stage less, and with adaptive execution no re-optimization between the two. Only for " +
      "aggregate functions whose state has a fixed width (sum, count, avg, min/max of numbers and " +
      "dates...); the others keep the shuffle.")

  /** Operators with a per-operator switch: spark.bolide.exec.<name>.enabled. */
  val OperatorNames: Seq[String] = Seq(
    "scan", "filter", "project", "hashAggregate", "localLimit", "globalLimit", "collectLimit", "sort",
    "takeOrderedAndProject", "broadcastHashJoin", "shuffledHashJoin", "sortMergeJoin", "shuffle", "window",
    "broadcastExchange", "emptyRelation", "expand", "coalesce", "icebergScan", "generate")

  val operatorEntries: Seq[Entry] = OperatorNames.map { op =>
    entry(s"spark.bolide.exec.$op.enabled", "true",
      s"Run the `$op` operator natively when possible (otherwise it stays in Spark).")
  }

  def all: Seq[Entry] = entries.toSeq

  /** The markdown reference of every setting (for docs/configuration.md). */
  def markdown: String = {
    val sb = new StringBuilder
    sb ++= "| key | default | meaning |\n|---|---|---|\n"
    all.foreach(e => sb ++= s"| `${e.key}` | `${e.default}` | ${e.doc} |\n")
    sb.toString
  }
}
