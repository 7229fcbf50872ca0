package org.apache.spark.sql.bolide;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;

import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.ByteType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType$;
import org.apache.spark.sql.types.DoubleType$;
import org.apache.spark.sql.types.FloatType$;
import org.apache.spark.sql.types.IntegerType$;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.ShortType$;
import org.apache.spark.sql.types.TimestampNTZType$;
import org.apache.spark.sql.types.TimestampType$;
import org.apache.spark.unsafe.Platform;

/**
 * Writes a dispatched expression's fixed-width results straight into the buffers of the Arrow
 * vector exported to Go (BolideDispatcher): Spark's ArrowWriter goes through a checked, growing
 * setter and a generic field loop per value, which the bench (DispatchBench) showed among the
 * largest per-row costs. One loop per type, chosen once per batch, so that the JIT compiles each
 * without a call per value. The buffers are fresh (the JVM's own vector's, or Go's, which then
 * skips the export) and zeroed first: a null leaves its validity bit and its value zero, as
 * Arrow's own writers do.
 */
final class DispatchResult {
  static final int NONE = 0, BOOLEAN = 1, BYTE = 2, SHORT = 3, INT = 4, LONG = 5, FLOAT = 6, DOUBLE = 7;

  private DispatchResult() {}

  /** The loop for results of type dt, or NONE (the caller writes them with ArrowWriter). */
  static int kindOf(DataType dt) {
    if (dt == BooleanType$.MODULE$) return BOOLEAN;
    if (dt == ByteType$.MODULE$) return BYTE;
    if (dt == ShortType$.MODULE$) return SHORT;
    if (dt == IntegerType$.MODULE$ || dt == DateType$.MODULE$) return INT;
    if (dt == LongType$.MODULE$ || dt == TimestampType$.MODULE$ || dt == TimestampNTZType$.MODULE$) return LONG;
    if (dt == FloatType$.MODULE$) return FLOAT;
    if (dt == DoubleType$.MODULE$) return DOUBLE;
    return NONE;
  }

  private static void setBit(long address, int i) {
    long a = address + (i >>> 3);
    Platform.putByte(null, a, (byte) (Platform.getByte(null, a) | (1 << (i & 7))));
  }

  /** The width in bits of a result of this kind (1: a bitmap), 0 for NONE. */
  static int bits(int kind) {
    switch (kind) {
      case BOOLEAN: return 1;
      case BYTE: return 8;
      case SHORT: return 16;
      case INT: case FLOAT: return 32;
      case LONG: case DOUBLE: return 64;
      default: return 0;
    }
  }

  /** Zeroes the validity and data buffers of rows values of this kind. */
  static void zero(int kind, int rows, long va, long da) {
    Platform.setMemory(va, (byte) 0, (rows + 7L) / 8);
    Platform.setMemory(da, (byte) 0, dataBytes(kind, rows));
  }

  /**
   * The Java statement that stores value (a Java expression of the result's type) as row k of the
   * data buffer at address da (k and da: the generated DispatchLoop's variables).
   */
  static String store(int kind, String value, String da, String k) {
    String p = "org.apache.spark.unsafe.Platform";
    switch (kind) {
      case BOOLEAN: return "if (" + value + ") " + DispatchLoop.class.getName() + ".setBit(" + da + ", " + k + ");";
      case BYTE: return p + ".putByte(null, " + da + " + " + k + ", " + value + ");";
      case SHORT: return p + ".putShort(null, " + da + " + ((long) " + k + " << 1), " + value + ");";
      case INT: return p + ".putInt(null, " + da + " + ((long) " + k + " << 2), " + value + ");";
      case LONG: return p + ".putLong(null, " + da + " + ((long) " + k + " << 3), " + value + ");";
      case FLOAT: return p + ".putFloat(null, " + da + " + ((long) " + k + " << 2), " + value + ");";
      case DOUBLE: return p + ".putDouble(null, " + da + " + ((long) " + k + " << 3), " + value + ");";
      default: throw new IllegalStateException("Bolide dispatch: no fixed-width store for kind " + kind);
    }
  }

  /** Bytes of the data buffer of rows values of this kind. */
  static long dataBytes(int kind, int rows) {
    int b = bits(kind);
    return b == 1 ? (rows + 7L) / 8 : (long) rows * (b / 8);
  }

  /** Evaluates proj over rows 0..rows-1 of row into v (its result type's vector). */
  static void write(int kind, UnsafeProjection proj, DispatchRow row, int rows, BaseFixedWidthVector v) {
    v.allocateNew(rows);
    ArrowBuf vb = v.getValidityBuffer();
    ArrowBuf db = v.getDataBuffer();
    write(kind, proj, row, rows, vb.memoryAddress(), db.memoryAddress());
    v.setValueCount(rows);
  }

  /**
   * Evaluates proj over rows 0..rows-1 of row into the buffers at va (validity, (rows + 7) / 8
   * bytes) and da ({@link #dataBytes}), zeroing them first; returns the null count.
   */
  static long write(int kind, UnsafeProjection proj, DispatchRow row, int rows, long va, long da) {
    zero(kind, rows, va, da);
    long nulls = 0;
    switch (kind) {
      case BOOLEAN:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            if (r.getBoolean(0)) setBit(da, i);
          }
        }
        break;
      case BYTE:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putByte(null, da + i, r.getByte(0));
          }
        }
        break;
      case SHORT:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putShort(null, da + ((long) i << 1), r.getShort(0));
          }
        }
        break;
      case INT:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putInt(null, da + ((long) i << 2), r.getInt(0));
          }
        }
        break;
      case LONG:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putLong(null, da + ((long) i << 3), r.getLong(0));
          }
        }
        break;
      case FLOAT:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putFloat(null, da + ((long) i << 2), r.getFloat(0));
          }
        }
        break;
      case DOUBLE:
        for (int i = 0; i < rows; i++) {
          row.rowId = i;
          UnsafeRow r = proj.apply(row);
          if (r.isNullAt(0)) {
            nulls++;
          } else {
            setBit(va, i);
            Platform.putDouble(null, da + ((long) i << 3), r.getDouble(0));
          }
        }
        break;
      default:
        throw new IllegalStateException("Bolide dispatch: no fixed-width writer for kind " + kind);
    }
    return nulls;
  }
}
