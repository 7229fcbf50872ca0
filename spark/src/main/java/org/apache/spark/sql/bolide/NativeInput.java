package org.apache.spark.sql.bolide;

/** A child of a native block that stays in Spark, pulled by the Go engine on the task thread. */
public interface NativeInput {
  /**
   * Exports the next batch into the ArrowArray and ArrowSchema at the given addresses (allocated
   * and freed by the Go side) and returns true, or returns false at the end of the input.
   */
  boolean next(long arrayAddress, long schemaAddress);
}
