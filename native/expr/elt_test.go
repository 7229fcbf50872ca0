package expr

import (
	"testing"

	"github.com/bolide-dev/bolide/native/exec"
)

func eltJSON(fail bool, children ...string) string {
	list := "["
	for i, c := range children {
		if i > 0 {
			list += ","
		}
		list += c
	}
	return node("Elt", "string", "children", list+"]", "failOnError", map[bool]string{true: "true", false: "false"}[fail])
}

func TestElt(t *testing.T) {
	idx := column(t, "integer", 1, 2, 3, 0, nil, 2, -1)
	a := column(t, "string", "a0", "a1", "a2", "a3", "a4", "a5", "a6")
	bcol := column(t, "string", "b0", nil, "b2", "b3", "b4", "", "b6")
	got, err := run(t, eltJSON(false, col(0, "integer"), col(1, "string"), col(2, "string"), litStr("lit")), idx, a, bcol)
	expectRows(t, "elt legacy", got, err, "a0", "null", "lit", "null", "null", "", "null")
	_, err = run(t, eltJSON(true, col(0, "integer"), col(1, "string"), col(2, "string"), litStr("lit")), idx, a, bcol)
	if se, ok := exec.AsSparkError(err); !ok || se.Class != "INVALID_ARRAY_INDEX" || se.Params["indexValue"] != "0" || se.Params["arraySize"] != "3" {
		t.Errorf("elt ANSI: %v", err)
	}
	got, err = run(t, eltJSON(true, col(0, "integer"), col(1, "string"), lit("string", "null")), column(t, "integer", 2, nil, 1), column(t, "string", "x", "y", "z"))
	expectRows(t, "elt null input", got, err, "null", "null", "z")
}
