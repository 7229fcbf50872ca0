package shuffle

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// ---- hash ----

// refHash is Murmur3Hash of one value seeded with h, composed from sparkhash's per-value functions
// (themselves checked against Spark) by the rules of Catalyst's HashExpression.
func refHash(ty sparktype.Type, v any, h int32) int32 {
	if v == nil {
		return h
	}
	switch ty.Kind {
	case sparktype.Boolean:
		if v.(bool) {
			return sparkhash.Murmur3Int(1, h)
		}
		return sparkhash.Murmur3Int(0, h)
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Date:
		return sparkhash.Murmur3Int(int32(v.(int64)), h)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return sparkhash.Murmur3Long(v.(int64), h)
	case sparktype.Float:
		f := float32(v.(float64))
		bits := int32(math.Float32bits(f))
		if f == 0 {
			bits = 0
		} else if f != f {
			bits = 0x7fc00000
		}
		return sparkhash.Murmur3Int(bits, h)
	case sparktype.Double:
		d := v.(float64)
		bits := int64(math.Float64bits(d))
		if d == 0 {
			bits = 0
		} else if d != d {
			bits = 0x7ff8000000000000
		}
		return sparkhash.Murmur3Long(bits, h)
	case sparktype.Decimal:
		x := v.(*big.Int)
		if ty.Precision <= 18 {
			return sparkhash.Murmur3Long(x.Int64(), h)
		}
		return sparkhash.Murmur3Bytes(javaBigIntegerBytes(x), h)
	case sparktype.String, sparktype.Binary:
		return sparkhash.Murmur3Bytes([]byte(v.(string)), h)
	}
	panic("refHash " + ty.String())
}

// javaBigIntegerBytes is BigInteger.toByteArray: the fewest big-endian two's complement bytes.
func javaBigIntegerBytes(x *big.Int) []byte {
	k := 1
	for {
		lim := new(big.Int).Lsh(big.NewInt(1), uint(8*k-1))
		if x.Cmp(new(big.Int).Neg(lim)) >= 0 && x.Cmp(lim) < 0 {
			break
		}
		k++
	}
	y := new(big.Int).Mod(x, new(big.Int).Lsh(big.NewInt(1), uint(8*k)))
	return y.FillBytes(make([]byte, k))
}

func refPmod(h int32, n int) int32 {
	return int32(((int64(h) % int64(n)) + int64(n)) % int64(n))
}

func partitionOf(t testing.TB, p Partitioner, b *columnar.Batch) []int32 {
	t.Helper()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	ids := make([]int32, b.NumRows+3)
	for i := range ids {
		ids[i] = -7
	}
	if err := p.Partition(ctx, b, ids); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[b.NumRows:] {
		if id != -7 {
			t.Fatalf("Partition wrote past the batch's rows")
		}
	}
	return ids[:b.NumRows]
}

