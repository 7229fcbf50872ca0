package org.apache.spark.sql.bolide.cluster

import java.io.{File, PrintWriter, StringWriter}
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.spark.{Success, TaskEndReason}
import org.apache.spark.scheduler._
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.bolide.{BolideConf, BolideSuiteBase, TempDirs}
import org.apache.spark.sql.bolide.shuffle.{BolideShuffleExchangeExec, BolideShuffleManager}
import org.apache.spark.sql.bolide.tpch.TpchSuite
import org.apache.spark.sql.execution.SparkPlanInfo
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate

/**
 * The driver of ClusterSuite, run in its own JVM (one SparkContext per JVM, and the surefire JVM
 * has the shared local-mode one): a SparkSession on Spark's `local-cluster[2,1,1024]` master (an
 * in-process standalone master and two workers, each launching one executor JVM with 1 core and
 * 1024 MiB from $SPARK_HOME), so that shuffle blocks and broadcasts really travel between
 * processes over loopback. Each query runs with Bolide off, then on, in the same session:
 *
 *  - the answers must be the same (TpchSuite.compare: sorted unless the query has a global order);
 *  - with Bolide off no native operator may run; with Bolide on the expected native operators must
 *    have run (BolideShuffleExchange for the shuffle cases, BolideScan for TPC-H);
 *  - no task may fail and no executor may be lost with Bolide on (a retried task would hide a bug);
 *  - over the whole run: tasks ran on both executors, and the native exchanges' reducers fetched
 *    remote blocks (their remoteBlocksFetched / remoteBytesRead read metrics, cross-checked with
 *    the tasks' shuffle read metrics from a SparkListener), per shuffle case marked so as well.
 *
 * Usage: ClusterCheck <tpch data dir> <tpch queries dir> <executor class path> (environment:
 * BOLIDE_CLUSTER_CASES=<regex> runs only the matching cases). Prints one line per query and a
 * summary; exits 0 when every check passed, 1 with every problem listed otherwise.
 */
object ClusterCheck extends BolideSuiteBase {
  private val Ex = "BolideShuffleExchange"

  @volatile private var session: SparkSession = _
  override def spark: SparkSession = session

  /** One query, checked off vs on. keys/limit as in TpchSuite.OrderBy (Nil: unordered). */
  final case class Case(
      name: String,
      sql: String,
      keys: Seq[String] = Nil,
      limit: Option[Int] = None,
      conf: Seq[(String, String)] = Nil,
      expectNative: Seq[String] = Nil,
      expectRemote: Boolean = false)

  /** What a Bolide-on run did, for the per-query line and the totals. */
  final case class Stats(
      name: String,
      rows: Int,
      offMs: Long,
      onMs: Long,
      native: Seq[String],
      sparkExchanges: Int,
      exchangeRemoteBlocks: Long,
      exchangeRemoteBytes: Long,
      exchangeLocalBlocks: Long,
      taskRemoteBlocks: Long,
      taskRemoteBytes: Long,
      executors: Set[String],
      ok: Boolean)

  // ---- the listener: tasks' executors and shuffle reads, failures, AQE's stage plans ----

  object Listener extends SparkListener {
    val executors: java.util.Set[String] = ConcurrentHashMap.newKeySet[String]()
    val nativeSeen: java.util.Set[String] = ConcurrentHashMap.newKeySet[String]()
    val failures = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val remoteBlocks = new AtomicLong
    val remoteBytes = new AtomicLong
    val localBlocks = new AtomicLong
    val tasks = new AtomicLong

    def reset(): Unit = {
      executors.clear(); nativeSeen.clear(); failures.clear()
      remoteBlocks.set(0); remoteBytes.set(0); localBlocks.set(0); tasks.set(0)
    }

