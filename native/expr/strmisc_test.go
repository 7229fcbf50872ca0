package expr

import (
	"math"
	"testing"
)

func TestStringMisc(t *testing.T) {
	str := column(t, "string", "Spark", "", nil, "é", "😀x", "\xffa", "\xe2", "\xed\xa0\x80")
	un := func(class, typ string) string { return node(class, typ, "child", col(0, "string")) }
	got, err := runRaw(t, un("Ascii", "integer"), str)
	expectRows(t, "ascii", got, err, "83", "0", "null", "233", "128512", "65533", "65533", "65533")
	got, err = runRaw(t, un("Reverse", "string"), str)
	expectRows(t, "reverse", got, err, "krapS", "", "null", "é", "x😀", "a\xff", "\xe2", "\xed\xa0\x80")
	got, err = run(t, un("Reverse", "string"), column(t, "string", "héllo😀", "ab", "abc"))
	expectRows(t, "reverse utf-8", got, err, "😀olléh", "ba", "cba")
	got, err = run(t, un("SoundEx", "string"), column(t, "string", "Miller", "", nil, "Robert", "Rupert", "Tymczak", "Pfister", "Honeyman", "1abc", "é", "a", "Ashcraft", "Lloyd", "b-b-b", "Aeiou"))
	expectRows(t, "soundex", got, err, "M460", "", "null", "R163", "R163", "T522", "P236", "H555", "1abc", "é", "A000", "A261", "L300", "B110", "A000")
	got, err = runRaw(t, un("Hex", "string"), str)
	expectRows(t, "hex string", got, err, "537061726B", "", "null", "C3A9", "F09F988078", "FF61", "E2", "EDA080")
	got, err = run(t, node("Hex", "string", "child", col(0, "binary")), column(t, "binary", []byte{0, 0xab, 0x10}, []byte{}, nil))
	expectRows(t, "hex binary", got, err, "00AB10", "", "null")
	longs := column(t, "long", 0, 17, -1, int64(math.MinInt64), 255, nil, 13, -13)
	got, err = run(t, node("Hex", "string", "child", col(0, "long")), longs)
	expectRows(t, "hex long", got, err, "0", "11", "FFFFFFFFFFFFFFFF", "8000000000000000", "FF", "null", "D", "FFFFFFFFFFFFFFF3")
	got, err = run(t, node("Bin", "string", "child", col(0, "long")), longs)
	expectRows(t, "bin", got, err, "0", "10001", "1111111111111111111111111111111111111111111111111111111111111111",
		"1000000000000000000000000000000000000000000000000000000000000000", "11111111", "null", "1101",
		"1111111111111111111111111111111111111111111111111111111111110011")
	got, err = run(t, node("Chr", "string", "child", col(0, "long")), column(t, "long", 65, 0, -1, 256+65, 233, 255, nil, int64(math.MinInt64), int64(math.MaxInt64)))
	expectRows(t, "chr", got, err, "A", "\x00", "", "A", "é", "ÿ", "null", "", "ÿ")
	got, err = run(t, node("Unhex", "binary", "child", col(0, "string"), "failOnError", "false"),
		column(t, "string", "537061726B", "", nil, "aBc", "A", "0g", "é", "1 2", "F"))
	expectRows(t, "unhex", got, err, "537061726b", "", "null", "0abc", "0a", "null", "null", "null", "0f")
	expectRefused(t, "unhex failOnError", node("Unhex", "binary", "child", col(0, "string"), "failOnError", "true"), "failOnError")
	expectRefused(t, "hex double", node("Hex", "string", "child", col(0, "double")), "not supported natively")
	expectRefused(t, "reverse array", node("Reverse", "array<integer>", "child", col(0, "array<integer>")), "not supported natively")
}

