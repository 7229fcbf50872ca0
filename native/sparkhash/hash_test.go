package sparkhash

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// The expected values in spark_vectors_test.go come from Spark 4.1.3's own classes, run by
// scripts/spark-hash-vectors.sh (scripts/SparkHashVectors.java): the static Murmur3_x86_32 and
// XXH64 functions, Murmur3Hash / XxHash64 evaluated over literals of every type, and
// HashPartitioning.partitionIdExpression. The design brief's vectors are among them:
// hash(1) = -559580957 and, with the array's one element as an int column,
// hash('Spark', array(123), 2) = -1321691492, xxhash64('Spark', array(123), 2) = 5602566077635097486.

// typed is one value of a vector: its Spark type name and its text form (see typedColumn).
type typed struct{ typ, val string }

func TestDesignBriefVectors(t *testing.T) {
	if got := Murmur3Int(1, DefaultSeed); got != -559580957 {
		t.Errorf("hash(1) = %d, want -559580957", got)
	}
	h := Murmur3Bytes([]byte("Spark"), DefaultSeed)
	h = Murmur3Int(123, h) // array(123): its element, seeded by the running hash
	if h = Murmur3Int(2, h); h != -1321691492 {
		t.Errorf("hash('Spark', array(123), 2) = %d, want -1321691492", h)
	}
	x := XXH64Bytes([]byte("Spark"), DefaultSeed)
	x = XXH64Int(123, x)
	if x = XXH64Int(2, x); x != 5602566077635097486 {
		t.Errorf("xxhash64('Spark', array(123), 2) = %d, want 5602566077635097486", x)
	}
}

func TestHashFunctionsMatchSpark(t *testing.T) {
	for _, v := range sparkIntVectors {
		if got := Murmur3Int(v.v, int32(v.seed)); got != v.murmur {
			t.Errorf("Murmur3Int(%d, %d) = %d, want %d", v.v, int32(v.seed), got, v.murmur)
		}
		if got := XXH64Int(v.v, v.seed); got != v.xx {
			t.Errorf("XXH64Int(%d, %d) = %d, want %d", v.v, v.seed, got, v.xx)
		}
	}
	for _, v := range sparkLongVectors {
		if got := Murmur3Long(v.v, int32(v.seed)); got != v.murmur {
			t.Errorf("Murmur3Long(%d, %d) = %d, want %d", v.v, int32(v.seed), got, v.murmur)
		}
		if got := XXH64Long(v.v, v.seed); got != v.xx {
			t.Errorf("XXH64Long(%d, %d) = %d, want %d", v.v, v.seed, got, v.xx)
		}
	}
	for _, v := range sparkBytesVectors {
		b, err := hex.DecodeString(v.hex)
		if err != nil {
			t.Fatal(err)
		}
		if got := Murmur3Bytes(b, int32(v.seed)); got != v.murmur {
			t.Errorf("Murmur3Bytes(%s (%d bytes), %d) = %d, want %d", v.hex, len(b), int32(v.seed), got, v.murmur)
		}
		if got := XXH64Bytes(b, v.seed); got != v.xx {
			t.Errorf("XXH64Bytes(%s (%d bytes), %d) = %d, want %d", v.hex, len(b), v.seed, got, v.xx)
		}
	}
}

// TestFoldMatchesSparkExpressions hashes each vector's values as one-row columns, left to right,
// as Murmur3Hash / XxHash64 over those columns would.
func TestFoldMatchesSparkExpressions(t *testing.T) {
	for _, v := range sparkExprVectors {
		m := []int32{int32(v.seed)}
		x := []int64{v.seed}
		for _, tv := range v.vals {
			typ, col := typedColumn(t, tv.typ, tv.val)
			if err := Murmur3Fold(typ, col, m); err != nil {
				t.Fatal(err)
			}
			if err := XxHash64Fold(typ, col, x); err != nil {
				t.Fatal(err)
			}
		}
		if m[0] != v.murmur || x[0] != v.xx {
			t.Errorf("%v seed %d: murmur3 %d xxhash64 %d, want %d %d", v.vals, v.seed, m[0], x[0], v.murmur, v.xx)
		}
	}
}

