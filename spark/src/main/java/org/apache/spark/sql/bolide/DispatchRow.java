package org.apache.spark.sql.bolide;

import java.util.List;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGettersReader;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatchRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.GeographyVal;
import org.apache.spark.unsafe.types.GeometryVal;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * The row a dispatched expression's projection reads (BolideDispatcher): one mutable view over
 * the batch's imported Arrow vectors, moved by {@link #rowId}. Going through ColumnarBatchRow,
 * ArrowColumnVector and Arrow's checked getters cost tens of nanoseconds a value (the bench,
 * DispatchBench); the projection's code reads this class alone, so its calls inline, and the
 * fixed-width, boolean and string columns are read straight from the buffers' addresses (which
 * {@link #load} takes after every import, or {@link #loadRaw} from Go's export without importing
 * it; the buffers stay valid until the end of the call, and strings are returned over them
 * without a copy, as ArrowColumnVector does). Every other type is read through ColumnarBatchRow.
 */
public final class DispatchRow extends InternalRow {
  private static final int SLOW = 0, FIXED = 1, BIT = 2, VAR = 3;

  private final FieldVector[] vectors;
  private final int[] kind;
  private final int[] width;
  private final long[] validity; // 0: no null in the batch
  private final long[] data;
  private final long[] offsets;
  private final ColumnarBatchRow slow;
  private final DataType[] types;
  /** Every column is read from addresses: the batch need not be imported (see loadRaw). */
  final boolean allFast;
  public int rowId;

  DispatchRow(List<FieldVector> vs, DataType[] types) {
    int n = vs.size();
    this.types = types;
    vectors = vs.toArray(new FieldVector[0]);
    kind = new int[n];
    width = new int[n];
    validity = new long[n];
    data = new long[n];
    offsets = new long[n];
    ColumnVector[] cols = new ColumnVector[n];
    for (int i = 0; i < n; i++) {
      FieldVector v = vectors[i];
      cols[i] = new ArrowColumnVector(v);
      if (v instanceof BitVector) {
        kind[i] = BIT;
      } else if (v instanceof BaseFixedWidthVector) {
        int w = ((BaseFixedWidthVector) v).getTypeWidth();
        if (w == 1 || w == 2 || w == 4 || w == 8) {
          kind[i] = FIXED;
          width[i] = w;
        }
      } else if (v instanceof VarCharVector || v instanceof VarBinaryVector) {
        // Binary is read through ArrowColumnVector (a copy); strings without one.
        kind[i] = v instanceof VarCharVector ? VAR : SLOW;
      }
    }
    slow = new ColumnarBatchRow(cols);
    boolean all = true;
    for (int k : kind) all &= k != SLOW;
    allFast = all;
  }

  /**
   * Takes the addresses straight from the C Data Interface struct Go exported at {@code array}
   * (a struct array, one child per column), without importing it: the exporter keeps the buffers
   * alive during the call and releases them after. False (nothing usable taken) when a column is
   * not as expected (an offset, another buffer layout): the caller imports the batch instead.
   */
  boolean loadRaw(long array, long rows) {
    // struct ArrowArray: length, null_count, offset, n_buffers, n_children (int64), buffers,
    // children (pointers).
    if (!allFast || Platform.getLong(null, array) != rows || Platform.getLong(null, array + 16) != 0
        || Platform.getLong(null, array + 32) != vectors.length) {
      return false;
    }
    long children = Platform.getLong(null, array + 48);
    for (int i = 0; i < vectors.length; i++) {
      long c = Platform.getLong(null, children + 8L * i);
      long nulls = Platform.getLong(null, c + 8);
      long nBuffers = Platform.getLong(null, c + 24);
      long buffers = Platform.getLong(null, c + 40);
      if (Platform.getLong(null, c) != rows || Platform.getLong(null, c + 16) != 0
          || nBuffers != (kind[i] == VAR ? 3 : 2)) {
        return false;
      }
      long v = Platform.getLong(null, buffers);
      if (nulls != 0 && v == 0 && nulls != -1) return false;
      validity[i] = nulls == 0 ? 0 : v;
      if (kind[i] == VAR) {
        offsets[i] = Platform.getLong(null, buffers + 8);
        data[i] = Platform.getLong(null, buffers + 16);
      } else {
        data[i] = Platform.getLong(null, buffers + 8);
      }
    }
    return true;
  }

