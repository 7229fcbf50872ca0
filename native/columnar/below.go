package columnar

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// CodesBelow reports whether every code is in [0, n): whether dictionary codes from a file index
// a dictionary of n entries. A scan's codes are checked once per row before any consumer trusts
// them, so the check runs two codes to a word: the low 31 bits of each 32-bit lane plus 2^31-n
// carry into the lane's top bit exactly when they are n or more (no carry leaves the lane), and a
// negative code has that bit set already. A max over the codes took a compare and a conditional
// move per code, in one chain of dependencies.
func CodesBelow(codes []int32, n int) bool {
	if len(codes) == 0 {
		return true
	}
	if n <= 0 {
		return false
	}
	if n > math.MaxInt32 {
		// Every non-negative int32 is below n.
		for _, x := range codes {
			if x < 0 {
				return false
			}
		}
		return true
	}
	const low, top = 0x7FFFFFFF7FFFFFFF, 0x8000000080000000
	add := uint64(1<<31-uint32(n)) * 0x0000000100000001
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(codes))), len(codes)*4)
	var a0, a1, a2, a3 uint64
	for len(b) >= 32 {
		w0 := binary.LittleEndian.Uint64(b[0:8])
		w1 := binary.LittleEndian.Uint64(b[8:16])
		w2 := binary.LittleEndian.Uint64(b[16:24])
		w3 := binary.LittleEndian.Uint64(b[24:32])
		a0 |= (w0&low + add) | w0
		a1 |= (w1&low + add) | w1
		a2 |= (w2&low + add) | w2
		a3 |= (w3&low + add) | w3
		b = b[32:]
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		a0 |= (w&low + add) | w
		b = b[8:]
	}
	if len(b) == 4 {
		// The last code alone: its lane of a word whose other lane is 0, which is below n.
		w := uint64(binary.LittleEndian.Uint32(b))
		a0 |= (w&low + add) | w
	}
	// A lone lane's 0 partner (above) gets add alone, whose top bit is clear as n > 0.
	return (a0|a1|a2|a3)&top == 0
}
