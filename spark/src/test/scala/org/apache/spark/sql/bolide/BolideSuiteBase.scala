package org.apache.spark.sql.bolide

import java.io.File
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer

import org.junit.Assert._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}

/**
 * One Spark session (local[8], the plugin on, off-heap memory on) shared by every suite of the JVM
 * test run. Every check runs the same query with Bolide off and on, compares the answers, and
 * asserts which native operators ran: a check that would pass with everything in Spark is useless.
 */
object BolideTestSession {
  lazy val spark: SparkSession = {
    val s = SparkSession.builder()
      .master("local[8]")
      .appName("bolide-tests")
      .config("spark.plugins", BolideConf.PluginClass)
      .config("spark.memory.offHeap.enabled", "true")
      .config("spark.memory.offHeap.size", "1g")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.session.timeZone", "UTC")
      .config("spark.driver.host", "127.0.0.1")
      // Iceberg (a test dependency): SQL extensions and a Hadoop catalog in a local warehouse.
      .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
      .config(s"spark.sql.catalog.${SparkChildrenSuite.Catalog}", "org.apache.iceberg.spark.SparkCatalog")
      .config(s"spark.sql.catalog.${SparkChildrenSuite.Catalog}.type", "hadoop")
      .config(s"spark.sql.catalog.${SparkChildrenSuite.Catalog}.warehouse",
        new File(dataDir, "iceberg").getAbsolutePath)
      .getOrCreate()
    s.sparkContext.setLogLevel("WARN")
    s
  }

  lazy val dataDir: File = {
    val d = Files.createTempDirectory("bolide-test-data").toFile
    d.deleteOnExit()
    d
  }
}

trait BolideSuiteBase {
  def spark: SparkSession = BolideTestSession.spark

  def withConf[T](pairs: (String, String)*)(body: => T): T = {
    val old = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally old.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }

  /** The final physical plan's nodes, looking through AQE and query stages. */
  def planNodes(plan: SparkPlan): Seq[SparkPlan] = {
    val out = ArrayBuffer.empty[SparkPlan]
    def walk(p: SparkPlan): Unit = {
      p match {
        case a: AdaptiveSparkPlanExec => walk(a.executedPlan)
        case q: QueryStageExec => walk(q.plan)
        case other =>
          out += other
          other.children.foreach(walk)
      }
    }
    walk(plan)
    out.toSeq
  }

  def nativeOperators(df: DataFrame): Seq[String] =
    planNodes(df.queryExecution.executedPlan).collect { case b: BolideNode => b.nodeName }

  /**
   * Every operator of the executed plan, subqueries included, counted like the explain provider
   * counts them: native operators by their Bolide name, and each operator that stayed in Spark as
   * (node name, the reason Bolide gave). Plumbing nodes (AQE, stages, transitions) are skipped.
   */
  def operatorReport(df: DataFrame): (Seq[String], Seq[(String, String)]) = {
    val native = ArrayBuffer.empty[String]
    val fallback = ArrayBuffer.empty[(String, String)]
    def walk(p: SparkPlan): Unit = {
      p match {
        case a: AdaptiveSparkPlanExec => walk(a.executedPlan); return
        case q: QueryStageExec => walk(q.plan); return
        case b: BolideNode => native += b.nodeName
        case other if !BolidePlanRule.isWrapper(other) =>
          fallback += other.nodeName ->
            other.getTagValue(BolideExec.FallbackReason).getOrElse("not planned by Bolide")
        case _ =>
      }
      p.children.foreach(walk)
      p.subqueries.foreach(walk)
    }
    walk(df.queryExecution.executedPlan)
    (native.toSeq, fallback.toSeq)
  }

  /** Rows as comparable strings (binary as hex, nested rows recursively). */
  def canonical(rows: Seq[Row]): Seq[String] = rows.map(render)

  private def render(v: Any): String = v match {
    case null => "null"
    case b: Array[Byte] => b.map("%02x".format(_)).mkString("0x", "", "")
    case r: Row => r.toSeq.map(render).mkString("[", ",", "]")
    case d: Double if d == 0.0 => if (1 / d < 0) "-0.0" else "0.0"
    case o => o.toString
  }