// TestFoldColumnsWithNulls puts every single-value vector of a type into one column, with a null
// after each value and in runs (so that valid ranges start and end anywhere in a bitmap byte),
// sliced at an offset, and checks every row: the value's hash, or the unchanged seed for nulls.
// The constant fold of each row over several hashes must agree.
func TestFoldColumnsWithNulls(t *testing.T) {
	type want struct {
		val       string
		m         int32
		x         int64
		nullAfter int
	}
	byType := map[string][]want{}
	var order []string
	for _, v := range sparkExprVectors {
		if len(v.vals) != 1 || v.seed != DefaultSeed || v.vals[0].val == "null" {
			continue
		}
		tv := v.vals[0]
		if _, ok := byType[tv.typ]; !ok {
			order = append(order, tv.typ)
		}
		byType[tv.typ] = append(byType[tv.typ], want{tv.val, v.murmur, v.xx, len(byType[tv.typ]) % 11})
	}
	for _, typName := range order {
		ws := byType[typName]
		// Rows: 3 leading nulls (cut off by the slice below), then per value: the value, then
		// nullAfter nulls; then the values again without nulls (a long valid run).
		var vals []string
		var wantM []int32
		var wantX []int64
		add := func(v string, m int32, x int64) {
			vals = append(vals, v)
			wantM = append(wantM, m)
			wantX = append(wantX, x)
		}
		for i := 0; i < 3; i++ {
			add("null", DefaultSeed, DefaultSeed)
		}
		for _, w := range ws {
			add(w.val, w.m, w.x)
			for k := 0; k < w.nullAfter; k++ {
				add("null", DefaultSeed, DefaultSeed)
			}
		}
		for _, w := range ws {
			add(w.val, w.m, w.x)
		}
		typ, full := typedColumn(t, typName, vals...)
		col := array.NewSlice(full, 3, int64(full.Len()))
		defer col.Release()
		wantM, wantX = wantM[3:], wantX[3:]
		m, x := filled[int32](col.Len(), DefaultSeed), filled[int64](col.Len(), DefaultSeed)
		if err := Murmur3Fold(typ, col, m); err != nil {
			t.Fatal(err)
		}
		if err := XxHash64Fold(typ, col, x); err != nil {
			t.Fatal(err)
		}
		for i := range m {
			if m[i] != wantM[i] || x[i] != wantX[i] {
				t.Errorf("%s row %d (%s): murmur3 %d xxhash64 %d, want %d %d", typName, i, vals[i+3], m[i], x[i], wantM[i], wantX[i])
			}
			cm, cx := filled[int32](5, DefaultSeed), filled[int64](5, DefaultSeed)
			if err := Murmur3FoldConst(typ, col, i, cm); err != nil {
				t.Fatal(err)
			}
			if err := XxHash64FoldConst(typ, col, i, cx); err != nil {
				t.Fatal(err)
			}
			if cm[4] != wantM[i] || cx[4] != wantX[i] {
				t.Errorf("%s constant row %d: murmur3 %d xxhash64 %d, want %d %d", typName, i, cm[4], cx[4], wantM[i], wantX[i])
			}
		}
	}
}

func TestPartitionIDsMatchHashPartitioning(t *testing.T) {
	for _, v := range sparkPartitionVectors {
		typ, col := typedColumn(t, v.val.typ, v.val.val)
		h := []int32{DefaultSeed}
		if err := Murmur3Fold(typ, col, h); err != nil {
			t.Fatal(err)
		}
		Pmod(h, v.n, h)
		if h[0] != v.pid {
			t.Errorf("%v into %d partitions: %d, want %d", v.val, v.n, h[0], v.pid)
		}
	}
	// Pmod's edge cases: the most negative hash, and n = 1.
	out := make([]int32, 4)
	Pmod([]int32{math.MinInt32, -1, math.MaxInt32, 0}, 200, out)
	if fmt.Sprint(out) != "[152 199 47 0]" {
		t.Errorf("Pmod: %v", out)
	}
}

