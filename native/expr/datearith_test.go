package expr

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

func dayOf(t *testing.T, s string) int {
	t.Helper()
	tm, err := time.Parse("2006-01-02", s)
	if err != nil {
		t.Fatal(err)
	}
	return int(tm.Unix() / 86400)
}

func days(t *testing.T, ds ...string) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		if d == "null" {
			out[i] = d
			continue
		}
		out[i] = fmt.Sprint(dayOf(t, d))
	}
	return out
}

func TestAddMonths(t *testing.T) {
	start := column(t, "date", dayOf(t, "2024-01-31"), dayOf(t, "2023-01-31"), dayOf(t, "2024-02-29"), dayOf(t, "2024-03-31"),
		dayOf(t, "0001-01-01"), -719163, dayOf(t, "9999-12-31"), nil, dayOf(t, "2000-05-15"))
	n := column(t, "integer", 1, 1, 12, -1, -1, 1, 1, 1, nil)
	got, err := run(t, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", col(1, "integer")), start, n)
	// Year 0 (1 BC) is a leap year in the proleptic calendar.
	expectRows(t, "add_months", got, err, append(days(t, "2024-02-29", "2023-02-28", "2025-02-28", "2024-02-29"),
		"-719193", "-719132", "2932927", "null", "null")...)
	got, err = run(t, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", litInt(-1_000_000)), column(t, "date", 0, nil))
	expectRows(t, "add_months a million months back", got, err, "-30436875", "null")
	if _, err = run(t, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", litInt(math.MinInt32)), column(t, "date", 0)); err == nil {
		t.Errorf("add_months before the int day range: no error")
	}
	_, err = run(t, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", litInt(math.MaxInt32)), column(t, "date", 0))
	if err == nil {
		t.Errorf("add_months past the int day range: no error")
	}
	// A null row with a value that would overflow raises nothing.
	got, err = run(t, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", col(1, "integer")),
		column(t, "date", nil, 5), column(t, "integer", math.MaxInt32, 1))
	expectRows(t, "add_months null row", got, err, "null", "36")
	// Against plusMonths by Go's time.AddDate with clamping, a sweep over 10000 years.
	for d := int32(-719162); d < 2932896; d += 7919 {
		for _, m := range []int32{1, -1, 13, -25, 1200} {
			tm := time.Unix(int64(d)*86400, 0).UTC()
			first := time.Date(tm.Year(), tm.Month()+time.Month(m), 1, 0, 0, 0, 0, time.UTC)
			last := first.AddDate(0, 1, -1).Day()
			day := tm.Day()
			if day > last {
				day = last
			}
			want := time.Date(first.Year(), first.Month(), day, 0, 0, 0, 0, time.UTC).Unix() / 86400
			if got := plusMonths(d, m); got != want {
				t.Fatalf("plusMonths(%d, %d) = %d, want %d", d, m, got, want)
			}
		}
	}
}

func TestMonthsBetween(t *testing.T) {
	mb := func(zone, round string) string {
		return withZone("MonthsBetween", "double", zone, "date1", col(0, "timestamp"), "date2", col(1, "timestamp"), "roundOff", round)
	}
	tru, fal := lit("boolean", "true"), lit("boolean", "false")
	t1 := column(t, "timestamp", tsMicros(t, "1997-02-28 10:30:00"), tsMicros(t, "2024-03-31 00:00:00"), tsMicros(t, "2024-01-15 23:00:00"),
		tsMicros(t, "1996-10-30 00:00:00"), nil, tsMicros(t, "0001-03-01 12:00:00"))
	t2 := column(t, "timestamp", tsMicros(t, "1996-10-30 00:00:00"), tsMicros(t, "2024-02-29 12:00:00"), tsMicros(t, "2024-02-15 01:00:00"),
		tsMicros(t, "1997-02-28 10:30:00"), 0, tsMicros(t, "2000-02-29 00:00:00"))
	got, err := run(t, mb("UTC", tru), t1, t2)
	// Spark's documented examples: 3.94959677 and, unrounded, 3.9495967741935485.
	expectRows(t, "months_between", got, err, "3.94959677", "1", "-1", "-3.94959677", "null", "-23987.88709677")
	got, err = run(t, mb("UTC", fal), t1, t2)
	expectRows(t, "months_between no round", got, err, "3.9495967741935485", "1", "-1", "-3.9495967741935485", "null", "-23987.887096774193")
	// In Los Angeles 2024-01-15 23:00 UTC is 15:00 on the 15th, 2024-02-15 01:00 UTC 17:00 on the 14th.
	got, err = run(t, mb("America/Los_Angeles", tru), t1, t2)
	expectRows(t, "months_between LA", got, err, "3.94959677", "1.04973118", "-0.97043011", "-3.94959677", "null", "-23987.88693922")
	got, err = run(t, mb("UTC", lit("boolean", "null")), t1, t2)
	expectRows(t, "months_between null roundOff", got, err, "null", "null", "null", "null", "null", "null")
	expectRefused(t, "column roundOff", mb("UTC", col(2, "boolean")), "roundOff")
	for _, c := range []struct {
		x    float64
		want int64
	}{{0.5, 1}, {-0.5, 0}, {-2.5, -2}, {2.5, 3}, {0.49999999999999994, 0}, {-1.5000000000000002, -2}, {1e300, math.MaxInt64},
		{math.NaN(), 0}, {-1e300, math.MinInt64}} {
		if got := javaRound(c.x); got != c.want {
			t.Errorf("javaRound(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestNextDay(t *testing.T) {
	start := column(t, "date", dayOf(t, "2015-01-14"), dayOf(t, "2015-01-20"), dayOf(t, "0001-01-01"), math.MaxInt32, math.MinInt32, nil)
	nd := func(name string, ansi bool) string {
		return node("NextDay", "date", "startDate", col(0, "date"), "dayOfWeek", name, "failOnError", fmt.Sprint(ansi))
	}
	got, err := run(t, nd(litStr("TU"), false), start)
	expectRows(t, "next_day TU", got, err, append(days(t, "2015-01-20", "2015-01-27", "0001-01-02"), "-2147483645", "-2147483645", "null")...)
	got, err = run(t, nd(litStr("sunday"), true), start)
	expectRows(t, "next_day sunday", got, err, append(days(t, "2015-01-18", "2015-01-25", "0001-01-07"), "-2147483647", "-2147483647", "null")...)
	got, err = run(t, nd(litStr("xx"), false), start)
	expectRows(t, "next_day invalid", got, err, "null", "null", "null", "null", "null", "null")
	got, err = run(t, nd(lit("string", "null"), false), start)
	expectRows(t, "next_day null", got, err, "null", "null", "null", "null", "null", "null")
	_, err = run(t, nd(litStr("xx"), true), start)
	expectSparkError(t, "next_day ANSI invalid literal", err, "ILLEGAL_DAY_OF_WEEK", map[string]string{"string": "xx"})
	got, err = run(t, nd(litStr("xx"), true), column(t, "date", nil, nil))
	expectRows(t, "next_day ANSI invalid name, null dates", got, err, "null", "null")
	_, err = run(t, nd(col(1, "string"), true), column(t, "date", 1, 2, 3), column(t, "string", "mon", "TUE", "a\xffb\xe2\x82"))
	expectSparkError(t, "next_day ANSI invalid column", err, "ILLEGAL_DAY_OF_WEEK", map[string]string{"string": "a\ufffdb\ufffd"})
	got, err = run(t, nd(col(1, "string"), true), column(t, "date", 1, nil, 3), column(t, "string", "mon", "bad", nil))
	expectRows(t, "next_day ANSI invalid name on a null date", got, err, "4", "null", "null")
	names := column(t, "string", "Mo", "frıday", "ſat", " mon", "wednesday", "Thurs", "", nil, "ß", "SUNDAY", "tue", "TH")
	st := column(t, "date", 0, 0, 0, 0, 0, 0, 0, 0, 0, nil, 0, 0)
	got, err = run(t, nd(col(1, "string"), false), st, names)
	// 1970-01-01 was a Thursday.
	expectRows(t, "next_day names", got, err, "4", "1", "2", "null", "6", "null", "null", "null", "null", "null", "5", "7")
}

func TestMakeDate(t *testing.T) {
	md := func(ansi bool) string {
		return node("MakeDate", "date", "year", col(0, "integer"), "month", col(1, "integer"), "day", col(2, "integer"), "failOnError", fmt.Sprint(ansi))
	}
	y := column(t, "integer", 2013, 2019, 2020, 1900, 2000, 1, 0, -1, 2024, 2024, nil, 9999)
	m := column(t, "integer", 7, 2, 2, 2, 2, 1, 12, 12, 13, 0, 1, 12)
	d := column(t, "integer", 15, 29, 29, 29, 29, 1, 31, 31, 1, 1, 1, 31)
	got, err := run(t, md(false), y, m, d)
	expectRows(t, "make_date", got, err, append(days(t, "2013-07-15", "null", "2020-02-29", "null", "2000-02-29", "0001-01-01"),
		"-719163", "-719529", "null", "null", "null", "2932896")...)
	_, err = run(t, md(false), column(t, "integer", 6000000), column(t, "integer", 1), column(t, "integer", 1))
	if err == nil {
		t.Errorf("make_date past the int day range: no error")
	}
	got, err = run(t, md(false), column(t, "integer", 6000000), column(t, "integer", 13), column(t, "integer", 1))
	expectRows(t, "make_date invalid month of a huge year", got, err, "null")
	got, err = run(t, md(false), column(t, "integer", -1000000000), column(t, "integer", 1), column(t, "integer", 1))
	expectRows(t, "make_date year out of LocalDate's range", got, err, "null")
	got, err = run(t, md(true), column(t, "integer", 2020, nil, 1), column(t, "integer", 2, 13, 1), column(t, "integer", 29, 1, 1))
	expectRows(t, "ANSI make_date valid", got, err, "18321", "null", "-719162")
	for _, c := range []struct {
		y, m, d int
		msg     string
	}{
		{2019, 2, 29, "Invalid date 'February 29' as '2019' is not a leap year"},
		{2020, 4, 31, "Invalid date 'APRIL 31'"},
		{2020, 2, 30, "Invalid date 'FEBRUARY 30'"},
		{2020, 13, 40, "Invalid value for MonthOfYear (valid values 1 - 12): 13"},
		{2020, 0, 1, "Invalid value for MonthOfYear (valid values 1 - 12): 0"},
		{2020, 1, 32, "Invalid value for DayOfMonth (valid values 1 - 28/31): 32"},
		{2020, 1, 0, "Invalid value for DayOfMonth (valid values 1 - 28/31): 0"},
		{-1000000000, 13, 1, "Invalid value for Year (valid values -999999999 - 999999999): -1000000000"},
	} {
		_, err = run(t, md(true), column(t, "integer", 2000, c.y), column(t, "integer", 1, c.m), column(t, "integer", 1, c.d))
		expectSparkError(t, "ANSI make_date "+c.msg, err, "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION",
			map[string]string{"rangeMessage": c.msg, "ansiConfig": `"spark.sql.ansi.enabled"`})
	}
	// Not on a row whose year is null.
	got, err = run(t, md(true), column(t, "integer", nil), column(t, "integer", 2), column(t, "integer", 30))
	expectRows(t, "ANSI make_date null year", got, err, "null")
}

func TestTrunc(t *testing.T) {
	tr := func(f string) string { return node("TruncDate", "date", "date", col(0, "date"), "format", f) }
	dates := column(t, "date", dayOf(t, "2015-03-05"), dayOf(t, "2024-12-31"), dayOf(t, "0001-01-01"), dayOf(t, "1970-01-01"), -1, nil)
	for f, want := range map[string][]string{
		"YEAR":    days(t, "2015-01-01", "2024-01-01", "0001-01-01", "1970-01-01", "1969-01-01", "null"),
		"mm":      days(t, "2015-03-01", "2024-12-01", "0001-01-01", "1970-01-01", "1969-12-01", "null"),
		"Quarter": days(t, "2015-01-01", "2024-10-01", "0001-01-01", "1970-01-01", "1969-10-01", "null"),
		"week":    append(days(t, "2015-03-02", "2024-12-30"), "-719162", "-3", "-3", "null"),
		"DD":      s("null", "null", "null", "null", "null", "null"),
		"foo":     s("null", "null", "null", "null", "null", "null"),
	} {
		got, err := run(t, tr(litStr(f)), dates)
		expectRows(t, "trunc "+f, got, err, want...)
	}
	got, err := run(t, tr(lit("string", "null")), dates)
	expectRows(t, "trunc null", got, err, "null", "null", "null", "null", "null", "null")
	expectRefused(t, "trunc column format", tr(col(1, "string")), "literal")

	dt := func(f, zone string) string {
		return withZone("TruncTimestamp", "timestamp", zone, "format", litStr(f), "timestamp", col(0, "timestamp"))
	}
	ts := column(t, "timestamp", tsMicros(t, "2015-03-05 09:32:05.359123"), tsMicros(t, "1969-12-31 23:59:59.999999"), nil)
	us := func(v ...string) []string {
		out := make([]string, len(v))
		for i, x := range v {
			if x == "null" {
				out[i] = x
			} else {
				out[i] = fmt.Sprint(tsMicros(t, x))
			}
		}
		return out
	}
	for f, want := range map[string][]string{
		"YEAR":        us("2015-01-01 00:00:00", "1969-01-01 00:00:00", "null"),
		"quarter":     us("2015-01-01 00:00:00", "1969-10-01 00:00:00", "null"),
		"MM":          us("2015-03-01 00:00:00", "1969-12-01 00:00:00", "null"),
		"WEEK":        us("2015-03-02 00:00:00", "1969-12-29 00:00:00", "null"),
		"DD":          us("2015-03-05 00:00:00", "1969-12-31 00:00:00", "null"),
		"HOUR":        us("2015-03-05 09:00:00", "1969-12-31 23:00:00", "null"),
		"minute":      us("2015-03-05 09:32:00", "1969-12-31 23:59:00", "null"),
		"SECOND":      us("2015-03-05 09:32:05", "1969-12-31 23:59:59", "null"),
		"MILLISECOND": us("2015-03-05 09:32:05.359", "1969-12-31 23:59:59.999", "null"),
		"MICROSECOND": us("2015-03-05 09:32:05.359123", "1969-12-31 23:59:59.999999", "null"),
		"bad":         s("null", "null", "null"),
	} {
		got, err := run(t, dt(f, "UTC"), ts)
		expectRows(t, "date_trunc "+f, got, err, want...)
	}
	// DST: in Los Angeles 2024-11-03 01:30 PST (the second 01:30) truncates to 01:00 PST; the day
	// of 2024-03-10 starts at 00:00 PST; 03:30 PDT that day truncated to the hour is 03:00 PDT.
	la := column(t, "timestamp", tsMicros(t, "2024-11-03 09:30:00"), tsMicros(t, "2024-11-03 08:30:00"), tsMicros(t, "2024-03-10 10:30:00"))
	got, err = run(t, dt("HOUR", "America/Los_Angeles"), la)
	expectRows(t, "date_trunc hour LA", got, err, us("2024-11-03 09:00:00", "2024-11-03 08:00:00", "2024-03-10 10:00:00")...)
	got, err = run(t, dt("DAY", "America/Los_Angeles"), la)
	expectRows(t, "date_trunc day LA", got, err, us("2024-11-03 07:00:00", "2024-11-03 07:00:00", "2024-03-10 08:00:00")...)
	// Lord Howe's half-hour DST: 2024-04-07 01:45 local +11 (14:45 UTC the day before) is before
	// the overlap 01:30-02:00; truncated to the hour it is 01:00 +11.
	lh := column(t, "timestamp", tsMicros(t, "2024-04-06 14:45:00"), tsMicros(t, "2024-04-06 15:15:00"))
	got, err = run(t, dt("HOUR", "Australia/Lord_Howe"), lh)
	expectRows(t, "date_trunc hour Lord Howe", got, err, us("2024-04-06 14:00:00", "2024-04-06 14:00:00")...)
	_, err = run(t, dt("YEAR", "UTC"), column(t, "timestamp", math.MinInt64))
	if err == nil {
		t.Errorf("date_trunc before the smallest timestamp: no error")
	}
}

// TestPlusMonthsMap checks add_months' batch kernel against plusMonths (civilFromDays64,
// LocalDate.plusMonths' clamping, daysFromCivil) for dates from year -290000 to 290000 (every
// day of years -1000 to 12000, 1582 and 9999 among them), the int range's ends and random int
// day counts, with month counts small and large, negative, near the ends of the int range and
// across leap days, both as columns and as a literal: equal results, and 0 where a result
// overflows the int range, flagged.
func TestPlusMonthsMap(t *testing.T) {
	var days []int32
	for d := int64(-1_100_000); d <= 3_700_000; d += 1 {
		days = append(days, int32(d))
	}
	for d := int64(-106_000_000); d <= 106_000_000; d += 997 {
		days = append(days, int32(d))
	}
	for d := int32(0); d < 50_000; d++ {
		days = append(days, math.MinInt32+d, math.MaxInt32-d)
	}
	rng := rand.New(rand.NewSource(6))
	for range 300_000 {
		days = append(days, int32(rng.Uint32()))
	}
	fixed := []int32{0, 1, -1, 3, 11, 12, 13, -12, -13, 24, 48, 1200, -1200, 12 * 400, 70_000_000, -70_000_000,
		178_956_970, -178_956_970, math.MaxInt32, math.MinInt32, math.MaxInt32 - 11, math.MinInt32 + 11}
	months := make([]int32, len(days))
	for i := range months {
		switch rng.Intn(4) {
		case 0:
			months[i] = fixed[rng.Intn(len(fixed))]
		case 1:
			months[i] = int32(rng.Uint32())
		default:
			months[i] = int32(rng.Intn(2401) - 1200)
		}
	}
	check := func(name string, days []int32, sm, mm int, ms []int32) {
		out := make([]int32, max(len(days), len(ms)))
		over := plusMonthsMap(days, sm, ms, mm, out)
		anyOver := false
		for i := range out {
			want := plusMonths(days[i&sm], ms[i&mm])
			if want != int64(int32(want)) {
				anyOver, want = true, 0
			}
			if int64(out[i]) != want {
				t.Fatalf("%s: add_months(%d, %d) = %d, want %d", name, days[i&sm], ms[i&mm], out[i], want)
			}
		}
		if over != anyOver {
			t.Fatalf("%s: overflow %v, want %v", name, over, anyOver)
		}
	}
	check("columns", days, -1, -1, months)
	var some []int32 // every 11th date, for each literal month count
	for i := 0; i < len(days); i += 11 {
		some = append(some, days[i])
	}
	for _, k := range fixed {
		check(fmt.Sprintf("literal %d", k), some, -1, 0, []int32{k})
	}
	check("literal date", []int32{-141428}, 0, -1, months[:100_000]) // every row adds to 1582-10-14
}
