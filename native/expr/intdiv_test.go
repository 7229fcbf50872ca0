package expr

import (
	"testing"

	"github.com/bolide-dev/bolide/native/exec"
)

func TestIntegralDivide(t *testing.T) {
	l := column(t, "long", 7, -7, 7, int64(-9223372036854775808), nil, 5, 9, 0)
	r := column(t, "long", 2, 2, -2, -1, 0, 0, nil, 3)
	for _, mode := range []string{"LEGACY", "ANSI"} {
		js := arithJSON("IntegralDivide", "long", mode, col(0, "long"), col(1, "long"))
		got, err := run(t, js, l, r)
		if mode == "LEGACY" {
			expectRows(t, "div legacy", got, err, "3", "-3", "-3", "-9223372036854775808", "null", "null", "null", "0")
			continue
		}
		if se, ok := exec.AsSparkError(err); !ok || se.Class != "ARITHMETIC_OVERFLOW" {
			t.Errorf("div ANSI: %v", err)
		}
	}
	ansi := arithJSON("IntegralDivide", "long", "ANSI", col(0, "long"), col(1, "long"))
	got, err := run(t, ansi, column(t, "long", 7, nil, 1), column(t, "long", 2, 0, nil))
	expectRows(t, "div ANSI null dividend by zero", got, err, "3", "null", "null")
	_, err = run(t, ansi, column(t, "long", 7, 1), column(t, "long", 2, 0))
	if se, ok := exec.AsSparkError(err); !ok || se.Class != "DIVIDE_BY_ZERO" {
		t.Errorf("div ANSI by zero: %v", err)
	}
	if _, err := Translate(parse(t, arithJSON("IntegralDivide", "long", "TRY", col(0, "long"), col(1, "long"))), nil); err == nil {
		t.Errorf("TRY accepted")
	}
}

func TestBitwiseGet(t *testing.T) {
	js := node("BitwiseGet", "byte", "left", col(0, "integer"), "right", col(1, "integer"))
	got, err := run(t, js, column(t, "integer", 11, 11, -1, nil, 5), column(t, "integer", 0, 2, 31, 40, nil))
	expectRows(t, "bit_get int", got, err, "1", "0", "1", "null", "null")
	js = node("BitwiseGet", "byte", "left", col(0, "byte"), "right", litInt(7))
	got, err = run(t, js, column(t, "byte", -128, 127))
	expectRows(t, "bit_get byte", got, err, "1", "0")
	js = node("BitwiseGet", "byte", "left", col(0, "long"), "right", col(1, "integer"))
	got, err = run(t, js, column(t, "long", int64(-9223372036854775808), 1), column(t, "integer", 63, 64))
	if se, ok := exec.AsSparkError(err); !ok || se.Class != "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE" || se.Params["upper"] != "64" {
		t.Errorf("bit_get 64: %v %v", got, err)
	}
	_, err = run(t, node("BitwiseGet", "byte", "left", col(0, "short"), "right", litInt(-1)), column(t, "short", 1))
	if se, ok := exec.AsSparkError(err); !ok || se.Params["invalidValue"] != "-1" {
		t.Errorf("bit_get -1: %v", err)
	}
}
