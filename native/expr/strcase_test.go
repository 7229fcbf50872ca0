package expr

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/plan"
)

func TestUpperLowerInitCap(t *testing.T) {
	un := func(class string) string { return node(class, "string", "child", col(0, "string")) }
	in := column(t, "string", "Spark SQL", "", nil, "straße", "ŉ", "ΐ", "\xff", "éa", "😀x", "ǆ", "ﬃ",
		"\xed\xa0\x80", "\xe2\x82", "İ", "\u212A", "ΑΣ", "Σ", "ΑΣ Β", "ΑΣΑ", "Α'Σ", "ΑΣ'Α", "hello  wORLD", "a\tb",
		"😀 é", "ΑΣ ΒΣ", "ǆa ǆ", "ßa", "İx", "\xffb c", "ȺȾ", "𐐀", "ꭰ", " x")
	got, err := runRaw(t, un("Upper"), in)
	expectRows(t, "upper", got, err, "SPARK SQL", "", "null", "STRASSE", "ʼN", "\u0399\u0308\u0301", "\uFFFD", "ÉA", "😀X", "Ǆ",
		"FFI", "\uFFFD\uFFFD\uFFFD", "\uFFFD", "İ", "\u212A", "ΑΣ", "Σ", "ΑΣ Β", "ΑΣΑ", "Α'Σ", "ΑΣ'Α", "HELLO  WORLD", "A\tB",
		"😀 É", "ΑΣ ΒΣ", "ǄA Ǆ", "SSA", "İX", "\uFFFDB C", "ȺȾ", "𐐀", "Ꭰ", " X")
	got, err = runRaw(t, un("Lower"), in)
	expectRows(t, "lower", got, err, "spark sql", "", "null", "straße", "ŉ", "ΐ", "\uFFFD", "éa", "😀x", "ǆ",
		"ﬃ", "\uFFFD\uFFFD\uFFFD", "\uFFFD", "i\u0307", "k", "ας", "σ", "ας β", "ασα", "α'ς", "ασ'α", "hello  world", "a\tb",
		"😀 é", "ας βς", "ǆa ǆ", "ßa", "i\u0307x", "\uFFFDb c", "ⱥⱦ", "𐐨", "ꭰ", " x")
	got, err = runRaw(t, un("InitCap"), in)
	expectRows(t, "initcap", got, err, "Spark Sql", "", "null", "Straße", "ʼN", "\u0399\u0308\u0301", "\uFFFD", "Éa", "😀x", "ǅ",
		"Ffi", "\uFFFD\uFFFD\uFFFD", "\uFFFD", "İ", "\u212A", "Ας", "Σ", "Ας Β", "Ασα", "Α'ς", "Ασ'α", "Hello  World", "A\tb",
		"😀 É", "Ας Βς", "ǅa ǅ", "Ssa", "İx", "\uFFFDb C", "Ⱥⱦ", "𐐀", "Ꭰ", " X")
	// An ASCII-only batch takes the bytewise path.
	got, err = run(t, un("InitCap"), column(t, "string", "abc def", nil, "", " X y", "a-b c_d"))
	expectRows(t, "initcap ascii", got, err, "Abc Def", "null", "", " X Y", "A-b C_d")
	got, err = run(t, un("Upper"), column(t, "string", "abc def", nil, "", "\x00z~"))
	expectRows(t, "upper ascii", got, err, "ABC DEF", "null", "", "\x00Z~")
	e := parse(t, un("Lower"))
	if _, err := Translate(e, &plan.Conf{Settings: map[string]string{icuCaseMappingsKey: "false"}}); err == nil || !strings.Contains(err.Error(), "JVM's case mappings") {
		t.Fatalf("lower with ICU case mappings off: %v, want a refusal", err)
	}
	expectRefused(t, "upper collated", node("Upper", "string collate UTF8_LCASE", "child", col(0, "string collate UTF8_LCASE")), "not supported natively")
}

