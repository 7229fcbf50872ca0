package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}

import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.util.ArrowUtils
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnarBatch}

/**
 * Feeds a Spark child's batches to a native block. Arrow-backed batches are exported as they are
 * (zero-copy: the export holds its own references, so the producer may reuse or free its vectors
 * afterwards); any other columnar batch is first written into Arrow.
 */
class ArrowInput(iter: Iterator[ColumnarBatch], allocator: BufferAllocator) extends NativeInput {
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
    val cols = (0 until b.numCols()).map(b.column)
    if (cols.forall(_.isInstanceOf[ArrowColumnVector])) {
      val vectors = cols.map(_.asInstanceOf[ArrowColumnVector].getValueVector.asInstanceOf[FieldVector])
      val root = new VectorSchemaRoot(vectors.map(_.getField).asJava, vectors.asJava, b.numRows())
      Data.exportVectorSchemaRoot(allocator, root, null,
        ArrowArray.wrap(arrayAddress), ArrowSchema.wrap(schemaAddress))
    } else {
      val schema = StructType(cols.zipWithIndex.map { case (c, i) => StructField(s"c$i", c.dataType()) })
      val root = BolideRowToArrowExec.newRoot(schema, allocator)
      try {
        val writer = ArrowWriter.create(root)
        b.rowIterator().asScala.foreach(writer.write)
        writer.finish()
        Data.exportVectorSchemaRoot(allocator, root, null,
          ArrowArray.wrap(arrayAddress), ArrowSchema.wrap(schemaAddress))
      } finally root.close()
    }
  }
}