    override def onTaskEnd(e: SparkListenerTaskEnd): Unit = {
      tasks.incrementAndGet()
      if (e.taskInfo != null) executors.add(e.taskInfo.executorId)
      e.reason match {
        case Success =>
        case r: TaskEndReason =>
          failures.add(s"task ${e.taskInfo.taskId} (stage ${e.stageId}, executor ${e.taskInfo.executorId}) " +
            s"failed: ${r.toString.take(3000)}")
      }
      if (e.taskMetrics != null) {
        val r = e.taskMetrics.shuffleReadMetrics
        remoteBlocks.addAndGet(r.remoteBlocksFetched)
        remoteBytes.addAndGet(r.remoteBytesRead)
        localBlocks.addAndGet(r.localBlocksFetched)
      }
    }

    override def onExecutorRemoved(e: SparkListenerExecutorRemoved): Unit =
      failures.add(s"executor ${e.executorId} removed: ${e.reason}")

    override def onOtherEvent(e: SparkListenerEvent): Unit = e match {
      case u: SparkListenerSQLAdaptiveExecutionUpdate => walk(u.sparkPlanInfo)
      case _ =>
    }

    private def walk(i: SparkPlanInfo): Unit = {
      if (i.nodeName.startsWith("Bolide")) nativeSeen.add(i.nodeName)
      i.children.foreach(walk)
    }
  }

  private val problems = ArrayBuffer.empty[String]
  private val stats = ArrayBuffer.empty[Stats]

  private def problem(name: String, what: String): Unit = {
    problems += s"[$name] $what"
    println(s"PROBLEM [$name] $what")
  }

  def main(args: Array[String]): Unit = {
    if (args.length != 3) {
      System.err.println("usage: ClusterCheck <tpch data dir> <tpch queries dir> <executor class path>")
      sys.exit(2)
    }
    val Array(tpchDir, queriesDir, executorClassPath) = args
    exitWithParent()
    val t0 = System.nanoTime()
    val exit = try {
      session = SparkSession.builder()
        .master("local-cluster[2,1,1024]")
        .appName("bolide-cluster-check")
        .config("spark.plugins", BolideConf.PluginClass)
        .config("spark.shuffle.manager", BolideShuffleManager.ClassName)
        // Executors load the plugin (and the Go engine, a resource of spark/target/classes) from
        // their system class path, before any task runs: spark.plugins and spark.shuffle.manager
        // are instantiated while the executor starts.
        .config("spark.executor.extraClassPath", executorClassPath)
        .config("spark.executor.memory", "1024m")
        .config("spark.memory.offHeap.enabled", "true")
        .config("spark.memory.offHeap.size", "256m")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // Both executors are on one host: without this (local-cluster's default too), a reducer
        // could read the other executor's shuffle files from disk instead of fetching them.
        .config("spark.shuffle.readHostLocalDisk", "false")
        // One core per executor: do not hold tasks back for a busy preferred executor.
        .config("spark.locality.wait", "0s")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
      val sc = session.sparkContext
      sc.setLogLevel("WARN")
      sc.addSparkListener(Listener)
      waitForExecutors(2)
      println(f"cluster up in ${(System.nanoTime() - t0) / 1e9}%.1f s: master ${sc.master}, " +
        s"${sc.statusTracker.getExecutorInfos.length - 1} executors registered; Spark ${sc.version}; " +
        s"Bolide ${session.conf.get(BolideConf.VERSION_KEY, "?")}")

      runAll(tpchDir, queriesDir)
      corruptBlockCase()
      checkExecutorMemory()
      summary(System.nanoTime() - t0)
      if (problems.isEmpty) 0 else 1
    } catch {
      case t: Throwable =>
        println(s"CLUSTER CHECK ABORTED: ${trace(t)}")
        1
    } finally {
      if (session != null) try session.stop() catch { case _: Throwable => }
    }
    System.out.flush()
    sys.exit(exit)
  }

  /**
   * ClusterSuite keeps this JVM's stdin open: end of input means the test JVM is gone (killed,
   * timed out), so stop too rather than leave a driver and its executors behind. (The workers are
   * threads here; stopping the context in the shutdown hook ends the executor JVMs.)
   */
  private def exitWithParent(): Unit = {
    if (System.getenv("BOLIDE_CLUSTER_STDIN_WATCHDOG") != "1") return
    val t = new Thread(() => {
      try while (System.in.read() >= 0) {} catch { case _: Throwable => }
      System.err.println("ClusterCheck: stdin closed (the test JVM is gone); exiting")
      sys.exit(3)
    }, "parent-watchdog")
    t.setDaemon(true)
    t.start()
  }

