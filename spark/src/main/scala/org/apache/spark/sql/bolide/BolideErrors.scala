package org.apache.spark.sql.bolide

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import org.apache.spark.{QueryContext, SparkArithmeticException, SparkArrayIndexOutOfBoundsException, SparkDateTimeException, SparkException, SparkIllegalArgumentException, SparkNumberFormatException, SparkRuntimeException}

/**
 * Turns engine errors that reproduce a Spark error class into Spark's own exception, so a query
 * fails with the same error class with Bolide on as off.
 */
object BolideErrors {
  private val mapper = new ObjectMapper()

  def rethrow[T](body: => T): T = try body catch {
    case e: BolideNativeException if e.errorClass() != null => throw toSpark(e)
  }

  def toSpark(e: BolideNativeException): Throwable = {
    val params: Map[String, String] = Option(e.parametersJson()).map { js =>
      mapper.readTree(js).properties().asScala.map(en => en.getKey -> en.getValue.asText()).toMap
    }.getOrElse(Map.empty)
    val cls = e.errorClass()
    if (cls.startsWith("FAILED_READ_FILE")) {
      // As FileScanRDD raises it: Spark's message names the file, the cause says what was wrong.
      return try new SparkException(cls, params, e) catch {
        case t: Throwable => new SparkException("INTERNAL_ERROR",
          Map("message" -> s"[$cls] ${e.getMessage} (${t.getMessage})"), e)
      }
    }
    val ex: Throwable = try {
      if (cls.startsWith("CAST_INVALID_INPUT")) {
        // Spark raises it as a different exception per target type: QueryExecutionErrors'
        // invalidInputSyntaxForBooleanError, invalidInputInCastToDatetimeError and
        // invalidInputInCastToNumberError.
        params.getOrElse("targetType", "") match {
          case "\"BOOLEAN\"" => new SparkRuntimeException(cls, params)
          case "\"DATE\"" | "\"TIMESTAMP\"" | "\"TIMESTAMP_NTZ\"" =>
            new SparkDateTimeException(cls, params, Array.empty[QueryContext], "")
          case _ => new SparkNumberFormatException(cls, params, Array.empty[QueryContext], "")
        }
      } else if (cls.startsWith("ARITHMETIC_OVERFLOW") || cls.startsWith("DIVIDE_BY_ZERO") ||
        cls.startsWith("NUMERIC_VALUE_OUT_OF_RANGE") || cls.startsWith("CAST_OVERFLOW") ||
        cls == "NUMERIC_OUT_OF_SUPPORTED_RANGE" ||
        cls.startsWith("REMAINDER_BY_ZERO") || cls.startsWith("INTERVAL_DIVIDED_BY_ZERO")) {
        new SparkArithmeticException(cls, params, Array.empty[QueryContext], "")
      } else if (cls.startsWith("DATETIME_FIELD_OUT_OF_BOUNDS")) {
        new SparkDateTimeException(cls, params, Array.empty[QueryContext], "")
      } else if (cls == "ILLEGAL_DAY_OF_WEEK" || cls == "CONVERSION_INVALID_INPUT" ||
        cls == "INVALID_FORMAT.MISMATCH_INPUT" || cls == "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE" ||
        cls == "_LEGACY_ERROR_TEMP_3243") {
        // QueryExecutionErrors' illegalDayOfWeekError, invalidInputInConversionError,
        // invalidNumberFormatError and bitPositionRangeError; sequence's illegal boundaries (the
        // generated code of Sequence raises it as a SparkIllegalArgumentException).
        new SparkIllegalArgumentException(cls, params)
      } else if (cls == "INVALID_ARRAY_INDEX" || cls == "INVALID_ARRAY_INDEX_IN_ELEMENT_AT" ||
        cls == "INVALID_BITMAP_POSITION") {
        // invalidArrayIndexError, invalidElementAtIndexError, invalidBitmapPositionError.
        new SparkArrayIndexOutOfBoundsException(cls, params, Array.empty[QueryContext], "")
      } else {
        new SparkRuntimeException(cls, params)
      }
    } catch {
      // A parameter set Spark's message template does not accept: keep the class in the message.
      case t: Throwable => new SparkRuntimeException("INTERNAL_ERROR",
        Map("message" -> s"[$cls] ${e.getMessage} (${t.getMessage})"))
    }
    ex.addSuppressed(e)
    ex
  }
}
