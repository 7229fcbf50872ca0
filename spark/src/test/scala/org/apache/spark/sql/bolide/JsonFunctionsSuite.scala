package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.spark.sql.SparkSession

/**
 * JSON functions evaluated natively (native/expr: json.go, jsonscan.go, jsongen.go) against Spark
 * itself: every query runs with Bolide off and on, answers must be identical, and the named
 * operators must have run natively. json_data holds documents Jackson reads in every corner Spark's
 * answers depend on: nulls, '', invalid JSON, trailing garbage, single quotes, raw control chars,
 * escapes, surrogates (paired, lone, raw 4-byte), invalid UTF-8, numbers Jackson re-prints,
 * duplicate keys, nesting at and past Jackson's depth limit, and arrays for the wildcards.
 */
class JsonFunctionsSuite extends BolideSuiteBase {
  private val Scan = "BolideScan"
  private val Project = "BolideProject"
  private val Gen = "BolideGenerate"

  @Before def setUp(): Unit = JsonFunctionsSuite.ensure(spark)

  @Test def getJsonObjectFields(): Unit = {
    checkNative("SELECT id, get_json_object(j, '$'), get_json_object(j, '$.a'), get_json_object(j, '$.b'), " +
      "get_json_object(j, '$.a.b'), get_json_object(j, \"$['a']\"), get_json_object(j, '$.é'), " +
      "get_json_object(j, '$.a.b.c') FROM json_data", Seq(Scan, Project))
  }

  @Test def getJsonObjectArrays(): Unit = {
    checkNative("SELECT id, get_json_object(j, '$[0]'), get_json_object(j, '$[1]'), get_json_object(j, '$[*]'), " +
      "get_json_object(j, '$[*][*]'), get_json_object(j, '$[*].a'), get_json_object(j, '$.a[*]'), " +
      "get_json_object(j, '$.a[0]'), get_json_object(j, '$[0][*]'), get_json_object(j, '$[*][0]'), " +
      "get_json_object(j, '$.a[*][*]'), get_json_object(j, '$[*].a[*]'), get_json_object(j, '$[*][*][*]') " +
      "FROM json_data", Seq(Scan, Project))
  }

  @Test def getJsonObjectOddPaths(): Unit = {
    // Paths Spark's parser rejects or never matches give null on every row.
    checkNative("SELECT id, get_json_object(j, '$.*'), get_json_object(j, \"$['*']\"), get_json_object(j, 'a'), " +
      "get_json_object(j, '$.'), get_json_object(j, '$..a'), get_json_object(j, '$.a]'), get_json_object(j, '$[01]'), " +
      "get_json_object(j, ''), get_json_object(j, CAST(NULL AS STRING)) FROM json_data", Seq(Scan, Project))
  }

  @Test def getJsonObjectInFilterAndOverConcat(): Unit = {
    checkNative("SELECT id FROM json_data WHERE get_json_object(j, '$.a') IS NOT NULL", Seq(Scan))
    checkNative("SELECT id, get_json_object(concat('{\"k\":', j, '}'), '$.k'), " +
      "get_json_object(concat('[', j, ',', j, ']'), '$[*]') FROM json_data", Seq(Scan, Project))
  }

  @Test def getJsonObjectPathsWithWhitespace(): Unit = {
    // Spark's path parser skips whitespace before some tokens and keeps it in names otherwise.
    checkNative("SELECT id, get_json_object(j, '$.a b'), get_json_object(j, '$. a'), get_json_object(j, '$.a '), " +
      "get_json_object(j, \"$[' a b']\"), get_json_object(j, '$ .*'), get_json_object(j, '$ .a'), " +
      "get_json_object(j, '$[ 0]'), get_json_object(j, '$[0 ]'), get_json_object(j, '$.a[0] '), " +
      "get_json_object(j, '$ ') FROM json_data", Seq(Scan, Project))
  }

  @Test def nonLiteralPathStaysInSpark(): Unit = withoutDispatch {
    val df = checkNative("SELECT id, get_json_object(j, p) FROM json_data", Seq(Scan))
    assertFalse(nativeOperators(df).mkString(", "), nativeOperators(df).contains(Project))
    assertTrue(bolideReport(df), bolideReport(df).contains("non-literal"))
  }

  @Test def jsonTuple(): Unit = {
    checkNative("SELECT id, json_tuple(j, 'a', 'b') FROM json_data", Seq(Scan, Gen))
    checkNative("SELECT id, json_tuple(j, 'a', 'a', 'é', 'c', CAST(NULL AS STRING), '') FROM json_data", Seq(Scan, Gen))
    checkNative("SELECT id, x, y FROM json_data LATERAL VIEW json_tuple(j, 'b', 'a') t AS x, y", Seq(Scan, Gen),
      ordered = false)
    checkNative("SELECT id, x FROM json_data LATERAL VIEW OUTER json_tuple(j, 'a') t AS x WHERE x IS NOT NULL",
      Seq(Scan, Gen))
  }

  @Test def jsonTupleWithAColumnNameStaysInSpark(): Unit = {
    val df = checkNative("SELECT id, json_tuple(j, p, 'a') FROM json_data", Seq(Scan))
    assertFalse(nativeOperators(df).mkString(", "), nativeOperators(df).contains(Gen))
  }