  private def waitForExecutors(n: Int): Unit = {
    val deadline = System.nanoTime() + 120L * 1000 * 1000 * 1000
    def count = spark.sparkContext.statusTracker.getExecutorInfos.length - 1 // the driver is listed too
    while (count < n && System.nanoTime() < deadline) Thread.sleep(200)
    if (count < n) {
      throw new IllegalStateException(s"only $count of $n executors registered within 120 s " +
        s"(their logs: ${System.getenv("SPARK_HOME")}/work/app-*/*/stderr)")
    }
  }

  // ---- the queries ----

  /** Shuffle shapes, each with AQE on and off, then two joins (AQE on, Spark's default). */
  private def shuffleCases: Seq[Case] = {
    val shapes = Seq(
      // Partial aggregates in 8 map tasks (both executors), 4 reducers each reading from both.
      Case("groupby-range8",
        "SELECT id % 97 AS k, count(*) AS c, sum(id) AS s, min(id * 3) AS m FROM range(0, 200000, 1, 8) GROUP BY id % 97",
        expectNative = Seq(Ex), expectRemote = true),
      // More partitions than rows: most reducers get nothing.
      Case("repartition16-10rows",
        "SELECT /*+ REPARTITION(16, id) */ id, cast(id AS string) AS s, spark_partition_id() AS p FROM range(0, 10, 1, 4)",
        expectNative = Seq(Ex)),
      // Range partitioning: the bounds are sampled on the driver, every key to Spark's partition.
      Case("orderby-range",
        "SELECT id, id % 7 AS k, concat('v', cast(id * 3 AS string)) AS s FROM range(0, 60000, 1, 8) ORDER BY k DESC, id",
        keys = Seq("k", "id"), expectNative = Seq(Ex), expectRemote = true))
    val joins = Seq(
      // Both join sides shuffled (no broadcast): two native exchanges feeding one join.
      Case("shuffled-join",
        "SELECT a.k, count(*) AS c, sum(b.v) AS s FROM " +
          "(SELECT id % 5000 AS k FROM range(0, 100000, 1, 8)) a JOIN " +
          "(SELECT id AS k, id * 2 AS v FROM range(0, 5000, 1, 3)) b ON a.k = b.k GROUP BY a.k",
        conf = Seq("spark.sql.autoBroadcastJoinThreshold" -> "-1"), expectNative = Seq(Ex, Ex), expectRemote = true),
      // A broadcast built from one executor's tasks, read by both.
      Case("broadcast-join",
        "SELECT b.g, count(*) AS c, sum(a.id) AS s FROM range(0, 100000, 1, 8) a JOIN " +
          "(SELECT id AS k, id % 10 AS g FROM range(0, 1000, 1, 2)) b ON a.id % 1000 = b.k GROUP BY b.g",
        expectNative = Seq(Ex, "BolideBroadcastHashJoin"), expectRemote = true))
    val both = for (aqe <- Seq("true", "false"); c <- shapes) yield
      c.copy(name = s"${c.name} aqe=$aqe", conf = c.conf :+ ("spark.sql.adaptive.enabled" -> aqe))
    both ++ joins.map(c => c.copy(conf = c.conf :+ ("spark.sql.adaptive.enabled" -> "true")))
  }

  /**
   * Files the native reader cannot decode (Hadoop's LZ4 codec) next to files it reads: an
   * executor's task asks the driver plugin for Spark's reader of the scan, built on the driver
   * only then (SparkFileReaders), and reads those files with it.
   */
  private def fallbackCases: Seq[Case] = {
    val d = TempDirs.create("bolide-cluster-codecs")
    withConf("spark.bolide.enabled" -> "false") {
      Seq("snappy", "lz4").zipWithIndex.foreach { case (codec, k) =>
        withConf("spark.sql.parquet.compression.codec" -> codec) {
          spark.range(k * 20000, (k + 1) * 20000, 1, 2).selectExpr("id", "concat('v', id % 1000) AS s",
            s"'$codec' AS codec").write.mode("append").partitionBy("codec").parquet(d.getAbsolutePath)
        }
      }
    }
    spark.read.parquet(d.getAbsolutePath).createOrReplaceTempView("codecs_t")
    Seq(Case("spark-reader-fallback", "SELECT codec, count(*) AS c, sum(id) AS s, max(s) AS m FROM codecs_t GROUP BY codec",
      keys = Seq("codec"), expectNative = Seq("BolideScan")))
  }

