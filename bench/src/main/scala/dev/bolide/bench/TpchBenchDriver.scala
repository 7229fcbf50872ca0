package dev.bolide.bench

import java.io.{BufferedReader, File, FileDescriptor, FileOutputStream, InputStreamReader, PrintStream, PrintWriter}
import java.math.{BigDecimal => JBigDecimal}
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.security.MessageDigest

import scala.collection.mutable.ArrayBuffer
import scala.io.Source

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.{GlobalLimit, LocalLimit, LogicalPlan, Offset, Project, Sort}
import org.apache.spark.sql.execution.{ExtendedMode, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * One engine of `make bench-tpch`: a long-lived Spark session (local mode) that registers the TPC-H
 * tables and answers commands read from stdin, one per line:
 *
 *   run <query> <tag>   runs tpch/queries/<query>.sql once (tag: "warmup" or the iteration number)
 *   quit
 *
 * and answers each with one line on stdout that starts with "@@" (everything else on stdout or
 * stderr is logging):
 *
 *   @@RESULT query=q1 tag=1 seconds=1.234567 rows=4 hash=<sha256/16> ordered=true fallbacks=0 operators=12
 *   @@ERROR query=q1 tag=1 message=<one line>
 *
 * seconds covers parsing, planning and executing every statement of the query file and collecting
 * the answer to the driver; rendering and hashing the answer come after the clock stops. The answer is
 * rendered canonically (decimals exact, doubles to 10 significant digits with a "~" mark, NULL as \N,
 * rows sorted unless the query's result is ordered) and, for the warm-up run or when a run's answer
 * differs from the warm-up's, written to <answers>/<query>.<tag>.txt so the coordinator can compare it
 * with vanilla Spark's.
 *
 * fallbacks counts the operators of the executed plan (final AQE plan, query stages and subqueries
 * included) that are not the engine's own (class name not starting with --native-prefix: Bolide or
 * Comet), leaving out plumbing nodes (the same list as BolidePlanRule.isWrapper, plus Comet's
 * transitions). Empty for vanilla Spark (no prefix).
 *
 * Arguments: --engine NAME --data DIR --queries DIR --answers DIR [--native-prefix P] [--conf k=v]...
 * [--format parquet|iceberg --warehouse DIR]. With iceberg, the tables are the Iceberg copies in the
 * Hadoop catalog `bench_ice` at DIR (written beforehand by `--prepare-iceberg`), plus lineitem_v2del
 * (format v2, 5% of the rows deleted by positional deletes), lineitem_v3dv (v3, the same rows
 * deleted by deletion vectors) and lineitem_parquet (the Parquet files) for the Iceberg bench.
 *
 * `--prepare-iceberg --data DIR --warehouse DIR [--conf k=v]...` writes those copies (vanilla Spark)
 * and exits.
 */
object TpchBenchDriver {
  val Tables = Seq("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")

  // The protocol goes to the real stdout; anything else printing to System.out goes to stderr.
  private val protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8")

  private def say(line: String): Unit = protocol.synchronized { protocol.println(line); protocol.flush() }

  def main(args: Array[String]): Unit = {
    System.setOut(System.err)
    var engine = "spark"
    var data = "data/tpch/sf1"
    var queries = "tpch/queries"
    var answers = "build/bench-answers"
    var prefix = ""
    val confs = ArrayBuffer.empty[(String, String)]
    var format = "parquet"
    var warehouse = ""
    var prepare = false
    val it = args.iterator
    while (it.hasNext) {
      it.next() match {
        case "--engine" => engine = it.next()
        case "--data" => data = it.next()
        case "--queries" => queries = it.next()
        case "--answers" => answers = it.next()
        case "--native-prefix" => prefix = it.next()
        case "--format" => format = it.next()
        case "--warehouse" => warehouse = it.next()
        case "--prepare-iceberg" => prepare = true
        case "--conf" =>
          val kv = it.next(); val i = kv.indexOf('=')
          confs += kv.substring(0, i) -> kv.substring(i + 1)
        case other => throw new IllegalArgumentException(s"unknown argument $other")
      }
    }
    new File(answers).mkdirs()

    val builder = SparkSession.builder().appName(s"bolide-bench-tpch-$engine")
    confs.foreach { case (k, v) => builder.config(k, v) }
    if (format == "iceberg" || prepare) {
      builder.config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(s"spark.sql.catalog.$IcebergCatalog", "org.apache.iceberg.spark.SparkCatalog")
        .config(s"spark.sql.catalog.$IcebergCatalog.type", "hadoop")
        .config(s"spark.sql.catalog.$IcebergCatalog.warehouse", new File(warehouse).getAbsolutePath)
    }
    val spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    if (prepare) {
      prepareIceberg(spark, data, warehouse)
      spark.stop()
      return
    }
    countShuffleBytes(spark)
    // Only for `make bench-memory`: a thread waking every 5 ms (and taking the memory manager's
    // lock, which every engine's tasks take too) slowed the timed queries' tasks by up to a
    // fifth on 2 cores (TPC-H Q6: task run 38-61 ms against 35-48 without it).
    if (sys.env.get("BENCH_OFFHEAP_SAMPLER").contains("1")) offHeapSampler
    format match {
      case "parquet" =>
        // The TPC-H tables, or whatever tables a data directory has (one subdirectory each: the
        // function benchmark's).
        val dirs = Option(new File(data).listFiles()).toSeq.flatten.filter(_.isDirectory).map(_.getName)
        val tables = if (Tables.forall(dirs.contains)) Tables else dirs
        tables.foreach { t => spark.read.parquet(new File(data, t).getAbsolutePath).createOrReplaceTempView(t) }
      case "iceberg" =>
        (Tables ++ IcebergExtra).foreach(t => spark.table(s"$IcebergCatalog.tpch.$t").createOrReplaceTempView(t))
        spark.read.parquet(new File(data, "lineitem").getAbsolutePath).createOrReplaceTempView("lineitem_parquet")
      case other => throw new IllegalArgumentException(s"unknown format $other")
    }
    val engineVersion = engine match {
      case "bolide" => spark.conf.getOption("spark.bolide.version").getOrElse("?")
      case "comet" =>
        Option(spark.sparkContext.getConf.get("spark.comet.version", null))
          .orElse(classVersion("org.apache.spark.CometPlugin")).getOrElse("?")
      case _ => spark.version
    }
    say(s"@@READY engine=$engine spark=${spark.version} version=$engineVersion pid=${ProcessHandle.current().pid()}")

    val in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
    var line = in.readLine()
    while (line != null && line.trim != "quit") {
      val parts = line.trim.split("\\s+")
      if (parts.length >= 2 && parts(0) == "run") {
        val query = parts(1)
        val tag = if (parts.length > 2) parts(2) else "1"
        try say(runQuery(spark, query, tag, new File(queries, s"$query.sql"), new File(answers), prefix))
        catch {
          case t: Throwable =>
            val msg = Option(t.getMessage).getOrElse(t.toString).replaceAll("\\s+", " ").take(500)
            t.printStackTrace(System.err)
            say(s"@@ERROR query=$query tag=$tag message=${t.getClass.getSimpleName}: $msg")
        }
      } else if (line.trim.nonEmpty) {
        say(s"@@ERROR query=? tag=? message=unknown command: ${line.trim}")
      }
      line = in.readLine()
    }
    spark.stop()
  }

  val IcebergCatalog = "bench_ice"
  val IcebergExtra = Seq("lineitem_v2del", "lineitem_v3dv")

  /** The rows the Iceberg bench deletes: 5% of lineitem, spread over every file. */
  val DeletedRows = "(l_orderkey * 7 + l_linenumber) % 20 = 3"

  /** Writes the Iceberg copies of the tables (once: the warehouse's _COMPLETE marks them done). */
  def prepareIceberg(spark: SparkSession, data: String, warehouse: String): Unit = {
    val done = new File(warehouse, "_COMPLETE")
    if (done.exists()) return
    val ns = s"$IcebergCatalog.tpch"
    spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $ns")
    def copy(name: String, from: String, props: Map[String, String]): Unit = {
      spark.sql(s"DROP TABLE IF EXISTS $ns.$name")
      val w = spark.read.parquet(new File(data, from).getAbsolutePath).writeTo(s"$ns.$name").using("iceberg")
      props.foldLeft(w) { case (b, (k, v)) => b.tableProperty(k, v) }.create()
    }
    Tables.foreach(t => copy(t, t, Map("format-version" -> "2")))
    val mor = Map("write.delete.mode" -> "merge-on-read")
    copy("lineitem_v2del", "lineitem", mor + ("format-version" -> "2"))
    spark.sql(s"DELETE FROM $ns.lineitem_v2del WHERE $DeletedRows")
    copy("lineitem_v3dv", "lineitem", mor + ("format-version" -> "3"))
    spark.sql(s"DELETE FROM $ns.lineitem_v3dv WHERE $DeletedRows")
    Files.write(done.toPath, Array.emptyByteArray)
  }

  private def classVersion(cls: String): Option[String] =
    try Option(Class.forName(cls).getPackage.getImplementationVersion) catch { case _: Throwable => None }

  /** The statements of a query file (`--` comments dropped, split on `;`). */
  def statements(file: File): Seq[String] = {
    val src = Source.fromFile(file, "UTF-8")
    val text = try src.getLines().map(l => l.replaceAll("--.*$", "")).mkString("\n") finally src.close()
    text.split(";").map(_.trim).filter(_.nonEmpty).toSeq
  }

  private def isAnswer(stmt: String): Boolean = {
    val s = stmt.toLowerCase.trim
    s.startsWith("select") || s.startsWith("with") || s.startsWith("(") || s.startsWith("from")
  }

  def runQuery(spark: SparkSession, query: String, tag: String, file: File, answers: File,
      prefix: String): String = {
    val stmts = statements(file)
    val answerIdx = stmts.lastIndexWhere(isAnswer)
    require(answerIdx >= 0, s"$file has no SELECT statement")
    shuffleBytes.set(0)
    taskRunMs.set(0)
    taskCpuNs.set(0)
    memSpilled.set(0)
    diskSpilled.set(0)
    offHeapPeak.set(org.apache.spark.BenchListenerBus.offHeapUsed())
    queryStartMs = System.currentTimeMillis()
    val t0 = System.nanoTime()
    var answerDf: DataFrame = null
    var rows: Array[Row] = null
    stmts.zipWithIndex.foreach { case (stmt, i) =>
      val df = spark.sql(stmt)
      if (i == answerIdx) { answerDf = df; rows = df.collect() } else df.collect()
    }
    val seconds = (System.nanoTime() - t0) / 1e9
    if (sys.env.get("BENCH_STAGES").contains("1")) {
      System.err.println(f"[query] $query tag=$tag wall=${(seconds * 1000).toLong}%6d ms")
    }
    // Task-end events arrive on the listener bus after the job: drain it before reading.
    org.apache.spark.BenchListenerBus.drain(spark.sparkContext)

    val ordered = isOrdered(answerDf.queryExecution.optimizedPlan)
    val rendered = rows.map(renderRow)
    val lines = if (ordered) rendered.toSeq else rendered.toSeq.sorted
    val hash = sha(lines)
    val (fallbacks, operators) = countOperators(answerDf.queryExecution.executedPlan, prefix)
    val warmHashFile = new File(answers, s"$query.warmup.hash")
    val write = tag == "warmup" ||
      !warmHashFile.exists() || new String(Files.readAllBytes(warmHashFile.toPath), "UTF-8").trim != hash
    if (write) {
      val pw = new PrintWriter(new File(answers, s"$query.$tag.txt"), "UTF-8")
      try lines.foreach(pw.println) finally pw.close()
      if (tag == "warmup") Files.write(warmHashFile.toPath, hash.getBytes("UTF-8"))
    }
    if (tag == "warmup" && prefix == "Bolide") {
      // The plugin's own count, for cross-checking ours (in the engine's log).
      val ex = answerDf.queryExecution.explainString(ExtendedMode).split("\n")
        .find(_.startsWith("Bolide: ")).getOrElse("no Bolide explain line")
      val names = foreignOperators(answerDf.queryExecution.executedPlan, prefix)._1
      System.err.println(s"[bench] $query: $ex; bench count: ${operators - fallbacks} of $operators" +
        (if (names.isEmpty) "" else s"; not native: ${names.mkString(", ")}"))
    }
    if (tag == "warmup") {
      System.err.println(s"[bench] $query executed plan:\n" +
        finalPlan(answerDf.queryExecution.executedPlan).treeString)
    }
    val fb = if (prefix.isEmpty) "" else fallbacks.toString
    s"@@RESULT query=$query tag=$tag seconds=${"%.6f".format(seconds)} rows=${rows.length} hash=$hash " +
      s"ordered=$ordered fallbacks=$fb operators=$operators shuffleBytes=${shuffleBytes.get()} " +
      s"taskMs=${taskRunMs.get()} taskCpuMs=${taskCpuNs.get() / 1000000} " +
      s"memSpilled=${memSpilled.get()} diskSpilled=${diskSpilled.get()} offHeapPeak=${offHeapPeak.get()}"
  }

  /**
   * The largest use of Spark's off-heap pool (execution + storage, local mode: this JVM's executor)
   * seen while the query ran, sampled every 5 ms by a daemon thread (`make bench-memory` compares
   * it with the process's RSS).
   */
  private val offHeapPeak = new AtomicLong()
  private lazy val offHeapSampler: Thread = {
    val t = new Thread(() => {
      while (true) {
        val used = org.apache.spark.BenchListenerBus.offHeapUsed()
        offHeapPeak.accumulateAndGet(used, (a, b) => math.max(a, b))
        Thread.sleep(5)
      }
    }, "bench-offheap-sampler")
    t.setDaemon(true)
    t.start()
    t
  }

  /** When the query running started (wall clock, ms), for BENCH_STAGES's stage lines. */
  @volatile private var queryStartMs = 0L

  /** Shuffle bytes written by the tasks of the query running (all its statements). */
  private val shuffleBytes = new AtomicLong()
  /**
   * The query's tasks: the sum of their run times (executorRunTime, ms: the executors' busy time,
   * without the driver's planning and scheduling) and of their task threads' CPU (executorCpuTime;
   * work an engine does on threads of its own is not in it).
   */
  private val taskRunMs = new AtomicLong()
  private val taskCpuNs = new AtomicLong()
  /** Bytes the query's tasks spilled (memoryBytesSpilled: in memory before; diskBytesSpilled: written). */
  private val memSpilled = new AtomicLong()
  private val diskSpilled = new AtomicLong()

  def countShuffleBytes(spark: SparkSession): Unit = {
    // BENCH_STAGES=1: one line per completed stage (when it started, wall time, tasks, their run, CPU, GC and
    // deserialization time), to see where a query's time goes.
    if (sys.env.get("BENCH_STAGES").contains("1")) spark.sparkContext.addSparkListener(new SparkListener {
      override def onStageCompleted(e: org.apache.spark.scheduler.SparkListenerStageCompleted): Unit = {
        val i = e.stageInfo
        val m = i.taskMetrics
        val wall = (for (s <- i.submissionTime; c <- i.completionTime) yield c - s).getOrElse(-1L)
        // Submission in ms since the query started (with wall, when the stage ended): the gaps
        // between stages are the driver's (planning, AQE re-optimization, broadcast relations).
        val at = i.submissionTime.map(_ - queryStartMs).getOrElse(-1L)
        if (m != null) System.err.println(f"[stage] ${i.stageId}%4d at=${at}%6d tasks=${i.numTasks}%3d wall=${wall}%5d ms " +
          f"run=${m.executorRunTime}%6d cpu=${m.executorCpuTime / 1000000}%6d gc=${m.jvmGCTime}%5d " +
          f"deser=${m.executorDeserializeTime}%5d ${i.name.take(60)}")
      }
    })
    spark.sparkContext.addSparkListener(new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit =
        if (e.taskMetrics != null) {
          shuffleBytes.addAndGet(e.taskMetrics.shuffleWriteMetrics.bytesWritten)
          taskRunMs.addAndGet(e.taskMetrics.executorRunTime)
          taskCpuNs.addAndGet(e.taskMetrics.executorCpuTime)
          memSpilled.addAndGet(e.taskMetrics.memoryBytesSpilled)
          diskSpilled.addAndGet(e.taskMetrics.diskBytesSpilled)
        }
    })
  }

  /** True when the query's result order is defined (a global sort under projections and limits). */
  def isOrdered(p: LogicalPlan): Boolean = p match {
    case s: Sort => s.global
    case p: Project => isOrdered(p.child)
    case l: GlobalLimit => isOrdered(l.child)
    case l: LocalLimit => isOrdered(l.child)
    case o: Offset => isOrdered(o.child)
    case _ => false
  }

  def finalPlan(p: SparkPlan): SparkPlan = p match {
    case a: AdaptiveSparkPlanExec => a.executedPlan
    case other => other
  }

  /** Plumbing nodes (never operators of their own): BolidePlanRule.isWrapper plus Comet's transitions. */
  def isWrapper(p: SparkPlan): Boolean = {
    val n = p.getClass.getSimpleName
    n.startsWith("AdaptiveSparkPlan") || n.contains("QueryStage") || n == "InputAdapter" ||
      n == "WholeStageCodegenExec" || n.contains("ColumnarToRow") || n.contains("RowToColumnar") ||
      n == "ReusedExchangeExec" || n == "AQEShuffleReadExec" || n == "BolideRowToArrowExec" ||
      n == "BolideCollectLimitExec" || n == "CometSparkToColumnarExec" || n == "CometSparkRowToColumnarExec" ||
      // A subquery's wrapper: its plan is walked and counted.
      n == "SubqueryExec" || n == "ReusedSubqueryExec" || n == "SubqueryBroadcastExec" ||
      n == "SubqueryAdaptiveBroadcastExec"
  }

  /** (operators not run by the engine, operators counted) over the whole executed plan. */
  def countOperators(plan: SparkPlan, prefix: String): (Int, Int) = {
    val (foreign, total) = foreignOperators(plan, prefix)
    (foreign.size, total)
  }

  /** (names of the operators not run by the engine, operators counted). */
  def foreignOperators(plan: SparkPlan, prefix: String): (Seq[String], Int) = {
    var total = 0
    val foreign = scala.collection.mutable.ArrayBuffer.empty[String]
    val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[SparkPlan, java.lang.Boolean]())
    def walk(p: SparkPlan): Unit = {
      if (!seen.add(p)) return
      p match {
        case a: AdaptiveSparkPlanExec => walk(a.executedPlan); return
        case q: QueryStageExec => walk(q.plan); return
        case w if isWrapper(w) =>
        case other =>
          total += 1
          if (prefix.isEmpty || !other.getClass.getSimpleName.startsWith(prefix)) foreign += other.nodeName
      }
      p.children.foreach(walk)
      p.subqueries.foreach(walk)
    }
    walk(plan)
    (foreign.toSeq, total)
  }

  def renderRow(r: Row): String = {
    val sb = new StringBuilder
    var i = 0
    while (i < r.length) {
      if (i > 0) sb += '|'
      sb ++= render(r.get(i))
      i += 1
    }
    sb.toString
  }

  def render(v: Any): String = v match {
    case null => "\\N"
    case d: JBigDecimal => d.toPlainString
    case d: scala.math.BigDecimal => d.bigDecimal.toPlainString
    case d: Double => renderDouble(d)
    case f: Float => renderDouble(f.toDouble)
    case b: Array[Byte] => b.map("%02x".format(_)).mkString
    case r: Row => (0 until r.length).map(i => render(r.get(i))).mkString("{", ",", "}")
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, x) => render(k) + "->" + render(x) }.sorted.mkString("{", ",", "}")
    case s: scala.collection.Seq[_] => s.map(render).mkString("[", ",", "]")
    case other => other.toString
  }

  /** Doubles to 10 significant digits (about 1e-9 relative), marked "~" for a tolerant comparison. */
  def renderDouble(d: Double): String =
    if (d.isNaN) "~NaN"
    else if (d.isInfinite) (if (d > 0) "~Inf" else "~-Inf")
    else if (d == 0.0) "~0"
    else "~" + "%.9e".formatLocal(java.util.Locale.ROOT, d)

  def sha(lines: Seq[String]): String = {
    val md = MessageDigest.getInstance("SHA-256")
    lines.foreach { l => md.update(l.getBytes(StandardCharsets.UTF_8)); md.update('\n'.toByte) }
    md.digest().take(8).map("%02x".format(_)).mkString
  }
}
