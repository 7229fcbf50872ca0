package expr

import (
	"math"
	"testing"
)

func TestFindInSet(t *testing.T) {
	js := node("FindInSet", "integer", "left", col(0, "string"), "right", col(1, "string"))
	got, err := run(t, js,
		column(t, "string", "ab", "ab", "", "", "a,b", nil, "x", "c", "é", "\xff", "abc"),
		column(t, "string", "abc,b,ab,c,def", "ab", "", "a,,b", "a,b", "a", nil, "a,b,c", "x,é", "\xff", "ab"))
	expectRows(t, "find_in_set", got, err, "3", "1", "1", "2", "0", "null", "null", "3", "2", "1", "0")
}

func TestSpace(t *testing.T) {
	got, err := run(t, node("StringSpace", "string", "child", col(0, "integer")),
		column(t, "integer", 3, 0, -1, nil, math.MinInt32, 5000))
	want5000 := make([]byte, 5000)
	for i := range want5000 {
		want5000[i] = ' '
	}
	expectRows(t, "space", got, err, "   ", "", "", "null", "", string(want5000))
}

func TestTranslate(t *testing.T) {
	js := node("StringTranslate", "string", "srcExpr", col(0, "string"), "matchingExpr", col(1, "string"), "replaceExpr", col(2, "string"))
	got, err := runRaw(t, js,
		column(t, "string", "AaBbCc", "abcabc", "héllo😀", "abc", nil, "abc", "a\xffb", "aaa", "abc", "", "a\x00b"),
		column(t, "string", "abc", "aa", "é😀l", "abc", "a", nil, "\xff", "a", "", "a", "\x00"),
		column(t, "string", "123", "xy", "e!", "", "b", "b", "?", "😀", "x", "b", "z"))
	expectRows(t, "translate", got, err, "A1B2C3", "xbcxbc", "heo!", "", "null", "null", "a?b", "😀😀😀", "abc", "", "azb")
	// A to holding U+0000 deletes; an invalid byte in src is U+FFFD (kept when not in from).
	got, err = runRaw(t, js, column(t, "string", "abc", "\xe2\x82x"), column(t, "string", "b", "x"), column(t, "string", "\x00", "y"))
	expectRows(t, "translate nul", got, err, "ac", "\uFFFDy")
}

func TestOverlay(t *testing.T) {
	js := node("Overlay", "string", "input", col(0, "string"), "replace", col(1, "string"), "pos", col(2, "integer"), "len", col(3, "integer"))
	got, err := run(t, js,
		column(t, "string", "Spark SQL", "Spark SQL", "Spark SQL", "Spark SQL", "héllo", "abc", "abc", "abc", nil, "abc", "abc"),
		column(t, "string", "_", "CORE", "ANSI ", "tructured", "😀", "", "X", "X", "x", "X", "X"),
		column(t, "integer", 6, 7, 0, 2, 2, 2, -1, 10, 1, math.MaxInt32, 2),
		column(t, "integer", -1, -1, 0, 4, 1, 1, -1, 0, 1, math.MaxInt32, math.MaxInt32))
	expectRows(t, "overlay", got, err, "Spark_SQL", "Spark CORE", "ANSI Spark SQL", "Structured SQL", "h😀llo", "ac",
		"Xabc", "abcX", "null", "abcXbc", "aXabc")
	expectRefused(t, "overlay binary", node("Overlay", "binary", "input", col(0, "binary"), "replace", col(1, "binary"),
		"pos", col(2, "integer"), "len", col(3, "integer")), "not supported natively")
}

func TestTrimWithString(t *testing.T) {
	src := column(t, "string", "SSparkSQLS", "xyabcxy", "", nil, "abc", "ééaé", "😀a😀", "a\xffb\xff", "\xe2\x82", "  x  ", "aXa", "abc")
	tr := column(t, "string", "SL", "xy", "x", "x", nil, "é", "😀", "\xff", "\xe2\x82", "", "\xa9", "cba")
	js := func(class string) string {
		return node(class, "string", "srcStr", col(0, "string"), "trimStr", col(1, "string"))
	}
	got, err := runRaw(t, js("StringTrim"), src, tr)
	expectRows(t, "trim", got, err, "parkSQ", "abc", "", "null", "null", "a", "a", "a\xffb", "", "  x  ", "aXa", "")
	got, err = runRaw(t, js("StringTrimLeft"), src, tr)
	expectRows(t, "ltrim", got, err, "parkSQLS", "abcxy", "", "null", "null", "aé", "a😀", "a\xffb\xff", "", "  x  ", "aXa", "")
	got, err = runRaw(t, js("StringTrimRight"), src, tr)
	expectRows(t, "rtrim", got, err, "SSparkSQ", "xyabc", "", "null", "null", "ééa", "😀a", "a\xffb", "", "  x  ", "aXa", "")
}
