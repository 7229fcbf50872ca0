package org.apache.spark.sql.bolide.shuffle

import java.io.{ByteArrayInputStream, File}
import java.nio.file.Files
import java.util.concurrent.{Future => JFuture, TimeoutException, TimeUnit}

import scala.concurrent.Promise
import scala.util.control.NonFatal

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.bolide._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastMode, BroadcastPartitioning, Partitioning}
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.execution.{SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeLike, ReusedExchangeExec}
import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.internal.{SQLConf, StaticSQLConf}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.storage.BroadcastBlockId
import org.apache.spark.util.{ThreadUtils, Utils}

/** A native broadcast: each map partition's rows as compressed Arrow frames (the shuffle's encoding). */
final case class BolideBroadcastBatches(blocks: Array[Array[Byte]], numRows: Long) {
  /** The frames, as a native block input reads them (NativeFrameSource). */
  def frames(): ShuffleFrames = new ShuffleFrames(blocks.iterator.filter(_.nonEmpty).map { b =>
    (BroadcastBlockId(0, "bolide"), new ByteArrayInputStream(b))
  })
}

/**
 * A broadcast exchange that runs natively: the child's batches are encoded in Go on the executors
 * (a single-partition shuffle write each), collected and broadcast as Arrow frames, and native
 * joins decode them in every task: no rows and no HashedRelation on the way. A consumer that stays
 * in Spark (a join Bolide could not run, a subquery) calls executeBroadcast and gets Spark's own
 * relation for the mode, built once on the driver from the same frames.
 */
case class BolideBroadcastExchangeExec(mode: BroadcastMode, child: SparkPlan)
  extends BroadcastExchangeLike with BolideNode {

  override def nodeName: String = "BolideBroadcastExchange"
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = BroadcastPartitioning(mode)

  override lazy val metrics = Map(
    "dataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "collectTime" -> SQLMetrics.createTimingMetric(sparkContext, "time to collect"),
    "broadcastTime" -> SQLMetrics.createTimingMetric(sparkContext, "time to broadcast"))

  override def doCanonicalize(): SparkPlan = BolideBroadcastExchangeExec(mode.canonicalized, child.canonicalized)

  override def runtimeStatistics: Statistics =
    Statistics(metrics("dataSize").value, Some(metrics("numOutputRows").value))

  @transient private lazy val promise = Promise[Broadcast[Any]]()
  @transient override lazy val completionFuture: scala.concurrent.Future[Broadcast[Any]] = promise.future
  @transient private val timeout: Long = conf.broadcastTimeout

  /** The collected frames, kept on the driver for Spark consumers. */
  @transient @volatile private var collected: BolideBroadcastBatches = _

  @transient override lazy val relationFuture: JFuture[Broadcast[Any]] =
    SQLExecution.withThreadLocalCaptured[Broadcast[Any]](session, BolideBroadcastExchangeExec.executionContext) {
      try {
        sparkContext.addJobTag(jobTag)
        sparkContext.setInterruptOnCancel(true)
        val start = System.nanoTime()
        val parts = encode(child.executeColumnar())
        val numRows = parts.map(_._1).sum
        val dataSize = parts.map(_._2).sum
        metrics("numOutputRows") += numRows
        metrics("dataSize") += dataSize
        if (numRows >= 512000000L) {
          throw QueryExecutionErrors.cannotBroadcastTableOverMaxTableRowsError(512000000L, numRows)
        }
        if (dataSize >= conf.maxBroadcastTableSizeInBytes) {
          throw QueryExecutionErrors.cannotBroadcastTableOverMaxTableBytesError(
            conf.maxBroadcastTableSizeInBytes, dataSize)
        }
        val value = BolideBroadcastBatches(parts.map(_._3), numRows)
        collected = value
        val beforeBroadcast = System.nanoTime()
        metrics("collectTime") += TimeUnit.NANOSECONDS.toMillis(beforeBroadcast - start)
        val b = sparkContext.broadcastInternal[Any](value, serializedOnly = true)
        metrics("broadcastTime") += TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beforeBroadcast)
        SQLMetrics.postDriverMetricUpdates(sparkContext,
          sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics.values.toSeq)
        promise.trySuccess(b)
        b
      } catch {
        case e: Throwable =>
          promise.tryFailure(e)
          throw e
      }
    }

  /** (rows, uncompressed bytes, frames) of every partition of the child, encoded on the executors. */
  private def encode(rdd: RDD[ColumnarBatch]): Array[(Long, Long, Array[Byte])] = {
    val schema = child.schema
    val plan = NativePlans.broadcastEncode(schema)
    val conf = PlanEncoder.confJson(SQLConf.get)
    val codec = BolideConf.SHUFFLE_CODEC.get(SQLConf.get)
    BolideJobs.collect(rdd.mapPartitionsInternal { batches =>
      Iterator(BolideBroadcastExchangeExec.encodePartition(batches, schema, plan, conf, codec))
    })
  }

  override protected def doPrepare(): Unit = relationFuture

  private def await(): Broadcast[Any] =
    try relationFuture.get(timeout, TimeUnit.SECONDS) catch {
      case ex: TimeoutException =>
        if (!relationFuture.isDone) {
          sparkContext.cancelJobsWithTag(jobTag, "The corresponding broadcast query has failed.")
          relationFuture.cancel(true)
        }
        throw QueryExecutionErrors.executeBroadcastTimeoutError(timeout, Some(ex))
    }

  /** The native broadcast (frames), for native consumers. */
  def nativeBroadcast(): Broadcast[Any] = await()

  @transient private lazy val sparkRelation: Broadcast[Any] = {
    await()
    val rows = BolideBroadcastExchangeExec.decodeRows(collected, child.schema, PlanEncoder.confJson(SQLConf.get))
    val relation = mode.transform(rows.iterator, Some(rows.length.toLong))
    sparkContext.broadcastInternal[Any](relation, serializedOnly = true)
  }

  override protected[sql] def doExecuteBroadcast[T](): Broadcast[T] = synchronized {
    sparkRelation.asInstanceOf[Broadcast[T]]
  }

  override protected def doExecute(): RDD[InternalRow] =
    throw QueryExecutionErrors.executeCodePathUnsupportedError(nodeName)

  override protected def withNewChildInternal(newChild: SparkPlan): BolideBroadcastExchangeExec =
    copy(child = newChild)
}

