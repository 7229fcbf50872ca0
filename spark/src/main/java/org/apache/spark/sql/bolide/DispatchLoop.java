package org.apache.spark.sql.bolide;

import org.apache.spark.unsafe.Platform;

/**
 * A dispatched expression with a fixed-width result, compiled by BolideDispatcher together with
 * the loop over a batch's rows into one generated class: the expression's code reads the row
 * view and writes the value straight into the result's buffers, where DispatchResult's loops
 * call a projection per row that writes an UnsafeRow and read it back. Generated code extends
 * this class (public, as Spark's generated classes are compiled apart from the plugin's package).
 */
public abstract class DispatchLoop {
  /** Partition-dependent state of the expression (as Projection.initialize). */
  public abstract void initialize(int partitionIndex);

  /**
   * Evaluates the expression over rows 0..rows-1 of row into the zeroed buffers at va (validity)
   * and da (values); returns the null count.
   */
  public abstract long run(DispatchRow row, int rows, long va, long da);

  /** Sets bit i of the bitmap at address. */
  public static void setBit(long address, int i) {
    long a = address + (i >>> 3);
    Platform.putByte(null, a, (byte) (Platform.getByte(null, a) | (1 << (i & 7))));
  }
}
