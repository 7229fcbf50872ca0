package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// splitInputs are the subjects of splitGolden, whose expected values Spark 4.1.3's own code
// computed: UTF8String.fromBytes(input).split(UTF8String.fromString(pattern), limit) from the
// spark-unsafe jar for split, and RegExpExtractAll's Matcher.find loop over UTF8String.toString
// (group idx, "" for a group that did not take part, re-encoded with UTF8String.fromString;
// ERR where checkGroupIndex raises) for extract_all.
var splitInputs = []any{"", "a,b,,c,,", ",a", "x", "a1b22c333", "é😀z😀é1", "\xff\xfeab,c", "\xe0\x80a", "a\xe2", "line1\nline2\n", "ab\r", "100-200, 300-400", "a.b", "aab", ",", "é"}

var splitGolden = []struct {
	fn      string
	pattern string
	arg     int
	want    []string
}{
	{"split", ",", 0, []string{`[""]`, `["a","b","","c","",""]`, `["","a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab","c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200"," 300-400"]`, `["a.b"]`, `["aab"]`, `["",""]`, `["\xc3\xa9"]`}},
	{"split", ",", -1, []string{`[""]`, `["a","b","","c","",""]`, `["","a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab","c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200"," 300-400"]`, `["a.b"]`, `["aab"]`, `["",""]`, `["\xc3\xa9"]`}},
	{"split", ",", 1, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", ",", 2, []string{`[""]`, `["a","b,,c,,"]`, `["","a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab","c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200"," 300-400"]`, `["a.b"]`, `["aab"]`, `["",""]`, `["\xc3\xa9"]`}},
	{"split", ",", 3, []string{`[""]`, `["a","b",",c,,"]`, `["","a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab","c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200"," 300-400"]`, `["a.b"]`, `["aab"]`, `["",""]`, `["\xc3\xa9"]`}},
	{"split", "", 0, []string{`[""]`, `["a",",","b",",",",","c",",",","]`, `[",","a"]`, `["x"]`, `["a","1","b","2","2","c","3","3","3"]`, `["\xc3\xa9","\xf0\x9f\x98\x80","z","\xf0\x9f\x98\x80","\xc3\xa9","1"]`, `["\xff","\xfe","a","b",",","c"]`, `["\xe0\x80a"]`, `["a","\xe2"]`, `["l","i","n","e","1","\x0a","l","i","n","e","2","\x0a"]`, `["a","b","\x0d"]`, `["1","0","0","-","2","0","0",","," ","3","0","0","-","4","0","0"]`, `["a",".","b"]`, `["a","a","b"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "", 2, []string{`[""]`, `["a",",b,,c,,"]`, `[",","a"]`, `["x"]`, `["a","1b22c333"]`, `["\xc3\xa9","\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xff","\xfeab,c"]`, `["\xe0\x80a"]`, `["a","\xe2"]`, `["l","ine1\x0aline2\x0a"]`, `["a","b\x0d"]`, `["1","00-200, 300-400"]`, `["a",".b"]`, `["a","ab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "", 1, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xff\xfeab,c"]`, `["\xe0\x80a"]`, `["a\xe2"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "", -5, []string{`[""]`, `["a",",","b",",",",","c",",",","]`, `[",","a"]`, `["x"]`, `["a","1","b","2","2","c","3","3","3"]`, `["\xc3\xa9","\xf0\x9f\x98\x80","z","\xf0\x9f\x98\x80","\xc3\xa9","1"]`, `["\xff","\xfe","a","b",",","c"]`, `["\xe0\x80a"]`, `["a","\xe2"]`, `["l","i","n","e","1","\x0a","l","i","n","e","2","\x0a"]`, `["a","b","\x0d"]`, `["1","0","0","-","2","0","0",","," ","3","0","0","-","4","0","0"]`, `["a",".","b"]`, `["a","a","b"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "\\d+", 0, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a","b","c",""]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa9",""]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line","\x0aline","\x0a"]`, `["ab\x0d"]`, `["","-",", ","-",""]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "\\d+", 2, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a","b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa9",""]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line","\x0aline2\x0a"]`, `["ab\x0d"]`, `["","-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "[a-c]", -1, []string{`[""]`, `["",",",",,",",,"]`, `[",",""]`, `["x"]`, `["","1","22","333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbd","",",",""]`, `["\xef\xbf\xbd\xef\xbf\xbd",""]`, `["","\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["","","\x0d"]`, `["100-200, 300-400"]`, `["",".",""]`, `["","","",""]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "b$", 0, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["a","\x0d"]`, `["100-200, 300-400"]`, `["a.",""]`, `["aa",""]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "[é😀]", 0, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["","","z","","1"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["",""]`}},
	{"split", "\\.", 0, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a","b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "\\s", -1, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1","line2",""]`, `["ab",""]`, `["100-200,","300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "a", 0, []string{`[""]`, `["",",b,,c,,"]`, `[",",""]`, `["x"]`, `["","1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbd","b,c"]`, `["\xef\xbf\xbd\xef\xbf\xbd",""]`, `["","\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["","b\x0d"]`, `["100-200, 300-400"]`, `["",".b"]`, `["","","b"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "�", 0, []string{`[""]`, `["a,b,,c,,"]`, `[",a"]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["","","ab,c"]`, `["","","a"]`, `["a",""]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", ",a", 0, []string{`[""]`, `["a,b,,c,,"]`, `["",""]`, `["x"]`, `["a1b22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbdab,c"]`, `["\xef\xbf\xbd\xef\xbf\xbda"]`, `["a\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["ab\x0d"]`, `["100-200, 300-400"]`, `["a.b"]`, `["aab"]`, `[","]`, `["\xc3\xa9"]`}},
	{"split", "a|b", 0, []string{`[""]`, `["",",",",,c,,"]`, `[",",""]`, `["x"]`, `["","1","22c333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbd","",",c"]`, `["\xef\xbf\xbd\xef\xbf\xbd",""]`, `["","\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["","","\x0d"]`, `["100-200, 300-400"]`, `["",".",""]`, `["","","",""]`, `[","]`, `["\xc3\xa9"]`}},
	{"extract_all", "\\d+", 0, []string{`[]`, `[]`, `[]`, `[]`, `["1","22","333"]`, `["1"]`, `[]`, `[]`, `[]`, `["1","2"]`, `[]`, `["100","200","300","400"]`, `[]`, `[]`, `[]`, `[]`}},
	{"extract_all", "(\\d+)-(\\d+)", 2, []string{`[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `["200","400"]`, `[]`, `[]`, `[]`, `[]`}},
	{"extract_all", "([a-z])(\\d)?", 2, []string{`[]`, `["","",""]`, `[""]`, `[""]`, `["1","2","3"]`, `[""]`, `["","",""]`, `[""]`, `[""]`, `["","","","1","","","","2"]`, `["",""]`, `[]`, `["",""]`, `["","",""]`, `[]`, `[]`}},
	{"extract_all", "b$", 0, []string{`[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `[]`, `["b"]`, `[]`, `["b"]`, `["b"]`, `[]`, `[]`}},
	{"extract_all", "[^a-c]+", 0, []string{`[]`, `[",",",,",",,"]`, `[","]`, `["x"]`, `["1","22","333"]`, `["\xc3\xa9\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xc3\xa91"]`, `["\xef\xbf\xbd\xef\xbf\xbd",","]`, `["\xef\xbf\xbd\xef\xbf\xbd"]`, `["\xef\xbf\xbd"]`, `["line1\x0aline2\x0a"]`, `["\x0d"]`, `["100-200, 300-400"]`, `["."]`, `[]`, `[","]`, `["\xc3\xa9"]`}},
	{"extract_all", "(a)", 2, []string{`[]`, `ERR`, `ERR`, `[]`, `ERR`, `[]`, `ERR`, `ERR`, `ERR`, `[]`, `ERR`, `[]`, `ERR`, `ERR`, `[]`, `[]`}},
	{"extract_all", "(a)", -1, []string{`[]`, `ERR`, `ERR`, `[]`, `ERR`, `[]`, `ERR`, `ERR`, `ERR`, `[]`, `ERR`, `[]`, `ERR`, `ERR`, `[]`, `[]`}},
	{"extract_all", "(\\d)(x)?", 2, []string{`[]`, `[]`, `[]`, `[]`, `["","","","","",""]`, `[""]`, `[]`, `[]`, `[]`, `["",""]`, `[]`, `["","","","","","","","","","","",""]`, `[]`, `[]`, `[]`, `[]`}},
	{"extract_all", ".", 0, []string{`[]`, `["a",",","b",",",",","c",",",","]`, `[",","a"]`, `["x"]`, `["a","1","b","2","2","c","3","3","3"]`, `["\xc3\xa9","\xf0\x9f\x98\x80","z","\xf0\x9f\x98\x80","\xc3\xa9","1"]`, `["\xef\xbf\xbd","\xef\xbf\xbd","a","b",",","c"]`, `["\xef\xbf\xbd","\xef\xbf\xbd","a"]`, `["a","\xef\xbf\xbd"]`, `["l","i","n","e","1","l","i","n","e","2"]`, `["a","b"]`, `["1","0","0","-","2","0","0",","," ","3","0","0","-","4","0","0"]`, `["a",".","b"]`, `["a","a","b"]`, `[","]`, `["\xc3\xa9"]`}},
}

// splitShow renders a list<string> row as the golden generator does.
func splitShow(a *array.List, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	vals := a.ListValues().(*array.String)
	start, end := a.ValueOffsets(i)
	var parts []string
	for j := start; j < end; j++ {
		var sb strings.Builder
		sb.WriteByte('"')
		for _, c := range []byte(vals.Value(int(j))) {
			if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
				sb.WriteByte(c)
			} else {
				fmt.Fprintf(&sb, "\\x%02x", c)
			}
		}
		sb.WriteByte('"')
		parts = append(parts, sb.String())
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// splitArrType is StringSplit's result type, array<string> without nulls, as Spark encodes it.
const splitArrType = `{"type":"array","elementType":"string","containsNull":false}`

// splitNode is node with a JSON data type.
func splitNode(class string, fields ...string) string {
	return strings.Replace(node(class, "T", fields...), `"dataType":"T"`, `"dataType":`+splitArrType, 1)
}

func splitJSON(fn, pattern string, arg int) string {
	if fn == "split" {
		return splitNode("StringSplit", "str", col(0, "string"), "regex", litStr(pattern), "limit", litInt(int64(arg)))
	}
	return splitNode("RegExpExtractAll", "subject", col(0, "string"), "regexp", litStr(pattern), "idx", litInt(int64(arg)))
}

func TestSplitGolden(t *testing.T) {
	for _, g := range splitGolden {
		name := fmt.Sprintf("%s(%q, %d)", g.fn, g.pattern, g.arg)
		e := mustTranslate(t, splitJSON(g.fn, g.pattern, g.arg))
		for i, in := range splitInputs {
			ctx := newCtx()
			c := column(t, "string", in, nil)
			out, err := e.Eval(ctx, batch(c))
			c.Release()
			if g.want[i] == "ERR" {
				expectSparkError(t, name, err, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", map[string]string{"groupIndex": fmt.Sprint(g.arg), "groupCount": "1"})
				if ctx.Alloc.Used() != 0 {
					t.Errorf("%s: %d bytes leaked on error", name, ctx.Alloc.Used())
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s on %q: %v", name, in, err)
			}
			l := out.(*array.List)
			if err := l.ValidateFull(); err != nil {
				t.Fatalf("%s: invalid result: %v", name, err)
			}
			if got := splitShow(l, 0); got != g.want[i] {
				t.Errorf("%s on %q:\n got  %s\n want %s", name, in, got, g.want[i])
			}
			if got := splitShow(l, 1); got != "null" {
				t.Errorf("%s on null: got %s", name, got)
			}
			out.Release()
			if ctx.Alloc.Used() != 0 {
				t.Errorf("%s: %d bytes leaked", name, ctx.Alloc.Used())
			}
		}
	}
}

func TestSplitBatch(t *testing.T) {
	// Several rows in one batch, with nulls, share the element column.
	e := mustTranslate(t, splitJSON("split", ",", -1))
	ctx := newCtx()
	c := column(t, "string", "a,b", nil, "", ",,", "x")
	defer c.Release()
	out, err := e.Eval(ctx, batch(c))
	if err != nil {
		t.Fatal(err)
	}
	l := out.(*array.List)
	var got []string
	for i := 0; i < l.Len(); i++ {
		got = append(got, splitShow(l, i))
	}
	out.Release()
	want := `["a","b"]|null|[""]|["","",""]|["x"]`
	if strings.Join(got, "|") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
}

func TestSplitRefusals(t *testing.T) {
	expectRefused(t, "nullable", splitJSON("split", "a*", -1), "empty string")
	expectRefused(t, "lookahead", splitJSON("split", "a(?=b)", -1), "group construct")
	expectRefused(t, "extract nullable", splitJSON("extract_all", "(a)?", 1), "empty string")
	nonLit := splitNode("StringSplit", "str", col(0, "string"), "regex", col(1, "string"), "limit", litInt(-1))
	expectRefused(t, "non-literal", nonLit, "non-literal")
}
