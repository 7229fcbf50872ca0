package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types._

/**
 * The floating-point math functions of native/expr/mathstrict.go (fdlibm's algorithms behind
 * StrictMath, in native/expr/fdlibm.go) against Spark on this JVM, over a Parquet table of
 * 40,000 rows of random doubles (fixed seed) spread over every magnitude, subnormals, integers,
 * arguments near each function's domain edges, and every pair of edge values (zeros of both
 * signs, infinities, NaN, the extremes): each query runs with Bolide off and on, and the answers
 * must be identical (Double.toString, which tells every two doubles apart) with the projection
 * run natively. A function that differed on one row could not be native.
 */
class MathFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = MathFunctionsSuite.ensure(spark)

  @Test def expAndLogarithms(): Unit = {
    checkNative("SELECT id, exp(x), expm1(x), exp(w), expm1(w), ln(x), log2(x), log10(x), log1p(x), " +
      "ln(u), log1p(u), log10(w), log2(w) FROM math_data", Seq(Scan, Project))
    // log with one argument is Logarithm(EulerNumber(), x), folded to a literal base.
    checkNative("SELECT id, log(x), log(y, x), log(2.0D, y), log(x, 10.0D), log(u, w), log(0.5D, u) FROM math_data",
      Seq(Scan, Project))
  }

  @Test def powers(): Unit = {
    checkNative("SELECT id, pow(x, y), power(y, x), pow(px, py), power(u, py), pow(x, 0.5D), pow(px, 3.0D), " +
      "pow(2.0D, w), pow(x, -1.0D), cbrt(x), cbrt(w), hypot(x, y), hypot(u, w), hypot(px, py) FROM math_data",
      Seq(Scan, Project))
  }

  @Test def inverseTrigonometric(): Unit = {
    checkNative("SELECT id, asin(u), acos(u), atan(x), asin(x), acos(x), atan(w), atan(u), atan2(y, x), " +
      "atan2(x, y), atan2(u, w), atan2(x, 1.0D), atan2(0.0D, x) FROM math_data", Seq(Scan, Project))
  }

  @Test def hyperbolic(): Unit = {
    checkNative("SELECT id, sinh(x), cosh(x), tanh(x), sinh(w), cosh(w), tanh(w), tanh(u), asinh(x), acosh(x), " +
      "atanh(u), atanh(x), asinh(w), acosh(w) FROM math_data", Seq(Scan, Project))
  }

  @Test def exactOnes(): Unit = {
    checkNative("SELECT id, rint(x), rint(w), degrees(x), radians(x), degrees(u), radians(w) FROM math_data",
      Seq(Scan, Project))
  }

  @Test def widthBucket(): Unit = {
    checkNative("SELECT id, width_bucket(x, y, u, id % 7 - 1), width_bucket(w, -100.0D, 100.0D, 10L), " +
      "width_bucket(u, 1.0D, -1.0D, id % 1000), width_bucket(x, -1e300D, 1e300D, 9223372036854775806L), " +
      "width_bucket(px, 0.0D, 10.0D, 3L) FROM math_data", Seq(Scan, Project))
  }

  @Test def bankersRounding(): Unit = {
    // bround of decimals (HALF_EVEN), with ties at every rounding position, 64- and 128-bit.
    checkNative("SELECT id, bround(dec, 2), bround(dec, 0), bround(dec, 3), bround(dec, 6), bround(wdec, 0), " +
      "bround(wdec, 9), bround(wdec, 5), round(dec, 2) FROM math_data", Seq(Scan, Project))
  }

  @Test def intrinsifiedOnesStayInSpark(): Unit = withoutDispatch {
    // Math.sin/cos/tan are HotSpot intrinsics (not StrictMath): the projection stays in Spark.
    val df = checkNative("SELECT id, sin(x), cos(x), tan(x), cot(x), sec(x), csc(x) FROM math_data", Seq(Scan))
    assertFalse(nativeOperators(df).mkString(", "), nativeOperators(df).contains(Project))
  }
}

object MathFunctionsSuite {
  private var done = false
  val Rows = 40000