// TestHashIDsMatchSparkVectors: Murmur3Hash values Spark 4.1.3 computed over several columns
// (sparkhash/spark_vectors_test.go), and HashPartitioning ids Spark gave for single values.
func TestHashIDsMatchSparkVectors(t *testing.T) {
	dec := func(s string) *big.Int { x, _ := new(big.Int).SetString(s, 10); return x }
	for _, v := range []struct {
		types  []string
		vals   []any
		murmur int32
	}{
		{[]string{"string", "integer", "integer"}, []any{"Spark", int64(123), int64(2)}, -1321691492},
		{[]string{"boolean", "boolean", "byte"}, []any{true, false, int64(1)}, -1851896555},
		{[]string{"integer", "integer", "long"}, []any{int64(math.MinInt32), int64(math.MaxInt32), int64(1)}, -1853599507},
		{[]string{"float", "float", "float"}, []any{math.Inf(1), math.Inf(-1), float64(math.MaxFloat32)}, -1491196040},
		{[]string{"decimal(9,2)", "decimal(9,2)", "decimal(9,2)"}, []any{dec("0"), dec("12345"), dec("999999999")}, 195832190},
		{[]string{"decimal(38,0)", "decimal(38,0)", "decimal(38,0)"}, []any{dec("127"), dec("-128"), dec("-129")}, 1843001525},
		{[]string{"decimal(38,0)", "decimal(38,0)", "decimal(38,0)"}, []any{dec("2361183241434822606848"),
			dec("-2361183241434822606849"), dec("-604462909807314587353088")}, 334223688},
		{[]string{"string", "string", "string"}, []any{"A", "é", "é"}, -354058918},
		{[]string{"binary", "binary", "binary"}, []any{"\xff\xf4\xe9\xde", "\xff\xf4\xe9\xde\xd3", "\xff\xf4\xe9\xde\xd3\xc8\xbd"}, 594802334},
		{[]string{"timestamp_ntz", "integer", "decimal(38,0)"}, []any{int64(253402300799999999), nil, nil}, 1413397884},
		{[]string{"boolean"}, []any{true}, sparkhash.Murmur3Int(1, 42)},
	} {
		types := coltest.Types(t, v.types...)
		cols := make([]arrow.Array, len(types))
		var keys []exprT
		for i, ty := range types {
			cols[i] = coltest.Col(t, ty, []any{v.vals[i]})
			keys = append(keys, colExpr(t, i, v.types[i]))
		}
		b := columnar.NewBatch(cols, 1)
		for _, n := range []int{1, 7, 200} {
			p, err := NewHashPartitioner(keys, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := partitionOf(t, p, b)[0]; got != refPmod(v.murmur, n) {
				t.Errorf("%v %v into %d: partition %d, want pmod(%d) = %d", v.types, v.vals, n, got, v.murmur, refPmod(v.murmur, n))
			}
		}
		b.Release()
	}
	// HashPartitioning(Seq(literal), n).partitionIdExpression.eval() from Spark.
	for _, v := range []struct {
		typ string
		val any
		n   int
		pid int32
	}{
		{"boolean", true, 200, 43}, {"boolean", false, 7, 1}, {"byte", int64(0), 200, 191},
		{"double", math.Copysign(0, -1), 200, 5}, {"double", math.Float64frombits(0x7ff8000000000001), 200, 15},
		{"double", math.Float64frombits(0xfff8000000000000), 7, 1}, {"double", -3.5, 200, 189},
	} {
		ty := coltest.Type(t, v.typ)
		b := columnar.NewBatch([]arrow.Array{coltest.Col(t, ty, []any{v.val})}, 1)
		p, _ := NewHashPartitioner([]exprT{colExpr(t, 0, v.typ)}, v.n)
		if got := partitionOf(t, p, b)[0]; got != v.pid {
			t.Errorf("%s %v into %d: %d, want %d", v.typ, v.val, v.n, got, v.pid)
		}
		b.Release()
	}
}

// TestHashIDsMatchSparkComposition: every hashable type, with nulls, in sliced batches: h = 42,
// each key folded in order, then pmod, row by row.
func TestHashIDsMatchSparkComposition(t *testing.T) {
	types := coltest.Types(t, allTypes...)
	rng := rand.New(rand.NewPCG(11, 11))
	rows := coltest.GenRows(rng, types, 4000, 0.2, genValue)
	src := coltest.NewSource(t, rng, types, rows, 500)
	defer src.Release()
	for _, n := range []int{2, 13, 200, 1 << 20} {
		for _, keyCols := range [][]int{{4}, {9, 0}, {13, 8, 7, 6, 5, 3, 2, 1, 10, 11, 12}} {
			var keys []exprT
			for _, c := range keyCols {
				keys = append(keys, colExpr(t, c, allTypes[c]))
			}
			p, err := NewHashPartitioner(keys, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range src.Batches {
				ids := partitionOf(t, p, b)
				for r, row := range coltest.Rows(b) {
					h := int32(42)
					for _, c := range keyCols {
						h = refHash(types[c], row[c], h)
					}
					if want := refPmod(h, n); ids[r] != want {
						t.Fatalf("keys %v, %d partitions, row %s: partition %d, want %d", keyCols, n, coltest.ShowRow(row), ids[r], want)
					}
				}
			}
			p.Close()
		}
	}
}

func TestHashPartitionerRefusals(t *testing.T) {
	if _, err := NewHashPartitioner(nil, 0); err == nil {
		t.Error("0 partitions accepted")
	}
	// No keys: Murmur3Hash() of nothing is the seed, 42.
	p, err := NewHashPartitioner(nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	b := columnar.NewBatch(nil, 3)
	if got := fmt.Sprint(partitionOf(t, p, b)); got != "[2 2 2]" {
		t.Errorf("no keys: %v", got)
	}
	if err := p.Partition(coltest.NewCtx(1), b, make([]int32, 2)); err == nil {
		t.Error("short ids accepted")
	}
}

// ---- round robin ----

// Spark 4.1.3: new XORShiftRandom(seed).nextInt(bound), by a Java program over spark-core.
var sparkXORShift = []struct {
	seed   int64
	bounds []int32
	want   []int32
}{
	{0, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 0, 2, 2, 1, 3, 28, 28, 248}},
	{1, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 0, 0, 5, 1, 3, 103, 703, 244}},
	{2, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 1, 1, 1, 7, 15, 28, 828, 976}},
	{3, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 1, 2, 6, 5, 11, 47, 447, 744}},
	{4, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 1, 1, 1, 4, 9, 53, 53, 606}},
	{5, []int32{1, 2, 3, 7, 8, 16, 200, 1000, 1024}, []int32{0, 1, 1, 1, 7, 14, 25, 425, 928}},
	{12345, []int32{200, 1024}, []int32{145, 619}},
	{1 << 20, []int32{200, 1024}, []int32{40, 136}},
	{math.MaxInt32, []int32{200, 1024}, []int32{80, 403}},
}

