package shuffle

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/pierrec/lz4/v4"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// TPC-H lineitem for the size comparison and the benchmarks: the real table when the repository's
// generated data is there (data/tpch/sf1, written by tpcgen-cli), else rows drawn with dbgen's
// distributions.

var lineitemNames = []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
	"l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate",
	"l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"}

func lineitemFields(t testing.TB) []sparktype.Field {
	types := coltest.Types(t, "long", "long", "long", "integer", "decimal(15,2)", "decimal(15,2)",
		"decimal(15,2)", "decimal(15,2)", "string", "string", "date", "date", "date", "string", "string", "string")
	fs := make([]sparktype.Field, len(types))
	for i, ty := range types {
		fs[i] = sparktype.Field{Name: lineitemNames[i], Type: ty}
	}
	return fs
}

const (
	tpchLineitem = "../../data/tpch/sf1/lineitem/lineitem.1.parquet"
	tpchOrders   = "../../data/tpch/sf1/orders/orders.1.parquet"
)

// lineitemBatches returns n rows of lineitem in batches of 8192 and where they came from.
func lineitemBatches(t testing.TB, n int, real bool) ([]*columnar.Batch, string) {
	if real {
		if bs := tpchBatches(t, tpchLineitem, lineitemFields(t), n); bs != nil {
			return bs, "tpch"
		}
		return nil, ""
	}
	return synthLineitem(n), "synthetic"
}

