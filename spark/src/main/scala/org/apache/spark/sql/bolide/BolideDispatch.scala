package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.memory.BufferAllocator

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, AttributeSeq, BindReferences, ExprId, Expression, UnsafeProjection}
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.types.{NullType, StructField, StructType}
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}

/**
 * The JVM side of expression dispatch (native/expr/dispatch.go): evaluates, for one task of a
 * native block, the expressions the engine has no kernel for, with Spark's own code.
 * `expressions` are the block's encoded expressions by id (PlanEncoder numbers them; they travel
 * to the executors with the block's RDD). Each dispatched expression is bound once per task to the
 * input columns Go sends (by exprId) and compiled into Spark's UnsafeProjection (code generation,
 * falling back to interpretation as Spark does); every batch then runs it over the rows of the
 * imported columns and writes the result into a fresh Arrow vector of the task's allocator, which
 * is exported to Go (Go owns it from then on, and releases it once).
 */
class BolideDispatcher(expressions: Array[Expression], allocator: BufferAllocator, partitionIndex: Int)
  extends NativeDispatcher {

  private val projections = new Array[UnsafeProjection](expressions.length)
  private val resultSchemas = new Array[StructType](expressions.length)

  private def projection(id: Int, exprIds: Array[Long]): UnsafeProjection = {
    if (projections(id) == null) {
      val e = expressions(id)
      // Go sends every bound attribute it found in the encoded expression, which may include
      // some Spark does not bind (inside a ScalaUDF's encoders): those columns are not read.
      val refs = e.references.toSeq
      val attrs: Seq[Attribute] = exprIds.toSeq.map { x =>
        refs.find(_.exprId.id == x).getOrElse(AttributeReference(s"unread_$x", NullType)(ExprId(x)))
      }
      val bound = BindReferences.bindReference(e, new AttributeSeq(attrs))
      val p = UnsafeProjection.create(Seq(bound))
      p.initialize(partitionIndex)
      projections(id) = p
      resultSchemas(id) = StructType(Seq(StructField("result", e.dataType, nullable = true)))
    }
    projections(id)
  }

  override def eval(id: Int, exprIds: Array[Long], rows: Long, inArray: Long, inSchema: Long,
      outArray: Long, outSchema: Long): Unit = {
    if (id < 0 || id >= expressions.length || expressions(id) == null) {
      throw new IllegalStateException(s"Bolide dispatch: no expression $id in this block")
    }
    // Imported first, so that Go's export is released (by closing `in`) whatever happens next.
    val in = Data.importVectorSchemaRoot(allocator, ArrowArray.wrap(inArray), ArrowSchema.wrap(inSchema), null)
    try {
      val proj = projection(id, exprIds)
      val vectors = in.getFieldVectors.asScala.map(v => new ArrowColumnVector(v): ColumnVector).toArray
      val batch = new ColumnarBatch(vectors, rows.toInt)
      val out = BolideRowToArrowExec.newRoot(resultSchemas(id), allocator)
      try {
        val writer = ArrowWriter.create(out)
        val it = batch.rowIterator()
        while (it.hasNext) writer.write(proj(it.next()))
        writer.finish()
        Data.exportVectorSchemaRoot(allocator, out, null, ArrowArray.wrap(outArray), ArrowSchema.wrap(outSchema))
      } finally out.close()
    } finally in.close()
  }
}
