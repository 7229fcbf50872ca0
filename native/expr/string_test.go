package expr

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func litBin(b []byte) string {
	return lit("binary", fmt.Sprintf(`{"b64":%q}`, base64.StdEncoding.EncodeToString(b)))
}

func TestStringPredicates(t *testing.T) {
	l := []any{"héllo😀", "héllo😀", "", "", "abc", nil, "abc", "a\xffb"}
	r := []any{"hé", "😀", "", "a", "", "a", nil, "\xff"}
	for _, c := range []struct {
		class string
		want  []string
	}{
		{"StartsWith", s("true", "false", "true", "false", "true", "null", "null", "false")},
		{"EndsWith", s("false", "true", "true", "false", "true", "null", "null", "false")},
		{"Contains", s("true", "true", "true", "false", "true", "null", "null", "true")},
	} {
		js := node(c.class, "boolean", "left", col(0, "string"), "right", col(1, "string"))
		got, err := run(t, js, column(t, "string", l...), column(t, "string", r...))
		expectRows(t, c.class+" columns", got, err, c.want...)
	}
	// Literal right side (the fast path), literal left side, null literals, empty batches.
	in := column(t, "string", "abcabc", "", "xabc", "ab", nil, "ÀBC")
	for _, c := range []struct {
		name, js string
		want     []string
	}{
		{"startswith lit", node("StartsWith", "boolean", "left", col(0, "string"), "right", litStr("ab")), s("true", "false", "false", "true", "null", "false")},
		{"endswith lit", node("EndsWith", "boolean", "left", col(0, "string"), "right", litStr("bc")), s("true", "false", "true", "false", "null", "false")},
		{"contains lit", node("Contains", "boolean", "left", col(0, "string"), "right", litStr("ca")), s("true", "false", "false", "false", "null", "false")},
		{"contains empty lit", node("Contains", "boolean", "left", col(0, "string"), "right", litStr("")), s("true", "true", "true", "true", "null", "true")},
		{"bytewise, no case folding", node("StartsWith", "boolean", "left", col(0, "string"), "right", litStr("À")), s("false", "false", "false", "false", "null", "true")},
		{"null lit", node("EndsWith", "boolean", "left", col(0, "string"), "right", lit("string", "null")), s("null", "null", "null", "null", "null", "null")},
		{"lit left", node("Contains", "boolean", "left", litStr("xabcx"), "right", col(0, "string")), s("false", "true", "true", "true", "null", "false")},
	} {
		got, err := run(t, c.js, in)
		expectRows(t, c.name, got, err, c.want...)
	}
	got, err := run(t, node("StartsWith", "boolean", "left", col(0, "string"), "right", litStr("a")), column(t, "string"))
	expectRows(t, "empty batch", got, err)
}

func TestStringRefusals(t *testing.T) {
	expectRefused(t, "collated left", node("StartsWith", "boolean", "left", col(0, "string collate UTF8_LCASE"), "right", litStr("a")), "not supported natively")
	expectRefused(t, "binary", node("Contains", "boolean", "left", col(0, "binary"), "right", col(1, "binary")), "UTF8_BINARY")
	expectRefused(t, "substring long pos", node("Substring", "string", "str", col(0, "string"), "pos", col(1, "long"), "len", litInt(1)), "int expected")
	expectRefused(t, "length of int", node("Length", "integer", "child", col(0, "integer")), "Length of integer")
}

func substrJSON(typ, str, pos, len string) string {
	return node("Substring", typ, "str", str, "pos", pos, "len", len)
}

