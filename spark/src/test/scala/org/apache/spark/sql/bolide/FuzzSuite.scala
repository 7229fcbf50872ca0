package org.apache.spark.sql.bolide

import java.nio.charset.StandardCharsets

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.util.Random
import scala.util.control.NonFatal

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.config.Configurator
import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, UnresolvedAlias, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, EvalMode, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{OneRowRelation, Project}
import org.apache.spark.sql.types._

/**
 * Differential fuzzing of the native functions against Spark (issue 11). Every scalar function the
 * engine runs natively (docs/functions.md) is called as Spark's own documentation examples call it
 * (ExpressionInfo.getExamples), with the examples' literals replaced by columns of a random table
 * of the same type, or by other such calls, and evaluated over the same rows with Bolide off and
 * on: values must be identical, and an error on one side only is a difference. Rounds alternate
 * ANSI and legacy mode and session time zones with and without DST.
 *
 * Bounded: `bolide.fuzz.seconds` (60 by default, as `make test` runs it) of rounds with
 * `bolide.fuzz.seed` (fixed by default, so that CI is repeatable; `make fuzz DURATION=30m` draws
 * one). The first rounds cover every function: the distinct functions in an order the seed
 * shuffles, CoverSize to a round, one call of each (in legacy mode, where fewer calls fail on both
 * sides), a round that did not run natively split in halves and a function left uncompared
 * retried with another call; these rounds are not cut by the deadline, and the suite fails if a
 * function never ran natively without a difference, so that CI proves each one compared. Random
 * rounds of BatchSize calls drawn with replacement, in both modes, fill the time left. A function
 * counts as compared when its round's project ran as BolideProject, found no difference and its
 * values agreed (or, if every try of it failed on both sides, which the suite accepts as
 * agreement, it is listed). A difference is reported with the seed, the round and the query that
 * reproduce it.
 */
class FuzzSuite extends BolideSuiteBase {
  import FuzzSuite._

