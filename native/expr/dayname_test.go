package expr

import "testing"

func TestDayMonthName(t *testing.T) {
	// 1970-01-01 was a Thursday; -719162 is 0001-01-01 (a Monday), 2932896 9999-12-31 (a Friday).
	days := column(t, "date", 0, -1, 31, nil, -719162, 2932896, 59)
	got, err := run(t, node("DayName", "string", "child", col(0, "date")), days)
	expectRows(t, "dayname", got, err, "Thu", "Wed", "Sun", "null", "Mon", "Fri", "Sun")
	got, err = run(t, node("MonthName", "string", "child", col(0, "date")), days)
	expectRows(t, "monthname", got, err, "Jan", "Dec", "Feb", "null", "Jan", "Dec", "Mar")
}