func TestSubstring(t *testing.T) {
	const maxI, minI = math.MaxInt32, math.MinInt32
	// Every case is checked against UTF8String.substringSQL of Spark 4.1.
	cases := []struct {
		str      any
		pos, len any
		want     string
	}{
		{"Spark SQL", 5, maxI, "k SQL"},
		{"Spark SQL", -3, maxI, "SQL"},
		{"Spark SQL", 5, 1, "k"},
		{"abc", 0, 2, "ab"},    // 0 is taken as 1
		{"abc", 1, 2, "ab"},    //
		{"abc", -5, 3, "a"},    // start -2, end 1: counted from 0
		{"abc", -100, 3, ""},   // end <= 0
		{"abc", 4, 1, ""},      // past the end
		{"abc", 2, 0, ""},      // len 0
		{"abc", 2, -1, ""},     // len < 0
		{"abc", 2, maxI, "bc"}, // start + len saturates
		{"abc", minI, maxI, "ab"},
		{"abc", -1, minI, ""},
		{"abc", maxI, maxI, ""},
		{"", 1, 1, ""},
		{"", 0, 0, ""},
		{"héllo😀", 2, 3, "éll"},
		{"héllo😀", -1, 1, "😀"},
		{"héllo😀", 6, 5, "😀"},
		{"héllo😀", -6, 2, "hé"},
		{"😀😀", 2, 1, "😀"},
		{nil, 1, 1, "null"},
		{"abc", nil, 1, "null"},
		{"abc", 1, nil, "null"},
	}
	var strs, poss, lens []any
	var want []string
	for _, c := range cases {
		strs, poss, lens = append(strs, c.str), append(poss, c.pos), append(lens, c.len)
		want = append(want, c.want)
	}
	js := substrJSON("string", col(0, "string"), col(1, "integer"), col(2, "integer"))
	got, err := run(t, js, column(t, "string", strs...), column(t, "integer", poss...), column(t, "integer", lens...))
	expectRows(t, "substring columns", got, err, want...)

	// ASCII batches take the byte-index path: same answers.
	in := column(t, "string", "Spark SQL", "", "abc", nil)
	for _, c := range []struct {
		name     string
		pos, len string
		want     []string
	}{
		{"pos 5", litInt(5), litInt(maxI), s("k SQL", "", "", "null")},
		{"pos -3 len 2", litInt(-3), litInt(2), s("SQ", "", "ab", "null")},
		{"pos -10 len 9", litInt(-10), litInt(9), s("Spark SQ", "", "ab", "null")},
		{"pos 0 len 1", litInt(0), litInt(1), s("S", "", "a", "null")},
		{"huge", litInt(minI), litInt(maxI), s("Spark SQ", "", "ab", "null")},
		{"null pos", lit("integer", "null"), litInt(1), s("null", "null", "null", "null")},
	} {
		got, err := run(t, substrJSON("string", col(0, "string"), c.pos, c.len), in)
		expectRows(t, "ascii "+c.name, got, err, c.want...)
	}
	// Invalid UTF-8: UTF8String counts a code point by the length its first byte announces.
	got, err = runRaw(t, js, column(t, "string", "\xe2ab", "a\xffb", "\xe2\x82x"), column(t, "integer", 1, 2, 2), column(t, "integer", 1, 1, 5))
	expectRows(t, "invalid utf-8", got, err, "\xe2ab", "\xff", "")
	got, err = run(t, substrJSON("string", litStr("héllo"), col(0, "integer"), litInt(2)), column(t, "integer", 1, 2, -2, 0, nil))
	expectRows(t, "literal str", got, err, "hé", "él", "lo", "hé", "null")
	got, err = run(t, substrJSON("string", col(0, "string"), litInt(1), litInt(1)), column(t, "string"))
	expectRows(t, "empty batch", got, err)
}

