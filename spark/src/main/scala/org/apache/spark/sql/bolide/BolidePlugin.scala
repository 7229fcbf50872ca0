package org.apache.spark.sql.bolide

import java.util.{Collections, Map => JMap}

import org.apache.spark.{SparkConf, SparkContext}
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
    val limit = BolideExecutorPlugin.goMemoryLimit(conf)
    logInfo(s"Bolide: GOMAXPROCS=$cores, GOMEMLIMIT=${limit >> 20} MiB (off-heap pool + memory overhead)")
    NativeLib.configure(cores, limit)
  }
}

object BolideExecutorPlugin {
  private val MiB = 1L << 20

  /**
   * The executor's memory overhead in bytes, derived as Spark sizes a YARN or Kubernetes container
   * (ResourceProfile.calculateOverHeadMemory): spark.executor.memoryOverhead when set, else
   * spark.executor.memoryOverheadFactor (0.1) times spark.executor.memory, at least
   * spark.executor.minMemoryOverhead (384m).
   */
  def memoryOverhead(conf: SparkConf): Long = {
    val mib = if (conf.contains("spark.executor.memoryOverhead")) {
      conf.getSizeAsMb("spark.executor.memoryOverhead")
    } else {
      val executor = conf.getSizeAsMb("spark.executor.memory", "1g")
      val factor = conf.getDouble("spark.executor.memoryOverheadFactor", 0.1)
      val min = conf.getSizeAsMb("spark.executor.minMemoryOverhead", "384m")
      math.max((factor * executor).toLong, min)
    }
    mib * MiB
  }

  /** spark.memory.offHeap.size in bytes when spark.memory.offHeap.enabled, else 0. */
  def offHeapPool(conf: SparkConf): Long =
    if (conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)) {
      conf.getSizeAsBytes("spark.memory.offHeap.size", "0")
    } else 0L

  /**
   * GOMEMLIMIT, the Go runtime's soft memory limit: the off-heap pool plus the memory overhead,
   * which is what a YARN or Kubernetes container holds beyond the heap (Spark asks for heap +
   * overhead + pool). Native memory reserved from the pool (C memory and the Go-heap structures
   * Bolide accounts) stays under the pool; the Go runtime's own memory (unaccounted Go heap,
   * goroutine stacks, runtime metadata) is part of the fixed overhead the memory overhead covers
   * (docs/tuning.md, "Sizing an executor"). Go's GC works harder as its memory nears the limit,
   * before the container's limit is hit.
   */
  def goMemoryLimit(conf: SparkConf): Long = offHeapPool(conf) + memoryOverhead(conf)
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
