package org.apache.spark.sql.bolide;

import java.io.IOException;

import org.apache.spark.SparkEnv;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.storage.BroadcastBlockId;

/**
 * Accounts the Go engine's C memory to Spark's off-heap execution pool. The engine reserves in
 * large chunks (upcalls on the task thread), so Spark's view of the executor's memory includes
 * native batches, hash tables and buffers. When Spark refuses a reservation, the native
 * operators that can spill (the hash aggregate, the shuffle writer) do so themselves at the next
 * batch boundary; the others fail the task with a message naming the limit.
 *
 * <p>Spark asks for a spill ({@link #spill}) when another consumer of the task needs memory.
 * That request may arrive while the block's Go code runs (the native shuffle writer's whole write
 * is one JNI call; a Spark child of the block asks for memory from inside the block's upcall for
 * its next batch) or on another thread, so it cannot spill there and then: operators spill only
 * at their safe points, between batches, on the task thread. {@link #spill} therefore only flags
 * the block (NativeLib.requestSpill, an atomic store) and returns 0; at its next safe point the
 * block spills what it can and gives the freed reservation back to Spark, where the next request
 * of the other consumer finds it.
 */
public final class NativeMemoryReserver extends MemoryConsumer {
  private long reserved = 0;
  // The block's native handle while it is open (0 before createPlan and once it is closing);
  // guarded by this, so that a spill request never reaches a closed block.
  private long nativeHandle = 0;

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

  // What the native broadcast builds the executor's tasks share hold in storage memory.
  private static final BroadcastBlockId SHARED_BUILDS = new BroadcastBlockId(-1L, "bolide-shared-builds");

  /**
   * Reserves off-heap storage memory for a broadcast hash table the executor's tasks share (Spark
   * keeps its own broadcast relations in the block manager's storage memory). Spark may evict
   * cached blocks to grant it. Returns whether all of {@code bytes} was granted. Never throws into
   * Go: the table is then built per task, as without sharing.
   */
  public static boolean acquireStorage(long bytes) {
    try {
      SparkEnv env = SparkEnv.get();
      return env != null && env.memoryManager().acquireStorageMemory(SHARED_BUILDS, bytes, MemoryMode.OFF_HEAP);
    } catch (Throwable t) {
      return false;
    }
  }

  /** Gives back storage memory of {@link #acquireStorage}, when a shared table is dropped. */
  public static void releaseStorage(long bytes) {
    try {
      SparkEnv env = SparkEnv.get();
      if (env != null) env.memoryManager().releaseStorageMemory(bytes, MemoryMode.OFF_HEAP);
    } catch (Throwable t) {
      // Nothing to give back to.
    }
  }

  public long reserved() {
    return reserved;
  }

  /** Releases everything still reserved (task end). */
  public void releaseAll() {
    unreserve(reserved);
  }

  /** The block's handle, once NativeLib.createPlan returned it. */
  public synchronized void attach(long handle) {
    nativeHandle = handle;
  }

  /** Before NativeLib.close: no spill request reaches the block after this returns. */
  public synchronized void detach() {
    nativeHandle = 0;
  }

  /**
   * Spark wants {@code size} bytes for {@code trigger}: flags the block to spill at its next safe
   * point and returns 0 (nothing is released during this call; see the class comment). A request
   * of the block itself needs no flag: its refused reservation already makes it spill. Never
   * throws: a failed request must not fail the other consumer's allocation.
   */
  @Override
  public long spill(long size, MemoryConsumer trigger) throws IOException {
    if (trigger == this) return 0;
    synchronized (this) {
      if (nativeHandle != 0) {
        try {
          NativeLib.requestSpill(nativeHandle);
        } catch (Throwable t) {
          // Nothing to release then; the other consumer spills or fails as without Bolide.
        }
      }
    }
    return 0;
  }
}
