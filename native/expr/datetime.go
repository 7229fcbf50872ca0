package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Date functions of datetimeExpressions.scala over DateType (days since 1970-01-01):
//   - Year, Month, DayOfMonth (GetDateField): DateTimeUtils.getYear/getMonth/getDayOfMonth, i.e.
//     LocalDate.ofEpochDay(days) in the proleptic Gregorian calendar (Spark 3+; no Julian switch in
//     1582; year 0 is 1 BC). Every int day count is a valid LocalDate, so they never fail.
//   - Quarter, DayOfWeek (1 = Sunday), WeekDay (0 = Monday), DayOfYear, WeekOfYear (ISO 8601:
//     weeks start on Monday, week 1 has the year's first Thursday): the same LocalDate fields.
//   - DateAdd, DateSub: start +/- days on Java ints (the int, short or byte days widened), which
//     wrap on overflow in every eval mode (no addExact, no ANSI check).
//   - DateDiff (end - start), LastDay (days - dayOfMonth + lengthOfMonth), UnixDate and
//     DateFromUnixDate (the day count itself): Java int arithmetic, wrapping like Spark's.

func init() {
	Register("Year", "year(date): proleptic Gregorian year of a date (java.time.LocalDate), 0 for 1 BC", dateFieldTranslator(fieldYear))
	Register("Month", "month(date): month 1-12 of a date, proleptic Gregorian", dateFieldTranslator(fieldMonth))
	Register("DayOfMonth", "day(date): day of month 1-31 of a date, proleptic Gregorian", dateFieldTranslator(fieldDay))
	Register("Quarter", "quarter(date): quarter 1-4 of a date", dateFieldTranslator(fieldQuarter))
	Register("DayOfWeek", "dayofweek(date): 1 (Sunday) to 7 (Saturday)", dateFieldTranslator(fieldDayOfWeek))
	Register("WeekDay", "weekday(date): 0 (Monday) to 6 (Sunday)", dateFieldTranslator(fieldWeekDay))
	Register("DayOfYear", "dayofyear(date): day of the year 1-366, proleptic Gregorian", dateFieldTranslator(fieldDayOfYear))
	Register("WeekOfYear", "weekofyear(date): ISO 8601 week of the week-based year 1-53 (IsoFields.WEEK_OF_WEEK_BASED_YEAR)", dateFieldTranslator(fieldWeekOfYear))
	Register("LastDay", "last_day(date): the last day of the date's month (Java int arithmetic, as DateTimeUtils.getLastDayOfMonth)", translateLastDay)
	Register("UnixDate", "unix_date(date): days since 1970-01-01", translateDayCount("UnixDate", sparktype.Date, sparktype.IntType))
	Register("DateFromUnixDate", "date_from_unix_date(int): the date that many days after 1970-01-01", translateDayCount("DateFromUnixDate", sparktype.Int, sparktype.DateType))
	Register("DateDiff", "datediff(end, start): end - start in days (Java int arithmetic: wraps)", translateDateDiff)
	Register("DateAdd", "date_add(date, n) for int/short/byte n: date + n days, wrapping on int overflow as Spark does", dateArithTranslator(false))
	Register("DateSub", "date_sub(date, n) for int/short/byte n: date - n days, wrapping on int overflow as Spark does", dateArithTranslator(true))
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian (year, month, day), the
// calendar of java.time.LocalDate. Every int day count is inside civilFromDaysNS' range, so it is
// called directly (civilFromDays64's range check would be one more call per row: neither inlines).
func civilFromDays(days int32) (year int32, month, day int32) {
	y, m, d := civilFromDaysNS(int64(days))
	return int32(y), m, d
}

// civilPart is what civilMap derives from a date's year, month and day.
type civilPart uint8

const (
	civilYear       civilPart = iota // year(d)
	civilMonth                       // month(d)
	civilDay                         // dayofmonth(d)
	civilMonthStart                  // trunc(d, 'MM'): d - day + 1
	civilMonthEnd                    // last_day(d): d - day + lengthOfMonth, in Java int arithmetic
)

// civilDayMul and civilDayShift divide by 2141 below 2^16: x*civilDayMul>>civilDayShift is
// x/2141 there, and the product fits in 32 bits.
const (
	civilDayShift = 27
	civilDayMul   = (1<<civilDayShift)/2141 + 1
)

// civilMap writes part of each date of days into out (of the same length): civilFromDaysNS with
// the day count an int, inlined into one loop. fn30 takes year, month, day, trunc to the month and
// last_day of the same column, and the conversion cost less than the two calls per row it took
// through civilFromDays (the compiler inlines neither civilFromDays64 nor civilFromDaysNS). The
// switch on part does not depend on the row, so its branch is always predicted.
func civilMap(days, out []int32, part civilPart) {
	out = out[:len(days)]
	for i, dd := range days {
		// civilFromDaysNS, step by step (see there); every int day count is in its range.
		n1 := 4*uint64(int64(dd)+nsShift) + 3
		c := n1 / 146097
		nc := uint32(n1-c*146097) / 4
		p2 := 2939745 * uint64(4*nc+3)
		ny := uint32(p2) / 2939745 / 4
		n3 := 2141*ny + 197913
		// n3 mod 2^16 / 2141 as a multiply: exact below 2^16 (checked over all of them by
		// TestCivilMapDayDivision), where the compiler's general 32-bit sequence needs 33 bits.
		d := int32((n3&0xffff)*civilDayMul>>civilDayShift) + 1
		// January and February (ny >= 306, ny < 366) belong to the next civil year: j is 1 for
		// them, by the sign of 305 - ny, not a branch (random dates would mispredict it often).
		j := int32((305 - ny) >> 31)
		y := int32(100*c+p2>>32) - nsYearOff + j // fits: |y| <= 5.9 million
		m := int32(n3>>16) - 12*j
		switch part {
		case civilYear:
			out[i] = y
		case civilMonth:
			out[i] = m
		case civilDay:
			out[i] = d
		case civilMonthStart:
			out[i] = dd - d + 1
		default:
			l := monthDays[m&15]
			if m == 2 && y&3 == 0 && (y%100 != 0 || y%400 == 0) {
				l = 29
			}
			out[i] = dd - d + l
		}
	}
}

// daysFromCivil is civilFromDays' inverse: days since 1970-01-01 of a proleptic Gregorian date.
// Years from the era shift of civilFromDaysNS on (far more than dates and add_months reach) take
// unsigned arithmetic: with the year made non-negative, each quotient is by a constant and
// needs no sign correction; the March-based year and month are chosen without a branch.
func daysFromCivil(y int64, m, d int32) int64 {
	if y > -nsYearOff && y < 1<<40 && uint32(m-1) < 12 {
		var jf int64 // 1 for January and February, months 10 and 11 of the previous March-based year
		if m <= 2 {
			jf = 1
		}
		yy := uint64(y - jf + nsYearOff)
		mp := uint64(int64(m) + 12*jf - 3) // 0 = March
		return int64(365*yy+yy/4-yy/100+yy/400+(153*mp+2)/5+uint64(int64(d))-1) - nsShift
	}
	return daysFromCivilEras(y, m, d)
}

// daysFromCivilEras is H. Hinnant's civil-to-days algorithm on 400-year eras, for any year.
func daysFromCivilEras(y int64, m, d int32) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400 // [0, 399]
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthDays = [13]int32{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func lengthOfMonth(y, m int32) int32 { return lengthOfMonth64(int64(y), m) }

// lengthOfMonth64 takes the years add_months reaches past int32 (plusMonths).
func lengthOfMonth64(y int64, m int32) int32 {
	if m == 2 && isLeap(y) {
		return 29
	}
	return monthDays[m]
}

// isoWeekday is 1 (Monday) to 7 (Sunday); 1970-01-01 was a Thursday.
func isoWeekday(days int64) int32 {
	w := (days + 3) % 7
	if w < 0 {
		w += 7
	}
	return int32(w) + 1
}

// isoWeek is the ISO 8601 week of the week-based year: the week (Monday to Sunday) holding the
// date's Thursday, counted in the year that Thursday belongs to.
func isoWeek(days int32) int32 {
	thursday := int64(days) + int64(4-isoWeekday(int64(days)))
	y, _, _ := civilFromDays64(thursday)
	return int32((thursday-daysFromCivil(y, 1, 1))/7) + 1
}

// civilFromDays64 is civilFromDays for any day count (a Thursday next to the int range too).
func civilFromDays64(days int64) (int64, int32, int32) {
	if uint64(days-nsMinDay) <= nsMaxDay-nsMinDay {
		return civilFromDaysNS(days)
	}
	return civilFromDaysEras(days)
}

// The fast conversion, after Neri and Schneider ("Euclidean affine functions and their
// application to calendar algorithms", 2022): every quotient is by a constant and, after a
// shift of the day count by whole 400-year eras to make it non-negative, unsigned, so each is a
// multiply; the month comes from one more multiply and the March-based year is mapped back with
// a conditional move instead of branches. (Year, month and day of dates cost several signed
// divisions each in Hinnant's algorithm, the slowest step of fn30's date functions.) The shift
// covers every int day count and some margin; civilFromDaysEras takes the rest.
const (
	nsEras    = 14700                            // 400-year eras added: 14700 x 146097 days > 2^31
	nsShift   = 719468 + 146097*nsEras           // days from 0000-03-01, minus the era shift, to 1970-01-01
	nsMinDay  = -(1 << 31) - 100000              // the fast range: int day counts and a margin ...
	nsMaxDay  = 1<<31 + 100000                   // ... (the Thursday of a week at the int range's edge)
	nsYearOff = 400 * nsEras                     // years of the shift
	_         = uint64(nsMinDay + nsShift)       // the shifted count stays non-negative
	_         = uint64(4*(nsMaxDay+nsShift) + 3) // and 4N+3 fits easily
)

func civilFromDaysNS(days int64) (int64, int32, int32) {
	n := uint64(days + nsShift) // days since 0000-03-01 of the shifted calendar
	n1 := 4*n + 3
	c := n1 / 146097            // centuries
	nc := uint32(n1%146097) / 4 // day of the century
	n2 := 4*uint64(nc) + 3
	p2 := 2939745 * n2
	z := uint32(p2 >> 32)            // year of the century
	ny := uint32(p2) / 2939745 / 4   // day of the March-based year, 0 = March 1
	n3 := 2141*ny + 197913           // month and day of month, in one affine function
	m := int32(n3 >> 16)             // 3..14 (March to the next February)
	d := int32((n3&0xffff)/2141) + 1 // 1..31
	y := int64(100*c+uint64(z)) - nsYearOff
	if ny >= 306 { // January and February belong to the next civil year
		y++
		m -= 12
	}
	return y, m, d
}

// civilFromDaysEras is H. Hinnant's days-to-civil algorithm on 400-year eras, for any int64 day
// count the fast range leaves out.
func civilFromDaysEras(days int64) (int64, int32, int32) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return y, int32(m), int32(d)
}

type dateField uint8

const (
	fieldYear dateField = iota
	fieldMonth
	fieldDay
	fieldQuarter
	fieldDayOfWeek
	fieldWeekDay
	fieldDayOfYear
	fieldWeekOfYear
)

var dateFieldNames = [...]string{fieldYear: "year", fieldMonth: "month", fieldDay: "dayofmonth",
	fieldQuarter: "quarter", fieldDayOfWeek: "dayofweek", fieldWeekDay: "weekday", fieldDayOfYear: "dayofyear",
	fieldWeekOfYear: "weekofyear"}

type getDateField struct {
	field dateField
	child Expr
}

func (e *getDateField) Type() sparktype.Type { return sparktype.IntType }
func (e *getDateField) mayFail() bool        { return mayFail(e.child) }
func (e *getDateField) String() string {
	return fmt.Sprintf("%s(%s)", dateFieldNames[e.field], e.child)
}

func dateFieldTranslator(f dateField) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Date {
			return nil, unsupported("%s of %s is not supported natively", plan.ShortClass(pe.Class), c.Type())
		}
		return &getDateField{field: f, child: c}, nil
	}
}

