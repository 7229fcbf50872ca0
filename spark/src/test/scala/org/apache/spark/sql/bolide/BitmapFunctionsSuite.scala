package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.aggregate.SortAggregateExec

/**
 * bitmap_construct_agg, bitmap_or_agg and bitmap_and_agg (native/ops/aggregate/bitmapagg.go),
 * Bolide off vs on, over a table of 4 files (4 tasks, a shuffle between the halves of every
 * aggregate). Their binary buffer makes Spark plan a SortAggregate, native only without grouping
 * keys; binary inputs of every length (empty, short, exactly 4096 bytes, longer) exercise
 * bitmapMerge's common prefix and bitmapAndMerge's clearing of the bytes past a short input.
 * The mixed plans keep one half in Spark, which reads or writes the engine's 4096-byte buffers.
 */
class BitmapFunctionsSuite extends BolideSuiteBase {
  private val Agg = "BolideHashAggregate"

  private val Project = "BolideProject"

  @Before def setUp(): Unit = BitmapFunctionsSuite.ensure(spark)

  private val all = "bitmap_construct_agg(pos), bitmap_construct_agg(small), bitmap_or_agg(bm), " +
    "bitmap_and_agg(bm), bitmap_and_agg(full), bitmap_and_agg(mostly), bitmap_or_agg(mostly)"

  private def sparkSortAggregates(sql: String): Int = {
    val df = spark.sql(sql)
    df.collect()
    planNodes(df.queryExecution.executedPlan).count(_.isInstanceOf[SortAggregateExec])
  }

  @Test def allFunctions(): Unit = {
    for (ansi <- Seq("true", "false")) {
      withConf("spark.sql.ansi.enabled" -> ansi) {
        checkNative(s"SELECT $all FROM bitmaps", Seq(Agg, Agg))
        checkNative(s"SELECT $all, count(*) FROM bitmaps WHERE id % 3 = 1", Seq(Agg, Agg))
        // One task: no exchange between the halves.
        checkNative(s"SELECT $all FROM (SELECT /*+ COALESCE(1) */ * FROM bitmaps)", Seq(Agg, Agg))
      }
    }
  }

  @Test def emptyAndNullInputs(): Unit = {
    // No rows, or only nulls: the initial bitmaps (zeros; 0xFF for and), never null.
    checkNative(s"SELECT $all FROM bitmaps WHERE id < 0", Seq(Agg, Agg))
    checkNative("SELECT bitmap_construct_agg(nlong), bitmap_or_agg(nbin), bitmap_and_agg(nbin) FROM bitmaps",
      Seq(Agg, Agg))
    // An empty binary clears the whole and-bitmap; one 2-byte input all but its first 2 bytes.
    checkNative("SELECT bitmap_and_agg(full), bitmap_and_agg(mostly) FROM bitmaps WHERE id % 1000 IN (7, 13, 14)",
      Seq(Agg, Agg))
    val df = checkNative("SELECT bitmap_and_agg(mostly), bitmap_or_agg(mostly) FROM bitmaps WHERE id % 1000 IN (7, 14)",
      Seq(Agg, Agg))
    val and = df.collect().head.getAs[Array[Byte]](0)
    assertEquals(4096, and.length)
    assertEquals(Seq(0xF0.toByte, 0xFF.toByte, 0.toByte), and.take(3).toSeq)
    assertEquals(2, and.count(_ != 0))
    checkNative("SELECT bitmap_and_agg(bm), bitmap_or_agg(bm) FROM bitmaps WHERE id % 9 = 1", Seq(Agg, Agg))
  }

