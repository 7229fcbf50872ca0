package expr

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// TestCastToStringLargeBatch prints batches far larger than the first guess of their size, so
// the output buffer grows several times (it once lost bytes written past its length when the
// allocator's slice had spare capacity).
func TestCastToStringLargeBatch(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 100, 5000, 40000} {
		vals := make([]any, n)
		want := make([]string, n)
		for i := range vals {
			v := r.Int63() - r.Int63()
			if i%7 == 0 {
				v = math.MinInt64 + int64(i)
			}
			if i%11 == 3 {
				vals[i], want[i] = nil, "null"
				continue
			}
			vals[i], want[i] = v, strconv.FormatInt(v, 10)
		}
		got, err := run(t, castJSON(col(0, "long"), "string", "LEGACY"), column(t, "long", vals...))
		expectRows(t, "long->string "+strconv.Itoa(n), got, err, want...)
	}
}

// TestCastTimeAloneToTimestamp: a time without a date is on today's date in the zone
// (LocalDate.now), the string's zone when it names one; 'T' must be the string's first byte, a
// time after a sign is no time; TIMESTAMP_NTZ rejects a time alone.
func TestCastTimeAloneToTimestamp(t *testing.T) {
	plus5 := time.FixedZone("", 5*3600)
	for attempt := 0; ; attempt++ {
		before := time.Now()
		got, err := run(t, castJSON(col(0, "string"), "timestamp", "LEGACY"),
			column(t, "string", "12:34:56", "T01:02:03.5", "T01:02:03+05:00", " 12:34:56", " T12:00:00", "+12:34:56"))
		after := time.Now()
		if (before.UTC().YearDay() != after.UTC().YearDay() || before.In(plus5).YearDay() != after.In(plus5).YearDay()) && attempt < 3 {
			continue // midnight passed while the cast ran
		}
		day := func(loc *time.Location) int64 {
			y, m, d := before.In(loc).Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
		}
		utc, p5 := day(time.UTC), day(plus5)
		expectRows(t, "time alone", got, err,
			strconv.FormatInt((utc+12*3600+34*60+56)*1e6, 10),
			strconv.FormatInt((utc+3600+2*60+3)*1e6+500000, 10),
			strconv.FormatInt((p5+3600+2*60+3-5*3600)*1e6, 10),
			strconv.FormatInt((utc+12*3600+34*60+56)*1e6, 10),
			"null", "null")
		break
	}
	got, err := run(t, castJSON(col(0, "string"), "timestamp_ntz", "LEGACY"), column(t, "string", "12:34:56", "T01:02:03"))
	expectRows(t, "time alone ntz", got, err, "null", "null")
}
