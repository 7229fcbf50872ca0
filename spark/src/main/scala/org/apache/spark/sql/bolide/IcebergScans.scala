package org.apache.spark.sql.bolide

import java.io.ByteArrayOutputStream
import java.lang.reflect.Method
import java.nio.charset.StandardCharsets

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.execution.datasources.v2.{BatchScanExec, DataSourceRDDPartition}
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.types.UTF8String

/**
 * Iceberg task extraction: Iceberg Java plans the scan on the driver; the Go engine reads what it
 * planned. Everything is reached by reflection, so the plugin needs no Iceberg at compile time
 * and loads without it. Two parts:
 *  - `writeFields`, at planning and for the block's plan: what every task of the scan shares
 *    (the projected columns with their field ids and initial defaults, the table's fields for
 *    equality deletes, the name mapping, the format version) and a summary of the planned tasks
 *    (file formats, storage schemes) from which Go decides whether it can read them;
 *  - `partitionTasks`, when the block executes (after runtime filtering): each Spark partition's
 *    FileScanTasks with their constants and delete files, in native/iceberg's wire form.
 */
object IcebergScans {
  private val factory = new JsonFactory()
  private val IcebergPackage = "org.apache.iceberg.spark.source."

  def isIceberg(b: BatchScanExec): Boolean = b.scan.getClass.getName.startsWith(IcebergPackage)

  private def json(body: JsonGenerator => Unit): String = {
    val out = new ByteArrayOutputStream()
    val g = factory.createGenerator(out)
    body(g)
    g.close()
    new String(out.toByteArray, StandardCharsets.UTF_8)
  }

  /** The BatchScanExec's fields for the Go engine. */
  def writeFields(g: JsonGenerator, b: BatchScanExec): Unit = {
    g.writeStringField("scanClass", b.scan.getClass.getSimpleName)
    if (!isIceberg(b)) return
    val described = try Right(describe(b)) catch {
      case NonFatal(e) => Left(s"${e.getClass.getSimpleName}: ${e.getMessage}")
    }
    described match {
      case Right((scan, schemes)) =>
        g.writeFieldName("iceberg"); g.writeRawValue(scan)
        g.writeArrayFieldStart("schemes"); schemes.foreach(g.writeString); g.writeEndArray()
      case Left(err) =>
        g.writeObjectFieldStart("iceberg")
        g.writeStringField("scanClass", b.scan.getClass.getSimpleName)
        g.writeStringField("error", err)
        g.writeEndObject()
    }
  }

  // --- reflection -------------------------------------------------------------------------------

  private val methods = new java.util.concurrent.ConcurrentHashMap[(Class[_], String, Seq[Class[_]]), Method]()

  private val boxes: Map[Class[_], Class[_]] = Map(
    java.lang.Integer.TYPE -> classOf[java.lang.Integer], java.lang.Long.TYPE -> classOf[java.lang.Long],
    java.lang.Boolean.TYPE -> classOf[java.lang.Boolean])

  private def accepts(m: Method, args: Seq[Class[_]]): Boolean =
    m.getParameterCount == args.length && m.getParameterTypes.zip(args).forall { case (p, a) =>
      a == null || boxes.getOrElse(p, p).isAssignableFrom(a)
    }

  /** Finds a method by name and argument classes on the class, its superclasses or interfaces. */
  private def method(c: Class[_], name: String, args: Seq[Class[_]]): Method =
    methods.computeIfAbsent((c, name, args), _ => {
      def search(k: Class[_]): Option[Method] = if (k == null) None else {
        k.getDeclaredMethods.find(m => m.getName == name && !m.isBridge && accepts(m, args))
          .orElse(k.getInterfaces.iterator.map(search).collectFirst { case Some(m) => m })
          .orElse(search(k.getSuperclass))
      }
      val m = search(c).getOrElse(throw new NoSuchMethodException(s"${c.getName}.$name"))
      m.setAccessible(true)
      m
    })

  private def classes(args: Seq[AnyRef]): Seq[Class[_]] = args.map(a => if (a == null) null else a.getClass)