  private def tpchCases(queriesDir: String): Seq[Case] = (1 to 22).map { n =>
    val sql = new String(Files.readAllBytes(new File(queriesDir, s"q$n.sql").toPath), StandardCharsets.UTF_8)
    val (keys, limit) = TpchSuite.OrderBy(n)
    Case(f"tpch-q$n%02d", sql, keys, limit, expectNative = Seq("BolideScan"))
  }

  private def runAll(tpchDir: String, queriesDir: String): Unit = {
    TpchSuite.Tables.foreach(t => spark.read.parquet(new File(tpchDir, t).getPath).createOrReplaceTempView(t))
    // BOLIDE_CLUSTER_CASES=<regex> runs only the cases whose names match (while debugging one).
    val only = Option(System.getenv("BOLIDE_CLUSTER_CASES")).filter(_.nonEmpty).map(_.r)
    val cases = (shuffleCases ++ fallbackCases ++ tpchCases(queriesDir)).filter(c => only.forall(_.findFirstIn(c.name).isDefined))
    if (cases.isEmpty) problem("cases", s"no case matches BOLIDE_CLUSTER_CASES=${only.getOrElse("")}")
    cases.foreach(run)
  }

  private def run(c: Case): Unit = {
    val sc = spark.sparkContext
    val t0 = System.nanoTime()
    val before = problems.size
    val expected = try withConf(c.conf :+ ("spark.bolide.enabled" -> "false"): _*) {
      val df = spark.sql(c.sql)
      val rows = df.collect().toSeq
      val ran = nativeOperators(df)
      if (ran.nonEmpty) problem(c.name, s"with Bolide off native operators ran: ${ran.mkString(", ")}")
      rows
    } catch {
      case t: Throwable =>
        problem(c.name, s"failed with Bolide OFF: ${trace(t)}")
        println(s"FAIL ${c.name} (with Bolide off)")
        return
    }
    val t1 = System.nanoTime()
    sc.listenerBus.waitUntilEmpty()
    Listener.reset()
    withConf(c.conf :+ ("spark.bolide.enabled" -> "true"): _*) {
      val df = spark.sql(c.sql)
      val actual = try df.collect().toSeq catch {
        case t: Throwable =>
          sc.listenerBus.waitUntilEmpty()
          problem(c.name, s"failed with Bolide ON: ${trace(t)}\n${taskFailures()}plan:\n${planText(df)}")
          val s = Stats(c.name, 0, ms(t1 - t0), ms(System.nanoTime() - t1), Nil, 0, 0, 0, 0,
            Listener.remoteBlocks.get, Listener.remoteBytes.get, Listener.executors.asScala.toSet, ok = false)
          stats += s
          println(line(s) + " (failed)")
          return
      }
      val t2 = System.nanoTime()
      sc.listenerBus.waitUntilEmpty()
      val keyIdx = c.keys.map(df.schema.fieldIndex)
      TpchSuite.compare(expected, actual, keyIdx, c.limit).foreach { p =>
        problem(c.name, s"Bolide's answer differs from Spark's\n$p\nBolide plan:\n${planText(df)}")
      }
      // The final plan's native operators, plus those only in stages AQE reported while executing
      // (AQE may drop stages that ran from the final plan: q17's empty side becomes an EmptyRelation).
      val (finalNative, _) = operatorReport(df)
      val native = finalNative ++ Listener.nativeSeen.asScala.filterNot(finalNative.contains)
      c.expectNative.groupBy(identity).foreach { case (name, times) =>
        if (native.count(_ == name) < times.size) {
          problem(c.name, s"$name expected ${times.size}x natively, ran: ${native.distinct.sorted.mkString(", ")}\n" +
            s"plan:\n${planText(df)}")
        }
      }
      if (!Listener.failures.isEmpty) problem(c.name, s"with Bolide on:\n${taskFailures()}")
      val exchanges = distinct(planNodes(df.queryExecution.executedPlan).collect { case e: BolideShuffleExchangeExec => e })
      def sum(metric: String) = exchanges.map(_.metrics(metric).value).sum
      val sparkExchanges = planNodes(df.queryExecution.executedPlan).count(_.isInstanceOf[ShuffleExchangeExec])
      val s = Stats(c.name, actual.size, ms(t1 - t0), ms(t2 - t1), native, sparkExchanges,
        sum("remoteBlocksFetched"), sum("remoteBytesRead"), sum("localBlocksFetched"),
        Listener.remoteBlocks.get, Listener.remoteBytes.get, Listener.executors.asScala.toSet, ok = false)
      if (c.expectRemote && (s.exchangeRemoteBlocks == 0 || s.exchangeRemoteBytes == 0)) {
        problem(c.name, s"no remote blocks read by the native exchanges (remoteBlocksFetched " +
          s"${s.exchangeRemoteBlocks}, remoteBytesRead ${s.exchangeRemoteBytes}, localBlocksFetched " +
          s"${s.exchangeLocalBlocks}; tasks ran on executors ${s.executors.toSeq.sorted.mkString(",")})\n" +
          s"plan:\n${planText(df)}")
      }
      val done = s.copy(ok = problems.size == before)
      stats += done
      println(line(done))
    }
  }

