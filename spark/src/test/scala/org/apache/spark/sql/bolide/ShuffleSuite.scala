package org.apache.spark.sql.bolide

import org.junit.Assert._
import org.junit.{Before, Test}

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.bolide.shuffle.BolideShuffleExchangeExec
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec

/**
 * Native shuffles (BolideShuffleExchange, written and read by BolideShuffleManager), Bolide off vs
 * on: hash partitioning on every key type (the partition ids are Spark's, or rows would meet the
 * wrong aggregate group or join partner), range partitioning for global sorts, single partitions,
 * a Spark row operator under the exchange, more partitions than rows, empty and skewed
 * partitions, every codec, and AQE's coalescing, skew splits and exchange reuse.
 */
class ShuffleSuite extends BolideSuiteBase {
  private val Ex = "BolideShuffleExchange"

  @Before def setUp(): Unit = TestData.ensure(spark)

  @Test def hashPartitioningOnEveryKeyType(): Unit = {
    Seq("g", "ng", "ndec", "b", "y", "s", "i", "l", "f", "d", "dec", "wdec", "str", "bin", "dt", "ts", "ntz")
      .foreach { k =>
        checkNative(s"SELECT $k, count(*), sum(id) FROM types GROUP BY $k", Seq(Ex, "BolideHashAggregate"))
      }
    checkNative("SELECT str, dt, b, count(*), max(l) FROM types GROUP BY str, dt, b", Seq(Ex))
  }

  @Test def partitionIdsAreSparks(): Unit = {
    // Each row's partition, off (Spark's shuffle) vs on (native): identical answers mean identical
    // partition ids, which Spark's own operators rely on (a join reading a native shuffle on one
    // side and Spark's on the other, a bucketed table).
    Seq("g", "ng", "ndec", "b", "y", "s", "i", "l", "f", "d", "dec", "wdec", "str", "bin", "dt", "ts", "ntz")
      .foreach { k =>
        checkNative(s"SELECT id, spark_partition_id() FROM (SELECT /*+ REPARTITION(7, $k) */ * FROM types)", Seq(Ex))
      }
    checkNative("SELECT id, spark_partition_id() FROM (SELECT /*+ REPARTITION(5, str, d, dt) */ * FROM types)", Seq(Ex))
    val df = spark.sql("SELECT count_if(p = pmod(hash(str, l), 11)), count(*) FROM " +
      "(SELECT str, l, spark_partition_id() AS p FROM (SELECT /*+ REPARTITION(11, str, l) */ * FROM types))")
    val r = df.collect().head
    assertEquals(r.getLong(1), r.getLong(0))
  }

  @Test def floatingKeysNormalized(): Unit = {
    // NaN and -0.0 group with their equals (Spark normalizes the keys before hashing).
    checkNative("SELECT k, count(*) FROM (SELECT CASE id % 4 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 " +
      "WHEN 2 THEN 0.0 ELSE cast('-NaN' as double) END AS k FROM range(100)) GROUP BY k", Seq(Ex))
  }

  @Test def rangePartitioningForGlobalSorts(): Unit = {
    checkNative("SELECT id, d, str FROM types ORDER BY d DESC NULLS FIRST, str, id", Seq(Ex, "BolideSort"),
      ordered = true)
    checkNative("SELECT id, dec, dt FROM types ORDER BY dt NULLS LAST, dec DESC, id", Seq(Ex), ordered = true)
    withConf("spark.sql.shuffle.partitions" -> "7") {
      checkNative("SELECT id, str FROM types ORDER BY str, id", Seq(Ex), ordered = true)
    }
  }

  @Test def singlePartition(): Unit = {
    checkNative("SELECT count(*), sum(l), min(str) FROM types", Seq(Ex))
    checkNative("SELECT id, sum(id) OVER () FROM types WHERE id < 50", Seq(Ex))
  }

  @Test def distinctAggregates(): Unit = {
    // Spark plans a single distinct column as aggregates grouped by the keys and that column;
    // every one of them runs natively.
    checkNative("SELECT g, count(DISTINCT str) FROM types GROUP BY g",
      Seq("BolideHashAggregate", "BolideHashAggregate", "BolideHashAggregate", "BolideHashAggregate", Ex, Ex))
    checkNative("SELECT count(DISTINCT dt), sum(DISTINCT g) FROM types WHERE id > 5", Seq("BolideHashAggregate", Ex))
    checkNative("SELECT b, count(DISTINCT dec), max(l) FROM types GROUP BY b", Seq("BolideHashAggregate", Ex))
  }

  @Test def partitionShapes(): Unit = {
    // More partitions than rows, so most are empty.
    checkNative("SELECT /*+ REPARTITION(64, id) */ id, str FROM types WHERE id < 10", Seq(Ex))
    // No rows at all.
    checkNative("SELECT g, count(*) FROM types WHERE id < 0 GROUP BY g", Seq(Ex))
    // Every row in one partition.
    checkNative("SELECT /*+ REPARTITION(8, c) */ * FROM (SELECT 1 AS c, id, str, dec FROM types)", Seq(Ex))
  }

