package org.apache.spark.sql.bolide.shuffle

import org.apache.spark.{InterruptibleIterator, SparkEnv, TaskContext}
import org.apache.spark.internal.config
import org.apache.spark.shuffle.{ShuffleReadMetricsReporter, ShuffleReader}
import org.apache.spark.sql.bolide._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.storage.{BlockId, BlockManagerId, ShuffleBlockFetcherIterator}
import org.apache.spark.util.CompletionIterator

/**
 * The reduce side of a native shuffle: Spark's ShuffleBlockFetcherIterator fetches the blocks
 * (local, remote, or from the external shuffle service) as plain streams, and a native block
 * decodes their frames into Arrow batches. No rows on the way.
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
    NativeLoader.load()
    val env = SparkEnv.get
    val conf = env.conf
    val streams = new ShuffleBlockFetcherIterator(
      context,
      env.blockManager.blockStoreClient,
      env.blockManager,
      env.mapOutputTracker,
      blocksByAddress,
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
    val frames = new ShuffleFrames(streams)
    val batches = BolideShuffleReader.decode(frames, dep, context)
    val counted = CompletionIterator[ColumnarBatch, Iterator[ColumnarBatch]](
      batches.map { b => readMetrics.incRecordsRead(b.numRows()); b },
      context.taskMetrics().mergeShuffleReadMetrics())
    new InterruptibleIterator[Product2[Int, ColumnarBatch]](context, counted.map(b => (0, b)))
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