  /**
   * A damaged native shuffle block on an executor: the reduce task that reads it fails with a
   * FetchFailedException (the frame's CRC-32C is checked as it is fetched), Spark recomputes the
   * map output, and the query still answers right.
   */
  private def corruptBlockCase(): Unit = {
    val name = "corrupt-block"
    if (Option(System.getenv("BOLIDE_CLUSTER_CASES")).exists(r => r.nonEmpty && r.r.findFirstIn(name).isEmpty)) return
    val sc = spark.sparkContext
    withConf("spark.sql.adaptive.enabled" -> "false") {
      val sql = "SELECT k, count(*) AS c, sum(id) AS s FROM " +
        "(SELECT /*+ REPARTITION(4, k) */ id % 13 AS k, id FROM range(0, 40000, 1, 4)) GROUP BY k"
      val expected = withConf("spark.bolide.enabled" -> "false")(canonical(spark.sql(sql).collect().toSeq).sorted)
      val df = spark.sql(sql)
      // One RDD run twice: the second run finds the map outputs and only reads them.
      val rdd = df.queryExecution.toRdd
      def answer(): Seq[String] =
        rdd.map(r => s"[${r.getLong(0)},${r.getLong(1)},${r.getLong(2)}]").collect().toSeq.sorted
      if (answer() != expected) { problem(name, "the first run's answer differs from Spark's"); return }
      val ids = planNodes(df.queryExecution.executedPlan).collect { case e: BolideShuffleExchangeExec =>
        e.shuffleDependency.shuffleId
      }
      if (ids.isEmpty) { problem(name, s"no native shuffle:\n${planText(df)}"); return }
      val damaged = sc.parallelize(0 until 16, 16).map(_ => ShuffleDamage(ids)).collect().sum
      if (damaged == 0) { problem(name, "no shuffle data file found on the executors"); return }
      sc.listenerBus.waitUntilEmpty()
      Listener.reset()
      val second = try answer() catch {
        case t: Throwable => problem(name, s"failed after the damage: ${trace(t)}\n${taskFailures()}"); return
      }
      sc.listenerBus.waitUntilEmpty()
      if (second != expected) problem(name, "the answer after the damage differs from Spark's")
      val fetchFailures = Listener.failures.asScala.count(_.contains("FetchFailed"))
      if (fetchFailures == 0) problem(name, s"no FetchFailed task end after the damage:\n${taskFailures()}")
      println(s"${if (problems.exists(_.startsWith(s"[$name]"))) "FAIL" else "ok  "} $name: " +
        s"$damaged file damages, $fetchFailures fetch failures, answer after recomputing " +
        s"${if (second == expected) "equal to" else "differs from"} Spark's")
      Listener.reset()
    }
  }

