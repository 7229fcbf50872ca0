package org.apache.spark.sql.bolide

import org.junit.{Before, Test}
import org.junit.Assert._

import org.apache.iceberg.expressions.Literal
import org.apache.iceberg.spark.Spark3Util
import org.apache.iceberg.types.Types

/**
 * Iceberg columns beyond the flat primitives: uuid columns (Iceberg's FIXED_LEN_BYTE_ARRAY(16)
 * with the UUID annotation, which Spark sees as strings) and uuid identity partitions, and nested
 * columns (struct, list, map) matched by field id at every level through the table's schema
 * evolution, are read natively, also under merge-on-read deletes. Tables are written with Bolide
 * off; every query runs with Bolide off and on, and where the scan must be native on every file,
 * no task may have gone to Iceberg Java's reader (IcebergScans.tasksReadByJava).
 */
class IcebergNestedSuite extends BolideSuiteBase {
  private val Scan = "BolideIcebergScan"
  private val Namespace = s"${SparkChildrenSuite.Catalog}.ice_nested"
  private def t(name: String) = s"$Namespace.$name"

  @Before def setUp(): Unit = IcebergNestedSuite.synchronized {
    if (!IcebergNestedSuite.done) {
      withConf("spark.bolide.enabled" -> "false") {
        spark.sql(s"CREATE NAMESPACE IF NOT EXISTS $Namespace")
        spark.sql(s"DROP TABLE IF EXISTS ${t("uuids")}")
        spark.sql(s"""CREATE TABLE ${t("uuids")} (id BIGINT, name STRING) USING iceberg
                     |TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')""".stripMargin)
        // Spark SQL has no uuid type: the column is added through Iceberg's API, and written from
        // strings (upper-case hex: Iceberg parses them, readers show the canonical lower case).
        Spark3Util.loadIcebergTable(spark, t("uuids")).updateSchema()
          .addColumn("u", Types.UUIDType.get()).commit()
        spark.range(0, 4000, 1, 3).selectExpr("id", "concat('n', id) AS name",
          """CASE WHEN id % 11 = 0 THEN NULL ELSE concat(lpad(hex(id), 8, '0'), '-00AB-4CDE-8F01-',
               lpad(hex(id * 7919), 12, '0')) END AS u""")
          .writeTo(t("uuids")).append()
        spark.sql(s"DELETE FROM ${t("uuids")} WHERE id % 5 = 2")

        spark.sql(s"DROP TABLE IF EXISTS ${t("nested")}")
        spark.sql(s"""CREATE TABLE ${t("nested")} (id BIGINT, s STRUCT<a: INT, b: STRING>,
                     |l ARRAY<INT>, m MAP<STRING, INT>) USING iceberg
                     |TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')""".stripMargin)
        spark.range(0, 1000, 1, 2).selectExpr("id", "named_struct('a', cast(id AS int), 'b', concat('b', id)) AS s",
          "CASE WHEN id % 3 = 0 THEN NULL ELSE array(cast(id AS int), NULL) END AS l",
          "map('k', cast(id AS int)) AS m").writeTo(t("nested")).append()
        spark.sql(s"DELETE FROM ${t("nested")} WHERE id % 4 = 1")

        // Schema evolution inside structs, list elements and map values between two writes.
        spark.sql(s"DROP TABLE IF EXISTS ${t("evolved")}")
        spark.sql(s"""CREATE TABLE ${t("evolved")} (id BIGINT,
                     |s STRUCT<a: INT, b: STRING, x: INT, f: FLOAT, d: DECIMAL(9,2)>,
                     |ls ARRAY<STRUCT<p: INT, q: STRING>>, mv MAP<STRING, STRUCT<v: INT, w: STRING>>) USING iceberg
                     |TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')""".stripMargin)
        spark.range(0, 1500, 1, 2).selectExpr("id",
          """CASE WHEN id % 13 = 0 THEN NULL ELSE named_struct('a', cast(id AS int), 'b', concat('b', id),
               'x', cast(-id AS int), 'f', cast(id AS float) / 4, 'd', cast(id / 8 AS decimal(9,2))) END AS s""",
          """CASE WHEN id % 7 = 0 THEN NULL ELSE transform(sequence(0, cast(id % 4 AS int) - 1),
               j -> named_struct('p', cast(id * 10 + j AS int), 'q', IF(j = 1, NULL, concat('q', j)))) END AS ls""",
          """CASE WHEN id % 9 = 0 THEN NULL ELSE map('k', named_struct('v', cast(id AS int), 'w', concat('w', id)),
               concat('k', id % 3), IF(id % 2 = 0, NULL, named_struct('v', 1, 'w', NULL))) END AS mv""")
          .writeTo(t("evolved")).append()
        Seq(
          "ADD COLUMN s.n STRING",
          "RENAME COLUMN s.a TO a2",
          "DROP COLUMN s.x",
          "ALTER COLUMN s.a2 TYPE BIGINT",
          "ALTER COLUMN s.f TYPE DOUBLE",
          "ALTER COLUMN s.d TYPE DECIMAL(12,2)",
          "ALTER COLUMN s.b AFTER d",
          "ALTER COLUMN s.n FIRST",
          "ADD COLUMN s.x INT", // re-added: a new field id, so older files do not have it
          "ADD COLUMN ls.element.r INT",
          "ALTER COLUMN ls.element.p TYPE BIGINT",
          "RENAME COLUMN ls.element.q TO q2",
          "ALTER COLUMN ls.element.r FIRST",
          "ADD COLUMN mv.value.z DOUBLE",
          "ALTER COLUMN mv.value.v TYPE BIGINT",
          "DROP COLUMN mv.value.w"
        ).foreach(change => spark.sql(s"ALTER TABLE ${t("evolved")} $change"))
        spark.range(1500, 2500, 1, 2).selectExpr("id",
          """CASE WHEN id % 13 = 0 THEN NULL ELSE named_struct('n', concat('n', id), 'a2', id * 1000000000,
               'f', cast(id AS double) / 3, 'd', cast(id / 7 AS decimal(12,2)), 'b', concat('b', id),
               'x', cast(id % 5 AS int)) END AS s""",
          """transform(sequence(0, cast(id % 3 AS int)), j -> named_struct('r', cast(j AS int),
               'p', id * 10000000000 + j, 'q2', concat('q2_', j))) AS ls""",
          """map('k', named_struct('v', id * 10000000000, 'z', cast(id AS double) / 2)) AS mv""")
          .writeTo(t("evolved")).append()
        spark.sql(s"DELETE FROM ${t("evolved")} WHERE id % 10 = 3")

        // v3: a struct field added with an initial default, which older files read as.
        spark.sql(s"DROP TABLE IF EXISTS ${t("nested_defaults")}")
        spark.sql(s"""CREATE TABLE ${t("nested_defaults")} (id BIGINT, s STRUCT<a: INT>) USING iceberg
                     |TBLPROPERTIES ('format-version'='3')""".stripMargin)
        spark.range(0, 300, 1, 1).selectExpr("id", "named_struct('a', cast(id AS int)) AS s")
          .writeTo(t("nested_defaults")).append()
        Spark3Util.loadIcebergTable(spark, t("nested_defaults")).updateSchema()
          .addColumn("s", "dflt", Types.IntegerType.get(), Literal.of(42))
          .addColumn("s", "sdflt", Types.StringType.get(), Literal.of("dflt"))
          .commit()
        spark.range(300, 400, 1, 1).selectExpr("id", "named_struct('a', cast(id AS int), 'dflt', 7, 'sdflt', 'new') AS s")
          .writeTo(t("nested_defaults")).append()

        // Plain Parquet files without field ids, imported with add_files (which sets a name mapping
        // with the nested fields), then evolved and appended to (files with ids).
        val src = new java.io.File(BolideTestSession.dataDir, "ice_nested_import_src").getAbsolutePath
        spark.range(0, 800, 1, 2).selectExpr("id",
          "CASE WHEN id % 6 = 0 THEN NULL ELSE named_struct('a', cast(id AS int), 'b', concat('b', id)) END AS s",
          "transform(sequence(0, cast(id % 3 AS int) - 1), j -> named_struct('x', id + j)) AS l",
          "map('k', cast(id AS int)) AS m").write.mode("overwrite").parquet(src)
        spark.sql(s"DROP TABLE IF EXISTS ${t("imported")}")
        spark.sql(s"""CREATE TABLE ${t("imported")} (id BIGINT, s STRUCT<a: INT, b: STRING>,
                     |l ARRAY<STRUCT<x: BIGINT>>, m MAP<STRING, INT>) USING iceberg
                     |TBLPROPERTIES ('format-version'='2')""".stripMargin)
        spark.sql(s"CALL ${SparkChildrenSuite.Catalog}.system.add_files(table => 'ice_nested.imported', " +
          s"source_table => '`parquet`.`$src`')")
        spark.sql(s"ALTER TABLE ${t("imported")} RENAME COLUMN s.b TO b2")
        spark.sql(s"ALTER TABLE ${t("imported")} ALTER COLUMN s.a TYPE BIGINT")
        spark.sql(s"ALTER TABLE ${t("imported")} ALTER COLUMN m.value TYPE BIGINT")
        spark.sql(s"INSERT INTO ${t("imported")} SELECT id + 1000, named_struct('a', id * 10000000000, 'b2', 'new'), " +
          s"array(named_struct('x', id)), map('k2', id) FROM range(0, 50)")

        // An identity partition on a uuid column (added through Iceberg's API, as above), nulls too.
        spark.sql(s"DROP TABLE IF EXISTS ${t("uuid_parts")}")
        spark.sql(s"""CREATE TABLE ${t("uuid_parts")} (id BIGINT) USING iceberg
                     |TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')""".stripMargin)
        val up = Spark3Util.loadIcebergTable(spark, t("uuid_parts"))
        up.updateSchema().addColumn("u", Types.UUIDType.get()).commit()
        up.refresh()
        up.updateSpec().addField("u").commit()
        spark.range(0, 600, 1, 2).selectExpr("id",
          """CASE WHEN id % 4 = 3 THEN NULL ELSE concat('0000000', cast(id % 4 AS string), '-00AB-4CDE-8F01-0000000148BF') END AS u""")
          .writeTo(t("uuid_parts")).append()
        spark.sql(s"DELETE FROM ${t("uuid_parts")} WHERE id % 10 = 1")
      }
      IcebergNestedSuite.done = true
    }
  }

