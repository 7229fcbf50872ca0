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

// BenchmarkDateFields is fn30's year(d), month(d), dayofmonth(d) and last_day(d).
func BenchmarkDateFields(b *testing.B) {
	for _, f := range []string{"Year", "Month", "DayOfMonth"} {
		b.Run(f, func(b *testing.B) {
			benchEval(b, node(f, "integer", "child", col(0, "date")), benchDates(benchRows))
		})
	}
	b.Run("LastDay", func(b *testing.B) {
		benchEval(b, node("LastDay", "date", "startDate", col(0, "date")), benchDates(benchRows))
	})
}
