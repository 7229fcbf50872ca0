package org.apache.spark.sql.bolide

import java.util.{Collections, Map => JMap}

import org.apache.spark.SparkContext
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, PluginContext, SparkPlugin}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSessionExtensions

/**
 * The one class a user names: `spark.plugins=org.apache.spark.sql.bolide.BolidePlugin`. The driver
 * side registers Bolide's session extensions and explain provider before any session exists; the
 * executor side loads the Go engine and sizes its runtime after the executor.
 */
class BolidePlugin extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = new BolideDriverPlugin
  override def executorPlugin(): ExecutorPlugin = new BolideExecutorPlugin
}

class BolideDriverPlugin extends DriverPlugin with Logging {
  override def init(sc: SparkContext, ctx: PluginContext): JMap[String, String] = {
    val conf = sc.conf
    def append(key: String, value: String): Unit = {
      val current = conf.get(key, "").split(",").map(_.trim).filter(_.nonEmpty)
      if (!current.contains(value)) conf.set(key, (current :+ value).mkString(","))
    }
    append("spark.sql.extensions", classOf[BolideSessionExtensions].getName)
    append("spark.sql.extendedExplainProviders", classOf[BolideExplainGenerator].getName)
    conf.set(BolideConf.VERSION_KEY, NativeLoader.AdapterVersion)
    if (!conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)) {
      logWarning("Bolide: spark.memory.offHeap.enabled is false, so native memory is not accounted " +
        "to Spark; set spark.memory.offHeap.enabled=true and spark.memory.offHeap.size (see README)")
    }
    Collections.emptyMap()
  }
}

class BolideExecutorPlugin extends ExecutorPlugin with Logging {
  override def init(ctx: PluginContext, extraConf: JMap[String, String]): Unit = {
    if (!NativeLoader.isAvailable) return
    val conf = ctx.conf()
    val cores = conf.getInt("spark.executor.cores", Runtime.getRuntime.availableProcessors())
    val mib = 1L << 20
    val overhead = conf.getSizeAsMb("spark.executor.memoryOverhead",
      math.max(384L, conf.getSizeAsMb("spark.executor.memory", "1g") / 10).toString + "m") * mib
    val offHeap = if (conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)) {
      conf.getSizeAsBytes("spark.memory.offHeap.size", "0")
    } else 0L
    NativeLib.configure(cores, overhead + offHeap)
  }
}

/** Injected through spark.sql.extensions by the driver plugin (or named there by hand). */
class BolideSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit = {
    ext.injectColumnar(session => BolideColumnarRule(session))
    // With AQE, columnar rules only run when a query stage is created; planning the whole plan in
    // the stage-preparation phase too makes EXPLAIN (before execution) show the Bolide operators
    // and reasons. The columnar rule then keeps the Bolide nodes it finds and adds transitions.
    ext.injectQueryStagePrepRule(_ => BolidePlanRule)
  }
}
