package org.apache.spark.sql.bolide

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.{OneToOneDependency, Partition, SparkContext, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.{EmptyRelationExec, ExecSubqueryExpression, FileSourceScanExec, FilterExec, ProjectExec, SortExec, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeLike, ReusedExchangeExec}
import org.apache.spark.sql.bolide.shuffle.{BolideBroadcastBatches, BolideBroadcastExchangeExec, BolideShuffledBatchRDD}
import org.apache.spark.sql.execution.joins.{BaseJoinExec, BolideBroadcastRows}
import org.apache.spark.sql.execution.datasources.{FilePartition, FileScanRDD, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/** Runs a native block: the driver encodes it once; every task ships it with its own splits. */
object BolideBlock {
  def execute(top: BolideExec, sc: SparkContext): RDD[ColumnarBatch] = {
    waitForSubqueries(top)
    val inputs = ArrayBuffer.empty[SparkPlan]
    val leaves = ArrayBuffer.empty[(Int, SparkPlan)]
    val nodes = ArrayBuffer.empty[(Int, BolideExec)]
    // With dispatch on, the encoded expressions travel with the RDD: a task evaluates those the
    // engine dispatches to the JVM (BolideDispatcher).
    val dispatch = if (BolideConf.DISPATCH_ENABLED.getBoolean(SQLConf.get)) ArrayBuffer.empty[Expression] else null
    val plan = PlanEncoder.encodeBlock(top, inputs, leaves, nodes, dispatch)
    val scans = leaves.collect { case (id, s: FileSourceScanExec) => (id, s) }
    // Iceberg scans: each partition's FileScanTasks, planned by Iceberg Java after runtime filtering.
    val icebergLeaves = leaves.collect { case (id, b: BatchScanExec) => (id, b) }.toSeq
    val icebergScans = icebergLeaves.map { case (id, b) => (id, IcebergScans.partitionTasks(b)) }
    // For the files the native reader cannot decode: Iceberg Java's reader of each scan, and each
    // partition's input partitions (they travel with the task's partition).
    val icebergReaders = icebergLeaves.map { case (id, b) =>
      id -> ((b.readerFactory, b.schema))
    }.toMap
    val icebergInputs = icebergLeaves.map { case (id, b) => (id, IcebergScans.partitionInputs(b)) }
    // The RDD carries every operator's metrics, not only the top's: the inner nodes never
    // execute, so nobody else would fill theirs.
    val operators = nodes.toSeq.map { case (id, b) =>
      NativeOperatorMetrics(id, b.longMetric("numOutputRows"), b.longMetric("numOutputBatches"),
        b.longMetric("operatorTime"), top = b eq top, spillSize = b.metrics.get("spillSize"))
    }
    val sqlConf = SQLConf.get
    val conf = PlanEncoder.confJson(sqlConf)
    val blockInputs: Seq[BlockInput] = inputs.toSeq.map { c =>
      if (isBroadcast(c)) Broadcasted(BolideBroadcastExchangeExec.broadcastFor(c))
      else if (c.supportsColumnar) c.executeColumnar() match {
        // A native shuffle read: the block decodes its frames (no batch export and import between).
        case s: BolideShuffledBatchRDD => ShuffleRead(s)
        case rdd => Partitioned(rdd)
      }
      else Partitioned(BolideRowToArrowExec.toArrow(c.execute(), c.schema, BolideConf.BATCH_SIZE.getInt(sqlConf)))
    }
    val inputRDDs = BlockInput.partitioned(blockInputs)
    val scanParts = scans.toSeq.map { case (id, s) => (id, ScanSplits.of(s), s.relation.partitionSchema) }
    // Spark's reader of each scan, for the files Go cannot decode: built only if a task asks.
    val deferred = scans.toSeq.map { case (id, s) => id -> SparkFileReader.of(s) }
    val readers = deferred.map { case (id, (r, _)) => id -> r }.toMap
    val counts = inputRDDs.map(_.getNumPartitions) ++ scanParts.map(_._2.length) ++ icebergScans.map(_._2.length)
    if (counts.distinct.size > 1) {
      throw new IllegalStateException(
        s"${top.nodeName}: inputs of one native block disagree on partitions: ${counts.mkString(", ")}")
    }
    // A block with neither inputs nor scans has one partition, except an empty relation's, which
    // has none (as Spark's EmptyRelationExec: its parents plan with zero partitions).
    val numPartitions = counts.headOption.getOrElse(if (emptyRelation(top)) 0 else 1)
    new BolideBlockRDD(sc, plan, conf, blockInputs, inputs.toSeq.map(_.schema), scanParts, icebergScans,
      icebergReaders, icebergInputs, readers,
      BolideConf.BATCH_SIZE.getInt(sqlConf), numPartitions,
      top.schema, top.longMetric("numOutputRows"), top.longMetric("numOutputBatches"),
      top.longMetric("nativeTime"), operators, if (dispatch == null) null else dispatchable(dispatch, nodes.toSeq),
      readerOwners = deferred.map(_._2._2))
  }

  /**
   * The encoded expressions a task may be asked to evaluate: the engine dispatches expressions of
   * Projects and Filters, the grouping keys and function arguments of aggregates, the keys of
   * sorts and top-k and the conditions of joins, so only theirs travel (what Spark's own operators would ship); the other
   * ids are null.
   */
  private def dispatchable(encoded: ArrayBuffer[Expression], nodes: Seq[(Int, BolideExec)]): Array[Expression] = {
    val roots = nodes.flatMap { case (_, b) => b.original match {
      case p: ProjectExec => p.projectList
      case f: FilterExec => Seq(f.condition)
      case a: BaseAggregateExec => a.groupingExpressions ++ a.aggregateExpressions
      case s: SortExec => s.sortOrder
      case t: TakeOrderedAndProjectExec => t.sortOrder
      case j: BaseJoinExec => j.condition.toSeq
      case _ => Nil
    } }
    val allowed: Set[Expression] = roots.flatMap(_.collect { case e => e }).toSet
    encoded.map(e => if (allowed.contains(e)) e else null).toArray
  }

  private def emptyRelation(top: BolideExec): Boolean = {
    def leaves(p: SparkPlan): Seq[SparkPlan] = p match {
      case b: BolideExec if b.children.nonEmpty => b.children.flatMap(leaves)
      case b: BolideExec => Seq(b.original)
      case other => Seq(other)
    }
    leaves(top).forall(_.isInstanceOf[EmptyRelationExec])
  }

  /** The task's accounting of native memory against Spark's off-heap pool; null when off-heap is off. */
  def newReserver(context: TaskContext): NativeMemoryReserver = {
    val offHeap = SparkEnv.get != null &&
      SparkEnv.get.conf.getBoolean("spark.memory.offHeap.enabled", defaultValue = false)
    if (offHeap) new NativeMemoryReserver(context.taskMemoryManager()) else null
  }

  /** A broadcast child (the build side of a broadcast join): every task reads all of it. */
  def isBroadcast(p: SparkPlan): Boolean = p match {
    case _: BroadcastExchangeLike | _: BroadcastQueryStageExec => true
    case r: ReusedExchangeExec => r.child.isInstanceOf[BroadcastExchangeLike]
    case _ => false
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

/**
 * The SQL metrics of one operator of a native block (a BolideExec), under the node id the block
 * was encoded with; the engine's counts are added once per task, when it ends. The block's `top`
 * has its rows and batches counted by NativeBatchIterator as they reach Spark, which also shows a
 * running task's progress, so only its time comes from the engine.
 */
final case class NativeOperatorMetrics(
    id: Int,
    numOutputRows: SQLMetric,
    numOutputBatches: SQLMetric,
    time: SQLMetric,
    top: Boolean,
    spillSize: Option[SQLMetric] = None)

object NativeOperatorMetrics {
  /** Longs per operator in NativeLib.metrics: id, rows, batches, nanos, memory and disk bytes spilled. */
  val Longs = 6
}

/**
 * A Spark child of a native block: partitioned like the block (batches, or a native shuffle read
 * whose frames the block decodes), or broadcast to every task.
 */
sealed trait BlockInput
final case class Partitioned(rdd: RDD[ColumnarBatch]) extends BlockInput
final case class ShuffleRead(rdd: BolideShuffledBatchRDD) extends BlockInput
final case class Broadcasted(value: Broadcast[Any]) extends BlockInput

object BlockInput {
  def partitioned(inputs: Seq[BlockInput]): Seq[RDD[ColumnarBatch]] = inputs.collect {
    case Partitioned(r) => r
    case ShuffleRead(r) => r
  }
}

class BolideBlockPartition(
    val index: Int,
    val parents: Seq[Partition],
    val files: Seq[FilePartition],
    val icebergTasks: Seq[(Int, String)],
    val icebergInputs: Seq[(Int, Seq[org.apache.spark.sql.connector.read.InputPartition])])
  extends Partition

class BolideBlockRDD(
    sc: SparkContext,
    plan: String,
    conf: String,
    blockInputs: Seq[BlockInput],
    inputSchemas: Seq[StructType],
    scans: Seq[(Int, Array[FilePartition], StructType)],
    icebergScans: Seq[(Int, Array[String])],
    icebergReaders: Map[Int, (org.apache.spark.sql.connector.read.PartitionReaderFactory, StructType)],
    icebergInputs: Seq[(Int, Array[Seq[org.apache.spark.sql.connector.read.InputPartition]])],
    readers: Map[Int, SparkFileReader],
    batchSize: Int,
    numPartitions: Int,
    schema: StructType,
    numOutputRows: SQLMetric,
    numOutputBatches: SQLMetric,
    nativeTime: SQLMetric,
    operators: Seq[NativeOperatorMetrics],
    dispatchExpressions: Array[Expression] = null,
    // The driver's side of the deferred Spark readers: while this RDD lives, tasks can get them.
    @transient private val readerOwners: Seq[AnyRef] = Nil)
  extends RDD[ColumnarBatch](sc, BlockInput.partitioned(blockInputs).map(new OneToOneDependency(_))) {

  private def inputs: Seq[RDD[ColumnarBatch]] = BlockInput.partitioned(blockInputs)

  override protected def getPartitions: Array[Partition] =
    Array.tabulate[Partition](numPartitions) { i =>
      new BolideBlockPartition(i, inputs.map(_.partitions(i)), scans.map(_._2(i)),
        icebergScans.map { case (id, tasks) => (id, tasks(i)) }, icebergInputs.map { case (id, parts) => (id, parts(i)) })
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
    // Native broadcasts by input index: the joins that build from one share its table in the
    // executor (keyed by the broadcast's id).
    val broadcasts = blockInputs.zipWithIndex.collect {
      case (Broadcasted(b), k) if b.value.isInstanceOf[BolideBroadcastBatches] => k -> b.id
    }
    val request = PlanEncoder.taskRequest(conf, plan, files,
      scans.map { case (id, _, ps) => id -> ps }.toMap, p.index, p.icebergTasks, broadcasts)
    val allocator = BolideArrow.newTaskAllocator(s"bolide-task-${context.taskAttemptId()}")
    // Batches this task writes itself (broadcast rows, files read by Spark): closed with the block.
    val owned = ArrayBuffer.empty[AutoCloseable]
    val parents = p.parents.iterator
    val nativeInputs: Array[AnyRef] = blockInputs.indices.map { k =>
      blockInputs(k) match {
        case Partitioned(rdd) => new ArrowInput(rdd.iterator(parents.next(), context), inputSchemas(k), allocator)
        case ShuffleRead(rdd) =>
          val frames = rdd.frames(parents.next(), context)
          owned += frames
          frames
        case Broadcasted(b) => b.value match {
          // A native broadcast: its frames are decoded by the block's input leaf.
          case n: BolideBroadcastBatches =>
            val frames = n.frames()
            owned += frames
            frames
          case relation =>
            val rows = new ArrowBatches(BolideBroadcastRows(relation, inputSchemas(k).length), inputSchemas(k), batchSize,
              allocator)
            owned += rows
            new ArrowInput(rows, inputSchemas(k), allocator)
        }
      }
    }.toArray
    val reserver = BolideBlock.newReserver(context)
    val icebergFallback = p.icebergInputs.map { case (id, parts) =>
      val (factory, schema) = icebergReaders(id)
      id -> IcebergTaskReader(factory, schema, parts)
    }.toMap
    val fallback = new BolideFileFallback(readers, files.toMap, batchSize, allocator, owned += _, icebergFallback)
    val handle = try BolideErrors.rethrow(NativeLib.createPlan(request, nativeInputs, reserver, fallback)) catch {
      case t: Throwable =>
        owned.foreach(_.close())
        allocator.close()
        throw t
    }
    if (dispatchExpressions != null) {
      try NativeLib.setDispatcher(handle, new BolideDispatcher(dispatchExpressions, allocator, p.index)) catch {
        case t: Throwable =>
          NativeLib.close(handle)
          owned.foreach(_.close())
          allocator.close()
          throw t
      }
    }
    val it = new NativeBatchIterator(handle, allocator, reserver, numOutputRows, numOutputBatches, nativeTime,
      () => owned.foreach(_.close()), operators)
    context.addTaskCompletionListener[Unit](_ => it.close())
    it
  }
}

/**
 * A file scan's splits, as FileSourceScanExec.inputRDD makes them (bucketed or not, after dynamic
 * partition pruning), without its read function: the RDD-building methods are private, so they are
 * called by reflection with a reader that never runs; should they not be there (another Spark
 * build), inputRDD's own splits are taken.
 */
object ScanSplits {
  private type Read = PartitionedFile => Iterator[org.apache.spark.sql.catalyst.InternalRow]
  private val noRead: Read = _ => throw new IllegalStateException("ScanSplits' placeholder reader")

  private lazy val createReadRDD = method("createReadRDD", classOf[Function1[_, _]],
    classOf[org.apache.spark.sql.execution.ScanFileListing])
  private lazy val createBucketedReadRDD = method("createBucketedReadRDD",
    classOf[org.apache.spark.sql.catalyst.catalog.BucketSpec], classOf[Function1[_, _]],
    classOf[org.apache.spark.sql.execution.ScanFileListing])

  private def method(name: String, types: Class[_]*): Option[java.lang.reflect.Method] =
    try {
      val m = classOf[FileSourceScanExec].getDeclaredMethod(name, types: _*)
      m.setAccessible(true)
      Some(m)
    } catch { case scala.util.control.NonFatal(_) => None }

  // Protected in FileSourceScanLike (public in bytecode).
  private lazy val selectedPartitions = public("dynamicallySelectedPartitions")
  private lazy val sendDriverMetrics = public("sendDriverMetrics")

  private def public(name: String): Option[java.lang.reflect.Method] =
    try Some(classOf[FileSourceScanExec].getMethod(name)) catch { case scala.util.control.NonFatal(_) => None }

  def of(s: FileSourceScanExec): Array[FilePartition] = {
    val viaReflection = for {
      selected <- selectedPartitions
      send <- sendDriverMetrics
      create <- if (s.bucketedScan) createBucketedReadRDD else createReadRDD
    } yield {
      val listing = selected.invoke(s)
      val rdd = if (s.bucketedScan) create.invoke(s, s.relation.bucketSpec.get, noRead, listing)
        else create.invoke(s, noRead, listing)
      (rdd, send)
    }
    viaReflection match {
      case Some((f: FileScanRDD, send)) =>
        send.invoke(s)
        f.filePartitions.toArray
      case _ => s.inputRDD match {
        case f: FileScanRDD => f.filePartitions.toArray
        case other => throw new IllegalStateException(
          s"${s.nodeName} produced ${other.getClass.getSimpleName}, not a FileScanRDD")
      }
    }
  }
}
