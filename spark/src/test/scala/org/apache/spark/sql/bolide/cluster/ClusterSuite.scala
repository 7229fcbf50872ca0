package org.apache.spark.sql.bolide.cluster

import java.io.{BufferedReader, File, InputStreamReader}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.TimeUnit

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.bolide.GeneratedData
import org.apache.spark.sql.bolide.tpch.TpchSuite

/**
 * Bolide on a real multi-process cluster: shuffle blocks and broadcasts fetched across executor
 * JVMs over loopback, which local mode never does (its blocks never leave the process).
 *
 * One SparkContext per JVM, and this JVM has the shared local-mode session, so the cluster run is
 * a separate driver JVM (ClusterCheck, on this test class path) whose SparkSession uses Spark's
 * `local-cluster[2,1,1024]` master: an in-process standalone master and two workers, each starting
 * one executor JVM (1 core, 1024 MiB, 256 MiB off-heap) from a Spark 4.1.3 distribution
 * (scripts/spark-dist.sh, PyPI's pyspark sdist, cached under data/spark/). The executors load the
 * plugin from spark/target/classes (what `mvn test` compiled; the Go engine is a resource there,
 * copied from build/native-resources) plus arrow-c-data, the plugin's one dependency that Spark's
 * jars lack (the dist JAR shades it in), through spark.executor.extraClassPath.
 *
 * ClusterCheck runs the 22 TPC-H queries (SF 0.01) and shuffle cases, Bolide off vs on, and exits
 * non-zero when an answer differs, an expected native operator did not run, a task failed, the
 * tasks did not run on both executors, or the native exchanges fetched no remote blocks. This
 * test checks its exit code and shows its output (and the executors' logs) on failure.
 */
class ClusterSuite {
  import ClusterSuite._

  @Test def queriesOnALocalCluster(): Unit = {
    val root = GeneratedData.repoRoot
    val dist = sparkDist(root)
    val tpch = TpchSuite.dataDir
    val classes = new File(root, "spark/target/classes")
    val testClasses = new File(root, "spark/target/test-classes")
    val lib = new File(classes, "bolide/native")
    assertTrue(s"no native library under $lib (make native, then mvn test)",
      lib.isDirectory && Files.walk(lib.toPath).iterator().asScala.exists(_.toString.endsWith("libbolide.so")))

    val cp = Option(System.getProperty("surefire.test.class.path")).getOrElse(System.getProperty("java.class.path"))
    val entries = cp.split(File.pathSeparator).filter(_.nonEmpty).toSeq
    val arrowCData = entries.filter(e => new File(e).getName.startsWith("arrow-c-data"))
    assertTrue(s"arrow-c-data is not on the test class path: $cp", arrowCData.nonEmpty)
    val executorCp = (Seq(classes.getPath, testClasses.getPath) ++ arrowCData).mkString(File.pathSeparator)

    // A Spark home for this run: the cached distribution's bin/ and jars/ linked, and its own work/
    // (where the workers put the executors' stdout and stderr), so the cache stays untouched. One
    // per run (spark/target/cluster-home-*, deleted when the run passes, kept with the logs if not).
    val target = new File(root, "spark/target")
    target.mkdirs()
    val home = Files.createTempDirectory(target.toPath, "cluster-home-").toFile
    assertTrue(s"cannot create $home/work", new File(home, "work").mkdirs())
    Seq("bin", "jars").foreach { d =>
      Files.createSymbolicLink(new File(home, d).toPath, new File(dist, d).getAbsoluteFile.toPath)
    }

    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    // The module openings Spark needs on JDK 17, as surefire's argLine gives them to this JVM.
    val jvmFlags = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filter { a =>
      a.startsWith("--add-opens") || a.startsWith("-XX:+IgnoreUnrecognizedVMOptions") ||
        a.startsWith("-Djdk.reflect") || a.startsWith("-Dio.netty")
    }
    val cmd = Seq(java, "-Xmx1536m") ++ jvmFlags ++ Seq("-cp", cp, "org.apache.spark.sql.bolide.cluster.ClusterCheck",
      tpch.getPath, new File(root, "tpch/queries").getPath, executorCp)
    val pb = new ProcessBuilder(cmd.asJava).directory(root).redirectErrorStream(true)
    pb.environment().put("SPARK_HOME", home.getPath)
    // What bin/load-spark-env.sh sets in a distribution; without it the workers' executor command
    // builder looks for a source build (launcher/target/scala-*) to tell the Scala version.
    pb.environment().put("SPARK_SCALA_VERSION", scala.util.Properties.versionNumberString.split('.').take(2).mkString("."))
    // Master, workers, executors and the driver on loopback.
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1")
    pb.environment().remove("SPARK_CONF_DIR")
    // The driver exits when its stdin (a pipe this JVM holds open) ends: no orphans if we die.
    pb.environment().put("BOLIDE_CLUSTER_STDIN_WATCHDOG", "1")

    val start = System.nanoTime()
    println(s"ClusterSuite: SPARK_HOME=$home (-> $dist), executor class path $executorCp")
    val p = pb.start()
    val out = ArrayBuffer.empty[String]
    val reader = new Thread(() => {
      val r = new BufferedReader(new InputStreamReader(p.getInputStream, StandardCharsets.UTF_8))
      var l = r.readLine()
      while (l != null) {
        out.synchronized(out += l)
        println(s"[cluster] $l")
        l = r.readLine()
      }
    })
    reader.setDaemon(true)
    reader.start()
    val finished = p.waitFor(TimeoutMinutes, TimeUnit.MINUTES)
    if (!finished) {
      // The driver and the executor JVMs it started (the workers are threads of the driver).
      p.toHandle.descendants().forEach(h => h.destroyForcibly())
      p.destroyForcibly()
      p.waitFor(30, TimeUnit.SECONDS)
    }
    reader.join(10000)
    p.getOutputStream.close()
    val seconds = (System.nanoTime() - start) / 1e9
    val output = out.synchronized(out.toList)
    println(f"ClusterSuite: the cluster run took $seconds%.1f s")
    val why =
      if (!finished) Some(s"the cluster run did not finish within $TimeoutMinutes minutes (killed)")
      else if (p.exitValue() != 0) Some(s"the cluster run exited with ${p.exitValue()}")
      else if (!output.contains("CLUSTER CHECK PASSED")) Some("the cluster run did not report CLUSTER CHECK PASSED")
      else None
    if (why.isEmpty) deleteRecursively(home)
    why.foreach { w =>
      val perQuery = output.filter(l => l.startsWith("ok  ") || l.startsWith("FAIL") || l.startsWith("cluster up"))
      fail(s"$w (the whole output is above, prefixed [cluster]; executor logs in $home/work)\n---- queries ----\n${perQuery.mkString("\n")}\n" +
        s"---- problems ----\n${problemsOf(output)}\n" + summaryOf(output) + "\n" + executorLogs(new File(home, "work")))
    }
  }
}

