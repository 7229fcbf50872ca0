package org.apache.spark.sql.bolide.shuffle

import org.apache.spark.{InterruptibleIterator, SparkEnv, TaskContext}
import org.apache.spark.internal.config
import org.apache.spark.shuffle.{FetchFailedException, ShuffleReadMetricsReporter, ShuffleReader}
import org.apache.spark.sql.bolide._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.storage.{BlockId, BlockManagerId, ShuffleBlockBatchId, ShuffleBlockFetcherIterator, ShuffleBlockId}
import org.apache.spark.util.CompletionIterator

/**
 * The reduce side of a native shuffle: Spark's ShuffleBlockFetcherIterator fetches the blocks
 * (local, remote, or from the external shuffle service) as plain streams, and a native block
 * decodes their frames into Arrow batches. No rows on the way. A native block whose input is the
 * shuffle reads the frames itself (`frames`, see BolideBlock); `read` decodes them into batches
 * for any other consumer.
 */
class BolideShuffleReader(
    handle: BolideShuffleHandle,
    blocksByAddress: Iterator[(BlockManagerId, collection.Seq[(BlockId, Long, Int)])],
    context: TaskContext,
    readMetrics: ShuffleReadMetricsReporter,
    batchFetch: Boolean)
  extends ShuffleReader[Int, ColumnarBatch] {

  private val dep = handle.bolideDependency

  override def read(): Iterator[Product2[Int, ColumnarBatch]] = {
    val batches = BolideShuffleReader.decode(frames(), dep, context)
    new InterruptibleIterator[Product2[Int, ColumnarBatch]](context, batches.map(b => (0, b)))
  }

  /**
   * The fetched blocks as frames. Records read are counted per frame, the task's read metrics
   * merged at the end; a damaged block fails the task with a FetchFailedException naming its map
   * output, as Spark's own reader does for a block it finds corrupt, so that Spark recomputes it.
   */
  def frames(): ShuffleFrames = {
    NativeLoader.load()
    val env = SparkEnv.get
    val conf = env.conf
    val blocks = blocksByAddress.toSeq
    val source: Map[BlockId, (BlockManagerId, Int)] =
      blocks.flatMap { case (addr, bs) => bs.map { case (id, _, mapIndex) => id -> (addr, mapIndex) } }.toMap
    val streams = new ShuffleBlockFetcherIterator(
      context,
      env.blockManager.blockStoreClient,
      env.blockManager,
      env.mapOutputTracker,
      blocks.iterator,
      // Our blocks carry their own compression; Spark's stream compression is not applied.
      (_, in) => in,
      conf.get(config.REDUCER_MAX_SIZE_IN_FLIGHT) * 1024 * 1024,
      conf.get(config.REDUCER_MAX_REQS_IN_FLIGHT),
      conf.get(config.REDUCER_MAX_BLOCKS_IN_FLIGHT_PER_ADDRESS),
      conf.get(config.MAX_REMOTE_BLOCK_SIZE_FETCH_TO_MEM),
      conf.get(config.SHUFFLE_MAX_ATTEMPTS_ON_NETTY_OOM),
      conf.get(config.SHUFFLE_DETECT_CORRUPT),
      conf.get(config.SHUFFLE_DETECT_CORRUPT_MEMORY),
      conf.get(config.SHUFFLE_CHECKSUM_ENABLED),
      conf.get(config.SHUFFLE_CHECKSUM_ALGORITHM),
      readMetrics,
      batchFetch).toCompletionIterator
    def fetchFailed(id: BlockId, message: String, cause: Throwable): Throwable = {
      val (shuffleId, mapId, reduceId) = id match {
        case ShuffleBlockId(s, m, r) => (s, m, r)
        case ShuffleBlockBatchId(s, m, r, _) => (s, m, r)
        case other => return new java.io.IOException(s"native shuffle block $other: $message", cause)
      }
      source.get(id) match {
        case Some((addr, mapIndex)) =>
          new FetchFailedException(addr, shuffleId, mapId, mapIndex, reduceId,
            s"native shuffle block $id is corrupt: $message", cause)
        case None => new java.io.IOException(s"native shuffle block $id: $message", cause)
      }
    }
    new ShuffleFrames(streams, fetchFailed, { rows =>
      // As InterruptibleIterator does per record; per frame is enough to notice a kill.
      context.killTaskIfInterrupted()
      readMetrics.incRecordsRead(rows)
    }, () => context.taskMetrics().mergeShuffleReadMetrics())
  }
}

object BolideShuffleReader {
  def decode(frames: ShuffleFrames, dep: BolideShuffleDependency, context: TaskContext): Iterator[ColumnarBatch] = {
    val request = PlanEncoder.taskRequest(dep.conf, NativePlans.read(dep.schema), Nil, Map.empty, context.partitionId())
    val allocator = BolideArrow.newTaskAllocator(s"bolide-shuffle-read-${context.taskAttemptId()}")
    val reserver = BolideBlock.newReserver(context)
    val handle = try BolideErrors.rethrow(NativeLib.createPlan(request, Array[AnyRef](frames), reserver, null)) catch {
      case t: Throwable =>
        frames.close()
        if (reserver != null) reserver.releaseAll()
        allocator.close()
        throw t
    }
    val it = new NativeBatchIterator(handle, allocator, reserver, new SQLMetric("sum"), new SQLMetric("sum"),
      new SQLMetric("nsTiming"), () => frames.close())
    context.addTaskCompletionListener[Unit](_ => it.close())
    it
  }
}