  private def call(o: AnyRef, name: String, args: AnyRef*): AnyRef =
    method(o.getClass, name, classes(args)).invoke(o, args: _*)

  private def callStatic(className: String, name: String, args: AnyRef*): AnyRef = {
    val c = Class.forName(className, true, Thread.currentThread().getContextClassLoader)
    method(c, name, classes(args)).invoke(null, args: _*)
  }

  private def str(o: AnyRef): String = if (o == null) null else o.toString

  // --- the shared description -------------------------------------------------------------------

  private def fileTasks(parts: Seq[InputPartition]): (Seq[AnyRef], Int) = {
    var other = 0
    val tasks = parts.flatMap { p =>
      val group = call(p, "taskGroup")
      call(group, "tasks").asInstanceOf[java.util.Collection[AnyRef]].asScala.toSeq.flatMap { t =>
        if (call(t, "isFileScanTask").asInstanceOf[Boolean]) Some(call(t, "asFileScanTask"))
        else { other += 1; None }
      }
    }
    (tasks, other)
  }

  private def sparkType(icebergType: AnyRef): Option[DataType] =
    try Some(callStatic("org.apache.iceberg.spark.SparkSchemaUtil", "convert", icebergType).asInstanceOf[DataType])
    catch { case NonFatal(_) => None }

  private def toSpark(icebergType: AnyRef, v: AnyRef): AnyRef =
    callStatic("org.apache.iceberg.spark.SparkUtil", "internalToSpark", icebergType, v)

  private def scheme(location: String): String = {
    val i = location.indexOf(':')
    if (location.startsWith("/") || i <= 0) "" else location.substring(0, i)
  }

  private def formatVersion(table: AnyRef): Int =
    try callStatic("org.apache.iceberg.TableUtil", "formatVersion", table).asInstanceOf[Integer].intValue
    catch { case NonFatal(_) =>
      val ops = call(table, "operations")
      call(call(ops, "current"), "formatVersion").asInstanceOf[Integer].intValue
    }

  /** The scan's shared description (native/iceberg's Scan) and the storage schemes of its files. */
  private def describe(b: BatchScanExec): (String, Seq[String]) = {
    val scan = b.scan
    val table = call(scan, "table")
    val parts = b.inputPartitions
    val projection = parts.headOption.map(p => call(p, "projection"))
      .getOrElse(try call(scan, "projection") catch { case NonFatal(_) => call(scan, "expectedSchema") })
    val caseSensitive = call(scan, "caseSensitive").asInstanceOf[Boolean]
    val (tasks, other) = fileTasks(parts)
    val dataFormats = mutable.LinkedHashSet.empty[String]
    val deleteFormats = mutable.LinkedHashSet.empty[String]
    val schemes = mutable.LinkedHashSet.empty[String]
    var encrypted = 0
    tasks.foreach { t =>
      val f = call(t, "file")
      dataFormats += str(call(f, "format"))
      schemes += scheme(str(call(f, "location")))
      if (call(f, "keyMetadata") != null) encrypted += 1
      call(t, "deletes").asInstanceOf[java.util.List[AnyRef]].asScala.foreach { d =>
        deleteFormats += str(call(d, "format"))
        schemes += scheme(str(call(d, "location")))
        if (call(d, "keyMetadata") != null) encrypted += 1
      }
    }
    val out = json { g =>
      g.writeStartObject()
      g.writeStringField("scanClass", scan.getClass.getSimpleName)
      g.writeNumberField("formatVersion", formatVersion(table))
      g.writeBooleanField("caseSensitive", caseSensitive)
      g.writeArrayFieldStart("columns")
      b.output.foreach { a =>
        val field = Option(call(projection, "findField", a.name))
          .orElse(Option(call(projection, "caseInsensitiveFindField", a.name)))
          .getOrElse(throw new IllegalStateException(s"column ${a.name} is not in the Iceberg projection"))
        val typ = call(field, "type")
        g.writeStartObject()
        g.writeStringField("name", a.name)
        g.writeNumberField("id", call(field, "fieldId").asInstanceOf[Integer].intValue)
        g.writeStringField("icebergType", str(typ))
        writeDefault(g, field, typ, Some(a.dataType))
        writeNestedFields(g, typ)
        g.writeEndObject()
      }
      g.writeEndArray()
      g.writeArrayFieldStart("tableFields")
      call(call(table, "schema"), "columns").asInstanceOf[java.util.List[AnyRef]].asScala.foreach { f =>
        val typ = call(f, "type")
        g.writeStartObject()
        g.writeNumberField("id", call(f, "fieldId").asInstanceOf[Integer].intValue)
        g.writeStringField("name", str(call(f, "name")))
        g.writeStringField("icebergType", str(typ))
        g.writeFieldName("sparkType")
        sparkType(typ) match {
          case Some(t) => g.writeRawValue(t.json)
          case None => g.writeNull()
        }
        g.writeEndObject()
      }
      g.writeEndArray()
      val props = call(table, "properties").asInstanceOf[java.util.Map[String, String]]
      g.writeStringField("nameMapping", Option(props.get("schema.name-mapping.default")).getOrElse(""))
      g.writeArrayFieldStart("dataFormats"); dataFormats.foreach(g.writeString); g.writeEndArray()
      g.writeArrayFieldStart("deleteFormats"); deleteFormats.foreach(g.writeString); g.writeEndArray()
      g.writeNumberField("otherTasks", other)
      g.writeNumberField("encrypted", encrypted)
      g.writeObjectFieldStart("storage")
      storageProperties(table).foreach { case (k, v) => g.writeStringField(k, v) }
      g.writeEndObject()
      g.writeEndObject()
    }
    (out, schemes.toSeq)
  }