// TestUnscaledBytesIsBigIntegerToByteArray checks the minimal two's complement encoding against an
// independent definition: the fewest bytes k with -2^(8k-1) <= x < 2^(8k-1), and the value decodes.
func TestUnscaledBytesIsBigIntegerToByteArray(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var scratch [16]byte
	for i := 0; i < 20000; i++ {
		x := new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(1+r.Intn(127))))
		if r.Intn(2) == 0 {
			x.Neg(x)
		}
		if r.Intn(50) == 0 {
			x.SetInt64(int64(r.Intn(3) - 1))
		}
		b := UnscaledBytes(decimal128.FromBigInt(x), &scratch)
		k := 1
		for {
			lim := new(big.Int).Lsh(big.NewInt(1), uint(8*k-1))
			if x.Cmp(new(big.Int).Neg(lim)) >= 0 && x.Cmp(lim) < 0 {
				break
			}
			k++
		}
		if len(b) != k {
			t.Fatalf("%s: %d bytes, want %d", x, len(b), k)
		}
		got := new(big.Int).SetBytes(b)
		if b[0]&0x80 != 0 {
			got.Sub(got, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		if got.Cmp(x) != 0 {
			t.Fatalf("%s encoded as %x", x, b)
		}
	}
}

func TestFoldRefusals(t *testing.T) {
	_, ints := typedColumn(t, "integer", "1", "2")
	if err := Murmur3Fold(sparktype.LongType, ints, make([]int32, 2)); err == nil || !strings.Contains(err.Error(), "expected int64") {
		t.Errorf("wrong Arrow type: %v", err)
	}
	if err := XxHash64Fold(sparktype.IntType, ints, make([]int64, 3)); err == nil || !strings.Contains(err.Error(), "2 rows for 3") {
		t.Errorf("wrong length: %v", err)
	}
	arr := sparktype.Type{Kind: sparktype.Unsupported, Name: "array"}
	if err := Murmur3Fold(arr, ints, make([]int32, 2)); err == nil || !strings.Contains(err.Error(), "array cannot be hashed") {
		t.Errorf("unsupported type: %v", err)
	}
	if Hashable(arr) || !Hashable(sparktype.DecimalOf(38, 2)) {
		t.Error("Hashable")
	}
	// A void column (a null literal) leaves the hashes.
	h := []int32{7}
	if err := Murmur3Fold(sparktype.NullType, array.NewNull(1), h); err != nil || h[0] != 7 {
		t.Errorf("null type: %v %v", h, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Pmod by 0 must panic")
		}
	}()
	Pmod(h, 0, h)
}

func TestEmptyAndAllNullColumns(t *testing.T) {
	for _, typName := range []string{"boolean", "integer", "long", "double", "decimal(38,2)", "string", "binary", "timestamp"} {
		typ, empty := typedColumn(t, typName)
		if err := Murmur3Fold(typ, empty, nil); err != nil {
			t.Error(err)
		}
		st, _ := sparktype.Parse(json.RawMessage(strconv.Quote(typName)))
		nulls := array.MakeArrayOfNull(memory.DefaultAllocator, st.Arrow(), 3)
		h, x := filled[int32](3, 9), filled[int64](3, 9)
		if err := Murmur3Fold(typ, nulls, h); err != nil {
			t.Error(err)
		}
		if err := XxHash64FoldConst(typ, nulls, 1, x); err != nil {
			t.Error(err)
		}
		if fmt.Sprint(h, x) != "[9 9 9] [9 9 9]" {
			t.Errorf("%s all null: %v %v", typName, h, x)
		}
		nulls.Release()
	}
}

// ---- building columns from the vectors' text form ----

