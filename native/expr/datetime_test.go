package expr

import (
	"math"
	"testing"
)

func TestDateFields(t *testing.T) {
	// Days since 1970-01-01 and the proleptic Gregorian date (java.time.LocalDate.ofEpochDay).
	days := []any{0, -1, 11016, 11017, -25509, -25508, -135081, 19782, -141438, -141427, -719162, -719163,
		2932896, math.MaxInt32, math.MinInt32, nil}
	years := s("1970", "1969", "2000", "2000", "1900", "1900", "1600", "2024", "1582", "1582", "1", "0",
		"9999", "5881580", "-5877641", "null")
	months := s("1", "12", "2", "3", "2", "3", "2", "2", "10", "10", "1", "12", "12", "7", "6", "null")
	dom := s("1", "31", "29", "1", "28", "1", "29", "29", "4", "15", "1", "31", "31", "11", "23", "null")
	for _, c := range []struct {
		class string
		want  []string
	}{{"Year", years}, {"Month", months}, {"DayOfMonth", dom}} {
		got, err := run(t, node(c.class, "integer", "child", col(0, "date")), column(t, "date", days...))
		expectRows(t, c.class, got, err, c.want...)
		got, err = run(t, node(c.class, "integer", "child", col(0, "date")), column(t, "date"))
		expectRows(t, c.class+" empty batch", got, err)
		got, err = run(t, node(c.class, "integer", "child", col(0, "date")), column(t, "date", nil, nil))
		expectRows(t, c.class+" all null", got, err, "null", "null")
	}
	got, err := run(t, node("Year", "integer", "child", lit("date", "-719163")), column(t, "integer", 1))
	expectRows(t, "year literal", got, err, "0")
	expectRefused(t, "year of timestamp", node("Year", "integer", "child", col(0, "timestamp")), "Year of timestamp")
}

func TestDateAddSub(t *testing.T) {
	start := column(t, "date", 0, -1, 11016, math.MaxInt32, math.MinInt32, nil, 5)
	n := column(t, "integer", 1, -365, 366, 1, 1, 1, nil)
	got, err := run(t, node("DateAdd", "date", "startDate", col(0, "date"), "days", col(1, "integer")), start, n)
	// Java int addition wraps, in every eval mode.
	expectRows(t, "date_add", got, err, "1", "-366", "11382", "-2147483648", "-2147483647", "null", "null")
	got, err = run(t, node("DateSub", "date", "startDate", col(0, "date"), "days", col(1, "integer")), start, n)
	expectRows(t, "date_sub", got, err, "-1", "364", "10650", "2147483646", "2147483647", "null", "null")
	got, err = run(t, node("DateAdd", "date", "startDate", col(0, "date"), "days", lit("short", "-3")), column(t, "date", 10, nil))
	expectRows(t, "date_add short literal", got, err, "7", "null")
	got, err = run(t, node("DateSub", "date", "startDate", lit("date", "100"), "days", col(0, "byte")), column(t, "byte", -128, 127, nil))
	expectRows(t, "date_sub byte", got, err, "228", "-27", "null")
	got, err = run(t, node("DateAdd", "date", "startDate", col(0, "date"), "days", lit("integer", "null")), column(t, "date", 1))
	expectRows(t, "null days", got, err, "null")
	got, err = run(t, node("DateAdd", "date", "startDate", col(0, "date"), "days", litInt(1)), column(t, "date"))
	expectRows(t, "empty batch", got, err)
	expectRefused(t, "long days", node("DateAdd", "date", "startDate", col(0, "date"), "days", col(1, "long")), "DateAdd of date and long")
}