// tpchBatches reads the first n rows of columns of a TPC-H Parquet file into batches of Go
// memory, or returns nil when the file is not there.
func tpchBatches(t testing.TB, path string, fields []sparktype.Field, n int) []*columnar.Batch {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	alloc := bmemory.NewTaskAllocator(nil)
	r, err := parquet.Open(path, 0, math.MaxInt64, &parquet.ScanSpec{Columns: fields}, alloc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*columnar.Batch
	for got := 0; got < n; {
		b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		// Copy into Go memory: the batches outlive this reader's allocator checks.
		cols := make([]arrow.Array, len(b.Cols))
		keep := min(b.NumRows, n-got)
		sel := make([]int32, keep)
		for i := range sel {
			sel[i] = int32(i)
		}
		for i, c := range b.Cols {
			if cols[i], err = columnar.Take(coltest.Mem, c, sel); err != nil {
				t.Fatal(err)
			}
		}
		b.Release()
		out = append(out, columnar.NewBatch(cols, keep))
		got += keep
	}
	alloc.ReleaseAll()
	return out
}

// q12Orders returns n rows of q12's orders side, (o_orderkey, o_orderpriority): TPC-H's when the
// data is there, else rows with dbgen's keys (8 of every 32) and priorities.
func q12Orders(t testing.TB, n int) ([]sparktype.Field, []*columnar.Batch, string) {
	types := coltest.Types(t, "long", "string")
	fields := []sparktype.Field{{Name: "o_orderkey", Type: types[0]}, {Name: "o_orderpriority", Type: types[1]}}
	if bs := tpchBatches(t, tpchOrders, fields, n); bs != nil {
		return fields, bs, "tpch"
	}
	rng := rand.New(rand.NewPCG(12, 12))
	prios := []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	var bs []*columnar.Batch
	for lo := 0; lo < n; lo += 8192 {
		keys := array.NewInt64Builder(coltest.Mem)
		prio := array.NewStringBuilder(coltest.Mem)
		for i := lo; i < min(n, lo+8192); i++ {
			keys.Append(int64(i/8*32 + i%8 + 1))
			prio.Append(prios[rng.IntN(len(prios))])
		}
		bs = append(bs, columnar.NewBatch([]arrow.Array{keys.NewArray(), prio.NewArray()}, min(n, lo+8192)-lo))
		keys.Release()
		prio.Release()
	}
	return fields, bs, "synthetic"
}

var (
	shipInstructs = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes     = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	commentWords  = []string{"furiously", "carefully", "quickly", "blithely", "slyly", "ironic", "final",
		"regular", "pending", "express", "special", "bold", "even", "unusual", "deposits", "requests",
		"accounts", "packages", "theodolites", "foxes", "pinto", "beans", "instructions", "platelets",
		"asymptotes", "dependencies", "courts", "ideas", "excuses", "sleep", "wake", "haggle", "nag",
		"use", "boost", "affix", "detect", "integrate", "among", "about", "above", "according", "to",
		"across", "after", "against", "along", "the", "fluffily", "daringly", "silent", "thin", "idle"}
)

// synthLineitem draws lineitem rows with dbgen's rules: orders of 1-7 lines, sparse order keys,
// part-derived prices, dates from the order date, comments from dbgen-like words.
func synthLineitem(n int) []*columnar.Batch {
	rng := rand.New(rand.NewPCG(42, 42))
	var out []*columnar.Batch
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	order, line, lines := int64(0), 0, 0
	var orderDate int32
	for lo := 0; lo < n; lo += 8192 {
		rows := min(8192, n-lo)
		i64 := func() *array.Int64Builder { return array.NewInt64Builder(coltest.Mem) }
		ok, pk, sk := i64(), i64(), i64()
		ln := array.NewInt32Builder(coltest.Mem)
		decs := make([]*array.Decimal128Builder, 4)
		for i := range decs {
			decs[i] = array.NewDecimal128Builder(coltest.Mem, dec)
		}
		strs := make([]*array.StringBuilder, 5)
		for i := range strs {
			strs[i] = array.NewStringBuilder(coltest.Mem)
		}
		dates := make([]*array.Date32Builder, 3)
		for i := range dates {
			dates[i] = array.NewDate32Builder(coltest.Mem)
		}
		comment := make([]byte, 0, 64)
		for range rows {
			if line == lines {
				order++
				if order%8 == 0 {
					order += 24 // dbgen's sparse keys: 8 of every 32
				}
				line, lines = 0, 1+rng.IntN(7)
				orderDate = 8035 + int32(rng.IntN(2406)) // 1992-01-01 .. 1998-08-02
			}
			line++
			part := int64(1 + rng.IntN(200000))
			qty := int64(1 + rng.IntN(50))
			price := 90000 + (part/10)%20001 + 100*(part%1000)
			ship := orderDate + int32(1+rng.IntN(121))
			receipt := ship + int32(1+rng.IntN(30))
			ok.Append(order)
			pk.Append(part)
			sk.Append(int64(1 + rng.IntN(10000)))
			ln.Append(int32(line))
			decs[0].Append(decimal128.FromI64(qty * 100))
			decs[1].Append(decimal128.FromI64(qty * price))
			decs[2].Append(decimal128.FromI64(int64(rng.IntN(11))))
			decs[3].Append(decimal128.FromI64(int64(rng.IntN(9))))
			if receipt <= 9298 { // 1995-06-17
				strs[0].Append([]string{"R", "A"}[rng.IntN(2)])
			} else {
				strs[0].Append("N")
			}
			if ship > 9298 {
				strs[1].Append("O")
			} else {
				strs[1].Append("F")
			}
			dates[0].Append(arrow.Date32(ship))
			dates[1].Append(arrow.Date32(orderDate + int32(30+rng.IntN(61))))
			dates[2].Append(arrow.Date32(receipt))
			strs[2].Append(shipInstructs[rng.IntN(len(shipInstructs))])
			strs[3].Append(shipModes[rng.IntN(len(shipModes))])
			comment = comment[:0]
			size := 10 + rng.IntN(34)
			for len(comment) < size {
				if len(comment) > 0 {
					comment = append(comment, ' ')
				}
				comment = append(comment, commentWords[rng.IntN(len(commentWords))]...)
			}
			strs[4].Append(string(comment[:size]))
		}
		cols := []arrow.Array{ok.NewArray(), pk.NewArray(), sk.NewArray(), ln.NewArray(),
			decs[0].NewArray(), decs[1].NewArray(), decs[2].NewArray(), decs[3].NewArray(),
			strs[0].NewArray(), strs[1].NewArray(), dates[0].NewArray(), dates[1].NewArray(),
			dates[2].NewArray(), strs[2].NewArray(), strs[3].NewArray(), strs[4].NewArray()}
		for _, b := range []interface{ Release() }{ok, pk, sk, ln, decs[0], decs[1], decs[2], decs[3],
			strs[0], strs[1], strs[2], strs[3], strs[4], dates[0], dates[1], dates[2]} {
			b.Release()
		}
		out = append(out, columnar.NewBatch(cols, rows))
	}
	return out
}

// arrowBytes is the size of the batches' Arrow buffers (the uncompressed columnar data).
func arrowBytes(bs []*columnar.Batch) int64 {
	var n int64
	for _, b := range bs {
		for _, c := range b.Cols {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					n += int64(buf.Len())
				}
			}
		}
	}
	return n
}

