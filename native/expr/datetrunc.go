package expr

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Truncation of datetimeExpressions.scala (TruncInstant):
//   - TruncDate (trunc(date, fmt)): DateTimeUtils.truncDate to WEEK (the Monday on or before),
//     MONTH, QUARTER or YEAR; finer or unknown levels give null.
//   - TruncTimestamp (date_trunc(fmt, ts)): DateTimeUtils.truncTimestamp in the expression's
//     time zone: MICROSECOND, MILLISECOND and SECOND on the UTC value (floorMod), MINUTE, HOUR
//     and DAY by ZonedDateTime.truncatedTo (the local time truncated, then resolved with the
//     original offset preferred: gaps move forward, overlaps keep the offset when they can),
//     WEEK to YEAR by truncDate on the local date and LocalDate.atStartOfDay(zone). An unknown
//     level gives null.
// The level is parseTruncLevel's: the format upper-cased (Locale.ROOT) among YEAR YYYY YY,
// QUARTER, MONTH MM MON, WEEK, DAY DD, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND. Only a
// literal format is native (Spark parses a foldable format once; a column per row).

func init() {
	Register("TruncDate", "trunc(date, fmt): truncDate to week, month, quarter or year (null for other levels); fmt a literal", translateTruncDate)
	Register("TruncTimestamp", "date_trunc(fmt, ts): truncTimestamp at every Spark level in the session time zone (java.time's gap and overlap rules); fmt a literal", translateTruncTimestamp)
}

type truncLevel int8

// parseTruncLevel's levels, in Spark's order (TRUNC_TO_MICROSECOND = 0 ... TRUNC_TO_YEAR = 9).
const (
	truncInvalid truncLevel = iota - 1
	truncMicrosecond
	truncMillisecond
	truncSecond
	truncMinute
	truncHour
	truncDay
	truncWeek
	truncMonth
	truncQuarter
	truncYear
)

var truncLevels = map[string]truncLevel{
	"MICROSECOND": truncMicrosecond, "MILLISECOND": truncMillisecond, "SECOND": truncSecond,
	"MINUTE": truncMinute, "HOUR": truncHour, "DAY": truncDay, "DD": truncDay, "WEEK": truncWeek,
	"MON": truncMonth, "MONTH": truncMonth, "MM": truncMonth, "QUARTER": truncQuarter,
	"YEAR": truncYear, "YYYY": truncYear, "YY": truncYear,
}

var truncLevelNames = [...]string{"microsecond", "millisecond", "second", "minute", "hour", "day",
	"week", "month", "quarter", "year"}

// upperName upper-cases s rune by rune with unicode.ToUpper and returns it if it is all ASCII
// letters. Java's String.toUpperCase(Locale.ROOT) applies full case mappings, but the only ones
// yielding ASCII letters (ß SS, ligatures FF FI FL ST) spell no level or day name, and the
// simple mappings that do (ı I, ſ S) agree with unicode.ToUpper.
func upperName(s []byte) (string, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		i += size
		r = unicode.ToUpper(r)
		if r < 'A' || r > 'Z' {
			return "", false
		}
		out = append(out, byte(r))
	}
	return string(out), true
}

// literalTruncLevel reads a literal format; ok false when the format is not a literal.
func literalTruncLevel(f Expr) (level truncLevel, isNull, ok bool) {
	lit, isLit := f.(*Literal)
	if !isLit || lit.Type().Kind != sparktype.String {
		return truncInvalid, false, false
	}
	if lit.IsNull() {
		return truncInvalid, true, true
	}
	offs, data := binaryParts(lit.one)
	name, letters := upperName(data[offs[0]:offs[1]])
	if l, found := truncLevels[name]; letters && found {
		return l, false, true
	}
	return truncInvalid, false, true
}

// truncDays is DateTimeUtils.truncDate for the date levels, on Java ints.
func truncDays(d int32, level truncLevel) int32 {
	switch level {
	case truncWeek:
		return nextDateForDayOfWeek(d-7, dowMonday)
	case truncMonth:
		_, _, dom := civilFromDays(d)
		return d - dom + 1
	case truncQuarter:
		y, m, _ := civilFromDays(d)
		return int32(daysFromCivil(int64(y), (m-1)/3*3+1, 1))
	default: // truncYear
		y, _, _ := civilFromDays(d)
		return int32(daysFromCivil(int64(y), 1, 1))
	}
}

// ---- TruncDate ----

type truncDate struct {
	date  Expr
	level truncLevel
}

func (e *truncDate) Type() sparktype.Type { return sparktype.DateType }
func (e *truncDate) mayFail() bool        { return mayFail(e.date) }
func (e *truncDate) String() string {
	return fmt.Sprintf("trunc(%s, %s)", e.date, truncLevelNames[e.level])
}

