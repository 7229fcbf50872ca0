package org.apache.spark.sql.bolide

import org.junit.Assert._
import org.junit.{Before, Test}

/**
 * Native broadcast joins (BolideBroadcastHashJoin and BolideBroadcastNestedLoopJoin: the build
 * side is a broadcast, read by every task), Bolide off vs on, every join type the strategies
 * allow, with nulls in the keys, duplicate keys on both sides, empty sides, several key types,
 * extra conditions and null-aware anti joins (NOT IN).
 */
class JoinSuite extends BolideSuiteBase {
  private val Bhj = "BolideBroadcastHashJoin"

  @Before def setUp(): Unit = JoinSuite.ensure(spark)

  private val conditions = Seq(
    "l.k = r.k",
    "l.k = r.k AND l.s = r.s",
    "l.k = r.k AND l.v > r.w",
    "l.s = r.s AND l.d = r.d",
    // CaseWhen's branches are encoded as products (scala.Tuple2): the columns inside must be
    // found and rebound when the condition runs over the joined columns it reads.
    "l.k = r.k AND CASE WHEN l.v > 1500 THEN r.w ELSE l.v END > 20",
    "l.k = r.k AND l.id <> r.id AND CASE WHEN r.w > 30 THEN l.v WHEN l.s IS NULL THEN r.w ELSE l.v END > 100")

  @Test def innerJoins(): Unit = conditions.foreach { c =>
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, l.k, r.id, r.w FROM jl l JOIN jr r ON $c", Seq(Bhj))
  }

  @Test def outerJoins(): Unit = conditions.foreach { c =>
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id, r.w FROM jl l LEFT JOIN jr r ON $c", Seq(Bhj))
    // Right outer builds the left side.
    checkNative(s"SELECT /*+ BROADCAST(l) */ l.id, l.v, r.id FROM jl l RIGHT JOIN jr r ON $c", Seq(Bhj))
  }

  @Test def semiAndAntiJoins(): Unit = conditions.foreach { c =>
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, l.s FROM jl l LEFT SEMI JOIN jr r ON $c", Seq(Bhj))
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, l.s FROM jl l LEFT ANTI JOIN jr r ON $c", Seq(Bhj))
  }

  @Test def existenceJoin(): Unit = {
    checkNative("SELECT id, v FROM jl WHERE k IN (SELECT k FROM jr WHERE w > 10) OR v > 2900", Seq(Bhj))
    checkNative("SELECT id FROM jl l WHERE EXISTS (SELECT 1 FROM jr r WHERE r.k = l.k AND r.w < l.v) OR l.id < 5",
      Seq(Bhj))
  }

  @Test def nullSafeAndFloatingKeys(): Unit = {
    // <=> becomes non-null keys in Spark's plan; doubles are normalized (NaN = NaN, -0.0 = 0.0).
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k <=> r.k", Seq(Bhj))
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN jr r ON l.f = r.f", Seq(Bhj))
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l LEFT JOIN jr r ON l.f = r.f AND l.k = r.k", Seq(Bhj))
  }

  @Test def keyTypes(): Unit = {
    Seq("dec", "dt", "s", "b").foreach { k =>
      checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN jr r ON l.$k = r.$k", Seq(Bhj))
    }
  }

