package org.apache.spark.sql.bolide.shuffle

import java.io.File

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.internal.{config, Logging}
import org.apache.spark.scheduler.MapStatus
import org.apache.spark.shuffle.{IndexShuffleBlockResolver, ShuffleWriteMetricsReporter, ShuffleWriter}
import org.apache.spark.sql.bolide._
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The map side of a native shuffle: the child's batches go to a native block whose root is the
 * exchange, which partitions them in Go and writes one data file in Spark's layout; the index is
 * committed through Spark's IndexShuffleBlockResolver, so fetching is Spark's own.
 */
class BolideShuffleWriter(
    handle: BolideShuffleHandle,
    mapId: Long,
    context: TaskContext,
    metrics: ShuffleWriteMetricsReporter,
    resolver: IndexShuffleBlockResolver)
  extends ShuffleWriter[Int, ColumnarBatch] with Logging {

  private val dep = handle.bolideDependency
  private var mapStatus: MapStatus = _
  private var partitionLengths: Array[Long] = _

  override def write(records: Iterator[Product2[Int, ColumnarBatch]]): Unit = {
    NativeLoader.load()
    val numPartitions = dep.partitioner.numPartitions
    val request = PlanEncoder.taskRequest(dep.conf, dep.writePlan, Nil, Map.empty, context.partitionId())
    val allocator = BolideArrow.newTaskAllocator(s"bolide-shuffle-write-${context.taskAttemptId()}")
    val reserver = BolideBlock.newReserver(context)
    val input = new ArrowInput(records.map(_._2), dep.schema, allocator)
    val dataFile = resolver.getDataFile(dep.shuffleId, mapId)
    val tmp: File = resolver.createTempFile(dataFile)
    var nativeHandle = 0L
    try {
      nativeHandle = BolideErrors.rethrow(NativeLib.createPlan(request, Array[AnyRef](input), reserver, null))
      // Another consumer of the task (the native block producing the input, a Spark operator)
      // may now ask the writer to spill its blocks: it does at its next batch.
      if (reserver != null) reserver.attach(nativeHandle)
      // Spark's checksum file, so that a corrupt block fetched later is diagnosed as Spark would.
      val conf = SparkEnv.get.conf
      val checksum = if (conf.get(config.SHUFFLE_CHECKSUM_ENABLED)) conf.get(config.SHUFFLE_CHECKSUM_ALGORITHM) else ""
      val out = BolideErrors.rethrow(NativeLib.shuffleWrite(nativeHandle, tmp.getAbsolutePath, dep.codec, checksum))
      // Lengths, then rows, uncompressed bytes, write nanos, memory and disk bytes spilled, then
      // the checksums, then the partitions' uncompressed bytes (NativeLib.shuffleWrite).
      val numChecksums = if (checksum.isEmpty) 0 else numPartitions
      val expected = numPartitions + 5 + numChecksums + numPartitions
      if (out.length != expected) {
        throw new IllegalStateException(
          s"native shuffle write returned ${out.length} values for $numPartitions partitions")
      }
      partitionLengths = out.take(numPartitions)
      val checksums = out.slice(numPartitions + 5, numPartitions + 5 + numChecksums)
      val uncompressed = out.drop(numPartitions + 5 + numChecksums)
      resolver.writeMetadataFileAndCommit(dep.shuffleId, mapId, partitionLengths, checksums, tmp)
      metrics.incBytesWritten(partitionLengths.sum)
      metrics.incRecordsWritten(out(numPartitions))
      metrics.incWriteTime(out(numPartitions + 2))
      dep.dataSize += out(numPartitions + 1)
      // The writer's spills (its encoded blocks, written to a local spill file and copied into
      // the data file at the end), reported as Spark's sort shuffle writers report theirs.
      val (memSpilled, diskSpilled) = (out(numPartitions + 3), out(numPartitions + 4))
      if (memSpilled > 0 || diskSpilled > 0) {
        context.taskMetrics().incMemoryBytesSpilled(memSpilled)
        context.taskMetrics().incDiskBytesSpilled(diskSpilled)
        dep.spillSize += memSpilled
      }
      mapStatus = MapStatus(SparkEnv.get.blockManager.shuffleServerId,
        BolideShuffleWriter.reportedSizes(partitionLengths, uncompressed), mapId)
    } finally {
      if (reserver != null) reserver.detach()
      try if (nativeHandle != 0) NativeLib.close(nativeHandle) finally {
        if (tmp.exists() && !tmp.delete()) logWarning(s"could not delete $tmp")
        if (reserver != null) reserver.releaseAll()
        allocator.close()
      }
    }
  }

  override def stop(success: Boolean): Option[MapStatus] =
    if (success && mapStatus != null) Some(mapStatus) else None

  override def getPartitionLengths(): Array[Long] = partitionLengths
}

object BolideShuffleWriter {
  /**
   * The sizes a map output reports to Spark (its MapStatus): each non-empty partition's size as
   * Arrow batches, not its bytes on disk. AQE coalesces partitions, finds skewed ones and splits
   * them by map output from these sizes, and a native join or aggregate holds a partition as
   * batches: Arrow frames compress 3-4x against UnsafeRows' 1-2x, so the bytes on disk would have
   * AQE make partitions several times larger in memory than Spark's from the same rows (TPC-H q21
   * coalesced all of lineitem into one join partition that did not fit a 256 MiB pool). Spark
   * itself reports sizes approximately (MapStatus encodes them in a byte, within 10%): readers
   * fetch by block id and use the sizes only to plan requests, and read the index for the bytes.
   * An empty partition stays 0, so that readers still skip it.
   */
  def reportedSizes(lengths: Array[Long], uncompressed: Array[Long]): Array[Long] =
    lengths.indices.map { i =>
      if (lengths(i) == 0) 0L else math.max(lengths(i), uncompressed(i))
    }.toArray
}
