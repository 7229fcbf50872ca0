package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

func mustZone(t *testing.T, id string) *tzZone {
	t.Helper()
	z, err := loadZone(id)
	if err != nil {
		t.Fatalf("zone %s: %v", id, err)
	}
	return z
}

func TestZoneIDs(t *testing.T) {
	for id, off := range map[string]int64{"UTC": 0, "Z": 0, "GMT": 0, "+08:00": 8 * 3600, "-05:30": -5*3600 - 1800,
		"+1": 3600, "-0130": -5400, "+01:02:03": 3723, "GMT+8": 8 * 3600, "UTC-03:00": -3 * 3600, "EST": -5 * 3600,
		"HST": -10 * 3600} {
		z := mustZone(t, id)
		if got := z.offsetAt(1_700_000_000); got != off {
			t.Errorf("%s: offset %d, want %d", id, got, off)
		}
	}
	if z := mustZone(t, "PST"); z.name != "America/Los_Angeles" {
		t.Errorf("PST is %s", z.name)
	}
	for _, bad := range []string{"", "Local", "+19:00", "+1:30", "Nowhere/City", "../etc/passwd", "UTC+", "PDT"} {
		if _, err := loadZone(bad); err == nil {
			t.Errorf("zone %q accepted", bad)
		}
	}
}

// step is 6 hours to 2100, then 3 days (the transitions themselves are checked one by one).
func step(s int64) int64 {
	if s < 4102444800 {
		return 6 * 3600
	}
	return 3 * 86400
}

// TestZoneOffsets checks the tabulated offsets against Go's time package every 6 hours over
// 1900-2100 (3 days to 2400), around each transition, and past the table (TZ rule).
func TestZoneOffsets(t *testing.T) {
	for _, id := range []string{"America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"} {
		z := mustZone(t, id)
		loc, _ := time.LoadLocation(id)
		oc := newOffsetCache(z)
		want := func(s int64) int64 { _, o := time.Unix(s, 0).In(loc).Zone(); return int64(o) }
		for s := int64(-2208988800); s < tzTableEnd+86400*400; s += step(s) {
			if got, w := oc.offset(s), want(s); got != w {
				t.Fatalf("%s at %d: %d, want %d", id, s, got, w)
			}
		}
		// Past the table: each change of offset between samples, found to the second.
		for s := z.tableEnd; s < tzTableEnd+86400*400; s += 3 * 86400 {
			if want(s) == want(s+3*86400) {
				continue
			}
			lo, hi := s, s+3*86400
			for hi-lo > 1 {
				if m := lo + (hi-lo)/2; want(m) == want(s) {
					lo = m
				} else {
					hi = m
				}
			}
			for _, x := range []int64{lo - 1, lo, hi, hi + 1} {
				if got, w := oc.offset(x), want(x); got != w {
					t.Fatalf("%s at %d (past the table): %d, want %d", id, x, got, w)
				}
			}
		}
		for _, tr := range z.trans {
			for _, s := range []int64{tr - 1, tr, tr + 1} {
				if got, w := oc.offset(s), want(s); got != w {
					t.Fatalf("%s at %d: %d, want %d", id, s, got, w)
				}
			}
		}
		for _, s := range []int64{tzTableEnd + 100*86400, tzTableEnd + 200*86400, 253402300799, -62135596800} {
			if got, w := z.offsetAt(s), want(s); got != w {
				t.Fatalf("%s at %d: %d, want %d", id, s, got, w)
			}
		}
	}
}