  private def scanReasons(sql: String): Seq[String] = {
    val (_, fallback) = operatorReport(spark.sql(sql))
    fallback.collect { case (name, reason) if name.startsWith("BatchScan") => reason }
  }

  @Test def uuidColumns(): Unit = {
    val shown = withConf("spark.bolide.enabled" -> "false") {
      spark.sql(s"SELECT u FROM ${t("uuids")} WHERE u IS NOT NULL").collect().map(_.getString(0))
    }
    assertTrue(shown.nonEmpty)
    shown.foreach(u => assertTrue(s"Iceberg Java shows $u", u.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
    checkNative(s"SELECT * FROM ${t("uuids")}", Seq(Scan))
    checkNative(s"SELECT id, u FROM ${t("uuids")} WHERE id > 3000", Seq(Scan))
    checkNative(s"SELECT count(*), count(u), max(u), min(u) FROM ${t("uuids")}", Seq(Scan))
  }

  /** checkNative, and every file of the scan read natively: none handed to Iceberg Java's reader. */
  private def checkAllNative(sql: String): Unit = {
    val before = IcebergScans.tasksReadByJava.get
    checkNative(sql, Seq(Scan))
    assertEquals(s"tasks read by Iceberg Java's reader inside the native scan of: $sql",
      before, IcebergScans.tasksReadByJava.get)
  }

  @Test def nestedColumns(): Unit = {
    checkAllNative(s"SELECT * FROM ${t("nested")}")
    checkAllNative(s"SELECT id, s FROM ${t("nested")} WHERE id > 500")
    checkAllNative(s"SELECT id, s.b, l, m FROM ${t("nested")}")
    checkAllNative(s"SELECT id FROM ${t("nested")}")
    assertTrue("the table must have positional delete files",
      spark.sql(s"SELECT count(*) FROM ${t("nested")}.delete_files").head().getLong(0) > 0)
  }

  @Test def nestedSchemaEvolution(): Unit = {
    checkAllNative(s"SELECT * FROM ${t("evolved")}")
    checkAllNative(s"SELECT id, s FROM ${t("evolved")}")
    checkAllNative(s"SELECT id, s.a2, s.b, s.f, s.d FROM ${t("evolved")}")
    checkAllNative(s"SELECT id, ls FROM ${t("evolved")}")
    checkAllNative(s"SELECT id, mv FROM ${t("evolved")}")
    assertTrue("the table must have positional delete files",
      spark.sql(s"SELECT count(*) FROM ${t("evolved")}.delete_files").head().getLong(0) > 0)
    assertEquals(2L, spark.sql(s"SELECT count(*) FROM ${t("evolved")}.files WHERE content = 0").head().getLong(0).min(2L))
  }

  @Test def nestedColumnsThroughTheNameMapping(): Unit = {
    val mapping = spark.sql(s"SHOW TBLPROPERTIES ${t("imported")} ('schema.name-mapping.default')").head().getString(1)
    assertTrue(s"the mapping must name the nested fields: $mapping", mapping.contains("\"element\""))
    checkAllNative(s"SELECT * FROM ${t("imported")}")
    checkAllNative(s"SELECT id, s.b2, l FROM ${t("imported")} WHERE id % 2 = 0")
  }

  @Test def structFieldsNoneOfWhichIsInAFile(): Unit = {
    // Only fields the older files lack: the struct's nulls come from the levels of a field that is
    // not requested.
    checkAllNative(s"SELECT id, s.n, s.x FROM ${t("evolved")}")
    checkAllNative(s"SELECT id, s.x FROM ${t("evolved")} WHERE id % 13 = 0")
    // In a list's element struct, Iceberg Java reads such a list as null: the older files go to
    // its (row) reader inside the native scan.
    val before = IcebergScans.tasksReadByJava.get
    checkNative(s"SELECT id, ls.r FROM ${t("evolved")}", Seq(Scan))
    assertTrue("the older files must have been read by Iceberg Java", IcebergScans.tasksReadByJava.get > before)
  }

  @Test def nestedInitialDefaults(): Unit = {
    checkAllNative(s"SELECT * FROM ${t("nested_defaults")}")
    checkAllNative(s"SELECT id, s.dflt, s.a FROM ${t("nested_defaults")}")
  }

  @Test def uuidIdentityPartitions(): Unit = {
    // (Not counted from t.files' partition column: Iceberg Java's metadata table fails on uuid
    // partition values, "expected java.lang.CharSequence, but was java.util.UUID".)
    val files = spark.sql(s"SELECT count(*) FROM ${t("uuid_parts")}.files WHERE content = 0").head().getLong(0)
    assertTrue(s"the table must have a data file per partition value, has $files", files >= 4)
    checkAllNative(s"SELECT * FROM ${t("uuid_parts")}")
    checkAllNative(s"SELECT u, count(*), sum(id) FROM ${t("uuid_parts")} GROUP BY u")
    checkAllNative(s"SELECT id, u FROM ${t("uuid_parts")} WHERE u = '00000002-00ab-4cde-8f01-0000000148bf'")
  }
}

object IcebergNestedSuite {
  private var done = false
}
