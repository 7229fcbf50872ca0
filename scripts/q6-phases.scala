// TPC-H Q6's wall time by phase in a warm spark-shell (issue 10): 70 runs, the median of the last 40
// of: planning (sql() + executedPlan), collect to the first job's start, the jobs, and the last job's
// end to collect's return. Run with the bench's settings, Bolide's jar and confs or none:
//   spark-shell --master local[2] --driver-memory 4g --conf spark.memory.offHeap.enabled=true \
//     --conf spark.memory.offHeap.size=4g --conf spark.sql.shuffle.partitions=8 [Bolide's --jars/--conf] \
//     -i scripts/q6-phases.scala
// Data: TPCH_DIR, default data/tpch/sf1 (scripts/tpch-data.sh 1); TPCH_DIR=data/tpch/sf0.01 measures
// what a query costs besides its data. Prints one RESULT line.
import org.apache.spark.scheduler._
import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters._
val ev = new ConcurrentLinkedQueue[(Long, String)]()
spark.sparkContext.addSparkListener(new SparkListener {
  override def onJobStart(e: SparkListenerJobStart) = ev.add((e.time, "start"))
  override def onJobEnd(e: SparkListenerJobEnd) = ev.add((e.time, "end"))
})
spark.sparkContext.setLogLevel("WARN")
spark.read.parquet(sys.env.getOrElse("TPCH_DIR", "data/tpch/sf1") + "/lineitem").createOrReplaceTempView("lineitem")
val q = scala.io.Source.fromFile("tpch/queries/q6.sql").getLines().filterNot(_.startsWith("--")).mkString("\n")
val walls = scala.collection.mutable.ArrayBuffer[Long](); val pres = scala.collection.mutable.ArrayBuffer[Long](); val posts = scala.collection.mutable.ArrayBuffer[Long](); val plans = scala.collection.mutable.ArrayBuffer[Long]()
for (i <- 1 to 70) {
  Thread.sleep(100)
  ev.clear()
  val t0 = System.currentTimeMillis()
  val df = spark.sql(q)
  df.queryExecution.executedPlan
  val t1 = System.currentTimeMillis()
  df.collect()
  val t2 = System.currentTimeMillis()
  Thread.sleep(50)
  val e = ev.asScala.toSeq.sortBy(_._1)
  if (i > 30) {
    walls += t2 - t0; plans += t1 - t0
    pres += e.filter(_._2 == "start").map(_._1).min - t1
    posts += t2 - e.filter(_._2 == "end").map(_._1).max
  }
}
def med(x: Seq[Long]) = x.sorted.apply(x.size / 2)
println(s"RESULT wall=${med(walls.toSeq)} plan=${med(plans.toSeq)} pre=${med(pres.toSeq)} post=${med(posts.toSeq)} job=${med(walls.toSeq) - med(plans.toSeq) - med(pres.toSeq) - med(posts.toSeq)}")
System.exit(0)
