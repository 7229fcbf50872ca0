// Package sparkhash owns Spark's hash functions, bit for bit: Murmur3_x86_32 and XXH64 as Spark
// implements them (org.apache.spark.unsafe.hash.Murmur3_x86_32, catalyst's XXH64), the column
// kernels that fold a column into a running hash per row the way Catalyst's HashExpression does
// (Murmur3Hash for hash() and for hash partitioning, XxHash64 for xxhash64()), and the partition id
// Spark derives from a hash (HashPartitioning: pmod(hash, n)). Shuffle and expressions build on it;
// any difference from Spark here would send rows to the wrong partition or change hash() answers.
//
// Everything is computed in unsigned arithmetic of the Java width, which wraps exactly like Java's
// int and long; Java's >>> is Go's >> on unsigned values.
package sparkhash

import (
	"encoding/binary"
	"math/bits"
)

// DefaultSeed is the seed of hash() and xxhash64() and of hash partitioning (Murmur3Hash's and
// XxHash64's one-argument constructors).
const DefaultSeed = 42

const (
	m3c1 = 0xcc9e2d51
	m3c2 = 0x1b873593
)

func m3mixK1(k uint32) uint32 {
	k *= m3c1
	k = bits.RotateLeft32(k, 15)
	return k * m3c2
}

func m3mixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func m3fmix(h, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// Murmur3Int is Murmur3_x86_32.hashInt(v, seed).
func Murmur3Int(v, seed int32) int32 {
	return int32(m3fmix(m3mixH1(uint32(seed), m3mixK1(uint32(v))), 4))
}

// Murmur3Long is Murmur3_x86_32.hashLong(v, seed): the low word, then the high word.
func Murmur3Long(v int64, seed int32) int32 {
	h := m3mixH1(uint32(seed), m3mixK1(uint32(v)))
	h = m3mixH1(h, m3mixK1(uint32(uint64(v)>>32)))
	return int32(m3fmix(h, 8))
}

// Murmur3Bytes is Murmur3_x86_32.hashUnsafeBytes(b, seed): little-endian 4-byte words, then each
// trailing byte (len % 4 of them) mixed as a full round of its own, sign-extended to an int. That
// tail is not the reference Murmur3 (nor hashUnsafeBytes2, nor the common Go packages, which pack
// the tail bytes into one word), but it is what hash() and hash partitioning use, kept by Spark for
// compatibility with data bucketed before 2.3.
func Murmur3Bytes(b []byte, seed int32) int32 {
	h := uint32(seed)
	n := len(b)
	i := 0
	for ; i+4 <= n; i += 4 {
		h = m3mixH1(h, m3mixK1(binary.LittleEndian.Uint32(b[i:])))
	}
	for ; i < n; i++ {
		h = m3mixH1(h, m3mixK1(uint32(int32(int8(b[i])))))
	}
	return int32(m3fmix(h, uint32(n)))
}

// Murmur3Reference is the reference MurmurHash3_x86_32 of b (Guava's murmur3_32_fixed, which
// Iceberg's bucket transform uses, spec Appendix B): little-endian 4-byte words, then the 1 to 3
// trailing bytes packed little-endian, unsigned, into one last word mixed without the h1 round.
// It differs from Murmur3Bytes only in that tail.
func Murmur3Reference(b []byte, seed int32) int32 {
	h := uint32(seed)
	n := len(b)
	i := 0
	for ; i+4 <= n; i += 4 {
		h = m3mixH1(h, m3mixK1(binary.LittleEndian.Uint32(b[i:])))
	}
	var k uint32
	switch n - i {
	case 3:
		k = uint32(b[i+2]) << 16
		fallthrough
	case 2:
		k |= uint32(b[i+1]) << 8
		fallthrough
	case 1:
		k |= uint32(b[i])
		h ^= m3mixK1(k)
	}
	return int32(m3fmix(h, uint32(n)))
}
