package org.apache.spark.sql.bolide

import org.junit.Test
import org.junit.Assert._

import org.apache.spark.SparkConf

/** GOMEMLIMIT as the executor plugin derives it: off-heap pool + memory overhead, as Spark sizes a container. */
class ExecutorMemorySuite {
  private val MiB = 1L << 20
  private def conf(kv: (String, String)*): SparkConf = new SparkConf(false).setAll(kv)

  @Test def overheadDefaultsAsSparkDerivesIt(): Unit = {
    // 0.1 of the executor's memory, at least 384 MiB.
    assertEquals(384 * MiB, BolideExecutorPlugin.memoryOverhead(conf()))
    assertEquals(384 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memory" -> "2g")))
    assertEquals(1228 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memory" -> "12g")))
    assertEquals(2457 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memory" -> "12g",
      "spark.executor.memoryOverheadFactor" -> "0.2")))
    assertEquals(1024 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memory" -> "2g",
      "spark.executor.minMemoryOverhead" -> "1g")))
  }

  @Test def explicitOverheadWins(): Unit = {
    assertEquals(1536 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memory" -> "12g",
      "spark.executor.memoryOverhead" -> "1536m")))
    // A bare number is MiB, as in Spark.
    assertEquals(2048 * MiB, BolideExecutorPlugin.memoryOverhead(conf("spark.executor.memoryOverhead" -> "2048")))
  }

  @Test def limitIsPoolPlusOverhead(): Unit = {
    // docs/tuning.md's 16 GB executor: 10g heap, 4g pool, 2g overhead.
    val c = conf("spark.executor.memory" -> "10g", "spark.memory.offHeap.enabled" -> "true",
      "spark.memory.offHeap.size" -> "4g", "spark.executor.memoryOverhead" -> "2g")
    assertEquals(6144 * MiB, BolideExecutorPlugin.goMemoryLimit(c))
    // Without the pool enabled, its size does not count.
    assertEquals(2048 * MiB, BolideExecutorPlugin.goMemoryLimit(c.clone.set("spark.memory.offHeap.enabled", "false")))
  }
}
