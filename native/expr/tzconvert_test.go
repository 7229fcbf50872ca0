package expr

import (
	"math"
	"testing"
)

func TestUTCShift(t *testing.T) {
	from := func(z string) string {
		return node("FromUTCTimestamp", "timestamp", "left", col(0, "timestamp"), "right", litStr(z))
	}
	to := func(z string) string {
		return node("ToUTCTimestamp", "timestamp", "left", col(0, "timestamp"), "right", litStr(z))
	}
	got, err := run(t, from("America/Los_Angeles"), column(t, "timestamp", 0, nil, 1))
	expectRows(t, "from LA", got, err, "-28800000000", "null", "-28799999999")
	got, err = run(t, to("America/Los_Angeles"), column(t, "timestamp", 0, -1))
	expectRows(t, "to LA", got, err, "28800000000", "28799999999")
	// 2021-03-14 02:30 does not exist in Los Angeles: 03:30 PDT (10:30Z). 2021-11-07 01:30 is
	// twice: the earlier offset (PDT, 08:30Z).
	got, err = run(t, to("America/Los_Angeles"), column(t, "timestamp", int64(1615689000)*1_000_000, int64(1636248600)*1_000_000))
	expectRows(t, "to LA gap/overlap", got, err, "1615717800000000", "1636273800000000")
	got, err = run(t, from("+05:30"), column(t, "timestamp", 0))
	expectRows(t, "from +05:30", got, err, "19800000000")
	got, err = run(t, to("Australia/Lord_Howe"), column(t, "timestamp", 0))
	expectRows(t, "to Lord Howe", got, err, "-36000000000")
	got, err = run(t, node("FromUTCTimestamp", "timestamp", "left", col(0, "timestamp"), "right", lit("string", "null")),
		column(t, "timestamp", 0))
	expectRows(t, "null zone", got, err, "null")
	if _, err = run(t, from("Asia/Tokyo"), column(t, "timestamp", int64(math.MaxInt64))); err == nil {
		t.Errorf("from_utc_timestamp past the long range: no error")
	}
	expectRefused(t, "column zone", node("FromUTCTimestamp", "timestamp", "left", col(0, "timestamp"), "right", col(1, "string")), "non-literal")
	expectRefused(t, "bad zone", from("Mars/Base"), "Mars/Base")

	cz := node("ConvertTimezone", "timestamp_ntz", "sourceTz", litStr("Europe/Berlin"), "targetTz", litStr("America/Los_Angeles"),
		"sourceTs", col(0, "timestamp_ntz"))
	// 2021-03-28 02:30 does not exist in Berlin: 03:30 CEST = 01:30Z = 2021-03-27 18:30 PDT.
	got, err = run(t, cz, column(t, "timestamp_ntz", int64(1616898600)*1_000_000, 0))
	expectRows(t, "convert_timezone", got, err, "1616869800000000", "-32400000000")
}
