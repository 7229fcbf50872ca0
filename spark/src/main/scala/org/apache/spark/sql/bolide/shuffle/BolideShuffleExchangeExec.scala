package org.apache.spark.sql.bolide.shuffle

import scala.concurrent.Future
import scala.jdk.CollectionConverters._

import org.apache.spark.{MapOutputStatistics, RangePartitioner}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.bolide.{BolideConf, BolideNode, PlanEncoder}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, RangePartitioning, SinglePartition}
import org.apache.spark.sql.execution.{ShufflePartitionSpec, SparkPlan, SQLExecution, UnsafeRowSerializer}
import org.apache.spark.sql.execution.exchange.{ShuffleExchangeExec, ShuffleExchangeLike, ShuffleOrigin}
import org.apache.spark.sql.execution.metric.{SQLMetrics, SQLShuffleReadMetricsReporter, SQLShuffleWriteMetricsReporter}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.MutablePair

/**
 * A shuffle exchange that runs natively: map tasks partition the child's Arrow batches in Go and
 * write compressed Arrow blocks, reduce tasks decode them in Go (BolideShuffleManager). It is a
 * ShuffleExchangeLike, so AQE plans with it as with Spark's: query stages, coalescing, skew
 * splits, local reads and reuse.
 */
case class BolideShuffleExchangeExec(
    override val outputPartitioning: Partitioning,
    child: SparkPlan,
    shuffleOrigin: ShuffleOrigin,
    advisoryPartitionSize: Option[Long])
  extends ShuffleExchangeLike with BolideNode {

  override def nodeName: String = "BolideShuffleExchange"
  override def output: Seq[Attribute] = child.output
  override def supportsColumnar: Boolean = true

  private lazy val writeMetrics = SQLShuffleWriteMetricsReporter.createShuffleWriteMetrics(sparkContext)
  private lazy val readMetrics = SQLShuffleReadMetricsReporter.createShuffleReadMetrics(sparkContext)
  override lazy val metrics = Map(
    "dataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size"),
    "numPartitions" -> SQLMetrics.createMetric(sparkContext, "number of partitions"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size")
  ) ++ readMetrics ++ writeMetrics

  /** The Spark node this one stands for, over the current child (what the Go side plans with). */
  def sparkExchange: ShuffleExchangeExec =
    ShuffleExchangeExec(outputPartitioning, child, shuffleOrigin, advisoryPartitionSize)

  @transient lazy val inputRDD: RDD[ColumnarBatch] = child.executeColumnar()

  @transient override lazy val mapOutputStatisticsFuture: Future[MapOutputStatistics] =
    if (inputRDD.getNumPartitions == 0) Future.successful(null)
    else sparkContext.submitMapStage(shuffleDependency)

  override def numMappers: Int = shuffleDependency.rdd.getNumPartitions
  override def numPartitions: Int = shuffleDependency.partitioner.numPartitions

  override def getShuffleRDD(partitionSpecs: Array[ShufflePartitionSpec]): RDD[ColumnarBatch] =
    new BolideShuffledBatchRDD(shuffleDependency, readMetrics, partitionSpecs)

  override def runtimeStatistics: Statistics = Statistics(metrics("dataSize").value,
    Some(metrics(SQLShuffleWriteMetricsReporter.SHUFFLE_RECORDS_WRITTEN).value))

  override def shuffleId: Int = shuffleDependency.shuffleId

  @transient lazy val shuffleDependency: BolideShuffleDependency = {
    val sqlConf = SQLConf.get
    val bounds = outputPartitioning match {
      case r: RangePartitioning => Some(rangeBounds(r, sqlConf))
      case _ => None
    }
    val n = outputPartitioning match {
      case SinglePartition => 1
      case _: RangePartitioning => bounds.get.length + 1
      case p => p.numPartitions
    }
    val plan = PlanEncoder.encodeShuffleWrite(this, bounds)
    val dep = new BolideShuffleDependency(
      inputRDD.mapPartitionsInternal(_.map(b => (0, b))),
      new NativePartitioner(n),
      new UnsafeRowSerializer(child.output.size),
      ShuffleExchangeExec.createShuffleWriteProcessor(writeMetrics),
      child.schema,
      plan,
      PlanEncoder.confJson(sqlConf),
      BolideConf.SHUFFLE_CODEC.get(sqlConf),
      BolideConf.BATCH_SIZE.getInt(sqlConf),
      metrics("dataSize"),
      metrics("spillSize"))
    metrics("numPartitions").set(n)
    SQLMetrics.postDriverMetricUpdates(sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics("numPartitions") :: Nil)
    dep
  }

  /**
   * Spark's range bounds for the child, sampled as ShuffleExchangeExec samples them (a
   * RangePartitioner over the sort keys with the plan's ordering), so that both engines put every
   * key in the same partition.
   */
  private def rangeBounds(r: RangePartitioning, conf: SQLConf): Array[InternalRow] = {
    val keys = r.ordering.map(_.child)
    val out = child.output
    val sample = inputRDD.mapPartitionsInternal { iter =>
      val projection = UnsafeProjection.create(keys, out)
      val pair = new MutablePair[InternalRow, Null]()
      iter.flatMap(_.rowIterator().asScala.map(row => pair.update(projection(row).copy(), null)))
    }
    val bound = r.ordering.zipWithIndex.map { case (o, i) => o.copy(child = BoundReference(i, o.dataType, o.nullable)) }
    implicit val ordering: Ordering[InternalRow] = new LazilyGeneratedOrdering(bound)
    val part = new RangePartitioner(r.numPartitions, sample, ascending = true,
      samplePointsPerPartitionHint = conf.rangeExchangeSampleSizePerPartition)
    val field = classOf[RangePartitioner[_, _]].getDeclaredFields.find(_.getName.endsWith("rangeBounds"))
      .getOrElse(throw new IllegalStateException("RangePartitioner has no rangeBounds field"))
    field.setAccessible(true)
    field.get(part).asInstanceOf[Array[InternalRow]]
  }

  @transient private lazy val cachedShuffleRDD: RDD[ColumnarBatch] =
    new BolideShuffledBatchRDD(shuffleDependency, readMetrics)

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = cachedShuffleRDD

  // Row output too, so that Spark adds no transition above the exchange: an AQE query stage must
  // stay a shuffle (its readers add their own transitions), and without AQE a Spark row operator
  // reading the exchange gets its rows here.
  override def supportsRowBased: Boolean = true

  override protected def doExecute(): RDD[InternalRow] = {
    val out = output
    executeColumnar().mapPartitionsInternal { batches =>
      val toUnsafe = UnsafeProjection.create(out, out)
      batches.flatMap(_.rowIterator().asScala.map(toUnsafe))
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): BolideShuffleExchangeExec =
    copy(child = newChild)
}
