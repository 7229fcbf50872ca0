// Package shuffle owns Spark's shuffle, natively: the partitioners that give each row its Spark
// partition exactly as Spark would (hash: murmur3.go, range: range.go, round robin and single:
// partition.go), the writer that encodes each partition's rows as compressed Arrow blocks laid out
// in Spark's shuffle data-file layout (partition 0's bytes, then partition 1's, ...; the caller
// commits the file and the partition lengths through Spark's IndexShuffleBlockResolver, so Spark's
// block manager and external shuffle service serve it), and the reader operator that decodes
// fetched blocks back into batches. It knows batches and codecs, not Spark plans.
//
// # Frame layout
//
// A partition's bytes are a sequence of frames, one per block; the frames of a reduce partition
// read from many map outputs are simply concatenated. Integers are little-endian.
//
//	offset size
//	 0     4    frame length: bytes that follow in this frame (the JVM cuts a stream on it alone)
//	 4     2    magic "BS"
//	 6     1    format version (1)
//	 7     1    codec of the payload: 0 none, 1 lz4, 2 zstd, 3 snappy (none when compressing
//	            would not have made the block smaller, whatever the configured codec)
//	 8     2    number of columns
//	10     4    number of rows
//	14     4    uncompressed payload size
//	18     4    schema fingerprint: CRC-32C of the column type codes (and decimal precision and
//	            scale), so that a reader of another schema fails clearly instead of misreading
//	22     4    CRC-32C of bytes 4..21 and of the payload
//	26     -    payload: the codec's block format (lz4 block, zstd frame, snappy block) of one
//	            Arrow IPC encapsulated message: 0xFFFFFFFF, int32 metadata length, a RecordBatch
//	            Message flatbuffer padded to 8 bytes, then the body (each buffer padded to 8)
//
// No schema message is written: both sides know the schema, and the reader builds the columns
// straight from the record batch's buffer list (flatbuf.go validates it first). The whole IPC
// message is compressed at once, not buffer by buffer, because block-level compression is what
// keeps shuffle files small: on TPC-H lineitem lz4 files are 0.80x Spark's own (UnsafeRows, LZ4 in
// 32 KiB blocks) and zstd files 0.53x, down to ~100 rows per partition and map task, below which
// the per-block IPC metadata makes lz4 and snappy files pass Spark's (see
// TestFilesNoLargerThanSpark).
//
// A reader checks every frame (length, magic, version, checksum, codec, column count and
// fingerprint, the IPC metadata against the schema, every buffer's bounds, offsets and null
// counts) and reports what is wrong with which frame; corrupt input is an error, never a panic.
package shuffle