  @Test def rowChild(): Unit = withoutDispatch {
    // A Spark row operator under the exchange: rows become Arrow once, then are partitioned.
    val df = checkNative("SELECT /*+ REPARTITION(5, k) */ k, id FROM (SELECT regexp_replace(str, '(?i)a', 'b') AS k, id FROM types)", Seq(Ex))
    assertTrue(planNodes(df.queryExecution.executedPlan).exists(_.nodeName == "BolideRowToArrow"))
  }

  @Test def everyCodec(): Unit = Seq("lz4", "zstd", "snappy", "none").foreach { c =>
    withConf("spark.bolide.shuffle.compression.codec" -> c) {
      checkNative("SELECT str, dt, count(*), sum(dec) FROM types GROUP BY str, dt", Seq(Ex))
    }
  }

  @Test def badCodecFallsBack(): Unit = withConf("spark.bolide.shuffle.compression.codec" -> "gzip") {
    val df = checkNative("SELECT g, count(*) FROM types GROUP BY g", Seq.empty)
    assertFalse(nativeOperators(df).contains(Ex))
    assertTrue(bolideReport(df), bolideReport(df).contains("spark.bolide.shuffle.compression.codec=gzip"))
  }

  @Test def aqeCoalescesNativeShuffles(): Unit = withConf(
    "spark.sql.adaptive.enabled" -> "true",
    "spark.sql.adaptive.coalescePartitions.enabled" -> "true",
    "spark.sql.shuffle.partitions" -> "50") {
    val df = checkNative("SELECT g, count(*), sum(l) FROM types GROUP BY g", Seq(Ex))
    val reads = planNodes(df.queryExecution.executedPlan).collect { case r: AQEShuffleReadExec => r }
    assertTrue(s"no coalesced read:\n${df.queryExecution.executedPlan}", reads.exists(_.hasCoalescedPartition))
  }

  @Test def aqePlansWithInMemorySizes(): Unit = withConf(
    "spark.sql.adaptive.enabled" -> "true",
    "spark.sql.adaptive.coalescePartitions.enabled" -> "true",
    "spark.sql.adaptive.coalescePartitions.parallelismFirst" -> "false",
    "spark.sql.adaptive.coalescePartitions.minPartitionSize" -> "1",
    "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "262144",
    "spark.sql.shuffle.partitions" -> "100") {
    // Compressible rows: the frames written are several times smaller than the batches a reader
    // holds. AQE must size the coalesced partitions by the latter.
    spark.range(0, 200000, 1, 2).selectExpr("id", "cast(id % 1000 AS INT) AS k", "repeat('x', 24) AS s")
      .write.mode("overwrite").parquet(TestData.path("mem_sizes"))
    spark.read.parquet(TestData.path("mem_sizes")).createOrReplaceTempView("mem_sizes")
    val df = checkNative("SELECT id, k, s FROM mem_sizes DISTRIBUTE BY k", Seq(Ex))
    val plan = df.queryExecution.executedPlan
    val ex = planNodes(plan).collectFirst { case e: BolideShuffleExchangeExec => e.metrics }.get
    val (inMemory, written) = (ex("dataSize").value, ex("shuffleBytesWritten").value)
    val parts = planNodes(plan).collect { case r: AQEShuffleReadExec => r.partitionSpecs.length }
    assertTrue(s"no AQE read:\n$plan", parts.nonEmpty)
    assertTrue(s"the frames ($written bytes) do not compress the batches ($inMemory bytes) enough to tell",
      written * 2 < inMemory)
    // Coalescing packs neighbours up to the advisory size: at least total / advisory partitions.
    val least = inMemory / 262144 - 1
    assertTrue(s"AQE coalesced ${parts.head} partitions of $inMemory bytes in memory ($written written): " +
      s"expected at least $least", parts.head >= least)
  }

  @Test def aqeSplitsSkewedPartitions(): Unit = withConf(
    "spark.sql.adaptive.enabled" -> "true",
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.adaptive.skewJoin.enabled" -> "true",
    "spark.sql.adaptive.skewJoin.skewedPartitionFactor" -> "1",
    "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes" -> "100",
    "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "100",
    "spark.sql.adaptive.coalescePartitions.enabled" -> "false",
    "spark.sql.shuffle.partitions" -> "4") {
    val df = checkNative(
      "SELECT a.id, b.id FROM (SELECT id, if(id % 10 = 0, id, 0) AS k FROM types) a " +
        "JOIN (SELECT id, if(id % 50 = 0, id, 0) AS k FROM types WHERE id < 400) b ON a.k = b.k",
      Seq(Ex, Ex))
    val reads = planNodes(df.queryExecution.executedPlan).collect { case r: AQEShuffleReadExec => r }
    assertTrue(s"no skew split:\n${df.queryExecution.executedPlan}", reads.exists(_.hasSkewedPartition))
  }

