package expr

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/sparkhash"
)

// hashJSON encodes Murmur3Hash / XxHash64 the way PlanEncoder sends them: the constructor fields
// children (a Seq of expressions) and seed (an Int, or a Long for XxHash64).
func hashJSON(class string, seed int64, children ...string) string {
	typ := "integer"
	if class == "XxHash64" {
		typ = "long"
	}
	return node(class, typ, "children", "["+strings.Join(children, ",")+"]", "seed", fmt.Sprint(seed))
}

func TestHashKnownVectors(t *testing.T) {
	// From Spark's documentation (the array's one element hashes like an int column) and
	// native/sparkhash/spark_vectors_test.go (Spark's own classes).
	s, i, j := column(t, "string", "Spark"), column(t, "integer", 123), column(t, "integer", 2)
	got, err := run(t, hashJSON("Murmur3Hash", 42, col(0, "string"), col(1, "integer"), col(2, "integer")), s, i, j)
	expectRows(t, "hash('Spark', 123, 2)", got, err, "-1321691492")
	got, err = run(t, hashJSON("XxHash64", 42, col(0, "string"), col(1, "integer"), col(2, "integer")), s, i, j)
	expectRows(t, "xxhash64('Spark', 123, 2)", got, err, "5602566077635097486")
	got, err = run(t, hashJSON("Murmur3Hash", 42, col(0, "integer")), column(t, "integer", 1, nil))
	expectRows(t, "hash(1), hash(null)", got, err, "-559580957", "42")
	got, err = run(t, hashJSON("XxHash64", 42, col(0, "integer")), column(t, "integer", 1, nil))
	expectRows(t, "xxhash64(1), xxhash64(null)", got, err, "-6698625589789238999", "42")
	// Both zeros hash alike, and every NaN like Double.NaN.
	d := column(t, "double", 0.0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0xfff8000000000000))
	got, err = run(t, hashJSON("Murmur3Hash", 42, col(0, "double")), d)
	expectRows(t, "hash(double)", got, err, "-1670924195", "-1670924195", "-1281358385", "-1281358385")
	got, err = run(t, hashJSON("XxHash64", 42, col(0, "double")), d)
	expectRows(t, "xxhash64(double)", got, err, "-5252525462095825812", "-5252525462095825812", "-3127944061524951246", "-3127944061524951246")
	// A custom seed: Murmur3Hash(Seq(true, false, 1Y), 7).
	b1, b2, y := column(t, "boolean", true), column(t, "boolean", false), column(t, "byte", 1)
	got, err = run(t, hashJSON("Murmur3Hash", 7, col(0, "boolean"), col(1, "boolean"), col(2, "byte")), b1, b2, y)
	expectRows(t, "hash seed 7", got, err, "391462078")
	got, err = run(t, hashJSON("XxHash64", 7, col(0, "boolean"), col(1, "boolean"), col(2, "byte")), b1, b2, y)
	expectRows(t, "xxhash64 seed 7", got, err, "-7922972126006409022")
}

