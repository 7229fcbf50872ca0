package expr

import "testing"

func TestTrimFamily(t *testing.T) {
	// UTF8String.trim/trimLeft/trimRight remove ASCII spaces only: tabs, newlines and U+3000 stay.
	in := column(t, "string", "  a b  ", "", "   ", "\ta\t", " \u3000x ", nil, "x", " é ")
	for _, c := range []struct {
		class string
		want  []string
	}{
		{"StringTrim", s("a b", "", "", "\ta\t", "\u3000x", "null", "x", "é")},
		{"StringTrimLeft", s("a b  ", "", "", "\ta\t", "\u3000x ", "null", "x", "é ")},
		{"StringTrimRight", s("  a b", "", "", "\ta\t", " \u3000x", "null", "x", " é")},
	} {
		got, err := run(t, node(c.class, "string", "srcStr", col(0, "string"), "trimStr", "null"), in)
		expectRows(t, c.class, got, err, c.want...)
		got, err = run(t, node(c.class, "string", "srcStr", col(0, "string"), "trimStr", "null"), column(t, "string", nil, nil))
		expectRows(t, c.class+" all null", got, err, "null", "null")
	}
	got, err := run(t, node("StringTrim", "string", "srcStr", litStr("  lit  ")), column(t, "integer", 1, 2))
	expectRows(t, "trim of a literal (no trimStr field)", got, err, "lit", "lit")
	expectRefused(t, "collated trim string", node("StringTrim", "string", "srcStr", col(0, "string"), "trimStr",
		col(1, "string collate UTF8_LCASE")), "not supported natively") // a trim string: strtrim.go
	expectRefused(t, "collated", node("StringTrim", "string collate UTF8_LCASE", "srcStr", col(0, "string collate UTF8_LCASE"),
		"trimStr", "null"), "not supported natively")
}

func TestConcat(t *testing.T) {
	a := column(t, "string", "ab", "", nil, "é", "x")
	b := column(t, "string", "cd", "", "z", nil, "")
	got, err := run(t, node("Concat", "string", "children", "["+col(0, "string")+","+litStr("-")+","+col(1, "string")+"]"), a, b)
	expectRows(t, "concat", got, err, "ab-cd", "-", "null", "null", "x-")
	got, err = run(t, node("Concat", "string", "children", "["+col(0, "string")+","+lit("string", "null")+"]"), a)
	expectRows(t, "concat with null literal", got, err, "null", "null", "null", "null", "null")
	got, err = run(t, node("Concat", "string", "children", "[]"), column(t, "integer", 1))
	expectRows(t, "concat()", got, err, "")
	expectRefused(t, "binary concat", node("Concat", "binary", "children", "["+col(0, "binary")+"]"), "Concat of binary")
}

func TestConcatWs(t *testing.T) {
	sep := column(t, "string", ",", "", nil, "--", ",")
	a := column(t, "string", "ab", nil, "q", nil, nil)
	b := column(t, "string", "cd", "y", "z", nil, "w")
	cs := func(args ...string) string {
		out := "["
		for i, a := range args {
			if i > 0 {
				out += ","
			}
			out += a
		}
		return out + "]"
	}
	got, err := run(t, node("ConcatWs", "string", "children", cs(col(0, "string"), col(1, "string"), col(2, "string"))), sep, a, b)
	// Null arguments are skipped with their separator; a null separator gives null; all null gives "".
	expectRows(t, "concat_ws", got, err, "ab,cd", "y", "null", "", "w")
	got, err = run(t, node("ConcatWs", "string", "children", cs(litStr("/"), col(0, "string"), lit("string", "null"), col(0, "string"))), a)
	expectRows(t, "concat_ws literal sep", got, err, "ab/ab", "", "q/q", "", "")
	got, err = run(t, node("ConcatWs", "string", "children", cs(lit("string", "null"), col(0, "string"))), a)
	expectRows(t, "null sep", got, err, "null", "null", "null", "null", "null")
	got, err = run(t, node("ConcatWs", "string", "children", cs(litStr(","))), column(t, "integer", 1))
	expectRows(t, "separator only", got, err, "")
	expectRefused(t, "array argument", node("ConcatWs", "string", "children", cs(litStr(","), col(0, "array<string>"))), "array<string>")
}

func TestByteLengths(t *testing.T) {
	in := column(t, "string", "abc", "", "é😀", nil)
	got, err := run(t, node("OctetLength", "integer", "child", col(0, "string")), in)
	expectRows(t, "octet_length", got, err, "3", "0", "6", "null")
	got, err = run(t, node("BitLength", "integer", "child", col(0, "string")), in)
	expectRows(t, "bit_length", got, err, "24", "0", "48", "null")
	got, err = run(t, node("OctetLength", "integer", "child", col(0, "binary")), column(t, "binary", []byte{1, 2}, nil))
	expectRows(t, "octet_length binary", got, err, "2", "null")
	expectRefused(t, "octet_length int", node("OctetLength", "integer", "child", col(0, "integer")), "OctetLength of int")
}

func TestReplaceRepeatInstr(t *testing.T) {
	src := column(t, "string", "aaa", "abcabc", "", "héllo", nil, "xyz")
	got, err := run(t, node("StringReplace", "string", "srcExpr", col(0, "string"), "searchExpr", litStr("aa"), "replaceExpr", litStr("b")), src)
	// Non-overlapping, left to right: "aaa" -> "ba".
	expectRows(t, "replace", got, err, "ba", "abcabc", "", "héllo", "null", "xyz")
	got, err = run(t, node("StringReplace", "string", "srcExpr", col(0, "string"), "searchExpr", litStr(""), "replaceExpr", litStr("-")), src)
	expectRows(t, "replace empty search", got, err, "aaa", "abcabc", "", "héllo", "null", "xyz")
	got, err = run(t, node("StringReplace", "string", "srcExpr", col(0, "string"), "searchExpr", litStr("é"), "replaceExpr", litStr("")), src)
	expectRows(t, "replace by empty", got, err, "aaa", "abcabc", "", "hllo", "null", "xyz")
	got, err = run(t, node("StringReplace", "string", "srcExpr", col(0, "string"), "searchExpr", lit("string", "null"), "replaceExpr", litStr("")), src)
	expectRows(t, "replace null", got, err, "null", "null", "null", "null", "null", "null")

	got, err = run(t, node("StringRepeat", "string", "str", col(0, "string"), "times", col(1, "integer")),
		column(t, "string", "ab", "x", "é", nil, "q"), column(t, "integer", 3, 0, 2, 5, -1))
	expectRows(t, "repeat", got, err, "ababab", "", "éé", "null", "")

	got, err = run(t, node("StringInstr", "integer", "str", col(0, "string"), "substr", col(1, "string")),
		column(t, "string", "abcabc", "héllo", "héllo", "abc", "", nil, "a\xe9llo", "😀x"),
		column(t, "string", "ca", "l", "", "d", "", "a", "llo", "x"))
	// Code point positions; "a\xe9llo": 0xE9 announces a 3-byte character, so "llo" at byte 2 is
	// inside it and the next boundary is byte 4 ("lo"): no match at a boundary.
	expectRows(t, "instr", got, err, "3", "3", "1", "0", "1", "null", "0", "2")
}
