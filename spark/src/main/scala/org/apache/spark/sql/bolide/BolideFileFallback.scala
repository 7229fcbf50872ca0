package org.apache.spark.sql.bolide

import scala.util.control.NonFatal

import org.apache.arrow.memory.BufferAllocator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{FileFormat, FileScanRDD, PartitionedFile}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's own reader of a native scan's files, for the files the Go engine finds it cannot
 * decode: it reads them as the scan would have in Spark (the read function of the scan's
 * FileScanRDD: its options, filters and partition values), and hands the batches to Go like a
 * Spark child's.
 */
final case class SparkFileReader(read: PartitionedFile => Iterator[InternalRow], schema: StructType)

object SparkFileReader {
  /**
   * The read function FileSourceScanExec built for its FileScanRDD (a constructor field, public in
   * bytecode under its mangled name), or, where that is not there, one built the same way with
   * rows as output.
   */
  def of(scan: FileSourceScanExec, rdd: FileScanRDD): SparkFileReader = {
    val read = try {
      val f = classOf[FileScanRDD].getDeclaredFields.find(_.getName.endsWith("readFunction")).get
      f.setAccessible(true)
      f.get(rdd).asInstanceOf[PartitionedFile => Iterator[InternalRow]]
    } catch {
      case NonFatal(_) =>
        val rel = scan.relation
        rel.fileFormat.buildReaderWithPartitionValues(rel.sparkSession, rel.dataSchema, rel.partitionSchema,
          scan.requiredSchema, Nil, rel.options + (FileFormat.OPTION_RETURNING_BATCH -> "false"),
          rel.sparkSession.sessionState.newHadoopConfWithOptions(rel.options))
    }
    SparkFileReader(read, StructType(scan.requiredSchema.fields ++ scan.relation.partitionSchema.fields))
  }
}

/**
 * Iceberg Java's reader of an Iceberg scan's tasks: the scan's reader factory, its output schema,
 * and this Spark task's input partitions.
 */
final case class IcebergTaskReader(
    factory: org.apache.spark.sql.connector.read.PartitionReaderFactory,
    schema: StructType,
    parts: Seq[org.apache.spark.sql.connector.read.InputPartition])

/**
 * The task's fallback: `files(scanId)(i)` is the task's split i of that scan; for an Iceberg scan,
 * i numbers its FileScanTasks.
 */
class BolideFileFallback(
    readers: Map[Int, SparkFileReader],
    files: Map[Int, Array[PartitionedFile]],
    batchSize: Int,
    allocator: BufferAllocator,
    own: AutoCloseable => Unit,
    iceberg: Map[Int, IcebergTaskReader] = Map.empty) extends NativeFileFallback {

  override def open(scanId: Int, fileIndex: Int): NativeInput = iceberg.get(scanId) match {
    case Some(r) => IcebergScans.readTask(r.factory, r.parts, fileIndex) match {
      case Left(batches) => new ArrowInput(batches, r.schema, allocator)
      case Right(rows) =>
        val batches = new ArrowBatches(rows, r.schema, batchSize, allocator)
        own(batches)
        new ArrowInput(batches, r.schema, allocator)
    }
    case None => openFile(scanId, fileIndex)
  }

  private def openFile(scanId: Int, fileIndex: Int): NativeInput = {
    val reader = readers.getOrElse(scanId,
      throw new IllegalStateException(s"no Spark reader for native scan $scanId"))
    val file = files(scanId)(fileIndex)
    // The read function yields ColumnarBatches (vectorized reader) or rows, erased to InternalRow.
    val out = reader.read(file).asInstanceOf[Iterator[Any]].buffered
    val batches: Iterator[ColumnarBatch] =
      if (out.hasNext && out.head.isInstanceOf[ColumnarBatch]) out.map(_.asInstanceOf[ColumnarBatch])
      else {
        val rows = new ArrowBatches(out.map(_.asInstanceOf[InternalRow]), reader.schema, batchSize, allocator)
        own(rows)
        rows
      }
    new ArrowInput(batches, reader.schema, allocator)
  }
}
