package org.apache.spark.sql.bolide

import java.util.concurrent.atomic.AtomicLong

import org.junit.Test
import org.junit.Assert._

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.bolide.shuffle.BolideShuffleExchangeExec
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * A 16 MiB off-heap pool, far below what a high-cardinality GROUP BY over 5 million rows holds:
 * Spark spills and answers; so must Bolide, with the same answer, its native hash aggregate and
 * native shuffle writer spilling (the task's spill metrics and the operators' "spill size" say
 * so). Runs in its own JVM (surefire forks per test class), with its own session.
 */
class SpillSuite {
  import SpillSuite.spark

  private val rows = 5000000L
  private val groups = 2500000L

  private def query(): DataFrame = {
    val base = spark.range(0, rows, 1, 2)
      .selectExpr(s"id % $groups as k", "id as v", "cast(id as decimal(12,2)) / 4 as d")
    base.createOrReplaceTempView("t")
    spark.sql("SELECT k, sum(v) AS s, count(*) AS c, min(v) AS mn, max(v) AS mx, sum(d) AS sd, " +
      "avg(v) AS av FROM t GROUP BY k")
  }

  // Sums that cannot overflow a long over 2.5M rows (ANSI mode would fail the query).
  private val Digest = Seq("count(*)", "sum(cast(hash(*) as bigint))", "sum(xxhash64(*) % 1000000007)")

  private def nodes(p: SparkPlan): Seq[SparkPlan] = p match {
    case a: AdaptiveSparkPlanExec => nodes(a.executedPlan)
    case q: QueryStageExec => nodes(q.plan)
    case other => other +: other.children.flatMap(nodes)
  }

  /** What the tasks of one action spilled, from the listener bus (Spark's task metrics). */
  private final class Spilled {
    val mem = new AtomicLong
    val disk = new AtomicLong
    def run[T](body: => T): T = {
      val listener = new SparkListener {
        override def onTaskEnd(e: SparkListenerTaskEnd): Unit = if (e.taskMetrics != null) {
          mem.addAndGet(e.taskMetrics.memoryBytesSpilled)
          disk.addAndGet(e.taskMetrics.diskBytesSpilled)
        }
      }
      spark.sparkContext.addSparkListener(listener)
      try body finally {
        spark.sparkContext.listenerBus.waitUntilEmpty()
        spark.sparkContext.removeSparkListener(listener)
      }
    }
    override def toString: String = s"spilled ${mem.get} bytes (memory), ${disk.get} (disk)"
  }

  private def metric(p: SparkPlan, node: String, name: String): Long =
    nodes(p).filter(_.nodeName == node).flatMap(_.metrics.get(name)).map(_.value).sum

  /** Runs `q` with Bolide off then on: both digests, the Bolide plan and what it spilled. */
  private def offVsOn(q: () => DataFrame): (Seq[String], Seq[String], SparkPlan, Spilled, Double, Double) = {
    spark.conf.set("spark.bolide.enabled", "false")
    val t0 = System.nanoTime()
    val expected = q().selectExpr(Digest: _*).collect().map(_.toString).toSeq
    val t1 = System.nanoTime()
    spark.conf.set("spark.bolide.enabled", "true")
    val d = q().selectExpr(Digest: _*)
    val spilled = new Spilled
    val actual = try spilled.run(d.collect().map(_.toString).toSeq) catch {
      case e: Exception => throw new AssertionError(s"Bolide failed on\n${d.queryExecution.executedPlan}", e)
    }
    val t2 = System.nanoTime()
    (expected, actual, d.queryExecution.executedPlan, spilled, (t1 - t0) / 1e9, (t2 - t1) / 1e9)
  }

  /** Spark's shuffle under the aggregate: the native hash aggregate spills. */
  @Test def highCardinalityGroupBySpillsAndAnswersAsSpark(): Unit = {
    spark.conf.set("spark.bolide.exec.shuffle.enabled", "false")
    try {
      val (expected, actual, plan, spilled, spark_s, bolide_s) = offVsOn(() => query())
      System.err.println(f"SpillSuite group by (Spark's shuffle): Spark $spark_s%.1f s, Bolide $bolide_s%.1f s, $spilled")
      assertEquals(expected, actual)
      assertTrue(s"expected $groups groups: $expected", expected.head.startsWith(s"[$groups,"))
      assertTrue(s"no BolideHashAggregate in\n$plan", nodes(plan).exists(_.nodeName == "BolideHashAggregate"))
      val spillSize = metric(plan, "BolideHashAggregate", "spillSize")
      assertTrue(s"BolideHashAggregate spill size $spillSize", spillSize > 0)
      assertTrue(spilled.toString, spilled.mem.get > 0 && spilled.disk.get > 0)
    } finally spark.conf.unset("spark.bolide.exec.shuffle.enabled")
  }

