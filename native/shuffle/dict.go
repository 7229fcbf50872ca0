package shuffle

import (
	"hash/maphash"
)

// Dictionary encoding of a block's string column: its distinct values once, then a code per row
// (an integer stream, a byte for up to 256 values). TPC-H shuffles many low-cardinality strings
// (order priorities, ship modes, market segments, brands, nation names); their bytes and lengths
// cost a row 3 to 6 bytes after LZ4, their codes one or less: on q12's orders side,
// o_orderpriority takes 0.8 bytes a row as codes, 2.8 as lengths and bytes.

// maxDictEntries bounds a block's dictionary: past it a column is not repetitive enough for the
// codes to pay for the hashing (and codes stay within two bytes).
const maxDictEntries = 4096

// dictBuilder finds the distinct values of a block's string column; its buffers are reused from
// block to block.
type dictBuilder struct {
	seed   maphash.Seed
	slots  []int32  // open addressing, linear probing: entry+1, 0 for an empty slot
	hashes []uint64 // per entry
	starts []int32  // per entry: where its bytes start in the column's data
	lens   []int32  // per entry: its length
	codes  []int32  // per row
}

func newDictBuilder() dictBuilder { return dictBuilder{seed: maphash.MakeSeed()} }

// build gives every row of the column (offs, data as Arrow lays them out) the code of its value
// and returns the number of distinct values, or -1 when there are more than limit. A row equal to
// the previous one skips the hash: sorted or clustered columns repeat in runs.
func (d *dictBuilder) build(offs []int32, data []byte, limit int) int {
	rows := len(offs) - 1
	size := 64
	for size < 2*limit {
		size *= 2
	}
	if len(d.slots) != size {
		d.slots = make([]int32, size)
	} else {
		clear(d.slots)
	}
	mask := uint64(size - 1)
	d.hashes, d.starts, d.lens = d.hashes[:0], d.starts[:0], d.lens[:0]
	if cap(d.codes) < rows {
		d.codes = make([]int32, rows, max(rows, 2*cap(d.codes)))
	}
	codes := d.codes[:rows]
	slots := d.slots
	var prev []byte
	code := int32(-1)
	for i := range codes {
		s := data[offs[i]:offs[i+1]]
		if code >= 0 && string(s) == string(prev) {
			codes[i] = code
			continue
		}
		h := maphash.Bytes(d.seed, s)
		for p := h & mask; ; p = (p + 1) & mask {
			e := slots[p]
			if e == 0 {
				if len(d.starts) == limit {
					return -1
				}
				d.hashes = append(d.hashes, h)
				d.starts = append(d.starts, offs[i])
				d.lens = append(d.lens, int32(len(s)))
				code = int32(len(d.starts) - 1)
				slots[p] = code + 1
				break
			}
			e--
			if d.hashes[e] == h && string(data[d.starts[e]:d.starts[e]+d.lens[e]]) == string(s) {
				code = e
				break
			}
		}
		codes[i], prev = code, s
	}
	d.codes = codes
	return len(d.starts)
}

func (d *dictBuilder) memSize() int64 {
	return int64(cap(d.slots)*4 + cap(d.hashes)*8 + cap(d.starts)*4 + cap(d.lens)*4 + cap(d.codes)*4)
}