  /** A field's v3 initial default as a Spark literal of its type (null when none). */
  private def writeDefault(g: JsonGenerator, field: AnyRef, typ: AnyRef, dt: Option[DataType]): Unit = {
    val default = try call(field, "initialDefault") catch { case NonFatal(_) => null }
    g.writeFieldName("default")
    if (default == null) g.writeNull()
    else PlanEncoder.writeLiteralValue(g, toSpark(typ, default), dt.getOrElse(
      throw new IllegalStateException(s"field ${str(call(field, "name"))}: no Spark type for Iceberg type $typ")))
  }

  /**
   * The fields inside a nested Iceberg type, recursively, with their field ids: a struct's fields, a
   * list's element, a map's key and value (Type.NestedType.fields()), which the engine matches with
   * the data files' Parquet field ids at every level (native/iceberg's NestedField).
   */
  private def writeNestedFields(g: JsonGenerator, typ: AnyRef): Unit = {
    if (!call(typ, "isNestedType").asInstanceOf[Boolean]) return
    g.writeArrayFieldStart("fields")
    call(call(typ, "asNestedType"), "fields").asInstanceOf[java.util.List[AnyRef]].asScala.foreach { f =>
      val ft = call(f, "type")
      g.writeStartObject()
      g.writeNumberField("id", call(f, "fieldId").asInstanceOf[Integer].intValue)
      g.writeStringField("name", str(call(f, "name")))
      g.writeStringField("icebergType", str(ft))
      writeDefault(g, f, ft, sparkType(ft))
      writeNestedFields(g, ft)
      g.writeEndObject()
    }
    g.writeEndArray()
  }

  /**
   * What the engine needs to reach the table's object store, as Iceberg Java's own reader would:
   * the FileIO's properties (a catalog's s3.* and client.* keys) and the Hadoop configuration's
   * fs.s3a.* keys (spark.hadoop.fs.s3a.* lands there). Only those keys travel; the engine never
   * prints their values (native/objstore redacts credentials).
   */
  private def storageProperties(table: AnyRef): Seq[(String, String)] = {
    val fromIO = try {
      call(call(table, "io"), "properties").asInstanceOf[java.util.Map[String, String]].asScala.toSeq
    } catch { case NonFatal(_) => Nil }
    val fromHadoop = SparkSession.getActiveSession.toSeq.flatMap { s =>
      s.sessionState.newHadoopConf().iterator().asScala.map(e => e.getKey -> e.getValue)
        .filter(_._1.startsWith("fs.s3a.")).toSeq
    }
    (fromIO.filter { case (k, _) => k.startsWith("s3.") || k.startsWith("client.") } ++ fromHadoop)
      .filter(_._2 != null).sortBy(_._1)
  }