// typedColumn builds a column of Spark type typName: integers in decimal, floats as their raw bits
// in hex, decimals as their unscaled value, strings and binaries as hex bytes, "null" for null.
func typedColumn(t testing.TB, typName string, vals ...string) (sparktype.Type, arrow.Array) {
	t.Helper()
	typ, err := sparktype.Parse(json.RawMessage(strconv.Quote(typName)))
	if err != nil || !typ.Supported() {
		t.Fatalf("type %s: %v", typName, err)
	}
	b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
	defer b.Release()
	for _, v := range vals {
		if v == "null" {
			b.AppendNull()
			continue
		}
		if err := appendText(b, v); err != nil {
			t.Fatalf("%s value %q: %v", typName, v, err)
		}
	}
	a := b.NewArray()
	t.Cleanup(a.Release)
	return typ, a
}

func appendText(b array.Builder, v string) error {
	i, ierr := strconv.ParseInt(v, 0, 64)
	u, uerr := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64)
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v == "true")
	case *array.Int8Builder:
		bb.Append(int8(i))
	case *array.Int16Builder:
		bb.Append(int16(i))
	case *array.Int32Builder:
		bb.Append(int32(i))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(i))
	case *array.Int64Builder:
		bb.Append(i)
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(i))
	case *array.Float32Builder:
		bb.Append(math.Float32frombits(uint32(u)))
		return uerr
	case *array.Float64Builder:
		bb.Append(math.Float64frombits(u))
		return uerr
	case *array.Decimal128Builder:
		x, ok := new(big.Int).SetString(v, 10)
		if !ok {
			return fmt.Errorf("bad decimal")
		}
		bb.Append(decimal128.FromBigInt(x))
		return nil
	case *array.StringBuilder:
		s, err := hex.DecodeString(v)
		bb.Append(string(s))
		return err
	case *array.BinaryBuilder:
		s, err := hex.DecodeString(v)
		bb.Append(s)
		return err
	default:
		return fmt.Errorf("no builder %T", b)
	}
	if _, ok := b.(*array.BooleanBuilder); ok {
		return nil
	}
	return ierr
}