  private val Edges = Array[Double](0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 10.0, 1e-300, -1e-300,
    java.lang.Double.MIN_VALUE, -java.lang.Double.MIN_VALUE, java.lang.Double.MIN_NORMAL, 2.2250738585072009e-308,
    Double.MaxValue, -Double.MaxValue, Double.PositiveInfinity, Double.NegativeInfinity, Double.NaN,
    math.Pi, -math.Pi, math.Pi / 2, math.E, 0.1, 1e-10, 1e-20, 0.9999999999999999, 1.0000000000000002,
    -0.9999999999999999, 0.975, 0.4375, 1.1875, 2.4375, 22.0, -22.0, 709.782712893384, 710.0, -745.2,
    1e10, 1e300, 4503599627370496.5, 2.5, -2.5, 0.49999999999999994, 38.816242111356935, 5e-324)

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      val rnd = new java.util.Random(20261204L)
      def sign: Double = if (rnd.nextBoolean()) 1 else -1
      // Raw bits, a log-uniform magnitude over all doubles, small ranges, integers.
      def any(): Double = rnd.nextInt(6) match {
        case 0 => java.lang.Double.longBitsToDouble(rnd.nextLong())
        case 1 => sign * math.pow(2, rnd.nextDouble() * 2100 - 1075)
        case 2 => (rnd.nextDouble() * 2 - 1) * math.pow(10, rnd.nextInt(8) - 4)
        case 3 => rnd.nextInt(41) - 20
        case 4 => sign * math.pow(2, rnd.nextDouble() * 80 - 40)
        case _ => (rnd.nextDouble() * 2 - 1) * 1500
      }
      val e = Edges.length
      val rows = (0 until Rows).map { i =>
        def nul(v: Double, m: Int): Any = if (i % m == m - 1) null else v
        val edgePair = i < e * e
        val x = if (edgePair) Edges(i / e) else any()
        val y = if (edgePair) Edges(i % e) else any()
        // u: mostly in [-1, 1] (asin, acos, atanh); w: |w| < 750 (exp, sinh, ... without saturating).
        val u = if (i < e) Edges(i) else if (i % 5 == 0) any() else rnd.nextDouble() * 2 - 1
        val w = if (i < e) Edges(e - 1 - i) else if (i % 7 == 0) 1 + math.pow(2, rnd.nextDouble() * 80 - 60)
          else (rnd.nextDouble() * 2 - 1) * (if (i % 3 == 0) 25 else 750)
        // pow's bases and exponents: integral exponents of negative bases, bases near 1 with
        // huge exponents, moderate ones over- and underflowing, and arbitrary pairs.
        val (px, py) = rnd.nextInt(4) match {
          case 0 => (any(), (rnd.nextInt(41) - 20).toDouble)
          case 1 => (1 + (rnd.nextDouble() - 0.5) * 1e-6, (rnd.nextDouble() - 0.5) * 1e12)
          case 2 => (rnd.nextDouble() * 10, (rnd.nextDouble() - 0.5) * 600)
          case _ => (any(), any())
        }
        // Decimals whose last digits make ties when rounded to 0, 2 or 3 places (dec) or 0, 5 or 9 (wdec).
        val tail = Seq(5000L, 2500L, 7500L, 50L, 5L, 0L, 1234L, 4999L, 5001L)(rnd.nextInt(9))
        val dec = new java.math.BigDecimal(java.math.BigInteger.valueOf(
          (math.abs(rnd.nextLong() % 10000000000000L) * 10000 + tail) * (if (rnd.nextBoolean()) 1 else -1)), 4)
        val wtail = Seq("5000000000", "0000050000", "0000000005", "4999999999", "5000000001", "1234567890")(rnd.nextInt(6))
        val wdec = new java.math.BigDecimal(new java.math.BigInteger(
          (if (rnd.nextBoolean()) "-" else "") + new java.math.BigInteger(90, rnd).toString + wtail), 10)
        Row(i.toLong, nul(x, 97), nul(y, 89), nul(u, 83), nul(w, 79), nul(px, 101), nul(py, 103),
          if (i % 71 == 70) null else dec, if (i % 73 == 72) null else wdec)
      }
      val schema = StructType(Seq(StructField("id", LongType)) ++
        Seq("x", "y", "u", "w", "px", "py").map(StructField(_, DoubleType)) ++
        Seq(StructField("dec", DecimalType(18, 4)), StructField("wdec", DecimalType(38, 10))))
      spark.createDataFrame(rows.asJava, schema).repartition(4).write.mode("overwrite")
        .parquet(TestData.path("math_data"))
      spark.read.parquet(TestData.path("math_data")).createOrReplaceTempView("math_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
