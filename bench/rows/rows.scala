// `make bench-rows`: what it costs to turn a native block's output into Spark rows. A row consumer
// (Spark's no-op writer, which takes every row through ColumnarToRow and reads nothing) over 8 of
// TPC-H lineitem's columns (longs, decimals, a date, a string), Bolide on and off alternated in one
// local[2] session. Per run: wall time, the tasks' run time and task-thread CPU, and with Bolide on
// the time spent inside the native block ("time in native block": decode, export and import); the
// rest of Bolide's task time is Spark's ColumnarToRow and the writer.
import org.apache.spark.scheduler._
import java.util.concurrent.atomic.AtomicLong
val data = sys.env.getOrElse("TPCH_DATA", "data/tpch/sf1")
val runs = sys.env.getOrElse("RUNS", "5").toInt
val run = new AtomicLong; val cpu = new AtomicLong; val nat = new AtomicLong
spark.sparkContext.addSparkListener(new SparkListener {
  override def onTaskEnd(e: SparkListenerTaskEnd): Unit = if (e.taskMetrics != null) {
    run.addAndGet(e.taskMetrics.executorRunTime)
    cpu.addAndGet(e.taskMetrics.executorCpuTime / 1000000)
    e.taskInfo.accumulables.foreach { a =>
      if (a.name.contains("time in native block")) a.update.foreach(v => nat.addAndGet(v.toString.toLong / 1000000))
    }
  }
})
spark.read.parquet(s"$data/lineitem").createOrReplaceTempView("lineitem")
val q = "SELECT l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, l_shipdate, l_comment FROM lineitem"
def once(on: Boolean): Seq[Long] = {
  spark.conf.set("spark.bolide.enabled", on.toString)
  run.set(0); cpu.set(0); nat.set(0)
  val t0 = System.nanoTime
  spark.sql(q).write.format("noop").mode("overwrite").save()
  val wall = (System.nanoTime - t0) / 1000000
  Thread.sleep(500) // the listener bus delivers the last task ends
  Seq(wall, run.get, cpu.get, nat.get)
}
def median(xs: Seq[Long]): Long = xs.sorted.apply(xs.size / 2)
once(true); once(false)
val res = (0 until runs).map(_ => (once(true), once(false)))
println("RESULT | engine | wall ms | task run ms | task CPU ms | in native block ms |")
println("RESULT |---|---|---|---|---|")
for ((name, pick) <- Seq[(String, ((Seq[Long], Seq[Long])) => Seq[Long])](("bolide", _._1), ("spark", _._2))) {
  val rs = res.map(pick)
  println(s"RESULT | $name | " + (0 until 4).map(k => median(rs.map(_(k)))).mkString(" | ") + " |")
}
println("RESULT per run, spark/bolide in task CPU: " + res.map { case (b, s) => f"${s(2).toDouble / b(2)}%.2f" }.mkString(", "))
System.exit(0)