  @Test def buffersCrossTheBoundary(): Unit = {
    // A Scala UDF (never native) over the result keeps the Final in Spark, which merges the
    // engine's buffers; in the argument it keeps the Partial in Spark, whose buffers the engine merges.
    spark.udf.register("bm_same", (x: Array[Byte]) => x)
    spark.udf.register("bm_same_long", (x: java.lang.Long) => x)
    val finalInSpark = "SELECT bm_same(bitmap_construct_agg(pos)), bm_same(bitmap_or_agg(bm)), " +
      "bm_same(bitmap_and_agg(full)), bm_same(bitmap_and_agg(mostly)) FROM bitmaps"
    checkNative(finalInSpark, Seq(Agg))
    assertTrue("the Final aggregate should stay in Spark", sparkSortAggregates(finalInSpark) >= 1)
    val partialInSpark = "SELECT bitmap_construct_agg(bm_same_long(pos)), bitmap_or_agg(bm_same(bm)), " +
      "bitmap_and_agg(bm_same(full)), bitmap_and_agg(bm_same(mostly)) FROM bitmaps"
    // With dispatch (the default) the JVM would evaluate the UDF inside a native Partial.
    withoutDispatch {
      checkNative(partialInSpark, Seq(Agg))
      assertTrue("the Partial aggregate should stay in Spark", sparkSortAggregates(partialInSpark) >= 1)
    }
  }

  @Test def invalidPosition(): Unit = {
    // The same shape with valid positions runs natively; out of range it raises Spark's error.
    checkNative("SELECT bitmap_construct_agg(if(id = 12345, 32767, pos)) FROM bitmaps", Seq(Agg, Agg))
    for (ansi <- Seq("true", "false"); bad <- Seq("32768", "-1", "9223372036854775807")) {
      withConf("spark.sql.ansi.enabled" -> ansi) {
        val (off, on) = errorClassBothWays(s"SELECT bitmap_construct_agg(if(id = 12345, $bad, pos)) FROM bitmaps")
        assertEquals(Some("INVALID_BITMAP_POSITION"), off)
        assertEquals(s"position $bad, ansi $ansi", off, on)
      }
    }
  }

  @Test def refused(): Unit = {
    // With grouping keys Spark's SortAggregate must keep its sorted output: the aggregates stay in
    // Spark, with the same answers.
    val grouped = s"SELECT g, $all FROM bitmaps GROUP BY g"
    val df = checkNative(grouped, Seq())
    assertFalse(s"no native aggregate expected: ${nativeOperators(df)}", nativeOperators(df).contains(Agg))
    assertTrue("the aggregates should stay in Spark", sparkSortAggregates(grouped) >= 1)
  }

  // array_sort with the default comparator (native/expr/arraysortdefault.go): ascending, nulls
  // last, NaN greatest, -0.0 and 0.0 equal (input order kept; the rendering tells them apart).
  @Test def arraySortDefault(): Unit = {
    for (ansi <- Seq("true", "false")) {
      withConf("spark.sql.ansi.enabled" -> ansi) {
        checkNative("SELECT id, array_sort(ai), array_sort(ad), array_sort(af), array_sort(astr), " +
          "transform(array_sort(abin), b -> hex(b)), " +
          "array_sort(adec), array_sort(adate), array_sort(ats), array_sort(abool), array_sort(al) FROM arrsort",
          Seq(Project))
      }
    }
    // Elements that cannot be null: the optimizer folds the comparator's null tests away.
    checkNative("SELECT id, array_sort(array(coalesce(cast(id % 7 as int), 0), cast(id % 3 as int), 1)), " +
      "array_sort(array(coalesce(cast(id % 5 as string), 'zz'), 'b', 'é')), " +
      "array_sort(array(coalesce(case id % 4 when 0 then cast('NaN' as double) when 1 then -0.0d " +
      "when 2 then 0.0d end, -1.5d), 0.0d, -0.0d)) FROM arrsort", Seq(Project))
  }

  @Test def arraySortRefused(): Unit = withConf("spark.bolide.dispatch.enabled" -> "false") {
    // A user comparator (even one sorting the same way) has no kernel: with dispatch off it stays
    // in Spark, with the same answers (with dispatch on, Spark's code evaluates it in the native
    // projection).
    val user = "SELECT id, array_sort(ai, (l, r) -> case when l < r then 1 when l > r then -1 else 0 end) " +
      "FROM arrsort WHERE forall(ai, x -> x IS NOT NULL)"
    val df = checkNative(user, Seq())
    assertFalse(s"array_sort with a comparator ran natively: ${nativeOperators(df)}",
      nativeOperators(df).contains(Project))
    // Arrays of arrays: not an element type of the kernel.
    val nested = "SELECT id, array_sort(array(ai, array(1))) FROM arrsort"
    val df2 = checkNative(nested, Seq())
    assertFalse(s"array_sort of arrays ran natively: ${nativeOperators(df2)}", nativeOperators(df2).contains(Project))
  }
}

object BitmapFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 20000, 1, 4).selectExpr(
      "id",
      "cast(id % 5 as int) as g",
      "if(id % 7 = 0, null, id * 7919 % 32768) as pos",
      "if(id % 6 = 0, null, id % 3000) as small",
      // null, empty, 2 bytes, 5000 bytes (longer than a bitmap), one set byte at an offset < 4000
      "case when id % 9 = 0 then null when id % 9 = 1 then X'' " +
        "when id % 9 = 2 then unhex(lpad(hex(id % 65536), 4, '0')) " +
        "when id % 9 = 3 then unhex(repeat(lpad(hex(id % 256), 2, '0'), 5000)) " +
        "else unhex(concat(repeat('00', id % 4000), lpad(hex(id % 255 + 1), 2, '0'))) end as bm",
      // bitmaps whose and keeps bits: 0xFF and 0xF7 bytes, some longer than 4096 bytes
      "case when id % 13 = 0 then null when id % 13 = 1 then unhex(repeat('FF', 4100)) " +
        "else unhex(repeat(if(id % 2 = 0, 'FF', 'F7'), 4096)) end as full",
      "case when id % 1000 = 7 then unhex('F0FF') when id % 1000 = 13 then X'' " +
        "else unhex(repeat('FF', 4096)) end as mostly",
      "cast(null as binary) as nbin",
      "cast(null as bigint) as nlong"
    ).write.mode("overwrite").parquet(TestData.path("bitmaps"))
    spark.read.parquet(TestData.path("bitmaps")).createOrReplaceTempView("bitmaps")

    def arr(n: String, elem: String): String =
      s"if(id % 10 = 0, null, transform(sequence(0, cast(id % $n as int)), x -> $elem))"
    spark.range(0, 5000, 1, 4).selectExpr(
      "id",
      arr("8", "if((x + id) % 4 = 0, null, cast((x * 7919 + id) % 13 - 6 as int))") + " as ai",
      arr("8", "case (x + id) % 7 when 0 then null when 1 then -0.0d when 2 then 0.0d " +
        "when 3 then cast('NaN' as double) when 4 then cast('-Infinity' as double) " +
        "else (x * id % 11) / 3.0d - 1 end") + " as ad",
      arr("6", "cast(case (x + id) % 5 when 0 then null when 1 then -0.0d when 2 then cast('NaN' as double) " +
        "else (x * id % 5) - 2.5d end as float)") + " as af",
      arr("6", "case (x + id) % 6 when 0 then null when 1 then '' when 2 then 'é' when 3 then 'zü漢' " +
        "else concat('a', cast(x * id % 9 as string)) end") + " as astr",
      arr("5", "case (x + id) % 5 when 0 then null when 1 then X'' when 2 then X'FF00' when 3 then X'7F' " +
        "else cast(cast(x * id % 9 as string) as binary) end") + " as abin",
      arr("4", "if(x = 1, null, cast((x * id % 17 - 8) / 4 as decimal(10,2)))") + " as adec",
      arr("5", "if((x + id) % 4 = 0, null, date_add(date'2020-01-01', cast((x * id) % 100 - 50 as int)))") +
        " as adate",
      arr("5", "if((x + id) % 4 = 1, null, timestamp_seconds((x * id) % 1000 - 500))") + " as ats",
      arr("5", "if((x + id) % 3 = 0, null, (x + id) % 2 = 0)") + " as abool",
      arr("6", "if((x + id) % 5 = 2, null, (x * 1000000000007 + id) % 99991 - 50000)") + " as al"
    ).write.mode("overwrite").parquet(TestData.path("arrsort"))
    spark.read.parquet(TestData.path("arrsort")).createOrReplaceTempView("arrsort")
  }
}