// TestCaseTablesCoverEveryCodePoint checks the tables against themselves on every code point:
// a one-code-point string maps as its table entry says, whatever path runs (the batch is not
// ASCII), and the growth bound holds.
func TestCaseTablesCoverEveryCodePoint(t *testing.T) {
	var vals []any
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		vals = append(vals, string(r))
	}
	in := column(t, "string", vals...)
	up, err := runRaw(t, node("Upper", "string", "child", col(0, "string")), in)
	if err != nil {
		t.Fatal(err)
	}
	lo, err := runRaw(t, node("Lower", "string", "child", col(0, "string")), in)
	if err != nil {
		t.Fatal(err)
	}
	want := func(ms []caseMapping) map[string]string {
		m := map[string]string{}
		for _, x := range ms {
			m[string(x.cp)] = x.to
		}
		return m
	}
	wu, wl := want(icuUpper), want(icuLower)
	for i, v := range vals {
		s := v.(string)
		eu, ok := wu[s]
		if !ok {
			eu = s
		}
		el, ok := wl[s]
		if !ok {
			el = s
		}
		if up[i] != eu || lo[i] != el {
			t.Fatalf("%U: upper %q lower %q, want %q %q", []rune(s)[0], up[i], lo[i], eu, el)
		}
		if len(up[i]) > caseMaxGrowth*len(s) || len(lo[i]) > caseMaxGrowth*len(s) {
			t.Fatalf("%U grows past caseMaxGrowth", []rune(s)[0])
		}
	}
	if !strings.HasPrefix(icuCaseVersion, "77.") {
		t.Fatalf("case tables from ICU %s, Spark 4.1.3 ships 77.1", icuCaseVersion)
	}
}

// TestCaseMappingRunsMatchRowByRow checks the batch paths of upper, lower and initcap (runs of
// ASCII rows mapped eight bytes at a time between rows with multi-byte characters, or a whole
// ASCII batch) against a row-by-row reference: an ASCII row mapped byte by byte as
// UTF8String.toUpperCase/toLowerCase/toTitleCaseAscii do, any other row by the code point path.
// Rows mix letters of both cases, spaces (also first and last, and at every position of an
// 8-byte word), punctuation next to the letters' bounds (@ [ ` {), multi-byte and invalid
// UTF-8, empty rows and nulls, in batches that are ASCII only or not, sliced at odd offsets.
func TestCaseMappingRunsMatchRowByRow(t *testing.T) {
	initCapASCII := func(s []byte) []byte {
		dst := make([]byte, len(s))
		prev := byte(' ')
		for j, c := range s {
			l := asciiLower[c]
			if prev == ' ' {
				dst[j] = asciiUpper[l]
			} else {
				dst[j] = l
			}
			prev = l
		}
		return dst
	}
	ref := func(kind caseKind, s []byte) []byte {
		if isASCII(s) {
			switch kind {
			case caseUpper:
				return bytes.Map(func(r rune) rune { return rune(asciiUpper[r]) }, s)
			case caseLower:
				return bytes.Map(func(r rune) rune { return rune(asciiLower[r]) }, s)
			}
			return initCapASCII(s)
		}
		dst := make([]byte, len(s)*caseMaxGrowth)
		switch kind {
		case caseUpper:
			return dst[:upperSlow(dst, s)]
		case caseLower:
			return dst[:lowerSlow(dst, s)]
		}
		return dst[:initCapSlow(dst, s)]
	}
	ascii := []string{"a", "z", "A", "Z", "m", "Q", " ", " ", "@", "[", "`", "{", "0", "-", "\x00", "\x7f", "hello wORLD", "AbCdEfGh"}
	multi := []string{"é", "Σ", "ß", "İ", "😀", "\xff", "\xe2\x82", "ǆ", "ΑΣ"}
	rng := rand.New(rand.NewSource(11))
	for round := 0; round < 300; round++ {
		rows := 1 + rng.Intn(60)
		mbRate := []int{0, 3, 16, 100}[round%4]
		var vals []any
		for range rows {
			if rng.Intn(12) == 0 {
				vals = append(vals, nil)
				continue
			}
			var sb strings.Builder
			for range rng.Intn(30) {
				if mbRate > 0 && rng.Intn(mbRate) == 0 {
					sb.WriteString(multi[rng.Intn(len(multi))])
				} else {
					sb.WriteString(ascii[rng.Intn(len(ascii))])
				}
			}
			vals = append(vals, sb.String())
		}
		full := column(t, "string", vals...)
		off := rng.Intn(min(rows, 5))
		in := array.NewSlice(full, int64(off), int64(rows))
		full.Release()
		for kind, class := range []string{"Upper", "Lower", "InitCap"} {
			e := mustTranslate(t, node(class, "string", "child", col(0, "string")))
			ctx := newCtx()
			out, err := e.Eval(ctx, batch(in))
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*array.String)
			for i := 0; i < in.Len(); i++ {
				if in.IsNull(i) {
					if !got.IsNull(i) {
						t.Fatalf("%s round %d row %d: null in, %q out", class, round, i, got.Value(i))
					}
					continue
				}
				s := []byte(in.(*array.String).Value(i))
				if w, g := ref(caseKind(kind), s), []byte(got.Value(i)); !bytes.Equal(w, g) {
					t.Fatalf("%s round %d row %d of %q: %q, want %q", class, round, i, s, g, w)
				}
			}
			out.Release()
			if ctx.Alloc.Used() != 0 {
				t.Fatalf("%s: %d bytes leaked", class, ctx.Alloc.Used())
			}
		}
		in.Release()
	}
}
