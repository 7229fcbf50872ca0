package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{BaseFixedWidthVector, FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.complex.StructVector

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, AttributeSeq, BindReferences, ExprId, Expression, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeAndComment, CodeFormatter, CodeGenerator, CodegenContext}
import org.apache.spark.sql.execution.arrow.ArrowWriter
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.ArrowUtils

/**
 * The JVM side of expression dispatch (native/expr/dispatch.go): evaluates, for one task of a
 * native block, the expressions the engine has no kernel for, with Spark's own code.
 * `expressions` are the block's encoded expressions by id (PlanEncoder numbers them; they travel
 * to the executors with the block's RDD). Each dispatched expression is bound once per task to the
 * input columns Go sends (by exprId) and compiled into Spark's UnsafeProjection (code generation,
 * falling back to interpretation as Spark does).
 *
 * The cost that matters is per batch and per row (the bench: DispatchBench), so everything that
 * can be is made once per expression and task and reused: the input vectors (Go sends the schema
 * once; every batch's buffers are imported into the same vectors and released again at the end of
 * the call, so nothing of Go's outlives it; when every column is of a type the row view reads
 * from addresses, the batch is not even imported, only read in place), the row view over them
 * (one mutable row, its rowId moved), the projection and the result vector. The result's buffers are new every batch: once
 * exported they belong to Go (which releases them once), and clearing the vector only drops this
 * side's reference; reusing them in place (ArrowWriter.reset) would overwrite a batch Go still
 * reads. Fixed-width results are written straight into Arrow buffers: after the first batch into
 * the ones Go allocates and passes (nothing is exported then), by a loop generated together with
 * the expression's code (DispatchLoop: no projection, no UnsafeRow per row); the others go
 * through Spark's ArrowWriter.
 */
class BolideDispatcher(expressions: Array[Expression], allocator: BufferAllocator, partitionIndex: Int)
  extends NativeDispatcher {

  private val states = new Array[BolideDispatcher.State](expressions.length)

  override def eval(id: Int, exprIds: Array[Long], rows: Long, inArray: Long, inSchema: Long,
      outArray: Long, outSchema: Long, outValidity: Long, outData: Long, outBits: Long): Long = {
    if (id < 0 || id >= expressions.length || expressions(id) == null) {
      throw new IllegalStateException(s"Bolide dispatch: no expression $id in this block")
    }
    var st = states(id)
    if (inSchema != 0) {
      // A new input schema (the first batch, or other Arrow types): the vectors are made again.
      // The projection, bound by exprId, and the result vector stay.
      val schema = Data.importSchema(allocator, ArrowSchema.wrap(inSchema), null)
      if (st == null) {
        if (exprIds == null) throw new IllegalStateException(s"Bolide dispatch: expression $id sent without exprIds")
        st = new BolideDispatcher.State(expressions(id), exprIds, allocator, partitionIndex)
        states(id) = st
      }
      st.setInput(schema.getFields, allocator)
    } else if (st == null) {
      throw new IllegalStateException(s"Bolide dispatch: expression $id sent without its input schema")
    }
    if (st.row.loadRaw(inArray, rows)) {
      // Read in place: Go releases its export once the call returns.
      evaluate(st, rows.toInt, outArray, outSchema, outValidity, outData, outBits)
    } else {
      // Go's buffers are released (by clearing the vectors) whatever happens next.
      Data.importIntoVector(allocator, ArrowArray.wrap(inArray), st.input, null)
      try {
        st.row.load()
        evaluate(st, rows.toInt, outArray, outSchema, outValidity, outData, outBits)
      } finally st.input.clear()
    }
  }

  private def evaluate(st: BolideDispatcher.State, rows: Int, outArray: Long, outSchema: Long, outValidity: Long,
      outData: Long, outBits: Long): Long = {
    if (outData != 0 && st.kind != DispatchResult.NONE && DispatchResult.bits(st.kind) == outBits) {
      val loop = st.loop
      if (loop != null) {
        DispatchResult.zero(st.kind, rows, outValidity, outData)
        loop.run(st.row, rows, outValidity, outData)
      } else {
        DispatchResult.write(st.kind, st.projection, st.row, rows, outValidity, outData)
      }
    } else {
      val out = st.result
      try {
        st.writer.write(st.projection, st.row, rows)
        if (outSchema != 0) {
          Data.exportVector(allocator, out, null, ArrowArray.wrap(outArray), ArrowSchema.wrap(outSchema))
        } else {
          Data.exportVector(allocator, out, null, ArrowArray.wrap(outArray))
        }
      } finally out.clear()
      -1L
    }
  }
}

