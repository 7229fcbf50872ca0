package org.apache.spark.sql.bolide

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets
import java.util.{Base64, IdentityHashMap}

import scala.collection.mutable.ArrayBuffer

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}

import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, BoundReference, Expression, Literal, PlanExpression}
import org.apache.spark.sql.catalyst.plans.logical
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.bolide.shuffle.{BolideShuffleExchangeExec, BolideShuffleManager}
import org.apache.spark.sql.execution.{FileSourceScanExec, ScalarSubquery, SparkPlan}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Encodes Spark physical plans for the Go engine, generically: class names, constructor field
 * names and values (reflectively, through productElementNames/productIterator), data types and
 * output attributes. It knows nothing about which classes the engine supports: adding a native
 * expression needs no change here. Hand-written parts: file scans (splits are computed at run
 * time), literal values, and binding of attribute references to child output positions.
 * The wire form is documented in native/plan/wire.go.
 */
object PlanEncoder {
  private val factory = new JsonFactory()

  /**
   * True while encoding a block for execution: Spark has computed the block's subqueries by then,
   * so scalar subqueries travel as literals of their values.
   */
  private val subqueryValues = new scala.util.DynamicVariable[Boolean](false)

  /**
   * The expressions encoded so far, numbered: each encoded expression carries its index ("id"),
   * by which a task asks the JVM to evaluate one the engine dispatches (NativeDispatcher). Equal
   * expressions share their id, so that they encode alike (the engine compares encodings: an
   * Expand evaluates a column once when its projections agree).
   */
  private final class Numbering(val table: ArrayBuffer[Expression]) {
    private val ids = scala.collection.mutable.HashMap.empty[Expression, Int]
    def idOf(e: Expression): Int = {
      def add(): Int = { table += e; table.size - 1 }
      // An expression that cannot be hashed (none is known) gets an id of its own.
      try ids.getOrElseUpdate(e, add()) catch { case scala.util.control.NonFatal(_) => add() }
    }
  }
  private val numbered = new scala.util.DynamicVariable[Numbering](null)

  private def json(body: JsonGenerator => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val g = factory.createGenerator(out)
    body(g)
    g.close()
    out.toByteArray
  }

  /** What the encoder does with a child of a node: encode it, or make it an input leaf. */
  sealed trait ChildMode
  case object Encode extends ChildMode
  final case class AsInput(index: Int) extends ChildMode

  /** The driver-side planning request over a whole plan; node ids come from `ids`. */
  def planRequest(plan: SparkPlan, ids: IdentityHashMap[SparkPlan, Integer], conf: SQLConf): Array[Byte] =
    numbered.withValue(new Numbering(ArrayBuffer.empty)) { json { g =>
      g.writeStartObject()
      g.writeFieldName("conf"); writeConf(g, conf)
      g.writeFieldName("plan"); writeNode(g, plan, ids, _ => Encode)
      g.writeBooleanField("rootOrderFree", rootOrderFree(plan))
      g.writeEndObject()
    } }

  /**
   * Nothing reads the order of the plan's root: the logical plan it comes from has no sort and no
   * limit (a limit's rows depend on the order), and the root has more than one partition (with
   * one, Spark may have dropped a global sort that the root's order satisfied: RemoveRedundantSorts).
   * Without a logical link, its order is taken as read.
   */
  private def rootOrderFree(plan: SparkPlan): Boolean =
    plan.outputPartitioning.numPartitions > 1 && plan.logicalLink.exists { l =>
      !l.exists {
        case _: logical.Sort | _: logical.GlobalLimit | _: logical.LocalLimit | _: logical.Tail |
            _: logical.Offset => true
        case _ => false
      }
    }

  /** The conf snapshot alone, as JSON. */
  def confJson(conf: SQLConf): String =
    new String(json(g => writeConf(g, conf)), StandardCharsets.UTF_8)

