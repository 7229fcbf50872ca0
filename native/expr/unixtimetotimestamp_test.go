package expr

import (
	"math"
	"testing"
)

func TestEpochToTimestamp(t *testing.T) {
	sec := func(typ string) string { return node("SecondsToTimestamp", "timestamp", "child", col(0, typ)) }
	got, err := run(t, sec("long"), column(t, "long", 1, -1, nil, int64(9223372036854), int64(-9223372036854)))
	expectRows(t, "seconds long", got, err, "1000000", "-1000000", "null", "9223372036854000000", "-9223372036854000000")
	_, err = run(t, sec("long"), column(t, "long", int64(9223372036855)))
	if err == nil {
		t.Errorf("seconds overflow: no error")
	}
	// A null row holding an overflowing value does not fail.
	got, err = run(t, sec("integer"), column(t, "integer", math.MaxInt32, math.MinInt32, nil))
	expectRows(t, "seconds int", got, err, "2147483647000000", "-2147483648000000", "null")
	got, err = run(t, sec("double"), column(t, "double", 1.5, math.NaN(), -0.0000015, 1e300, math.Inf(-1), nil, -1e300))
	expectRows(t, "seconds double", got, err, "1500000", "null", "-1", "9223372036854775807", "null", "null", "-9223372036854775808")
	got, err = run(t, sec("float"), column(t, "float", float32(0.1), float32(math.NaN())))
	expectRows(t, "seconds float", got, err, "100000", "null") // (double)0.1f*1e6 = 100000.00149...
	got, err = run(t, sec("decimal(20,7)"), column(t, "decimal(20,7)", "10", "-120", nil, "92233720368547758070"))
	expectRows(t, "seconds decimal", got, err, "1", "-12", "null", "9223372036854775807")
	if _, err = run(t, sec("decimal(20,7)"), column(t, "decimal(20,7)", "15")); err == nil {
		t.Errorf("seconds decimal with a fraction of a microsecond: no error")
	}
	got, err = run(t, sec("decimal(20,0)"), column(t, "decimal(20,0)", "-9223372036854", "7"))
	expectRows(t, "seconds decimal(20,0)", got, err, "-9223372036854000000", "7000000")
	if _, err = run(t, sec("decimal(20,0)"), column(t, "decimal(20,0)", "9223372036855")); err == nil {
		t.Errorf("seconds decimal overflow: no error")
	}
	ms := node("MillisToTimestamp", "timestamp", "child", col(0, "long"))
	got, err = run(t, ms, column(t, "long", -1, 1234, nil))
	expectRows(t, "millis", got, err, "-1000", "1234000", "null")
	us := node("MicrosToTimestamp", "timestamp", "child", col(0, "long"))
	got, err = run(t, us, column(t, "long", int64(math.MinInt64), int64(math.MaxInt64)))
	expectRows(t, "micros", got, err, "-9223372036854775808", "9223372036854775807")
	expectRefused(t, "millis of double", node("MillisToTimestamp", "timestamp", "child", col(0, "double")), "MillisToTimestamp of double")
}