object BolideDispatcher {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[BolideDispatcher])

  /** Generated loops made and failed in this JVM (tests check that the fast path ran). */
  private[bolide] val loopsGenerated = new java.util.concurrent.atomic.AtomicLong
  private[bolide] val loopsFailed = new java.util.concurrent.atomic.AtomicLong

  /**
   * Compiles `bound` (bound to the row view's ordinals, of a fixed-width result of `kind`) and
   * the loop over a batch's rows into one DispatchLoop, with Spark's code generator: the code the
   * expression generates for a projection, its value stored straight into the result's buffer.
   */
  private def generateLoop(bound: Expression, kind: Int): DispatchLoop = {
    val ctx = new CodegenContext
    ctx.INPUT_ROW = "i"
    val ev = bound.genCode(ctx)
    // The loop's own names are prefixed: the expression's code declares its locals in the loop's
    // body (Spark's fresh names, and a few fixed ones).
    val row = classOf[DispatchRow].getName
    val codeBody = s"""
      public java.lang.Object generate(Object[] references) {
        return new SpecificDispatchLoop(references);
      }

      class SpecificDispatchLoop extends ${classOf[DispatchLoop].getName} {
        private Object[] references;
        ${ctx.declareMutableStates()}

        public SpecificDispatchLoop(Object[] references) {
          this.references = references;
          ${ctx.initMutableStates()}
        }

        public void initialize(int partitionIndex) {
          ${ctx.initPartition()}
        }

        public long run($row i, int bolideRows, long bolideVa, long bolideDa) {
          long bolideNulls = 0;
          for (int bolideK = 0; bolideK < bolideRows; bolideK++) {
            i.rowId = bolideK;
            ${ev.code}
            if (${ev.isNull}) {
              bolideNulls++;
            } else {
              ${classOf[DispatchLoop].getName}.setBit(bolideVa, bolideK);
              ${DispatchResult.store(kind, ev.value.toString, "bolideDa", "bolideK")}
            }
          }
          return bolideNulls;
        }

        ${ctx.declareAddedFunctions()}
      }
    """
    val code = CodeFormatter.stripOverlappingComments(new CodeAndComment(codeBody, ctx.getPlaceHolderToComments()))
    val (clazz, _) = CodeGenerator.compile(code)
    clazz.generate(ctx.references.toArray).asInstanceOf[DispatchLoop]
  }

  /** One dispatched expression's projection, input vectors and result vector, for one task. */
  private[bolide] final class State(e: Expression, exprIds: Array[Long], allocator: BufferAllocator, partitionIndex: Int) {
    private val bound: Expression = {
      // Go sends every bound attribute it found in the encoded expression, which may include
      // some Spark does not bind (inside a ScalaUDF's encoders): those columns are not read.
      val refs = e.references.toSeq
      val attrs: Seq[Attribute] = exprIds.toSeq.map { x =>
        refs.find(_.exprId.id == x).getOrElse(AttributeReference(s"unread_$x", NullType)(ExprId(x)))
      }
      BindReferences.bindReference(e, new AttributeSeq(attrs))
    }
    val projection: UnsafeProjection = {
      val p = UnsafeProjection.create(Seq(bound))
      p.initialize(partitionIndex)
      p
    }
    private val resultRoot: VectorSchemaRoot =
      BolideRowToArrowExec.newRoot(StructType(Seq(StructField("result", e.dataType, nullable = true))), allocator)
    val result: FieldVector = resultRoot.getVector(0)
    val kind: Int = DispatchResult.kindOf(e.dataType)
    /** The fixed-width result's generated loop (null: not fixed-width, or its code did not compile). */
    val loop: DispatchLoop = if (kind == DispatchResult.NONE) null else {
      try {
        val l = BolideDispatcher.generateLoop(bound, kind)
        l.initialize(partitionIndex)
        BolideDispatcher.loopsGenerated.incrementAndGet()
        l
      } catch {
        // As Spark's own factories fall back to interpretation: the projection's path stays.
        case NonFatal(t) =>
          BolideDispatcher.loopsFailed.incrementAndGet()
          BolideDispatcher.log.warn(s"Bolide dispatch: no generated loop for ${e.prettyName}, rows go through " +
            s"a projection: $t")
          null
      }
    }
    val writer: ResultWriter = ResultWriter(e.dataType, result, resultRoot)
    // Left empty between calls: clear() releases the batch's buffers.
    result.clear()

    var input: StructVector = _
    var row: DispatchRow = _

    def setInput(fields: java.util.List[org.apache.arrow.vector.types.pojo.Field], allocator: BufferAllocator): Unit = {
      if (input != null) input.close()
      input = StructVector.emptyWithDuplicates("", allocator)
      input.initializeChildrenFromFields(fields)
      row = new DispatchRow(input.getChildrenFromFields, fields.asScala.map(f => ArrowUtils.fromArrowField(f)).toArray)
    }
  }

  /** Evaluates the projection over the rows and writes its one field into the result vector. */
  private[bolide] abstract class ResultWriter {
    def write(proj: UnsafeProjection, row: DispatchRow, rows: Int): Unit
  }

  private object ResultWriter {
    def apply(dt: DataType, v: FieldVector, root: VectorSchemaRoot): ResultWriter = DispatchResult.kindOf(dt) match {
      case DispatchResult.NONE => new GenericWriter(v, root)
      case kind => new FixedWriter(kind, v.asInstanceOf[BaseFixedWidthVector])
    }
  }

  private final class FixedWriter(kind: Int, v: BaseFixedWidthVector) extends ResultWriter {
    def write(proj: UnsafeProjection, row: DispatchRow, rows: Int): Unit = DispatchResult.write(kind, proj, row, rows, v)
  }

  /** Any other result type, through Spark's ArrowWriter (made once, its buffers new per batch). */
  private final class GenericWriter(v: FieldVector, root: VectorSchemaRoot) extends ResultWriter {
    private val writer = ArrowWriter.create(root)

    def write(proj: UnsafeProjection, row: DispatchRow, rows: Int): Unit = {
      // reset() on the cleared vector only rewinds the writer's count; the buffers are allocated
      // afresh (the last batch's now belong to Go).
      writer.reset()
      v.setInitialCapacity(rows)
      v.allocateNew()
      var i = 0
      while (i < rows) {
        row.rowId = i
        writer.write(proj(row))
        i += 1
      }
      writer.finish()
    }
  }
}
