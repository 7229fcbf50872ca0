package expr

import (
	"math"
	"math/rand"
	"testing"
	"time"
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

// TestDateFieldKernels checks the calendar kernels against Go's time package (the proleptic
// Gregorian calendar with a year 0, as java.time's) over ~40000 days from year -200 to 10000, and
// at the ends of the int range.
func TestDateFieldKernels(t *testing.T) {
	check := func(d int32) {
		tm := time.Unix(int64(d)*86400, 0).UTC()
		y, m, dom := civilFromDays(d)
		if int(y) != tm.Year() || time.Month(m) != tm.Month() || int(dom) != tm.Day() {
			t.Fatalf("day %d: civil %d-%d-%d, time %s", d, y, m, dom, tm)
		}
		if got, want := int64(daysFromCivil(int64(y), m, dom)), int64(d); got != want {
			t.Fatalf("day %d: daysFromCivil %d", d, got)
		}
		if got, want := isoWeekday(int64(d))%7+1, int32(tm.Weekday())+1; got != want {
			t.Fatalf("day %d (%s): dayofweek %d, want %d", d, tm, got, want)
		}
		_, wk := tm.ISOWeek()
		if got := isoWeek(d); got != int32(wk) {
			t.Fatalf("day %d (%s): weekofyear %d, want %d", d, tm, got, wk)
		}
		last := time.Date(tm.Year(), tm.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		if got, want := int64(lastDayOfMonth(d)), last.Unix()/86400; got != want {
			t.Fatalf("day %d (%s): last_day %d, want %d", d, tm, got, want)
		}
	}
	for d := int32(-792000); d < 2930000; d += 97 {
		check(d)
	}
	for d := int32(-800); d < 800; d++ { // every day around 1970 and the leap years next to it
		check(d)
	}
	for _, d := range []int32{math.MaxInt32, math.MaxInt32 - 6, math.MinInt32, math.MinInt32 + 6} {
		if w := isoWeek(d); w < 1 || w > 53 {
			t.Fatalf("day %d: week %d", d, w)
		}
	}
}

func TestMoreDateFields(t *testing.T) {
	// Spark's documented examples: weekofyear('2008-02-20') = 8, dayofweek('2009-07-30') = 5,
	// weekday('2009-07-30') = 3, dayofyear('2016-04-09') = 100, quarter('2016-08-31') = 3,
	// last_day('2009-01-12') = 2009-01-31 (14275), 5881580-07-11 (the largest date) a Friday, datediff('2009-07-31', '2009-07-30') = 1; plus
	// 2021-01-03, in ISO week 53 of 2020, and 2024-12-30, in week 1 of 2025.
	days := column(t, "date", 13929, 14455, 16900, 17044, 14256, 18630, 20087, math.MaxInt32, nil)
	for _, c := range []struct {
		class string
		want  []string
	}{
		{"WeekOfYear", s("8", "31", "14", "35", "3", "53", "1", "28", "null")},
		{"DayOfWeek", s("4", "5", "7", "4", "2", "1", "2", "6", "null")},
		{"WeekDay", s("2", "3", "5", "2", "0", "6", "0", "4", "null")},
		{"DayOfYear", s("51", "211", "100", "244", "12", "3", "365", "193", "null")},
		{"Quarter", s("1", "3", "2", "3", "1", "1", "4", "3", "null")},
	} {
		got, err := run(t, node(c.class, "integer", "child", col(0, "date")), days)
		expectRows(t, c.class, got, err, c.want...)
	}
	got, err := run(t, node("LastDay", "date", "startDate", col(0, "date")), days)
	// The last one wraps past the int range as Spark's int arithmetic does (5881580-07-31).
	expectRows(t, "last_day", got, err, "13938", "14456", "16921", "17044", "14275", "18658", "20088", "-2147483629", "null")
	got, err = run(t, node("DateDiff", "integer", "endDate", col(0, "date"), "startDate", col(1, "date")),
		column(t, "date", 14456, 0, math.MinInt32, nil, 3), column(t, "date", 14455, 1, 1, 2, nil))
	expectRows(t, "datediff", got, err, "1", "-1", "2147483647", "null", "null")
	got, err = run(t, node("UnixDate", "integer", "child", col(0, "date")), column(t, "date", -5, nil))
	expectRows(t, "unix_date", got, err, "-5", "null")
	got, err = run(t, node("DateFromUnixDate", "date", "child", col(0, "integer")), column(t, "integer", 7, nil))
	expectRows(t, "date_from_unix_date", got, err, "7", "null")
	expectRefused(t, "weekofyear of timestamp", node("WeekOfYear", "integer", "child", col(0, "timestamp")), "WeekOfYear of timestamp")
	expectRefused(t, "last_day of int", node("LastDay", "date", "startDate", col(0, "integer")), "LastDay of int")
	expectRefused(t, "datediff of ints", node("DateDiff", "integer", "endDate", col(0, "integer"), "startDate", col(1, "date")), "DateDiff of int")
}

// TestCivilFromDaysNS compares the fast (Neri-Schneider) conversion with Hinnant's era algorithm
// on every day of a wide range around 1970 (years -52000 to 56000), every day next to both ends
// of the int range and of the fast range, and random int64 day counts, and checks the dispatch
// at the fast range's edges and the int range's known ends.
func TestCivilFromDaysNS(t *testing.T) {
	check := func(d int64) {
		y, m, dom := civilFromDaysNS(d)
		wy, wm, wd := civilFromDaysEras(d)
		if y != wy || m != wm || dom != wd {
			t.Fatalf("day %d: fast %d-%d-%d, eras %d-%d-%d", d, y, m, dom, wy, wm, wd)
		}
	}
	for d := int64(-20_000_000); d <= 20_000_000; d++ {
		check(d)
	}
	for _, c := range []int64{math.MinInt32, math.MaxInt32, nsMinDay, nsMaxDay} {
		for d := c - 500_000; d <= c+500_000; d++ {
			if d >= nsMinDay && d <= nsMaxDay {
				check(d)
			}
		}
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 2_000_000; i++ {
		check(nsMinDay + rng.Int63n(nsMaxDay-nsMinDay+1))
	}
	for _, d := range []int64{nsMinDay - 1, nsMinDay, nsMaxDay, nsMaxDay + 1, math.MinInt64 / 2, math.MaxInt64 / 2, -1 << 40, 1 << 40} {
		y, m, dom := civilFromDays64(d)
		if wy, wm, wd := civilFromDaysEras(d); y != wy || m != wm || dom != wd {
			t.Fatalf("day %d: civilFromDays64 %d-%d-%d, eras %d-%d-%d", d, y, m, dom, wy, wm, wd)
		}
	}
	// LocalDate.ofEpochDay at the ends of DateType's range, and year 0 (1 BC), a leap year.
	for _, c := range []struct {
		d       int32
		y, m, x int32
	}{{math.MinInt32, -5877641, 6, 23}, {math.MaxInt32, 5881580, 7, 11}, {-719528, 0, 1, 1},
		{-719469, 0, 2, 29}, {-719468, 0, 3, 1}, {-141427, 1582, 10, 15}, {-141428, 1582, 10, 14}, {2932896, 9999, 12, 31}} {
		if y, m, x := civilFromDays(c.d); y != c.y || m != c.m || x != c.x {
			t.Errorf("day %d: %d-%d-%d, want %d-%d-%d", c.d, y, m, x, c.y, c.m, c.x)
		}
	}
}

// TestDaysFromCivilFastRange checks daysFromCivil's unsigned arithmetic against Hinnant's era
// algorithm over years across the fast range's ends and at random, every month (January and
// February belong to the previous March-based year) and days from 1 to 31 (and 0, -1: plusMonths
// and make_date never pass those, but the two must agree anyway).
func TestDaysFromCivilFastRange(t *testing.T) {
	years := []int64{0, 1, -1, 1969, 1970, 1600, 2000, 2100, -nsYearOff, -nsYearOff + 1, -nsYearOff + 2, 1<<40 - 1, 1 << 40,
		math.MaxInt32, math.MinInt32, -5_877_641, 5_881_580, 178_956_970, -178_956_970}
	rng := rand.New(rand.NewSource(4))
	for range 20000 {
		y := rng.Int63n(2*nsYearOff) - nsYearOff
		if rng.Intn(4) == 0 {
			y = rng.Int63n(4000) - 2000
		}
		years = append(years, y)
	}
	for _, y := range years {
		for m := int32(1); m <= 12; m++ {
			for _, d := range []int32{1, 2, 15, 28, 29, 30, 31, 0, -1} {
				if got, want := daysFromCivil(y, m, d), daysFromCivilEras(y, m, d); got != want {
					t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}

// TestCivilMap checks the batch kernel of year, month, dayofmonth, trunc(d, 'MM') and last_day
// against the exact scalar code (Hinnant's era algorithm, lastDayOfMonth) over every day from
// year -1000 to 12000 (1582, the epoch, year 0 and 9999 among them), every 37th day (all month
// positions in turn) from year -290000 to +290000, the int range's ends, leap days of century
// years, and random int day counts.
func TestCivilMap(t *testing.T) {
	var days []int32
	add := func(from, to, step int64) {
		for d := from; d <= to; d += step {
			days = append(days, int32(d))
		}
	}
	add(-1_100_000, 3_700_000, 1)
	add(-106_000_000, 106_000_000, 37)
	add(math.MinInt32, math.MinInt32+100_000, 1)
	add(math.MaxInt32-100_000, math.MaxInt32, 1)
	rng := rand.New(rand.NewSource(5))
	for range 1_000_000 {
		days = append(days, int32(rng.Uint32()))
	}
	for _, y := range []int64{1600, 1700, 1800, 1900, 2000, 2100, 2400, -100, -400, 0, 4, -4, 1582, 9999, 10000, -290000, 290000} {
		for _, d := range []int32{28, 29} {
			days = append(days, int32(daysFromCivilEras(y, 2, d)), int32(daysFromCivilEras(y, 3, 1)-1))
		}
	}
	out := make([]int32, 1<<16)
	for len(days) > 0 {
		chunk := days[:min(len(days), len(out))]
		days = days[len(chunk):]
		for part := civilYear; part <= civilMonthEnd; part++ {
			o := out[:len(chunk)]
			civilMap(chunk, o, part)
			for i, d := range chunk {
				y, m, dom := civilFromDaysEras(int64(d))
				var want int32
				switch part {
				case civilYear:
					want = int32(y)
				case civilMonth:
					want = m
				case civilDay:
					want = dom
				case civilMonthStart:
					want = d - dom + 1
				case civilMonthEnd:
					want = lastDayOfMonth(d)
				}
				if o[i] != want {
					t.Fatalf("civilMap part %d of day %d (%d-%d-%d): %d, want %d", part, d, y, m, dom, o[i], want)
				}
			}
		}
	}
}

// TestCivilMapDayDivision checks civilMap's division by 2141 by a multiply for every 16-bit value.
func TestCivilMapDayDivision(t *testing.T) {
	for x := uint32(0); x < 1<<16; x++ {
		if got, want := x*civilDayMul>>civilDayShift, x/2141; got != want {
			t.Fatalf("%d / 2141: %d, want %d", x, got, want)
		}
	}
}
