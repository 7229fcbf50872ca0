package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func padJSON(class, str, len, pad string) string {
	return node(class, "string", "str", str, "len", len, "pad", pad)
}

func TestPad(t *testing.T) {
	// Every case follows UTF8String.lpad/rpad of Spark 4.1.
	cases := []struct {
		str        any
		len        any
		pad        any
		lpad, rpad string
	}{
		{"hi", 5, "??", "???hi", "hi???"},
		{"hi", 1, "??", "h", "h"},
		{"hi", 5, " ", "   hi", "hi   "},
		{"hi", 2, "x", "hi", "hi"},
		{"hi", 0, "x", "", ""},
		{"hi", -5, "x", "", ""},
		{"hi", 5, "", "hi", "hi"}, // empty pad: no padding
		{"hello", 3, "", "hel", "hel"},
		{"", 3, "ab", "aba", "aba"},
		{"", 0, "ab", "", ""},
		{"héllo", 7, "ü", "üühéllo", "héllüü"[:0] + "hélloüü"},
		{"héllo", 2, "ü", "hé", "hé"},
		{"😀", 4, "ab", "aba😀", "😀aba"},
		{"x", 6, "😀é", "😀é😀é😀x", "x😀é😀é😀"},
		{nil, 5, "x", "null", "null"},
		{"hi", nil, "x", "null", "null"},
		{"hi", 5, nil, "null", "null"},
		{"hi", math.MaxInt32, "", "hi", "hi"},
	}
	var strs, lens, pads []any
	var wl, wr []string
	for _, c := range cases {
		strs, lens, pads = append(strs, c.str), append(lens, c.len), append(pads, c.pad)
		wl, wr = append(wl, c.lpad), append(wr, c.rpad)
	}
	for _, class := range []string{"StringLPad", "StringRPad"} {
		want := wl
		if class == "StringRPad" {
			want = wr
		}
		got, err := run(t, padJSON(class, col(0, "string"), col(1, "integer"), col(2, "string")),
			column(t, "string", strs...), column(t, "integer", lens...), column(t, "string", pads...))
		expectRows(t, class, got, err, want...)
	}
	// Literal len and pad (Spark's usual form), a null literal, an empty batch.
	in := column(t, "string", "abc", "", nil, "abcdef")
	got, err := run(t, padJSON("StringLPad", col(0, "string"), litInt(5), litStr("-")), in)
	expectRows(t, "lpad literals", got, err, "--abc", "-----", "null", "abcde")
	got, err = run(t, padJSON("StringRPad", col(0, "string"), litInt(5), lit("string", "null")), in)
	expectRows(t, "rpad null pad", got, err, "null", "null", "null", "null")
	got, err = run(t, padJSON("StringRPad", col(0, "string"), litInt(5), litStr("x")), column(t, "string"))
	expectRows(t, "empty batch", got, err)
	// Invalid UTF-8: code points counted by their first byte.
	got, err = runRaw(t, padJSON("StringLPad", col(0, "string"), litInt(3), litStr("\xff")), column(t, "string", "\xe2a", "a\x80"))
	expectRows(t, "invalid utf-8", got, err, "\xff\xff\xe2a", "\xffa\x80")
	expectRefused(t, "lpad long len", padJSON("StringLPad", col(0, "string"), col(1, "long"), litStr("x")), "int expected")
}

// TestPadConstantRun checks the padding copied from a literal pad's run against the same pad as a
// column (padded pad by pad), on both sides of the run's 256 bytes: pads of 1 to 257 bytes
// (ASCII and multi-byte) and lengths whose padding ends just before, at and after the run's end.
func TestPadConstantRun(t *testing.T) {
	strs := []any{"", "7", "abc", "héllo", "😀x", nil}
	for _, pad := range []string{"0", "ab", "é", "😀é", strings.Repeat("x", 85), strings.Repeat("y", 128),
		strings.Repeat("z", 255), strings.Repeat("w", 256), strings.Repeat("v", 257), strings.Repeat("ü", 100)} {
		for _, n := range []int{0, 1, 2, 5, 12, 40, 127, 128, 129, 254, 255, 256, 257, 258, 300, 600} {
			var pads, ins []any
			for _, s := range strs {
				ins, pads = append(ins, s), append(pads, pad)
			}
			for _, class := range []string{"StringLPad", "StringRPad"} {
				want, err := run(t, padJSON(class, col(0, "string"), litInt(int64(n)), col(1, "string")),
					column(t, "string", ins...), column(t, "string", pads...))
				if err != nil {
					t.Fatal(err)
				}
				got, err := run(t, padJSON(class, col(0, "string"), litInt(int64(n)), litStr(pad)), column(t, "string", ins...))
				expectRows(t, fmt.Sprintf("%s(_, %d, %d-byte pad)", class, n, len(pad)), got, err, want...)
			}
		}
	}
	got, err := run(t, padJSON("StringLPad", col(0, "string"), litInt(300), litStr("0")), column(t, "string", "1"))
	expectRows(t, "lpad past the run", got, err, strings.Repeat("0", 299)+"1")
}

// TestPadMatchesCharCount checks lpad and rpad, whose kernel counts a string's characters only
// when its first len characters leave no bytes over, against padding computed from the whole
// string's character count (the algorithm of UTF8String.lpad/rpad), over random strings of ASCII,
// multi-byte characters, stray continuation bytes and a truncated last code point, lengths from
// -2 to 30, and pads empty, ASCII and multi-byte, both literal and per row.
func TestPadMatchesCharCount(t *testing.T) {
	pieces := []string{"a", "b", "7", " ", "é", "ü", "😀", "日", "\x80", "\xe2", "\xff"}
	pads := []string{"", "*", "0", "ab", "é", "😀é", "xyz"}
	rng := rand.New(rand.NewSource(9))
	ref := func(s string, length int, pad string, left bool) string {
		spaces := length - numChars([]byte(s))
		if spaces <= 0 || pad == "" {
			return string(prefixChars([]byte(s), length))
		}
		pc := numChars([]byte(pad))
		count := spaces / pc
		fill := strings.Repeat(pad, count) + string(prefixChars([]byte(pad), spaces-pc*count))
		if left {
			return fill + s
		}
		return s + fill
	}
	var strs, lens, padCol []any
	for range 3000 {
		var sb strings.Builder
		for k := rng.Intn(14); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		strs = append(strs, sb.String())
		lens = append(lens, rng.Intn(33)-2)
		padCol = append(padCol, pads[rng.Intn(len(pads))])
	}
	for _, class := range []string{"StringLPad", "StringRPad"} {
		left := class == "StringLPad"
		var want []string
		for i := range strs {
			want = append(want, ref(strs[i].(string), lens[i].(int), padCol[i].(string), left))
		}
		got, err := runRaw(t, padJSON(class, col(0, "string"), col(1, "integer"), col(2, "string")),
			column(t, "string", strs...), column(t, "integer", lens...), column(t, "string", padCol...))
		expectRows(t, class+" columns", got, err, want...)
		for _, pad := range pads {
			for _, n := range []int{-1, 0, 1, 3, 8, 12, 30} {
				want = want[:0]
				for _, s := range strs {
					want = append(want, ref(s.(string), n, pad, left))
				}
				got, err := runRaw(t, padJSON(class, col(0, "string"), litInt(int64(n)), litStr(pad)), column(t, "string", strs...))
				expectRows(t, fmt.Sprintf("%s(_, %d, %q)", class, n, pad), got, err, want...)
			}
		}
	}
}
