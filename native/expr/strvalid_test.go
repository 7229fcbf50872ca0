package expr

import (
	"fmt"
	"testing"
)

func invokeJSON(fn, typ string) string {
	return node("objects.Invoke", typ, "targetObject", col(0, "string"), "functionName", q(fn), "arguments", "[]")
}

func implUtilsJSON(method, typ string) string {
	return fmt.Sprintf(`{"class":"org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke","dataType":%s,"nullable":true,"fields":{`+
		`"staticObject":%q,"dataType":{"type":%s},"functionName":%q,"arguments":[%s],"inputTypes":[],`+
		`"propagateNull":true,"returnNullable":true,"isDeterministic":true}}`, q(typ), implUtils, q(typ), method, col(0, "string"))
}

// utf8Cases: valid, invalid of every kind UTF8String.makeValid distinguishes, and their
// maximal-subpart replacements.
var utf8Cases = []struct {
	in    any
	valid string
	fixed string
}{
	{"abc", "true", "abc"},
	{"", "true", ""},
	{nil, "null", "null"},
	{"é😀\uFFFD", "true", "é😀\uFFFD"},
	{"a\xffb", "false", "a\uFFFDb"},
	{"\x80", "false", "\uFFFD"},
	{"\xc0\xaf", "false", "\uFFFD\uFFFD"},           // overlong: C0 cannot start
	{"\xe0\x80\xaf", "false", "\uFFFD\uFFFD\uFFFD"}, // E0 needs A0..BF
	{"\xed\xa0\x80", "false", "\uFFFD\uFFFD\uFFFD"}, // a surrogate: ED needs 80..9F
	{"\xe2\x82", "false", "\uFFFD"},                 // truncated at the end: one subpart
	{"\xe2\x82x", "false", "\uFFFDx"},
	{"\xf0\x9f\x98", "false", "\uFFFD"},
	{"\xf4\x90\x80\x80", "false", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // above U+10FFFF
	{"\xf5", "false", "\uFFFD"},
}

func TestUTF8Validity(t *testing.T) {
	var in []any
	var valid, fixed, try []string
	for _, c := range utf8Cases {
		in = append(in, c.in)
		valid, fixed = append(valid, c.valid), append(fixed, c.fixed)
		switch c.valid {
		case "true":
			try = append(try, c.in.(string))
		default:
			try = append(try, "null")
		}
	}
	got, err := runRaw(t, invokeJSON("isValid", "boolean"), column(t, "string", in...))
	expectRows(t, "is_valid_utf8", got, err, valid...)
	got, err = runRaw(t, invokeJSON("makeValid", "string"), column(t, "string", in...))
	expectRows(t, "make_valid_utf8", got, err, fixed...)
	got, err = runRaw(t, implUtilsJSON("tryValidateUTF8String", "string"), column(t, "string", in...))
	expectRows(t, "try_validate_utf8", got, err, try...)
	expectRefused(t, "validate_utf8", implUtilsJSON("validateUTF8String", "string"), "INVALID_UTF8_STRING")
	expectRefused(t, "other method", invokeJSON("numChars", "integer"), "not supported natively")
}

func TestLuhnAndQuote(t *testing.T) {
	in := column(t, "string", "8112189876", "79927398713", "79927398714", "", nil, "0", "00", "1", "a1", "4111 1111",
		"٧٩٩٢٧٣٩٨٧١٣", "７９９２７３９８７１３", "\xff", "𝟎", "18")
	got, err := run(t, implUtilsJSON("isLuhnNumber", "boolean"), in)
	expectRows(t, "luhn_check", got, err, "true", "true", "false", "false", "null", "true", "true", "false", "false", "false",
		"true", "true", "false", "false", "true")
	got, err = runRaw(t, implUtilsJSON("quote", "string"), column(t, "string", "Don't", "", nil, "''", "a\\'b", "é\xff"))
	expectRows(t, "quote", got, err, "'Don\\'t'", "''", "null", "'\\'\\''", "'a\\\\'b'", "'é\uFFFD'")
}