func TestSubstringBinary(t *testing.T) {
	const maxI, minI = math.MaxInt32, math.MinInt32
	b := []byte{1, 2, 3}
	in := column(t, "binary", b, []byte{}, nil, []byte{0xff, 0xfe})
	for _, c := range []struct {
		name     string
		pos, len int
		want     []string
	}{
		{"pos 2", 2, maxI, s("0203", "", "null", "fe")},
		{"pos -1 len 1", -1, 1, s("03", "", "null", "fe")},
		{"pos 0 len 2", 0, 2, s("0102", "", "null", "fffe")},
		{"pos 5", 5, 1, s("", "", "null", "")},
		{"pos -5 len 3", -5, 3, s("01", "", "null", "")},
		{"len -1", 1, -1, s("", "", "null", "")},
		// ByteArray.subStringSQL: length - start overflows for pos = Integer.MIN_VALUE, so the
		// end becomes the array's length (Spark 4.1 returns the whole array).
		{"pos min", minI, 1, s("010203", "", "null", "fffe")},
	} {
		got, err := run(t, substrJSON("binary", col(0, "binary"), litInt(int64(c.pos)), litInt(int64(c.len))), in)
		expectRows(t, "binary "+c.name, got, err, c.want...)
	}
	got, err := run(t, substrJSON("binary", litBin(b), col(0, "integer"), col(1, "integer")), column(t, "integer", 1, 3, nil), column(t, "integer", 2, 1, 1))
	expectRows(t, "binary literal", got, err, "0102", "03", "null")
	// start -2 plus Integer.MIN_VALUE wraps to a huge end: Spark would pad a ~2 GB copy.
	_, err = run(t, substrJSON("binary", col(0, "binary"), litInt(-5), litInt(minI)), column(t, "binary", b))
	if err == nil {
		t.Errorf("binary wrap: want an error")
	}
	got, err = run(t, substrJSON("binary", col(0, "binary"), litInt(-5), litInt(minI)), column(t, "binary", nil))
	expectRows(t, "binary wrap on null row", got, err, "null")
}

func TestLength(t *testing.T) {
	got, err := run(t, node("Length", "integer", "child", col(0, "string")),
		column(t, "string", "", "abc", "héllo😀", nil, "\xe2ab", "\xff\xff", "é\n"))
	// "\xe2ab": E2 announces 3 bytes, so UTF8String.numChars counts 1.
	expectRows(t, "length string", got, err, "0", "3", "6", "null", "1", "2", "2")
	got, err = run(t, node("Length", "integer", "child", col(0, "string")), column(t, "string", "abc", "", nil))
	expectRows(t, "length ascii", got, err, "3", "0", "null")
	got, err = run(t, node("Length", "integer", "child", col(0, "binary")), column(t, "binary", []byte{}, []byte("héllo"), nil))
	expectRows(t, "length binary", got, err, "0", "6", "null")
	got, err = run(t, node("Length", "integer", "child", litStr("😀é")), column(t, "integer", 1, 2))
	expectRows(t, "length literal", got, err, "2", "2")
	got, err = run(t, node("Length", "integer", "child", col(0, "string")), column(t, "string"))
	expectRows(t, "length empty batch", got, err)
}

// runRaw is run without the UTF-8 validation of string results (Spark strings may hold any
// bytes).
func runRaw(t *testing.T, js string, cols ...arrow.Array) ([]string, error) {
	t.Helper()
	e := mustTranslate(t, js)
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(cols...))
	if err != nil {
		return nil, err
	}
	rows := showAll(out)
	out.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
	}
	return rows, nil
}

// TestNumCharsASCIIPrefix checks numChars and prefixChars, which skip an ASCII prefix eight bytes
// at a time, against UTF8String's walk by first-byte width over strings mixing ASCII, valid
// multi-byte and invalid bytes at every position.
func TestNumCharsASCIIPrefix(t *testing.T) {
	walk := func(s []byte, limit int) (chars, end int) {
		i := 0
		for i < len(s) && chars < limit {
			i += int(utf8Width[s[i]])
			chars++
		}
		return chars, min(i, len(s))
	}
	pieces := [][]byte{[]byte("a"), []byte("hello wo"), []byte("é"), []byte("😀"), {0xe0}, {0x80}, {0xff}, {0xf0, 'x'}, []byte("12345678")}
	r := rand.New(rand.NewSource(3))
	for range 20000 {
		var s []byte
		for range r.Intn(8) {
			s = append(s, pieces[r.Intn(len(pieces))]...)
		}
		if got, _ := walk(s, math.MaxInt); numChars(s) != got {
			t.Fatalf("numChars(%q) = %d, want %d", s, numChars(s), got)
		}
		for n := -1; n <= len(s)+1; n++ {
			_, end := walk(s, n)
			if got := prefixChars(s, n); len(got) != end {
				t.Fatalf("prefixChars(%q, %d) = %q, want %q", s, n, got, s[:end])
			}
		}
	}
}
