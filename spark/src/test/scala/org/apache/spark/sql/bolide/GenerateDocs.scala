package org.apache.spark.sql.bolide

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

/**
 * Writes the generated documents: docs/supported.md (from the Go engine's registries) and the
 * settings reference inside docs/configuration.md (from BolideConf). `make docs` runs it; DocsSuite
 * fails when the committed files are stale.
 */
object GenerateDocs {
  val Begin = "<!-- BEGIN GENERATED: settings -->"
  val End = "<!-- END GENERATED: settings -->"

  def supported(): String = {
    NativeLoader.load()
    new String(NativeLib.supportDoc(), StandardCharsets.UTF_8)
  }

  def configuration(current: String): String = {
    val i = current.indexOf(Begin)
    val j = current.indexOf(End)
    require(i >= 0 && j > i, s"docs/configuration.md lacks the $Begin / $End markers")
    current.substring(0, i + Begin.length) + "\n" + BolideConf.markdown + current.substring(j)
  }

  def read(f: File): String = new String(Files.readAllBytes(f.toPath), StandardCharsets.UTF_8)

  def main(args: Array[String]): Unit = {
    val docs = new File(args.headOption.getOrElse("docs"))
    Files.write(new File(docs, "supported.md").toPath, supported().getBytes(StandardCharsets.UTF_8))
    val conf = new File(docs, "configuration.md")
    Files.write(conf.toPath, configuration(read(conf)).getBytes(StandardCharsets.UTF_8))
    println(s"wrote ${docs}/supported.md and the settings of ${docs}/configuration.md")
  }
}