  @Test def emptySides(): Unit = {
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN (SELECT * FROM jr WHERE w < -1) r ON l.k = r.k",
      Seq.empty)
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l LEFT JOIN (SELECT * FROM jr WHERE w < -1) r " +
      "ON l.k = r.k", Seq.empty)
    checkNative("SELECT /*+ BROADCAST(r) */ l.id FROM jl l LEFT ANTI JOIN (SELECT * FROM jr WHERE w < -1) r " +
      "ON l.k = r.k", Seq.empty)
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM (SELECT * FROM jl WHERE v < -1) l JOIN jr r ON l.k = r.k",
      Seq.empty)
  }

  @Test def nullAwareAntiJoins(): Unit = {
    // NOT IN is a null-aware anti join: a null in the subquery leaves no row, a null on the left
    // drops that row unless the subquery is empty.
    val queries = Seq(
      "SELECT id FROM jl WHERE k NOT IN (SELECT k FROM jr WHERE w > 100)",
      "SELECT id FROM jl WHERE k NOT IN (SELECT k FROM jr WHERE k IS NOT NULL AND w > 100)",
      "SELECT id, k FROM jl WHERE k NOT IN (SELECT k FROM jr WHERE w < -1)",
      "SELECT id FROM jl WHERE s NOT IN (SELECT s FROM jr WHERE id % 2 = 0)")
    // AQE replaces a join over a build side with a null key by an empty relation, and over an
    // empty one by its left side: the others run natively.
    queries.foreach(q => checkNative(q, Seq.empty))
    Seq(queries(1), queries(3)).foreach(q => checkNative(q, Seq(Bhj)))
    // Without AQE the join runs over a build side with a null key (AQE would drop the join), and
    // with Spark's own broadcast the build side is Spark's relation.
    withConf("spark.sql.adaptive.enabled" -> "false") {
      queries.foreach(q => checkNative(q, Seq(Bhj)))
      withConf("spark.bolide.exec.broadcastExchange.enabled" -> "false") {
        queries.foreach(q => checkNative(q, Seq(Bhj)))
      }
    }
  }

  private val Bnlj = "BolideBroadcastNestedLoopJoin"

  @Test def nestedLoopJoins(): Unit = {
    val r = "(SELECT * FROM jr WHERE id < 60)"
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN $r r ON l.v < r.w AND l.k > r.k", Seq(Bnlj))
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l LEFT JOIN $r r ON l.v + 10 < r.w", Seq(Bnlj))
    checkNative(s"SELECT /*+ BROADCAST(l) */ l.id, r.id FROM (SELECT * FROM jl WHERE id < 40) l RIGHT JOIN jr r " +
      "ON l.v > r.w OR l.s = r.s", Seq(Bnlj))
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id FROM jl l LEFT SEMI JOIN $r r ON l.id < r.id AND l.s > r.s", Seq(Bnlj))
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id FROM jl l LEFT ANTI JOIN $r r ON l.id < r.id AND l.s > r.s", Seq(Bnlj))
    // A condition that can fail (decimal arithmetic under ANSI) stays in Spark for a semi join:
    // Spark stops at a row's first match.
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id FROM jl l LEFT SEMI JOIN $r r ON l.v < r.w - 50", Seq.empty)
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM (SELECT * FROM jl WHERE id < 30) l CROSS JOIN $r r",
      Seq(Bnlj))
    checkNative("SELECT id FROM jl l WHERE EXISTS (SELECT 1 FROM jr r WHERE r.id > l.id AND r.s = 's3') OR l.id < 5",
      Seq(Bnlj))
    // An empty broadcast side.
    checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l LEFT JOIN (SELECT * FROM jr WHERE w < -1) r " +
      "ON l.v < r.w", Seq.empty)
    // Outer on the broadcast side needs every task's matches: Spark runs it, the answer is the same.
    val df = checkNative(s"SELECT /*+ BROADCAST(r) */ l.id, r.id FROM (SELECT * FROM jl WHERE id < 50) l " +
      s"FULL JOIN $r r ON l.v < r.w - 90", Seq.empty)
    assertFalse(nativeOperators(df).contains(Bnlj))
  }

  @Test def nativeBroadcastExchange(): Unit = {
    val Bx = "BolideBroadcastExchange"
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id, r.s FROM jl l JOIN jr r ON l.k = r.k AND l.s = r.s", Seq(Bhj, Bx))
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.w FROM jl l LEFT JOIN jr r ON l.dec = r.dec", Seq(Bhj, Bx))
    withConf("spark.sql.adaptive.enabled" -> "false") {
      checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k = r.k", Seq(Bhj, Bx))
    }
    // A join that stays in Spark (regexp_replace with (?i) is not native, and dispatch, which would
    // keep the join native, is off) reads the native broadcast as Spark's relation.
    withConf("spark.bolide.dispatch.enabled" -> "false") {
      val df = checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l JOIN jr r ON l.k = r.k AND regexp_replace(l.s, '(?i)a', 'b') < regexp_replace(r.s, '(?i)a', 'b')",
        Seq(Bx))
      assertFalse(nativeOperators(df).contains(Bhj))
    }
    // An empty build side (AQE would replace the join by its outcome).
    withConf("spark.sql.adaptive.enabled" -> "false") {
      checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM jl l LEFT JOIN (SELECT * FROM jr WHERE w < -1) r " +
        "ON l.k = r.k", Seq(Bhj, Bx))
    }
  }

  @Test def broadcastBuildSharedByTasks(): Unit = {
    // The tasks of an executor share a native broadcast's hash table (native/ops/join/shared.go):
    // the first task to build it publishes it into Spark's off-heap storage memory, where it stays
    // cached (idle) for the next tasks after the query.
    val mm = org.apache.spark.SparkEnv.get.memoryManager
    val q = "SELECT /*+ BROADCAST(r) */ l.id, r.id, r.s, r.w FROM jl l JOIN jr r ON l.k = r.k AND l.s = r.s"
    val before = mm.offHeapStorageMemoryUsed
    val df = spark.sql(q)
    df.collect()
    assertTrue("the broadcast join ran natively", nativeOperators(df).contains(Bhj))
    assertTrue(s"a shared build holds storage memory (before ${before}, after ${mm.offHeapStorageMemoryUsed})",
      mm.offHeapStorageMemoryUsed > before)
    // Same answers as Spark, with the build shared by the four tasks over jl's four files; and
    // twice more with the cached build.
    checkNative(q, Seq(Bhj))
    checkNative("SELECT /*+ BROADCAST(r) */ l.id, r.w FROM jl l LEFT JOIN jr r ON l.dec = r.dec AND l.v < r.w", Seq(Bhj))
    checkNative("SELECT /*+ BROADCAST(r) */ l.id FROM jl l LEFT SEMI JOIN jr r ON l.k = r.k AND l.dt = r.dt", Seq(Bhj))
  }

  @Test def joinsInTpchShapes(): Unit = {
    // A chain of broadcast joins under an aggregate.
    checkNative(
      """SELECT /*+ BROADCAST(r), BROADCAST(r2) */ r.s, count(*), sum(l.v)
        |FROM jl l JOIN jr r ON l.k = r.k JOIN jr r2 ON l.s = r2.s AND r2.w > 200
        |GROUP BY r.s""".stripMargin, Seq(Bhj, Bhj, "BolideHashAggregate"))
  }
}

