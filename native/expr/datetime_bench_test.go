package expr

import (
	"strconv"
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

// BenchmarkConditionalStrings is fn30's if(n > 15, s, code) and coalesce(s, 'none'): string
// results gathered row by row from two sources.
func BenchmarkConditionalStrings(b *testing.B) {
	nums := func() arrow.Array {
		bb := array.NewInt32Builder(memory.NewTaskAllocator(nil))
		for i := 0; i < benchRows; i++ {
			bb.Append(int32((uint32(i) * 2654435761 >> 7) % 30))
		}
		return bb.NewArray()
	}
	codes := func() arrow.Array {
		bb := array.NewStringBuilder(memory.NewTaskAllocator(nil))
		for i := 0; i < benchRows; i++ {
			bb.Append(strconv.Itoa(int((uint32(i)*2654435761>>5)%1099999) - 99999))
		}
		return bb.NewArray()
	}
	b.Run("If", func(b *testing.B) {
		benchEval(b, ifJSON("string", node("GreaterThan", "boolean", "left", col(0, "integer"), "right", litInt(15)),
			col(1, "string"), col(2, "string")), nums(), benchFn30Strs(benchRows), codes())
	})
	b.Run("Coalesce", func(b *testing.B) {
		benchEval(b, coalesceJSON("string", col(0, "string"), litStr("none")), benchFn30Strs(benchRows))
	})
}
