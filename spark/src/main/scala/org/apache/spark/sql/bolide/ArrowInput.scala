package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.ArrowType

import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.ArrowUtils
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnarBatch}

/**
 * Feeds a Spark child's batches to a native block. `schema` is the child's output: what the block
 * was planned for, and what every exported batch has, whatever the child's batches look like.
 *
 * A batch whose columns are plain Arrow vectors of exactly the expected types is exported as it
 * is (zero-copy: the export holds its own references, so the producer may reuse or free its
 * vectors afterwards). Anything else is written into fresh Arrow vectors of the expected types,
 * reading the batch through Spark's own ColumnVector getters: Spark's on-heap/off-heap and
 * constant vectors, dictionary-encoded vectors, Iceberg's vectors (whose dataType() may be null,
 * and whose batches may carry extra columns or a row-id mapping for deleted rows), filtered Arrow
 * batches whose vectors hold more rows than the batch.
 */
class ArrowInput(iter: Iterator[ColumnarBatch], schema: StructType, allocator: BufferAllocator)
  extends NativeInput {

  private val expectedTypes: Array[ArrowType] =
    BolideRowToArrowExec.arrowSchema(schema).getFields.asScala.map(_.getType).toArray

  override def next(arrayAddress: Long, schemaAddress: Long): Boolean = {
    while (iter.hasNext) {
      val b = iter.next()
      if (b.numRows() > 0) {
        export(b, arrayAddress, schemaAddress)
        return true
      }
    }
    false
  }

  private def export(b: ColumnarBatch, arrayAddress: Long, schemaAddress: Long): Unit = {
    if (b.numCols() < schema.length) {
      throw new IllegalStateException(s"a Spark child of a native block produced a batch of " +
        s"${b.numCols()} columns for its ${schema.length} output columns (${schema.simpleString})")
    }
    if (zeroCopy(b)) {
      val vectors = (0 until schema.length).map(i =>
        b.column(i).asInstanceOf[ArrowColumnVector].getValueVector.asInstanceOf[FieldVector])
      val root = new VectorSchemaRoot(vectors.map(_.getField).asJava, vectors.asJava, b.numRows())
      Data.exportVectorSchemaRoot(allocator, root, null,
        ArrowArray.wrap(arrayAddress), ArrowSchema.wrap(schemaAddress))
    } else {
      val root = BolideRowToArrowExec.newRoot(schema, allocator)
      try {
        val writer = ArrowWriter.create(root)
        // Rows of a batch: only the first schema.length columns are read, by the expected types.
        val rows = b.rowIterator()
        while (rows.hasNext) writer.write(rows.next())
        writer.finish()
        Data.exportVectorSchemaRoot(allocator, root, null,
          ArrowArray.wrap(arrayAddress), ArrowSchema.wrap(schemaAddress))
      } finally root.close()
    }
  }

  private def zeroCopy(b: ColumnarBatch): Boolean =
    b.numCols() == schema.length && (0 until schema.length).forall { i =>
      b.column(i) match {
        case a: ArrowColumnVector
            if a.getClass == classOf[ArrowColumnVector] || a.isInstanceOf[DirectArrowColumnVector] =>
          val v = a.getValueVector
          v.isInstanceOf[FieldVector] && v.getValueCount == b.numRows() &&
            v.getField.getDictionary == null && sameType(v.getField.getType, expectedTypes(i))
        case _ => false
      }
    }

  /** Timestamps may carry any zone tag (the values are UTC microseconds either way). */
  private def sameType(actual: ArrowType, expected: ArrowType): Boolean = (actual, expected) match {
    case (a: ArrowType.Timestamp, e: ArrowType.Timestamp) =>
      a.getUnit == e.getUnit && (a.getTimezone == null) == (e.getTimezone == null)
    case _ => actual == expected
  }
}
