package org.apache.spark.sql.bolide.shuffle

import org.apache.spark.{Dependency, MapOutputTrackerMaster, Partition, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution._
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLShuffleReadMetricsReporter}
import org.apache.spark.sql.vectorized.ColumnarBatch

final case class BolideShuffledBatchPartition(index: Int, spec: ShufflePartitionSpec) extends Partition

/**
 * The reduce side of a native shuffle as an RDD of Arrow batches, one partition per AQE partition
 * spec: whole reducers, coalesced ranges of them, skew splits of one reducer by map ranges, and
 * local (per-mapper) reads. Which map outputs and reducers a spec reads is Spark's contract
 * (ShuffledRowRDD does the same for rows).
 */
class BolideShuffledBatchRDD(
    var dependency: BolideShuffleDependency,
    metrics: Map[String, SQLMetric],
    specs: Array[ShufflePartitionSpec])
  extends RDD[ColumnarBatch](dependency.rdd.context, Nil) {

  def this(dependency: BolideShuffleDependency, metrics: Map[String, SQLMetric]) =
    this(dependency, metrics,
      Array.tabulate[ShufflePartitionSpec](dependency.partitioner.numPartitions)(i => CoalescedPartitionSpec(i, i + 1)))

  override def getDependencies: Seq[Dependency[_]] = List(dependency)

  override def getPartitions: Array[Partition] =
    Array.tabulate[Partition](specs.length)(i => BolideShuffledBatchPartition(i, specs(i)))

  override def getPreferredLocations(partition: Partition): Seq[String] = {
    val tracker = SparkEnv.get.mapOutputTracker.asInstanceOf[MapOutputTrackerMaster]
    partition.asInstanceOf[BolideShuffledBatchPartition].spec match {
      case CoalescedPartitionSpec(start, end, _) =>
        (start until end).flatMap(r => tracker.getPreferredLocationsForShuffle(dependency, r))
      case PartialReducerPartitionSpec(_, startMap, endMap, _) => tracker.getMapLocation(dependency, startMap, endMap)
      case PartialMapperPartitionSpec(map, _, _) => tracker.getMapLocation(dependency, map, map + 1)
      case CoalescedMapperPartitionSpec(startMap, endMap, _) => tracker.getMapLocation(dependency, startMap, endMap)
    }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[ColumnarBatch] =
    reader(split, context).read().map(_._2)

  /** The partition's fetched blocks as frames, for a native block that decodes them itself. */
  def frames(split: Partition, context: TaskContext): ShuffleFrames = reader(split, context).frames()

  private def reader(split: Partition, context: TaskContext): BolideShuffleReader = {
    val reporter = new SQLShuffleReadMetricsReporter(context.taskMetrics().createTempShuffleReadMetrics(), metrics)
    val manager = SparkEnv.get.shuffleManager
    val handle = dependency.shuffleHandle
    // (startMap, endMap, startReducer, endReducer); Int.MaxValue as endMap means all map outputs.
    val (startMap, endMap, startReducer, endReducer) = split.asInstanceOf[BolideShuffledBatchPartition].spec match {
      case CoalescedPartitionSpec(start, end, _) => (0, Int.MaxValue, start, end)
      case PartialReducerPartitionSpec(reducer, startMap, endMap, _) => (startMap, endMap, reducer, reducer + 1)
      case PartialMapperPartitionSpec(map, start, end) => (map, map + 1, start, end)
      case CoalescedMapperPartitionSpec(startMap, endMap, numReducers) => (startMap, endMap, 0, numReducers)
    }
    manager.getReader[Int, ColumnarBatch](handle, startMap, endMap, startReducer, endReducer, context, reporter)
      .asInstanceOf[BolideShuffleReader]
  }

  override def clearDependencies(): Unit = {
    super.clearDependencies()
    dependency = null
  }
}
