package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The vectors in icebergtransform_vectors_test.go come from Iceberg 1.11's own Spark functions,
// run by scripts/iceberg-transform-vectors.sh (scripts/IcebergTransformVectors.java); the spec's
// Appendix B vectors are checked here by hand as well.

// staticInvokeJSON encodes a call of an Iceberg function the way PlanEncoder sends Spark's
// StaticInvoke (projections); applyJSON the way it sends ApplyFunctionExpression (filters).
func staticInvokeJSON(class, typ string, args ...string) string {
	return fmt.Sprintf(`{"class":"org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke","dataType":%s,"nullable":true,"fields":{`+
		`"staticObject":%q,"dataType":{"type":%s},"functionName":"invoke","arguments":[%s],"inputTypes":[],`+
		`"propagateNull":false,"returnNullable":true,"isDeterministic":true,"scalarFunction":%s}}`,
		q(typ), icebergFunctions+class, q(typ), strings.Join(args, ","), functionJSON(class))
}

func applyJSON(class, typ string, args ...string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%s,"nullable":true,"fields":{"function":%s,"children":[%s]}}`,
		pkg+"ApplyFunctionExpression", q(typ), functionJSON(class), strings.Join(args, ","))
}

func functionJSON(class string) string {
	return fmt.Sprintf(`{"class":%q,"fields":{"name":"f","canonicalName":"iceberg.f"}}`, icebergFunctions+class)
}

// bothForms runs a call in its StaticInvoke and its ApplyFunctionExpression form.
func bothForms(t *testing.T, name, class, typ string, args []string, cols []arrow.Array, want ...string) {
	t.Helper()
	got, err := run(t, staticInvokeJSON(class, typ, args...), cols...)
	expectRows(t, name+" (StaticInvoke)", got, err, want...)
	got, err = run(t, applyJSON(class, typ, args...), cols...)
	expectRows(t, name+" (ApplyFunctionExpression)", got, err, want...)
}

func TestIcebergSpecAppendixB(t *testing.T) {
	// The spec's hash vectors: Murmur3 x86_32, seed 0, of each type's byte representation.
	micros := int64(1510871468000000) // 2017-11-16T22:31:08 (UTC)
	uuid, _ := hex.DecodeString("f79c3e09677c4bbda4793f349cb785e7")
	for _, c := range []struct {
		name string
		got  int32
		want int32
	}{
		{"int 34", sparkhash.Murmur3Long(34, 0), 2017239379},
		{"long 34", sparkhash.Murmur3Long(34, 0), 2017239379},
		{"decimal 14.20", sparkhash.Murmur3Reference([]byte{0x05, 0x8c}, 0), -500754589},
		{"date 2017-11-16", sparkhash.Murmur3Long(17486, 0), -653330422},
		{"time 22:31:08", sparkhash.Murmur3Long(81068000000, 0), -662762989},
		{"timestamp 2017-11-16T22:31:08", sparkhash.Murmur3Long(micros, 0), -2047944441},
		{"timestamptz 2017-11-16T14:31:08-08:00", sparkhash.Murmur3Long(micros, 0), -2047944441},
		{"string iceberg", sparkhash.Murmur3Reference([]byte("iceberg"), 0), 1210000089},
		{"uuid f79c3e09-677c-4bbd-a479-3f349cb785e7", sparkhash.Murmur3Reference(uuid, 0), 1488055340},
		{"fixed 00 01 02 03", sparkhash.Murmur3Reference([]byte{0, 1, 2, 3}, 0), -188683207},
		{"binary 00 01 02 03", sparkhash.Murmur3Reference([]byte{0, 1, 2, 3}, 0), -188683207},
	} {
		if c.got != c.want {
			t.Errorf("%s: hash %d, want %d", c.name, c.got, c.want)
		}
	}
	// The same through the expressions: with N = Integer.MAX_VALUE the bucket is hash & MAX_VALUE.
	max := litInt(math.MaxInt32)
	mask := func(h int32) string { return fmt.Sprint(h & math.MaxInt32) }
	bothForms(t, "bucket int", "BucketFunction$BucketInt", "integer", []string{max, col(0, "integer")},
		[]arrow.Array{column(t, "integer", 34, nil)}, mask(2017239379), "null")
	bothForms(t, "bucket date", "BucketFunction$BucketInt", "integer", []string{max, col(0, "date")},
		[]arrow.Array{column(t, "date", 17486)}, mask(-653330422))
	bothForms(t, "bucket long", "BucketFunction$BucketLong", "integer", []string{max, col(0, "long")},
		[]arrow.Array{column(t, "long", 34)}, mask(2017239379))
	for _, ts := range []string{"timestamp", "timestamp_ntz"} {
		bothForms(t, "bucket "+ts, "BucketFunction$BucketLong", "integer", []string{max, col(0, ts)},
			[]arrow.Array{column(t, ts, int(micros))}, mask(-2047944441))
	}
	bothForms(t, "bucket decimal", "BucketFunction$BucketDecimal", "integer", []string{max, col(0, "decimal(4,2)")},
		[]arrow.Array{column(t, "decimal(4,2)", "1420")}, mask(-500754589))
	bothForms(t, "bucket string", "BucketFunction$BucketString", "integer", []string{max, col(0, "string")},
		[]arrow.Array{column(t, "string", "iceberg")}, mask(1210000089))
	bothForms(t, "bucket binary", "BucketFunction$BucketBinary", "integer", []string{max, col(0, "binary")},
		[]arrow.Array{column(t, "binary", []byte{0, 1, 2, 3}, uuid)}, mask(-188683207), mask(1488055340))
}

func TestIcebergBucketVectors(t *testing.T) {
	for i, n := range iceVectorNs {
		nl := litInt(int64(n))
		var ints, longs, decs []any
		var wantInt, wantLong, wantDec []string
		for _, v := range iceBucketIntVectors {
			ints = append(ints, int(v.v))
			wantInt = append(wantInt, fmt.Sprint(v.buckets[i]))
			if sparkhash.Murmur3Long(int64(v.v), 0) != v.hash {
				t.Errorf("hash(int %d) = %d, want %d", v.v, sparkhash.Murmur3Long(int64(v.v), 0), v.hash)
			}
		}
		for _, v := range iceBucketLongVectors {
			longs = append(longs, v.v)
			wantLong = append(wantLong, fmt.Sprint(v.buckets[i]))
		}
		for _, v := range iceBucketDecimalVectors {
			if len(v.buckets) > 0 {
				decs = append(decs, v.unscaled)
				wantDec = append(wantDec, fmt.Sprint(v.buckets[i]))
			}
		}
		ints, wantInt = append(ints, nil), append(wantInt, "null")
		longs, wantLong = append(longs, nil), append(wantLong, "null")
		bothForms(t, fmt.Sprintf("bucket[%d] int", n), "BucketFunction$BucketInt", "integer",
			[]string{nl, col(0, "integer")}, []arrow.Array{column(t, "integer", ints...)}, wantInt...)
		bothForms(t, fmt.Sprintf("bucket[%d] date", n), "BucketFunction$BucketInt", "integer",
			[]string{nl, col(0, "date")}, []arrow.Array{column(t, "date", ints...)}, wantInt...)
		for _, typ := range []string{"long", "timestamp", "timestamp_ntz"} {
			vals := longs
			if typ != "long" {
				vals = make([]any, len(longs))
				for j, v := range longs {
					if v != nil {
						vals[j] = int(v.(int64))
					}
				}
			}
			bothForms(t, fmt.Sprintf("bucket[%d] %s", n, typ), "BucketFunction$BucketLong", "integer",
				[]string{nl, col(0, typ)}, []arrow.Array{column(t, typ, vals...)}, wantLong...)
		}
		for _, typ := range []string{"decimal(38,2)", "decimal(9,2)"} {
			var vals []any
			var want []string
			for j, d := range decs {
				if typ == "decimal(38,2)" || len(strings.TrimPrefix(d.(string), "-")) <= 9 {
					vals, want = append(vals, d), append(want, wantDec[j])
				}
			}
			bothForms(t, fmt.Sprintf("bucket[%d] %s", n, typ), "BucketFunction$BucketDecimal", "integer",
				[]string{nl, col(0, typ)}, []arrow.Array{column(t, typ, append(vals, nil)...)}, append(want, "null")...)
		}
		var strs, bins []any
		var wantBytes []string
		for _, v := range iceBucketBytesVectors {
			b, _ := hex.DecodeString(v.hex)
			strs, bins = append(strs, string(b)), append(bins, b)
			wantBytes = append(wantBytes, fmt.Sprint(v.buckets[i]))
		}
		bothForms(t, fmt.Sprintf("bucket[%d] string", n), "BucketFunction$BucketString", "integer",
			[]string{nl, col(0, "string")}, []arrow.Array{column(t, "string", strs...)}, wantBytes...)
		bothForms(t, fmt.Sprintf("bucket[%d] binary", n), "BucketFunction$BucketBinary", "integer",
			[]string{nl, col(0, "binary")}, []arrow.Array{column(t, "binary", bins...)}, wantBytes...)
	}
	// Hashes of the widest decimals (beyond 38 digits, so without buckets above).
	var scratch [16]byte
	for _, v := range iceBucketDecimalVectors {
		u, _ := new(big.Int).SetString(v.unscaled, 10)
		// Two's complement in 128 bits (FromBigInt refuses -2^127).
		m := new(big.Int).And(u, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1)))
		n := decimal128.New(int64(new(big.Int).Rsh(m, 64).Uint64()), new(big.Int).And(m, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
		if got := sparkhash.Murmur3Reference(sparkhash.UnscaledBytes(n, &scratch), 0); got != v.hash {
			t.Errorf("hash(decimal unscaled %s) = %d, want %d", v.unscaled, got, v.hash)
		}
	}
	for _, v := range iceBucketBytesVectors {
		b, _ := hex.DecodeString(v.hex)
		if got := sparkhash.Murmur3Reference(b, 0); got != v.hash {
			t.Errorf("hash(%s) = %d, want %d", v.hex, got, v.hash)
		}
	}
}

func TestIcebergTruncateVectors(t *testing.T) {
	for i, w := range iceVectorWs {
		wl := litInt(int64(w))
		var ints, longs, shorts, bytes_, strs, bins []any
		var wantInt, wantLong, wantShort, wantByte, wantStr, wantBin []string
		for _, v := range iceTruncateIntVectors {
			ints, wantInt = append(ints, int(v.v)), append(wantInt, fmt.Sprint(v.want[i]))
		}
		for _, v := range iceTruncateLongVectors {
			longs, wantLong = append(longs, v.v), append(wantLong, fmt.Sprint(v.want[i]))
		}
		for _, v := range iceTruncateSmallVectors {
			shorts, wantShort = append(shorts, int(v.v)), append(wantShort, fmt.Sprint(v.short[i]))
			if len(v.byte_) > 0 {
				bytes_, wantByte = append(bytes_, int(v.v)), append(wantByte, fmt.Sprint(v.byte_[i]))
			}
		}
		for _, v := range iceTruncateStringVectors {
			strs, wantStr = append(strs, v.s), append(wantStr, v.want[i])
		}
		for _, v := range iceTruncateBinaryVectors {
			b, _ := hex.DecodeString(v.hex)
			bins, wantBin = append(bins, b), append(wantBin, v.want[i])
		}
		name := fmt.Sprintf("truncate[%d] ", w)
		nul := func(vals []any, want []string) ([]any, []string) { return append(vals, nil), append(want, "null") }
		ints, wantInt = nul(ints, wantInt)
		longs, wantLong = nul(longs, wantLong)
		strs, wantStr = nul(strs, wantStr)
		bothForms(t, name+"int", "TruncateFunction$TruncateInt", "integer", []string{wl, col(0, "integer")},
			[]arrow.Array{column(t, "integer", ints...)}, wantInt...)
		bothForms(t, name+"long", "TruncateFunction$TruncateBigInt", "long", []string{wl, col(0, "long")},
			[]arrow.Array{column(t, "long", longs...)}, wantLong...)
		bothForms(t, name+"short", "TruncateFunction$TruncateSmallInt", "short", []string{wl, col(0, "short")},
			[]arrow.Array{column(t, "short", shorts...)}, wantShort...)
		bothForms(t, name+"byte", "TruncateFunction$TruncateTinyInt", "byte", []string{wl, col(0, "byte")},
			[]arrow.Array{column(t, "byte", bytes_...)}, wantByte...)
		// A result past the type's digits is null as a projection writes it (StaticInvoke), and
		// kept as is in a predicate (ApplyFunctionExpression).
		for _, p := range []int{38, 9} {
			typ := fmt.Sprintf("decimal(%d,2)", p)
			var vals []any
			var static, apply []string
			for _, v := range iceTruncateDecimalVectors {
				if digits(v.unscaled) > p {
					continue
				}
				vals = append(vals, v.unscaled)
				r := decimalText(v.want[i], 2)
				apply = append(apply, r)
				if digits(v.want[i]) > p {
					r = "null"
				}
				static = append(static, r)
			}
			dc := column(t, typ, vals...)
			got, err := run(t, staticInvokeJSON("TruncateFunction$TruncateDecimal", typ, wl, col(0, typ)), dc)
			expectRows(t, name+typ+" (StaticInvoke)", got, err, static...)
			got, err = run(t, applyJSON("TruncateFunction$TruncateDecimal", typ, wl, col(0, typ)), dc)
			expectRows(t, name+typ+" (ApplyFunctionExpression)", got, err, apply...)
		}
		// Strings through a sliced column, so offsets not starting at 0 are read right.
		sc := column(t, "string", append([]any{"skipped", "skipped too"}, strs...)...)
		sl := array.NewSlice(sc, 2, int64(sc.Len()))
		t.Cleanup(sl.Release)
		bothForms(t, name+"string", "TruncateFunction$TruncateString", "string", []string{wl, col(0, "string")},
			[]arrow.Array{sl}, wantStr...)
		bothForms(t, name+"binary", "TruncateFunction$TruncateBinary", "binary", []string{wl, col(0, "binary")},
			[]arrow.Array{column(t, "binary", bins...)}, wantBin...)
	}
}

func digits(unscaled string) int { return len(strings.TrimPrefix(unscaled, "-")) }

// decimalText renders an unscaled value at scale s the way show prints decimals.
func decimalText(unscaled string, s int32) string {
	u, _ := new(big.Int).SetString(unscaled, 10)
	return plainString(u, s)
}

func TestIcebergTimeVectors(t *testing.T) {
	var days []any
	var years, months, same []string
	for _, v := range iceDateVectors {
		days = append(days, int(v.days))
		years, months = append(years, fmt.Sprint(v.years)), append(months, fmt.Sprint(v.months))
		same = append(same, fmt.Sprint(v.days))
	}
	days, years, months, same = append(days, nil), append(years, "null"), append(months, "null"), append(same, "null")
	d := []arrow.Array{column(t, "date", days...)}
	bothForms(t, "years(date)", "YearsFunction$DateToYearsFunction", "integer", []string{col(0, "date")}, d, years...)
	bothForms(t, "months(date)", "MonthsFunction$DateToMonthsFunction", "integer", []string{col(0, "date")}, d, months...)
	bothForms(t, "days(date)", "DaysFunction$DateToDaysFunction", "date", []string{col(0, "date")}, d, same...)
	// Every pre-1970 date against plain floor division of the civil fields.
	for _, v := range iceDateVectors {
		y, m, _ := civilFromDays(v.days)
		if fy, fm := y-1970, (y-1970)*12+m-1; fy != v.years || fm != v.months {
			t.Errorf("days %d: Iceberg says years %d months %d, floor says %d %d", v.days, v.years, v.months, fy, fm)
		}
	}

	var micros []any
	var ty, tm, td, th []string
	for _, v := range iceTimestampVectors {
		micros = append(micros, int(v.micros))
		ty, tm = append(ty, fmt.Sprint(v.years)), append(tm, fmt.Sprint(v.months))
		td, th = append(td, fmt.Sprint(v.days)), append(th, fmt.Sprint(v.hours))
	}
	micros = append(micros, nil)
	ty, tm, td, th = append(ty, "null"), append(tm, "null"), append(td, "null"), append(th, "null")
	for _, c := range []struct{ typ, prefix string }{{"timestamp", "Timestamp"}, {"timestamp_ntz", "TimestampNtz"}} {
		ts := []arrow.Array{column(t, c.typ, micros...)}
		arg := []string{col(0, c.typ)}
		bothForms(t, "years("+c.typ+")", "YearsFunction$"+c.prefix+"ToYearsFunction", "integer", arg, ts, ty...)
		bothForms(t, "months("+c.typ+")", "MonthsFunction$"+c.prefix+"ToMonthsFunction", "integer", arg, ts, tm...)
		bothForms(t, "days("+c.typ+")", "DaysFunction$"+c.prefix+"ToDaysFunction", "date", arg, ts, td...)
		bothForms(t, "hours("+c.typ+")", "HoursFunction$"+c.prefix+"ToHoursFunction", "integer", arg, ts, th...)
	}
	// Iceberg's pre-epoch .999999 second, which plain floor division would put an hour later.
	got, err := run(t, staticInvokeJSON("HoursFunction$TimestampToHoursFunction", "integer", col(0, "timestamp")),
		column(t, "timestamp", -3600000000+999999, -3600000000+999998))
	expectRows(t, "hours at .999999 before 1970", got, err, "-2", "-1")
}

func TestIcebergTransformEdges(t *testing.T) {
	// A null N or W: every row is null, and StaticInvoke does not evaluate the value.
	nullInt := lit("integer", "null")
	bothForms(t, "bucket(null, v)", "BucketFunction$BucketString", "integer", []string{nullInt, col(0, "string")},
		[]arrow.Array{column(t, "string", "a", nil)}, "null", "null")
	bothForms(t, "truncate(null, v)", "TruncateFunction$TruncateString", "string", []string{nullInt, col(0, "string")},
		[]arrow.Array{column(t, "string", "a", nil)}, "null", "null")
	// Empty and all-null batches, a literal value.
	for _, cols := range [][]arrow.Array{{column(t, "integer")}, {column(t, "integer", nil, nil)}} {
		want := make([]string, cols[0].Len())
		for i := range want {
			want[i] = "null"
		}
		bothForms(t, "bucket of no values", "BucketFunction$BucketInt", "integer", []string{litInt(16), col(0, "integer")}, cols, want...)
		bothForms(t, "truncate of no values", "TruncateFunction$TruncateInt", "integer", []string{litInt(16), col(0, "integer")}, cols, want...)
	}
	bothForms(t, "bucket of a literal", "BucketFunction$BucketInt", "integer", []string{litInt(16), litInt(34)},
		[]arrow.Array{column(t, "integer", 1, 2)}, "3", "3")
	bothForms(t, "truncate of a literal string", "TruncateFunction$TruncateString", "string", []string{litInt(2), litStr("日本語")},
		[]arrow.Array{column(t, "integer", 1)}, "日本")
	// A short bucket count (Spark would have cast it, but a literal of any int width is read right).
	bothForms(t, "bucket(16S, v)", "BucketFunction$BucketInt", "integer", []string{lit("short", "16"), col(0, "integer")},
		[]arrow.Array{column(t, "integer", 34)}, "3")
	// Strings: code points, not bytes.
	bothForms(t, "truncate(2, utf8)", "TruncateFunction$TruncateString", "string", []string{litInt(2), col(0, "string")},
		[]arrow.Array{column(t, "string", "éé", "aé€", "😀😀😀", "", "x")}, "éé", "aé", "😀😀", "", "x")
	// Invalid UTF-8 (which Spark strings may hold) counts code points by their first byte, as
	// UTF8String does; a code point cut off by the end ends the prefix there.
	for _, c := range []struct {
		s    string
		w, n int
	}{{"\x80\x80", 1, 1}, {"a\xf0\x9f", 2, 3}, {"\xf0\x9f", 1, 2}, {"\xe2\x82\xacz", 1, 3}, {"\xc1\x81", 1, 1}} {
		if got := utf8Prefix([]byte(c.s), c.w); got != c.n {
			t.Errorf("utf8Prefix(%q, %d) = %d, want %d", c.s, c.w, got, c.n)
		}
	}

	// Refusals, with reasons naming the transform.
	expectRefused(t, "bucket count 0", staticInvokeJSON("BucketFunction$BucketInt", "integer", litInt(0), col(0, "integer")),
		"number of buckets must be positive, not 0")
	expectRefused(t, "negative width", applyJSON("TruncateFunction$TruncateString", "string", litInt(-3), col(0, "string")),
		"width must be positive, not -3")
	expectRefused(t, "bucket count from a column", staticInvokeJSON("BucketFunction$BucketInt", "integer", col(1, "integer"), col(0, "integer")),
		"number of buckets must be an int literal")
	expectRefused(t, "bucket of a double", staticInvokeJSON("BucketFunction$BucketInt", "integer", litInt(4), col(0, "double")),
		"Iceberg bucket (BucketFunction$BucketInt) of double is not supported natively")
	expectRefused(t, "hours of a date", staticInvokeJSON("HoursFunction$TimestampToHoursFunction", "integer", col(0, "date")),
		"Iceberg hours (HoursFunction$TimestampToHoursFunction) of date")
	expectRefused(t, "wrong result type", staticInvokeJSON("DaysFunction$TimestampToDaysFunction", "integer", col(0, "timestamp")),
		"returning integer is not supported natively (expected date)")
	expectRefused(t, "wrong arity", staticInvokeJSON("BucketFunction$BucketInt", "integer", col(0, "integer")),
		"called with 1 arguments, expected 2")
	expectRefused(t, "another class", `{"class":"org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke","dataType":"string","nullable":true,"fields":{`+
		`"staticObject":"org.apache.spark.unsafe.types.ByteArray","functionName":"lpad","arguments":[]}}`,
		"StaticInvoke of ByteArray.lpad is not supported natively")
	expectRefused(t, "another function", `{"class":"`+pkg+`ApplyFunctionExpression","dataType":"integer","nullable":true,"fields":{`+
		`"function":{"class":"com.example.MyFunction","fields":{"name":"my","canonicalName":null}},"children":[]}}`,
		"ApplyFunctionExpression of MyFunction is not supported natively")
	expectRefused(t, "class not encoded", `{"class":"org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke","dataType":"integer","nullable":true,"fields":{`+
		`"staticObject":{"unsupported":"java.lang.Class"},"functionName":"invoke","arguments":[]}}`,
		"the called class is not known")
}

// TestIcebergFallibleValue: the value is evaluated only on the rows Spark evaluates it on.
func TestIcebergFallibleValue(t *testing.T) {
	// bucket(16, a + b) in ANSI mode under a CASE that skips the overflowing row.
	add := arithJSON("Add", "integer", "ANSI", col(0, "integer"), col(1, "integer"))
	bucket := staticInvokeJSON("BucketFunction$BucketInt", "integer", litInt(16), add)
	cond := node("GreaterThan", "boolean", "left", col(0, "integer"), "right", litInt(0))
	got, err := run(t, caseJSON("integer", litInt(-1), cond, bucket),
		column(t, "integer", 1, math.MinInt32), column(t, "integer", 33, -1))
	expectRows(t, "bucket under CASE", got, err, "3", "-1")
	got, err = run(t, bucket, column(t, "integer", 1, math.MinInt32), column(t, "integer", 33, -1))
	if _, ok := exec.AsSparkError(err); !ok {
		t.Errorf("bucket of an overflowing sum: want Spark's overflow error, got %v %v", got, err)
	}
}

func BenchmarkIcebergTransforms(b *testing.B) {
	ts := func() arrow.Array {
		tb := array.NewTimestampBuilder(memory.NewTaskAllocator(nil), sparktype.TimestampArrowType)
		for i := 0; i < benchRows; i++ {
			tb.Append(arrow.Timestamp(int64(i-benchRows/2) * 3_600_000_123))
		}
		return tb.NewArray()
	}
	for _, c := range []struct {
		name, js string
		col      func() arrow.Array
	}{
		{"bucket long", staticInvokeJSON("BucketFunction$BucketLong", "integer", litInt(16), col(0, "long")), func() arrow.Array { return benchInt64(benchRows, true) }},
		{"bucket decimal(38,2)", staticInvokeJSON("BucketFunction$BucketDecimal", "integer", litInt(16), col(0, "decimal(38,2)")), func() arrow.Array { return benchDecimal(benchRows, 38, 2) }},
		{"truncate long", staticInvokeJSON("TruncateFunction$TruncateBigInt", "long", litInt(100), col(0, "long")), func() arrow.Array { return benchInt64(benchRows, false) }},
		{"truncate decimal(38,2)", staticInvokeJSON("TruncateFunction$TruncateDecimal", "decimal(38,2)", litInt(100), col(0, "decimal(38,2)")), func() arrow.Array { return benchDecimal(benchRows, 38, 2) }},
		{"hours timestamp", staticInvokeJSON("HoursFunction$TimestampToHoursFunction", "integer", col(0, "timestamp")), ts},
		{"months timestamp", staticInvokeJSON("MonthsFunction$TimestampToMonthsFunction", "integer", col(0, "timestamp")), ts},
	} {
		b.Run(c.name, func(b *testing.B) { benchEval(b, c.js, c.col()) })
	}
}