// TestHashEveryTypeChained hashes one column of each supported type in one expression, with nulls
// in every column, and checks each row against the chain computed with the sparkhash functions
// (themselves checked against Spark's classes).
func TestHashEveryTypeChained(t *testing.T) {
	types := []string{"boolean", "byte", "short", "integer", "long", "float", "double", "decimal(10,2)",
		"decimal(38,10)", "string", "binary", "date", "timestamp", "timestamp_ntz"}
	cols := []any{
		[]any{true, nil, false}, []any{-1, 5, nil}, []any{nil, 300, -300}, []any{7, nil, math.MinInt32},
		[]any{int64(math.MaxInt64), -1, nil}, []any{float32(1.5), nil, float32(math.Copysign(0, -1))},
		[]any{math.Inf(-1), 2.5, nil}, []any{"-12345", nil, "0"}, []any{nil, "-1", "99999999999999999999999999999999999999"},
		[]any{"é€😀", "", nil}, []any{[]byte{0xff}, nil, []byte{}}, []any{18262, nil, -1}, []any{nil, 1600000000123456, -1},
		[]any{0, nil, 42},
	}
	var args []string
	in := make([]arrow.Array, len(types))
	for k, typ := range types {
		args = append(args, col(k, typ))
		in[k] = column(t, typ, cols[k].([]any)...)
	}
	// Expected per row: chain each non-null value.
	wantM := []int32{42, 42, 42}
	wantX := []int64{42, 42, 42}
	for k, typ := range types {
		for r, v := range cols[k].([]any) {
			if v == nil {
				continue
			}
			var m int32
			var x int64
			switch typ {
			case "boolean":
				bi := int32(0)
				if v.(bool) {
					bi = 1
				}
				m, x = sparkhash.Murmur3Int(bi, wantM[r]), sparkhash.XXH64Int(bi, wantX[r])
			case "byte", "short", "integer", "date":
				m, x = sparkhash.Murmur3Int(int32(v.(int)), wantM[r]), sparkhash.XXH64Int(int32(v.(int)), wantX[r])
			case "long", "timestamp", "timestamp_ntz":
				l, ok := v.(int64)
				if !ok {
					l = int64(v.(int))
				}
				m, x = sparkhash.Murmur3Long(l, wantM[r]), sparkhash.XXH64Long(l, wantX[r])
			case "float":
				bits := int32(math.Float32bits(v.(float32)))
				if v.(float32) == 0 {
					bits = 0
				}
				m, x = sparkhash.Murmur3Int(bits, wantM[r]), sparkhash.XXH64Int(bits, wantX[r])
			case "double":
				bits := int64(math.Float64bits(v.(float64)))
				m, x = sparkhash.Murmur3Long(bits, wantM[r]), sparkhash.XXH64Long(bits, wantX[r])
			case "decimal(10,2)":
				var u bigInt
				u.SetString(v.(string), 10)
				m, x = sparkhash.Murmur3Long(u.Int64(), wantM[r]), sparkhash.XXH64Long(u.Int64(), wantX[r])
			case "decimal(38,10)":
				// BigInteger.toByteArray: -1 -> ff; 10^38 - 1 -> 16 bytes.
				bs := map[string][]byte{"-1": {0xff}, "99999999999999999999999999999999999999": {
					0x4b, 0x3b, 0x4c, 0xa8, 0x5a, 0x86, 0xc4, 0x7a, 0x09, 0x8a, 0x22, 0x3f, 0xff, 0xff, 0xff, 0xff}}[v.(string)]
				m, x = sparkhash.Murmur3Bytes(bs, wantM[r]), sparkhash.XXH64Bytes(bs, wantX[r])
			case "string":
				m, x = sparkhash.Murmur3Bytes([]byte(v.(string)), wantM[r]), sparkhash.XXH64Bytes([]byte(v.(string)), wantX[r])
			case "binary":
				m, x = sparkhash.Murmur3Bytes(v.([]byte), wantM[r]), sparkhash.XXH64Bytes(v.([]byte), wantX[r])
			}
			wantM[r], wantX[r] = m, x
		}
	}
	got, err := run(t, hashJSON("Murmur3Hash", 42, args...), in...)
	expectRows(t, "hash every type", got, err, fmt.Sprint(wantM[0]), fmt.Sprint(wantM[1]), fmt.Sprint(wantM[2]))
	got, err = run(t, hashJSON("XxHash64", 42, args...), in...)
	expectRows(t, "xxhash64 every type", got, err, fmt.Sprint(wantX[0]), fmt.Sprint(wantX[1]), fmt.Sprint(wantX[2]))
}

