package expr

import (
	"testing"
)

func likeJSON(left, pattern, escape string) string {
	return node("Like", "boolean", "left", left, "right", pattern, "escapeChar", q(escape))
}

// TestLike: every expected value is Spark 4.1's (Like.eval over the same pattern and input).
func TestLike(t *testing.T) {
	inputs := []any{"", "a", "abc", "aXc", "a\nc", "é", "éé", "😀", "abcabc", "%", "_", "a%c", "a_c", "a\\c", nil}
	cases := []struct {
		pattern, escape string
		want            string // one letter per input: T, F, or N for null
	}{
		{"", "\\", "TFFFFFFFFFFFFFN"},
		{"%", "\\", "TTTTTTTTTTTTTTN"},
		{"%%", "\\", "TTTTTTTTTTTTTTN"},
		{"_", "\\", "FTFFFTFTFTTFFFN"},   // one code point: é and 😀 too
		{"__", "\\", "FFFFFFTFFFFFFFN"},  // 😀 is one code point
		{"a_c", "\\", "FFTTTFFFFFFTTTN"}, // '_' matches a newline (DOTALL)
		{"a%", "\\", "FTTTTFFFTFFTTTN"},
		{"%c", "\\", "FFTTTFFFTFFTTTN"},
		{"%b%", "\\", "FFTFFFFFTFFFFFN"},
		{"abc", "\\", "FFTFFFFFFFFFFFN"},
		{"a%c", "\\", "FFTTTFFFTFFTTTN"},
		{"a%b%c", "\\", "FFTFFFFFTFFFFFN"},
		{"%bc%bc", "\\", "FFFFFFFFTFFFFFN"},
		{"%_c", "\\", "FFTTTFFFTFFTTTN"},
		{"a%_", "\\", "FFTTTFFFTFFTTTN"},
		{"_%_", "\\", "FFTTTFTFTFFTTTN"},
		{"é%", "\\", "FFFFFTTFFFFFFFN"},
		{"%😀", "\\", "FFFFFFFTFFFFFFN"},
		{"😀", "\\", "FFFFFFFTFFFFFFN"},
		{"a\\%c", "\\", "FFFFFFFFFFFTFFN"},  // escaped '%'
		{"a\\_c", "\\", "FFFFFFFFFFFFTFN"},  // escaped '_'
		{"a\\\\c", "\\", "FFFFFFFFFFFFFTN"}, // escaped escape
		{"\\%", "\\", "FFFFFFFFFTFFFFN"},
		{"%\\%%", "\\", "FFFFFFFFFTFTFFN"},
		{"a/%c", "/", "FFFFFFFFFFFTFFN"},
		{"a\\%", "/", "FFFFFFFFFFFFFTN"}, // '\' is an ordinary character with ESCAPE '/'
		{"a%%c", "%", "FFFFFFFFFFFTFFN"}, // ESCAPE '%': "%%" is a literal '%'
		{"a%_c", "%", "FFFFFFFFFFFFTFN"},
		{"aé%c", "é", "FFFFFFFFFFFTFFN"},
	}
	for _, c := range cases {
		var want []string
		for _, w := range c.want {
			want = append(want, map[rune]string{'T': "true", 'F': "false", 'N': "null"}[w])
		}
		got, err := run(t, likeJSON(col(0, "string"), litStr(c.pattern), c.escape), column(t, "string", inputs...))
		expectRows(t, "LIKE "+q(c.pattern)+" ESCAPE "+q(c.escape), got, err, want...)
	}
	got, err := run(t, likeJSON(col(0, "string"), lit("string", "null"), "\\"), column(t, "string", "a", nil))
	expectRows(t, "null pattern", got, err, "null", "null")
	got, err = run(t, likeJSON(col(0, "string"), litStr("a%"), "\\"), column(t, "string"))
	expectRows(t, "empty batch", got, err)
	got, err = run(t, likeJSON(litStr("abc"), litStr("a_c"), "\\"), column(t, "integer", 1, 2))
	expectRows(t, "literal left", got, err, "true", "true")
}

// TestLikeInvalidUTF8: Spark matches UTF8String.toString, where each malformed sequence is one
// U+FFFD with the JDK's lengths.
func TestLikeInvalidUTF8(t *testing.T) {
	inputs := []any{"\xe2\x82", "\xe2\x82a", "\xed\xa0\x80", "\xc0\x80", "\xf0\x9f\x98", "\xff", "\uFFFD", "a\xffxyz", "a"}
	for _, c := range []struct {
		pattern string
		want    string
	}{
		{"_", "TFTFTTTFT"},      // E2 82 at the end, ED A0 80 and F0 9F 98 are one U+FFFD each
		{"__", "FTFTFFFFF"},     // E2 82 before 'a' is one U+FFFD; C0 80 is two
		{"_a", "FTFFFFFFF"},     //
		{"\uFFFD", "TFTFTTTFF"}, // a literal U+FFFD matches every malformed sequence
		{"a\uFFFD%", "FFFFFFFTF"},
		{"%\uFFFD_", "FTFTFFFFF"},
	} {
		var want []string
		for _, w := range c.want {
			want = append(want, map[rune]string{'T': "true", 'F': "false"}[w])
		}
		got, err := run(t, likeJSON(col(0, "string"), litStr(c.pattern), "\\"), column(t, "string", inputs...))
		expectRows(t, "LIKE "+q(c.pattern), got, err, want...)
	}
}

func TestLikeRefusals(t *testing.T) {
	expectRefused(t, "escape before other", likeJSON(col(0, "string"), litStr("a\\bc"), "\\"), "not allowed to precede")
	expectRefused(t, "trailing escape", likeJSON(col(0, "string"), litStr("abc\\"), "\\"), "ends with the escape character")
	expectRefused(t, "trailing custom escape", likeJSON(col(0, "string"), litStr("ab/"), "/"), "ends with the escape character")
	expectRefused(t, "escaped other with custom escape", likeJSON(col(0, "string"), litStr("/a"), "/"), "not allowed to precede")
	expectRefused(t, "multibyte escape before other", likeJSON(col(0, "string"), litStr("aéc"), "é"), "not allowed to precede")
	expectRefused(t, "column pattern", likeJSON(col(0, "string"), col(1, "string"), "\\"), "non-literal pattern")
	expectRefused(t, "char not encoded", node("Like", "boolean", "left", col(0, "string"), "right", litStr("a%"), "escapeChar", `{"unsupported":"java.lang.Character"}`), "escapeChar is not encoded")
	expectRefused(t, "two-char escape", likeJSON(col(0, "string"), litStr("a%"), "ab"), "escape character")
	expectRefused(t, "collated", likeJSON(col(0, "string collate UTF8_LCASE"), litStr("a%"), "\\"), "not supported natively")
}

func TestLikeMatcherKinds(t *testing.T) {
	for _, c := range []struct {
		pattern string
		kind    likeKind
	}{
		{"", likeEquals}, {"abc", likeEquals}, {"a\\%", likeEquals}, {"%", likeAny}, {"%%%", likeAny},
		{"ab%", likePrefix}, {"%ab", likeSuffix}, {"%ab%", likeContains}, {"%%ab%%", likeContains},
		{"a_", likeGeneral}, {"a%b", likeGeneral}, {"\uFFFD%", likeGeneral},
	} {
		m, _, err := compileLike([]byte(c.pattern), '\\')
		if err != nil || m.kind != c.kind {
			t.Errorf("%q: kind %d (%v), want %d", c.pattern, m.kind, err, c.kind)
		}
	}
}