func translateTruncDate(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	d, err := translateChild(pe, "date", conf)
	if err != nil {
		return nil, err
	}
	f, err := translateChild(pe, "format", conf)
	if err != nil {
		return nil, err
	}
	if d.Type().Kind != sparktype.Date {
		return nil, unsupported("TruncDate of %s is not supported natively", d.Type())
	}
	level, isNull, ok := literalTruncLevel(f)
	if !ok {
		return nil, unsupported("TruncDate with a format that is not a string literal is not supported natively")
	}
	if isNull || level < truncWeek {
		return newLiteral(sparktype.DateType, nil)
	}
	return &truncDate{date: d, level: level}, nil
}

func (e *truncDate) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *truncDate) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.date, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.FixedWidthTypes.Date32
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	days := values[int32](in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	if e.level == truncMonth {
		civilMap(days, out, civilMonthStart)
	} else {
		for i, d := range days {
			out[i] = truncDays(d, e.level)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// ---- TruncTimestamp ----

type truncTimestamp struct {
	ts    Expr
	level truncLevel
	zone  *tzZone
}

func (e *truncTimestamp) Type() sparktype.Type { return sparktype.TimestampType }
func (e *truncTimestamp) mayFail() bool        { return e.level >= truncMinute || mayFail(e.ts) }
func (e *truncTimestamp) String() string {
	return fmt.Sprintf("date_trunc(%s, %s, %s)", truncLevelNames[e.level], e.ts, e.zone.name)
}

func translateTruncTimestamp(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	f, err := translateChild(pe, "format", conf)
	if err != nil {
		return nil, err
	}
	ts, err := translateChild(pe, "timestamp", conf)
	if err != nil {
		return nil, err
	}
	if ts.Type().Kind != sparktype.Timestamp {
		return nil, unsupported("TruncTimestamp of %s is not supported natively", ts.Type())
	}
	level, isNull, ok := literalTruncLevel(f)
	if !ok {
		return nil, unsupported("TruncTimestamp with a format that is not a string literal is not supported natively")
	}
	zone, err := zoneOf(pe, conf)
	if err != nil {
		return nil, err
	}
	if isNull || level == truncInvalid {
		return newLiteral(sparktype.TimestampType, nil)
	}
	return &truncTimestamp{ts: ts, level: level, zone: zone}, nil
}

// truncMicros is DateTimeUtils.truncTimestamp; ok false where Spark's instantToMicros
// overflows a long (a truncation before the smallest timestamp).
func truncMicros(oc *offsetCache, us int64, level truncLevel) (int64, bool) {
	switch level {
	case truncMicrosecond:
		return us, true
	case truncMillisecond:
		return us - floorMod(us, 1000), true
	case truncSecond:
		return us - floorMod(us, 1_000_000), true
	case truncMinute, truncHour, truncDay:
		unit := int64(60)
		if level == truncHour {
			unit = 3600
		} else if level == truncDay {
			unit = 86400
		}
		s := floorDiv(us, 1_000_000)
		off := oc.offset(s)
		l := s + off
		return microsExact(oc.resolveLocal(l-floorMod(l, unit), off, true, false))
	}
	d := int32(oc.microsToDays(us))
	return microsExact(oc.resolveLocal(int64(truncDays(d, level))*86400, 0, false, true))
}

func (e *truncTimestamp) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *truncTimestamp) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.ts, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.Type().Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	src := values[int64](in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	fail := func(us int64) error {
		obuf.Release()
		if vbuf != nil {
			vbuf.Release()
		}
		return fmt.Errorf("date_trunc(%s, %d): long overflow converting the result to microseconds (Spark fails with java.lang.ArithmeticException)",
			truncLevelNames[e.level], us)
	}
	if off, fixed := e.zone.fixedOffset(); fixed && e.level >= truncMinute && e.level <= truncDay {
		// truncMicros in a zone without transitions: the local second rounded down to the unit,
		// back to UTC by the one offset (resolveLocal has nothing to resolve).
		unit := [...]int64{truncMinute: 60, truncHour: 3600, truncDay: 86400}[e.level]
		for i, us := range src {
			l := floorDiv(us, 1_000_000) + off
			r, ok := microsExact(l - floorMod(l, unit) - off)
			if !ok && rowFails(vbuf, active, i) {
				return nil, fail(us)
			}
			out[i] = r
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	oc := newOffsetCache(e.zone)
	for i, us := range src {
		r, ok := truncMicros(&oc, us, e.level)
		if !ok && rowFails(vbuf, active, i) {
			return nil, fail(us)
		}
		out[i] = r
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
