package org.apache.spark.sql.bolide;

/**
 * Reads, with Spark's own reader, a file split that the Go engine's scan cannot decode (an LZ4
 * codec, an encrypted footer): the query still answers, through the same batch transfer as a
 * Spark child. Called by Go on the task thread.
 */
public interface NativeFileFallback {
  /** The batches of split {@code fileIndex} of the task's splits of scan node {@code scanId}. */
  NativeInput open(int scanId, int fileIndex);
}