func TestHashLiteralArguments(t *testing.T) {
	// A literal next to a column is folded into every row; a NULL literal changes nothing.
	c := column(t, "integer", 123, nil)
	spark := sparkhash.Murmur3Bytes([]byte("Spark"), 42)
	want0 := sparkhash.Murmur3Int(2, sparkhash.Murmur3Int(123, spark))
	want1 := sparkhash.Murmur3Int(2, spark)
	got, err := run(t, hashJSON("Murmur3Hash", 42, litStr("Spark"), col(0, "integer"), lit("void", "null"), litInt(2)), c)
	expectRows(t, "literals", got, err, fmt.Sprint(want0), fmt.Sprint(want1))
	got, err = run(t, hashJSON("Murmur3Hash", 42, col(0, "integer"), lit("string", "null"), litDec("-1", 38, 0)), c)
	wantDec := func(seed int32) string { return fmt.Sprint(sparkhash.Murmur3Bytes([]byte{0xff}, seed)) }
	expectRows(t, "null and decimal literals", got, err, wantDec(sparkhash.Murmur3Int(123, 42)), wantDec(42))
	got, err = run(t, hashJSON("XxHash64", -9223372036854775808, litDouble(math.Copysign(0, -1)), col(0, "integer")), c)
	x := sparkhash.XXH64Long(0, math.MinInt64)
	expectRows(t, "xxhash64 long seed", got, err, fmt.Sprint(sparkhash.XXH64Int(123, x)), fmt.Sprint(x))
}

func TestHashRefusals(t *testing.T) {
	arr := `{"class":"` + pkg + `AttributeReference","dataType":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"fields":{},"ordinal":0,"name":"a"}`
	expectRefused(t, "array", hashJSON("Murmur3Hash", 42, col(0, "integer"), arr), "hash of array<int> is not supported natively")
	st := `{"class":"` + pkg + `AttributeReference","dataType":{"type":"struct","fields":[]},"nullable":true,"fields":{},"ordinal":0,"name":"s"}`
	expectRefused(t, "struct", hashJSON("XxHash64", 42, st), "xxhash64 of struct<> is not supported natively")
	expectRefused(t, "collated", hashJSON("Murmur3Hash", 42, col(0, "string collate UTF8_LCASE")), "hash of string collate UTF8_LCASE")
	expectRefused(t, "interval", hashJSON("Murmur3Hash", 42, col(0, "interval day to second")), "not supported natively")
	expectRefused(t, "unsupported child", hashJSON("Murmur3Hash", 42, node("XPathString", "string", "child", col(0, "string"))), "XPathString is not supported")
	expectRefused(t, "seed", hashJSON("Murmur3Hash", 1<<40, col(0, "integer")), "not an int")
}

// TestHashOnlyOnEvaluatedRows: a hash in a branch evaluates its children only where the branch is
// taken, so an ANSI error on other rows is not raised (Spark never evaluates them).
func TestHashOnlyOnEvaluatedRows(t *testing.T) {
	i := col(0, "integer")
	h := hashJSON("Murmur3Hash", 42, arithJSON("Remainder", "integer", "ANSI", litInt(10), i))
	got, err := run(t, ifJSON("integer", eqJSON(i, litInt(0)), litInt(-1), h), column(t, "integer", 0, 3))
	expectRows(t, "guarded", got, err, "-1", fmt.Sprint(sparkhash.Murmur3Int(1, 42)))
	_, err = run(t, h, column(t, "integer", 0, 3))
	expectSparkError(t, "unguarded", err, "REMAINDER_BY_ZERO", nil)
}

func TestHashEmptyBatch(t *testing.T) {
	got, err := run(t, hashJSON("XxHash64", 42, col(0, "string"), litInt(1)), column(t, "string"))
	expectRows(t, "empty", got, err)
}

// BenchmarkHashExpr measures the expression over a batch: the result allocation, the seed fill and
// the kernels (see native/sparkhash for the kernels alone).
func BenchmarkHashExpr(b *testing.B) {
	for _, c := range []struct{ name, js string }{
		{"hash(long)", hashJSON("Murmur3Hash", 42, col(0, "long"))},
		{"hash(long,long,literal)", hashJSON("Murmur3Hash", 42, col(0, "long"), col(1, "long"), litStr("key"))},
		{"xxhash64(long)", hashJSON("XxHash64", 42, col(0, "long"))},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchEval(b, c.js, benchInt64(benchRows, true), benchInt64(benchRows, false))
		})
	}
}