func TestLocate(t *testing.T) {
	loc := func(q, s, st string) string {
		return node("StringLocate", "integer", "substr", q, "str", s, "start", st)
	}
	cases := []struct {
		q, s  any
		start any
		want  string
	}{
		{"bar", "foobarbar", 1, "4"},
		{"bar", "foobarbar", 5, "7"},
		{"bar", "foobarbar", 8, "0"},
		{"bar", "foobarbar", 0, "0"},
		{"bar", "foobarbar", -1, "0"},
		{"bar", "foobarbar", nil, "0"}, // a null start gives 0
		{nil, "foobarbar", nil, "0"},
		{nil, "foobarbar", 1, "null"},
		{"bar", nil, 1, "null"},
		{"bar", nil, 0, "null"},
		{"", "abc", 1, "1"},
		{"", "abc", 10, "1"}, // an empty substr is found at 1 wherever start is
		{"", "", 1, "1"},
		{"a", "", 1, "0"},
		{"ll", "héllo", 1, "3"},
		{"l", "héllo", 4, "4"},
		{"😀", "a😀b😀", 3, "4"},
		{"b", "abc", math.MaxInt32, "0"},
	}
	var qs, ss, sts []any
	var want []string
	for _, c := range cases {
		qs, ss, sts = append(qs, c.q), append(ss, c.s), append(sts, c.start)
		want = append(want, c.want)
	}
	got, err := run(t, loc(col(0, "string"), col(1, "string"), col(2, "integer")),
		column(t, "string", qs...), column(t, "string", ss...), column(t, "integer", sts...))
	expectRows(t, "locate", got, err, want...)
	got, err = run(t, loc(litStr("b"), col(0, "string"), lit("integer", "null")), column(t, "string", "abc", nil))
	expectRows(t, "null start literal", got, err, "0", "0")
	got, err = run(t, loc(litStr("b"), col(0, "string"), litInt(1)), column(t, "string", "abc", nil, "b"))
	expectRows(t, "literals", got, err, "2", "null", "1")
	got, err = run(t, loc(lit("string", "null"), col(0, "string"), col(1, "integer")), column(t, "string", "abc", "x"), column(t, "integer", 1, nil))
	expectRows(t, "null substr literal", got, err, "null", "0")
	got, err = run(t, loc(litStr("b"), lit("string", "null"), litInt(1)), column(t, "string", "abc", "x"))
	expectRows(t, "null str literal", got, err, "null", "null")
}

func TestSubstringIndex(t *testing.T) {
	si := func(cnt string) string {
		return node("SubstringIndex", "string", "strExpr", col(0, "string"), "delimExpr", col(1, "string"), "countExpr", cnt)
	}
	cases := []struct {
		s, d  any
		count any
		want  string
	}{
		{"www.apache.org", ".", 2, "www.apache"},
		{"www.apache.org", ".", 1, "www"},
		{"www.apache.org", ".", 3, "www.apache.org"},
		{"www.apache.org", ".", -1, "org"},
		{"www.apache.org", ".", -2, "apache.org"},
		{"www.apache.org", ".", -3, "www.apache.org"},
		{"www.apache.org", ".", 0, ""},
		{"www.apache.org", "", 1, ""},
		{".a.", ".", 1, ""},
		{".a.", ".", -1, ""},
		{"aaa", "aa", 2, "a"},   // overlapping occurrences count
		{"aaa", "aa", -2, "a"},  //
		{"aaaa", "aa", 3, "aa"}, //
		{"a", "abc", -1, "a"},
		{"héllo wörld", "ö", 1, "héllo w"},
		{"héllo wörld", "l", -2, "o wörld"},
		{nil, ".", 1, "null"},
		{"a.b", nil, 1, "null"},
		{"a.b", ".", nil, "null"},
		{"a.b", ".", math.MaxInt32, "a.b"},
		{"", ".", 1, ""},
		{"", ".", -1, ""},
	}
	var ss, ds, cs []any
	var want []string
	for _, c := range cases {
		ss, ds, cs = append(ss, c.s), append(ds, c.d), append(cs, c.count)
		want = append(want, c.want)
	}
	got, err := run(t, si(col(2, "integer")), column(t, "string", ss...), column(t, "string", ds...), column(t, "integer", cs...))
	expectRows(t, "substring_index", got, err, want...)
	// Spark fails on a count of Integer.MIN_VALUE with a non-empty delimiter.
	_, err = run(t, si(litInt(math.MinInt32)), column(t, "string", "a.b"), column(t, "string", "."))
	if err == nil {
		t.Errorf("substring_index count MIN_VALUE: want an error")
	}
	got, err = run(t, si(litInt(math.MinInt32)), column(t, "string", "a.b", "a.b"), column(t, "string", "", nil))
	expectRows(t, "MIN_VALUE with empty or null delim", got, err, "", "null")
}