  /**
   * The native shuffle under the aggregate: its writer shares the task with the partial
   * aggregate, which holds most of the task's share of the pool, so the writer spills its
   * encoded blocks too.
   */
  @Test def highCardinalityGroupByOverTheNativeShuffleSpills(): Unit = {
    val (expected, actual, plan, spilled, spark_s, bolide_s) = offVsOn(() => query())
    val writerSpill = metric(plan, "BolideShuffleExchange", "spillSize")
    System.err.println(f"SpillSuite group by (native shuffle): Spark $spark_s%.1f s, Bolide $bolide_s%.1f s, " +
      s"$spilled, shuffle writer spill size $writerSpill")
    assertEquals(expected, actual)
    assertTrue(s"expected $groups groups: $expected", expected.head.startsWith(s"[$groups,"))
    assertTrue(s"no BolideHashAggregate in\n$plan", nodes(plan).exists(_.nodeName == "BolideHashAggregate"))
    val written = metric(plan, "BolideShuffleExchange", "shuffleRecordsWritten")
    assertTrue(s"the native shuffle writer wrote $written records in\n$plan", written > 0)
    assertTrue(s"BolideShuffleExchange spill size $writerSpill", writerSpill > 0)
    assertTrue(spilled.toString, spilled.mem.get > 0 && spilled.disk.get > 0)
  }

  /** A shuffle of 5M rows (no aggregate before it): only the native writer holds memory, and spills. */
  @Test def shuffleOfFiveMillionRowsSpills(): Unit = {
    def q(): DataFrame = spark.range(0, rows, 1, 2)
      .selectExpr("id", "xxhash64(id) as h", "concat('row-', cast(id * 7 as string)) as s",
        "cast(id % 1000 as double) / 8 as x")
      .repartition(5, org.apache.spark.sql.functions.col("h"))
    val (expected, actual, plan, spilled, spark_s, bolide_s) = offVsOn(() => q())
    val writerSpill = metric(plan, "BolideShuffleExchange", "spillSize")
    System.err.println(f"SpillSuite shuffle of $rows rows: Spark $spark_s%.1f s, Bolide $bolide_s%.1f s, " +
      s"$spilled, shuffle writer spill size $writerSpill")
    assertEquals(expected, actual)
    assertTrue(s"expected $rows rows: $expected", expected.head.startsWith(s"[$rows,"))
    // The repartition's exchange (the digest's partial results go through a second one).
    val written = nodes(plan).collect {
      case e: BolideShuffleExchangeExec if e.outputPartitioning.isInstanceOf[HashPartitioning] =>
        e.metrics("shuffleRecordsWritten").value
    }.sum
    assertEquals(s"records the native shuffle writer wrote in\n$plan", rows, written)
    assertTrue(s"BolideShuffleExchange spill size $writerSpill", writerSpill > 0)
    assertTrue(spilled.toString, spilled.mem.get > 0 && spilled.disk.get > 0)
  }