object JoinSuite {
  private var done = false

  def ensure(spark: org.apache.spark.sql.SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.range(0, 3000, 1, 4).selectExpr("id",
      "if(id % 13 = 0, null, id % 97) AS k", "concat('s', cast(id % 11 as string)) AS s",
      "id * 1.0 AS v", "cast(id % 23 as decimal(10,2)) AS dec", "date_add(date'2020-01-01', cast(id % 40 as int)) AS dt",
      "id % 3 = 0 AS b",
      "CASE id % 7 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 WHEN 3 THEN NULL ELSE (id % 5) * 1.5 END AS f",
      "(id % 19) * 0.5 AS d")
      .write.mode("overwrite").parquet(TestData.path("jl"))
    spark.range(0, 500, 1, 2).selectExpr("id",
      "if(id % 17 = 0, null, id % 131) AS k", "concat('s', cast(id % 13 as string)) AS s",
      "id * 2.0 AS w", "cast(id % 29 as decimal(10,2)) AS dec", "date_add(date'2020-01-01', cast(id % 50 as int)) AS dt",
      "id % 4 = 0 AS b",
      "CASE id % 5 WHEN 0 THEN double('NaN') WHEN 1 THEN 0.0 WHEN 2 THEN -0.0 ELSE (id % 4) * 1.5 END AS f",
      "(id % 23) * 0.5 AS d")
      .write.mode("overwrite").parquet(TestData.path("jr"))
    spark.read.parquet(TestData.path("jl")).createOrReplaceTempView("jl")
    spark.read.parquet(TestData.path("jr")).createOrReplaceTempView("jr")
  }
}
