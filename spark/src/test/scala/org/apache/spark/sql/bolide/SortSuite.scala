package org.apache.spark.sql.bolide

import org.junit.{Before, Test}

/**
 * Native sorts (BolideSort: ORDER BY, SORT BY) and per-partition top-k (BolideTakeOrderedAndProject:
 * ORDER BY ... LIMIT, Spark merging the partitions), Bolide off vs on, over every type, both
 * directions and null orderings. A unique last key (id) makes the expected order total.
 */
class SortSuite extends BolideSuiteBase {
  private val Sort = "BolideSort"
  private val TopK = "BolideTakeOrderedAndProject"

  @Before def setUp(): Unit = TestData.ensure(spark)

  private val keys = Seq("b", "y", "s", "i", "l", "f", "d", "dec", "wdec", "str", "bin", "dt", "ts", "ntz")
  private val orders = Seq("ASC NULLS FIRST", "ASC NULLS LAST", "DESC NULLS FIRST", "DESC NULLS LAST")

  @Test def orderByEveryTypeAndDirection(): Unit = {
    // Every type with the two non-default null orderings, and every ordering on a few types.
    keys.foreach { k =>
      Seq("ASC NULLS LAST", "DESC NULLS FIRST").foreach { o =>
        checkNative(s"SELECT id, $k FROM types ORDER BY $k $o, id", Seq(Sort), ordered = true)
      }
    }
    for (k <- Seq("i", "d", "str"); o <- orders) {
      checkNative(s"SELECT id, $k FROM types ORDER BY $k $o, id", Seq(Sort), ordered = true)
    }
  }

  @Test def orderByExpressionsAndSeveralKeys(): Unit = {
    checkNative("SELECT id, g, i, str FROM types ORDER BY g DESC, -i NULLS LAST, str, id", Seq(Sort), ordered = true)
    checkNative("SELECT id, d FROM types ORDER BY d * 2 DESC NULLS FIRST, id DESC", Seq(Sort), ordered = true)
    // NaN is the greatest double, -0.0 equals 0.0 (ties broken by id).
    checkNative("SELECT id, v FROM (SELECT id, CASE id % 5 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 " +
      "WHEN 2 THEN 0.0 WHEN 3 THEN NULL ELSE d END AS v FROM types) ORDER BY v, id", Seq(Sort), ordered = true)
  }

  @Test def sortWithinPartitions(): Unit = {
    // SORT BY: a per-partition sort; rows compared as a multiset, and each partition sorted.
    val df = checkNative("SELECT /*+ REPARTITION(3) */ id, l FROM types SORT BY l DESC, id", Seq(Sort))
    // DESC puts nulls last by default.
    df.rdd.glom().collect().foreach { part =>
      val ls = part.toSeq.map(r => (r.isNullAt(1), if (r.isNullAt(1)) 0L else r.getLong(1), r.getLong(0)))
      org.junit.Assert.assertEquals(ls.sortBy { case (isNull, l, id) => (isNull, -l, id) }, ls)
    }
  }

  @Test def topK(): Unit = {
    Seq("d DESC NULLS LAST", "str", "dec DESC", "ts NULLS LAST", "bin DESC NULLS FIRST").foreach { o =>
      checkNative(s"SELECT id, str, d FROM types ORDER BY $o, id LIMIT 17", Seq(TopK), ordered = true)
      checkNative(s"SELECT id, str, d FROM types ORDER BY $o, id LIMIT 17 OFFSET 5", Seq(TopK), ordered = true)
    }
    // The projection differs from the child's rows and drops the sort keys.
    checkNative("SELECT id * 2 AS x, upper(str) FROM types ORDER BY l DESC, id LIMIT 25", Seq(TopK), ordered = true)
    // More rows than the table, and a limit of zero.
    checkNative("SELECT id FROM types ORDER BY id DESC LIMIT 5000", Seq(TopK), ordered = true)
    checkNative("SELECT id FROM types ORDER BY id LIMIT 0", Seq.empty, ordered = true)
  }

  @Test def topKUnderAnAggregate(): Unit = {
    // Not the root: the aggregate reads the merged top-k rows from Spark's wrapper.
    checkNative("SELECT count(*), sum(id), min(l) FROM (SELECT id, l FROM types ORDER BY l DESC, id LIMIT 30)",
      Seq(TopK, "BolideHashAggregate"))
    checkNative("SELECT g, count(*) FROM (SELECT id, g FROM types ORDER BY str, id LIMIT 100 OFFSET 10) " +
      "GROUP BY g", Seq(TopK))
  }

  @Test def sortsCanBeSwitchedOff(): Unit = {
    withConf("spark.bolide.exec.sort.enabled" -> "false", "spark.bolide.exec.takeOrderedAndProject.enabled" -> "false") {
      val df = checkNative("SELECT id FROM types ORDER BY l, id LIMIT 10", Seq.empty, ordered = true)
      org.junit.Assert.assertFalse(nativeOperators(df).contains(TopK))
      org.junit.Assert.assertTrue(bolideReport(df), bolideReport(df).contains("takeOrderedAndProject.enabled=false"))
    }
  }
}