func TestXORShiftMatchesSpark(t *testing.T) {
	for _, v := range sparkXORShift {
		for i, n := range v.bounds {
			if got := xorShiftNextInt(v.seed, n); got != v.want[i] {
				t.Errorf("XORShiftRandom(%d).nextInt(%d) = %d, want %d", v.seed, n, got, v.want[i])
			}
		}
	}
}

func TestRoundRobinSpreadsEvenly(t *testing.T) {
	for _, n := range []int{1, 2, 7, 16, 200} {
		for task := range 5 {
			p := NewRoundRobinPartitioner(n, task)
			counts := make([]int, n)
			start := int32(xorShiftNextInt(int64(task), int32(n)))
			next := nonNegativeMod(start+1, n)
			for _, rows := range []int{1, 0, 999, 5000, 3} {
				b := columnar.NewBatch(nil, rows)
				for _, id := range partitionOf(t, p, b) {
					if int(id) != next {
						t.Fatalf("%d partitions, task %d: partition %d, want %d (consecutive positions)", n, task, id, next)
					}
					next = (next + 1) % n
					counts[id]++
				}
			}
			lo, hi := counts[0], counts[0]
			for _, c := range counts {
				lo, hi = min(lo, c), max(hi, c)
			}
			if hi-lo > 1 {
				t.Errorf("%d partitions, task %d: counts from %d to %d", n, task, lo, hi)
			}
		}
	}
	// Spark's position is an int: past 2^31 rows it wraps and nonNegativeMod takes over.
	rr := NewRoundRobinPartitioner(7, 0).(*roundRobin)
	rr.pos = math.MaxInt32 - 2
	rr.cur = nonNegativeMod(rr.pos, 7)
	ids := partitionOf(t, rr, columnar.NewBatch(nil, 6))
	pos := int32(math.MaxInt32 - 2)
	for i := range ids {
		pos++
		if want := nonNegativeMod(pos, 7); int(ids[i]) != want {
			t.Errorf("position %d: partition %d, want %d", pos, ids[i], want)
		}
	}
	if err := NewRoundRobinPartitioner(0, 1).Partition(coltest.NewCtx(1), columnar.NewBatch(nil, 1), make([]int32, 1)); err == nil {
		t.Error("round robin into 0 partitions accepted")
	}
}

func TestSinglePartitioner(t *testing.T) {
	p := NewSinglePartitioner()
	ids := partitionOf(t, p, columnar.NewBatch(nil, 5))
	if fmt.Sprint(ids) != "[0 0 0 0 0]" || p.NumPartitions() != 1 {
		t.Errorf("single: %v", ids)
	}
	p.Close()
	p.Close()
}
