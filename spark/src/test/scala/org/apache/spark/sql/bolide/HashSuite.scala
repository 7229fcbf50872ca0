package org.apache.spark.sql.bolide

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.nio.charset.StandardCharsets

import scala.jdk.CollectionConverters._

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, Murmur3Hash, XxHash64}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types._

/**
 * hash() (Murmur3Hash) and xxhash64() (XxHash64) evaluated natively must equal Spark's bit for bit:
 * they are the partition function of a hash shuffle, where a single different bit sends a row to
 * the wrong partition. Every query runs with Bolide off and on (same answers) and the hash must
 * have run in BolideProject. The inputs are Parquet tables, so the optimizer cannot fold the hashes.
 */
class HashSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"

  @Before def setUp(): Unit = {
    TestData.ensure(spark)
    HashSuite.ensure(spark)
  }

  private val typesColumns =
    Seq("id", "g", "ng", "ndec", "b", "y", "s", "i", "l", "f", "d", "dec", "wdec", "str", "bin", "dt", "ts", "ntz")

  @Test def everyColumnTypeOfTheTypesTable(): Unit = {
    Seq("types", "types_micros").foreach { t =>
      val each = typesColumns.flatMap(c => Seq(s"hash($c)", s"xxhash64($c)")).mkString(", ")
      checkNative(s"SELECT id, $each FROM $t", Seq(Scan, Project))
    }
    // All columns chained in one hash, in both orders (nulls in every column leave the running hash).
    val all = typesColumns.mkString(", ")
    val reversed = typesColumns.reverse.mkString(", ")
    checkNative(s"SELECT id, hash($all), xxhash64($all), hash($reversed), xxhash64($reversed) FROM types",
      Seq(Scan, Project))
  }

  @Test def stringsOfEveryLength(): Unit = {
    // 0..40 bytes: every length mod 4 (Murmur3's trailing bytes) and mod 8/32 (XXH64's words and
    // stripes), ASCII and multi-byte UTF-8 (bytes >= 0x80 are sign-extended by Murmur3).
    checkNative("SELECT id, n, hash(s), xxhash64(s), hash(bin), xxhash64(bin), hash(s, bin, n), " +
      "xxhash64(n, bin, s) FROM hash_strings", Seq(Scan, Project))
  }

  @Test def decimalsOfBothRepresentations(): Unit = {
    // Precision <= 18 hashes the unscaled long; above, BigInteger.toByteArray of the unscaled
    // value: values needing 1..16 bytes, both signs.
    val cs = Seq("d18", "d9", "d1", "w38", "w20", "w38s10", "w19")
    val each = cs.flatMap(c => Seq(s"hash($c)", s"xxhash64($c)")).mkString(", ")
    checkNative(s"SELECT id, $each, hash(${cs.mkString(", ")}), xxhash64(${cs.mkString(", ")}) FROM hash_decimals",
      Seq(Scan, Project))
  }

  @Test def floatingPointZerosNaNsAndInfinities(): Unit = {
    // -0.0 hashes as 0.0 and every NaN as the canonical NaN (hash.scala: `f == -0.0f`,
    // floatToIntBits / doubleToLongBits).
    checkNative("SELECT id, hash(d), xxhash64(d), hash(f), xxhash64(f), hash(d, f), xxhash64(f, d) " +
      "FROM hash_floats", Seq(Scan, Project))
    val df = checkNative("SELECT hash(d), xxhash64(d) FROM hash_floats WHERE id IN (0, 1)", Seq(Scan, Project))
    val rows = df.collect()
    assertEquals("-0.0 and 0.0 hash alike", rows(0), rows(1))
  }

  @Test def nullsAndLiteralArguments(): Unit = {
    // hash(null) is the seed; a NULL argument changes nothing; literals fold into every row.
    checkNative("SELECT id, hash(i), hash(i, NULL), hash(NULL, str, 'Spark', 2), xxhash64(str, 1.5, NULL), " +
      "hash(cast(NULL as int), i) FROM types", Seq(Scan, Project))
    val df = checkNative("SELECT hash(i), xxhash64(i) FROM types WHERE i IS NULL LIMIT 1", Seq(Scan))
    assertEquals(Row(42, 42L), df.collect().head)
  }

  @Test def customSeedsOverSeveralColumns(): Unit = {
    // SQL always seeds with 42; other seeds are reachable only by building the expression (as
    // Spark itself does): hash_seeded(seed, args...) / xxhash64_seeded(seed, args...).
    Seq("0", "-1", "7", "2147483647", "-2147483648").foreach { seed =>
      checkNative(s"SELECT id, hash_seeded($seed, i, str, d), xxhash64_seeded($seed, str, dec, ts, b) FROM types",
        Seq(Scan, Project))
    }
    checkNative("SELECT id, xxhash64_seeded(-9223372036854775808L, l, wdec, bin), " +
      "xxhash64_seeded(9223372036854775807L, s, y) FROM types", Seq(Scan, Project))
  }

  @Test def partitionIdsAsHashPartitioningComputesThem(): Unit = {
    // Spark's HashPartitioning.partitionIdExpression is pmod(murmur3 hash(keys), n). The hash runs
    // natively; pmod (not native) runs in Spark above it. h is used twice, so the optimizer keeps
    // the two projections apart instead of collapsing them into one Spark projection.
    Seq("i", "str", "dec", "wdec", "d", "ts", "str, d", "b, y, bin").foreach { keys =>
      checkNative(s"SELECT id, h, pmod(h, 200) FROM (SELECT id, hash($keys) AS h FROM types)",
        Seq(Scan, Project))
    }
    // And against Spark's real shuffle: the partition each row lands in after repartition(200, keys)
    // is pmod(native hash(keys), 200).
    Seq(Seq("i"), Seq("str"), Seq("wdec"), Seq("str", "d"), Seq("dt", "ntz", "bin")).foreach { keys =>
      val native = checkNative(s"SELECT id, hash(${keys.mkString(", ")}) FROM types", Seq(Scan, Project))
        .collect().map(r => r.getLong(0) -> r.getInt(1)).toMap
      val placed = spark.table("types").repartition(200, keys.map(col): _*)
        .selectExpr("id", "spark_partition_id()").collect()
      assertEquals(2000, placed.length)
      placed.foreach { r =>
        val h = native(r.getLong(0))
        assertEquals(s"id ${r.getLong(0)}, keys $keys, hash $h", r.getInt(1), Math.floorMod(h, 200))
      }
    }
  }

  @Test def unsupportedArgumentsStayInSparkWithAReason(): Unit = withoutDispatch {
    val df = checkNative("SELECT id, hash(array(i, g)), xxhash64(named_struct('a', i)) FROM types", Seq(Scan))
    assertFalse(nativeOperators(df).contains(Project))
    val report = bolideReport(df)
    assertTrue(report, report.contains("hash of array") || report.contains("xxhash64 of struct"))
  }
}

object HashSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    registerSeededHashes(spark)
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      write(spark, "hash_strings", strings(), new StructType().add("id", IntegerType).add("n", IntegerType)
        .add("s", StringType).add("bin", BinaryType))
      write(spark, "hash_decimals", decimals(), decimalSchema)
      write(spark, "hash_floats", floats(), new StructType().add("id", IntegerType).add("d", DoubleType)
        .add("f", FloatType))
    } finally spark.conf.unset("spark.bolide.enabled")
  }

  private def write(spark: SparkSession, name: String, rows: Seq[Row], schema: StructType): Unit = {
    spark.createDataFrame(rows.asJava, schema).repartition(2).write.mode("overwrite").parquet(TestData.path(name))
    spark.read.parquet(TestData.path(name)).createOrReplaceTempView(name)
  }

  /** hash_seeded(seed, args...) and xxhash64_seeded(seed, args...): the expressions with any seed. */
  private def registerSeededHashes(spark: SparkSession): Unit = {
    val registry = spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession].sessionState.functionRegistry
    def seedOf(e: Expression): Number = e match {
      case l: Literal if l.value != null => l.value.asInstanceOf[Number]
      case other => throw new IllegalArgumentException(s"the seed must be a literal, got $other")
    }
    registry.createOrReplaceTempFunction("hash_seeded",
      (args: Seq[Expression]) => Murmur3Hash(args.tail, seedOf(args.head).intValue), "scala_udf")
    registry.createOrReplaceTempFunction("xxhash64_seeded",
      (args: Seq[Expression]) => XxHash64(args.tail, seedOf(args.head).longValue), "scala_udf")
  }

  /** Strings of 0..40 bytes, ASCII and multi-byte (2, 3 and 4-byte characters), with their bytes
   * as binary; and a null row. */
  private def strings(): Seq[Row] = {
    def utf8(s: String) = s.getBytes(StandardCharsets.UTF_8)
    val multi = Seq("é", "€", "😀")
    val rows = (0 to 40).flatMap { n =>
      val ascii = (0 until n).map(i => ('a' + i % 26).toChar).mkString
      val sb = new StringBuilder
      var used = 0
      var k = 0
      while (used < n) {
        val c = Some(multi(k % multi.size)).filter(utf8(_).length <= n - used).getOrElse("x")
        sb ++= c
        used += utf8(c).length
        k += 1
      }
      Seq(ascii, sb.toString)
    }
    val withIds = rows.zipWithIndex.map { case (s, i) =>
      val b = utf8(s)
      assert(b.length == i / 2, s"string $i has ${b.length} bytes")
      Row(i, b.length, s, b)
    }
    withIds :+ Row(withIds.size, null, null, null)
  }

  private val decimalSchema = new StructType().add("id", IntegerType)
    .add("d18", DecimalType(18, 0)).add("d9", DecimalType(9, 2)).add("d1", DecimalType(1, 0))
    .add("w38", DecimalType(38, 0)).add("w20", DecimalType(20, 2)).add("w38s10", DecimalType(38, 10))
    .add("w19", DecimalType(19, 0))

  /**
   * One column per representation; rows list each column's values in turn (nulls pad the shorter
   * lists). w38 holds, for k = 1..16 bytes, the extremes of k-byte two's complement (2^(8k-1) - 1
   * and -2^(8k-1)) and their neighbours needing k + 1 bytes, within 38 digits.
   */
  private def decimals(): Seq[Row] = {
    def pow(b: Int, e: Int) = BigInteger.valueOf(b).pow(e)
    val max38 = pow(10, 38).subtract(BigInteger.ONE)
    val w38 = Seq(BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate(), max38, max38.negate()) ++
      (1 to 16).flatMap { k =>
        val top = BigInteger.ONE.shiftLeft(8 * k - 1)
        Seq(top.subtract(BigInteger.ONE), top.negate(), top, top.negate().subtract(BigInteger.ONE))
      }.filter(_.abs.compareTo(max38) <= 0)
    val d18 = Seq(BigInteger.ZERO, BigInteger.ONE.negate()) ++ (1 to 18).flatMap { k =>
      val v = pow(10, k).subtract(BigInteger.ONE)
      Seq(v, v.negate())
    } ++ (1 to 7).flatMap(k => Seq(BigInteger.ONE.shiftLeft(8 * k - 1), BigInteger.ONE.shiftLeft(8 * k - 1).negate()))
    val d9 = Seq("0", "12345", "-12345", "999999999", "-999999999", "1", "-1").map(new BigInteger(_))
    val d1 = (-9 to 9).map(BigInteger.valueOf(_))
    val w20 = Seq(BigInteger.ZERO, pow(10, 20).subtract(BigInteger.ONE), pow(10, 20).subtract(BigInteger.ONE).negate(),
      new BigInteger("12345678901234567890"), BigInteger.valueOf(-100), BigInteger.ONE.shiftLeft(63))
    val w38s10 = Seq(BigInteger.ZERO, new BigInteger("123456789012345678901234567890"), max38.negate(),
      BigInteger.valueOf(-1), BigInteger.ONE.shiftLeft(100))
    val w19 = Seq(pow(10, 19).subtract(BigInteger.ONE), pow(10, 19).subtract(BigInteger.ONE).negate(),
      BigInteger.valueOf(Long.MaxValue), BigInteger.valueOf(Long.MinValue), BigInteger.ZERO)
    val cols = Seq(d18 -> 0, d9 -> 2, d1 -> 0, w38 -> 0, w20 -> 2, w38s10 -> 10, w19 -> 0)
    val n = cols.map(_._1.size).max + 1 // the last row is all null
    (0 until n).map { i =>
      Row.fromSeq(i +: cols.map { case (vs, scale) => if (i < vs.size) new JBigDecimal(vs(i), scale) else null })
    }
  }

  /** -0.0 (rows 0 and 1 hold 0.0 and -0.0), NaNs with other bit patterns, infinities, extremes. */
  private def floats(): Seq[Row] = {
    val ds = Seq(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0xfff8000000000001L),
      java.lang.Double.longBitsToDouble(0x7ff0000000000001L), Double.PositiveInfinity, Double.NegativeInfinity,
      1.0, -1.5, Double.MinPositiveValue, Double.MaxValue, Double.MinValue, 1e-300)
    val fs = Seq(0.0f, -0.0f, Float.NaN, java.lang.Float.intBitsToFloat(0xffc00001), java.lang.Float.intBitsToFloat(0x7f800001),
      Float.PositiveInfinity, Float.NegativeInfinity, 1.0f, -1.5f, Float.MinPositiveValue, Float.MaxValue,
      Float.MinValue, 3.4e-38f)
    ds.zip(fs).zipWithIndex.map { case ((d, f), i) => Row(i, d, f) } :+ Row(ds.size, null, null)
  }
}