  // --- per-partition tasks ----------------------------------------------------------------------

  /** Each Spark partition's FileScanTasks (after runtime filtering), as native/iceberg's JSON. */
  def partitionTasks(b: BatchScanExec): Array[String] = partitionInputs(b).map(p => json(g => writeTasks(g, p)))

  /** Each Spark partition's input partitions (after runtime filtering). */
  def partitionInputs(b: BatchScanExec): Array[Seq[InputPartition]] =
    b.inputRDD.partitions.map {
      case p: DataSourceRDDPartition => p.inputPartitions
      case _ => Nil // the empty RDD Spark plans when runtime filters leave nothing to read
    }

  /**
   * Iceberg Java's reader of task `index` of a partition's tasks (numbered as `writeTasks` lists
   * them), for a file the native reader finds it cannot decode: the input partition it belongs to,
   * copied with a task group of that task alone, read by the scan's own reader factory.
   */
  def readTask(
      factory: org.apache.spark.sql.connector.read.PartitionReaderFactory,
      parts: Seq[InputPartition],
      index: Int): Either[Iterator[org.apache.spark.sql.vectorized.ColumnarBatch], Iterator[InternalRow]] = {
    val (part, task) = parts.iterator.flatMap(p => fileTasks(Seq(p))._1.map(t => (p, t))).drop(index)
      .nextOption().getOrElse(throw new IllegalStateException(s"no Iceberg task $index in this partition"))
    val one = copyWithTask(part, task)
    tasksReadByJava.incrementAndGet()
    // Iceberg reads nested columns with its row reader: their tasks come back as rows.
    if (factory.supportColumnarReads(one)) Left(iterate(factory.createColumnarReader(one)))
    else Right(iterate(factory.createReader(one)))
  }

  /**
   * How many tasks `readTask` handed to Iceberg Java's reader in this JVM: the files a native scan
   * found it could not decode (for diagnostics, and for tests that check a scan read natively).
   */
  val tasksReadByJava = new java.util.concurrent.atomic.AtomicLong()

  private def iterate[T](reader: org.apache.spark.sql.connector.read.PartitionReader[T]): Iterator[T] =
    new Iterator[T] {
      private var ready = false
      private var done = false
      override def hasNext: Boolean = {
        if (!ready && !done) {
          if (reader.next()) ready = true else { done = true; reader.close() }
        }
        ready
      }
      override def next(): T = {
        if (!hasNext) throw new NoSuchElementException
        ready = false
        reader.get()
      }
    }

