package org.apache.spark.sql.bolide

import java.io.{File, FileOutputStream}

import org.junit.{Before, Test}
import org.junit.Assert._

/** Queries over Parquet run with Bolide off and on: same answers, native operators asserted. */
class BolideQuerySuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Filter = "BolideFilter"
  private val Project = "BolideProject"
  private val Agg = "BolideHashAggregate"

  @Before def setUp(): Unit = TestData.ensure(spark)

  @Test def versionIsReadableFromTheSession(): Unit = {
    val v = spark.sql("SET spark.bolide.version").collect().head.getString(1)
    assertEquals(NativeLoader.AdapterVersion, v)
    assertEquals(NativeLoader.AdapterVersion, NativeLoader.load())
    // The library's copy out of the JAR is gone once loaded: a killed executor leaves nothing.
    if (sys.env.get("BOLIDE_NATIVE_LIB").forall(_.isEmpty)) {
      val f = NativeLoader.loadedFrom
      assertFalse(s"$f left behind", f.exists() || f.getParentFile.exists())
    }
  }

  @Test def memoryCheckingIsOnInTests(): Unit = {
    // The pom sets BOLIDE_MEMCHECK=1: every checkNative then asserts that no native memory leaked.
    assertTrue("the test run must use the engine's memory checking mode", NativeLib.memoryChecking())
  }

  @Test def aNativePlanIsSentToTheEngineOnce(): Unit = {
    // AQE applies the plan rule to the whole plan, then to each query stage and to the final plan.
    // Once the first pass has left only native operators, the later ones have nothing to decide.
    withConf("spark.sql.adaptive.enabled" -> "true") {
      val sql = "SELECT g, sum(l), count(*) FROM types GROUP BY g"
      checkNative(sql, Seq(Scan, Agg, Agg, "BolideShuffleExchange"))
      val before = BolidePlanRule.planned.get
      spark.sql(sql).collect()
      assertEquals("planning passes of an all-native query", 1, BolidePlanRule.planned.get - before)
      // A Spark operator left in the plan (the filter, switched off): the later passes still ask.
      withConf("spark.bolide.exec.filter.enabled" -> "false") {
        val withSpark = "SELECT g, sum(l) FROM types WHERE id % 3 = 1 GROUP BY g"
        checkNative(withSpark, Seq(Scan, Agg, Agg, "BolideShuffleExchange"))
        val from = BolidePlanRule.planned.get
        spark.sql(withSpark).collect()
        assertTrue("a plan with a Spark operator is planned again by AQE's later passes",
          BolidePlanRule.planned.get - from > 1)
      }
    }
  }

  @Test def scanEveryType(): Unit = {
    checkNative("SELECT * FROM types", Seq(Scan))
    checkNative("SELECT * FROM types_micros", Seq(Scan))
  }

  @Test def scanProjectionOfSomeColumns(): Unit = {
    checkNative("SELECT str, dec, ts FROM types", Seq(Scan))
    checkNative("SELECT count(*) FROM types", Seq(Scan, Agg, Agg))
  }

  @Test def filterComparisonsOnEveryType(): Unit = {
    val preds = Seq(
      "b", "NOT b", "y > 10", "s <= 100", "i < 0", "l >= 5000000", "f > 100.5", "d <> 3.0",
      "dec > 100.00", "wdec < 12345678.0", "str = 'str_5'", "str > 'str_3'", "bin = cast('bin3' as binary)",
      "dt >= date'2021-06-01'", "ts < timestamp'2020-12-01 00:00:00'",
      "ntz > timestamp_ntz'2017-07-14 02:40:00'", "i IS NULL", "str IS NOT NULL",
      "y IN (1, 2, 3, -7)", "str IN ('str_1', 'str_2é', NULL)", "(i > 0 AND l < 0) OR b",
      "NOT (y > 0 OR s < 100)", "d = d", "f <=> NULL", "dec <=> 1.37")
    preds.foreach(p => checkNative(s"SELECT id, $p AS r FROM types WHERE $p", Seq(Scan, Filter)))
  }

  @Test def filtersDecodeTheirScansLazily(): Unit = {
    // The filter decodes its predicate's columns (by dictionary where the file has one), then
    // every other column for the surviving rows only: sparse, dense and empty selections of every
    // type, partition columns, and predicates over several columns.
    Seq("g = 3 AND str IS NOT NULL", "id % 97 = 5", "g IN (1, 4) AND i > 0 AND b", "str LIKE 'str_1%'",
      "ng + id > 3000 AND dt IS NOT NULL", "id >= 0", "id < 0", "coalesce(ndec, 0) = 0")
      .foreach(p => checkNative(s"SELECT * FROM types WHERE $p", Seq(Scan, Filter)))
    checkNative("SELECT * FROM parted WHERE p_int = 1 AND id > 300", Seq(Scan, Filter))
    checkNative("SELECT * FROM parted WHERE p_str = 'r1' OR id = 7", Seq(Scan, Filter))
    checkNative("SELECT k, sum(v), count(*) FROM splits WHERE k = 3 AND id % 1000 < 3 GROUP BY k",
      Seq(Scan, Filter))
  }

  @Test def pageIndexSkipsPages(): Unit = {
    // Spark writes a page index (column and offset indexes); with small pages over sorted ids, a
    // selective filter skips the pages whose min and max rule it out (the filter above still
    // sees every row that can pass).
    val dir = TestData.path("paged")
    withConf("spark.bolide.enabled" -> "false") {
      spark.range(0, 200000, 1, 1).selectExpr("id", "cast(id % 7 as int) as k",
        "if(id >= 150000 AND id < 160000, null, id * 0.5) as v", "concat('s', cast(id as string)) as s")
        .write.mode("overwrite").option("parquet.page.size", "4096").option("parquet.block.size", "4194304")
        .parquet(dir)
    }
    spark.read.parquet(dir).createOrReplaceTempView("paged")
    Seq("id BETWEEN 1000 AND 1100", "id = 77777", "k = 3 AND id > 190000", "v IS NULL", "v IS NULL AND k = 1",
      "s = 's123456'", "id IN (5, 99999, 150001)", "id < 0", "v > 99990")
      .foreach(p => checkNative(s"SELECT * FROM paged WHERE $p", Seq(Scan, Filter)))
  }

  @Test def inSetFilters(): Unit = {
    // More than spark.sql.optimizer.inSetConversionThreshold (10) literals: Spark plans an InSet,
    // whose hash set the encoder sends as an array.
    val ints = (0 until 40).map(x => x * 7 - 50).mkString(", ")
    checkNative(s"SELECT id, y FROM types WHERE y IN ($ints)", Seq(Scan, Filter))
    checkNative(s"SELECT id, y FROM types WHERE y IN ($ints, NULL) OR y IS NULL", Seq(Scan, Filter))
    checkNative(s"SELECT id, y IN ($ints, NULL) FROM types", Seq(Scan, Project))
    val dates = (0 until 20).map(d => s"date'2020-01-01' + $d").mkString(", ")
    checkNative(s"SELECT id FROM types WHERE dt IN ($dates)", Seq(Scan, Filter))
    val longs = (0 until 12).map(x => x * 1000003L - 999999999L).mkString(", ")
    checkNative(s"SELECT id FROM types WHERE l NOT IN ($longs)", Seq(Scan, Filter))
  }

  @Test def dateFunctions(): Unit = {
    checkNative("SELECT id, d, quarter(d), dayofweek(d), weekday(d), dayofyear(d), weekofyear(d), " +
      "last_day(d), unix_date(d), datediff(d, d2), datediff(d2, date'2000-02-29'), date_from_unix_date(n), " +
      "year(d), month(d), day(d) FROM dates", Seq(Scan, Project))
    checkNative("SELECT id, weekofyear(dt), last_day(dt), datediff(dt, dt) FROM types WHERE dayofweek(dt) IN (1, 7)",
      Seq(Scan, Filter, Project))
  }

  @Test def stringFunctions(): Unit = {
    checkNative("SELECT id, trim(concat('  ', str, ' \t ')), ltrim(concat(' ', str, ' ')), rtrim(concat(' ', str, '  ')), " +
      "concat(str, '-', str), concat_ws(',', str, cast(null as string), str, 'z'), concat_ws(str, 'a', 'b'), octet_length(str), " +
      "bit_length(bin), octet_length(bin), length(trim(str)), replace(str, 'tr', 'TR'), replace(str, '', 'x'), " +
      "repeat(str, 2), repeat(str, cast(id % 3 as int) - 1), instr(str, '_'), instr(str, 'é'), instr(concat('é', str), '1') FROM types", Seq(Scan, Project))
  }

  @Test def mathFunctions(): Unit = {
    val q = "SELECT id, abs(i), abs(l), abs(d), abs(f), abs(dec), abs(-wdec), isnan(d), isnan(d + cast('NaN' as double)), " +
      "greatest(i, s, y), least(i, s, y, 0), greatest(d, f), least(-d, cast('NaN' as double)), greatest(str, 'str_2'), " +
      "least(dt, date'2021-01-01'), greatest(dec, wdec), least(ts, timestamp'2020-10-01 00:00:00'), " +
      "ceil(d), floor(d), ceil(f), ceil(dec), floor(-dec), floor(wdec), ceil(l), floor(i), " +
      "pmod(i, 7), pmod(l, -3), pmod(d, cast(2.5 as double)), pmod(-f, cast(3 as float)), " +
      "round(dec, 1), round(-dec, 0), round(wdec, 3), round(wdec, 12), round(dec * 1.005, 2) FROM types"
    checkNative(q, Seq(Scan, Project))
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative(q, Seq(Scan, Project))
      // Zero divisors (y and g are 0 on some rows): null outside ANSI.
      checkNative("SELECT id, pmod(s, y), pmod(i, g), pmod(d, cast(g as double)) FROM types", Seq(Scan, Project))
    }
  }

  @Test def arithmeticInProjections(): Unit = {
    checkNative("SELECT id, y + 1, s - y, i * 2, l + i, f * 2, d / 3, d - f, dec * 2, dec + wdec, " +
      "dec / 3, i % 7, l % -3, -i, cast(i as long) * 1000 FROM types", Seq(Scan, Project))
  }

  @Test def castsAmongNumericTypes(): Unit = {
    // Legacy mode: narrowing wraps, out-of-range decimals become null.
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkNative("SELECT cast(l as int), cast(i as byte), cast(d as int), cast(f as long), " +
        "cast(dec as double), cast(d as decimal(12,3)), cast(i as decimal(20,2)), cast(y as double), " +
        "cast(wdec as decimal(10,2)) FROM types", Seq(Scan, Project))
    }
    // ANSI mode (Spark 4's default): values in range, and an overflow with Spark's error class.
    checkNative("SELECT cast(y as int), cast(s as long), cast(i as double), cast(dec as decimal(20,4)), " +
      "cast(y as decimal(5,1)), cast(g as byte) FROM types", Seq(Scan, Project))
    val q = "SELECT cast(i as byte) FROM types"
    val expected = withConf("spark.bolide.enabled" -> "false") { errorClassOf(thrownBy(spark.sql(q).collect())) }
    val df = spark.sql(q)
    assertEquals(expected, errorClassOf(thrownBy(df.collect())))
    assertTrue(nativeOperators(df).contains(Project))
  }

  @Test def aggregatesGroupedByEveryType(): Unit = {
    Seq("g", "b", "y", "s", "dec", "str", "bin", "dt", "ts", "ntz", "g, str").foreach { k =>
      checkNative(s"SELECT $k, count(*), count(i), sum(l), min(d), max(dec), avg(i) FROM types GROUP BY $k",
        Seq(Scan, Agg, Agg))
    }
  }

  @Test def aggregateFunctionsOverNumericTypes(): Unit = {
    Seq("y", "s", "i", "l", "f", "d", "dec", "wdec").foreach { c =>
      checkNative(s"SELECT g, sum($c), min($c), max($c), avg($c), count($c) FROM types GROUP BY g",
        Seq(Scan, Agg, Agg))
    }
    checkNative("SELECT sum(l), avg(dec), min(str), max(dt) FROM types", Seq(Scan, Agg, Agg))
  }

  @Test def emptyInputsAndEmptyPartitions(): Unit = {
    checkNative("SELECT count(*), sum(i), avg(dec), min(str) FROM empty", Seq(Agg, Agg))
    // AQE turns a grouped aggregate over an empty relation into an empty result (no operator left).
    checkNative("SELECT g, count(*), sum(i) FROM empty GROUP BY g", Seq())
    checkNative("SELECT * FROM empty", Seq(Scan))
    checkNative("SELECT sum(x), count(*), avg(x) FROM sparse", Seq(Scan, Agg, Agg))
    checkNative("SELECT id, x * 2 FROM sparse WHERE id > 100", Seq(Scan, Filter))
    checkNative("SELECT id % 3, sum(x), count(*) FROM sparse WHERE id > 5 GROUP BY id % 3", Seq(Scan, Filter, Agg, Agg))
  }

  @Test def allNullGroups(): Unit = {
    // Group g = 2 has only nulls in ng and ndec.
    checkNative("SELECT g, sum(ng), avg(ndec), min(ng), max(ndec), count(ng), sum(ndec), avg(ng) " +
      "FROM types GROUP BY g", Seq(Scan, Agg, Agg))
    // min/max of strings make Spark use SortAggregate: native without keys, Spark with keys.
    checkNative("SELECT min(str), max(str), count(str) FROM types WHERE g = 7", Seq(Scan, Agg, Agg))
    val df = checkNative("SELECT g, min(str) FROM types GROUP BY g", Seq(Scan))
    assertTrue(extendedExplain(df).contains("SortAggregate with grouping keys must keep its sorted output"))
  }

  @Test def partitionedTable(): Unit = {
    checkNative("SELECT * FROM parted", Seq(Scan))
    checkNative("SELECT p_str, p_int, sum(v), count(*) FROM parted WHERE p_int > 0 GROUP BY p_str, p_int",
      Seq(Scan, Agg, Agg))
  }

  @Test def fileSplitsMapToRowGroupsByByteRange(): Unit = {
    withConf("spark.sql.files.maxPartitionBytes" -> "200000", "spark.sql.files.openCostInBytes" -> "0") {
      val df = checkNative("SELECT k, count(*), sum(id), min(v), max(v) FROM splits GROUP BY k",
        Seq(Scan, Agg, Agg))
      val scanPartitions = spark.read.parquet(TestData.path("splits")).rdd.getNumPartitions
      assertTrue(s"the file must be read as several splits, got $scanPartitions", scanPartitions > 2)
      checkNative("SELECT * FROM splits WHERE id % 1000 = 7", Seq(Scan, Filter))
    }
  }

  @Test def explainBeforeExecutionShowsNativeOperators(): Unit = {
    val text = extendedExplain(spark.sql("SELECT g, sum(l) FROM types WHERE i > 0 GROUP BY g"))
    assertTrue(text, text.contains("BolideHashAggregate") && text.contains("BolideScan"))
    assertTrue(text, text.contains("Bolide: "))
  }

  @Test def limits(): Unit = {
    // A LIMIT under an aggregate uses local and global limits.
    checkNative("SELECT count(*), sum(l) FROM (SELECT l FROM types WHERE i > 0 LIMIT 100)",
      Seq(Scan, Filter, "BolideLocalLimit"))
    // With an offset, GlobalLimitExec(limit = 27, offset = 7) keeps rows [7, 27): Spark's limit
    // counts the offset rows.
    checkNative("SELECT count(*) FROM (SELECT l FROM types WHERE i > 0 LIMIT 20 OFFSET 7)",
      Seq(Scan, "BolideLocalLimit", "BolideGlobalLimit"))
    checkNative("SELECT count(*) FROM (SELECT l FROM types LIMIT 5000 OFFSET 1990)",
      Seq(Scan, "BolideGlobalLimit"))
    // A top-level LIMIT is a CollectLimit: each partition keeps `limit` rows natively (the limit
    // counts the offset rows), then Spark's CollectLimit logic takes the first rows and drops the
    // offset (the same rows in both engines).
    Seq("SELECT id, str FROM types WHERE i > 0 LIMIT 10", "SELECT id FROM types LIMIT 5 OFFSET 3",
      "SELECT * FROM types WHERE id > 1990 LIMIT 100").foreach { q =>
      checkNative(q, Seq(Scan, "BolideCollectLimit"), ordered = true)
    }
    // A LIMIT over an aggregate (what df.show() does): the CollectLimit sits in AQE's result stage.
    val agg = spark.sql("SELECT g, count(*) AS n FROM types GROUP BY g LIMIT 3")
    val rows = agg.collect()
    assertEquals(3, rows.length)
    val all = withConf("spark.bolide.enabled" -> "false") {
      spark.sql("SELECT g, count(*) AS n FROM types GROUP BY g").collect().map(_.toString).toSet
    }
    assertTrue(rows.map(_.toString).toSet.subsetOf(all))
    assertTrue(nativeOperators(agg).mkString(","), nativeOperators(agg).contains("BolideCollectLimit"))
    // Executed as an RDD (not collected), the rows are gathered into one partition.
    val viaRdd = spark.sql("SELECT id FROM types WHERE i > 0 LIMIT 7")
    assertEquals(7L, viaRdd.rdd.count())
    assertTrue(nativeOperators(viaRdd).contains("BolideCollectLimit"))
  }

  @Test def legacyArithmeticOverflowWrapsOrNulls(): Unit = withConf("spark.sql.ansi.enabled" -> "false") {
    checkNative("SELECT l * 100000000000, i * 1000000, dec * dec * dec * dec * dec FROM types",
      Seq(Scan, Project))
    checkNative("SELECT k, sum(big) FROM bigdec GROUP BY k", Seq(Scan, Agg, Agg))
    checkNative("SELECT d / 0, i % 0 FROM types", Seq(Scan, Project))
  }

  @Test def ansiOverflowRaisesSparksErrorClass(): Unit = withConf("spark.sql.ansi.enabled" -> "true") {
    Seq("SELECT l * 100000000000 FROM types", "SELECT k, sum(big) FROM bigdec GROUP BY k",
      "SELECT d / 0 FROM types").foreach { q =>
      val expected = withConf("spark.bolide.enabled" -> "false") {
        errorClassOf(thrownBy(spark.sql(q).collect()))
      }
      assertTrue(s"vanilla Spark must fail: $q", expected.isDefined)
      val df = spark.sql(q)
      val actual = errorClassOf(thrownBy(df.collect()))
      assertEquals(s"error class for $q", expected, actual)
      assertTrue(s"native operators must have run: $q", nativeOperators(df).nonEmpty)
    }
  }

  @Test def scalarSubqueryValuesReachNativeFilters(): Unit = {
    // The subquery runs in Spark first; the native filter receives its value as a literal.
    checkNative("SELECT id, l FROM types WHERE l > (SELECT avg(l) FROM types WHERE g = 1)", Seq(Scan, Filter))
    checkNative("SELECT g, count(*) FROM types WHERE dec < (SELECT max(dec) FROM types) / 2 GROUP BY g",
      Seq(Scan, Filter, Agg, Agg))
  }

  @Test def fallbackCarriesAReason(): Unit = withoutDispatch {
    val df = checkNative("SELECT regexp_replace(str, '(?i)a', 'b') AS u, id FROM types WHERE i > 0", Seq(Scan, Filter))
    val text = extendedExplain(df)
    assertTrue(text, text.contains("Bolide:"))
    assertTrue(text, text.contains("stays in Spark: Project: RegExpReplace: regular expression \"(?i)a\""))
    withConf("spark.bolide.exec.filter.enabled" -> "false") {
      val df2 = spark.sql("SELECT id FROM types WHERE i > 0")
      df2.collect()
      assertFalse(nativeOperators(df2).contains(Filter))
      assertTrue(extendedExplain(df2).contains("disabled by spark.bolide.exec.filter.enabled=false"))
    }
  }

  @Test def corruptFileFailsWithItsNameAndTheSessionLives(): Unit = {
    val dir = new File(BolideTestSession.dataDir, "corrupt")
    dir.mkdirs()
    spark.range(0, 100).selectExpr("id", "id * 2 as v").write.mode("overwrite").parquet(dir.getPath)
    val bad = new File(dir, "part-99999-corrupt.parquet")
    val out = new FileOutputStream(bad)
    try out.write(("PAR1" + "garbage" * 50 + "PAR1").getBytes("UTF-8")) finally out.close()
    val df = spark.read.parquet(dir.getPath).selectExpr("sum(v)")
    val e = thrownBy(df.collect())
    assertTrue(messages(e), messages(e).contains(bad.getName))
    assertTrue(nativeOperators(df).contains(Scan))
    // The same session keeps working.
    checkNative("SELECT g, sum(l) FROM types GROUP BY g", Seq(Scan, Agg, Agg))
  }

  @Test def goPanicsAndBadRequestsBecomeJavaExceptions(): Unit = {
    NativeLoader.load()
    // A bogus handle makes Go panic inside the call: the panic must arrive as an exception.
    val panic = thrownBy(NativeLib.next(0L, 0L))
    assertTrue(panic.toString, panic.isInstanceOf[BolideNativeException])
    assertTrue(panic.getMessage, panic.getMessage.contains("panicked"))
    val bad = thrownBy(NativeLib.createPlan("{not json".getBytes("UTF-8"), Array.empty[AnyRef], null, null))
    assertTrue(bad.getMessage, bad.isInstanceOf[BolideNativeException] && bad.getMessage.contains("decode task request"))
    // The engine and the session keep working.
    assertEquals(NativeLoader.AdapterVersion, NativeLib.version())
    checkNative("SELECT g, count(*) FROM types GROUP BY g", Seq(Scan, Agg, Agg))
  }

  @Test def eightConcurrentNativeTasksRepeatedly(): Unit = {
    (1 to 4).foreach { round =>
      checkNative(s"SELECT k, sum(amount), count(*), max(v) FROM wide WHERE id % $round = 0 GROUP BY k",
        Seq(Scan, Filter, Agg, Agg))
    }
  }

  @Test def batchSizeIsHonoured(): Unit = withConf("spark.bolide.batchSize" -> "100") {
    checkNative("SELECT g, sum(i), count(*) FROM types WHERE l > 0 GROUP BY g", Seq(Scan, Filter, Agg, Agg))
  }
}
