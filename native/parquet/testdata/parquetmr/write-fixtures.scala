// Writes the parquet-mr fixtures of this directory with Spark's own Parquet writer (parquet-mr).
// Run from the repository root (the fixtures are committed; rerun only to change them):
//
//   OUT=native/parquet/testdata/parquetmr data/spark/spark-4.1.3/bin/spark-shell --master 'local[1]' \
//     --conf spark.sql.session.timeZone=UTC -i native/parquet/testdata/parquetmr/write-fixtures.scala
//
// Every file is one Spark task's output (coalesce(1)), renamed to <name>.parquet. Values are
// functions of the row number, so rerunning writes the same values (and bytes up to the writer's
// created_by string).
import java.nio.file.{Files, Paths, StandardCopyOption}
import org.apache.spark.sql.DataFrame

val out = Paths.get(sys.env.getOrElse("OUT", "native/parquet/testdata/parquetmr")).toAbsolutePath
val tmp = Files.createTempDirectory("parquetmr-fixtures")

def write(name: String, df: DataFrame, opts: Map[String, String]): Unit = {
  val dir = tmp.resolve(name).toString
  df.coalesce(1).write.options(opts).parquet(dir)
  val parts = new java.io.File(dir).listFiles.filter(f => f.getName.startsWith("part-") && f.getName.endsWith(".parquet"))
  require(parts.length == 1, s"$name: ${parts.length} part files")
  Files.copy(parts(0).toPath, out.resolve(name + ".parquet"), StandardCopyOption.REPLACE_EXISTING)
  println(s"wrote $name.parquet: ${parts(0).length} bytes")
}

// nullable(c, k): c, null on every k-th row (at a phase per column, so that rows differ in which
// columns are null).
def nulls(k: Int, phase: Int, e: String) = s"CASE WHEN id % $k = $phase THEN NULL ELSE $e END"

// Few distinct values: dictionary-encoded when dictionaries are on.
val lowCard = Seq(
  "CAST(id % 50 - 25 AS INT) AS i",
  "id % 40 * 1000000007 AS l",
  "CAST(id % 30 AS DOUBLE) / 8 - 1.5 AS d",
  "concat('s', CAST(id % 37 AS STRING)) AS s",
  "CAST(id % 20 / 4 AS DECIMAL(9,2)) AS dec9",
  "CAST(CAST(id % 25 AS DECIMAL(18,3)) * 1000.125 AS DECIMAL(18,3)) AS dec18",
  "CAST(CAST(id % 15 AS DECIMAL(30,4)) * 123456789012.3456 AS DECIMAL(30,4)) AS dec30",
  "date_add(DATE'2020-01-01', CAST(id % 45 AS INT) - 20) AS dt",
  "timestamp_micros(1600000000000000 + (id % 33) * 3661000001) AS ts")
// Mostly distinct values.
val highCard = Seq(
  "CAST(id * 7919 % 100003 - 50000 AS INT) AS i",
  "id * 1000000007 - 3000000000000 AS l",
  "CAST(id AS DOUBLE) / 7 - 100 AS d",
  "concat('str-', CAST(id AS STRING), repeat('x', CAST(id % 5 AS INT))) AS s",
  "CAST(id / 8 - 50 AS DECIMAL(9,2)) AS dec9",
  "CAST(CAST(id AS DECIMAL(18,3)) * 1000003.125 AS DECIMAL(18,3)) AS dec18",
  "CAST(CAST(id AS DECIMAL(30,4)) * -98765432109.8765 AS DECIMAL(30,4)) AS dec30",
  "date_add(DATE'1970-01-01', CAST(id * 37 AS INT) - 9000) AS dt",
  "timestamp_micros(1500000000000000 + id * 86400000123) AS ts")

// withNulls makes every column nullable with nulls on every k-th row at a phase per column, and
// adds a nullable column without a null (definition levels all 1: the common case).
def withNulls(cols: Seq[String]) = cols.zipWithIndex.map { case (c, j) =>
  val Array(e, name) = c.split(" AS (?=[a-z0-9]+$)")
  s"${nulls(7 + j, j % 5, e)} AS $name"
} :+ "CASE WHEN id < 0 THEN NULL ELSE id * 3 END AS nn"

def rows(n: Int, cols: Seq[String]) = spark.range(n).selectExpr(cols: _*)

val v1 = Map("parquet.writer.version" -> "v1", "parquet.page.size" -> "1024")
val v2 = Map("parquet.writer.version" -> "v2", "parquet.page.size" -> "1024")
val plain = Map("parquet.enable.dictionary" -> "false")

write("v1_snappy_dict_nulls", rows(1000, withNulls(lowCard)), v1 + ("compression" -> "snappy"))
write("v1_zstd_dict_required", rows(1000, lowCard), v1 + ("compression" -> "zstd"))
write("v1_uncompressed_plain_nulls", rows(250, withNulls(highCard)), v1 ++ plain + ("compression" -> "none"))
write("v1_snappy_plain_required", rows(250, highCard), v1 ++ plain + ("compression" -> "snappy"))
// Several row groups: parquet-mr checks the row group's size every 100 rows at the earliest.
write("v1_zstd_plain_nulls_groups", rows(500, withNulls(highCard)),
  v1 ++ plain + ("compression" -> "zstd") + ("parquet.block.size" -> "4096"))
write("v2_snappy_dict_nulls", rows(1000, withNulls(lowCard)), v2 + ("compression" -> "snappy"))
write("v2_uncompressed_dict_required", rows(1000, lowCard), v2 + ("compression" -> "none"))
// v2 without dictionaries: parquet-mr writes DELTA encodings, which the own page reader leaves
// to parquet-go; read here to check the two paths mixed in one file.
write("v2_zstd_plain_nulls", rows(250, withNulls(highCard)), v2 ++ plain + ("compression" -> "zstd"))
// Dictionary fallback mid-chunk: the first 600 rows repeat a few values (pages of at most 200
// rows, dictionary-encoded), then every value is new and the dictionary outgrows its 1 KB limit,
// so parquet-mr writes the rest of the chunk PLAIN.
val fallback = Seq(
  "CASE WHEN id % 9 = 4 THEN NULL WHEN id < 600 THEN concat('k', CAST(id % 10 AS STRING)) ELSE concat('unique-', CAST(id AS STRING)) END AS s",
  "CASE WHEN id % 11 = 2 THEN NULL WHEN id < 600 THEN id % 10 ELSE id * 1000003 END AS l",
  "CASE WHEN id < 600 THEN CAST(id % 10 AS DOUBLE) ELSE CAST(id AS DOUBLE) / 3 END AS d")
write("v1_snappy_dict_fallback", rows(2000, fallback), v1 + ("compression" -> "snappy") +
  ("parquet.page.row.count.limit" -> "200") + ("parquet.dictionary.page.size" -> "1024"))
// TIMESTAMP_MICROS (INT64) instead of Spark's default INT96, and a BOOLEAN column (read by
// parquet-go, the own page reader leaves BOOLEAN alone).
spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
write("v1_gzip_micros_bool", rows(800, withNulls(lowCard :+ "id % 3 = 1 AS b")), v1 + ("compression" -> "gzip"))
spark.conf.unset("spark.sql.parquet.outputTimestampType")
System.exit(0)
