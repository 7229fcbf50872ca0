package expr

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
)

// TestGetJSONObjectGolden checks get_json_object against testdata/jsongolden.txt: results that
// Spark 4.1.3's own GetJsonObjectEvaluator (with the jackson-core 2.21.2 it ships, on Java 17)
// gave for hand-written edge cases and random documents and paths. A line is
// "G <hex path> <hex json> <N | V<hex result>>"; '-' stands for a null path.
func TestGetJSONObjectGolden(t *testing.T) {
	f, err := os.Open("testdata/jsongolden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	n, bad := 0, 0
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 4 || p[0] != "G" {
			continue
		}
		n++
		pathHex, jsonHex := p[1], p[2]
		if jsonHex == "-" {
			jsonHex = ""
		}
		doc, _ := hex.DecodeString(jsonHex)
		var got string
		if pathHex == "-" {
			got = "N"
		} else {
			path, _ := hex.DecodeString(pathHex)
			parsed, ok, refuse := parseJSONPath(string(path))
			if refuse != "" {
				continue
			}
			got = "N"
			if ok {
				ev := &jsonPathEval{path: parsed, ver: 17}
				if out, ok := ev.eval(doc); ok {
					got = "V" + hex.EncodeToString(out)
				}
			}
		}
		if got != p[3] {
			bad++
			if bad <= 20 {
				path, _ := hex.DecodeString(pathHex)
				want, _ := hex.DecodeString(strings.TrimPrefix(p[3], "V"))
				g, _ := hex.DecodeString(strings.TrimPrefix(got, "V"))
				t.Errorf("get_json_object(%q, %q) = %s %q, Spark %s %q", doc, path, got[:1], g, p[3][:1], want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases", n)
	if n < 100 {
		t.Fatalf("only %d cases read", n)
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, n)
	}
}

func getJSONObjectJSON(doc, path string) string {
	return node("GetJsonObject", "string", "json", doc, "path", path)
}

// TestGetJSONObjectEval runs the expression over columns: null documents, a null or invalid
// literal path, a literal document, and the refusals.
func TestGetJSONObjectEval(t *testing.T) {
	SetJavaVersion(17)
	docs := column(t, "string", `{"a":{"b":[1,2.50]},"s":"x"}`, nil, "", `{"s":"\u00e9"}`, "bad")
	got, err := run(t, getJSONObjectJSON(col(0, "string"), litStr("$.a")), docs)
	expectRows(t, "$.a", got, err, `{"b":[1,2.5]}`, "null", "null", "null", "null")
	got, err = run(t, getJSONObjectJSON(col(0, "string"), litStr("$.s")), docs)
	expectRows(t, "$.s", got, err, "x", "null", "null", "é", "null")
	got, err = run(t, getJSONObjectJSON(col(0, "string"), litStr("$.a.b[*]")), docs)
	expectRows(t, "$.a.b[*]", got, err, "[1,2.5]", "null", "null", "null", "null")
	got, err = run(t, getJSONObjectJSON(col(0, "string"), litStr("a")), docs)
	expectRows(t, "invalid path", got, err, "null", "null", "null", "null", "null")
	got, err = run(t, getJSONObjectJSON(col(0, "string"), lit("string", "null")), docs)
	expectRows(t, "null path", got, err, "null", "null", "null", "null", "null")
	got, err = run(t, getJSONObjectJSON(litStr(`[7,8]`), litStr("$[1]")), docs)
	expectRows(t, "literal document", got, err, "8", "8", "8", "8", "8")
	got, err = run(t, getJSONObjectJSON(litStr(`{"a b":1," c":2}`), litStr("$['a b']. c")), docs)
	expectRows(t, "whitespace", got, err, "null", "null", "null", "null", "null")
	got, err = run(t, getJSONObjectJSON(litStr(`{"a b":{"c":2}}`), litStr("$['a b']. c")), docs)
	expectRows(t, "leading whitespace", got, err, "2", "2", "2", "2", "2")
	got, err = run(t, getJSONObjectJSON(litStr(`{"x":1,"x ":3}`), litStr("$.x ")), docs)
	expectRows(t, "trailing whitespace", got, err, "3", "3", "3", "3", "3")
	expectRefused(t, "long index", getJSONObjectJSON(col(0, "string"), litStr("$[99999999999999999999]")), "beyond a long")
	expectRefused(t, "column path", getJSONObjectJSON(col(0, "string"), col(0, "string")), "non-literal")
}

// TestJSONTupleGolden checks json_tuple's fields against testdata/jsontuplegolden.txt, answers of
// Spark 4.1.3's JsonTupleEvaluator: "T <hex json> <hex names, comma-separated, ~ for an empty name>
// <N | V<hex> for each field, ;-separated>".
func TestJSONTupleGolden(t *testing.T) {
	SetJavaVersion(17)
	f, err := os.Open("testdata/jsontuplegolden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	n, bad := 0, 0
	var p jsonScanner
	var g jsonGen
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 || fs[0] != "T" {
			continue
		}
		n++
		if fs[1] == "-" {
			fs[1] = ""
		}
		doc, _ := hex.DecodeString(fs[1])
		var names [][]byte
		for _, h := range strings.Split(fs[2], ",") {
			if h == "~" {
				h = ""
			}
			b, _ := hex.DecodeString(h)
			names = append(names, append([]byte{}, b...))
		}
		want := strings.Split(fs[3], ";")
		vals := make([][]byte, len(names))
		ok := tupleRow(&p, &g, names, vals, doc)
		for k := range names {
			got := "N"
			if ok && vals[k] != nil {
				got = "V" + hex.EncodeToString(vals[k])
			}
			if got != want[k] {
				bad++
				if bad <= 20 {
					t.Errorf("json_tuple(%q, %q) field %d = %s, Spark %s", doc, names, k, got, want[k])
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d cases read", n)
	}
	if bad > 0 {
		t.Errorf("%d fields differ", bad)
	}
}

// TestJSONTupleFieldsShareAScan evaluates json_tuple's fields over batches in BolideGenerate's
// order and out of it: each field gets its own column, and nothing is left allocated.
func TestJSONTupleFieldsShareAScan(t *testing.T) {
	SetJavaVersion(17)
	args := []*plan.Expr{parse(t, col(0, "string")), parse(t, litStr("a")), parse(t, lit("string", "null")), parse(t, litStr("b"))}
	fields, err := JSONTupleFields(args, &plan.Conf{})
	if err != nil {
		t.Fatal(err)
	}
	b1 := batch(column(t, "string", `{"a":1,"b":"x"}`, nil, `{"b":[1, 2.50],"a":"\ud83d"}`, `{"a":{"c":null}}`))
	b2 := batch(column(t, "string", `{"b":"y","b":"z"}`, "[]"))
	ctx := newCtx()
	evalField := func(k int, b *columnar.Batch) []string {
		a, err := fields[k].Eval(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		return showAll(a)
	}
	for _, c := range []struct {
		k    int
		b    *columnar.Batch
		want string
	}{
		{0, b1, "[1 null null {\"c\":null}]"}, {1, b1, "[null null null null]"}, {2, b1, "[x null null null]"},
		{2, b2, "[z null]"}, {0, b2, "[null null]"}, {2, b2, "[z null]"}, {1, b1, "[null null null null]"},
		{0, b1, "[1 null null {\"c\":null}]"},
	} {
		if got := fmt.Sprint(evalField(c.k, c.b)); got != c.want {
			t.Errorf("field %d = %s, want %s", c.k, got, c.want)
		}
	}
	// Fields 0 and 1 of b1 remain computed and untaken: a new batch drops them.
	fields[0].(*jsonTupleField).shared.drop()
}

// TestJSONLongStrings: Jackson refuses to read a string value of more than 20000000 chars, but
// skips one (answers of Spark 4.1.3's evaluators).
func TestJSONLongStrings(t *testing.T) {
	const n = 20000000
	long, longer := strings.Repeat("x", n), strings.Repeat("x", n+1)
	for _, c := range []struct {
		path, doc string
		want      int // result length, -1 for null
	}{
		{"$.a", `{"a":"` + longer + `"}`, -1}, {"$.a", `{"a":"` + long + `"}`, n},
		{"$.a", `{"a":1,"b":"` + longer + `"}`, 1}, {"$.a", `{"a":["` + longer + `"]}`, -1},
		{"$.a", `{"a":["` + long + `"]}`, n + 4}, {"$[*]", `["` + longer + `"]`, -1},
	} {
		parsed, _, _ := parseJSONPath(c.path)
		ev := &jsonPathEval{path: parsed, ver: 17}
		got := -1
		if out, ok := ev.eval([]byte(c.doc)); ok {
			got = len(out)
		}
		if got != c.want {
			t.Errorf("get_json_object(<%d chars>, %s): length %d, want %d", len(c.doc), c.path, got, c.want)
		}
	}
	names := [][]byte{[]byte("a"), []byte("b")}
	vals := make([][]byte, 2)
	var p jsonScanner
	var g jsonGen
	if tupleRow(&p, &g, names, vals, []byte(`{"a":1,"b":"`+longer+`"}`)) {
		t.Errorf("json_tuple over a string too long to read: not null")
	}
	if tupleRow(&p, &g, names, vals, []byte(`{"a":1,"b":["`+longer+`"]}`)) {
		t.Errorf("json_tuple copying a string too long to read: not null")
	}
	if !tupleRow(&p, &g, names, vals, []byte(`{"a":1,"c":"`+longer+`"}`)) || string(vals[0]) != "1" {
		t.Errorf("json_tuple skipping a string too long to read: %q", vals)
	}
}
