package expr

import (
	"strings"
	"testing"
	"unicode/utf8"

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