  /**
   * A sort-merge join whose build side (5M rows, about 300 MB as Arrow, 20x the pool) is far
   * larger than a task's share: the native join, free to reorder (the join is the query's root,
   * and the query has no ORDER BY and no LIMIT), partitions both sides to disk by key and joins
   * the partitions one at a time (ops/join/grace.go), partitioning again where a partition's
   * build side does not fit either. A left outer join, so that the probe rows without a match go
   * through the partitions too; the digest reads the join's own rows (no aggregate above it).
   */
  @Test def joinWhoseBuildSideIsTwentyTimesThePoolSpills(): Unit = {
    def q(): DataFrame = {
      val b = spark.range(0, rows, 1, 2).selectExpr("id * 2 as bk",
        "concat('build-side-payload-', cast(id * 7 as string), '-', cast(id % 977 as string)) as bs",
        "cast(id % 1000 as double) / 8 as bx")
      val p = spark.range(0, rows / 2, 1, 2).selectExpr("id * 3 as pk", "id as pv")
      p.join(b, p("pk") === b("bk"), "left_outer")
        .selectExpr("pk", "pv", "bk", "xxhash64(bs, bx) as h")
    }
    spark.conf.set("spark.bolide.enabled", "false")
    val t0 = System.nanoTime()
    val expected = longsDigest(q(), 4)
    val t1 = System.nanoTime()
    spark.conf.set("spark.bolide.enabled", "true")
    val d = q()
    val spilled = new Spilled
    val actual = try spilled.run(longsDigest(d, 4)) catch {
      case e: Exception => throw new AssertionError(s"Bolide failed on\n${d.queryExecution.executedPlan}", e)
    }
    val t2 = System.nanoTime()
    val plan = d.queryExecution.executedPlan
    val joinSpill = metric(plan, "BolideSortMergeJoin", "spillSize")
    System.err.println(f"SpillSuite left join, build side of $rows rows: Spark ${(t1 - t0) / 1e9}%.1f s, " +
      f"Bolide ${(t2 - t1) / 1e9}%.1f s, $spilled, join spill size $joinSpill")
    assertEquals(rows / 2, expected._1)
    assertEquals(expected, actual)
    assertTrue(s"no BolideSortMergeJoin in\n$plan", nodes(plan).exists(_.nodeName == "BolideSortMergeJoin"))
    assertTrue(s"BolideSortMergeJoin spill size $joinSpill in\n$plan", joinSpill > 0)
    assertTrue(spilled.toString, spilled.mem.get > 0 && spilled.disk.get > 0)
  }

  /** (rows, sum of a hash of each row's longs) of df's own plan: order-insensitive. */
  private def longsDigest(df: DataFrame, cols: Int): (Long, Long) = {
    val parts = df.queryExecution.toRdd.mapPartitions { it =>
      var h, n = 0L
      it.foreach { r =>
        var x = 17L
        var i = 0
        while (i < cols) { x = x * 1000003 + (if (r.isNullAt(i)) -1L else r.getLong(i)); i += 1 }
        h += x * 0x9E3779B97F4A7C15L
        n += 1
      }
      Iterator((n, h))
    }.collect()
    (parts.map(_._1).sum, parts.map(_._2).sum)
  }

  /**
   * Spark asking a native operator to spill: a Spark sort (by an array, which Bolide does not sort
   * natively) in the same task as the native final aggregate it reads from. The aggregate's groups
   * fit in the task's share (the control: the aggregate alone does not spill), but once the sort
   * holds its rows too the task runs out: Spark calls spill() on the native block's memory
   * consumer, and the aggregate, emitting, writes the groups not emitted yet to disk at its next
   * batch, giving their memory to the sort.
   */
  @Test def sparkSortMakesTheNativeAggregateSpill(): Unit = {
    val aggGroups = 150000L
    def agg(): DataFrame = spark.range(0, 2000000L, 1, 2)
      .selectExpr(s"id % $aggGroups as k", "id as v")
      .groupBy("k").agg(org.apache.spark.sql.functions.sum("v").as("s"),
        org.apache.spark.sql.functions.count("v").as("c"))
    def sorted(): DataFrame = agg().sortWithinPartitions(org.apache.spark.sql.functions.expr("array(k, s)"))
      .select("k", "s", "c")
    spark.conf.set("spark.bolide.exec.shuffle.enabled", "false")
    try {
      val alone = agg()
      longsDigest(alone, 3)
      val aloneSpill = metric(alone.queryExecution.executedPlan, "BolideHashAggregate", "spillSize")
      spark.conf.set("spark.bolide.enabled", "false")
      val expected = longsDigest(sorted(), 3)
      spark.conf.set("spark.bolide.enabled", "true")
      val d = sorted()
      val actual = longsDigest(d, 3)
      val plan = d.queryExecution.executedPlan
      val aggSpill = metric(plan, "BolideHashAggregate", "spillSize")
      System.err.println(s"SpillSuite Spark sort over the native aggregate: aggregate spill size $aggSpill " +
        s"(alone: $aloneSpill)")
      assertEquals(aggGroups, expected._1)
      assertEquals(expected, actual)
      assertTrue(s"no Spark sort in\n$plan", nodes(plan).exists(_.nodeName == "Sort"))
      assertEquals(s"the aggregate alone spilled:\n${alone.queryExecution.executedPlan}", 0L, aloneSpill)
      assertTrue(s"BolideHashAggregate spill size $aggSpill in\n$plan", aggSpill > 0)
    } finally {
      spark.conf.unset("spark.bolide.exec.shuffle.enabled")
      spark.conf.set("spark.bolide.enabled", "true")
    }
  }

