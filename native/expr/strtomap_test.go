package expr

import (
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

const strMapJSON = `{"type":"map","keyType":"string","valueType":"string","valueContainsNull":true}`

func strToMapJSON(text, pair, kv string) string {
	return arrNodeT("StringToMap", strMapJSON, "text", text, "pairDelim", pair, "keyValueDelim", kv)
}

func TestStringToMap(t *testing.T) {
	texts := column(t, "string", "a:1,b:2,c:3", "a", "", nil, ",a:", ":x,y:z:w", "ü€:é,\xff:1", "k=v;k2=v2")
	got, err := arrRun(t, strToMapJSON(col(0, "string"), litStr(","), litStr(":")), texts)
	// Java's split keeps trailing empty pieces (limit -1): ",a:" has the keys "" and "a"; the
	// value is the rest after the first delimiter; invalid UTF-8 is decoded as U+FFFD.
	expectRows(t, "default delimiters", got, err, "[{a, 1}, {b, 2}, {c, 3}]", "[{a, null}]", "[{, null}]", "null",
		"[{, null}, {a, }]", "[{, x}, {y, z:w}]", "[{ü€, é}, {\uFFFD, 1}]", "[{k=v;k2=v2, null}]")

	// Regular expression delimiters.
	got, err = arrRun(t, strToMapJSON(col(0, "string"), litStr("[;,]"), litStr("=+")), column(t, "string", "k=v;k2==v2,k3", "a=b=c"))
	expectRows(t, "regex delimiters", got, err, "[{k, v}, {k2, v2}, {k3, null}]", "[{a, b=c}]")

	// A null delimiter makes every row null.
	got, err = arrRun(t, strToMapJSON(col(0, "string"), lit("string", "null"), litStr(":")), column(t, "string", "a:1"))
	expectRows(t, "null delimiter", got, err, "null")

	// Duplicate keys: DUPLICATED_MAP_KEY, or the last value in the first position under LAST_WIN.
	dup := column(t, "string", "a:1,b:2,a:3", "x")
	js := strToMapJSON(col(0, "string"), litStr(","), litStr(":"))
	_, err = arrRun(t, js, dup)
	expectSparkError(t, "duplicate key", err, "DUPLICATED_MAP_KEY", map[string]string{"key": "a"})
	e, terr := Translate(parse(t, js), &plan.Conf{Settings: map[string]string{"spark.sql.mapKeyDedupPolicy": "LAST_WIN"}})
	if terr != nil {
		t.Fatal(terr)
	}
	ctx := newCtx()
	out, err := e.Eval(ctx, batch(dup))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for i := 0; i < out.Len(); i++ {
		rows = append(rows, arrShow(out, i))
	}
	out.Release()
	expectRows(t, "last win", rows, nil, "[{a, 3}, {b, 2}]", "[{x, null}]")

	// Refusals: empty, non-literal and empty-matching delimiters.
	expectRefused(t, "empty delimiter", strToMapJSON(col(0, "string"), litStr(""), litStr(":")), "empty pairDelim")
	expectRefused(t, "column delimiter", strToMapJSON(col(0, "string"), col(1, "string"), litStr(":")), "non-literal")
	expectRefused(t, "empty match", strToMapJSON(col(0, "string"), litStr(","), litStr("x*")), "empty string")
}
