package expr

import (
	"fmt"
	"strings"
	"testing"
)

// regexInputs are the subjects of regexGolden, whose expected values java.util.regex computed
// as Spark does (Matcher.find on new String(bytes, UTF_8); start() + 1; group 1, or 0 without
// groups; appendReplacement of "<$0>"; results re-encoded with getBytes(UTF_8)).
var regexInputs = []any{"", "abc", "a1b22c333", "foo bar\tbaz", "line1\nline2\n", "x\r\n", "ab\r", "é😀z", "ÀÉ", "\x0b", "a\u2028", "\xff\xfeab", "\xe0\x80a", "100-200, 300-400", "AbC", "a.b", "$5", "ab\u0085", "c\n"}

var regexGolden = []struct {
	pattern string
	rlike   string // T or F per input
	instr   string // comma-terminated positions
	extract []string
	replace []string
}{
	{"a", "FTTTFFTFFFTTTFFTFTF", "0,1,1,6,0,0,1,0,0,0,1,3,3,0,0,1,0,1,0,", []string{"", "a", "a", "a", "", "", "a", "", "", "", "a", "a", "a", "", "", "a", "", "a", ""}, []string{"", "<a>bc", "<a>1b22c333", "foo b<a>r\x09b<a>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<a>b\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<a>b", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100-200, 300-400", "AbC", "<a>.b", "$5", "<a>b\xc2\x85", "c\x0a"}},
	{"b+", "FTTTFFTFFFFTFFTTFTF", "0,2,3,5,0,0,2,0,0,0,0,4,0,0,2,3,0,2,0,", []string{"", "b", "b", "b", "", "", "b", "", "", "", "", "b", "", "", "b", "b", "", "b", ""}, []string{"", "a<b>c", "a1<b>22c333", "foo <b>ar\x09<b>az", "line1\x0aline2\x0a", "x\x0d\x0a", "a<b>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbda<b>", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "A<b>C", "a.<b>", "$5", "a<b>\xc2\x85", "c\x0a"}},
	{"\x5cd+", "FFTFTFFFFFFFFTFFTFF", "0,0,2,0,5,0,0,0,0,0,0,0,0,1,0,0,2,0,0,", []string{"", "", "1", "", "1", "", "", "", "", "", "", "", "", "100", "", "", "5", "", ""}, []string{"", "abc", "a<1>b<22>c<333>", "foo bar\x09baz", "line<1>\x0aline<2>\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "<100>-<200>, <300>-<400>", "AbC", "a.b", "$<5>", "ab\xc2\x85", "c\x0a"}},
	{"(\x5cd+)-(\x5cd+)", "FFFFFFFFFFFFFTFFFFF", "0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "100", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "<100-200>, <300-400>", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"^a", "FTTFFFTFFFTFFFFTFTF", "0,1,1,0,0,0,1,0,0,0,1,0,0,0,0,1,0,1,0,", []string{"", "a", "a", "", "", "", "a", "", "", "", "a", "", "", "", "", "a", "", "a", ""}, []string{"", "<a>bc", "<a>1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "<a>b\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "<a>.b", "$5", "<a>b\xc2\x85", "c\x0a"}},
	{"c$", "FTFFFFFFFFFFFFFFFFT", "0,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,", []string{"", "c", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "c"}, []string{"", "ab<c>", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "<c>\x0a"}},
	{"^$", "TFFFFFFFFFFFFFFFFFF", "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"<>", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[a-c]+", "FTTTFFTFFFTTTFTTFTT", "0,1,1,5,0,0,1,0,0,0,1,3,3,0,2,1,0,1,1,", []string{"", "abc", "a", "ba", "", "", "ab", "", "", "", "a", "ab", "a", "", "b", "a", "", "ab", "c"}, []string{"", "<abc>", "<a>1<b>22<c>333", "foo <ba>r\x09<ba>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<ab>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<ab>", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100-200, 300-400", "A<b>C", "<a>.<b>", "$5", "<ab>\xc2\x85", "<c>\x0a"}},
	{"[^a-c]+", "FFTTTTTTTTTTTTTTTTT", "0,0,2,1,1,1,3,1,1,1,2,1,1,1,1,2,1,3,2,", []string{"", "", "1", "foo ", "line1\x0aline2\x0a", "x\x0d\x0a", "\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd", "\xef\xbf\xbd\xef\xbf\xbd", "100-200, 300-400", "A", ".", "$5", "\xc2\x85", "\x0a"}, []string{"", "abc", "a<1>b<22>c<333>", "<foo >ba<r\x09>ba<z>", "<line1\x0aline2\x0a>", "<x\x0d\x0a>", "ab<\x0d>", "<\xc3\xa9\xf0\x9f\x98\x80z>", "<\xc3\x80\xc3\x89>", "<\x0b>", "a<\xe2\x80\xa8>", "<\xef\xbf\xbd\xef\xbf\xbd>ab", "<\xef\xbf\xbd\xef\xbf\xbd>a", "<100-200, 300-400>", "<A>b<C>", "a<.>b", "<$5>", "ab<\xc2\x85>", "c<\x0a>"}},
	{"\x5cs", "FFFTTTTFFTFFFTFFFFT", "0,0,0,4,6,2,3,0,0,1,0,0,0,9,0,0,0,0,2,", []string{"", "", "", " ", "\x0a", "\x0d", "\x0d", "", "", "\x0b", "", "", "", " ", "", "", "", "", "\x0a"}, []string{"", "abc", "a1b22c333", "foo< >bar<\x09>baz", "line1<\x0a>line2<\x0a>", "x<\x0d><\x0a>", "ab<\x0d>", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "<\x0b>", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200,< >300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c<\x0a>"}},
	{"\x5cS+", "FTTTTTTTTFTTTTTTTTT", "0,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,", []string{"", "abc", "a1b22c333", "foo", "line1", "x", "ab", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200,", "AbC", "a.b", "$5", "ab\xc2\x85", "c"}, []string{"", "<abc>", "<a1b22c333>", "<foo> <bar>\x09<baz>", "<line1>\x0a<line2>\x0a", "<x>\x0d\x0a", "<ab>\x0d", "<\xc3\xa9\xf0\x9f\x98\x80z>", "<\xc3\x80\xc3\x89>", "\x0b", "<a\xe2\x80\xa8>", "<\xef\xbf\xbd\xef\xbf\xbdab>", "<\xef\xbf\xbd\xef\xbf\xbda>", "<100-200,> <300-400>", "<AbC>", "<a.b>", "<$5>", "<ab\xc2\x85>", "<c>\x0a"}},
	{"\x5cw+", "FTTTTTTTFFTTTTTTTTT", "0,1,1,1,1,1,1,4,0,0,1,3,3,1,1,1,2,1,1,", []string{"", "abc", "a1b22c333", "foo", "line1", "x", "ab", "z", "", "", "a", "ab", "a", "100", "AbC", "a", "5", "ab", "c"}, []string{"", "<abc>", "<a1b22c333>", "<foo> <bar>\x09<baz>", "<line1>\x0a<line2>\x0a", "<x>\x0d\x0a", "<ab>\x0d", "\xc3\xa9\xf0\x9f\x98\x80<z>", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<ab>", "\xef\xbf\xbd\xef\xbf\xbd<a>", "<100>-<200>, <300>-<400>", "<AbC>", "<a>.<b>", "$<5>", "<ab>\xc2\x85", "<c>\x0a"}},
	{"\x5cW", "FFFTTTTTTTTTTTFTTTT", "0,0,0,4,6,2,3,1,1,1,2,1,1,4,0,2,1,3,2,", []string{"", "", "", " ", "\x0a", "\x0d", "\x0d", "\xc3\xa9", "\xc3\x80", "\x0b", "\xe2\x80\xa8", "\xef\xbf\xbd", "\xef\xbf\xbd", "-", "", ".", "$", "\xc2\x85", "\x0a"}, []string{"", "abc", "a1b22c333", "foo< >bar<\x09>baz", "line1<\x0a>line2<\x0a>", "x<\x0d><\x0a>", "ab<\x0d>", "<\xc3\xa9><\xf0\x9f\x98\x80>z", "<\xc3\x80><\xc3\x89>", "<\x0b>", "a<\xe2\x80\xa8>", "<\xef\xbf\xbd><\xef\xbf\xbd>ab", "<\xef\xbf\xbd><\xef\xbf\xbd>a", "100<->200<,>< >300<->400", "AbC", "a<.>b", "<$>5", "ab<\xc2\x85>", "c<\x0a>"}},
	{".", "FTTTTTTTTTTTTTTTTTT", "0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,", []string{"", "a", "a", "f", "l", "x", "a", "\xc3\xa9", "\xc3\x80", "\x0b", "a", "\xef\xbf\xbd", "\xef\xbf\xbd", "1", "A", "a", "$", "a", "c"}, []string{"", "<a><b><c>", "<a><1><b><2><2><c><3><3><3>", "<f><o><o>< ><b><a><r><\x09><b><a><z>", "<l><i><n><e><1>\x0a<l><i><n><e><2>\x0a", "<x>\x0d\x0a", "<a><b>\x0d", "<\xc3\xa9><\xf0\x9f\x98\x80><z>", "<\xc3\x80><\xc3\x89>", "<\x0b>", "<a>\xe2\x80\xa8", "<\xef\xbf\xbd><\xef\xbf\xbd><a><b>", "<\xef\xbf\xbd><\xef\xbf\xbd><a>", "<1><0><0><-><2><0><0><,>< ><3><0><0><-><4><0><0>", "<A><b><C>", "<a><.><b>", "<$><5>", "<a><b>\xc2\x85", "<c>\x0a"}},
	{".+", "FTTTTTTTTTTTTTTTTTT", "0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,", []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1", "x", "ab", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab", "c"}, []string{"", "<abc>", "<a1b22c333>", "<foo bar\x09baz>", "<line1>\x0a<line2>\x0a", "<x>\x0d\x0a", "<ab>\x0d", "<\xc3\xa9\xf0\x9f\x98\x80z>", "<\xc3\x80\xc3\x89>", "<\x0b>", "<a>\xe2\x80\xa8", "<\xef\xbf\xbd\xef\xbf\xbdab>", "<\xef\xbf\xbd\xef\xbf\xbda>", "<100-200, 300-400>", "<AbC>", "<a.b>", "<$5>", "<ab>\xc2\x85", "<c>\x0a"}},
	{"a|b", "FTTTFFTFFFTTTFTTFTF", "0,1,1,5,0,0,1,0,0,0,1,3,3,0,2,1,0,1,0,", []string{"", "a", "a", "b", "", "", "a", "", "", "", "a", "a", "a", "", "b", "a", "", "a", ""}, []string{"", "<a><b>c", "<a>1<b>22c333", "foo <b><a>r\x09<b><a>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<a><b>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<a><b>", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100-200, 300-400", "A<b>C", "<a>.<b>", "$5", "<a><b>\xc2\x85", "c\x0a"}},
	{"(a)|(b)", "FTTTFFTFFFTTTFTTFTF", "0,1,1,5,0,0,1,0,0,0,1,3,3,0,2,1,0,1,0,", []string{"", "a", "a", "", "", "", "a", "", "", "", "a", "a", "a", "", "", "a", "", "a", ""}, []string{"", "<a><b>c", "<a>1<b>22c333", "foo <b><a>r\x09<b><a>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<a><b>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<a><b>", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100-200, 300-400", "A<b>C", "<a>.<b>", "$5", "<a><b>\xc2\x85", "c\x0a"}},
	{"x*", "TTTTTTTTTTTTTTTTTTT", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,", []string{"", "", "", "", "", "x", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"<>", "<>a<>b<>c<>", "<>a<>1<>b<>2<>2<>c<>3<>3<>3<>", "<>f<>o<>o<> <>b<>a<>r<>\x09<>b<>a<>z<>", "<>l<>i<>n<>e<>1<>\x0a<>l<>i<>n<>e<>2<>\x0a<>", "<x><>\x0d<>\x0a<>", "<>a<>b<>\x0d<>", "<>\xc3\xa9<>?<>?<>z<>", "<>\xc3\x80<>\xc3\x89<>", "<>\x0b<>", "<>a<>\xe2\x80\xa8<>", "<>\xef\xbf\xbd<>\xef\xbf\xbd<>a<>b<>", "<>\xef\xbf\xbd<>\xef\xbf\xbd<>a<>", "<>1<>0<>0<>-<>2<>0<>0<>,<> <>3<>0<>0<>-<>4<>0<>0<>", "<>A<>b<>C<>", "<>a<>.<>b<>", "<>$<>5<>", "<>a<>b<>\xc2\x85<>", "<>c<>\x0a<>"}},
	{"(?:ab)+", "FTFFFFTFFFFTFFFFFTF", "0,1,0,0,0,0,1,0,0,0,0,3,0,0,0,0,0,1,0,", []string{"", "ab", "", "", "", "", "ab", "", "", "", "", "ab", "", "", "", "", "", "ab", ""}, []string{"", "<ab>c", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "<ab>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<ab>", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "<ab>\xc2\x85", "c\x0a"}},
	{"\xc3\xa9|\xf0\x9f\x98\x80", "FFFFFFFTFFFFFFFFFFF", "0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "\xc3\xa9", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "<\xc3\xa9><\xf0\x9f\x98\x80>z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[\xc3\xa9\xf0\x9f\x98\x80]", "FFFFFFFTFFFFFFFFFFF", "0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "\xc3\xa9", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "<\xc3\xa9><\xf0\x9f\x98\x80>z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cx41", "FFFFFFFFFFFFFFTFFFF", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "A", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "<A>bC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cu00e9", "FFFFFFFTFFFFFFFFFFF", "0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "\xc3\xa9", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "<\xc3\xa9>\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cx{1F600}", "FFFFFFFTFFFFFFFFFFF", "0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "\xf0\x9f\x98\x80", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9<\xf0\x9f\x98\x80>z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[\x5cd.]+", "FFTFTFFFFFFFFTFTTFF", "0,0,2,0,5,0,0,0,0,0,0,0,0,1,0,2,2,0,0,", []string{"", "", "1", "", "1", "", "", "", "", "", "", "", "", "100", "", ".", "5", "", ""}, []string{"", "abc", "a<1>b<22>c<333>", "foo bar\x09baz", "line<1>\x0aline<2>\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "<100>-<200>, <300>-<400>", "AbC", "a<.>b", "$<5>", "ab\xc2\x85", "c\x0a"}},
	{"\x5c.", "FFFFFFFFFFFFFFFTFFF", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ".", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a<.>b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5c$\x5cd", "FFFFFFFFFFFFFFFFTFF", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "$5", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "<$5>", "ab\xc2\x85", "c\x0a"}},
	{"z$", "FFFTFFFTFFFFFFFFFFF", "0,0,0,11,0,0,0,4,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "z", "", "", "", "z", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09ba<z>", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80<z>", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cd{2,3}", "FFTFFFFFFFFFFTFFFFF", "0,0,4,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,", []string{"", "", "22", "", "", "", "", "", "", "", "", "", "", "100", "", "", "", "", ""}, []string{"", "abc", "a1b<22>c<333>", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "<100>-<200>, <300>-<400>", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"a.*?c", "FTTFFFFFFFFFFFFFFFF", "0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "abc", "a1b22c", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "<abc>", "<a1b22c>333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[-a]", "FTTTFFTFFFTTTTFTFTF", "0,1,1,6,0,0,1,0,0,0,1,3,3,4,0,1,0,1,0,", []string{"", "a", "a", "a", "", "", "a", "", "", "", "a", "a", "a", "-", "", "a", "", "a", ""}, []string{"", "<a>bc", "<a>1b22c333", "foo b<a>r\x09b<a>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<a>b\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<a>b", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100<->200, 300<->400", "AbC", "<a>.b", "$5", "<a>b\xc2\x85", "c\x0a"}},
	{"[a-]", "FTTTFFTFFFTTTTFTFTF", "0,1,1,6,0,0,1,0,0,0,1,3,3,4,0,1,0,1,0,", []string{"", "a", "a", "a", "", "", "a", "", "", "", "a", "a", "a", "-", "", "a", "", "a", ""}, []string{"", "<a>bc", "<a>1b22c333", "foo b<a>r\x09b<a>z", "line1\x0aline2\x0a", "x\x0d\x0a", "<a>b\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<a>b", "\xef\xbf\xbd\xef\xbf\xbd<a>", "100<->200, 300<->400", "AbC", "<a>.b", "$5", "<a>b\xc2\x85", "c\x0a"}},
	{"\x5ct", "FFFTFFFFFFFFFFFFFFF", "0,0,0,8,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "\x09", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar<\x09>baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[\x5cs\x5cS]", "FTTTTTTTTTTTTTTTTTT", "0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,", []string{"", "a", "a", "f", "l", "x", "a", "\xc3\xa9", "\xc3\x80", "\x0b", "a", "\xef\xbf\xbd", "\xef\xbf\xbd", "1", "A", "a", "$", "a", "c"}, []string{"", "<a><b><c>", "<a><1><b><2><2><c><3><3><3>", "<f><o><o>< ><b><a><r><\x09><b><a><z>", "<l><i><n><e><1><\x0a><l><i><n><e><2><\x0a>", "<x><\x0d><\x0a>", "<a><b><\x0d>", "<\xc3\xa9><\xf0\x9f\x98\x80><z>", "<\xc3\x80><\xc3\x89>", "<\x0b>", "<a><\xe2\x80\xa8>", "<\xef\xbf\xbd><\xef\xbf\xbd><a><b>", "<\xef\xbf\xbd><\xef\xbf\xbd><a>", "<1><0><0><-><2><0><0><,>< ><3><0><0><-><4><0><0>", "<A><b><C>", "<a><.><b>", "<$><5>", "<a><b><\xc2\x85>", "<c><\x0a>"}},
	{"\xef\xbf\xbd", "FFFFFFFFFFFTTFFFFFF", "0,0,0,0,0,0,0,0,0,0,0,1,1,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "\xef\xbf\xbd", "\xef\xbf\xbd", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "<\xef\xbf\xbd><\xef\xbf\xbd>ab", "<\xef\xbf\xbd><\xef\xbf\xbd>a", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"b$", "FFFFFFTFFFFTFFFTFTF", "0,0,0,0,0,0,2,0,0,0,0,4,0,0,0,3,0,2,0,", []string{"", "", "", "", "", "", "b", "", "", "", "", "b", "", "", "", "b", "", "b", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "a<b>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbda<b>", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.<b>", "$5", "a<b>\xc2\x85", "c\x0a"}},
	{"^.*$", "TTTTFTTTTTTTTTTTTTT", "1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,", []string{"", "abc", "a1b22c333", "foo bar\x09baz", "", "x", "ab", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab", "c"}, []string{"<>", "<abc>", "<a1b22c333>", "<foo bar\x09baz>", "line1\x0aline2\x0a", "<x>\x0d\x0a", "<ab>\x0d", "<\xc3\xa9\xf0\x9f\x98\x80z>", "<\xc3\x80\xc3\x89>", "<\x0b>", "<a>\xe2\x80\xa8", "<\xef\xbf\xbd\xef\xbf\xbdab>", "<\xef\xbf\xbd\xef\xbf\xbda>", "<100-200, 300-400>", "<AbC>", "<a.b>", "<$5>", "<ab>\xc2\x85", "<c>\x0a"}},
	{"(a)?b", "FTTTFFTFFFFTFFTTFTF", "0,1,3,5,0,0,1,0,0,0,0,3,0,0,2,3,0,1,0,", []string{"", "a", "", "", "", "", "a", "", "", "", "", "a", "", "", "", "", "", "a", ""}, []string{"", "<ab>c", "a1<b>22c333", "foo <b>ar\x09<b>az", "line1\x0aline2\x0a", "x\x0d\x0a", "<ab>\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbd<ab>", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "A<b>C", "a.<b>", "$5", "<ab>\xc2\x85", "c\x0a"}},
	{"a{2}", "FFFFFFFFFFFFFFFFFFF", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cA\x5cw", "FTTTTTTFFFTFFTTTFTT", "0,1,1,1,1,1,1,0,0,0,1,0,0,1,1,1,0,1,1,", []string{"", "a", "a", "f", "l", "x", "a", "", "", "", "a", "", "", "1", "A", "a", "", "a", "c"}, []string{"", "<a>bc", "<a>1b22c333", "<f>oo bar\x09baz", "<l>ine1\x0aline2\x0a", "<x>\x0d\x0a", "<a>b\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "<a>\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "<1>00-200, 300-400", "<A>bC", "<a>.b", "$5", "<a>b\xc2\x85", "<c>\x0a"}},
	{"c\x5cz", "FTFFFFFFFFFFFFFFFFF", "0,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,", []string{"", "c", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""}, []string{"", "ab<c>", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "\xc3\xa9\xf0\x9f\x98\x80z", "\xc3\x80\xc3\x89", "\x0b", "a\xe2\x80\xa8", "\xef\xbf\xbd\xef\xbf\xbdab", "\xef\xbf\xbd\xef\xbf\xbda", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"[\x5cx{e9}-\x5cx{1F600}]", "FFFFFFFTFFTTTFFFFFF", "0,0,0,0,0,0,0,1,0,0,2,1,1,0,0,0,0,0,0,", []string{"", "", "", "", "", "", "", "\xc3\xa9", "", "", "\xe2\x80\xa8", "\xef\xbf\xbd", "\xef\xbf\xbd", "", "", "", "", "", ""}, []string{"", "abc", "a1b22c333", "foo bar\x09baz", "line1\x0aline2\x0a", "x\x0d\x0a", "ab\x0d", "<\xc3\xa9><\xf0\x9f\x98\x80>z", "\xc3\x80\xc3\x89", "\x0b", "a<\xe2\x80\xa8>", "<\xef\xbf\xbd><\xef\xbf\xbd>ab", "<\xef\xbf\xbd><\xef\xbf\xbd>a", "100-200, 300-400", "AbC", "a.b", "$5", "ab\xc2\x85", "c\x0a"}},
	{"\x5cd*$", "TTTTTTTTTTTTTTTTTTT", "1,4,7,12,11,2,3,5,3,2,2,5,4,14,4,4,2,3,2,", []string{"", "", "333", "", "2", "", "", "", "", "", "", "", "", "400", "", "", "5", "", ""}, []string{"<>", "abc<>", "a1b22c<333><>", "foo bar\x09baz<>", "line1\x0aline<2><>\x0a<>", "x<>\x0d\x0a<>", "ab<>\x0d<>", "\xc3\xa9\xf0\x9f\x98\x80z<>", "\xc3\x80\xc3\x89<>", "\x0b<>", "a<>\xe2\x80\xa8<>", "\xef\xbf\xbd\xef\xbf\xbdab<>", "\xef\xbf\xbd\xef\xbf\xbda<>", "100-200, 300-<400><>", "AbC<>", "a.b<>", "$<5><>", "ab<>\xc2\x85<>", "c<>\x0a<>"}},
}

func regexJSON(class, typ string, fields ...string) string { return node(class, typ, fields...) }

func TestRegexGolden(t *testing.T) {
	in := column(t, "string", regexInputs...)
	for _, c := range regexGolden {
		info, err := checkJavaRegex(c.pattern)
		if err != nil {
			t.Errorf("%q refused: %v", c.pattern, err)
			continue
		}
		pat := litStr(c.pattern)
		got, err := run(t, regexJSON("RLike", "boolean", "left", col(0, "string"), "right", pat), in)
		var want []string
		for _, r := range c.rlike {
			want = append(want, map[rune]string{'T': "true", 'F': "false"}[r])
		}
		expectRows(t, "rlike "+q(c.pattern), got, err, want...)
		got, err = run(t, regexJSON("RegExpInStr", "integer", "subject", col(0, "string"), "regexp", pat, "idx", litInt(0)), in)
		expectRows(t, "regexp_instr "+q(c.pattern), got, err, strings.Split(strings.TrimSuffix(c.instr, ","), ",")...)
		g := 0
		if info.groups >= 1 {
			g = 1
		}
		got, err = run(t, regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", pat, "idx", litInt(int64(g))), in)
		expectRows(t, fmt.Sprintf("regexp_extract %q %d", c.pattern, g), got, err, c.extract...)
		rep := regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", pat, "rep", litStr("<$0>"), "pos", litInt(1))
		if info.nullable {
			if _, err := Translate(parse(t, rep), nil); err == nil {
				t.Errorf("regexp_replace %q: a nullable pattern is accepted", c.pattern)
			}
			continue
		}
		got, err = run(t, rep, in)
		expectRows(t, "regexp_replace "+q(c.pattern), got, err, c.replace...)
	}
}

func TestRegexRefusals(t *testing.T) {
	for _, p := range []string{"(?i)a", "a(?=b)", "(?<n>a)", "(?>a)", "(a)\\1", "\\bfoo", "\\p{L}", "a++", "a*+", "[a&&b]", "[[a]]", "[]a]",
		"a{", "{1}", "a{,2}", "a{3,2}", "*a", "a**", "\\Qa\\E", "\\Z", "\\G", "\\R", "a$|b", "a\\n$", "\\s$", "[^x]$", "\\S$", "(a$)", "a$b",
		"a{1001}", "\\0101", "\\cA", "\\", "(a", "a)", "[a", "[a-\\d]", "[a-c-e]", "[\\w-z]", "\\uD800", "\\k<a>"} {
		if _, err := checkJavaRegex(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	for _, p := range []string{"[a-]", "[-a]", "[\\w-]", "[^-]", "a{0}", "a{2,}", "a{1,1000}?", "\\]", "]", "}", "#", "[\\[\\]]", "$", "^a.b$", "\\d\\D\\w\\W\\s\\S"} {
		if _, err := checkJavaRegex(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
}

func TestRegexArguments(t *testing.T) {
	in := column(t, "string", "ab12", nil, "xyz")
	got, err := run(t, regexJSON("RLike", "boolean", "left", col(0, "string"), "right", lit("string", "null")), in)
	expectRows(t, "null pattern", got, err, "null", "null", "null")
	got, err = run(t, regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", litStr("(\\d)(\\d)"), "idx", lit("integer", "null")), in)
	expectRows(t, "null idx", got, err, "null", "null", "null")
	got, err = run(t, regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", litStr("([a-z]+)(\\d)?"), "idx", litInt(2)), in)
	expectRows(t, "unmatched group", got, err, "1", "null", "")
	got, err = run(t, regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("([a-z])(\\d)?"), "rep", litStr("$2$1$12\\$\\\\"), "pos", litInt(1)), in)
	expectRows(t, "replacement", got, err, "aa2$\\1bb2$\\2", "null", "xx2$\\yy2$\\zz2$\\")
	for _, js := range []string{
		regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", litStr("(a)"), "idx", litInt(2)),
		regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", litStr("(a)"), "idx", litInt(-1)),
		regexJSON("RegExpExtract", "string", "subject", col(0, "string"), "regexp", litStr("(a)"), "idx", col(1, "integer")),
		regexJSON("RLike", "boolean", "left", col(0, "string"), "right", col(1, "string")),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("a"), "rep", litStr("b"), "pos", litInt(2)),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("a"), "rep", litStr("$"), "pos", litInt(1)),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("a"), "rep", litStr("x\\"), "pos", litInt(1)),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("(a)"), "rep", litStr("$2"), "pos", litInt(1)),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("(a)"), "rep", litStr("${x}"), "pos", litInt(1)),
		regexJSON("RegExpReplace", "string", "subject", col(0, "string"), "regexp", litStr("a*"), "rep", litStr("x"), "pos", litInt(1)),
	} {
		if _, err := Translate(parse(t, js), nil); err == nil {
			t.Errorf("accepted: %s", js)
		}
	}
}
