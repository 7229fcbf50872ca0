package org.apache.spark.sql.bolide.shuffle

import java.io.{EOFException, InputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.channels.{Channels, ReadableByteChannel}
import java.util.zip.CRC32C

import org.apache.arrow.memory.util.MemoryUtil

import org.apache.spark.sql.bolide.NativeFrameSource
import org.apache.spark.storage.BlockId

/**
 * Cuts the fetched streams of a native shuffle read into frames (a 4-byte little-endian length,
 * then that many bytes) for the Go decoder, reading each frame straight into one direct buffer
 * reused for the task. The Go side copies or decompresses a frame before asking for the next.
 *
 * Every frame's header and CRC-32C are checked here, before Go sees it: a damaged or truncated
 * block is then known by its block id, and `corrupt` turns it into the exception Spark expects
 * (a FetchFailedException for a shuffle read, so that the map output is recomputed). `onFrame`
 * gets each frame's row count, `onEnd` runs once when the last stream is done.
 */
class ShuffleFrames(
    streams: Iterator[(BlockId, InputStream)],
    corrupt: (BlockId, String, Throwable) => Throwable = ShuffleFrames.plainError,
    onFrame: Long => Unit = _ => (),
    onEnd: () => Unit = () => ())
  extends NativeFrameSource with AutoCloseable {
  import ShuffleFrames._

  private var buffer: ByteBuffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN)
  private var address: Long = MemoryUtil.getByteBufferAddress(buffer)
  private var current: (BlockId, InputStream) = _
  private var channel: ReadableByteChannel = _
  private var framesInBlock = 0
  private var ended = false
  private val header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
  private val crc = new CRC32C()

  override def nextFrame(): Long = {
    while (true) {
      if (current == null) {
        if (!streams.hasNext) {
          if (!ended) { ended = true; onEnd() }
          return -1
        }
        current = streams.next()
        channel = Channels.newChannel(current._2)
        framesInBlock = 0
      }
      header.clear()
      val first = readFully(header, allowEof = true)
      if (first) {
        val len = header.getInt(0).toLong & 0xffffffffL
        if (len > Int.MaxValue - 8 || len < HeaderSize - 4) {
          throw corrupt(current._1, s"frame $framesInBlock claims $len bytes", null)
        }
        val size = (len + 4).toInt
        if (buffer.capacity() < size) {
          buffer = ByteBuffer.allocateDirect(Integer.highestOneBit(size - 1) << 1).order(ByteOrder.LITTLE_ENDIAN)
          address = MemoryUtil.getByteBufferAddress(buffer)
        }
        buffer.clear()
        buffer.putInt(len.toInt)
        buffer.limit(size)
        readFully(buffer, allowEof = false)
        check(size)
        framesInBlock += 1
        onFrame(buffer.getInt(OffRows).toLong & 0xffffffffL)
        return size
      }
      closeCurrent()
    }
    -1
  }

  /** The frame's magic and CRC-32C (of its header fields after the length, then its payload). */
  private def check(size: Int): Unit = {
    if (buffer.get(OffMagic) != 'B' || buffer.get(OffMagic + 1) != 'S') {
      throw corrupt(current._1, s"frame $framesInBlock has no frame magic", null)
    }
    crc.reset()
    crc.update(buffer.duplicate().position(OffMagic).limit(OffCRC))
    crc.update(buffer.duplicate().position(HeaderSize).limit(size))
    val want = buffer.getInt(OffCRC).toLong & 0xffffffffL
    if (crc.getValue != want) {
      throw corrupt(current._1, f"frame $framesInBlock fails its checksum (CRC-32C ${crc.getValue}%08x, " +
        f"the frame says $want%08x)", null)
    }
  }

  override def frameAddress(): Long = address

  /** Fills `b`; false at a clean end of stream before the first byte (when allowed). */
  private def readFully(b: ByteBuffer, allowEof: Boolean): Boolean = {
    val start = b.position()
    while (b.hasRemaining) {
      val n = try channel.read(b) catch {
        case e: IOException => throw corrupt(current._1, s"reading frame $framesInBlock failed", e)
      }
      if (n < 0) {
        if (allowEof && b.position() == start) return false
        throw corrupt(current._1, s"the block ends inside frame $framesInBlock " +
          s"(${b.position() - start} of ${b.limit() - start} bytes)", new EOFException())
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

object ShuffleFrames {
  // The frame header (native/shuffle/block.go): length, magic "BS", version, codec, columns,
  // rows, raw length, schema fingerprint, CRC-32C.
  private val OffMagic = 4
  private val OffRows = 10
  private val OffCRC = 22
  private val HeaderSize = 26

  val plainError: (BlockId, String, Throwable) => Throwable =
    (id, msg, cause) => new IOException(s"native shuffle block $id: $msg", cause)
}
