package org.apache.spark.sql.bolide;

import java.io.IOException;

import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * Accounts the Go engine's C memory to Spark's off-heap execution pool. The engine reserves in
 * large chunks (upcalls on the task thread), so Spark's view of the executor's memory includes
 * native batches, hash tables and buffers. When Spark refuses a reservation, the native
 * operators that can spill (the hash aggregate) do so themselves at the next batch boundary; the
 * others fail the task with a message naming the limit. Spark cannot ask them to spill yet:
 * {@link #spill} frees nothing (spill requests arrive on other threads, mid-batch).
 */
public final class NativeMemoryReserver extends MemoryConsumer {
  private long reserved = 0;

  public NativeMemoryReserver(TaskMemoryManager tmm) {
    super(tmm, tmm.pageSizeBytes(), MemoryMode.OFF_HEAP);
  }

  /** Returns the bytes Spark granted (possibly fewer than asked). Never throws into Go. */
  public long reserve(long bytes) {
    try {
      long got = acquireMemory(bytes);
      reserved += got;
      return got;
    } catch (Throwable t) {
      return 0;
    }
  }

  public void unreserve(long bytes) {
    long n = Math.min(bytes, reserved);
    if (n > 0) {
      freeMemory(n);
      reserved -= n;
    }
  }

  public long reserved() {
    return reserved;
  }

  /** Releases everything still reserved (task end). */
  public void releaseAll() {
    unreserve(reserved);
  }

  @Override
  public long spill(long size, MemoryConsumer trigger) throws IOException {
    return 0;
  }
}
