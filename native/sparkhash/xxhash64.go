package sparkhash

import (
	"encoding/binary"
	"math/bits"
)

// XXH64 as in catalyst's org.apache.spark.sql.catalyst.expressions.XXH64. Its hashUnsafeBytes is
// the reference xxHash64 over little-endian words; hashInt and hashLong are the reference algorithm
// applied to the 4 or 8 bytes of the value, unrolled.

const (
	xxP1 uint64 = 0x9E3779B185EBCA87
	xxP2 uint64 = 0xC2B2AE3D27D4EB4F
	xxP3 uint64 = 0x165667B19E3779F9
	xxP4 uint64 = 0x85EBCA77C2B2AE63
	xxP5 uint64 = 0x27D4EB2F165667C5
)

func xxFmix(h uint64) uint64 {
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}

// XXH64Int is XXH64.hashInt(v, seed).
func XXH64Int(v int32, seed int64) int64 {
	h := uint64(seed) + xxP5 + 4
	h ^= uint64(uint32(v)) * xxP1
	h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
	return int64(xxFmix(h))
}

// XXH64Long is XXH64.hashLong(v, seed).
func XXH64Long(v int64, seed int64) int64 {
	h := uint64(seed) + xxP5 + 8
	h ^= bits.RotateLeft64(uint64(v)*xxP2, 31) * xxP1
	h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
	return int64(xxFmix(h))
}

func xxRound(acc, lane uint64) uint64 {
	return bits.RotateLeft64(acc+lane*xxP2, 31) * xxP1
}

func xxMerge(h, v uint64) uint64 {
	h ^= xxRound(0, v)
	return h*xxP1 + xxP4
}

// XXH64Bytes is XXH64.hashUnsafeBytes(b, seed).
func XXH64Bytes(b []byte, seed int64) int64 {
	n := len(b)
	s := uint64(seed)
	var h uint64
	i := 0
	if n >= 32 {
		v1, v2, v3, v4 := s+xxP1+xxP2, s+xxP2, s, s-xxP1
		for ; i+32 <= n; i += 32 {
			v1 = xxRound(v1, binary.LittleEndian.Uint64(b[i:]))
			v2 = xxRound(v2, binary.LittleEndian.Uint64(b[i+8:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint64(b[i+16:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint64(b[i+24:]))
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMerge(h, v1)
		h = xxMerge(h, v2)
		h = xxMerge(h, v3)
		h = xxMerge(h, v4)
	} else {
		h = s + xxP5
	}
	h += uint64(n)
	for ; i+8 <= n; i += 8 {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b[i:]))
		h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
	}
	if i+4 <= n {
		h ^= uint64(binary.LittleEndian.Uint32(b[i:])) * xxP1
		h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
		i += 4
	}
	for ; i < n; i++ {
		h ^= uint64(b[i]) * xxP5
		h = bits.RotateLeft64(h, 11) * xxP1
	}
	return int64(xxFmix(h))
}
