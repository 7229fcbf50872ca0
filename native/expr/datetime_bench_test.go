package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/memory"
)

// benchDates are fn30's dates: 1970 to 2037, drawn from a hash of the row number.
func benchDates(n int) arrow.Array {
	b := array.NewDate32Builder(memory.NewTaskAllocator(nil))
	for i := 0; i < n; i++ {
		b.Append(arrow.Date32((uint32(i) * 2654435761) % 24837))
	}
	return b.NewArray()
}

// BenchmarkDateFields is fn30's year(d), month(d), dayofmonth(d), add_months(d, 3), last_day(d)
// and trunc(d, 'MM').
func BenchmarkDateFields(b *testing.B) {
	for _, f := range []string{"Year", "Month", "DayOfMonth"} {
		b.Run(f, func(b *testing.B) {
			benchEval(b, node(f, "integer", "child", col(0, "date")), benchDates(benchRows))
		})
	}
	b.Run("AddMonths", func(b *testing.B) {
		benchEval(b, node("AddMonths", "date", "startDate", col(0, "date"), "numMonths", litInt(3)), benchDates(benchRows))
	})
	b.Run("LastDay", func(b *testing.B) {
		benchEval(b, node("LastDay", "date", "startDate", col(0, "date")), benchDates(benchRows))
	})
	b.Run("TruncMonth", func(b *testing.B) {
		benchEval(b, node("TruncDate", "date", "date", col(0, "date"), "format", litStr("MM")), benchDates(benchRows))
	})
}

// benchTimestamps are fn30's timestamps: its dates plus a time of day, both from a hash of the
// row number.
func benchTimestamps(n int) arrow.Array {
	b := array.NewTimestampBuilder(memory.NewTaskAllocator(nil), &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	for i := 0; i < n; i++ {
		x := uint64(uint32(i) * 2654435761)
		b.Append(arrow.Timestamp(int64(x%24837)*86_400_000_000 + int64(x*2862933555777941757%86_400_000_000)))
	}
	return b.NewArray()
}

// BenchmarkTimestampFields is fn30's hour(ts) and date_trunc('HOUR', ts) in the session time
// zone of its run (Etc/UTC), and in a zone with transitions.
func BenchmarkTimestampFields(b *testing.B) {
	for _, zone := range []string{"Etc/UTC", "America/Los_Angeles"} {
		b.Run("Hour/"+zone, func(b *testing.B) {
			benchEval(b, withZone("Hour", "integer", zone, "child", col(0, "timestamp")), benchTimestamps(benchRows))
		})
		b.Run("TruncHour/"+zone, func(b *testing.B) {
			benchEval(b, withZone("TruncTimestamp", "timestamp", zone, "format", litStr("HOUR"), "timestamp", col(0, "timestamp")), benchTimestamps(benchRows))
		})
	}
}
