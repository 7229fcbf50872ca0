package org.apache.spark.sql.bolide

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.{OneToOneDependency, Partition, SparkContext, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution.{ExecSubqueryExpression, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.{FilePartition, FileScanRDD}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/** Runs a native block: the driver encodes it once; every task ships it with its own splits. */
object BolideBlock {
  def execute(top: BolideExec, sc: SparkContext): RDD[ColumnarBatch] = {
    waitForSubqueries(top)
    val inputs = ArrayBuffer.empty[SparkPlan]
    val scans = ArrayBuffer.empty[(Int, FileSourceScanExec)]
    val plan = PlanEncoder.encodeBlock(top, inputs, scans)
    val sqlConf = SQLConf.get
    val conf = PlanEncoder.confJson(sqlConf)
    val inputRDDs = inputs.toSeq.map { c =>
      if (c.supportsColumnar) c.executeColumnar()
      else BolideRowToArrowExec.toArrow(c.execute(), c.schema, BolideConf.BATCH_SIZE.getInt(sqlConf))
    }
    val fileRDDs = scans.toSeq.map { case (id, s) =>
      s.inputRDD match {
        case f: FileScanRDD => (id, s, f)
        case other => throw new IllegalStateException(
          s"${s.nodeName} produced ${other.getClass.getSimpleName}, not a FileScanRDD")
      }
    }
    val scanParts = fileRDDs.map { case (id, s, f) => (id, f.filePartitions.toArray, s.relation.partitionSchema) }
    val readers = fileRDDs.map { case (id, s, f) => id -> SparkFileReader.of(s, f) }.toMap
    val counts = inputRDDs.map(_.getNumPartitions) ++ scanParts.map(_._2.length)
    if (counts.distinct.size > 1) {
      throw new IllegalStateException(
        s"${top.nodeName}: inputs of one native block disagree on partitions: ${counts.mkString(", ")}")
    }
    val numPartitions = counts.headOption.getOrElse(1)
    new BolideBlockRDD(sc, plan, conf, inputRDDs, inputs.toSeq.map(_.schema), scanParts, readers,
      BolideConf.BATCH_SIZE.getInt(sqlConf), numPartitions,
      top.schema, top.longMetric("numOutputRows"), top.longMetric("numOutputBatches"),
      top.longMetric("nativeTime"))
  }

  /**
   * The Spark nodes a block stands for are never executed themselves, so nobody runs the subqueries
   * in their expressions (e.g. a scalar subquery Spark pushed into a scan's data filters, which the
   * scan needs to list its splits). Run them here, on the driver, as Spark's own
   * prepare/waitForSubqueries would.
   */
  private def waitForSubqueries(top: BolideExec): Unit = {
    def nodes(b: BolideExec): Seq[SparkPlan] =
      b.original +: b.children.collect { case c: BolideExec => nodes(c) }.flatten
    val subqueries = nodes(top).flatMap(_.expressions.flatMap(_.collect {
      case e: ExecSubqueryExpression => e
    }))
    subqueries.foreach(_.plan.prepare())
    subqueries.foreach(_.updateResult())
  }
}

class BolideBlockPartition(val index: Int, val parents: Seq[Partition], val files: Seq[FilePartition])
  extends Partition

class BolideBlockRDD(
    sc: SparkContext,
    plan: String,
    conf: String,
    inputs: Seq[RDD[ColumnarBatch]],
    inputSchemas: Seq[StructType],
    scans: Seq[(Int, Array[FilePartition], StructType)],
    readers: Map[Int, SparkFileReader],
    batchSize: Int,
    numPartitions: Int,
    schema: StructType,
    numOutputRows: SQLMetric,
    numOutputBatches: SQLMetric,
    nativeTime: SQLMetric)
  extends RDD[ColumnarBatch](sc, inputs.map(new OneToOneDependency(_))) {

  override protected def getPartitions: Array[Partition] =
    Array.tabulate[Partition](numPartitions) { i =>
      new BolideBlockPartition(i, inputs.map(_.partitions(i)), scans.map(_._2(i)))
    }

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val p = split.asInstanceOf[BolideBlockPartition]
    val fromFiles = p.files.flatMap(_.preferredLocations())
    if (fromFiles.nonEmpty) fromFiles
    else inputs.zip(p.parents).flatMap { case (rdd, part) => rdd.preferredLocations(part) }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[ColumnarBatch] = {
    NativeLoader.load()
    val p = split.asInstanceOf[BolideBlockPartition]
    val files = scans.zip(p.files).map { case ((id, _, _), fp) => (id, fp.files) }
    val request = PlanEncoder.taskRequest(conf, plan, files,
      scans.map { case (id, _, ps) => id -> ps }.toMap, p.index)
    val allocator = BolideArrow.newTaskAllocator(s"bolide-task-${context.taskAttemptId()}")
    val nativeInputs: Array[NativeInput] = inputs.indices.map { k =>
      new ArrowInput(inputs(k).iterator(p.parents(k), context), inputSchemas(k), allocator): NativeInput
    }.toArray
    val offHeap = SparkEnv.get != null &&
      SparkEnv.get.conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)
    val reserver = if (offHeap) new NativeMemoryReserver(context.taskMemoryManager()) else null
    val fallback = new BolideFileFallback(readers, files.toMap, batchSize, allocator)
    val handle = BolideErrors.rethrow(NativeLib.createPlan(request, nativeInputs, reserver, fallback))
    val it = new NativeBatchIterator(handle, allocator, reserver, numOutputRows, numOutputBatches, nativeTime)
    context.addTaskCompletionListener[Unit](_ => it.close())
    it
  }
}
