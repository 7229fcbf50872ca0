package org.apache.spark.sql.bolide.shuffle

import java.io.{EOFException, InputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.channels.{Channels, ReadableByteChannel}

import org.apache.arrow.memory.util.MemoryUtil

import org.apache.spark.sql.bolide.NativeFrameSource
import org.apache.spark.storage.BlockId

/**
 * Cuts the fetched streams of a native shuffle read into frames (a 4-byte little-endian length,
 * then that many bytes) for the Go decoder, reading each frame straight into one direct buffer
 * reused for the task. The Go side copies or decompresses a frame before asking for the next.
 */
class ShuffleFrames(streams: Iterator[(BlockId, InputStream)]) extends NativeFrameSource with AutoCloseable {
  private var buffer: ByteBuffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN)
  private var address: Long = MemoryUtil.getByteBufferAddress(buffer)
  private var current: (BlockId, InputStream) = _
  private var channel: ReadableByteChannel = _
  private val header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)

  override def nextFrame(): Long = {
    while (true) {
      if (current == null) {
        if (!streams.hasNext) return -1
        current = streams.next()
        channel = Channels.newChannel(current._2)
      }
      header.clear()
      val first = readFully(header, allowEof = true)
      if (first) {
        val len = header.getInt(0).toLong & 0xffffffffL
        if (len > Int.MaxValue - 8) throw new IOException(s"native shuffle block ${current._1}: frame of $len bytes")
        val size = (len + 4).toInt
        if (buffer.capacity() < size) {
          buffer = ByteBuffer.allocateDirect(Integer.highestOneBit(size - 1) << 1).order(ByteOrder.LITTLE_ENDIAN)
          address = MemoryUtil.getByteBufferAddress(buffer)
        }
        buffer.clear()
        buffer.putInt(len.toInt)
        buffer.limit(size)
        readFully(buffer, allowEof = false)
        return size
      }
      closeCurrent()
    }
    -1
  }

  override def frameAddress(): Long = address

  /** Fills `b`; false at a clean end of stream before the first byte (when allowed). */
  private def readFully(b: ByteBuffer, allowEof: Boolean): Boolean = {
    val start = b.position()
    while (b.hasRemaining) {
      if (channel.read(b) < 0) {
        if (allowEof && b.position() == start) return false
        throw new EOFException(s"native shuffle block ${current._1} ends inside a frame " +
          s"(${b.position() - start} of ${b.limit() - start} bytes)")
      }
    }
    true
  }

  private def closeCurrent(): Unit = {
    if (current != null) {
      try current._2.close() finally {
        current = null
        channel = null
      }
    }
  }

  override def close(): Unit = closeCurrent()
}
