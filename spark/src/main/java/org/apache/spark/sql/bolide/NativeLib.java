package org.apache.spark.sql.bolide;

/**
 * The JNI entry points of the Go engine (native/jni). Every call runs on the calling thread; a Go
 * panic or error arrives as a {@link BolideNativeException}. Load the library with
 * {@link NativeLoader#load()} before the first call.
 */
public final class NativeLib {
  private NativeLib() {}

  /** The engine's version string; must equal the adapter's. */
  public static native String version();

  /**
   * Tells the engine the feature version of the running JVM ({@code Runtime.version().feature()}):
   * Double.toString's digits, which casts to strings print, differ from Java 19 on.
   */
  public static native void setJavaVersion(int feature);

  /**
   * Tells the engine the region IDs java.time knows ({@code ZoneId.getAvailableZoneIds()}, one
   * per line): timestamp strings cast natively may name them.
   */
  public static native void setZoneIds(String ids);

  /** Sizes the Go runtime after the executor (cores, bytes of memory outside the heap). */
  public static native void configure(int cores, long memoryLimitBytes);

  /** Driver-side planning: a JSON PlanRequest in, a JSON PlanResponse (one decision per node) out. */
  public static native byte[] plan(byte[] request);

  /** The generated support document (markdown). */
  public static native byte[] supportDoc();

  /**
   * The generated table of Spark's built-in functions (markdown): {@code functions} is a JSON
   * array of {name, class, group, kind} (see GenerateDocs), the engine marks how it runs each.
   */
  public static native byte[] functionsDoc(byte[] functions, String sparkVersion);

  /**
   * Builds one task's native block from a JSON TaskRequest. {@code inputs} deliver the batches of
   * the block's children that stay in Spark: each is a {@link NativeInput} (Arrow batches) or a
   * {@link NativeFrameSource} (the encoded blocks of a native shuffle read, decoded in Go); {@code reserver} may be null (no accounting);
   * {@code fallback} reads the files the native scans cannot decode with Spark's reader (may be
   * null: such files then fail the task).
   */
  public static native long createPlan(
      byte[] request, Object[] inputs, NativeMemoryReserver reserver, NativeFileFallback fallback);

  /**
   * Gives the block the evaluator of the expressions it dispatches to the JVM (see
   * {@link NativeDispatcher}); called after {@link #createPlan}, before the first batch.
   */
  public static native void setDispatcher(long handle, NativeDispatcher dispatcher);

  /** Exports the block's output schema into an ArrowSchema at {@code schemaAddress}. */
  public static native void exportSchema(long handle, long schemaAddress);

  /** Fills the ArrowArray at {@code arrayAddress} with the next batch; returns its rows or -1 at the end. */
  public static native long next(long handle, long arrayAddress);

  /**
   * Runs a shuffle map task's block, whose root is a native shuffle exchange, to the end: the rows
   * are partitioned and written, compressed with {@code codec} (lz4, zstd, snappy or none), to the
   * data file at {@code dataPath} in Spark's layout. Returns the bytes of each partition, then the
   * rows written, the uncompressed bytes, the nanoseconds spent encoding and writing (spills
   * included), the memory and disk bytes the writer spilled, then, when {@code checksum} names an
   * algorithm (Spark's spark.shuffle.checksum.algorithm; empty for none), each partition's checksum,
   * then each partition's uncompressed bytes.
   */
  public static native long[] shuffleWrite(long handle, String dataPath, String codec, String checksum);

  /**
   * What each operator of the block did so far, six values per operator: the plan node id the
   * block was encoded with (PlanEncoder.encodeBlock), output rows, output batches, the
   * operator's own nanoseconds (its children's time excluded), and the bytes it spilled (their
   * in-memory size, then their size on disk). Called once per task, before
   * {@link #close}.
   */
  public static native long[] metrics(long handle);

  /** Releases the block. Batches already imported stay valid until their vectors are closed. */
  public static native void close(long handle);

  /**
   * Asks the block to spill what it can at its next safe point (between batches, on its task
   * thread) and give the memory back. Only sets a flag: safe on any thread and while the block
   * runs, returns at once. The handle must stay open during the call (NativeMemoryReserver).
   */
  public static native void requestSpill(long handle);

  /**
   * In the engine's memory checking mode (environment BOLIDE_MEMCHECK=1, on in the test suites):
   * a report (UTF-8) of native buffers still allocated and of memory misuse seen, with allocation
   * sites; empty when all is well or when checking is off.
   */
  public static native byte[] memoryReport();

  /** Whether the engine runs in memory checking mode (BOLIDE_MEMCHECK). */
  public static native boolean memoryChecking();
}