  private def distinct[T <: AnyRef](xs: Seq[T]): Seq[T] = {
    val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[T, java.lang.Boolean]())
    xs.filter(seen.add)
  }

  private def line(s: Stats): String = {
    val counts = s.native.groupBy(identity).toSeq.sortBy(_._1).map { case (n, xs) => s"${n.stripPrefix("Bolide")}x${xs.size}" }
    f"${if (s.ok) "ok  " else "FAIL"} ${s.name}%-32s rows ${s.rows}%6d  off ${s.offMs}%6d ms  on ${s.onMs}%6d ms  " +
      f"executors ${s.executors.toSeq.sorted.mkString(",")}%-4s native exchanges: remote blocks ${s.exchangeRemoteBlocks}%4d " +
      f"(${s.exchangeRemoteBytes}%8d B) local ${s.exchangeLocalBlocks}%4d; tasks: remote blocks ${s.taskRemoteBlocks}%4d; " +
      f"Spark exchanges ${s.sparkExchanges}; native: ${counts.mkString(" ")}"
  }

  private def summary(nanos: Long): Unit = {
    val executors = stats.flatMap(_.executors).toSet
    val remoteBlocks = stats.map(_.exchangeRemoteBlocks).sum
    val remoteBytes = stats.map(_.exchangeRemoteBytes).sum
    val localBlocks = stats.map(_.exchangeLocalBlocks).sum
    val tpch = stats.filter(_.name.startsWith("tpch-"))
    val tpchNative = tpch.flatMap(_.native)
    if (executors.size < 2) {
      problem("cluster", s"Bolide-on tasks ran on ${executors.size} executor(s) only: ${executors.mkString(",")}")
    }
    if (remoteBlocks == 0 || remoteBytes == 0) {
      problem("cluster", s"the native exchanges fetched no remote blocks over the whole run " +
        s"(remoteBlocksFetched $remoteBlocks, remoteBytesRead $remoteBytes, localBlocksFetched $localBlocks)")
    }
    if (tpch.nonEmpty && !tpchNative.contains(Ex)) {
      problem("tpch", s"no TPC-H query ran a $Ex; native operators: ${tpchNative.distinct.sorted.mkString(", ")}")
    }
    val byOp = tpchNative.groupBy(identity).toSeq.sortBy(-_._2.size).map { case (n, xs) => s"$n ${xs.size}" }
    println("---- summary ----")
    println(s"queries: ${stats.count(_.ok)}/${stats.size} ok (each run with Bolide off and on); " +
      f"total ${nanos / 1e9}%.1f s")
    println(s"Bolide-on tasks ran on executors: ${executors.toSeq.sorted.mkString(", ")}")
    println(s"native exchanges, all queries: remoteBlocksFetched $remoteBlocks, remoteBytesRead $remoteBytes, " +
      s"localBlocksFetched $localBlocks; tasks' shuffle reads: remoteBlocksFetched " +
      s"${stats.map(_.taskRemoteBlocks).sum}, remoteBytesRead ${stats.map(_.taskRemoteBytes).sum}")
    println(s"TPC-H queries with a native exchange: ${tpch.count(_.native.contains(Ex))}/${tpch.size}, " +
      s"with a Spark exchange left: ${tpch.count(_.sparkExchanges > 0)}/${tpch.size}")
    println(s"TPC-H native operators (count over the TPC-H plans): ${byOp.mkString(", ")}")
    if (problems.isEmpty) println("CLUSTER CHECK PASSED")
    else {
      println(s"CLUSTER CHECK FAILED: ${problems.size} problem(s)")
      problems.foreach(p => println(s"- ${p.split("\n").head}"))
    }
  }

  /**
   * In the engine's memory checking mode (BOLIDE_MEMCHECK=1, which the executors inherit from the
   * test run): once every query is done, no native buffer may be left allocated on an executor,
   * and its JVM-side Arrow allocator must be back at zero (BolideSuiteBase.assertMemoryClean, on
   * the executors). Tasks of cancelled stages end asynchronously, so leaks are only reported after
   * waiting for them.
   */
  private def checkExecutorMemory(): Unit = {
    val deadline = System.nanoTime() + 30L * 1000 * 1000 * 1000
    var reports: Map[String, String] = Map.empty
    var checked = Set.empty[String]
    do {
      if (reports.nonEmpty) Thread.sleep(500)
      val all = spark.sparkContext.parallelize(0 until 16, 16).mapPartitions(_ => Iterator(ExecutorMemory.report()))
        .collect().toSeq
      checked = all.map(_._1).toSet
      reports = all.filter(_._2.nonEmpty).toMap
    } while (reports.nonEmpty && !reports.values.exists(_ == ExecutorMemory.NotChecking) &&
      System.nanoTime() < deadline)
    if (reports.values.exists(_ == ExecutorMemory.NotChecking)) {
      println(s"executor memory: not checked (BOLIDE_MEMCHECK is not 1 on the executors)")
    } else {
      reports.foreach { case (e, r) => problem("memory", s"executor $e: native memory left after all queries:\n$r") }
      println(s"executor memory: checked on executors ${checked.toSeq.sorted.mkString(", ")}: " +
        (if (reports.isEmpty) "clean" else s"LEAKS on ${reports.keys.toSeq.sorted.mkString(", ")}"))
    }
  }

  // ---- helpers ----

  private def ms(nanos: Long): Long = nanos / 1000000

  private def taskFailures(): String =
    if (Listener.failures.isEmpty) "" else Listener.failures.asScala.take(5).map("  " + _ + "\n").mkString

  private def planText(df: DataFrame): String = try {
    s"${df.queryExecution.executedPlan}\n${bolideReport(df)}"
  } catch { case t: Throwable => s"(no plan: ${t.getMessage})" }

  /** The stack trace, each throwable (causes, suppressed) with its message and first 8 frames. */
  private def trace(t: Throwable): String = {
    val w = new StringWriter
    t.printStackTrace(new PrintWriter(w))
    var frames = 0
    w.toString.split("\n").filter { l =>
      val frame = l.trim.startsWith("at ") || l.trim.startsWith("...")
      frames = if (frame) frames + 1 else 0
      !frame || frames <= 8
    }.take(120).mkString("\n")
  }
}

