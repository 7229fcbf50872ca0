package shuffle

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Integer streams: how a block stores the values of its integral columns (byte to long, dates,
// timestamps, decimals that fit a long), the lengths of its strings and its dictionary codes.
// Per stream and block the encoder picks one of two forms, by the bytes per value each needs:
//
//   - frame of reference: every value less the minimum, in as many bytes as the range needs
//     (dates 2, order keys of one SF 1 map task 3, quantities 1);
//   - delta: the first value, then every difference to the previous value less the minimum
//     difference (keys read in order: TPC-H's tables are sorted on them, and a hash partition
//     keeps that order, so differences take a byte where values take three).
//
// The values are stored as byte planes: the lowest byte of every value, then the next byte of
// every value, and so on. LZ4 (which only sees repeats of 4 bytes or more) cannot compress
// interleaved 3-byte values whose high bytes barely change, but it compresses a plane of those
// high bytes to almost nothing: on SF 1 order keys hashed 8 ways, frame of reference takes 3.0
// bytes a row packed and 1.45 as planes, delta 1.43 packed and 1.01 as planes (Spark spends
// ~4 on the key in its UnsafeRows after LZ4).
//
// Arithmetic wraps at 64 bits: differences of extreme longs overflow, and decoding adds them back
// modulo 2^64, so every value round-trips exactly. Values are taken as they are in every slot,
// null slots included, so a decoded column is the encoded one bit for bit.

// integer is the Go type of an integer stream's values.
type integer interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// Stream forms (the high nibble of a stream's first metadata byte; the low one is the width).
const (
	streamFOR   = 0
	streamDelta = 1
)

// intStream is the form of one integer stream.
type intStream struct {
	mode  uint8
	width uint8 // bytes (byte planes) per stored value, 0 to 8: 0 stores nothing
	base  int64 // frame of reference: the minimum; delta: the first value
	dmin  int64 // delta: the minimum difference
}

// stored is the number of values the stream stores for n values (delta stores no first value).
func (s intStream) stored(n int) int {
	if s.mode == streamDelta && n > 0 {
		return n - 1
	}
	return n
}

// size is the bytes of the stream's planes for n values.
func (s intStream) size(n int) int { return int(s.width) * s.stored(n) }

// bytesFor is the number of bytes of u's significant bits.
func bytesFor(u uint64) uint8 { return uint8((bits.Len64(u) + 7) / 8) }

// planInts picks the form of a stream of values (at least one): delta when it takes fewer bytes
// per value than frame of reference.
func planInts[T integer](v []T) intStream {
	first := int64(v[0])
	lo, hi := first, first
	dlo, dhi := int64(math.MaxInt64), int64(math.MinInt64)
	prev := first
	for _, x := range v[1:] {
		y := int64(x)
		d := y - prev
		prev = y
		lo, hi = min(lo, y), max(hi, y)
		dlo, dhi = min(dlo, d), max(dhi, d)
	}
	s := intStream{mode: streamFOR, width: bytesFor(uint64(hi - lo)), base: lo}
	if len(v) > 1 {
		if w := bytesFor(uint64(dhi - dlo)); w < s.width {
			s = intStream{mode: streamDelta, width: w, base: first, dmin: dlo}
		}
	}
	return s
}

// putInts writes the planes of v in form s into dst, which holds exactly s.size(len(v)) bytes.
// One pass per plane: each is a tight loop over v, which stays in cache.
func putInts[T integer](dst []byte, v []T, s intStream) {
	switch s.mode {
	case streamFOR:
		n := len(v)
		for j := 0; j < int(s.width); j++ {
			p, sh := dst[j*n:(j+1)*n], 8*j
			p = p[:len(v)]
			for i, x := range v {
				p[i] = byte(uint64(int64(x)-s.base) >> sh)
			}
		}
	case streamDelta:
		m := len(v) - 1
		for j := 0; j < int(s.width); j++ {
			p, sh := dst[j*m:(j+1)*m], 8*j
			p = p[:m]
			prev := int64(v[0])
			for i, x := range v[1:] {
				y := int64(x)
				p[i] = byte(uint64(y-prev-s.dmin) >> sh)
				prev = y
			}
		}
	}
}

// getInts decodes a stream of len(dst) values from src (exactly s.size(len(dst)) bytes) into
// dst. Values are summed in T, which is the encoding's arithmetic modulo T's width.
func getInts[T integer](dst []T, src []byte, s intStream) {
	if len(dst) == 0 {
		return
	}
	switch s.mode {
	case streamFOR:
		addPlanes(dst, src, int(s.width), T(s.base))
	case streamDelta:
		rest := dst[1:]
		addPlanes(rest, src, int(s.width), 0)
		acc, dm := T(s.base), T(s.dmin)
		dst[0] = acc
		for i, d := range rest {
			acc += d + dm
			rest[i] = acc
		}
	}
}

// addPlanes sets dst[i] to base plus the value of planes src[i], src[n+i], ... (n = len(dst)).
func addPlanes[T integer](dst []T, src []byte, width int, base T) {
	n := len(dst)
	if width == 0 {
		for i := range dst {
			dst[i] = base
		}
		return
	}
	p := src[:n]
	for i := range dst {
		dst[i] = base + T(p[i])
	}
	for j := 1; j < width; j++ {
		p, sh := src[j*n:(j+1)*n], 8*j
		p = p[:len(dst)]
		for i := range dst {
			dst[i] += T(uint64(p[i]) << sh)
		}
	}
}

// appendMeta appends the stream's metadata: mode and width in one byte, then the base (and the
// minimum difference) as zigzag varints.
func (s intStream) appendMeta(b []byte) []byte {
	b = append(b, s.mode<<4|s.width)
	b = binary.AppendVarint(b, s.base)
	if s.mode == streamDelta {
		b = binary.AppendVarint(b, s.dmin)
	}
	return b
}