  @Test def nativeFunctionsAgreeWithSpark(): Unit = {
    val seed = sys.props.get("bolide.fuzz.seed").filter(_.nonEmpty).map(_.toLong).getOrElse(20261204L)
    val seconds = sys.props.get("bolide.fuzz.seconds").filter(_.nonEmpty).map(_.toDouble).getOrElse(60.0)
    println(s"fuzz: seed $seed, $seconds s (-Dbolide.fuzz.seed=$seed reproduces it)")
    val rnd = new Random(seed)
    // The rounds' expected errors (ANSI casts, overflows) would fill the log with task failures.
    val quiet = Seq("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager")
    val levels = quiet.map(n => n -> LogManager.getLogger(n).getLevel)
    quiet.foreach(Configurator.setLevel(_, Level.OFF))
    // Dispatch off: a call the engine refuses must not plan as a BolideProject through Spark's own
    // code, or it would be counted (and compared) as native.
    try withConf(
      "spark.bolide.dispatch.enabled" -> "false",
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED",
      "spark.sql.parquet.datetimeRebaseModeInRead" -> "CORRECTED",
      "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS") {
      val start = System.nanoTime()
      writeTable(rnd.nextLong())
      val calls = nativeCalls(rnd)
      val byFunction = calls.groupBy(_.function)
      val functions = byFunction.keys.toIndexedSeq.sorted
      assertTrue(s"only ${calls.size} native calls planned natively: the engine runs no function natively?",
        calls.size >= 50)
      val roundsStart = System.nanoTime()
      println(f"fuzz: ${calls.size} calls of ${functions.size} native functions, planned in " +
        f"${(roundsStart - start) / 1e9}%.1f s")
      val deadline = roundsStart + (seconds * 1e9).toLong
      val mismatches = ArrayBuffer.empty[String]
      // Functions whose values agreed in a native round, and those whose call (alone) failed on
      // both sides in one: the suite's agreement, but no value was compared.
      val compared = mutable.Set.empty[String]
      val failedBoth = mutable.Set.empty[String]
      var round = 0

      /**
       * Runs round `round` over the calls `pick` draws (legacy mode if not `ansiOk`); whether its
       * project ran natively, and the functions it compared.
       */
      def runRound(ansiOk: Boolean)(pick: Random => Seq[Call]): (Boolean, Set[String]) = {
        val r = new Random(seed * 31 + round)
        val ansi = r.nextBoolean() && ansiOk
        val zone = Zones(r.nextInt(Zones.length))
        val batch = pick(r).distinct
        val (native, done) = withConf("spark.sql.ansi.enabled" -> ansi.toString, "spark.sql.session.timeZone" -> zone) {
          val where = s"seed $seed round $round (ansi $ansi, zone $zone)"
          val sqls = batch.map(_.sql)
          // Counted only when the round's project itself runs as BolideProject (each call alone
          // plans natively; this checks the round's plan too) and the round found no difference.
          val native = try nativeOperators(project(sqls)).contains("BolideProject") catch {
            case NonFatal(_) => false
          }
          val outcome = compare(sqls, where)
          mismatches ++= outcome.mismatches
          def functionsOf(sqls: Seq[String]) = batch.filter(c => sqls.contains(c.sql)).map(_.function).toSet
          if (native && outcome.mismatches.isEmpty) {
            failedBoth ++= functionsOf(outcome.failedBoth)
            (true, functionsOf(outcome.agreed))
          } else (native, Set.empty[String])
        }
        compared ++= done
        round += 1
        (native, done)
      }

      // Coverage first, not cut by the deadline, so that CI proves every function compared: the
      // functions in a seeded order, CoverSize to a round, in legacy mode (in ANSI mode a third of
      // the calls fail on both sides over random rows, and narrowing each failure down to its
      // call costs more than the round). A round that did not run natively is split, as one call
      // can send the whole project to Spark; a function left uncompared on its own (its call
      // failed on both sides, or did not run natively in this round's zone) is retried with a
      // call not tried yet, MaxTries times at most.
      val queue = mutable.Queue(new Random(seed).shuffle(functions).grouped(CoverSize).toSeq: _*)
      val retry = ArrayBuffer.empty[String]
      val tries = mutable.Map.empty[String, Int].withDefaultValue(0)
      val tried = mutable.Set.empty[Call]
      while ((queue.nonEmpty || retry.nonEmpty) && mismatches.size < 10 &&
          // Once Bolide differs the suite fails anyway: the deadline applies again.
          (mismatches.isEmpty || System.nanoTime() < deadline)) {
        if (queue.isEmpty) {
          queue ++= retry.toIndexedSeq.grouped(CoverSize)
          retry.clear()
        }
        val group = queue.dequeue()
        val (native, done) = runRound(ansiOk = false)(r => group.map { f =>
          val fresh = byFunction(f).filterNot(tried)
          val cs = if (fresh.nonEmpty) fresh else byFunction(f)
          val c = cs(r.nextInt(cs.size))
          tried += c
          c
        })
        val left = group.filterNot(done)
        if (!native && left.size > 1) {
          queue ++= left.grouped((left.size + 1) / 2)
        } else left.foreach { f =>
          tries(f) += 1
          if (tries(f) < MaxTries) retry += f
        }
      }
      val coverRounds = round
      val coverSeconds = (System.nanoTime() - roundsStart) / 1e9
      println(f"fuzz: coverage in $coverRounds rounds, $coverSeconds%.1f s; ${compared.size} of " +
        f"${functions.size} functions compared" + (if (tries.isEmpty) "" else
          tries.toSeq.sorted.map { case (f, n) => s"$f ($n)" }.mkString("; retried: ", ", ", "")))

      // Then random rounds until the deadline, in both modes: BatchSize calls drawn with replacement.
      while (System.nanoTime() < deadline && mismatches.size < 10) {
        runRound(ansiOk = true)(r => Seq.fill(BatchSize)(calls(r.nextInt(calls.size))))
      }
      println(f"fuzz: $round rounds (${round - coverRounds} random), ${calls.size} calls of " +
        f"${functions.size} native functions; ${compared.size} functions evaluated natively and compared, " +
        f"rounds ${(System.nanoTime() - roundsStart) / 1e9}%.1f s")
      val errorsOnly = functions.filter(f => !compared(f) && failedBoth(f))
      if (errorsOnly.nonEmpty) {
        println(s"fuzz: ${errorsOnly.size} functions only failed on both sides: ${errorsOnly.mkString(", ")}")
      }
      if (mismatches.nonEmpty) {
        fail(s"Bolide differs from Spark (seed $seed):\n${mismatches.mkString("\n")}")
      }
      val missed = functions.filterNot(f => compared(f) || failedBoth(f))
      assertTrue(s"${missed.size} of ${functions.size} functions never ran natively without a difference " +
        s"(seed $seed): ${missed.mkString(", ")}", missed.isEmpty)
      assertMemoryClean("fuzz")
    } finally levels.foreach { case (n, l) => Configurator.setLevel(n, l) }
  }

