// Package sparkrand reproduces, bit for bit, the pseudo-random generators Spark seeds per
// partition: org.apache.spark.util.random.XORShiftRandom (rand, randn, randstr, round-robin
// partitioning) and commons-math3's MersenneTwister (uuid, shuffle, through Spark's
// RandomUUIDGenerator and RandomIndicesGenerator). Spark's answers for these functions are
// whatever its generators draw, so the only correct native version is the same sequence.
package sparkrand

import (
	"encoding/binary"

	"github.com/bolide-dev/bolide/native/sparkhash"
)

// XORShift is new org.apache.spark.util.random.XORShiftRandom(seed) with the java.util.Random
// methods Spark calls on it, all built on next(bits) as java.util.Random builds them.
type XORShift struct {
	s uint64
}

// NewXORShift seeds like XORShiftRandom: the state is the seed's 8 big-endian bytes hashed with
// Scala's MurmurHash3.bytesHash twice (low word, then high word seeded with the low one). On 8
// bytes there is no tail, so that hash is plain Murmur3_x86_32, which sparkhash computes.
func NewXORShift(seed int64) *XORShift {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	const arraySeed = 0x3c074a61 // scala.util.hashing.MurmurHash3.arraySeed
	lo := sparkhash.Murmur3Bytes(b[:], arraySeed)
	hi := sparkhash.Murmur3Bytes(b[:], lo)
	return &XORShift{s: uint64(uint32(hi))<<32 | uint64(uint32(lo))}
}

// Next is XORShiftRandom.next(bits): one xorshift step, the low bits of the new state.
func (r *XORShift) Next(bits uint) int32 {
	s := r.s
	s ^= s << 21
	s ^= s >> 35
	s ^= s << 4
	r.s = s
	return int32(s & (1<<bits - 1))
}

// NextInt is java.util.Random.nextInt(): next(32).
func (r *XORShift) NextInt() int32 { return r.Next(32) }

// NextIntN is java.util.Random.nextInt(bound) for bound > 0 (the caller checks).
func (r *XORShift) NextIntN(bound int32) int32 {
	v := r.Next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(v)) >> 31)
	}
	for u := v; ; u = r.Next(31) {
		v = u % bound
		if u-v+m >= 0 { // Java's int overflow test: Go's int32 wraps the same way
			return v
		}
	}
}

// NextDouble is java.util.Random.nextDouble(): 53 bits, 26 then 27, scaled by 2^-53.
func (r *XORShift) NextDouble() float64 {
	hi := int64(r.Next(26))
	lo := int64(r.Next(27))
	return float64(hi<<27+lo) * (1.0 / (1 << 53))
}