// TestResolveLocal checks ZonedDateTime.ofLocal's gap and overlap rules and atStartOfDay.
func TestResolveLocal(t *testing.T) {
	la := mustZone(t, "America/Los_Angeles")
	oc := newOffsetCache(la)
	local := func(s string) int64 {
		tm, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	utc := func(s string) int64 { return local(s) }
	// 2024-03-10 02:30 does not exist (02:00 PST -> 03:00 PDT): moved forward to 03:30 PDT.
	if got, want := oc.resolveLocal(local("2024-03-10 02:30:00"), 0, false, false), utc("2024-03-10 10:30:00"); got != want {
		t.Errorf("gap: %d, want %d", got, want)
	}
	// 2024-11-03 01:30 happens twice: the earlier offset (PDT) unless PST is preferred.
	if got, want := oc.resolveLocal(local("2024-11-03 01:30:00"), 0, false, false), utc("2024-11-03 08:30:00"); got != want {
		t.Errorf("overlap: %d, want %d", got, want)
	}
	if got, want := oc.resolveLocal(local("2024-11-03 01:30:00"), -8*3600, true, false), utc("2024-11-03 09:30:00"); got != want {
		t.Errorf("overlap preferring PST: %d, want %d", got, want)
	}
	// Midnight in a gap: America/Sao_Paulo 2018-11-04 00:00 -> 01:00 (-03 -> -02).
	sp := newOffsetCache(mustZone(t, "America/Sao_Paulo"))
	d := local("2018-11-04 00:00:00") / 86400
	if got, want := sp.startOfDayMicros(d), utc("2018-11-04 03:00:00")*1_000_000; got != want {
		t.Errorf("start of day in a gap: %d, want %d", got, want)
	}
	// Lord Howe moves by 30 minutes: 2024-10-06 02:00 -> 02:30 (+10:30 -> +11).
	lh := newOffsetCache(mustZone(t, "Australia/Lord_Howe"))
	if got, want := lh.resolveLocal(local("2024-10-06 02:10:00"), 0, false, false), local("2024-10-06 02:40:00")-11*3600; got != want {
		t.Errorf("Lord Howe gap: %d, want %d", got, want)
	}
}

func tsMicros(t *testing.T, s string) int {
	t.Helper()
	tm, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		t.Fatal(err)
	}
	return int(tm.UnixMicro())
}

func withZone(class, typ, zone string, fields ...string) string {
	return node(class, typ, append(fields, "timeZoneId", q(zone))...)
}

func TestHourMinuteSecond(t *testing.T) {
	ts := column(t, "timestamp", tsMicros(t, "2024-03-10 09:59:59.999999"), tsMicros(t, "2024-03-10 10:00:00"),
		tsMicros(t, "2024-11-03 08:30:00"), tsMicros(t, "2024-11-03 09:30:00"), -1, tsMicros(t, "1883-11-18 12:00:00"),
		tsMicros(t, "0001-01-01 00:00:00"), nil)
	for _, c := range []struct {
		class, zone string
		want        []string
	}{
		{"Hour", "America/Los_Angeles", s("1", "3", "1", "1", "15", "4", "16", "null")},
		{"Minute", "America/Los_Angeles", s("59", "0", "30", "30", "59", "7", "7", "null")},
		{"Second", "America/Los_Angeles", s("59", "0", "0", "0", "59", "2", "2", "null")},
		{"Hour", "UTC", s("9", "10", "8", "9", "23", "12", "0", "null")},
		{"Hour", "+05:30", s("15", "15", "14", "15", "5", "17", "5", "null")},
		{"Minute", "Asia/Kolkata", s("29", "30", "0", "0", "29", "21", "53", "null")},
	} {
		got, err := run(t, withZone(c.class, "integer", c.zone, "child", col(0, "timestamp")), ts)
		expectRows(t, c.class+" "+c.zone, got, err, c.want...)
	}
	// The fields against Go's time package over 300 years at a prime step.
	for _, id := range []string{"America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe"} {
		loc, _ := time.LoadLocation(id)
		var vals []any
		var wh, wm, ws []string
		for us := int64(-2208988800_000_000); us < 7258118400_000_000; us += 3_999_999_937_123 {
			vals = append(vals, int(us))
			tm := time.UnixMicro(us).In(loc)
			wh, wm, ws = append(wh, fmt.Sprint(tm.Hour())), append(wm, fmt.Sprint(tm.Minute())), append(ws, fmt.Sprint(tm.Second()))
		}
		col0 := column(t, "timestamp", vals...)
		for class, want := range map[string][]string{"Hour": wh, "Minute": wm, "Second": ws} {
			got, err := run(t, withZone(class, "integer", id, "child", col(0, "timestamp")), col0)
			expectRows(t, class+" sweep "+id, got, err, want...)
		}
	}
	expectRefused(t, "hour of ntz", withZone("Hour", "integer", "UTC", "child", col(0, "timestamp_ntz")), "Hour of timestamp_ntz")
	expectRefused(t, "hour in a bad zone", withZone("Hour", "integer", "Mars/Olympus", "child", col(0, "timestamp")), "time zone")
}

