package expr

import (
	"strings"
	"testing"
)

func TestDatetimePatternFormat(t *testing.T) {
	// 2024-03-05 14:07:09.123456 local; 0044-12-31 00:00:00 BC-side values below.
	l := daysFromCivil(2024, 3, 5)*86400 + 14*3600 + 7*60 + 9
	for _, c := range []struct{ pat, want string }{
		{"yyyy-MM-dd HH:mm:ss", "2024-03-05 14:07:09"},
		{"y yy yyy yyyy yyyyy yyyyyy", "2024 24 2024 2024 02024 002024"},
		{"M MM MMM MMMM L LL", "3 03 Mar March 3 03"},
		{"d dd D DD DDD", "5 05 65 65 065"},
		{"H HH h hh k kk K KK a", "14 14 2 02 14 14 2 02 PM"},
		{"m mm s ss", "7 07 9 09"},
		{"S SS SSS SSSS SSSSSS SSSSSSSSS", "1 12 123 1234 123456 123456000"},
		{"E EE EEE EEEE Q QQ", "Tue Tue Tue Tuesday 1 01"},
		{"'T''s' '' yyyy'y'", "T's ' 2024y"},
		{"dd.MM/yy, -HH_mm é", "05.03/24, -14_07 é"},
	} {
		p, err := compileDatetimePattern(c.pat)
		if err != nil {
			t.Errorf("%s: %v", c.pat, err)
			continue
		}
		if got := string(p.appendLocal(nil, l, 123456, 0)); got != c.want {
			t.Errorf("%s: %q, want %q", c.pat, got, c.want)
		}
	}
	years := []struct {
		y    int64
		pat  string
		want string
	}{
		{10000, "yyyy", "+10000"}, {10000, "yyyyy", "10000"}, {123456, "yyyyy", "+123456"}, {-44, "yyyy", "-0044"},
		{-44, "yy", "44"}, {-44, "y", "-44"}, {0, "yyyy", "0000"}, {5, "yyy", "005"}, {-1, "yyy", "-001"},
		{1582, "yyyy-MM-dd", "1582-10-10"},
	}
	for _, c := range years {
		p, _ := compileDatetimePattern(c.pat)
		l := daysFromCivil(c.y, 10, 10) * 86400
		if got := string(p.appendLocal(nil, l, 0, 0)); got != c.want {
			t.Errorf("year %d %s: %q, want %q", c.y, c.pat, got, c.want)
		}
	}
	// Midnight and noon on the 12-hour clocks.
	p, _ := compileDatetimePattern("h K k H a")
	if got := string(p.appendLocal(nil, 0, 0, 0)); got != "12 0 24 0 AM" {
		t.Errorf("midnight: %q", got)
	}
	if got := string(p.appendLocal(nil, 12*3600, 0, 0)); got != "12 0 12 12 PM" {
		t.Errorf("noon: %q", got)
	}
	offs := []struct {
		off  int64
		want string
	}{
		{0, "+0000 +0000 Z Z Z +00 +0000 +00:00"},
		{-8 * 3600, "-0800 -0800 -08 -0800 -08:00 -08 -0800 -08:00"},
		{5*3600 + 1800, "+0530 +0530 +0530 +0530 +05:30 +0530 +0530 +05:30"},
		{3208, "+0053 +0053 +0053 +0053 +00:53 +0053 +0053 +00:53"},     // Berlin's LMT +0:53:28
		{-30, "+0000 +0000 Z Z Z +00 +0000 +00:00"},                     // seconds only
		{-(3600 + 59), "-0100 -0100 -01 -0100 -01:00 -01 -0100 -01:00"}, // seconds dropped
	}
	op, _ := compileDatetimePattern("Z ZZZ X XX XXX x xx xxx")
	for _, c := range offs {
		if got := string(op.appendLocal(nil, 0, 0, c.off)); got != c.want {
			t.Errorf("offset %d: %q, want %q", c.off, got, c.want)
		}
	}
	for _, bad := range []string{"yyyy G", "YYYY", "ww", "u", "e", "z", "VV", "XXXX", "ZZZZ", "xxxx", "O", "ZZZZZ", "MMMMM", "LLL",
		"QQQ", "yyyyyyy", "ddd", "aa", "[yyyy]", "yyyy'", "{", "#", "SSSSSSSSSS", "B", "n", "F"} {
		if _, err := compileDatetimePattern(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), "pattern") {
			t.Errorf("%q: reason %v", bad, err)
		}
	}
}

func TestDateFormatExpr(t *testing.T) {
	df := func(pat string) string {
		return node("DateFormatClass", "string", "left", col(0, "timestamp"), "right", litStr(pat),
			"timeZoneId", q("America/Los_Angeles"))
	}
	// 2021-03-14 09:59:59Z is 01:59:59 PST, a second later 03:00:00 PDT.
	got, err := run(t, df("yyyy-MM-dd HH:mm:ss.SSS a E"), column(t, "timestamp", int64(1615715999)*1_000_000+999999, nil,
		int64(1615716000)*1_000_000, -1))
	expectRows(t, "date_format LA", got, err, "2021-03-14 01:59:59.999 AM Sun", "null", "2021-03-14 03:00:00.000 AM Sun",
		"1969-12-31 15:59:59.999 PM Wed")
	got, err = run(t, node("DateFormatClass", "string", "left", col(0, "timestamp"), "right", lit("string", "null"),
		"timeZoneId", q("UTC")), column(t, "timestamp", 0))
	expectRows(t, "null pattern", got, err, "null")
	expectRefused(t, "zone letter", df("yyyy z"), "letter 'z'")
	expectRefused(t, "column pattern", node("DateFormatClass", "string", "left", col(0, "timestamp"), "right", col(1, "string")), "non-literal")
}