  /**
   * Encodes one native block rooted at `top`: Bolide children are encoded (same block), any other
   * child becomes input leaf k (appended to `inputs`), and file scans are recorded by node id.
   * The block's operators are appended to `operators` with their node ids (pre-order, the top
   * is 0), under which the engine reports their metrics. Every encoded expression is numbered
   * by its index in `expressions` (when given), for the ones the engine dispatches to the JVM.
   */
  def encodeBlock(
      top: BolideExec,
      inputs: ArrayBuffer[SparkPlan],
      scans: ArrayBuffer[(Int, SparkPlan)],
      operators: ArrayBuffer[(Int, BolideExec)] = ArrayBuffer.empty,
      expressions: ArrayBuffer[Expression] = null): String = {
    val ids = new IdentityHashMap[SparkPlan, Integer]()
    var next = 0
    def number(p: SparkPlan): Unit = {
      ids.put(p, next); next += 1
      p match {
        case b: BolideExec =>
          operators += ((next - 1, b))
          b.children.foreach(number)
        case _ =>
      }
    }
    number(top)
    val table = if (expressions != null) expressions else ArrayBuffer.empty[Expression]
    val bytes = subqueryValues.withValue(true) { numbered.withValue(new Numbering(table)) { json { g =>
      writeNode(g, top, ids, {
        case _: BolideExec => Encode
        case other => inputs += other; AsInput(inputs.size - 1)
      }, Some(scans))
    } } }
    new String(bytes, StandardCharsets.UTF_8)
  }

  /**
   * Encodes the map side of a native shuffle: the exchange (as the Spark node it stands for) over
   * its child as input 0, with the range bounds Spark sampled, as literal rows of the key types.
   */
  def encodeShuffleWrite(ex: BolideShuffleExchangeExec, bounds: Option[Array[InternalRow]]): String = {
    val ids = new IdentityHashMap[SparkPlan, Integer]()
    ids.put(ex, 0)
    val extra: JsonGenerator => Unit = g => bounds.foreach { rows =>
      val types = ex.outputPartitioning.asInstanceOf[RangePartitioning].ordering.map(_.dataType)
      val schema = StructType(types.zipWithIndex.map { case (t, i) => StructField(s"k$i", t) })
      g.writeArrayFieldStart("rangeBounds")
      rows.foreach { r => g.writeStartArray(); writeRowValues(g, r, schema); g.writeEndArray() }
      g.writeEndArray()
    }
    new String(json(g => writeNode(g, ex, ids, _ => AsInput(0), extraFields = extra)), StandardCharsets.UTF_8)
  }

  /**
   * The per-task request: the block (JSON), the conf, the task's file splits, its Iceberg tasks
   * (JSON, per scan node id) and its index.
   */
  def taskRequest(
      conf: String,
      plan: String,
      files: Seq[(Int, Array[PartitionedFile])],
      partitionSchemas: Map[Int, StructType],
      partitionIndex: Int,
      icebergTasks: Seq[(Int, String)] = Nil,
      broadcasts: Seq[(Int, Long)] = Nil): Array[Byte] = {
    json { g =>
      g.writeStartObject()
      g.writeObjectFieldStart("broadcasts")
      broadcasts.foreach { case (input, id) => g.writeNumberField(input.toString, id) }
      g.writeEndObject()
      g.writeObjectFieldStart("icebergTasks")
      icebergTasks.foreach { case (id, tasks) => g.writeFieldName(id.toString); g.writeRawValue(tasks) }
      g.writeEndObject()
      g.writeFieldName("conf"); g.writeRawValue(conf)
      g.writeFieldName("plan"); g.writeRawValue(plan)
      g.writeObjectFieldStart("files")
      files.foreach { case (id, fs) =>
        g.writeArrayFieldStart(id.toString)
        val ps = partitionSchemas.getOrElse(id, new StructType())
        fs.foreach { f =>
          g.writeStartObject()
          g.writeStringField("path", f.filePath.toUri.toString)
          g.writeNumberField("start", f.start)
          g.writeNumberField("length", f.length)
          g.writeNumberField("fileSize", f.fileSize)
          g.writeArrayFieldStart("partitionValues")
          writeRowValues(g, f.partitionValues, ps)
          g.writeEndArray()
          g.writeEndObject()
        }
        g.writeEndArray()
      }
      g.writeEndObject()
      g.writeNumberField("partitionIndex", partitionIndex)
      writeTaskMemory(g)
      g.writeEndObject()
    }
  }

