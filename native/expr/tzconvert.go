package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// from_utc_timestamp, to_utc_timestamp and convert_timezone move a wall clock between zones,
// as DateTimeUtils.convertTz and convertTimestampNtzToAnotherTz do through java.time:
//   - from_utc_timestamp(ts, tz): the UTC wall clock of ts read in tz, i.e. ts + offset(tz, ts).
//   - to_utc_timestamp(ts, tz): the UTC wall clock of ts taken as a local time of tz,
//     LocalDateTime.atZone(tz) (ZonedDateTime.ofLocal without a preferred offset: a gap moves
//     the time forward by the gap's length, an overlap takes the earlier offset).
//   - convert_timezone(src, dst, ntz): ntz.atZone(src).withZoneSameInstant(dst), TIMESTAMP_NTZ in
//     and out.
// The result goes back to microseconds with instantToMicros' exact arithmetic: a value past the
// long range fails (java.lang.ArithmeticException) in every mode. The zones must be literals:
// a column of zone names would need a zone per row, and an invalid literal is refused (Spark
// then raises its own error).

func init() {
	Register("FromUTCTimestamp", "from_utc_timestamp(ts, tz) with a literal zone: the UTC wall clock of ts read in tz (java.time rules, DST included)", translateUTCShift(false))
	Register("ToUTCTimestamp", "to_utc_timestamp(ts, tz) with a literal zone: the wall clock of ts taken in tz, as UTC (gaps move forward, overlaps take the earlier offset)", translateUTCShift(true))
	Register("ConvertTimezone", "convert_timezone(src, dst, ts_ntz) with literal zones: the wall clock in dst of ts_ntz taken in src", translateConvertTimezone)
}

type tzShift struct {
	name     string
	from, to *tzZone // nil: UTC
	null     bool    // a null zone literal: every row null
	child    Expr
	typ      sparktype.Type
}

func (e *tzShift) Type() sparktype.Type { return e.typ }
func (e *tzShift) mayFail() bool        { return true } // the long range, at its very ends
func (e *tzShift) String() string {
	zn := func(z *tzZone) string {
		if z == nil {
			return "UTC"
		}
		return z.name
	}
	return fmt.Sprintf("%s(%s, %s -> %s)", e.name, e.child, zn(e.from), zn(e.to))
}

// zoneLiteral reads a literal zone argument: the zone, or null for a null literal.
func zoneLiteral(pe *plan.Expr, field string, conf *plan.Conf) (z *tzZone, isNull bool, err error) {
	cls := plan.ShortClass(pe.Class)
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return nil, false, err
	}
	lit, ok := c.(*Literal)
	if !ok {
		return nil, false, unsupported("%s with a non-literal time zone (%s) is not supported natively", cls, c)
	}
	if lit.IsNull() {
		return nil, true, nil
	}
	if !binaryCollation(lit.Type()) {
		return nil, false, unsupported("%s with a time zone of type %s is not supported natively", cls, lit.Type())
	}
	offs, data := binaryParts(lit.constArray())
	id := string(data[offs[0]:offs[1]])
	z, err = loadZone(id)
	if err != nil {
		return nil, false, unsupported("%s in time zone %q is not supported natively: %v", cls, id, err)
	}
	return z, false, nil
}

func translateUTCShift(toUTC bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		c, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Timestamp {
			return nil, unsupported("%s of %s is not supported natively", cls, c.Type())
		}
		z, isNull, err := zoneLiteral(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		e := &tzShift{child: c, null: isNull, typ: sparktype.TimestampType}
		if toUTC {
			e.name, e.from = "to_utc_timestamp", z
		} else {
			e.name, e.to = "from_utc_timestamp", z
		}
		return e, nil
	}
}

func translateConvertTimezone(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(pe, "sourceTs", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.TimestampNTZ {
		return nil, unsupported("ConvertTimezone of %s is not supported natively", c.Type())
	}
	src, srcNull, err := zoneLiteral(pe, "sourceTz", conf)
	if err != nil {
		return nil, err
	}
	dst, dstNull, err := zoneLiteral(pe, "targetTz", conf)
	if err != nil {
		return nil, err
	}
	return &tzShift{name: "convert_timezone", from: src, to: dst, null: srcNull || dstNull, child: c,
		typ: sparktype.TimestampNTZType}, nil
}

func (e *tzShift) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *tzShift) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || e.null || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	src := values[int64](in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	var fc, tc offsetCache
	if e.from != nil {
		fc = newOffsetCache(e.from)
	}
	if e.to != nil {
		tc = newOffsetCache(e.to)
	}
	for i, us := range src {
		s := floorDiv(us, 1_000_000)
		micro := us - s*1_000_000
		if e.from != nil { // the wall clock s in from, as a UTC second
			s = fc.resolveLocal(s, 0, false, false)
		}
		if e.to != nil { // the UTC second s, as a wall clock in to
			s += tc.offset(s)
		}
		r, ok := secondsMicros(s, micro)
		if !ok && rowFails(vbuf, active, i) {
			obuf.Release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("%s(%d): long overflow converting the result to microseconds (Spark fails with java.lang.ArithmeticException)", e.name, us)
		}
		out[i] = r
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// secondsMicros is s*10^6 + micro (0 <= micro < 10^6) when it fits in a long, as
// instantToMicros computes it exactly (including the last second before Long.MinValue).
func secondsMicros(s, micro int64) (int64, bool) {
	const lim = math.MaxInt64 / 1_000_000
	switch {
	case s >= 0:
		if s > lim || s*1_000_000 > math.MaxInt64-micro {
			return 0, false
		}
		return s*1_000_000 + micro, true
	case s >= -lim:
		return s*1_000_000 + micro, true
	case s == -lim-1:
		r, m := (s+1)*1_000_000, micro-1_000_000
		if r < math.MinInt64-m {
			return 0, false
		}
		return r + m, true
	}
	return 0, false
}
