package org.apache.spark.sql.bolide.shuffle

import org.apache.spark.{Partitioner, ShuffleDependency}
import org.apache.spark.rdd.RDD
import org.apache.spark.serializer.Serializer
import org.apache.spark.shuffle.{BaseShuffleHandle, ShuffleWriteProcessor}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A shuffle whose map side runs a native block (`writePlan`: the exchange over its child read as
 * input 0) that partitions and encodes the batches in Go. `rdd` carries the child's batches keyed
 * by a dummy 0: partition ids are computed natively, never by `partitioner`, which only says how
 * many there are. `serializer` is never used (Spark's API needs one).
 * `dataSize` adds up the uncompressed bytes written, the size AQE plans with; `spillSize` the
 * memory bytes the native writers spilled.
 */
class BolideShuffleDependency(
    rdd: RDD[_ <: Product2[Int, ColumnarBatch]],
    partitioner: Partitioner,
    serializer: Serializer,
    writeProcessor: ShuffleWriteProcessor,
    val schema: StructType,
    val writePlan: String,
    val conf: String,
    val codec: String,
    val batchSize: Int,
    val dataSize: SQLMetric,
    val spillSize: SQLMetric)
  extends ShuffleDependency[Int, ColumnarBatch, ColumnarBatch](
    rdd, partitioner, serializer, shuffleWriterProcessor = writeProcessor) {

  // Push-based merging would concatenate blocks on the external service; our frames allow it, but
  // it is untested, so native shuffles keep to plain block fetches.
  setShuffleMergeAllowed(false)
}

class BolideShuffleHandle(shuffleId: Int, dep: BolideShuffleDependency)
  extends BaseShuffleHandle[Int, ColumnarBatch, ColumnarBatch](shuffleId, dep) {
  def bolideDependency: BolideShuffleDependency = dep
}

/** The number of partitions of a native shuffle; rows carry their partition id as the key. */
class NativePartitioner(override val numPartitions: Int) extends Partitioner {
  override def getPartition(key: Any): Int = key.asInstanceOf[Int]
}