  /** The fuzz table: every primitive type, edge values and nulls, two files. */
  private def writeTable(seed: Long): Unit = {
    val r = new Random(seed)
    val rows = (0 until Rows).map { id =>
      Seq[Any](id.toLong,
        pick(r, Seq(true, false)),
        pick(r, Seq[Byte](Byte.MinValue, Byte.MaxValue, 0, -1, 1), (r.nextInt(256) - 128).toByte),
        pick(r, Seq[Short](Short.MinValue, Short.MaxValue, 0, -1, 1), (r.nextInt(65536) - 32768).toShort),
        pick(r, Seq(Int.MinValue, Int.MaxValue, 0, -1, 1), r.nextInt()),
        pick(r, Seq(0, 1, -1, 2, 3, 5, 10), r.nextInt(45) - 5),
        pick(r, Seq(Long.MinValue, Long.MaxValue, 0L, -1L, 1L, 1000000007L), r.nextLong()),
        pick(r, Seq(Float.NaN, Float.PositiveInfinity, Float.NegativeInfinity, -0.0f, 0.0f, Float.MinPositiveValue,
          Float.MaxValue, 1.5f, -2.5f, 0.1f), (r.nextGaussian() * math.pow(10, r.nextInt(12) - 4)).toFloat),
        pick(r, Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, -0.0, 0.0, Double.MinPositiveValue,
          Double.MaxValue, 0.5, -0.5, 2.5, 1e-300, 1e300, 0.1 + 0.2), r.nextGaussian() * math.pow(10, r.nextInt(40) - 20)),
        pick(r, Seq(BigDecimal("99999999.99"), BigDecimal("-99999999.99"), BigDecimal("0.00"), BigDecimal("0.01"),
          BigDecimal("-0.5")), BigDecimal(r.nextLong() % 10000000000L, 2)).map(_.bigDecimal).orNull,
        pick(r, Seq(BigDecimal("9999999999999999999999999999.9999999999"), BigDecimal("0E-10"),
          BigDecimal("-1.0000000001")), BigDecimal(BigInt(r.nextLong()) * r.nextInt(1000000), 10)).map(_.bigDecimal).orNull,
        pick(r, Strings, randomString(r)).map(_.bytes).orNull,
        pick(r, Patterns, randomString(r)).map(_.bytes).orNull,
        pick(r, Seq(Array[Byte](), Array[Byte](0, -1, 127, -128)), randomString(r).bytes).orNull,
        pick(r, Seq(0, -1, -141427, -719162, -719163, 2932896, 2932897, 11016, 18321, 19051), r.nextInt(800000) - 400000),
        pick(r, Seq(0L, -1L, 1615687200000000L, 1615690800000000L, 1636275600000000L, 1636279200000000L,
          -12219292800000000L, 253402300799999999L, -62135596800000000L), (r.nextDouble() * 8e15 - 4e15).toLong)
      ).map {
        case o: Option[_] => o.getOrElse(null)
        case v => v
      }
    }.map(v => Row.fromSeq(v))
    val schema = StructType(Seq(
      StructField("id", LongType), StructField("c_bool", BooleanType), StructField("c_byte", ByteType),
      StructField("c_short", ShortType), StructField("c_int", IntegerType), StructField("c_small", IntegerType),
      StructField("c_long", LongType), StructField("c_float", FloatType), StructField("c_double", DoubleType),
      StructField("c_dec", DecimalType(10, 2)), StructField("c_wdec", DecimalType(38, 10)),
      StructField("c_strb", BinaryType), StructField("c_str2b", BinaryType), StructField("c_bin", BinaryType),
      StructField("c_days", IntegerType), StructField("c_micros", LongType)))
    spark.createDataFrame(spark.sparkContext.parallelize(rows, 2), schema)
      .selectExpr("id", "c_bool", "c_byte", "c_short", "c_int", "c_small", "c_long", "c_float", "c_double", "c_dec",
        "c_wdec", "cast(c_strb AS STRING) AS c_str", "cast(c_str2b AS STRING) AS c_str2", "c_bin",
        "date_from_unix_date(c_days) AS c_date", "timestamp_micros(c_micros) AS c_ts",
        "cast(timestamp_micros(c_micros) AS TIMESTAMP_NTZ) AS c_ntz")
      .write.mode("overwrite").parquet(TestData.path("fuzz"))
    spark.read.parquet(TestData.path("fuzz")).createOrReplaceTempView("fuzz")
  }

  /**
   * The calls to fuzz: each native function's documentation examples with their literals
   * replaced by columns (all of them, and each one alone), then nested once in one another; only
   * those Spark accepts and the engine plans natively (a project of the call alone runs as
   * BolideProject), so that one refused call does not send a whole round to Spark.
   */
  private def nativeCalls(r: Random): IndexedSeq[Call] = {
    val native = GenerateDocs.functions().split("\n").flatMap { line =>
      line.split("\\|").map(_.trim) match {
        case Array(_, name, _, _, "native") => Some(name.stripPrefix("`").stripSuffix("`"))
        case _ => None
      }
    }.toSet
    val parser = spark.sessionState.sqlParser
    val examples = FunctionRegistry.expressions.toSeq.filter { case (name, _) => native(name) }.flatMap {
      case (name, (info, _)) =>
        Option(info.getExamples).toSeq.flatMap(_.split("\n")).map(_.trim).filter(_.startsWith("> SELECT"))
          .flatMap { line =>
            try parser.parsePlan(line.stripPrefix(">").trim.stripSuffix(";")) match {
              case Project(list, OneRowRelation()) => list.map {
                case Alias(c, _) => name -> c
                case UnresolvedAlias(c, _) => name -> c
                case c => name -> c
              }
              case _ => Nil
            } catch { case NonFatal(_) => Nil }
          }
    }
    def planned(function: String, e: Expression): Option[Call] = {
      val sql = e.sql
      try {
        val df = spark.table("fuzz").selectExpr(s"$sql AS v")
        // A nondeterministic call (shuffle: Spark draws its seed at analysis) differs between two
        // analyses even in Spark; RandomFunctionsSuite compares those on one analyzed plan.
        if (!df.queryExecution.analyzed.expressions.forall(_.deterministic)) None
        else {
          val ops = nativeOperators(df)
          if (ops.contains("BolideProject")) Some(Call(function, sql, df.schema.head.dataType)) else None
        }
      } catch { case NonFatal(_) => None }
    }
    val flat = examples.flatMap { case (name, e) =>
      val n = e.collect { case l: Literal if l.value != null => l }.size
      val variants = (if (n > 0) Seq((0 until n).toSet) else Nil) ++ (if (n > 1) Seq(Set(r.nextInt(n))) else Nil)
      variants.flatMap(v => planned(name, replaceLiterals(name, e, v, r, Map.empty)))
    }.distinct.toIndexedSeq
    val byType = flat.groupBy(_.dataType)
    val nested = examples.flatMap { case (name, e) =>
      val n = e.collect { case l: Literal if l.value != null => l }.size
      if (n == 0) None else planned(name, replaceLiterals(name, e, (0 until n).toSet, r, byType))
    }
    (flat ++ nested).distinct
  }

  /**
   * e with the non-null literals at the positions in `which` (counted in transformUp's order)
   * replaced by a column of the literal's type (or a try_cast of one), or now and then by another
   * call of that type.
   */
  private def replaceLiterals(function: String, e: Expression, which: Set[Int], r: Random,
      calls: Map[DataType, Seq[Call]]): Expression = {
    // A function whose output grows with an integer argument (space(2147483647)) makes Spark
    // itself throw OutOfMemoryError, which kills the executor JVM: its integers stay small.
    val bounded = SizeFunctions(function)
    var i = -1
    e.transformUp {
      case l: Literal if l.value != null =>
        i += 1
        if (!which(i)) l
        else if (bounded && (l.dataType == IntegerType || l.dataType == LongType)) UnresolvedAttribute("c_small")
        else calls.get(l.dataType).filter(_ => r.nextInt(3) == 0) match {
          case Some(cs) => parser(cs(r.nextInt(cs.size)).sql)
          case None => columnFor(l.dataType, r).getOrElse(l)
        }
    }
  }

  private val SizeFunctions = Set("space", "repeat", "lpad", "rpad", "format_number", "array_repeat", "sequence")

  private def parser(sql: String): Expression = spark.sessionState.sqlParser.parseExpression(sql)

  private def columnFor(t: DataType, r: Random): Option[Expression] = {
    def col(names: String*): Option[Expression] = Some(UnresolvedAttribute(names(r.nextInt(names.size))))
    t match {
      case BooleanType => col("c_bool")
      case ByteType => col("c_byte")
      case ShortType => col("c_short")
      case IntegerType => col("c_small", "c_small", "c_int")
      case LongType => col("c_long", "c_long", "c_small")
      case FloatType => col("c_float")
      case DoubleType => col("c_double")
      case DecimalType.Fixed(10, 2) => col("c_dec")
      case DecimalType.Fixed(38, 10) => col("c_wdec")
      case d: DecimalType => Some(Cast(UnresolvedAttribute(if (r.nextBoolean()) "c_dec" else "c_small"), d,
        evalMode = EvalMode.TRY))
      case _: StringType => col("c_str", "c_str", "c_str2")
      case BinaryType => col("c_bin")
      case DateType => col("c_date")
      case TimestampType => col("c_ts")
      case TimestampNTZType => col("c_ntz")
      case _ => None
    }
  }

  /**
   * One round: the calls in one project, Bolide off and on. A side that fails, or values that
   * differ, are narrowed by halves to the single call; a call failing on both sides is fine (in a
   * project of several, a different error may come first: Spark evaluates row by row, Bolide
   * column by column), but not a comparison of the call's values.
   */
  private def compare(calls: Seq[String], where: String): Outcome = {
    def run(cs: Seq[String]): Either[Throwable, Seq[String]] = try {
      Right(canonical(project(cs).collect().toSeq.sortBy(_.getLong(0))))
    } catch { case NonFatal(t) => Left(t) }
    def both(cs: Seq[String]) = (withConf("spark.bolide.enabled" -> "false")(run(cs)), run(cs))
    def sqlOf(cs: Seq[String]) = s"SELECT id, ${cs.mkString(", ")} FROM fuzz"
    def differs(m: String) = Outcome(Seq(m), Nil, Nil)
    both(calls) match {
      case (Right(e), Right(a)) if e == a => Outcome(Nil, calls, Nil)
      case _ if calls.size > 1 =>
        val (a, b) = calls.splitAt(calls.size / 2)
        val (x, y) = (compare(a, where), compare(b, where))
        Outcome(x.mismatches ++ y.mismatches, x.agreed ++ y.agreed, x.failedBoth ++ y.failedBoth)
      case (Left(_), Left(_)) => Outcome(Nil, Nil, calls)
      case (Right(e), Right(a)) =>
        val (x, y) = e.zipAll(a, "<none>", "<none>").find { case (p, q) => p != q }.get
        differs(s"$where: ${sqlOf(calls)}\n  Spark:  $x\n  Bolide: $y")
      case (Left(t), Right(_)) =>
        differs(s"$where: ${sqlOf(calls)}\n  Spark fails (${firstLine(t)}), Bolide answers")
      case (Right(_), Left(t)) =>
        differs(s"$where: ${sqlOf(calls)}\n  Bolide fails (${firstLine(t)}), Spark answers")
    }
  }

  /** The calls over the fuzz table, with its row id first. */
  private def project(calls: Seq[String]): DataFrame =
    spark.table("fuzz").selectExpr("id" +: calls.zipWithIndex.map { case (c, i) => s"$c AS v$i" }: _*)

  private def firstLine(t: Throwable): String = {
    val s = sparkErrorOf(t).getOrElse(t)
    String.valueOf(s.getMessage).split("\n").head.take(300)
  }
}