func filled[H int32 | int64](n int, v H) []H {
	out := make([]H, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestPmodIsJavaPmod(t *testing.T) {
	java := func(a, n int32) int32 { // Pmod.pmod(a: Int, n: Int)
		r := a % n
		if r < 0 {
			return (r + n) % n
		}
		return r
	}
	r := rand.New(rand.NewSource(2))
	hs := []int32{math.MinInt32, math.MinInt32 + 1, -1, 0, 1, math.MaxInt32 - 1, math.MaxInt32}
	for i := 0; i < 2000; i++ {
		hs = append(hs, int32(r.Uint32()))
	}
	out := make([]int32, len(hs))
	ns := []int32{1, 2, 3, 7, 199, 200, 256, 1000, 65537, 1 << 30, math.MaxInt32 - 1, math.MaxInt32}
	for i := 0; i < 200; i++ {
		ns = append(ns, 1+int32(r.Intn(math.MaxInt32)))
	}
	for _, n := range ns {
		Pmod(hs, n, out)
		for i, h := range hs {
			if out[i] != java(h, n) {
				t.Fatalf("pmod(%d, %d) = %d, want %d", h, n, out[i], java(h, n))
			}
		}
	}
}

// TestStringFoldMatchesMurmur3Bytes checks the string column kernels (m3Strings without nulls,
// m3StringsMasked with up to half the rows null, runs of valid rows beyond) against Murmur3Bytes
// row by row: lengths 0 to 70 bytes (every tail length, mostly short as Spark's strings are),
// bytes >= 0x80 (the sign-extended tail) and multi-byte UTF-8, a random seed per row, nulls
// (which keep their hash) from none to almost all, columns sliced at odd offsets (validity bits
// and data not at 0), for both string and binary.
func TestStringFoldMatchesMurmur3Bytes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	utf8 := []string{"é", "ς", "mü", "日本", "😀", "a", " "}
	for round := 0; round < 120; round++ {
		rows := 1 + rng.Intn(3000)
		nullRate := []int{0, 2, 20, 1000, -2, -10}[round%6] // n: 1 row in n is null; -n: all but 1 in n
		binary := round%5 == 0
		var bld interface {
			array.Builder
			Append([]byte)
		}
		if binary {
			bld = array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
		} else {
			bld = binaryAsString{array.NewStringBuilder(memory.DefaultAllocator)}
		}
		var vals [][]byte
		for i := 0; i < rows; i++ {
			if nullRate > 0 && rng.Intn(nullRate) == 0 || nullRate < 0 && rng.Intn(-nullRate) != 0 {
				bld.AppendNull()
				vals = append(vals, nil)
				continue
			}
			n := rng.Intn(10)
			switch rng.Intn(4) {
			case 0:
				n = rng.Intn(71)
			case 1:
				n = rng.Intn(20)
			}
			v := make([]byte, n)
			for j := range v {
				v[j] = byte(rng.Intn(256))
				if rng.Intn(2) == 0 {
					v[j] = 'a' + byte(rng.Intn(26))
				}
			}
			if round%3 == 1 { // text: ASCII and multi-byte characters
				v = v[:0]
				for k := rng.Intn(8); k > 0; k-- {
					v = append(v, utf8[rng.Intn(len(utf8))]...)
				}
			}
			bld.Append(v)
			vals = append(vals, v)
		}
		full := bld.NewArray()
		bld.Release()
		off := rng.Intn(min(rows, 13))
		col := array.NewSlice(full, int64(off), int64(rows))
		full.Release()
		typ := sparktype.StringType
		if binary {
			typ = sparktype.BinaryType
		}
		seeds := make([]int32, col.Len())
		for i := range seeds {
			seeds[i] = int32(rng.Uint32())
		}
		got := append([]int32(nil), seeds...)
		if err := Murmur3Fold(typ, col, got); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			want := seeds[i]
			if v := vals[off+i]; !col.IsNull(i) {
				want = Murmur3Bytes(v, seeds[i])
			}
			if g != want {
				t.Fatalf("round %d row %d (%q, null %v): %d, want %d", round, i, vals[off+i], col.IsNull(i), g, want)
			}
		}
		col.Release()
	}
}

// binaryAsString lets the test build string and binary columns alike.
type binaryAsString struct{ *array.StringBuilder }

func (b binaryAsString) Append(v []byte) { b.StringBuilder.Append(string(v)) }

// TestStringFoldNullRowsWithBytes folds a string column whose null rows span bytes (Arrow allows
// any offsets under a null; the masked kernel hashes them and drops the result): they must keep
// their hash, and the valid rows around them must hash their own bytes.
func TestStringFoldNullRowsWithBytes(t *testing.T) {
	data := []byte("abcdefghijklmnopqrstuvwxyz0123456789")
	offs := []int32{0, 1, 5, 9, 9, 16, 20, 21, 30, 36}
	valid := []byte{0b0110_1101, 0b1} // rows 1, 4 and 7 null (bit i of the bitmap is row i)
	arr := array.NewStringData(array.NewData(arrow.BinaryTypes.String, len(offs)-1,
		[]*memory.Buffer{memory.NewBufferBytes(valid), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(data)},
		nil, 3, 0))
	defer arr.Release()
	for off := 0; off < 4; off++ {
		col := array.NewSlice(arr, int64(off), int64(arr.Len()))
		seeds := make([]int32, col.Len())
		for i := range seeds {
			seeds[i] = int32(i*7919 + 1)
		}
		got := append([]int32(nil), seeds...)
		if err := Murmur3Fold(sparktype.StringType, col, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			want := seeds[i]
			if !col.IsNull(i) {
				want = Murmur3Bytes(data[offs[off+i]:offs[off+i+1]], seeds[i])
			}
			if got[i] != want {
				t.Errorf("offset %d row %d (null %v): %d, want %d", off, i, col.IsNull(i), got[i], want)
			}
		}
		col.Release()
	}
}