object BolideBroadcastExchangeExec {
  /** Runs the collect-and-broadcast jobs, like Spark's broadcast exchange's own pool. */
  private[shuffle] lazy val executionContext = scala.concurrent.ExecutionContext.fromExecutorService(
    ThreadUtils.newDaemonCachedThreadPool("bolide-broadcast-exchange",
      SQLConf.get.getConf(StaticSQLConf.BROADCAST_EXCHANGE_MAX_THREAD_THRESHOLD)))

  /** The broadcast a native block reads for its broadcast child: native frames when Bolide made it. */
  def broadcastFor(p: SparkPlan): Broadcast[Any] = p match {
    case b: BolideBroadcastExchangeExec => b.nativeBroadcast()
    case ReusedExchangeExec(_, b: BolideBroadcastExchangeExec) => b.nativeBroadcast()
    case s: BroadcastQueryStageExec if s.broadcast.isInstanceOf[BolideBroadcastExchangeExec] =>
      s.broadcast.asInstanceOf[BolideBroadcastExchangeExec].nativeBroadcast()
    case other => other.executeBroadcast[Any]()
  }

  private[shuffle] def encodePartition(
      batches: Iterator[ColumnarBatch],
      schema: StructType,
      plan: String,
      conf: String,
      codec: String): (Long, Long, Array[Byte]) = {
    NativeLoader.load()
    val context = TaskContext.get()
    val allocator = BolideArrow.newTaskAllocator(s"bolide-broadcast-${context.taskAttemptId()}")
    val reserver = BolideBlock.newReserver(context)
    val input = new ArrowInput(batches, schema, allocator)
    val tmp = File.createTempFile("bolide-broadcast-", ".frames", new File(Utils.getLocalDir(SparkEnv.get.conf)))
    var handle = 0L
    try {
      val request = PlanEncoder.taskRequest(conf, plan, Nil, Map.empty, context.partitionId())
      handle = BolideErrors.rethrow(NativeLib.createPlan(request, Array[AnyRef](input), reserver, null))
      if (reserver != null) reserver.attach(handle)
      val out = BolideErrors.rethrow(NativeLib.shuffleWrite(handle, tmp.getAbsolutePath, codec, ""))
      (out(1), out(2), Files.readAllBytes(tmp.toPath))
    } finally {
      if (reserver != null) reserver.detach()
      try if (handle != 0) NativeLib.close(handle) finally {
        tmp.delete()
        if (reserver != null) reserver.releaseAll()
        allocator.close()
      }
    }
  }

  /** The broadcast's rows on the driver (for Spark's relation), decoded natively and copied. */
  private def decodeRows(value: BolideBroadcastBatches, schema: StructType, conf: String): Array[InternalRow] = {
    NativeLoader.load()
    val allocator = BolideArrow.newTaskAllocator("bolide-broadcast-decode")
    val frames = value.frames()
    val request = PlanEncoder.taskRequest(conf, NativePlans.read(schema), Nil, Map.empty, 0)
    val handle = try BolideErrors.rethrow(NativeLib.createPlan(request, Array[AnyRef](frames), null, null)) catch {
      case NonFatal(e) =>
        frames.close()
        allocator.close()
        throw e
    }
    val it = new NativeBatchIterator(handle, allocator, null, new org.apache.spark.sql.execution.metric.SQLMetric("sum"),
      new org.apache.spark.sql.execution.metric.SQLMetric("sum"),
      new org.apache.spark.sql.execution.metric.SQLMetric("nsTiming"), () => frames.close())
    try {
      val projection = UnsafeProjection.create(schema)
      val out = scala.collection.mutable.ArrayBuffer.empty[InternalRow]
      while (it.hasNext) {
        val rows = it.next().rowIterator()
        while (rows.hasNext) out += projection(rows.next()).copy()
      }
      out.toArray
    } finally it.close()
  }
}
