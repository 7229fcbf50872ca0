package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// from_unixtime, unix_timestamp and to_unix_timestamp between epoch seconds and datetimes:
//   - from_unixtime(sec, fmt): date_format's printer (dateformat.go) of sec * 1000000, a plain
//     Java long multiplication (it wraps past the long range, no error), literal patterns only.
//   - unix_timestamp / to_unix_timestamp of a timestamp (or timestamp_ntz): micros / 1000000 with
//     Java's division, which truncates towards zero (so 1969-12-31 23:59:59.5 gives 0, not -1);
//     of a date: the start of that day in the session time zone (daysToMicros: a DST gap at
//     midnight starts the day at the transition), in seconds. The format is not read then.
//     Strings are parsed by the pattern in Spark: refused here.

func init() {
	Register("FromUnixTime", "from_unixtime(sec, fmt) with a literal pattern (date_format's letters): sec*10^6 (wrapping as Spark's) formatted in the session time zone", translateFromUnixTime)
	Register("UnixTimestamp", "unix_timestamp(ts or date): seconds since the epoch, truncated towards zero; of a date, its start in the session time zone (strings refused)", translateToUnixSeconds)
	Register("ToUnixTimestamp", "to_unix_timestamp(ts or date): as unix_timestamp (strings refused)", translateToUnixSeconds)
}

func translateFromUnixTime(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	if why := legacyTimeParser(conf); why != "" {
		return nil, unsupported("FromUnixTime: %s", why)
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("FromUnixTime returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	sec, err := translateChild(pe, "sec", conf)
	if err != nil {
		return nil, err
	}
	if sec.Type().Kind != sparktype.Long {
		return nil, unsupported("FromUnixTime of %s is not supported natively", sec.Type())
	}
	text, isNull, err := patternLiteral(pe, "format", conf)
	if err != nil {
		return nil, err
	}
	e := &dateFormat{ts: sec, secs: true, typ: t}
	if !isNull {
		if e.pat, err = compileDatetimePattern(text); err != nil {
			return nil, unsupported("FromUnixTime: %v", err)
		}
	}
	if e.zone, err = zoneOf(pe, conf); err != nil {
		return nil, err
	}
	return e, nil
}

type toUnixSeconds struct {
	name  string
	child Expr
	zone  *tzZone // dates only
}

func (e *toUnixSeconds) Type() sparktype.Type { return sparktype.LongType }
func (e *toUnixSeconds) mayFail() bool {
	return e.child.Type().Kind == sparktype.Date || mayFail(e.child)
}
func (e *toUnixSeconds) String() string { return fmt.Sprintf("%s(%s)", e.name, e.child) }

func translateToUnixSeconds(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	cls := plan.ShortClass(pe.Class)
	c, err := translateChild(pe, "timeExp", conf)
	if err != nil {
		return nil, err
	}
	e := &toUnixSeconds{name: map[string]string{"UnixTimestamp": "unix_timestamp", "ToUnixTimestamp": "to_unix_timestamp"}[cls], child: c}
	switch c.Type().Kind {
	case sparktype.Timestamp, sparktype.TimestampNTZ:
	case sparktype.Date:
		if e.zone, err = zoneOf(pe, conf); err != nil {
			return nil, err
		}
	default:
		return nil, unsupported("%s of %s is not supported natively (strings are parsed by Spark)", cls, c.Type())
	}
	return e, nil
}

func (e *toUnixSeconds) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *toUnixSeconds) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.PrimitiveTypes.Int64
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	if e.zone == nil {
		for i, us := range values[int64](in) {
			out[i] = us / 1_000_000
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	oc := newOffsetCache(e.zone)
	for i, d := range values[int32](in) {
		s := oc.resolveLocal(int64(d)*86400, 0, false, true)
		if _, ok := secondsMicros(s, 0); !ok && rowFails(vbuf, active, i) {
			obuf.Release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("%s(%d): long overflow converting the start of the day to microseconds (Spark fails with java.lang.ArithmeticException)", e.name, d)
		}
		out[i] = s
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
