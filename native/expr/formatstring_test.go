package expr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// fmtStrGolden: new java.util.Formatter(Locale.US).format(format, args) with the arguments as
// Spark passes them (UTF8String for strings, boxed Byte/Short/Integer/Long/Boolean), the result
// through UTF8String.fromString, computed by the JDK 17 that runs Spark 4.1.3 here. Arguments
// are type:value, "null" a null value and \xNN a byte.
var fmtStrGolden = []struct {
	format string
	args   []string
	want   string
}{
	{`%s`, []string{`str:abc`}, "abc"},
	{`%s|%s`, []string{`str:`, `str:null`}, "|null"},
	{`[%5s][%-5s][%.2s][%8.3s][%-6.1s]`, []string{`str:héllo`, `str:ab`, `str:😀x`, `str:a😀b`, `str:\xff\xfez`}, "[h\xc3\xa9llo][ab   ][\xf0\x9f\x98\x80][     a\xf0\x9f\x98\x80][\xef\xbf\xbd     ]"},
	{`%.1s|%.2s|%.3s|%3.1s`, []string{`str:😀b`, `str:😀b`, `str:😀b`, `str:😀b`}, "?|\xf0\x9f\x98\x80|\xf0\x9f\x98\x80b|  ?"},
	{`%s %s %s %s %s`, []string{`i8:-5`, `i16:300`, `i32:-2147483648`, `i64:9223372036854775807`, `bool:true`}, "-5 300 -2147483648 9223372036854775807 true"},
	{`%s %s`, []string{`i32:null`, `bool:null`}, "null null"},
	{`%b %b %b %b %B %5b %-6B| %.2b`, []string{`bool:true`, `bool:false`, `str:x`, `i32:null`, `bool:true`, `str:`, `i64:0`, `bool:true`}, "true false true false TRUE  true TRUE  | tr"},
	{`%d %d %d %d`, []string{`i8:-128`, `i16:-32768`, `i32:2147483647`, `i64:-9223372036854775808`}, "-128 -32768 2147483647 -9223372036854775808"},
	{`[%5d][%-5d][%05d][%+d][% d][%+05d][% 06d][%05d][%1d]`, []string{`i32:42`, `i32:-42`, `i32:-42`, `i32:7`, `i32:7`, `i32:-7`, `i32:7`, `i64:123456`, `i32:123`}, "[   42][-42  ][-0042][+7][ 7][-0007][ 00007][123456][123]"},
	{`[%x][%X][%o][%#x][%#X][%#o][%08x][%#08x][%-8X][%#010o]`, []string{`i32:-1`, `i8:-1`, `i16:-1`, `i64:-1`, `i32:255`, `i32:8`, `i32:255`, `i32:255`, `i64:3054`, `i8:-128`}, "[ffffffff][FF][177777][0xffffffffffffffff][0XFF][010][000000ff][0x0000ff][BEE     ][0000000200]"},
	{`[%x][%o][%X]`, []string{`i64:-9223372036854775808`, `i32:-2147483648`, `i64:1234567890123`}, "[8000000000000000][20000000000][11F71FB04CB]"},
	{`[%d][%5x][%-6o][%X]`, []string{`i32:null`, `i64:null`, `i8:null`, `i16:null`}, "[null][ null][null  ][NULL]"},
	{`%2$s %1$s %2$d`, []string{`i32:1`, `i32:2`}, "2 1 2"},
	{`%% %n %s%%`, []string{`str:a`}, "% \x0a a%"},
	{`tab\there é😀 %s`, []string{`str:ünï`}, "tab\x5cthere \xc3\xa9\xf0\x9f\x98\x80 \xc3\xbcn\xc3\xaf"},
	{`%s`, []string{`str:a\xe0\x80b`}, "a\xef\xbf\xbd\xef\xbf\xbdb"},
}

var fmtStrTypes = map[string]string{"i8": "byte", "i16": "short", "i32": "integer", "i64": "long", "bool": "boolean", "str": "string"}

// fmtStrArg builds a one-row column from a golden argument.
func fmtStrArg(t *testing.T, spec string) (string, arrow.Array) {
	typ, v, _ := strings.Cut(spec, ":")
	st := fmtStrTypes[typ]
	if v == "null" {
		return st, column(t, st, nil)
	}
	switch typ {
	case "bool":
		return st, column(t, st, v == "true")
	case "str":
		b := regexp.MustCompile(`\\x[0-9a-f]{2}`).ReplaceAllStringFunc(v, func(h string) string {
			x, _ := strconv.ParseUint(h[2:], 16, 8)
			return string([]byte{byte(x)})
		})
		return st, column(t, st, b)
	case "i64":
		x, _ := strconv.ParseInt(v, 10, 64)
		return st, column(t, st, x)
	}
	x, _ := strconv.Atoi(v)
	return st, column(t, st, x)
}

func TestFormatStringGolden(t *testing.T) {
	for _, g := range fmtStrGolden {
		kids := []string{litStr(g.format)}
		var cols []arrow.Array
		for i, a := range g.args {
			st, c := fmtStrArg(t, a)
			kids = append(kids, col(i, st))
			cols = append(cols, c)
		}
		js := fmt.Sprintf(`{"class":%q,"dataType":"string","nullable":true,"fields":{"children":[%s]}}`,
			pkg+"FormatString", strings.Join(kids, ","))
		got, err := run(t, js, cols...)
		for _, c := range cols {
			c.Release()
		}
		expectRows(t, fmt.Sprintf("format_string(%q, %v)", g.format, g.args), got, err, g.want)
	}
}

func TestFormatStringRefusals(t *testing.T) {
	for format, reason := range map[string]string{
		"%f": "not supported", "%e": "not supported", "%S": "not supported", "%,d": "flag", "%(d": "flag",
		"%<s": "flag", "%-d": "width", "%05s": "flag", "%#s": "flag", "%+x": "flag", "%.2d": "precision",
		"%s %s": "no argument", "%c": "not supported", "%5%": "width", "%0$s": "index", "%--5s": "repeats",
		"%": "incomplete", "%tY": "not supported", "%-05d": "both",
	} {
		js := fmt.Sprintf(`{"class":%q,"dataType":"string","nullable":true,"fields":{"children":[%s,%s]}}`,
			pkg+"FormatString", litStr(format), col(0, "integer"))
		expectRefused(t, format, js, reason)
	}
	js := fmt.Sprintf(`{"class":%q,"dataType":"string","nullable":true,"fields":{"children":[%s,%s]}}`,
		pkg+"FormatString", litStr("%d"), col(0, "string"))
	expectRefused(t, "%d of a string", js, "argument")
	js = fmt.Sprintf(`{"class":%q,"dataType":"string","nullable":true,"fields":{"children":[%s,%s]}}`,
		pkg+"FormatString", litStr("%s"), col(0, "double"))
	expectRefused(t, "a double", js, "double")
}
