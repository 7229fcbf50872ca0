package expr

import (
	"fmt"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Calendar arithmetic of datetimeExpressions.scala:
//   - AddMonths: DateTimeUtils.dateAddMonths, LocalDate.plusMonths (the day clamped to the new
//     month's length), then Math.toIntExact: a result outside the int day range fails the query
//     in Spark (java.lang.ArithmeticException) and here (an error naming it), in every mode.
//   - MonthsBetween: DateTimeUtils.monthsBetween in the expression's time zone: whole months when
//     the days of month agree or both are month ends, else the day and second difference over
//     31-day months, rounded to 8 digits with Math.round when roundOff (a literal here).
//   - NextDay: the first date after start on the named day (getDayOfWeekFromString: "SU", "SUN",
//     "SUNDAY", ... after String.toUpperCase(Locale.ROOT)). An unknown name is null outside ANSI;
//     in ANSI it raises ILLEGAL_DAY_OF_WEEK with the name as Java decodes it (the JVM rethrows
//     it as Spark's SparkIllegalArgumentException), on rows whose start date is not null.
//   - MakeDate: LocalDate.of(year, month, day); an invalid date is null outside ANSI, and in ANSI
//     raises DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION with the DateTimeException's message
//     (QueryExecutionErrors.ansiDateTimeArgumentOutOfRange; the JVM rethrows it as Spark's
//     SparkDateTimeException). A year whose date is outside the int day range fails in Spark
//     (ArithmeticException from toIntExact, not caught) and here.

func init() {
	Register("AddMonths", "add_months(date, int): LocalDate.plusMonths (day clamped to the month's end); a result outside the int day range fails as in Spark", translateAddMonths)
	Register("MonthsBetween", "months_between(ts1, ts2[, roundOff]): DateTimeUtils.monthsBetween in the session time zone; roundOff a literal", translateMonthsBetween)
	Register("NextDay", "next_day(date, dayName): the next such day; an unknown name is null outside ANSI, ILLEGAL_DAY_OF_WEEK in ANSI as in Spark", translateNextDay)
	Register("MakeDate", "make_date(y, m, d): LocalDate.of; an invalid date is null outside ANSI, DATETIME_FIELD_OUT_OF_BOUNDS with java.time's message in ANSI, as in Spark", translateMakeDate)
}

// javaRound is Math.round(double): the closest long, ties toward positive infinity, NaN 0,
// saturating at the long range.
func javaRound(x float64) int64 {
	if x != x {
		return 0
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	if f >= 9.223372036854775807e18 {
		return math.MaxInt64
	}
	if f <= -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// rowFails reports whether row i is one Spark evaluates (active and not null), where a
// kernel's error must surface.
func rowFails(vbuf *memory.Buffer, active []byte, i int) bool {
	if vbuf != nil && !bitutil.BitIsSet(vbuf.Bytes(), i) {
		return false
	}
	return isActive(active, i)
}

// ---- AddMonths ----

type addMonths struct{ start, months Expr }

func (e *addMonths) Type() sparktype.Type { return sparktype.DateType }
func (e *addMonths) mayFail() bool        { return true }
func (e *addMonths) String() string       { return fmt.Sprintf("add_months(%s, %s)", e.start, e.months) }

func translateAddMonths(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := translateChild(pe, "startDate", conf)
	if err != nil {
		return nil, err
	}
	m, err := translateChild(pe, "numMonths", conf)
	if err != nil {
		return nil, err
	}
	if s.Type().Kind != sparktype.Date || m.Type().Kind != sparktype.Int {
		return nil, unsupported("AddMonths of %s and %s is not supported natively", s.Type(), m.Type())
	}
	return &addMonths{start: s, months: m}, nil
}

// plusMonths is LocalDate.ofEpochDay(days).plusMonths(months).toEpochDay.
func plusMonths(days int32, months int32) int64 {
	y, m, d := civilFromDays64(int64(days))
	mc := y*12 + int64(m-1) + int64(months)
	ny := floorDiv(mc, 12)
	nm := int32(mc-ny*12) + 1
	if l := lengthOfMonth64(ny, nm); d > l {
		d = l
	}
	return daysFromCivil(ny, nm, d)
}

// marchMonthDays are the month lengths from March (0) to February (11, 29 in leap years).
var marchMonthDays = [12]int32{31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28}

// plusMonthsMap writes plusMonths(start[i&sm], months[i&mm]) into out for every row (sm and mm
// are 0 for a literal, -1 for a column) and reports whether any result is outside the int range
// (its row then holds 0; the caller finds the row with plusMonths).
//
// fn30's add_months(d, 3) cost a call to civilFromDays64, one to civilFromDaysNS and one to
// daysFromCivil per row. Here all three are inlined, and the month arithmetic stays in the
// March-based, era-shifted calendar those conversions use internally: a date is the shifted
// March-based year Y, month index p (0 = March) and day d; Y*12 + p + months is the new month
// count, non-negative for every result that can fit in an int (else plusMonths takes the row), and
// its quotient and remainder by 12 give the new year and month with unsigned divisions by
// constants, the day clamped to that month's length (February's from the civil year Y+1; the
// shift is whole 400-year eras, so leap years stay leap years). Days are then counted as in
// daysFromCivil.
func plusMonthsMap(start []int32, sm int, months []int32, mm int, out []int32) (overflow bool) {
	for i := range out {
		dd, k := start[i&sm], months[i&mm]
		// civilFromDaysNS (see there and civilMap), before the civil year and month.
		n1 := 4*uint64(int64(dd)+nsShift) + 3
		c := n1 / 146097
		p2 := 2939745 * uint64(uint32(n1-c*146097)|3) // | 3 is 4*(x/4) + 3 for x >= 0
		ny := uint32(p2) / 2939745 / 4
		n3 := 2141*ny + 197913
		d := uint64((n3&0xffff)*civilDayMul>>civilDayShift) + 1
		t := int64(100*c+p2>>32)*12 + int64(n3>>16) - 3 + int64(k) // months from the shifted year 0
		var r int64
		if t >= 0 {
			yy := uint64(t) / 12
			mp := uint64(t) - 12*yy
			if d > 28 { // only days 29 to 31 can need clamping
				l := uint64(marchMonthDays[mp])
				if y1 := yy + 1; mp == 11 && y1%4 == 0 && (y1%100 != 0 || y1%400 == 0) {
					l = 29
				}
				d = min(d, l)
			}
			r = int64(365*yy+yy/4-yy/100+yy/400+(153*mp+2)/5+d-1) - nsShift
		} else {
			r = plusMonths(dd, k) // a result before the shifted calendar: far outside the int range
		}
		if r != int64(int32(r)) {
			overflow = true
			r = 0
		}
		out[i] = int32(r)
	}
	return overflow
}

func (e *addMonths) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *addMonths) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, mo, err := evalLeftThenRight(ctx, b, e.start, e.months, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	defer mo.release()
	dt := arrow.FixedWidthTypes.Date32
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, so, mo)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newFixed[int32](ctx.Alloc, n)
	start, sm := values[int32](so.arr), so.mask()
	months, mm := values[int32](mo.arr), mo.mask()
	if !plusMonthsMap(start, sm, months, mm, out) {
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	// Some row's result is outside the int range: the first such row that is valid and active
	// fails the batch, as in Spark; the others are null or not evaluated and hold 0.
	for i := range out {
		r := plusMonths(start[i&sm], months[i&mm])
		if r != int64(int32(r)) {
			if rowFails(vbuf, active, i) {
				obuf.Release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, fmt.Errorf("add_months(%d, %d): integer overflow (Math.toIntExact; Spark fails with java.lang.ArithmeticException)",
					start[i&sm], months[i&mm])
			}
			r = 0
		}
		out[i] = int32(r)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- MonthsBetween ----

type monthsBetween struct {
	t1, t2   Expr
	roundOff bool
	zone     *tzZone
}

func (e *monthsBetween) Type() sparktype.Type { return sparktype.DoubleType }
func (e *monthsBetween) mayFail() bool        { return true }
func (e *monthsBetween) String() string {
	return fmt.Sprintf("months_between(%s, %s, %v, %s)", e.t1, e.t2, e.roundOff, e.zone.name)
}

func translateMonthsBetween(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t1, err := translateChild(pe, "date1", conf)
	if err != nil {
		return nil, err
	}
	t2, err := translateChild(pe, "date2", conf)
	if err != nil {
		return nil, err
	}
	ro, err := translateChild(pe, "roundOff", conf)
	if err != nil {
		return nil, err
	}
	if t1.Type().Kind != sparktype.Timestamp || t2.Type().Kind != sparktype.Timestamp {
		return nil, unsupported("MonthsBetween of %s and %s is not supported natively", t1.Type(), t2.Type())
	}
	lit, ok := ro.(*Literal)
	if !ok || lit.Type().Kind != sparktype.Boolean {
		return nil, unsupported("MonthsBetween with a roundOff that is not a boolean literal is not supported natively")
	}
	zone, err := zoneOf(pe, conf)
	if err != nil {
		return nil, err
	}
	if lit.IsNull() {
		return newLiteral(sparktype.DoubleType, nil)
	}
	return &monthsBetween{t1: t1, t2: t2, roundOff: lit.one.(*array.Boolean).Value(0), zone: zone}, nil
}

// microsExact is Math.multiplyExact(sec, 1000000).
func microsExact(sec int64) (int64, bool) {
	if sec > math.MaxInt64/1_000_000 || sec < math.MinInt64/1_000_000 {
		return 0, false
	}
	return sec * 1_000_000, true
}

// monthsBetweenAt is DateTimeUtils.monthsBetween; ok false where Spark's daysToMicros
// overflows a long (local dates next to the ends of the timestamp range).
func monthsBetweenAt(oc *offsetCache, us1, us2 int64, roundOff bool) (float64, bool) {
	d1, d2 := oc.microsToDays(us1), oc.microsToDays(us2)
	y1, m1, dom1 := civilFromDays64(d1)
	y2, m2, dom2 := civilFromDays64(d2)
	monthDiff := float64(int32(y1*12+int64(m1)) - int32(y2*12+int64(m2)))
	if dom1 == dom2 || (dom1 == lengthOfMonth64(y1, m1) && dom2 == lengthOfMonth64(y2, m2)) {
		return monthDiff, true
	}
	s1, ok1 := microsExact(oc.resolveLocal(d1*86400, 0, false, true))
	s2, ok2 := microsExact(oc.resolveLocal(d2*86400, 0, false, true))
	if !ok1 || !ok2 {
		return 0, false
	}
	// TimeUnit.toSeconds truncates; the differences are not negative.
	secondsDiff := int64(dom1-dom2)*86400 + (us1-s1)/1_000_000 - (us2-s2)/1_000_000
	diff := monthDiff + float64(secondsDiff)/float64(31*86400)
	if roundOff {
		return float64(javaRound(diff*1e8)) / 1e8, true
	}
	return diff, true
}

func (e *monthsBetween) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *monthsBetween) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, ro, err := evalLeftThenRight(ctx, b, e.t1, e.t2, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	defer ro.release()
	dt := arrow.PrimitiveTypes.Float64
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newFixed[float64](ctx.Alloc, n)
	a, am := values[int64](lo.arr), lo.mask()
	c, cm := values[int64](ro.arr), ro.mask()
	oc := newOffsetCache(e.zone)
	for i := range out {
		v, ok := monthsBetweenAt(&oc, a[i&am], c[i&cm], e.roundOff)
		if !ok && rowFails(vbuf, active, i) {
			obuf.Release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("months_between(%d, %d): long overflow converting a start of day to microseconds (Spark fails with java.lang.ArithmeticException)",
				a[i&am], c[i&cm])
		}
		out[i] = v
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- NextDay ----

// Day numbers of DateTimeUtils: days after a Thursday (1970-01-01 was one).
const (
	dowThursday int32 = iota
	dowFriday
	dowSaturday
	dowSunday
	dowMonday
	dowTuesday
	dowWednesday
	dowInvalid int32 = -1
)

var dayNames = map[string]int32{
	"SU": dowSunday, "SUN": dowSunday, "SUNDAY": dowSunday,
	"MO": dowMonday, "MON": dowMonday, "MONDAY": dowMonday,
	"TU": dowTuesday, "TUE": dowTuesday, "TUESDAY": dowTuesday,
	"WE": dowWednesday, "WED": dowWednesday, "WEDNESDAY": dowWednesday,
	"TH": dowThursday, "THU": dowThursday, "THURSDAY": dowThursday,
	"FR": dowFriday, "FRI": dowFriday, "FRIDAY": dowFriday,
	"SA": dowSaturday, "SAT": dowSaturday, "SATURDAY": dowSaturday,
}

// dayOfWeekFromString is getDayOfWeekFromString without the exception: dowInvalid for an
// unknown name. Java upper-cases with full Unicode case mapping; the only non-ASCII letters
// whose upper case can spell a day name are the dotless ı (I) and the long ſ (S), whose full
// and simple mappings agree, so a rune-wise unicode.ToUpper gives the same matches (invalid
// UTF-8 decodes to U+FFFD in both and matches nothing).
func dayOfWeekFromString(s []byte) int32 {
	if len(s) < 2 || len(s) > 18 { // "WEDNESDAY" is 9 letters, at most 2 bytes each
		return dowInvalid
	}
	var buf [9]byte
	k := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(s[i:])
		}
		i += size
		r = unicode.ToUpper(r)
		if r < 'A' || r > 'Z' || k == len(buf) {
			return dowInvalid
		}
		buf[k] = byte(r)
		k++
	}
	if d, ok := dayNames[string(buf[:k])]; ok { // no allocation: a map lookup by a converted key
		return d
	}
	return dowInvalid
}

// nextDateForDayOfWeek is DateTimeUtils.getNextDateForDayOfWeek on Java ints (wrapping).
func nextDateForDayOfWeek(start, dow int32) int32 {
	return start + 1 + ((dow-1-start)%7+7)%7
}

type nextDay struct {
	start, name Expr
	fixed       int32 // a valid literal name's day, else dowInvalid (the name read per row)
	ansi        bool  // failOnError: an unknown name raises ILLEGAL_DAY_OF_WEEK
}

func (e *nextDay) Type() sparktype.Type { return sparktype.DateType }
func (e *nextDay) mayFail() bool        { return e.ansi || mayFail(e.start) || mayFail(e.name) }
func (e *nextDay) String() string       { return fmt.Sprintf("next_day(%s, %s)", e.start, e.name) }

func translateNextDay(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	s, err := translateChild(pe, "startDate", conf)
	if err != nil {
		return nil, err
	}
	d, err := translateChild(pe, "dayOfWeek", conf)
	if err != nil {
		return nil, err
	}
	failOnError, err := pe.Bool("failOnError")
	if err != nil {
		return nil, err
	}
	if s.Type().Kind != sparktype.Date || d.Type().Kind != sparktype.String {
		return nil, unsupported("NextDay of %s and %s is not supported natively", s.Type(), d.Type())
	}
	e := &nextDay{start: s, name: d, fixed: dowInvalid, ansi: failOnError}
	if lit, ok := d.(*Literal); ok {
		if lit.IsNull() {
			return newLiteral(sparktype.DateType, nil)
		}
		offs, data := binaryParts(lit.one)
		e.fixed = dayOfWeekFromString(data[offs[0]:offs[1]])
		if e.fixed == dowInvalid && !failOnError {
			return newLiteral(sparktype.DateType, nil)
		}
	}
	return e, nil
}

// javaString is new String(bytes, UTF_8) re-encoded: each malformed sequence one U+FFFD (the
// text UTF8String.toString gives Spark's error message).
func javaString(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := javaRune(s, i)
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}

func (e *nextDay) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *nextDay) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, do, err := evalLeftThenRight(ctx, b, e.start, e.name, active)
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
	if e.fixed != dowInvalid {
		for i := range out {
			out[i] = nextDateForDayOfWeek(start[i&sm], e.fixed)
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	offs, data, dm := operandBytes(do)
	var valid []byte
	for i := range out {
		j := i & dm
		dow := dayOfWeekFromString(data[offs[j]:offs[j+1]])
		if dow == dowInvalid {
			if e.ansi && rowFails(vbuf, active, i) {
				obuf.Release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, exec.IllegalDayOfWeek(javaString(data[offs[j]:offs[j+1]]))
			}
			out[i] = 0
			if valid == nil {
				if vbuf == nil {
					vbuf, valid = newBitmap(ctx.Alloc, n)
					bitutil.SetBitsTo(valid, 0, int64(n), true)
				} else {
					valid = vbuf.Bytes()
				}
			}
			bitutil.ClearBit(valid, i)
			continue
		}
		out[i] = nextDateForDayOfWeek(start[i&sm], dow)
	}
	if valid != nil {
		nulls = countNulls(valid, n)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- MakeDate ----

type makeDate struct {
	year, month, day Expr
	ansi             bool // failOnError: an invalid date raises DATETIME_FIELD_OUT_OF_BOUNDS
}

func (e *makeDate) Type() sparktype.Type { return sparktype.DateType }
func (e *makeDate) mayFail() bool        { return true }
func (e *makeDate) String() string {
	return fmt.Sprintf("make_date(%s, %s, %s)", e.year, e.month, e.day)
}

func translateMakeDate(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	failOnError, err := pe.Bool("failOnError")
	if err != nil {
		return nil, err
	}
	var args [3]Expr
	for i, f := range []string{"year", "month", "day"} {
		if args[i], err = translateChild(pe, f, conf); err != nil {
			return nil, err
		}
		if args[i].Type().Kind != sparktype.Int {
			return nil, unsupported("MakeDate of %s %s is not supported natively", f, args[i].Type())
		}
	}
	return &makeDate{year: args[0], month: args[1], day: args[2], ansi: failOnError}, nil
}

func (e *makeDate) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *makeDate) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	yo, err := evalOperandActive(ctx, b, e.year, active)
	if err != nil {
		return nil, err
	}
	defer yo.release()
	mo, do, err := evalLeftThenRight(ctx, b, e.month, e.day, andActiveValidIf(active, yo, n, e.month, e.day))
	if err != nil {
		return nil, err
	}
	defer mo.release()
	defer do.release()
	dt := arrow.FixedWidthTypes.Date32
	if yo.nullScalar() || mo.nullScalar() || do.nullScalar() || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	var cols []arrow.Array
	for _, o := range []operand{yo, mo, do} {
		if !o.scalar {
			cols = append(cols, o.arr)
		}
	}
	vbuf, _ := andValidity(ctx.Alloc, n, cols...)
	var valid []byte
	if vbuf != nil {
		valid = vbuf.Bytes()
	}
	obuf, out := newFixed[int32](ctx.Alloc, n)
	ys, ym := values[int32](yo.arr), yo.mask()
	ms, mm := values[int32](mo.arr), mo.mask()
	ds, dm := values[int32](do.arr), do.mask()
	for i := range out {
		y, m, d := ys[i&ym], ms[i&mm], ds[i&dm]
		// LocalDate.of: year within +-999999999, month 1-12, day within the month.
		if y < -999_999_999 || y > 999_999_999 || m < 1 || m > 12 || d < 1 || d > lengthOfMonth64(int64(y), m) {
			if e.ansi && (valid == nil || bitutil.BitIsSet(valid, i)) && isActive(active, i) {
				obuf.Release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, exec.DatetimeFieldOutOfBounds(localDateOfMessage(y, m, d))
			}
			out[i] = 0
			if valid == nil {
				vbuf, valid = newBitmap(ctx.Alloc, n)
				bitutil.SetBitsTo(valid, 0, int64(n), true)
			}
			bitutil.ClearBit(valid, i)
			continue
		}
		r := daysFromCivil(int64(y), m, d)
		if r != int64(int32(r)) {
			if (valid == nil || bitutil.BitIsSet(valid, i)) && isActive(active, i) {
				obuf.Release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, fmt.Errorf("make_date(%d, %d, %d): integer overflow (Math.toIntExact; Spark fails with java.lang.ArithmeticException)", y, m, d)
			}
			r = 0
		}
		out[i] = int32(r)
	}
	nulls := 0
	if valid != nil {
		nulls = countNulls(valid, n)
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

var monthNames = [13]string{"", "JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST",
	"SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"}

// localDateOfMessage is the message of the DateTimeException LocalDate.of(y, m, d) throws for an
// invalid date: the fields are checked in order (ValueRange.checkValidValue's text), then the day
// against the month's length (LocalDate.create's text).
func localDateOfMessage(y, m, d int32) string {
	switch {
	case y < -999_999_999 || y > 999_999_999:
		return fmt.Sprintf("Invalid value for Year (valid values -999999999 - 999999999): %d", y)
	case m < 1 || m > 12:
		return fmt.Sprintf("Invalid value for MonthOfYear (valid values 1 - 12): %d", m)
	case d < 1 || d > 31:
		return fmt.Sprintf("Invalid value for DayOfMonth (valid values 1 - 28/31): %d", d)
	case d == 29:
		return fmt.Sprintf("Invalid date 'February 29' as '%d' is not a leap year", y)
	}
	return fmt.Sprintf("Invalid date '%s %d'", monthNames[m], d)
}

// andActiveValidIf narrows active to the rows where o is valid when a later argument may fail
// (Spark does not evaluate the rest of a null-intolerant call once an argument is null).
func andActiveValidIf(active []byte, o operand, n int, later ...Expr) []byte {
	for _, e := range later {
		if mayFail(e) {
			return andActiveValid(active, o, n)
		}
	}
	return active
}
