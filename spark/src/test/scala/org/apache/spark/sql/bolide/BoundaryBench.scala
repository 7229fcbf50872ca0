package org.apache.spark.sql.bolide

import java.nio.charset.StandardCharsets

import org.apache.arrow.c.{ArrowArray, ArrowSchema, Data}
import org.apache.arrow.vector.{BigIntVector, VectorSchemaRoot}

import org.apache.spark.sql.types.{LongType, StructType}
import org.apache.spark.sql.vectorized.{ArrowColumnVector, ColumnVector, ColumnarBatch}

/**
 * Measures the cost of one batch crossing the JNI boundary both ways, without Spark: a native block
 * Filter(true) over one input. Each `next` is one Java->Go call, one Go->Java upcall that exports
 * the input batch (Java -> Go, C Data Interface), and the export of the result back to Java.
 * `make bench` runs it; results are per batch, for 1-row and 8192-row batches of one long column.
 */
object BoundaryBench {
  private val cat = "org.apache.spark.sql.catalyst.expressions."

  private def plan: String =
    s"""{"id":0,"class":"org.apache.spark.sql.execution.FilterExec","nodeName":"Filter",
       |"output":[{"name":"x","exprId":1,"dataType":"long","nullable":true}],
       |"fields":{"condition":{"class":"${cat}Literal","dataType":"boolean","nullable":false,
       |"deterministic":true,"fields":{"value":true}}},
       |"children":[{"id":1,"class":"Input","nodeName":"Input","input":0,
       |"output":[{"name":"x","exprId":1,"dataType":"long","nullable":true}],"fields":{},"children":[]}]}""".stripMargin

  def main(args: Array[String]): Unit = {
    NativeLoader.load()
    Seq(1, 8192).foreach { rows =>
      Seq(20000, 200000).foreach(n => run(rows, n, report = n == 200000))
    }
  }

  private def run(rows: Int, batches: Int, report: Boolean): Unit = {
    val allocator = BolideArrow.newTaskAllocator("boundary-bench")
    val inputAllocator = BolideArrow.newTaskAllocator("boundary-bench-input")
    val vec = new BigIntVector("x", inputAllocator)
    vec.allocateNew(rows)
    (0 until rows).foreach(i => vec.set(i, i.toLong))
    vec.setValueCount(rows)
    val root = VectorSchemaRoot.of(vec)
    val batch = new ColumnarBatch(Array[ColumnVector](new ArrowColumnVector(vec)), rows)
    var left = batches
    val input = new ArrowInput(new Iterator[ColumnarBatch] {
      override def hasNext: Boolean = left > 0
      override def next(): ColumnarBatch = { left -= 1; batch }
    }, new StructType().add("x", LongType), allocator)
    val request =
      s"""{"conf":{"sessionTimeZone":"UTC","ansi":true,"batchSize":8192},"plan":$plan,"files":{},"partitionIndex":0}"""
    val handle = NativeLib.createPlan(request.getBytes(StandardCharsets.UTF_8), Array[AnyRef](input), null, null)
    val it = new NativeBatchIterator(handle, allocator, null,
      new org.apache.spark.sql.execution.metric.SQLMetric("sum"),
      new org.apache.spark.sql.execution.metric.SQLMetric("sum"),
      new org.apache.spark.sql.execution.metric.SQLMetric("nsTiming"))
    var seen = 0L
    val t0 = System.nanoTime()
    while (it.hasNext) seen += it.next().numRows()
    val ns = System.nanoTime() - t0
    it.close()
    root.close()
    inputAllocator.close()
    require(seen == rows.toLong * batches, s"saw $seen rows")
    if (report) {
      println(f"boundary round trip, $rows%5d-row batches: ${ns.toDouble / batches / 1000}%.2f us per batch " +
        f"(${ns.toDouble / seen}%.2f ns per row) over $batches batches")
    }
  }
}
