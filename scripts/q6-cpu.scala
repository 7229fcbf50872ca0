// Where a warm spark-shell's CPU goes while TPC-H Q6 runs back to back (issue 10): three rounds of 30
// runs, each printing per query the wall time, the whole process's CPU, the JIT's compilation time,
// GC time, and the CPU of the busiest JVM threads (Bolide's Go code runs on the task threads).
// Run as scripts/q6-phases.scala says (same settings, Bolide's --jars/--conf or none); prints
// three RESULT lines. Data: TPCH_DIR (default data/tpch/sf1).
import java.lang.management._
spark.sparkContext.setLogLevel("WARN")
spark.read.parquet(sys.env.getOrElse("TPCH_DIR", "data/tpch/sf1") + "/lineitem").createOrReplaceTempView("lineitem")
val q = scala.io.Source.fromFile("tpch/queries/q6.sql").getLines().filterNot(_.startsWith("--")).mkString("\n")
val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]
val jit = ManagementFactory.getCompilationMXBean
def gc = ManagementFactory.getGarbageCollectorMXBeans.toArray.map(_.asInstanceOf[GarbageCollectorMXBean].getCollectionTime).sum
val threads = ManagementFactory.getThreadMXBean
def byThread = threads.getAllThreadIds.map(id => (Option(threads.getThreadInfo(id)).map(_.getThreadName.replaceAll("[0-9]+", "N")).getOrElse("?"), threads.getThreadCpuTime(id))).groupBy(_._1).map { case (k, v) => k -> v.map(_._2).sum }
for (round <- 1 to 3) {
  val n = 30
  val c0 = os.getProcessCpuTime; val j0 = jit.getTotalCompilationTime; val g0 = gc; val t0 = System.nanoTime(); val b0 = byThread
  for (i <- 1 to n) spark.sql(q).collect()
  val c1 = os.getProcessCpuTime; val j1 = jit.getTotalCompilationTime; val g1 = gc; val t1 = System.nanoTime(); val b1 = byThread
  val top = b1.map { case (k, v) => k -> (v - b0.getOrElse(k, 0L)) }.toSeq.sortBy(-_._2).take(8).map { case (k, v) => f"$k=${v / 1e6 / n}%.1f" }
  println(f"RESULT round $round wall/q=${(t1 - t0) / 1e6 / n}%.1f ms processCPU/q=${(c1 - c0) / 1e6 / n}%.1f ms jit/q=${(j1 - j0).toDouble / n}%.1f ms gc/q=${(g1 - g0).toDouble / n}%.1f ms threads: ${top.mkString(" ")}")
}
System.exit(0)
