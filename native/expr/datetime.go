package expr

import (
	"fmt"

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
//   - DateAdd, DateSub: start +/- days on Java ints (the int, short or byte days widened), which
//     wrap on overflow in every eval mode (no addExact, no ANSI check).

func init() {
	Register("Year", "year(date): proleptic Gregorian year of a date (java.time.LocalDate), 0 for 1 BC", dateFieldTranslator(fieldYear))
	Register("Month", "month(date): month 1-12 of a date, proleptic Gregorian", dateFieldTranslator(fieldMonth))
	Register("DayOfMonth", "day(date): day of month 1-31 of a date, proleptic Gregorian", dateFieldTranslator(fieldDay))
	Register("DateAdd", "date_add(date, n) for int/short/byte n: date + n days, wrapping on int overflow as Spark does", dateArithTranslator(false))
	Register("DateSub", "date_sub(date, n) for int/short/byte n: date - n days, wrapping on int overflow as Spark does", dateArithTranslator(true))
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian (year, month, day), the
// calendar of java.time.LocalDate (H. Hinnant's days-to-civil algorithm on 400-year eras).
func civilFromDays(days int32) (year int32, month, day int32) {
	z := int64(days) + 719468 // days since 0000-03-01
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365], from March 1st
	mp := (5*doy + 2) / 153                                // [0, 11], March = 0
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return int32(y), int32(m), int32(d)
}

type dateField uint8

const (
	fieldYear dateField = iota
	fieldMonth
	fieldDay
)

var dateFieldNames = [...]string{fieldYear: "year", fieldMonth: "month", fieldDay: "dayofmonth"}

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
		for i, d := range days {
			out[i], _, _ = civilFromDays(d)
		}
	case fieldMonth:
		for i, d := range days {
			_, out[i], _ = civilFromDays(d)
		}
	default:
		for i, d := range days {
			_, _, out[i] = civilFromDays(d)
		}
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