  /**
   * A job cancelled while its native sorts spill: its tasks end, and they leave no spill file in
   * the executor's local directories and no execution memory reserved.
   */
  @Test def cancelledWhileSpillingLeavesNothing(): Unit = {
    import scala.concurrent.duration._
    val env = { spark.sparkContext; org.apache.spark.SparkEnv.get }
    val dirs = env.blockManager.diskBlockManager.localDirs.toSeq
    def spillFiles(): Seq[String] = dirs.flatMap(d => Option(d.listFiles()).toSeq.flatten)
      .map(_.getName).filter(_.startsWith("bolide-spill-"))
    assertEquals("spill files before the job", Seq.empty, spillFiles())
    val df = spark.range(0, rows, 1, 2).selectExpr("xxhash64(id) as k", "id as v",
      "concat('row-', cast(id as string)) as s").orderBy("k", "v")
    val sc = spark.sparkContext
    val failure = new java.util.concurrent.atomic.AtomicReference[Throwable]
    val runner = new Thread(() => {
      sc.setJobGroup("bolide-cancel", "cancelled while spilling", interruptOnCancel = true)
      try df.queryExecution.toRdd.foreach(_ => ()) catch { case t: Throwable => failure.set(t) }
    })
    runner.start()
    val deadline = System.nanoTime() + 120.seconds.toNanos
    while (spillFiles().isEmpty && runner.isAlive && System.nanoTime() < deadline) Thread.sleep(20)
    val sawSpill = spillFiles().nonEmpty
    sc.cancelJobGroup("bolide-cancel")
    runner.join(120000)
    assertTrue("the native sort spilled before the cancellation", sawSpill)
    assertTrue(s"the job was cancelled: $failure", failure.get != null)
    // Killed tasks end asynchronously: wait for them to release what they held.
    val until = System.nanoTime() + 60.seconds.toNanos
    while ((spillFiles().nonEmpty || env.memoryManager.executionMemoryUsed > 0) && System.nanoTime() < until) {
      Thread.sleep(50)
    }
    assertEquals("spill files left after the cancelled job", Seq.empty, spillFiles())
    assertEquals("execution memory still reserved", 0L, env.memoryManager.executionMemoryUsed)
  }

  /**
   * Window functions over two partitions of 500,000 rows each (about 20 MB each): the native
   * window cannot hold a partition in its task's share of the pool, so it writes the partition to
   * disk and computes its output as it reads it back (ranks, lag, running and RANGE frames, the
   * whole partition's count), RANGE frames and cume_dist over a peer group as large as the
   * partition included.
   */
  @Test def windowOverPartitionsLargerThanThePoolSpills(): Unit = {
    def q(): DataFrame = {
      spark.range(0, 1000000L, 1, 2)
        .selectExpr("id % 2 as p", "id as v", "concat('row-', cast(id * 7 as string)) as s")
        .createOrReplaceTempView("w")
      spark.sql("SELECT p, v, s, row_number() OVER (PARTITION BY p ORDER BY v) AS rn, " +
        "rank() OVER (PARTITION BY p ORDER BY v DIV 3) AS rk, " +
        "lag(s, 2) OVER (PARTITION BY p ORDER BY v) AS lg, lead(v, 1) OVER (PARTITION BY p ORDER BY v) AS ld, " +
        "sum(v) OVER (PARTITION BY p ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rs, " +
        "avg(v) OVER (PARTITION BY p ORDER BY v DIV 3) AS ra, count(*) OVER (PARTITION BY p) AS c, " +
        // One peer group per partition (500k rows, more than a task's memory): RANGE and cume_dist.
        "sum(v) OVER (PARTITION BY p ORDER BY v DIV 1000000) AS pg, " +
        "cume_dist() OVER (PARTITION BY p ORDER BY v DIV 1000000) AS cd FROM w")
    }
    val (expected, actual, plan, spilled, spark_s, bolide_s) = offVsOn(() => q())
    val windowSpill = metric(plan, "BolideWindow", "spillSize")
    System.err.println(f"SpillSuite window over 2 partitions (and peer groups) of 500k rows: Spark $spark_s%.1f s, Bolide $bolide_s%.1f s, " +
      s"$spilled, window spill size $windowSpill")
    assertEquals(expected, actual)
    assertTrue(s"BolideWindow spill size $windowSpill in\n$plan", windowSpill > 0)
  }