  @Test def typeOf(): Unit = {
    // Unfolded (ConstantFolding excluded), so that TypeOf itself runs natively.
    withConf("spark.sql.optimizer.excludedRules" -> "org.apache.spark.sql.catalyst.optimizer.ConstantFolding") {
      checkNative("SELECT id, typeof(id), typeof(j), typeof(CAST(id AS DECIMAL(12, 3))), typeof(CAST(id AS BIGINT)), " +
        "typeof(CAST(id AS TINYINT)), typeof(CAST(id AS SMALLINT)), typeof(id / 2), typeof(CAST(j AS BINARY)), " +
        "typeof(NULL), typeof(id > 1), typeof(CAST(id AS FLOAT)), typeof(current_date()), " +
        "typeof(CAST(NULL AS TIMESTAMP)), typeof(CAST(NULL AS TIMESTAMP_NTZ)) FROM json_data", Seq(Scan, Project))
    }
    checkNative("SELECT id, typeof(id), typeof(j) FROM json_data", Seq(Scan, Project))
  }

  @Test def intervalConstructorsStayInSpark(): Unit = {
    // The engine carries no interval columns: make_dt_interval and make_ym_interval stay in Spark.
    val df = checkNative("SELECT id, make_dt_interval(id, 2, 3, 4.5), make_ym_interval(id, 2) FROM json_data",
      Seq(Scan))
    assertFalse(nativeOperators(df).mkString(", "), nativeOperators(df).contains(Project))
  }
}

object JsonFunctionsSuite {
  private var done = false

  def ensure(spark: SparkSession): Unit = synchronized {
    if (done) return
    done = true
    spark.conf.set("spark.bolide.enabled", "false")
    try {
      import spark.implicits._
      val docs: Seq[String] = Seq(
        null, "", "   ", "null", "bad", "{", "[1,]", "{\"a\":1,}", "{a:1}",
        "{\"a\":1}", "{\"a\":1} trailing", "{\"a\":1}}", "123", "123 x", "123x", "-0", "\"top\"", "true",
        "{\"a\":{\"b\":[1,2.50,null,true,\"x\"]},\"b\":\"s\"}",
        "{\"a\":\"é 😀\",\"é\":\"\\u00e9\"}",
        "{\"a\":{\"s\":\"\\ud83d\\ude00 😀 \\u0001\\n\\\"\\\\/\"}}",
        "{\"a\":\"\\ud83d\"}", "{\"a\":[\"\\ud83d\"]}", "[\"\\ude00\"]",
        "{'a':'single \\' \"q\"'}", "{\"a\":\"raw\u0001ctl\"}",
        "{\"a\":1.10,\"b\":1E2}", "{\"a\":[1e400,-1e400,1.5e-400,2e-3,1e23,0.1e-5]}",
        "{\"a\":123456789012345678901234567890}", "{\"a\":01}", "{\"a\":1.}",
        "{\"a\":null,\"a\":2}", "{\"a\":{\"x\":1},\"a\":{\"b\":\"second\"}}", "{\"a\":3,\"a\":4}",
        "{\"a\":2,\"b\":\"\\q\"}",
        "[{\"a\":2},{\"a\":\"s\"},{\"b\":1}]", "[{\"a\":[]},{\"b\":1},{\"a\":[5]}]",
        "[[1,2],[3,[4,5]],6,\"x\"]", "[1,\"two\",3]", "[[\"a\",\"b\"]]", "[]", "[[]]", "[null]", "[null,null]",
        "{\"a\":[],\"a\":[[1]]}", "{\"a\":[[1],[2]]}", "{\"a\":[{\"b\":[1,2]},{\"b\":[3]}]}",
        "{\"a\":{\"b\":{\"c\":\"deep\"}}}",
        "{\"a\":1,\"b\":" + "[" * 999 + "]" * 999 + "}",
        "{\"a\":1,\"b\":" + "[" * 1000 + "]" * 1000 + "}",
        "{\"a\":1,\"b\":" + "1" * 1001 + "}",
        "{\"a b\":1,\"a \":2,\" a\":3,\"a\":[{\" a b\":4}]}",
        "truex", "true]", "{\"a\":true}"
      )
      val bytes: Seq[Array[Byte]] = Seq(
        Array(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xe2, 0x82, 0x22, 0x7d).map(_.toByte),
        Array(0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d).map(_.toByte))
      val paths = Seq("$.a", "$[0]", "$", "$.b", "$[*]")
      val rows = docs.zipWithIndex.map { case (d, i) =>
        (i, if (d == null) null else d.getBytes("UTF-8"), paths(i % paths.size))
      } ++ bytes.zipWithIndex.map { case (b, i) => (docs.size + i, b, "$.a") }
      rows.toDF("id", "jb", "p").selectExpr("id", "CAST(jb AS STRING) AS j", "p")
        .repartition(2).write.mode("overwrite").parquet(TestData.path("json_data"))
      spark.read.parquet(TestData.path("json_data")).createOrReplaceTempView("json_data")
    } finally spark.conf.unset("spark.bolide.enabled")
  }
}
