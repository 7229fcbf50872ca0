package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Fields of TimestampType values (microseconds since the epoch, UTC):
//   - Hour, Minute, Second: DateTimeUtils.getHours/getMinutes/getSeconds, the fields of
//     Instant.atZone(zone).toLocalDateTime() in the expression's time zone (the session's).
//     Offsets with seconds (local mean time before 1900) shift the fields as java.time does.
//     timestamp_ntz (Spark reads it in UTC) is refused: not tested yet.
//   - UnixSeconds, UnixMillis (Math.floorDiv, so before 1970 they round down) and UnixMicros
//     (the value itself): no time zone.

func init() {
	Register("Hour", "hour(timestamp): hour 0-23 in the session time zone (java.time rules, DST included)", tsFieldTranslator(tsHour))
	Register("Minute", "minute(timestamp): minute 0-59 in the session time zone", tsFieldTranslator(tsMinute))
	Register("Second", "second(timestamp): second 0-59 in the session time zone", tsFieldTranslator(tsSecond))
	Register("UnixSeconds", "unix_seconds(timestamp): seconds since 1970-01-01 00:00 UTC, rounded down", tsFieldTranslator(tsUnixSeconds))
	Register("UnixMillis", "unix_millis(timestamp): milliseconds since 1970-01-01 00:00 UTC, rounded down", tsFieldTranslator(tsUnixMillis))
	Register("UnixMicros", "unix_micros(timestamp): microseconds since 1970-01-01 00:00 UTC", tsFieldTranslator(tsUnixMicros))
}

type tsField uint8

const (
	tsHour tsField = iota
	tsMinute
	tsSecond
	tsUnixSeconds
	tsUnixMillis
	tsUnixMicros
)

var tsFieldNames = [...]string{tsHour: "hour", tsMinute: "minute", tsSecond: "second",
	tsUnixSeconds: "unix_seconds", tsUnixMillis: "unix_millis", tsUnixMicros: "unix_micros"}

type getTsField struct {
	field tsField
	zone  *tzZone // nil for the unix_* fields
	child Expr
}

func (e *getTsField) Type() sparktype.Type {
	if e.field >= tsUnixSeconds {
		return sparktype.LongType
	}
	return sparktype.IntType
}
func (e *getTsField) mayFail() bool { return mayFail(e.child) }
func (e *getTsField) String() string {
	if e.zone != nil {
		return fmt.Sprintf("%s(%s, %s)", tsFieldNames[e.field], e.child, e.zone.name)
	}
	return fmt.Sprintf("%s(%s)", tsFieldNames[e.field], e.child)
}

func tsFieldTranslator(f tsField) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Timestamp {
			return nil, unsupported("%s of %s is not supported natively", plan.ShortClass(pe.Class), c.Type())
		}
		e := &getTsField{field: f, child: c}
		if f < tsUnixSeconds {
			if e.zone, err = zoneOf(pe, conf); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
}

func (e *getTsField) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *getTsField) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
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
	us := values[int64](in)
	if e.field >= tsUnixSeconds {
		obuf, out := newFixed[int64](ctx.Alloc, n)
		switch e.field {
		case tsUnixSeconds:
			for i, v := range us {
				out[i] = floorDiv(v, 1_000_000)
			}
		case tsUnixMillis:
			for i, v := range us {
				out[i] = floorDiv(v, 1_000)
			}
		default:
			copy(out, us)
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	obuf, out := newFixed[int32](ctx.Alloc, n)
	if off, fixed := e.zone.fixedOffset(); fixed {
		// localSeconds in a zone without transitions: UTC seconds plus the one offset.
		switch e.field {
		case tsHour:
			for i, v := range us {
				out[i] = int32(floorMod(floorDiv(v, 1_000_000)+off, 86400) / 3600)
			}
		case tsMinute:
			for i, v := range us {
				out[i] = int32(floorMod(floorDiv(v, 1_000_000)+off, 3600) / 60)
			}
		case tsSecond:
			for i, v := range us {
				out[i] = int32(floorMod(floorDiv(v, 1_000_000)+off, 60))
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	oc := newOffsetCache(e.zone)
	// Null rows hold arbitrary values: the lookups they cost are harmless.
	switch e.field {
	case tsHour:
		for i, v := range us {
			l, _ := oc.localSeconds(v)
			out[i] = int32(floorMod(l, 86400) / 3600)
		}
	case tsMinute:
		for i, v := range us {
			l, _ := oc.localSeconds(v)
			out[i] = int32(floorMod(l, 3600) / 60)
		}
	case tsSecond:
		for i, v := range us {
			l, _ := oc.localSeconds(v)
			out[i] = int32(floorMod(l, 60))
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
