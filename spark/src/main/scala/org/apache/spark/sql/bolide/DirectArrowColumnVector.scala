package org.apache.spark.sql.bolide

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import org.apache.arrow.vector._

import org.apache.spark.sql.types.Decimal
import org.apache.spark.sql.vectorized.ArrowColumnVector
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * A column of a native block's output over a primitive Arrow vector, read straight from the
 * vector's off-heap buffers.
 *
 * Spark's ArrowColumnVector reads through Arrow Java's accessors: a bounds check and a null check
 * per value, and a BigDecimal built per decimal value. A row consumer of a native block (Spark's
 * ColumnarToRow under a write, a Python UDF, a Spark operator) calls a getter per value, so those
 * costs made Bolide's output slower to turn into rows than Spark's own Parquet reader's. Here a
 * getter is one load at an address taken once per batch (`load`, after the import), and a decimal
 * of at most 18 digits is its unscaled long.
 *
 * It is still an ArrowColumnVector over the same vector, so that code which re-exports a batch's
 * vectors zero-copy (ArrowInput) or reads them as Arrow keeps working. Rows outside the batch are
 * never read: like Spark's vectors, a getter trusts rowId < numRows.
 */
private[bolide] abstract class DirectArrowColumnVector(v: FieldVector) extends ArrowColumnVector(v) {
  private var validity = 0L // 0 when the batch has no null row
  private var nulls = 0
  protected var data = 0L

  /** Takes the buffers' addresses of the batch just imported into the vector. */
  def load(): Unit = {
    nulls = v.getNullCount
    validity = if (nulls == 0) 0L else v.getValidityBufferAddress
    data = if (v.getValueCount == 0) 0L else v.getDataBufferAddress
  }

  override def hasNull: Boolean = nulls > 0
  override def numNulls: Int = nulls
  override def isNullAt(rowId: Int): Boolean =
    validity != 0 && ((Platform.getByte(null, validity + (rowId >> 3)) >> (rowId & 7)) & 1) == 0
}

private[bolide] object DirectArrowColumnVector {
  /** The direct column over v, or None for a vector it does not read (nested, interval, ...). */
  def of(v: FieldVector): Option[DirectArrowColumnVector] = v match {
    case b: BitVector => Some(new DirectBooleanVector(b))
    case b: TinyIntVector => Some(new DirectByteVector(b))
    case s: SmallIntVector => Some(new DirectShortVector(s))
    case i: IntVector => Some(new DirectIntVector(i))
    case d: DateDayVector => Some(new DirectIntVector(d))
    case l: BigIntVector => Some(new DirectLongVector(l))
    case t: TimeStampMicroTZVector => Some(new DirectLongVector(t))
    case t: TimeStampMicroVector => Some(new DirectLongVector(t))
    case f: Float4Vector => Some(new DirectFloatVector(f))
    case d: Float8Vector => Some(new DirectDoubleVector(d))
    case d: DecimalVector => Some(new DirectDecimalVector(d))
    case s: VarCharVector => Some(new DirectStringVector(s))
    case b: VarBinaryVector => Some(new DirectBinaryVector(b))
    case _ => None
  }
}

private[bolide] final class DirectBooleanVector(v: BitVector) extends DirectArrowColumnVector(v) {
  override def getBoolean(rowId: Int): Boolean =
    ((Platform.getByte(null, data + (rowId >> 3)) >> (rowId & 7)) & 1) == 1
}

private[bolide] final class DirectByteVector(v: TinyIntVector) extends DirectArrowColumnVector(v) {
  override def getByte(rowId: Int): Byte = Platform.getByte(null, data + rowId)
}

private[bolide] final class DirectShortVector(v: SmallIntVector) extends DirectArrowColumnVector(v) {
  override def getShort(rowId: Int): Short = Platform.getShort(null, data + 2L * rowId)
}

/** int32 and date32 (days since the epoch, as Spark's DateType). */
private[bolide] final class DirectIntVector(v: FieldVector) extends DirectArrowColumnVector(v) {
  override def getInt(rowId: Int): Int = Platform.getInt(null, data + 4L * rowId)
}

/** int64 and microsecond timestamps (Spark's TimestampType and TimestampNTZType). */
private[bolide] final class DirectLongVector(v: FieldVector) extends DirectArrowColumnVector(v) {
  override def getLong(rowId: Int): Long = Platform.getLong(null, data + 8L * rowId)
}

private[bolide] final class DirectFloatVector(v: Float4Vector) extends DirectArrowColumnVector(v) {
  override def getFloat(rowId: Int): Float = Platform.getFloat(null, data + 4L * rowId)
}

private[bolide] final class DirectDoubleVector(v: Float8Vector) extends DirectArrowColumnVector(v) {
  override def getDouble(rowId: Int): Double = Platform.getDouble(null, data + 8L * rowId)
}

/** decimal128: 16 bytes per value, the unscaled value in two's complement, little-endian. */
private[bolide] final class DirectDecimalVector(v: DecimalVector) extends DirectArrowColumnVector(v) {
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal = {
    if (isNullAt(rowId)) return null
    val at = data + 16L * rowId
    if (precision <= Decimal.MAX_LONG_DIGITS) {
      // The value has at most 18 digits, so its low 64 bits are the whole of it.
      Decimal.createUnsafe(Platform.getLong(null, at), precision, scale)
    } else {
      val bigEndian = new Array[Byte](16)
      var i = 0
      while (i < 16) {
        bigEndian(15 - i) = Platform.getByte(null, at + i)
        i += 1
      }
      Decimal(new JBigDecimal(new BigInteger(bigEndian), scale), precision, scale)
    }
  }
}

/** utf8: int32 offsets into one data buffer; the string views the buffer (valid for the batch). */
private[bolide] final class DirectStringVector(v: VarCharVector) extends DirectArrowColumnVector(v) {
  private var offsets = 0L

  override def load(): Unit = {
    super.load()
    offsets = if (v.getValueCount == 0) 0L else v.getOffsetBufferAddress
  }

  override def getUTF8String(rowId: Int): UTF8String = {
    if (isNullAt(rowId)) return null
    val start = Platform.getInt(null, offsets + 4L * rowId)
    val end = Platform.getInt(null, offsets + 4L * rowId + 4)
    UTF8String.fromAddress(null, data + start, end - start)
  }
}

/** binary: int32 offsets into one data buffer; getBinary copies, as Spark's vectors do. */
private[bolide] final class DirectBinaryVector(v: VarBinaryVector) extends DirectArrowColumnVector(v) {
  private var offsets = 0L

  override def load(): Unit = {
    super.load()
    offsets = if (v.getValueCount == 0) 0L else v.getOffsetBufferAddress
  }

  override def getBinary(rowId: Int): Array[Byte] = {
    if (isNullAt(rowId)) return null
    val start = Platform.getInt(null, offsets + 4L * rowId)
    val end = Platform.getInt(null, offsets + 4L * rowId + 4)
    val out = new Array[Byte](end - start)
    Platform.copyMemory(null, data + start, out, Platform.BYTE_ARRAY_OFFSET, end - start)
    out
  }
}
