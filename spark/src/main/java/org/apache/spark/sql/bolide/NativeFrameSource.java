package org.apache.spark.sql.bolide;

/**
 * The fetched blocks of a native shuffle read, cut into frames on the JVM and handed to the Go
 * decoder one at a time, on the task thread. A frame is the 4-byte little-endian length prefix
 * followed by that many bytes (native/shuffle documents the rest).
 */
public interface NativeFrameSource {
  /**
   * Reads the next frame into a direct buffer and returns its size in bytes, including the length
   * prefix, or -1 when every block has been read. The buffer stays valid until the next call.
   */
  long nextFrame();

  /** The address of the buffer holding the frame returned by the last {@link #nextFrame()}. */
  long frameAddress();
}