func TestUnixTime(t *testing.T) {
	ts := column(t, "timestamp", 0, -1, 1_500_000, -1_500_000, 999, -1000, nil)
	got, err := run(t, node("UnixSeconds", "long", "child", col(0, "timestamp")), ts)
	expectRows(t, "unix_seconds", got, err, "0", "-1", "1", "-2", "0", "-1", "null")
	got, err = run(t, node("UnixMillis", "long", "child", col(0, "timestamp")), ts)
	expectRows(t, "unix_millis", got, err, "0", "-1", "1500", "-1500", "0", "-1", "null")
	got, err = run(t, node("UnixMicros", "long", "child", col(0, "timestamp")), ts)
	expectRows(t, "unix_micros", got, err, "0", "-1", "1500000", "-1500000", "999", "-1000", "null")
}

// TestFixedZoneFastPathsMatchOffsetCache checks hour/minute/second and date_trunc to
// minute/hour/day in zones without transitions (their lookup-free loops) against the general
// loops, run on the same zone disguised as one with a transition between equal offsets: random
// timestamps of the whole range, unit boundaries and the range's ends (where date_trunc's result
// overflows), with nulls.
func TestFixedZoneFastPathsMatchOffsetCache(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	vals := []any{int64(0), int64(-1), int64(1), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64 + 1),
		int64(math.MaxInt64 - 1), nil, int64(-86_400_000_000), int64(3_599_999_999), int64(-3_600_000_001)}
	for range 3000 {
		v := rng.Int63() >> rng.Intn(63)
		if rng.Intn(2) == 0 {
			v = -v
		}
		if rng.Intn(4) == 0 {
			v -= v % 60_000_000 // a minute boundary, or next to one
			v += int64(rng.Intn(3)) - 1
		}
		vals = append(vals, v)
	}
	in := column(t, "timestamp", vals...)
	defer in.Release()
	for _, zone := range []string{"UTC", "Etc/UTC", "+05:30", "-08:00", "+01:02:03", "-00:00:30", "Etc/GMT+5"} {
		z, err := loadZone(zone)
		if err != nil {
			t.Fatal(err)
		}
		off, fixed := z.fixedOffset()
		if !fixed {
			t.Fatalf("%s: no fixed offset", zone)
		}
		slow := *z
		slow.trans, slow.offs = []int64{1 << 40}, []int64{off, off}
		var exprs []string
		for _, f := range []string{"Hour", "Minute", "Second"} {
			exprs = append(exprs, withZone(f, "integer", zone, "child", col(0, "timestamp")))
		}
		for _, level := range []string{"MINUTE", "HOUR", "DAY"} {
			exprs = append(exprs, withZone("TruncTimestamp", "timestamp", zone, "format", litStr(level), "timestamp", col(0, "timestamp")))
		}
		for _, js := range exprs {
			fast, general := mustTranslate(t, js), mustTranslate(t, js)
			switch g := general.(type) {
			case *getTsField:
				g.zone = &slow
			case *truncTimestamp:
				g.zone = &slow
			default:
				t.Fatalf("%s: unexpected %T", js, general)
			}
			for _, rows := range [][2]int{{0, 11}, {11, len(vals)}} { // the ends (date_trunc fails), then the rest
				part := array.NewSlice(in, int64(rows[0]), int64(rows[1]))
				want, werr := fast.Eval(newCtx(), batch(part))
				got, gerr := general.Eval(newCtx(), batch(part))
				part.Release()
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Fatalf("%s in %s rows %v: error %v, general path %v", fast, zone, rows, werr, gerr)
				}
				if werr != nil {
					continue
				}
				if w, g := showAll(want), showAll(got); strings.Join(w, "|") != strings.Join(g, "|") {
					t.Fatalf("%s in %s:\n fast    %v\n general %v", fast, zone, w, g)
				}
				want.Release()
				got.Release()
			}
		}
	}
}
