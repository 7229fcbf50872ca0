package parquet

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/parquet-go/parquet-go/format"

	bmem "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// BenchmarkCodesBelow is the check of a batch's dictionary codes against the dictionary's size
// (an l_orderkey page's codes: 15 bits, 26785 entries).
func BenchmarkCodesBelow(b *testing.B) {
	codes := make([]int32, 8192)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range codes {
		codes[i] = int32(rng.IntN(26785))
	}
	b.SetBytes(int64(len(codes) * 4))
	for b.Loop() {
		if !codesBelow(codes, 26785) {
			b.Fatal()
		}
	}
}

// BenchmarkLineitemCodes reads one file of TPC-H SF1 lineitem (14 row groups of 107k rows, snappy,
// every column dictionary-encoded, l_comment falling back to PLAIN) the way a min/max over every
// column does: each column as dictionary codes, as values where a page is not dictionary-encoded.
// It is the decode scan's reader half; the file is the one the replayed tasks read.
func BenchmarkLineitemCodes(b *testing.B) {
	const path = "/work/main/data/tpch/sf1/lineitem/lineitem.1.parquet"
	if _, err := os.Stat(path); err != nil {
		b.Skip("no TPC-H SF1 lineitem here")
	}
	dec := sparktype.DecimalOf(15, 2)
	fs := []sparktype.Field{
		{Name: "l_orderkey", Type: sparktype.LongType}, {Name: "l_partkey", Type: sparktype.LongType},
		{Name: "l_suppkey", Type: sparktype.LongType}, {Name: "l_linenumber", Type: sparktype.IntType},
		{Name: "l_quantity", Type: dec}, {Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec}, {Name: "l_tax", Type: dec},
		{Name: "l_returnflag", Type: sparktype.StringType}, {Name: "l_linestatus", Type: sparktype.StringType},
		{Name: "l_shipdate", Type: sparktype.DateType}, {Name: "l_commitdate", Type: sparktype.DateType},
		{Name: "l_receiptdate", Type: sparktype.DateType}, {Name: "l_shipinstruct", Type: sparktype.StringType},
		{Name: "l_shipmode", Type: sparktype.StringType}, {Name: "l_comment", Type: sparktype.StringType},
	}
	for i := range fs {
		fs[i].Nullable = true
	}
	mem := bmem.NewTaskAllocator(nil)
	for b.Loop() {
		r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, mem)
		if err != nil {
			b.Fatal(err)
		}
		for {
			lb, err := r.NextLazy()
			if err != nil {
				b.Fatal(err)
			}
			if lb == nil {
				break
			}
			for i := range fs {
				_, _, ok, err := lb.Codes(i)
				if err == nil && !ok {
					var a arrow.Array
					if a, err = lb.Column(i); a != nil {
						a.Release()
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			lb.Release()
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkByteArrayDict decodes a PLAIN BYTE_ARRAY dictionary page of 40000 values of 10 to 43
// bytes (an l_comment dictionary) into packed values and offsets.
func BenchmarkByteArrayDict(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var page []byte
	for i := 0; i < 40000; i++ {
		n := 10 + rng.IntN(34)
		page = binary.LittleEndian.AppendUint32(page, uint32(n))
		for k := 0; k < n; k++ {
			page = append(page, byte('a'+rng.IntN(26)))
		}
	}
	p := &pageReader{leaf: &leafInfo{phys: format.ByteArray}}
	var val []byte
	var off []uint32
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		v, err := p.plain(page, &val, &off, false)
		if err != nil || v.n != 40000 {
			b.Fatal(err, v.n)
		}
	}
}