  /** A copy of an input partition (Java serialization: it is Serializable) whose group is one task. */
  private def copyWithTask(part: InputPartition, task: AnyRef): InputPartition = {
    val bytes = new java.io.ByteArrayOutputStream()
    val out = new java.io.ObjectOutputStream(bytes)
    out.writeObject(part)
    out.close()
    val in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray)) {
      override def resolveClass(d: java.io.ObjectStreamClass): Class[_] =
        Class.forName(d.getName, false, part.getClass.getClassLoader)
    }
    val copy = in.readObject().asInstanceOf[InputPartition]
    val groupClass = Class.forName("org.apache.iceberg.BaseScanTaskGroup", true, part.getClass.getClassLoader)
    val group = groupClass.getConstructor(classOf[java.util.Collection[_]])
      .newInstance(java.util.Collections.singletonList(task))
    val field = {
      var k: Class[_] = copy.getClass
      var f: java.lang.reflect.Field = null
      while (f == null && k != null) {
        f = k.getDeclaredFields.find(_.getName == "taskGroup").orNull
        k = k.getSuperclass
      }
      if (f == null) throw new NoSuchFieldException(s"${copy.getClass.getName}.taskGroup")
      f
    }
    field.setAccessible(true)
    field.set(copy, group)
    copy
  }

  private def writeTasks(g: JsonGenerator, parts: Seq[InputPartition]): Unit = {
    g.writeStartArray()
    parts.foreach { p =>
      val projection = call(p, "projection")
      val (tasks, _) = fileTasks(Seq(p))
      tasks.foreach(t => writeTask(g, t, projection))
    }
    g.writeEndArray()
  }

  private val identity = new java.util.function.BiFunction[AnyRef, AnyRef, AnyRef] {
    override def apply(t: AnyRef, v: AnyRef): AnyRef = v
  }

  /**
   * An identity-partition value in Spark's form. A uuid (a java.util.UUID in Iceberg's partition
   * data, or its 16 bytes) becomes the string Iceberg Java shows it as: UUID.toString, the
   * canonical lower-case 8-4-4-4-12 form, which the engine checks.
   */
  private def constantValue(typ: AnyRef, v: AnyRef): AnyRef = v match {
    case null => null
    case u: java.util.UUID => UTF8String.fromString(u.toString)
    case b: java.nio.ByteBuffer if str(typ) == "uuid" && b.remaining == 16 =>
      UTF8String.fromString(new java.util.UUID(b.getLong(b.position()), b.getLong(b.position() + 8)).toString)
    case _ => toSpark(typ, v)
  }

  private def writeTask(g: JsonGenerator, t: AnyRef, projection: AnyRef): Unit = {
    val f = call(t, "file")
    g.writeStartObject()
    g.writeStringField("path", str(call(f, "location")))
    g.writeStringField("format", str(call(f, "format")))
    g.writeNumberField("start", call(t, "start").asInstanceOf[java.lang.Long].longValue)
    g.writeNumberField("length", call(t, "length").asInstanceOf[java.lang.Long].longValue)
    g.writeNumberField("fileSize", call(f, "fileSizeInBytes").asInstanceOf[java.lang.Long].longValue)
    g.writeNumberField("recordCount", call(f, "recordCount").asInstanceOf[java.lang.Long].longValue)
    g.writeNumberField("specId", call(f, "specId").asInstanceOf[Integer].intValue)
    // Identity-partition values, which Iceberg Java reads instead of the file's column.
    g.writeArrayFieldStart("constants")
    val constants = callStatic("org.apache.iceberg.util.PartitionUtil", "constantsMap", t, identity)
      .asInstanceOf[java.util.Map[Integer, AnyRef]].asScala
    constants.foreach { case (id, v) =>
      val field = if (id.intValue >= 2147483000) null else call(projection, "findField", id)
      if (field != null) {
        val typ = call(field, "type")
        sparkType(typ).foreach { dt =>
          g.writeStartObject()
          g.writeNumberField("id", id.intValue)
          g.writeFieldName("value")
          PlanEncoder.writeLiteralValue(g, constantValue(typ, v), dt)
          g.writeEndObject()
        }
      }
    }
    g.writeEndArray()
    g.writeArrayFieldStart("deletes")
    call(t, "deletes").asInstanceOf[java.util.List[AnyRef]].asScala.foreach { d =>
      g.writeStartObject()
      g.writeStringField("path", str(call(d, "location")))
      g.writeStringField("content", str(call(d, "content")))
      g.writeStringField("format", str(call(d, "format")))
      g.writeNumberField("fileSize", call(d, "fileSizeInBytes").asInstanceOf[java.lang.Long].longValue)
      g.writeNumberField("recordCount", call(d, "recordCount").asInstanceOf[java.lang.Long].longValue)
      g.writeArrayFieldStart("equalityIds")
      Option(call(d, "equalityFieldIds").asInstanceOf[java.util.List[Integer]])
        .foreach(_.asScala.foreach(i => g.writeNumber(i.intValue)))
      g.writeEndArray()
      Option(str(call(d, "referencedDataFile"))).foreach(g.writeStringField("referencedDataFile", _))
      Option(call(d, "contentOffset")).foreach(o => g.writeNumberField("contentOffset", o.asInstanceOf[java.lang.Long].longValue))
      Option(call(d, "contentSizeInBytes")).foreach(o =>
        g.writeNumberField("contentSize", o.asInstanceOf[java.lang.Long].longValue))
      g.writeEndObject()
    }
    g.writeEndArray()
    g.writeEndObject()
  }
}
