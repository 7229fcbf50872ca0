package org.apache.spark.sql.bolide

import org.junit.Test

/**
 * The cost of dispatching an expression to the JVM (native/expr/dispatch.go), measured, not
 * asserted: `mvn ... test -Dtest=DispatchBench` (not part of the default run, whose includes are
 * *Suite). A Parquet table of 10M longs, projected through `id * 3 + 1` (cheap: the upcall and
 * the two Arrow crossings dominate) and written to the noop sink, in four modes: Bolide off;
 * native; the kernel disabled with dispatch off (the projection stays in Spark); the kernel
 * disabled with dispatch on (the JVM evaluates it, one upcall per batch). Best of 5 runs each,
 * in wall time and in the CPU time of the whole process (every thread: the tasks', Go's, the
 * JIT's and the collector's), which a machine shared with other work disturbs much less.
 */
class DispatchBench extends BolideSuiteBase {
  private val Rows = 10L * 1000 * 1000

  @Test def projectOneCheapExpression(): Unit = {
    val path = TestData.path("dispatch_bench")
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, Rows, 1, 2).write.mode("overwrite").parquet(path)
    }
    spark.read.parquet(path).createOrReplaceTempView("dispatch_bench")
    // The projection written to the noop sink (rows cross to Spark), and a filter on the same
    // expression that keeps no row (the scan and the expression alone).
    Seq("SELECT id, id * 3 + 1 AS y FROM dispatch_bench", "SELECT id FROM dispatch_bench WHERE id * 3 + 1 < 0")
      .foreach(measure)
  }

  private def processCpu(): Long =
    java.lang.management.ManagementFactory.getOperatingSystemMXBean
      .asInstanceOf[com.sun.management.OperatingSystemMXBean].getProcessCpuTime

  private def measure(q: String): Unit = {
    val modes = Seq(
      "spark" -> Seq("spark.bolide.enabled" -> "false"),
      "native" -> Seq.empty[(String, String)],
      "kernel off, in Spark" -> Seq("spark.bolide.expression.Add.enabled" -> "false", "spark.bolide.dispatch.enabled" -> "false"),
      "dispatched" -> Seq("spark.bolide.expression.Add.enabled" -> "false", "spark.bolide.dispatch.enabled" -> "true"))
    val results = modes.map { case (name, conf) =>
      withConf(conf: _*) {
        val df = spark.sql(q)
        val times = (1 to 6).map { _ =>
          val c0 = processCpu()
          val t0 = System.nanoTime()
          spark.sql(q).write.format("noop").mode("overwrite").save()
          ((System.nanoTime() - t0) / 1e6, (processCpu() - c0) / 1e6)
        }.drop(1)
        name -> (times.map(_._1).min, times.map(_._2).min, nativeOperators(df),
          planNodes(df.queryExecution.executedPlan).collect { case b: BolideExec => b.dispatched }.flatten)
      }
    }
    val batches = Rows / 8192
    def of(mode: String) = results.find(_._1 == mode).get._2
    results.foreach { case (name, (ms, cpu, ops, ds)) =>
      println(f"DispatchBench $name%-22s $ms%8.1f ms wall $cpu%8.1f ms CPU  native: ${ops.mkString(",")}  dispatched: ${ds.mkString(",")}")
    }
    val (native, dispatched, vanilla) = (of("native"), of("dispatched"), of("spark"))
    println(s"DispatchBench $q")
    println(f"DispatchBench dispatch over native: ${(dispatched._1 - native._1) * 1e3 / batches}%.1f us wall, " +
      f"${(dispatched._2 - native._2) * 1e3 / batches}%.1f us CPU per 8192-row batch ($batches batches); " +
      f"Spark over dispatched: ${vanilla._1 / dispatched._1}%.2fx wall, ${vanilla._2 / dispatched._2}%.2fx CPU")
  }
}
