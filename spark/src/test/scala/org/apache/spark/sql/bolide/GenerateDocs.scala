package org.apache.spark.sql.bolide

import java.io.{ByteArrayOutputStream, File}
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import com.fasterxml.jackson.core.JsonFactory

import org.apache.spark.SPARK_VERSION
import org.apache.spark.sql.catalyst.analysis.{ExpressionBuilder, FunctionRegistry}
import org.apache.spark.sql.catalyst.expressions.{Generator, RuntimeReplaceable, WindowFunction}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction

/**
 * Writes the generated documents: docs/supported.md (from the Go engine's registries),
 * docs/functions.md (Spark's built-in functions, marked by the engine) and the settings reference
 * inside docs/configuration.md (from BolideConf). `make docs` runs it; DocsSuite fails when the
 * committed files are stale.
 */
object GenerateDocs {
  val Begin = "<!-- BEGIN GENERATED: settings -->"
  val End = "<!-- END GENERATED: settings -->"

  def supported(): String = {
    NativeLoader.load()
    new String(NativeLib.supportDoc(), StandardCharsets.UTF_8)
  }

  /**
   * Every built-in function of Spark's FunctionRegistry with its expression class, group and kind,
   * as JSON for the engine, which decides how it runs each (native/translate/functions.go).
   */
  def functions(): String = {
    NativeLoader.load()
    val out = new ByteArrayOutputStream()
    val g = new JsonFactory().createGenerator(out)
    g.writeStartArray()
    FunctionRegistry.expressions.toSeq.sortBy(_._1).foreach { case (name, (info, _)) =>
      // An ExpressionBuilder is a Scala object: its trait is on the module class (name + "$").
      val classes = Seq(info.getClassName, info.getClassName + "$").flatMap { n =>
        try Some(Class.forName(n)) catch { case _: ClassNotFoundException => None }
      }
      def is(c: Class[_]): Boolean = classes.exists(c.isAssignableFrom)
      // A RuntimeReplaceableAggregate is both: Spark rewrites it, so it is "replaceable", like the
      // names an ExpressionBuilder turns into another expression (ceil, lpad, hour).
      val kind = if (is(classOf[RuntimeReplaceable]) || is(classOf[ExpressionBuilder])) "replaceable"
        else if (is(classOf[AggregateFunction])) "aggregate"
        else if (is(classOf[WindowFunction])) "window"
        else if (is(classOf[Generator])) "generator"
        else "scalar"
      g.writeStartObject()
      g.writeStringField("name", name)
      g.writeStringField("class", info.getClassName)
      g.writeStringField("group", Option(info.getGroup).getOrElse(""))
      g.writeStringField("kind", kind)
      g.writeEndObject()
    }
    g.writeEndArray()
    g.close()
    new String(NativeLib.functionsDoc(out.toByteArray, SPARK_VERSION), StandardCharsets.UTF_8)
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
    Files.write(new File(docs, "functions.md").toPath, functions().getBytes(StandardCharsets.UTF_8))
    val conf = new File(docs, "configuration.md")
    Files.write(conf.toPath, configuration(read(conf)).getBytes(StandardCharsets.UTF_8))
    println(s"wrote ${docs}/supported.md, ${docs}/functions.md and the settings of ${docs}/configuration.md")
  }
}