  @Test def exchangeReuse(): Unit = withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
    val df = checkNative(
      "WITH a AS (SELECT g, count(*) AS c FROM types GROUP BY g) SELECT x.g, x.c, y.c FROM a x JOIN a y ON x.g = y.g",
      Seq(Ex))
    val reused = planNodes(df.queryExecution.executedPlan).collect {
      case r: ReusedExchangeExec if r.child.isInstanceOf[BolideShuffleExchangeExec] => r
    }
    assertTrue(s"no reused native exchange:\n${df.queryExecution.executedPlan}", reused.nonEmpty)
  }

  @Test def metricsAndShuffleBytes(): Unit = {
    val sql = "SELECT /*+ REPARTITION(4, id) */ id, g, l, d, dec, str, dt FROM types"
    def written(df: DataFrame): (Long, Long) = {
      df.collect()
      val ex = planNodes(df.queryExecution.executedPlan).collectFirst {
        case e: BolideShuffleExchangeExec => e.metrics
        case e: org.apache.spark.sql.execution.exchange.ShuffleExchangeExec => e.metrics
      }.get
      (ex("shuffleBytesWritten").value, ex("shuffleRecordsWritten").value)
    }
    val (sparkBytes, sparkRows) = withConf("spark.bolide.enabled" -> "false")(written(spark.sql(sql)))
    val df = spark.sql(sql)
    val (bolideBytes, bolideRows) = written(df)
    assertTrue(nativeOperators(df).contains(Ex))
    assertEquals(sparkRows, bolideRows)
    val ratio = bolideBytes.toDouble / sparkBytes
    println(f"shuffle bytes written: Spark $sparkBytes, Bolide $bolideBytes (ratio $ratio%.2f)")
    assertTrue(f"Bolide's shuffle ($bolideBytes bytes) is larger than Spark's ($sparkBytes)", ratio <= 1.0)
  }

  @Test def recordsReadByNativeConsumers(): Unit = {
    // The consuming native block decodes the frames itself: records read still count.
    val sql = "SELECT g, count(*), sum(id) FROM types GROUP BY g"
    def read(df: DataFrame): Long = {
      df.collect()
      planNodes(df.queryExecution.executedPlan).collect {
        case e: BolideShuffleExchangeExec => e.metrics("recordsRead").value
        case e: org.apache.spark.sql.execution.exchange.ShuffleExchangeExec => e.metrics("recordsRead").value
      }.sum
    }
    val sparkRead = withConf("spark.bolide.enabled" -> "false")(read(spark.sql(sql)))
    val df = spark.sql(sql)
    val bolideRead = read(df)
    assertTrue(nativeOperators(df).contains(Ex))
    // Partial aggregates: as many rows as Spark's partial aggregates output.
    assertEquals(sparkRead, bolideRead)
  }

  @Test def damagedFramesAreFoundWhenFetched(): Unit = {
    // The frames of a real map output pass; the same bytes damaged fail with the block named
    // (in a shuffle read that is a FetchFailedException: ClusterSuite's corrupt-block case).
    val df = spark.sql("SELECT /*+ REPARTITION(2, id) */ id, str, dec FROM types")
    df.collect()
    val ids = planNodes(df.queryExecution.executedPlan).collect { case e: BolideShuffleExchangeExec =>
      e.shuffleDependency.shuffleId
    }
    val file = org.apache.spark.SparkEnv.get.blockManager.diskBlockManager.getAllFiles()
      .filter(f => ids.exists(id => f.getName.startsWith(s"shuffle_${id}_")) && f.getName.endsWith(".data"))
      .maxBy(_.length())
    val bytes = java.nio.file.Files.readAllBytes(file.toPath)
    def frames(b: Array[Byte]) = new org.apache.spark.sql.bolide.shuffle.ShuffleFrames(
      Iterator(org.apache.spark.storage.ShuffleBlockId(ids.head, 0, 0) -> new java.io.ByteArrayInputStream(b)))
    val ok = frames(bytes)
    var n = 0
    while (ok.nextFrame() > 0) n += 1
    assertTrue(s"no frame in ${file.getName}", n > 0)
    val damaged = bytes.clone()
    damaged(damaged.length / 2) = (damaged(damaged.length / 2) ^ 0x5a).toByte
    val bad = frames(damaged)
    val e = try { while (bad.nextFrame() > 0) {}; null } catch { case t: java.io.IOException => t }
    assertNotNull("a damaged frame passed", e)
    assertTrue(e.getMessage, e.getMessage.contains(s"shuffle_${ids.head}_0_0") && e.getMessage.contains("checksum"))
    val truncated = frames(bytes.take(bytes.length - 3))
    val t = try { while (truncated.nextFrame() > 0) {}; null } catch { case t: java.io.IOException => t }
    assertNotNull("a truncated block passed", t)
    assertTrue(t.getMessage, t.getMessage.contains("ends inside frame"))
  }
}