// ---- what vanilla Spark writes ----

// sparkShuffleBytes is the size of the data file Spark's sort shuffle would write for these rows:
// per partition, UnsafeRowSerializer's records (a 4-byte big-endian size, then the UnsafeRow:
// a null bitset word per 64 fields, an 8-byte slot per field, strings padded to 8 bytes) through
// LZ4CompressionCodec's LZ4BlockOutputStream (blocks of 32 KiB, each with a 21-byte header, stored
// raw when LZ4 does not shrink it, and a 21-byte end mark); empty partitions write nothing.
func sparkShuffleBytes(bs []*columnar.Batch, ids [][]int32, parts int) int64 {
	streams := make([][]byte, parts)
	var row []byte
	for bi, b := range bs {
		nf := len(b.Cols)
		fixed := 8*((nf+63)/64) + 8*nf
		for r := 0; r < b.NumRows; r++ {
			row = append(row[:0], make([]byte, fixed)...)
			for c, a := range b.Cols {
				slot := row[8*((nf+63)/64)+8*c:]
				if a.IsNull(r) {
					row[c/8] |= 1 << (c % 8)
					continue
				}
				switch x := a.(type) {
				case *array.Int64:
					binary.LittleEndian.PutUint64(slot, uint64(x.Value(r)))
				case *array.Int32:
					binary.LittleEndian.PutUint32(slot, uint32(x.Value(r)))
				case *array.Date32:
					binary.LittleEndian.PutUint32(slot, uint32(x.Value(r)))
				case *array.Decimal128: // precision <= 18: the unscaled long
					binary.LittleEndian.PutUint64(slot, x.Value(r).LowBits())
				case *array.String:
					s := x.Value(r)
					binary.LittleEndian.PutUint64(slot, uint64(len(row))<<32|uint64(len(s)))
					row = append(row, s...)
					for len(row)%8 != 0 {
						row = append(row, 0)
					}
				default:
					panic("sparkShuffleBytes: " + a.DataType().String())
				}
			}
			p := ids[bi][r]
			streams[p] = binary.BigEndian.AppendUint32(streams[p], uint32(len(row)))
			streams[p] = append(streams[p], row...)
		}
	}
	const block, header = 32 << 10, 21
	var total int64
	var c lz4.Compressor
	dst := make([]byte, lz4.CompressBlockBound(block))
	for _, s := range streams {
		if len(s) == 0 {
			continue
		}
		for lo := 0; lo < len(s); lo += block {
			chunk := s[lo:min(len(s), lo+block)]
			n, err := c.CompressBlock(chunk, dst)
			if err != nil || n == 0 || n >= len(chunk) {
				n = len(chunk)
			}
			total += header + int64(n)
		}
		total += header
	}
	return total
}
