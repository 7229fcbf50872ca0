package org.apache.spark.sql.bolide

import java.lang.ref.WeakReference
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import org.apache.arrow.memory.BufferAllocator

import scala.util.control.NonFatal

import org.apache.spark.SparkEnv
import org.apache.spark.internal.Logging
import org.apache.spark.rpc.{RpcCallContext, RpcEnv, ThreadSafeRpcEndpoint}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.RpcUtils

/**
 * Spark's own reader of a native scan's files, for the files the Go engine finds it cannot
 * decode: it reads them as the scan would have in Spark (the read function FileSourceScanExec
 * builds for its FileScanRDD: its options, filters and partition values), and hands the batches to
 * Go like a Spark child's.
 *
 * Building that function costs the driver about 10 ms per scan (a copy of the Hadoop
 * configuration, serialized and broadcast), which is most of what a short query spends between its
 * plan and its job, and almost no file ever needs it. So it is built on the driver the first time a
 * task asks for it (`SparkFileReaders.resolve`): a task on a remote executor asks the driver's
 * endpoint (Spark's RPC, as its map output tracker is asked), a task in the driver's JVM (local
 * mode) builds it directly. The driver keeps the scan for as long as the RDD that reads it lives
 * there.
 */
final case class SparkFileReader(key: Long, schema: StructType) {
  @transient private lazy val function = SparkFileReaders.resolve(key)

  def read(file: PartitionedFile): Iterator[InternalRow] = function(file)
}

object SparkFileReader {
  /** The deferred reader of a native scan; `owner` (the driver's RDD) keeps it resolvable. */
  def of(scan: FileSourceScanExec): (SparkFileReader, AnyRef) = {
    val builder = new SparkFileReaders.Builder(scan)
    (SparkFileReader(SparkFileReaders.register(builder), StructType(scan.requiredSchema.fields ++
      scan.relation.partitionSchema.fields)), builder)
  }
}

/** The driver's deferred readers, and the executors' way to them. */
object SparkFileReaders extends Logging {
  type Read = PartitionedFile => Iterator[InternalRow]

  /** What a remote executor asks the driver's endpoint. */
  final case class Request(key: Long) extends Serializable

  /** Builds, once, the read function FileSourceScanExec.inputRDD would have built. */
  final class Builder(scan: FileSourceScanExec) {
    @volatile private var built: Read = _

    def get(): Read = {
      if (built == null) synchronized {
        if (built == null) {
          val rel = scan.relation
          builds.incrementAndGet()
          built = rel.sparkSession.withActive {
            rel.fileFormat.buildReaderWithPartitionValues(rel.sparkSession, rel.dataSchema, rel.partitionSchema,
              scan.requiredSchema, pushedDownFilters(scan),
              rel.options + (FileFormat.OPTION_RETURNING_BATCH -> scan.supportsColumnar.toString),
              scan.getHadoopConf(rel.sparkSession, rel.options))
          }
        }
      }
      built
    }
  }

  /**
   * The scan's filters pushed to the reader (protected in FileSourceScanLike, public in bytecode).
   * They only let the reader skip row groups: the native Filter above the scan evaluates them all,
   * so without them (another Spark build) the reader still answers right.
   */
  private def pushedDownFilters(scan: FileSourceScanExec): Seq[org.apache.spark.sql.sources.Filter] =
    try classOf[FileSourceScanExec].getMethod("pushedDownFilters").invoke(scan)
      .asInstanceOf[Seq[org.apache.spark.sql.sources.Filter]]
    catch { case NonFatal(_) => Nil }

  private val nextKey = new AtomicLong()
  /** Readers built in this driver so far (tests check they are built only when a file needs one). */
  val builds = new AtomicLong()
  // Weak: the driver's BolideBlockRDD holds the builder; when the RDD is gone, so is the entry.
  private val builders = new ConcurrentHashMap[Long, WeakReference[Builder]]()

  /** The driver's endpoint that builds readers for remote executors' tasks. */
  val EndpointName = "BolideSparkFileReaders"
  private var endpointIn: RpcEnv = _

  private final class Endpoint(override val rpcEnv: RpcEnv) extends ThreadSafeRpcEndpoint {
    override def receiveAndReply(context: RpcCallContext): PartialFunction[Any, Unit] = {
      case Request(key) => try context.reply(build(key)) catch { case NonFatal(e) => context.sendFailure(e) }
    }
  }