object FuzzSuite {
  private val Rows = 3000
  private val BatchSize = 24
  private val CoverSize = 48
  private val MaxTries = 3
  private val Zones = Seq("UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe")

  final case class Call(function: String, sql: String, dataType: DataType)

  /** A round's differences, and its calls whose values agreed or that failed on both sides. */
  final case class Outcome(mismatches: Seq[String], agreed: Seq[String], failedBoth: Seq[String])

  /** A string as bytes: valid UTF-8, or not. */
  final case class Str(bytes: Array[Byte])
  private def s(v: String): Str = Str(v.getBytes(StandardCharsets.UTF_8))
  private def raw(b: Int*): Str = Str(b.map(_.toByte).toArray)

  private val Strings: Seq[Str] = Seq("", " ", "  padded  ", "abc", "ABC", "Hello World", "123", "-0", "1e10", " 42 ",
    "1.5", "-12.345", "NaN", "Infinity", "-Infinity", "9223372036854775808", "0x1F", "true", "FALSE", "t", "2024-02-29",
    "2024-13-01", "1582-10-10", "2021-03-14 02:30:00", "2021-11-07 01:30:00.123456", "10000-01-01", "0001-01-01",
    "ÄÖÜß", "ﬃ", "İstanbul", "😀x", "Σίσυφος", "ǅ", "ß", "a,b,,c", "%_\\", "\t\n").map(s) ++
    // Invalid UTF-8, but no code point cut off at the end: there Spark's UTF8String reads past the
    // string's bytes (a substring of it holds whatever follows in memory: docs/compatibility.md).
    Seq(raw(0xC3, 0x28), raw(0xFF), raw(0xE2, 0x82, 0x61), raw(0xED, 0xA0, 0x80), raw(0x61, 0x80, 0x62))
  private val Patterns: Seq[Str] = Seq("a", "%", "_", ",", "", "b%", "%c", "ß", "😀", " ", "-", "l", "o").map(s)
  private val Alphabet = "abcXYZ019 ,.-_%éß😀Σ\t".codePoints().toArray

  private def randomString(r: Random): Str = {
    val n = r.nextInt(12)
    val sb = new java.lang.StringBuilder
    (0 until n).foreach(_ => sb.appendCodePoint(Alphabet(r.nextInt(Alphabet.length))))
    s(sb.toString)
  }

  /** Null one time in ten, an edge value one time in four, else the random value. */
  private def pick[T](r: Random, edges: Seq[T], random: => T): Option[T] = r.nextInt(20) match {
    case 0 | 1 => None
    case 2 | 3 | 4 | 5 | 6 => Some(edges(r.nextInt(edges.size)))
    case _ => Some(random)
  }
  private def pick[T](r: Random, edges: Seq[T]): Option[T] = pick(r, edges, edges(r.nextInt(edges.size)))
}
