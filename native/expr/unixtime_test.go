package expr

import (
	"math"
	"testing"
)

func TestFromUnixTime(t *testing.T) {
	fu := node("FromUnixTime", "string", "sec", col(0, "long"), "format", litStr("yyyy-MM-dd HH:mm:ss"),
		"timeZoneId", q("Europe/Berlin"))
	// Long.MaxValue * 10^6 wraps to -1000000 (1969-12-31 23:59:59Z), as Spark's multiplication.
	got, err := run(t, fu, column(t, "long", 0, -1, nil, int64(math.MaxInt64), int64(-62135596800)))
	expectRows(t, "from_unixtime Berlin", got, err, "1970-01-01 01:00:00", "1970-01-01 00:59:59", "null",
		"1970-01-01 00:59:59", "0001-01-01 00:53:28")
	expectRefused(t, "zone letter", node("FromUnixTime", "string", "sec", col(0, "long"), "format", litStr("yyyy VV"),
		"timeZoneId", q("UTC")), "letter 'V'")
}

func TestToUnixSeconds(t *testing.T) {
	ut := func(typ string) string {
		return node("UnixTimestamp", "long", "timeExp", col(0, typ), "format", litStr("yyyy-MM-dd HH:mm:ss"),
			"timeZoneId", q("America/Los_Angeles"))
	}
	got, err := run(t, ut("timestamp"), column(t, "timestamp", -1, -1_500_000, 1_999_999, nil))
	expectRows(t, "unix_timestamp of timestamps", got, err, "0", "-1", "1", "null")
	// 1970-01-01 starts at 08:00Z in Los Angeles.
	got, err = run(t, ut("date"), column(t, "date", 0, nil, -1))
	expectRows(t, "unix_timestamp of dates", got, err, "28800", "null", "-57600")
	if _, err = run(t, ut("date"), column(t, "date", math.MaxInt32)); err == nil {
		t.Errorf("unix_timestamp of a date past the long range of micros: no error")
	}
	expectRefused(t, "strings", node("ToUnixTimestamp", "long", "timeExp", col(0, "string"), "format", litStr("yyyy"),
		"timeZoneId", q("UTC")), "strings are parsed by Spark")
}