  private def ensureEndpoint(): Unit = synchronized {
    val env = SparkEnv.get
    if (env != null && (endpointIn ne env.rpcEnv)) {
      env.rpcEnv.setupEndpoint(EndpointName, new Endpoint(env.rpcEnv))
      endpointIn = env.rpcEnv
    }
  }

  def register(b: Builder): Long = {
    ensureEndpoint()
    builders.entrySet().removeIf(_.getValue.get() == null)
    val key = nextKey.incrementAndGet()
    builders.put(key, new WeakReference(b))
    key
  }

  /** In the driver: the read function of `key`, built now if it was not yet. */
  def build(key: Long): Read = {
    val b = Option(builders.get(key)).flatMap(r => Option(r.get())).getOrElse(
      throw new IllegalStateException(s"Bolide: Spark's reader of native scan $key is no longer known to the driver"))
    b.get()
  }

  /**
   * The read function of `key`: from the driver's registry when this JVM is the driver's (local
   * mode, or a block run in the driver), else asked of the driver's endpoint.
   */
  def resolve(key: Long): Read = {
    if (builders.containsKey(key)) {
      // Built on a thread of its own: a task thread's SQLConf is the task's read-only copy.
      val result = new java.util.concurrent.atomic.AtomicReference[Either[Throwable, Read]]()
      val t = new Thread(() => result.set(try Right(build(key)) catch { case e: Throwable => Left(e) }),
        s"bolide-spark-reader-$key")
      t.setDaemon(true)
      t.start()
      t.join()
      result.get().fold(e => throw e, identity)
    } else {
      logInfo(s"Bolide: asking the driver for Spark's reader of native scan $key")
      val env = SparkEnv.get
      RpcUtils.makeDriverRef(EndpointName, env.conf, env.rpcEnv).askSync[Read](Request(key))
    }
  }
}

/**
 * Iceberg Java's reader of an Iceberg scan's tasks: the scan's reader factory, its output schema,
 * and this Spark task's input partitions.
 */
final case class IcebergTaskReader(
    factory: org.apache.spark.sql.connector.read.PartitionReaderFactory,
    schema: StructType,
    parts: Seq[org.apache.spark.sql.connector.read.InputPartition])

/**
 * The task's fallback: `files(scanId)(i)` is the task's split i of that scan; for an Iceberg scan,
 * i numbers its FileScanTasks.
 */
class BolideFileFallback(
    readers: Map[Int, SparkFileReader],
    files: Map[Int, Array[PartitionedFile]],
    batchSize: Int,
    allocator: BufferAllocator,
    own: AutoCloseable => Unit,
    iceberg: Map[Int, IcebergTaskReader] = Map.empty) extends NativeFileFallback {

  override def open(scanId: Int, fileIndex: Int): NativeInput = iceberg.get(scanId) match {
    case Some(r) => IcebergScans.readTask(r.factory, r.parts, fileIndex) match {
      case Left(batches) => new ArrowInput(batches, r.schema, allocator)
      case Right(rows) =>
        val batches = new ArrowBatches(rows, r.schema, batchSize, allocator)
        own(batches)
        new ArrowInput(batches, r.schema, allocator)
    }
    case None => openFile(scanId, fileIndex)
  }

  private def openFile(scanId: Int, fileIndex: Int): NativeInput = {
    val reader = readers.getOrElse(scanId,
      throw new IllegalStateException(s"no Spark reader for native scan $scanId"))
    val file = files(scanId)(fileIndex)
    // The read function yields ColumnarBatches (vectorized reader) or rows, erased to InternalRow.
    val out = reader.read(file).asInstanceOf[Iterator[Any]].buffered
    val batches: Iterator[ColumnarBatch] =
      if (out.hasNext && out.head.isInstanceOf[ColumnarBatch]) out.map(_.asInstanceOf[ColumnarBatch])
      else {
        val rows = new ArrowBatches(out.map(_.asInstanceOf[InternalRow]), reader.schema, batchSize, allocator)
        own(rows)
        rows
      }
    new ArrowInput(batches, reader.schema, allocator)
  }
}
