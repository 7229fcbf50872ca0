package sparkrand

// MersenneTwister is org.apache.commons.math3.random.MersenneTwister (MT19937) as commons-math3
// 3.6.1 seeds and draws it: new MersenneTwister(long) seeds with the int array {high word, low
// word} (init_by_array over init_genrand(19650218)); nextLong and nextInt(n) are
// BitsStreamGenerator's, built on next(bits). Java's signed int arithmetic in that code keeps the
// same low 32 bits as the reference C's unsigned arithmetic, which is what is written here.
type MersenneTwister struct {
	mt  [mtN]uint32
	mti int
}

const (
	mtN = 624
	mtM = 397
)

// NewMersenneTwister is new MersenneTwister(seed).
func NewMersenneTwister(seed int64) *MersenneTwister {
	m := &MersenneTwister{}
	key := [2]uint32{uint32(uint64(seed) >> 32), uint32(seed)}
	m.initGenrand(19650218)
	i, j := 1, 0
	for k := mtN; k != 0; k-- { // max(N, len(key)) = N
		p := m.mt[i-1]
		m.mt[i] = (m.mt[i] ^ ((p ^ p>>30) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k != 0; k-- {
		p := m.mt[i-1]
		m.mt[i] = (m.mt[i] ^ ((p ^ p>>30) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
	}
	m.mt[0] = 0x80000000 // commons-math: MSB is 1, a non-zero initial array
	return m
}

// initGenrand is MersenneTwister.setSeed(int).
func (m *MersenneTwister) initGenrand(s uint32) {
	m.mt[0] = s
	for i := 1; i < mtN; i++ {
		p := m.mt[i-1]
		m.mt[i] = 1812433253*(p^p>>30) + uint32(i)
	}
	m.mti = mtN
}

// next32 is one tempered MT19937 word (next(32) as an unsigned value).
func (m *MersenneTwister) next32() uint32 {
	if m.mti >= mtN {
		m.twist()
	}
	y := m.mt[m.mti]
	m.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// twist regenerates the N words of state.
func (m *MersenneTwister) twist() {
	mag := func(y uint32) uint32 { return (y >> 1) ^ (0x9908b0df * (y & 1)) }
	k := 0
	for ; k < mtN-mtM; k++ {
		y := m.mt[k]&0x80000000 | m.mt[k+1]&0x7fffffff
		m.mt[k] = m.mt[k+mtM] ^ mag(y)
	}
	for ; k < mtN-1; k++ {
		y := m.mt[k]&0x80000000 | m.mt[k+1]&0x7fffffff
		m.mt[k] = m.mt[k+mtM-mtN] ^ mag(y)
	}
	y := m.mt[mtN-1]&0x80000000 | m.mt[0]&0x7fffffff
	m.mt[mtN-1] = m.mt[mtM-1] ^ mag(y)
	m.mti = 0
}

// NextLong is BitsStreamGenerator.nextLong(): next(32) as the high word, then the low word.
func (m *MersenneTwister) NextLong() int64 {
	hi := uint64(m.next32())
	lo := uint64(m.next32())
	return int64(hi<<32 | lo)
}

// NextIntN is BitsStreamGenerator.nextInt(n) for n > 0 (the caller checks): a power of two
// scales next(31); any other bound rejects the draws of next(31) that would bias the modulo.
func (m *MersenneTwister) NextIntN(n int32) int32 {
	if n&-n == n {
		return int32((int64(n) * int64(m.next32()>>1)) >> 31)
	}
	for {
		bits := int32(m.next32() >> 1)
		v := bits % n
		if bits-v+(n-1) >= 0 { // Java's int overflow test: Go's int32 wraps the same way
			return v
		}
	}
}