  /**
   * The executor's off-heap pool (the engine reserves in chunks that scale with it) and its local
   * directories, where spill files go (Spark's DiskBlockManager dirs; removed with the executor).
   */
  private def writeTaskMemory(g: JsonGenerator): Unit = {
    val env = org.apache.spark.SparkEnv.get
    if (env == null) return
    g.writeObjectFieldStart("memory")
    val pool = if (env.conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)) {
      env.conf.getSizeAsBytes("spark.memory.offHeap.size", "0")
    } else 0L
    g.writeNumberField("pool", pool)
    g.writeArrayFieldStart("spillDirs")
    val dirs = try env.blockManager.diskBlockManager.localDirs.toSeq catch { case _: Exception => Nil }
    dirs.foreach(d => g.writeString(d.getAbsolutePath))
    g.writeEndArray()
    g.writeEndObject()
  }

  private def writeConf(g: JsonGenerator, conf: SQLConf): Unit = {
    g.writeStartObject()
    g.writeStringField("sessionTimeZone", conf.sessionLocalTimeZone)
    g.writeBooleanField("ansi", conf.ansiEnabled)
    g.writeBooleanField("caseSensitive", conf.caseSensitiveAnalysis)
    g.writeNumberField("batchSize", BolideConf.BATCH_SIZE.getInt(conf))
    g.writeStringField("shuffleUnavailable", BolideShuffleManager.unavailableReason.getOrElse(""))
    g.writeBooleanField("sortBeforeRepartition", conf.sortBeforeRepartition)
    g.writeObjectFieldStart("enabled")
    BolideConf.operatorEntries.foreach(e => g.writeBooleanField(e.key, e.getBoolean(conf)))
    g.writeEndObject()
    g.writeObjectFieldStart("settings")
    conf.getAllConfs.foreach { case (k, v) =>
      if (k.startsWith("spark.bolide.") || k.startsWith("spark.sql.legacy.") ||
        k.startsWith("spark.sql.parquet.") || k == "spark.sql.icu.caseMappings.enabled" ||
        k == "spark.sql.mapKeyDedupPolicy") {
        g.writeStringField(k, v)
      }
    }
    g.writeEndObject()
    g.writeEndObject()
  }

  private def writeAttr(g: JsonGenerator, a: Attribute): Unit = {
    g.writeStartObject()
    g.writeStringField("name", a.name)
    g.writeNumberField("exprId", a.exprId.id)
    g.writeFieldName("dataType"); g.writeRawValue(a.dataType.json)
    g.writeBooleanField("nullable", a.nullable)
    g.writeEndObject()
  }

  private def writeStructAsAttrs(g: JsonGenerator, s: StructType): Unit = {
    g.writeStartArray()
    s.fields.foreach { f =>
      g.writeStartObject()
      g.writeStringField("name", f.name)
      g.writeNumberField("exprId", -1)
      g.writeFieldName("dataType"); g.writeRawValue(f.dataType.json)
      g.writeBooleanField("nullable", f.nullable)
      g.writeEndObject()
    }
    g.writeEndArray()
  }

  /** The Spark node a plan stands for (a BolideExec stands for its original node). */
  private def sparkNode(p: SparkPlan): SparkPlan = p match {
    case b: BolideExec => b.original
    case s: BolideShuffleExchangeExec => s.sparkExchange
    case other => other
  }

  private def writeNode(
      g: JsonGenerator,
      p: SparkPlan,
      ids: IdentityHashMap[SparkPlan, Integer],
      childMode: SparkPlan => ChildMode,
      scans: Option[ArrayBuffer[(Int, SparkPlan)]] = None,
      extraFields: JsonGenerator => Unit = _ => ()): Unit = {
    val node = sparkNode(p)
    val id: Int = Option(ids.get(p)).map(_.intValue).getOrElse(-1)
    g.writeStartObject()
    g.writeNumberField("id", id)
    g.writeStringField("class", node.getClass.getName)
    g.writeStringField("nodeName", node.nodeName)
    g.writeArrayFieldStart("output")
    node.output.foreach(a => writeAttr(g, a))
    g.writeEndArray()
    val children = p.children
    val input = children.flatMap(_.output)
    g.writeObjectFieldStart("fields")
    node match {
      case s: FileSourceScanExec =>
        scans.foreach(_ += ((id, s)))
        writeFileScanFields(g, s)
      case s: BatchScanExec =>
        scans.foreach(_ += ((id, s)))
        IcebergScans.writeFields(g, s)
      case _ =>
        val originalChildren = node.children.toSet
        node.productElementNames.zip(node.productIterator).foreach {
          case (_, c: SparkPlan) if originalChildren.contains(c) =>
          case (name, v) =>
            g.writeFieldName(name)
            writeValue(g, v, input)
        }
    }
    // The planner's mark that nothing reads this node's order (a hash join may then reorder).
    p match {
      case b: BolideExec if b.unordered => g.writeBooleanField("_unordered", true)
      case _ =>
    }
    extraFields(g)
    g.writeEndObject()
    g.writeArrayFieldStart("children")
    children.foreach { c =>
      childMode(c) match {
        case Encode => writeNode(g, c, ids, childMode, scans)
        case AsInput(k) =>
          g.writeStartObject()
          g.writeNumberField("id", Option(ids.get(c)).map(_.intValue).getOrElse(-1))
          g.writeStringField("class", c.getClass.getName)
          g.writeStringField("nodeName", c.nodeName)
          g.writeArrayFieldStart("output")
          c.output.foreach(a => writeAttr(g, a))
          g.writeEndArray()
          g.writeObjectFieldStart("fields"); g.writeEndObject()
          g.writeArrayFieldStart("children"); g.writeEndArray()
          g.writeNumberField("input", k)
          g.writeEndObject()
      }
    }
    g.writeEndArray()
    g.writeEndObject()
  }

  private def writeFileScanFields(g: JsonGenerator, s: FileSourceScanExec): Unit = {
    val rel = s.relation
    g.writeStringField("format", rel.fileFormat.getClass.getSimpleName)
    g.writeArrayFieldStart("rootPaths")
    rel.location.rootPaths.foreach(p => g.writeString(p.toUri.toString))
    g.writeEndArray()
    g.writeFieldName("requiredSchema"); writeStructAsAttrs(g, s.requiredSchema)
    g.writeFieldName("partitionSchema"); writeStructAsAttrs(g, rel.partitionSchema)
    g.writeBooleanField("bucketed", s.bucketedScan)
    val dataNames = s.requiredSchema.fieldNames.toSet ++ rel.partitionSchema.fieldNames
    g.writeBooleanField("hasMetadataColumns", s.output.exists(a => !dataNames.contains(a.name)))
    g.writeBooleanField("hasDynamicPruning",
      s.partitionFilters.exists(_.exists(_.isInstanceOf[PlanExpression[_]])))
    g.writeFieldName("dataFilters")
    writeValue(g, s.dataFilters, s.output)
    // FileScanRDD's settings for unreadable files (the data source option, else the session's).
    val options = new FileSourceOptions(CaseInsensitiveMap(rel.options))
    g.writeBooleanField("ignoreCorruptFiles", options.ignoreCorruptFiles)
    g.writeBooleanField("ignoreMissingFiles", options.ignoreMissingFiles)
  }

  private def writeValue(g: JsonGenerator, v: Any, input: Seq[Attribute]): Unit = v match {
    case null | None => g.writeNull()
    case Some(x) => writeValue(g, x, input)
    case e: Expression => writeExpr(g, e, input)
    case p: SparkPlan => writeUnsupported(g, p)
    case b: Boolean => g.writeBoolean(b)
    case i: Int => g.writeNumber(i)
    case l: Long => g.writeNumber(l)
    case s: Short => g.writeNumber(s)
    case b: Byte => g.writeNumber(b.toInt)
    case d: Double => if (d.isNaN || d.isInfinite) g.writeString(d.toString) else g.writeNumber(d)
    case f: Float => if (f.isNaN || f.isInfinite) g.writeString(f.toString) else g.writeNumber(f)
    case s: String => g.writeString(s)
    case c: Char => g.writeString(c.toString)
    case dt: DataType =>
      g.writeStartObject(); g.writeFieldName("type"); g.writeRawValue(dt.json); g.writeEndObject()
    case e: scala.Enumeration#Value => g.writeString(e.toString)
    case s: scala.collection.Seq[_] =>
      g.writeStartArray(); s.foreach(writeValue(g, _, input)); g.writeEndArray()
    // A set (InSet's hset): its elements, in the set's iteration order.
    case s: scala.collection.Set[_] =>
      g.writeStartArray(); s.foreach(writeValue(g, _, input)); g.writeEndArray()
    // A class (StaticInvoke's staticObject): its binary name.
    case c: Class[_] => g.writeString(c.getName)
    // A connector function (ApplyFunctionExpression's ScalarFunction, StaticInvoke's
    // scalarFunction): its class and names, in the form of a product.
    case f: org.apache.spark.sql.connector.catalog.functions.BoundFunction =>
      g.writeStartObject()
      g.writeStringField("class", f.getClass.getName)
      g.writeObjectFieldStart("fields")
      g.writeStringField("name", f.name())
      g.writeFieldName("canonicalName")
      try g.writeString(f.canonicalName()) catch { case scala.util.control.NonFatal(_) => g.writeNull() }
      g.writeEndObject()
      g.writeEndObject()
    case p: Product if p.productArity == 0 => g.writeString(p.toString)
    case p: Product =>
      g.writeStartObject()
      g.writeStringField("class", p.getClass.getName)
      g.writeObjectFieldStart("fields")
      p.productElementNames.zip(p.productIterator).foreach { case (n, x) =>
        g.writeFieldName(n); writeValue(g, x, input)
      }
      g.writeEndObject()
      g.writeEndObject()
    case other => writeUnsupported(g, other)
  }

  private def writeUnsupported(g: JsonGenerator, v: Any): Unit = {
    g.writeStartObject(); g.writeStringField("unsupported", v.getClass.getName); g.writeEndObject()
  }

  private def writeExpr(g: JsonGenerator, e: Expression, input: Seq[Attribute]): Unit = e match {
    case s: ScalarSubquery if subqueryValues.value => writeExprFields(g, Literal(s.eval(null), s.dataType), input)
    case _ => writeExprFields(g, e, input)
  }

  private def writeExprFields(g: JsonGenerator, e: Expression, input: Seq[Attribute]): Unit = {
    g.writeStartObject()
    g.writeStringField("class", e.getClass.getName)
    val dt = try Some(e.dataType) catch { case _: Throwable => None }
    g.writeFieldName("dataType")
    dt match {
      case Some(t) => g.writeRawValue(t.json)
      case None => g.writeString("unresolved")
    }
    g.writeBooleanField("nullable", try e.nullable catch { case _: Throwable => true })
    g.writeBooleanField("deterministic", try e.deterministic catch { case _: Throwable => false })
    val numbering = numbered.value
    if (numbering != null) g.writeNumberField("id", numbering.idOf(e))
    e match {
      case a: AttributeReference =>
        g.writeNumberField("exprId", a.exprId.id)
        g.writeStringField("name", a.name)
        g.writeNumberField("ordinal", input.indexWhere(_.exprId == a.exprId))
      case a: Alias =>
        // Its exprId lives in a second parameter list, which productIterator does not show;
        // parents refer to the alias's output by it (an aggregate's aliased grouping keys).
        g.writeNumberField("exprId", a.exprId.id)
        g.writeStringField("name", a.name)
      case b: BoundReference =>
        g.writeNumberField("ordinal", b.ordinal)
      case _ =>
    }
    g.writeObjectFieldStart("fields")
    e match {
      case l: Literal =>
        g.writeFieldName("value"); writeLiteralValue(g, l.value, l.dataType)
      case _ =>
        e.productElementNames.zip(e.productIterator).foreach { case (n, x) =>
          g.writeFieldName(n); writeValue(g, x, input)
        }
    }
    g.writeEndObject()
    g.writeEndObject()
  }

  private def writeRowValues(g: JsonGenerator, row: InternalRow, schema: StructType): Unit = {
    schema.fields.zipWithIndex.foreach { case (f, i) =>
      if (row == null || row.isNullAt(i)) g.writeNull()
      else writeLiteralValue(g, row.get(i, f.dataType), f.dataType)
    }
  }

  /** Literal values by type (native/plan/wire.go documents the forms). */
  def writeLiteralValue(g: JsonGenerator, v: Any, dt: DataType): Unit = (v, dt) match {
    case (null, _) => g.writeNull()
    case (b: Boolean, BooleanType) => g.writeBoolean(b)
    case (x: Byte, ByteType) => g.writeNumber(x.toInt)
    case (x: Short, ShortType) => g.writeNumber(x.toInt)
    case (x: Int, IntegerType | DateType) => g.writeNumber(x)
    case (x: Long, LongType | TimestampType | TimestampNTZType) => g.writeNumber(x)
    case (x: Float, FloatType) =>
      g.writeStartObject(); g.writeNumberField("bits", java.lang.Float.floatToRawIntBits(x).toLong & 0xffffffffL); g.writeEndObject()
    case (x: Double, DoubleType) =>
      g.writeStartObject(); g.writeNumberField("bits", java.lang.Double.doubleToRawLongBits(x)); g.writeEndObject()
    case (d: Decimal, t: DecimalType) =>
      val bd = d.toJavaBigDecimal.setScale(t.scale)
      g.writeStartObject()
      g.writeStringField("unscaled", bd.unscaledValue.toString)
      g.writeNumberField("precision", t.precision)
      g.writeNumberField("scale", t.scale)
      g.writeEndObject()
    case (s: UTF8String, StringType) =>
      g.writeStartObject(); g.writeStringField("b64", Base64.getEncoder.encodeToString(s.getBytes)); g.writeEndObject()
    case (s: UTF8String, _: StringType) =>
      g.writeStartObject(); g.writeStringField("b64", Base64.getEncoder.encodeToString(s.getBytes)); g.writeEndObject()
    case (b: Array[Byte], BinaryType) =>
      g.writeStartObject(); g.writeStringField("b64", Base64.getEncoder.encodeToString(b)); g.writeEndObject()
    case (other, t) =>
      g.writeStartObject(); g.writeStringField("unsupported", s"${t.simpleString} literal ${other.getClass.getName}"); g.writeEndObject()
  }
}
