package org.apache.spark.sql.bolide

import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.{SparkEnv, TaskContext, TaskContextImpl}
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, InterpretedUnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The result of a global aggregate whose partial states were gathered to the driver
 * (BolideGatherExec): the native block above the gather (the final aggregate, and what the block
 * computes over its one row) runs in the driver when the result is collected. Its input is the
 * states the driver already holds and its output one row, so a job of one task would cost more
 * (scheduling, shipping the task and the rows back, about 10 ms) than the work. The block runs as
 * a task would, with a task context of its own whose memory comes from the driver's pool and is
 * released when it ends. Should running it in the driver fail for any reason, the block runs as
 * a job instead (the error, if it is the query's, is raised again there, as Spark raises it).
 * Anything but a collect (a parent reading the rows, a write) runs `child`, Spark's transition
 * from the block's batches to rows, as Spark would.
 */
case class BolideDriverCollectExec(child: SparkPlan) extends UnaryExecNode {
  override def nodeName: String = "BolideDriverCollect"
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = SinglePartition

  override protected def doExecute(): RDD[InternalRow] = child.execute()

  override def executeCollect(): Array[InternalRow] = {
    // The block's top: under Spark's transition to rows (which codegen may have wrapped since).
    val top = child.collectFirst { case b: BolideExec => b }
      .getOrElse(throw new IllegalStateException(s"$nodeName without a native block: $child"))
    val batches = top.executeColumnar()
    if (batches.getNumPartitions != 1) return child.executeCollect()
    try {
      val rows = BolideDriverCollectExec.runInDriver(batches, schema, sparkContext.getLocalProperties)
      // Metrics updated in the driver reach the UI as driver updates (a task's travel with it).
      val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
      SQLMetrics.postDriverMetricUpdates(sparkContext, executionId,
        child.collect { case b: BolideExec => b.metrics.values }.flatten)
      rows
    } catch {
      case NonFatal(e) =>
        logWarning(s"$nodeName: the block could not run in the driver (${e.getMessage}); running it as a job")
        collectByJob(batches)
    }
  }

  override def executeTake(n: Int): Array[InternalRow] = executeCollect().take(n)

  override def executeTail(n: Int): Array[InternalRow] = executeCollect().takeRight(n)

  private def collectByJob(batches: RDD[ColumnarBatch]): Array[InternalRow] =
    BolideDriverCollectExec.collectRows(batches, schema)

  override protected def withNewChildInternal(newChild: SparkPlan): SparkPlan = copy(child = newChild)
}

object BolideDriverCollectExec {
  /** Attempt ids of the driver's block runs: negative, never a real task's. */
  private val nextId = new AtomicLong()

  /**
   * The final block of a collected global aggregate: a native block whose only inputs are
   * gathered partial states, and that reads no table.
   */
  def applies(top: BolideExec): Boolean = {
    def fed(p: SparkPlan): Boolean = p match {
      case b: BolideExec => b.children.nonEmpty && b.children.forall(fed)
      case _: BolideGatherExec | BolideRowToArrowExec(_: BolideGatherExec) => true
      case _ => false
    }
    fed(top)
  }

  /**
   * Copies of the rows of a block's batches (the batches are reused and released after). The
   * projection is interpreted: a gathered partition or a collected result is a handful of rows,
   * and generating and looking up code for them cost each task about a millisecond.
   */
  def rows(batches: Iterator[ColumnarBatch], schema: StructType): Iterator[InternalRow] = {
    val proj = InterpretedUnsafeProjection.createProjection(
      schema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) })
    batches.flatMap(_.rowIterator().asScala.map(r => proj(r).copy(): InternalRow))
  }

  /** Every partition's rows, collected to the driver (BolideJobs: without closure cleaning). */
  def collectRows(batches: RDD[ColumnarBatch], schema: StructType): Array[InternalRow] =
    BolideJobs.collect(batches.mapPartitionsInternal(rows(_, schema)))

  /** Runs the one partition of `batches` in this thread, as a task of its own. */
  def runInDriver(batches: RDD[ColumnarBatch], schema: StructType, local: java.util.Properties): Array[InternalRow] = {
    val env = SparkEnv.get
    val id = -1 - nextId.getAndIncrement()
    // A task's properties, as the scheduler gives them: the SQL settings propagated to this
    // execution (SQLConf.get in a task reads them; the JVM evaluates dispatched expressions).
    val props = new java.util.Properties()
    if (local != null) local.stringPropertyNames().asScala.foreach(k => props.setProperty(k, local.getProperty(k)))
    val tmm = new TaskMemoryManager(env.memoryManager, id)
    val ctx = new TaskContextImpl(-1, 0, 0, id, 0, 1, tmm, props,
      env.metricsSystem, TaskMetrics.empty, 1, Map.empty)
    val previous = TaskContext.get()
    TaskContext.setTaskContext(ctx)
    try {
      val out = ArrayBuffer.empty[InternalRow]
      try {
        rows(batches.iterator(batches.partitions(0), ctx), schema).foreach(out += _)
      } catch {
        case t: Throwable =>
          ctx.markTaskFailed(t)
          ctx.markTaskCompleted(Some(t))
          throw t
      }
      ctx.markTaskCompleted(None)
      out.toArray
    } finally {
      if (previous == null) TaskContext.unset() else TaskContext.setTaskContext(previous)
      tmm.cleanUpAllAllocatedMemory()
    }
  }
}
