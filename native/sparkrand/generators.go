package sparkrand

// AppendUUID appends the next string of Spark's RandomUUIDGenerator over m: two nextLong draws
// with the version (4) and variant (IETF) bits forced, printed as java.util.UUID.toString does
// (lower-case hex, 8-4-4-4-12).
func AppendUUID(dst []byte, m *MersenneTwister) []byte {
	msb := uint64(m.NextLong())&0xFFFFFFFFFFFF0FFF | 0x0000000000004000
	lsb := (uint64(m.NextLong()) | 0x8000000000000000) & 0xBFFFFFFFFFFFFFFF
	const hex = "0123456789abcdef"
	var b [36]byte
	put := func(at int, v uint64, digits int) {
		for i := digits - 1; i >= 0; i-- {
			b[at+i] = hex[v&0xf]
			v >>= 4
		}
	}
	put(0, msb>>32, 8)
	b[8] = '-'
	put(9, msb>>16, 4)
	b[13] = '-'
	put(14, msb, 4)
	b[18] = '-'
	put(19, lsb>>48, 4)
	b[23] = '-'
	put(24, lsb, 12)
	return append(dst, b[:]...)
}

// Indices is Spark's RandomIndicesGenerator.getNextIndices(len(dst)) over m: the inside-out
// Fisher-Yates shuffle of 0..n-1, one nextInt(i+1) per position, written into dst.
func Indices(m *MersenneTwister, dst []int32) {
	for i := range dst {
		j := m.NextIntN(int32(i + 1))
		if int(j) != i {
			dst[i] = dst[j]
		}
		dst[j] = int32(i)
	}
}