  /**
   * An ORDER BY of 5M rows: each task sorts 2.5M rows (about 100 MB) through its half of the
   * pool, so the native sort writes sorted runs and merges them. The digest follows the order:
   * a polynomial hash over the rows in output order, per partition, combined in partition order,
   * so it does not depend on where the range partitioning cut. The keys (k, v) are unique: the
   * order is total, ties cannot differ.
   */
  @Test def orderByOfFiveMillionRowsSpills(): Unit = {
    def q(): DataFrame = spark.range(0, rows, 1, 2)
      .selectExpr("xxhash64(id) % 1000003 as k", "id as v", "concat('row-', cast(id * 7 as string)) as s",
        "cast(id % 1000 as double) / 8 as x")
      .orderBy("k", "v")
    // Arithmetic modulo 2^64 (Long wraps): H(r1..rn) = sum of x(ri) * B^(n-i), B odd.
    val B = 1000003L
    def pow(b: Long, n: Long): Long = if (n == 0) 1L else {
      val h = pow(b, n / 2)
      if (n % 2 == 0) h * h else h * h * b
    }
    def orderedDigest(df: DataFrame): (Long, Long) = {
      // queryExecution.toRdd runs df's own plan (df.rdd would plan it again), so that plan's
      // metrics are the ones the run set.
      val parts = df.queryExecution.toRdd.mapPartitionsWithIndex { (i, it) =>
        var h, n = 0L
        it.foreach { r =>
          val x = ((r.getLong(0) * 31 + r.getLong(1)) * 31 + r.getUTF8String(2).hashCode) * 31 +
            java.lang.Double.doubleToLongBits(r.getDouble(3))
          h = h * B + x
          n += 1
        }
        Iterator((i, n, h))
      }.collect().sortBy(_._1)
      // H(a ++ b) = H(a) * B^|b| + H(b)
      parts.foldLeft((0L, 0L)) { case ((count, h), (_, n, ph)) => (count + n, h * pow(B, n) + ph) }
    }
    spark.conf.set("spark.bolide.enabled", "false")
    val t0 = System.nanoTime()
    val expected = orderedDigest(q())
    val t1 = System.nanoTime()
    spark.conf.set("spark.bolide.enabled", "true")
    val d = q()
    val spilled = new Spilled
    val actual = try spilled.run(orderedDigest(d)) catch {
      case e: Exception => throw new AssertionError(s"Bolide failed on\n${d.queryExecution.executedPlan}", e)
    }
    val t2 = System.nanoTime()
    val plan = d.queryExecution.executedPlan
    val sortSpill = metric(plan, "BolideSort", "spillSize")
    System.err.println(f"SpillSuite order by of $rows rows: Spark ${(t1 - t0) / 1e9}%.1f s, " +
      f"Bolide ${(t2 - t1) / 1e9}%.1f s, $spilled, sort spill size $sortSpill")
    assertEquals(rows, expected._1)
    assertEquals(expected, actual)
    assertTrue(s"no BolideSort in\n$plan", nodes(plan).exists(_.nodeName == "BolideSort"))
    assertTrue(s"BolideSort spill size $sortSpill in\n$plan", sortSpill > 0)
    assertTrue(spilled.toString, spilled.mem.get > 0 && spilled.disk.get > 0)
  }
}

object SpillSuite {
  lazy val spark: SparkSession = {
    val s = SparkSession.builder()
      .master("local[2]")
      .appName("bolide-spill")
      .config("spark.plugins", BolideConf.PluginClass)
      // Native shuffles wherever Bolide plans them (spark.bolide.exec.shuffle.enabled=false
      // leaves Spark's, which the manager runs as Spark's own).
      .config("spark.shuffle.manager", "org.apache.spark.sql.bolide.shuffle.BolideShuffleManager")
      .config("spark.memory.offHeap.enabled", "true")
      .config("spark.memory.offHeap.size", "16m")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.adaptive.enabled", "false")
      .config("spark.ui.enabled", "false")
      .config("spark.driver.host", "127.0.0.1")
      .getOrCreate()
    s.sparkContext.setLogLevel("WARN")
    s
  }
}
