package expr

import "testing"

// Spark's DecimalAggregates: sum(dec(5,2)) = MakeDecimal(sum(UnscaledValue(dec)), 15, 2).
func TestUnscaledValueAndMakeDecimal(t *testing.T) {
	dec := column(t, "decimal(5,2)", "12345", "-1", nil, "0")
	got, err := run(t, node("UnscaledValue", "long", "child", col(0, "decimal(5,2)")), dec)
	expectRows(t, "UnscaledValue", got, err, "12345", "-1", "null", "0")

	longs := column(t, "long", int64(12345), int64(-1), nil, int64(1000))
	got, err = run(t, node("MakeDecimal", "decimal(5,2)", "child", col(0, "long"),
		"precision", "5", "scale", "2", "nullOnOverflow", "true"), longs)
	expectRows(t, "MakeDecimal", got, err, "123.45", "-0.01", "null", "10.00")

	// 10^3 does not fit decimal(3,1): null when nullOnOverflow, Spark's error otherwise.
	over := column(t, "long", int64(999), int64(1000), int64(-1000))
	got, err = run(t, node("MakeDecimal", "decimal(3,1)", "child", col(0, "long"),
		"precision", "3", "scale", "1", "nullOnOverflow", "true"), over)
	expectRows(t, "MakeDecimal overflow legacy", got, err, "99.9", "null", "null")
	_, err = run(t, node("MakeDecimal", "decimal(3,1)", "child", col(0, "long"),
		"precision", "3", "scale", "1", "nullOnOverflow", "false"), over)
	expectSparkError(t, "MakeDecimal overflow ansi", err, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", nil)

	expectRefused(t, "wide UnscaledValue", node("UnscaledValue", "long", "child", col(0, "decimal(20,2)")),
		"UnscaledValue of decimal(20,2)")
}