/** Runs on the executors: what of the engine's memory is still allocated (empty when clean). */
object ExecutorMemory {
  val NotChecking = "(memory checking is off)"

  def report(): (String, String) = {
    import org.apache.spark.sql.bolide.{BolideArrow, NativeLib, NativeLoader}
    NativeLoader.load()
    val id = org.apache.spark.SparkEnv.get.executorId
    if (!NativeLib.memoryChecking()) return id -> NotChecking
    val native = new String(NativeLib.memoryReport(), StandardCharsets.UTF_8)
    val jvm = BolideArrow.root.getAllocatedMemory
    id -> (native + (if (jvm == 0) "" else s"\nJVM-side Arrow memory still allocated ($jvm bytes):\n" +
      BolideArrow.root.toVerboseString))
  }
}

/** Runs on an executor: damages the data files of the given shuffles there. */
object ShuffleDamage {
  def apply(shuffleIds: Seq[Int]): Int = {
    val files = org.apache.spark.SparkEnv.get.blockManager.diskBlockManager.getAllFiles()
      .filter(f => f.getName.endsWith(".data") && f.length() > 64 &&
        shuffleIds.exists(id => f.getName.startsWith(s"shuffle_${id}_")))
    files.foreach { f =>
      // The same bytes every time: another task damaging the file again leaves it as damaged.
      val raf = new java.io.RandomAccessFile(f, "rw")
      try {
        raf.seek(raf.length() / 2)
        raf.write(Array.fill[Byte](16)(0xa5.toByte))
      } finally raf.close()
    }
    files.size
  }
}