func TestLevenshtein(t *testing.T) {
	l, r := []any{}, []any{}
	var want, want2 []string
	for _, c := range []struct {
		a, b   any
		d, th2 string // distance, and with threshold 2
	}{
		{"kitten", "sitting", "3", "-1"},
		{"", "", "0", "0"},
		{"", "abc", "3", "-1"},
		{"ab", "", "2", "2"},
		{"abc", "abc", "0", "0"},
		{"héllo", "hello", "1", "1"},
		{"😀😀", "😀", "1", "1"},
		{"flaw", "lawn", "2", "2"},
		{"abcdef", "azced", "3", "-1"},
		{nil, "a", "null", "null"},
		{"a", nil, "null", "null"},
		{"gumbo", "gambol", "2", "2"},
		{"saturday", "sunday", "3", "-1"},
	} {
		l, r = append(l, c.a), append(r, c.b)
		want, want2 = append(want, c.d), append(want2, c.th2)
	}
	lev := func(extra ...string) string {
		return node("Levenshtein", "integer", append([]string{"left", col(0, "string"), "right", col(1, "string")}, extra...)...)
	}
	got, err := run(t, lev("threshold", "null"), column(t, "string", l...), column(t, "string", r...))
	expectRows(t, "levenshtein", got, err, want...)
	notNull := `{"class":"` + pkg + `Literal","dataType":"integer","nullable":false,"fields":{"value":2}}`
	got, err = run(t, lev("threshold", notNull), column(t, "string", l...), column(t, "string", r...))
	expectRows(t, "levenshtein threshold 2", got, err, want2...)
	// The banded algorithm against the full one over many pairs and thresholds.
	words := []string{"", "a", "ab", "ba", "abc", "acb", "kitten", "sitting", "héllo", "hallo", "😀a😀", "a😀", "aaaa", "aaab", "baaa", "abcdefgh", "hgfedcba"}
	var scratch []int32
	for _, a := range words {
		for _, b := range words {
			d := levenshtein([]byte(a), []byte(b), &scratch)
			for th := int32(-1); th < 10; th++ {
				w := d
				if d > th {
					w = -1
				}
				if g := levenshteinLimited([]byte(a), []byte(b), th, &scratch); g != w {
					t.Errorf("levenshtein(%q, %q, %d) = %d, want %d", a, b, th, g, w)
				}
			}
		}
	}
	nullable := `{"class":"` + pkg + `AttributeReference","dataType":"integer","nullable":true,"fields":{},"ordinal":2,"name":"c2"}`
	expectRefused(t, "nullable threshold", lev("threshold", nullable), "nullable threshold")
}

// TestSubstringIndexOnlyOnEvaluatedRows: under a CASE WHEN, the failing count is evaluated only
// where Spark takes the branch.
func TestSubstringIndexOnlyOnEvaluatedRows(t *testing.T) {
	si := node("SubstringIndex", "string", "strExpr", col(0, "string"), "delimExpr", litStr("."), "countExpr", col(1, "integer"))
	if !mayFail(mustTranslate(t, si)) {
		t.Errorf("substring_index with a count column: mayFail false")
	}
	lit1 := node("SubstringIndex", "string", "strExpr", col(0, "string"), "delimExpr", litStr("."), "countExpr", litInt(1))
	if mayFail(mustTranslate(t, lit1)) {
		t.Errorf("substring_index with count 1: mayFail true")
	}
	cond := node("EqualTo", "boolean", "left", col(1, "integer"), "right", litInt(math.MinInt32))
	cw := caseJSON("string", si, cond, lit("string", "null"))
	got, err := run(t, cw, column(t, "string", "a.b", "a.b"), column(t, "integer", math.MinInt32, 1))
	expectRows(t, "case when", got, err, "null", "a")
}