  /** The first differing positions, for a readable failure. */
  private def diff(e: Seq[String], a: Seq[String]): String = {
    val sizes = s"expected ${e.size} rows, got ${a.size}"
    val firstDiffs = e.zipAll(a, "<none>", "<none>").zipWithIndex
      .filter { case ((x, y), _) => x != y }.take(5)
      .map { case ((x, y), i) => s"  row $i: expected $x\n          got      $y" }
    (sizes +: firstDiffs).mkString("\n")
  }

  /**
   * Runs `sql` with Bolide off, then on; asserts identical answers (sorted unless `ordered`) and that
   * every operator in `expectNative` ran natively (each name at least as often as listed).
   * Returns the Bolide-on DataFrame for further checks.
   */
  def checkNative(sql: String, expectNative: Seq[String], ordered: Boolean = false): DataFrame = {
    val expected = withConf("spark.bolide.enabled" -> "false") {
      val df = spark.sql(sql)
      val rows = df.collect().toSeq
      assertTrue(s"with Bolide off no native operator may run: $sql",
        nativeOperators(df).isEmpty)
      rows
    }
    val df = spark.sql(sql)
    val actual = df.collect().toSeq
    val e = if (ordered) canonical(expected) else canonical(expected).sorted
    val a = if (ordered) canonical(actual) else canonical(actual).sorted
    if (e != a) {
      fail(s"answers differ for: $sql\n${diff(e, a)}\nplan:\n${df.queryExecution.executedPlan}")
    }
    val ran = nativeOperators(df)
    expectNative.groupBy(identity).foreach { case (name, occurrences) =>
      assertTrue(s"$name expected ${occurrences.size}x natively, ran: ${ran.mkString(", ")}\n" +
        s"plan:\n${df.queryExecution.executedPlan}\n${bolideReport(df)}", ran.count(_ == name) >= occurrences.size)
    }
    assertMemoryClean(sql)
    df
  }

  /**
   * In the engine's memory checking mode (BOLIDE_MEMCHECK=1, set for the test run by the pom):
   * once a query's tasks have ended, no native buffer may be left allocated, no misuse (double
   * free, write after free) seen, and the JVM-side Arrow allocators must be back at zero. Tasks of
   * cancelled stages end asynchronously, so a leak is only reported after waiting for them.
   */
  def assertMemoryClean(what: String): Unit = {
    NativeLoader.load()
    if (!NativeLib.memoryChecking()) return
    def report(): String = {
      val native = new String(NativeLib.memoryReport(), java.nio.charset.StandardCharsets.UTF_8)
      val jvm = BolideArrow.root.getAllocatedMemory
      native + (if (jvm == 0) "" else s"\nJVM-side Arrow memory still allocated ($jvm bytes):\n" +
        BolideArrow.root.toVerboseString)
    }
    val deadline = System.nanoTime() + 30L * 1000 * 1000 * 1000
    var r = report()
    while (r.nonEmpty && System.nanoTime() < deadline) {
      Thread.sleep(200)
      r = report()
    }
    if (r.nonEmpty) fail(s"memory left after: $what\n$r")
  }

  /** Bolide's section of the extended explain: what ran natively, what stayed and why. */
  def bolideReport(df: DataFrame): String =
    extendedExplain(df).split("\n").dropWhile(!_.contains("Extended Information")).mkString("\n")

  /** The extended explain text (includes Bolide's native/fallback report). */
  def extendedExplain(df: DataFrame): String = df.queryExecution.explainString(
    org.apache.spark.sql.execution.ExtendedMode)

  /** Walks the cause chain for a Spark error class. */
  def errorClassOf(t: Throwable): Option[String] = {
    var c = t
    while (c != null) {
      c match {
        case s: org.apache.spark.SparkThrowable if s.getCondition != null &&
          !s.getCondition.startsWith("INTERNAL") && s.getCondition != "FAILED_EXECUTE_UDF" =>
          return Some(s.getCondition)
        case _ =>
      }
      c = c.getCause
    }
    None
  }

  def messages(t: Throwable): String = {
    val sb = new StringBuilder
    var c = t
    while (c != null) { sb ++= String.valueOf(c.getMessage) + "\n"; c = c.getCause }
    sb.toString
  }
}