  /** Takes the addresses of the buffers just imported. */
  void load() {
    for (int i = 0; i < vectors.length; i++) {
      FieldVector v = vectors[i];
      if (kind[i] == SLOW) continue;
      validity[i] = v.getNullCount() == 0 ? 0 : v.getValidityBuffer().memoryAddress();
      data[i] = v.getDataBuffer().memoryAddress();
      offsets[i] = kind[i] == VAR ? v.getOffsetBuffer().memoryAddress() : 0;
    }
  }

  private ColumnarBatchRow slow() {
    slow.rowId = rowId;
    return slow;
  }

  @Override public int numFields() { return vectors.length; }

  @Override public InternalRow copy() {
    // Without ColumnarBatchRow: its vectors hold nothing when the batch was not imported.
    Object[] values = new Object[vectors.length];
    for (int i = 0; i < values.length; i++) {
      Object v = get(i, types[i]);
      values[i] = v instanceof UTF8String ? ((UTF8String) v).copy() : v;
    }
    return new GenericInternalRow(values);
  }

  @Override public boolean anyNull() {
    for (int i = 0; i < vectors.length; i++) {
      if (isNullAt(i)) return true;
    }
    return false;
  }

  @Override public boolean isNullAt(int ordinal) {
    if (kind[ordinal] == SLOW) return slow().isNullAt(ordinal);
    long v = validity[ordinal];
    return v != 0 && (Platform.getByte(null, v + (rowId >>> 3)) & (1 << (rowId & 7))) == 0;
  }

  @Override public boolean getBoolean(int ordinal) {
    if (kind[ordinal] != BIT) return slow().getBoolean(ordinal);
    return (Platform.getByte(null, data[ordinal] + (rowId >>> 3)) & (1 << (rowId & 7))) != 0;
  }

  @Override public byte getByte(int ordinal) {
    if (width[ordinal] != 1) return slow().getByte(ordinal);
    return Platform.getByte(null, data[ordinal] + rowId);
  }

  @Override public short getShort(int ordinal) {
    if (width[ordinal] != 2) return slow().getShort(ordinal);
    return Platform.getShort(null, data[ordinal] + ((long) rowId << 1));
  }

  @Override public int getInt(int ordinal) {
    if (width[ordinal] != 4) return slow().getInt(ordinal);
    return Platform.getInt(null, data[ordinal] + ((long) rowId << 2));
  }

  @Override public long getLong(int ordinal) {
    if (width[ordinal] != 8) return slow().getLong(ordinal);
    return Platform.getLong(null, data[ordinal] + ((long) rowId << 3));
  }

  @Override public float getFloat(int ordinal) {
    if (width[ordinal] != 4) return slow().getFloat(ordinal);
    return Platform.getFloat(null, data[ordinal] + ((long) rowId << 2));
  }

  @Override public double getDouble(int ordinal) {
    if (width[ordinal] != 8) return slow().getDouble(ordinal);
    return Platform.getDouble(null, data[ordinal] + ((long) rowId << 3));
  }

  @Override public UTF8String getUTF8String(int ordinal) {
    if (kind[ordinal] != VAR) return slow().getUTF8String(ordinal);
    if (isNullAt(ordinal)) return null;
    long o = offsets[ordinal] + ((long) rowId << 2);
    int start = Platform.getInt(null, o);
    int end = Platform.getInt(null, o + 4);
    return UTF8String.fromAddress(null, data[ordinal] + start, end - start);
  }

  @Override public Decimal getDecimal(int ordinal, int precision, int scale) {
    return slow().getDecimal(ordinal, precision, scale);
  }

  @Override public byte[] getBinary(int ordinal) { return slow().getBinary(ordinal); }

  @Override public GeographyVal getGeography(int ordinal) { return slow().getGeography(ordinal); }

  @Override public GeometryVal getGeometry(int ordinal) { return slow().getGeometry(ordinal); }

  @Override public CalendarInterval getInterval(int ordinal) { return slow().getInterval(ordinal); }

  @Override public VariantVal getVariant(int ordinal) { return slow().getVariant(ordinal); }

  @Override public InternalRow getStruct(int ordinal, int numFields) { return slow().getStruct(ordinal, numFields); }

  @Override public ArrayData getArray(int ordinal) { return slow().getArray(ordinal); }

  @Override public MapData getMap(int ordinal) { return slow().getMap(ordinal); }

  @Override public Object get(int ordinal, DataType dataType) {
    return SpecializedGettersReader.read(this, ordinal, dataType, true, true);
  }

  @Override public void update(int ordinal, Object value) { throw new UnsupportedOperationException(); }

  @Override public void setNullAt(int ordinal) { throw new UnsupportedOperationException(); }
}
