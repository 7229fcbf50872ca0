package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * div (native/expr/intdiv.go), bit_get/getbit (bitget.go), elt (elt.go) and conv (conv.go) against Spark: each
 * query runs with Bolide off and on over a Parquet table, answers must be identical and the
 * projection native; in ANSI mode the errors (DIVIDE_BY_ZERO, ARITHMETIC_OVERFLOW,
 * INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE, INVALID_ARRAY_INDEX, conv's ARITHMETIC_OVERFLOW) must
 * carry Spark's error class.
 */
class MiscFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = MiscFunctionsSuite.ensure(spark)

  @Test def integralDivide(): Unit = {
    checkNative("SELECT id, a div b, a div 3, b div a, i div j, -a div 7 FROM dbe WHERE b <> 0 AND b <> -1 AND a <> 0 AND j <> 0",
      Seq(Scan, Project))
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative("SELECT id, a div b, b div a, i div j, a div 0 FROM dbe", Seq(Scan, Project))
    }
    val (off, on) = errorClassBothWays("SELECT a div b FROM dbe WHERE b = 0")
    assertEquals(Some("DIVIDE_BY_ZERO"), off)
    assertEquals(off, on)
    val (off2, on2) = errorClassBothWays("SELECT a div b FROM dbe WHERE b = -1")
    assertEquals(Some("ARITHMETIC_OVERFLOW"), off2)
    assertEquals(off2, on2)
  }

  @Test def bitGet(): Unit = {
    checkNative("SELECT id, bit_get(i, p), getbit(a, 63), bit_get(a, p), bit_get(cast(j AS TINYINT), 7), " +
      "bit_get(cast(j AS SMALLINT), 15), getbit(j, 0) FROM dbe", Seq(Scan, Project))
    val (off, on) = errorClassBothWays("SELECT bit_get(i, p + 20) FROM dbe")
    assertEquals(Some("INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE"), off)
    assertEquals(off, on)
  }

  @Test def elt(): Unit = {
    checkNative("SELECT id, elt(n, s, t, 'lit'), elt(2, s, t) FROM dbe WHERE n BETWEEN 1 AND 3 OR n IS NULL",
      Seq(Scan, Project))
    withConf("spark.sql.ansi.enabled" -> "false") {
      // (A string-to-binary cast may fail in ANSI mode, and Elt refuses inputs that may fail.)
      checkNative("SELECT id, elt(n, s, t, 'lit'), elt(n, s), elt(n, cast(s AS BINARY), cast(t AS BINARY), X'00') FROM dbe",
        Seq(Scan, Project))
    }
    val (off, on) = errorClassBothWays("SELECT elt(n, s, t) FROM dbe")
    assertEquals(Some("INVALID_ARRAY_INDEX"), off)
    assertEquals(off, on)
  }

  @Test def conv(): Unit = {
    checkNative("SELECT id, conv(num, fb, tb), conv(num, 16, 10), conv(num, 10, -16), conv(num, 36, 2), " +
      "conv(num, 2, -36) FROM conv_data WHERE id < 7 OR id BETWEEN 10 AND 15", Seq(Scan, Project))
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative("SELECT id, conv(num, fb, tb), conv(num, 16, 10), conv(num, 10, -10), conv(num, 36, 16) FROM conv_data",
        Seq(Scan, Project))
    }
    val (off, on) = errorClassBothWays("SELECT conv(num, 16, 10) FROM conv_data WHERE id >= 100")
    assertEquals(Some("ARITHMETIC_OVERFLOW"), off)
    assertEquals(off, on)
  }
}

object MiscFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      // a, b: longs with zero and Long.MinValue div -1; i, j: ints; p: bit positions; n: elt
      // indexes (in and out of range, null); s, t: strings.
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, 7L, 2L, 11, 3, 0, 1, 'a', 'x'),
          |  (1, -7L, 2L, -1, 2, 31, 2, 'é😀', ''),
          |  (2, 7L, -2L, 2147483647, -5, 5, 3, '', 'yy'),
          |  (3, -9223372036854775808L, -1L, -2147483648, -1, 11, 0, NULL, 'z'),
          |  (4, 9223372036854775807L, 0L, 0, 0, 1, 4, 'b', NULL),
          |  (5, NULL, 5L, NULL, 7, NULL, NULL, 'c', 'w'),
          |  (6, 100L, NULL, 8, NULL, 3, -1, 'd', 'v'),
          |  (7, 0L, 3L, 0, 1, 0, 2, 'e', 'u')
          |AS t(id, a, b, i, j, p, n, s, t)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("dbe"))
      spark.read.parquet(TestData.path("dbe")).createOrReplaceTempView("dbe")
      // conv inputs; ids from 100 on overflow 64 bits in base 16.
      spark.sql(
        """SELECT * FROM VALUES
          |  (0, '10', 10, 16), (1, 'ff', 16, 10), (2, '-10', 10, -10), (3, '-', 10, -10), (4, '', 10, 2),
          |  (5, 'zz', 36, 10), (6, '12x3', 10, 10), (7, '9223372036854775808', 10, -16), (8, NULL, 10, 10),
          |  (9, '18446744073709551615', 10, 16), (10, 'é5', 10, 10), (11, '7', 1, 10), (12, '7', 10, 37),
          |  (13, '-1', 10, 2), (14, '0', 2, 36), (15, '111', NULL, 10),
          |  (100, 'ffffffffffffffffff', 16, 10), (101, '10000000000000000000', 16, 10)
          |AS t(id, num, fb, tb)""".stripMargin)
        .repartition(2).write.mode("overwrite").parquet(TestData.path("conv_data"))
      spark.read.parquet(TestData.path("conv_data")).createOrReplaceTempView("conv_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