object ClusterSuite {
  val TimeoutMinutes = 10L

  /** Runs scripts/spark-dist.sh (it prints the Spark home last) and returns that directory. */
  def sparkDist(root: File): File = {
    val p = new ProcessBuilder("bash", "scripts/spark-dist.sh")
      .directory(root).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val out = new String(p.getInputStream.readAllBytes(), StandardCharsets.UTF_8).trim
    assertEquals(s"scripts/spark-dist.sh failed (stdout: $out)", 0, p.waitFor())
    val d = new File(out.split("\n").last)
    assertTrue(s"no Spark distribution in $d", new File(d, "_COMPLETE").isFile && new File(d, "jars").isDirectory)
    d
  }

  /** The problems ClusterCheck printed, each with the details that follow it, up to the summary. */
  private def problemsOf(output: Seq[String]): String = {
    val i = output.indexWhere(_.startsWith("PROBLEM "))
    if (i < 0) "(none reported)"
    else output.drop(i).takeWhile(_ != "---- summary ----")
      .filterNot(l => l.startsWith("ok  ") || l.startsWith("FAIL")).take(600).mkString("\n")
  }

  /** ClusterCheck's summary, or the last lines of its output when it printed none (it crashed). */
  private def summaryOf(output: Seq[String]): String = {
    val i = output.indexOf("---- summary ----")
    if (i >= 0) output.drop(i).mkString("\n")
    else ("---- driver output (last 60 lines) ----" +: output.takeRight(60)).mkString("\n")
  }

  /** The tail of every executor's stderr (work/<app>/<executor>/stderr). */
  private def executorLogs(work: File): String = {
    val logs = Option(work.listFiles()).toSeq.flatten.flatMap(app => Option(app.listFiles()).toSeq.flatten)
      .map(e => new File(e, "stderr")).filter(_.isFile).sortBy(_.getPath)
    logs.map { f =>
      val lines = Files.readAllLines(f.toPath, StandardCharsets.UTF_8).asScala
      val interesting = lines.filter(l => l.contains("ERROR") || l.contains("Exception") || l.contains("WARN"))
      s"---- $f: ${lines.size} lines; last 80 ----\n${lines.takeRight(80).mkString("\n")}\n" +
        s"---- $f: first 40 ERROR/WARN/Exception lines ----\n${interesting.take(40).mkString("\n")}"
    }.mkString("\n")
  }

  private def deleteRecursively(f: File): Unit = {
    if (Files.isSymbolicLink(f.toPath)) { f.delete(); return }
    Option(f.listFiles()).foreach(_.foreach(deleteRecursively))
    f.delete()
  }
}