func (e *getDateField) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *getDateField) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.PrimitiveTypes.Int32
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	days := values[int32](in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	switch e.field {
	case fieldYear:
		civilMap(days, out, civilYear)
	case fieldMonth:
		civilMap(days, out, civilMonth)
	case fieldDay:
		civilMap(days, out, civilDay)
	case fieldQuarter:
		for i, d := range days {
			_, m, _ := civilFromDays(d)
			out[i] = (m-1)/3 + 1
		}
	case fieldDayOfWeek:
		for i, d := range days {
			out[i] = isoWeekday(int64(d))%7 + 1
		}
	case fieldWeekDay:
		for i, d := range days {
			out[i] = isoWeekday(int64(d)) - 1
		}
	case fieldDayOfYear:
		for i, d := range days {
			y, _, _ := civilFromDays(d)
			out[i] = int32(int64(d)-daysFromCivil(int64(y), 1, 1)) + 1
		}
	case fieldWeekOfYear:
		for i, d := range days {
			out[i] = isoWeek(d)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- LastDay, UnixDate, DateFromUnixDate: one int32 column to another ----

type dayMap struct {
	name    string
	out     sparktype.Type
	lastDay bool // last_day; else the value itself
	arg     Expr
}

func (e *dayMap) Type() sparktype.Type { return e.out }
func (e *dayMap) mayFail() bool        { return mayFail(e.arg) }
func (e *dayMap) String() string       { return fmt.Sprintf("%s(%s)", e.name, e.arg) }

func lastDayOfMonth(days int32) int32 {
	y, m, d := civilFromDays(days)
	return days - d + lengthOfMonth(y, m) // int arithmetic, as Spark's (wraps past the int range)
}

func translateLastDay(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "startDate", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Date {
		return nil, unsupported("LastDay of %s is not supported natively", c.Type())
	}
	return &dayMap{name: "last_day", out: sparktype.DateType, lastDay: true, arg: c}, nil
}

func translateDayCount(class string, in sparktype.Kind, out sparktype.Type) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != in {
			return nil, unsupported("%s of %s is not supported natively", class, c.Type())
		}
		return &dayMap{name: strings.ToLower(class), out: out, arg: c}, nil
	}
}

func (e *dayMap) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *dayMap) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.arg, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.out.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	src := values[int32](in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	if !e.lastDay {
		copy(out, src)
	} else {
		civilMap(src, out, civilMonthEnd)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- DateDiff ----

type dateDiff struct{ end, start Expr }

func (e *dateDiff) Type() sparktype.Type { return sparktype.IntType }
func (e *dateDiff) mayFail() bool        { return mayFail(e.end) || mayFail(e.start) }
func (e *dateDiff) String() string       { return fmt.Sprintf("datediff(%s, %s)", e.end, e.start) }

func translateDateDiff(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	end, err := translateChild(pe, "endDate", conf)
	if err != nil {
		return nil, err
	}
	start, err := translateChild(pe, "startDate", conf)
	if err != nil {
		return nil, err
	}
	if end.Type().Kind != sparktype.Date || start.Type().Kind != sparktype.Date {
		return nil, unsupported("DateDiff of %s and %s is not supported natively", end.Type(), start.Type())
	}
	return &dateDiff{end: end, start: start}, nil
}

func (e *dateDiff) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *dateDiff) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	eo, so, err := evalLeftThenRight(ctx, b, e.end, e.start, active)
	if err != nil {
		return nil, err
	}
	defer eo.release()
	defer so.release()
	dt := arrow.PrimitiveTypes.Int32
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, eo, so)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newFixed[int32](ctx.Alloc, n)
	end, em := values[int32](eo.arr), eo.mask()
	start, sm := values[int32](so.arr), so.mask()
	for i := range out {
		out[i] = end[i&em] - start[i&sm]
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- DateAdd, DateSub ----

type dateArith struct {
	sub        bool
	start, num Expr
}

func (e *dateArith) Type() sparktype.Type { return sparktype.DateType }
func (e *dateArith) mayFail() bool        { return mayFail(e.start) || mayFail(e.num) }
func (e *dateArith) String() string {
	if e.sub {
		return fmt.Sprintf("date_sub(%s, %s)", e.start, e.num)
	}
	return fmt.Sprintf("date_add(%s, %s)", e.start, e.num)
}

func dateArithTranslator(sub bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		s, err := translateChild(pe, "startDate", conf)
		if err != nil {
			return nil, err
		}
		d, err := translateChild(pe, "days", conf)
		if err != nil {
			return nil, err
		}
		switch k := d.Type().Kind; {
		case s.Type().Kind != sparktype.Date, k != sparktype.Int && k != sparktype.Short && k != sparktype.Byte:
			return nil, unsupported("%s of %s and %s is not supported natively", plan.ShortClass(pe.Class), s.Type(), d.Type())
		}
		return &dateArith{sub: sub, start: s, num: d}, nil
	}
}

func (e *dateArith) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *dateArith) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, do, err := evalLeftThenRight(ctx, b, e.start, e.num, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	defer do.release()
	dt := arrow.FixedWidthTypes.Date32
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, so, do)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newFixed[int32](ctx.Alloc, n)
	start, sm := values[int32](so.arr), so.mask()
	switch e.num.Type().Kind {
	case sparktype.Byte:
		addDays(out, start, sm, values[int8](do.arr), do.mask(), e.sub)
	case sparktype.Short:
		addDays(out, start, sm, values[int16](do.arr), do.mask(), e.sub)
	default:
		addDays(out, start, sm, values[int32](do.arr), do.mask(), e.sub)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// addDays sets out[i] = start[i] +/- days[i] with Java int (wrapping) arithmetic.
func addDays[T int8 | int16 | int32](out, start []int32, sm int, days []T, dm int, sub bool) {
	if sub {
		for i := range out {
			out[i] = start[i&sm] - int32(days[i&dm])
		}
		return
	}
	for i := range out {
		out[i] = start[i&sm] + int32(days[i&dm])
	}
}
