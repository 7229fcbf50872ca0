package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// date_format(ts, fmt) is Iso8601TimestampFormatter.format: the instant's fields in the
// expression's time zone (the session's), printed by the pattern (dtpattern.go). Only a literal
// pattern is native: Spark builds its formatter once from it, and a pattern per row would mean a
// compile (and a possible refusal) per row. The accepted letters cannot make java.time's printer
// fail, so the EXCEPTION policy's legacy comparison (made only on a failure) never runs; the
// LEGACY policy (SimpleDateFormat on the hybrid Julian calendar) is refused.

func init() {
	Register("DateFormatClass", "date_format(ts, fmt) with a literal pattern of the letters y M L d D H h k K m s S a E Q, offsets Z X x (1-3 letters) and quoted text (zone names, localized offsets and eras refused), in the session time zone", translateDateFormat)
}

type dateFormat struct {
	ts   Expr
	secs bool       // from_unixtime: ts is a long of seconds, times 10^6 with Java's wrapping multiply
	pat  *dtPattern // nil: a null pattern, every row null
	zone *tzZone
	typ  sparktype.Type
}

func (e *dateFormat) Type() sparktype.Type { return e.typ }
func (e *dateFormat) mayFail() bool        { return mayFail(e.ts) }
func (e *dateFormat) String() string {
	name := "date_format"
	if e.secs {
		name = "from_unixtime"
	}
	if e.pat == nil {
		return fmt.Sprintf("%s(%s, null)", name, e.ts)
	}
	return fmt.Sprintf("%s(%s, %q, %s)", name, e.ts, e.pat.text, e.zone.name)
}

// patternLiteral reads a literal pattern argument: its text, or isNull for a null literal.
func patternLiteral(pe *plan.Expr, field string, conf *plan.Conf) (text string, isNull bool, err error) {
	cls := plan.ShortClass(pe.Class)
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return "", false, err
	}
	lit, ok := c.(*Literal)
	if !ok {
		return "", false, unsupported("%s with a non-literal pattern (%s) is not supported natively", cls, c)
	}
	if lit.IsNull() {
		return "", true, nil
	}
	if !binaryCollation(lit.Type()) {
		return "", false, unsupported("%s with a pattern of type %s is not supported natively", cls, lit.Type())
	}
	offs, data := binaryParts(lit.constArray())
	return string(data[offs[0]:offs[1]]), false, nil
}

func translateDateFormat(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	if why := legacyTimeParser(conf); why != "" {
		return nil, unsupported("DateFormatClass: %s", why)
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("DateFormatClass returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	ts, err := translateChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	if ts.Type().Kind != sparktype.Timestamp {
		return nil, unsupported("DateFormatClass of %s is not supported natively", ts.Type())
	}
	text, isNull, err := patternLiteral(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	e := &dateFormat{ts: ts, typ: t}
	if !isNull {
		if e.pat, err = compileDatetimePattern(text); err != nil {
			return nil, unsupported("DateFormatClass: %v", err)
		}
	}
	if e.zone, err = zoneOf(pe, conf); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *dateFormat) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *dateFormat) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.ts, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || e.pat == nil || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	us := values[int64](in)
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	text := make([]byte, 0, n*(len(e.pat.text)+8))
	oc := newOffsetCache(e.zone)
	offs[0] = 0
	for i, v := range us {
		if e.secs {
			v *= 1_000_000
		}
		if vbuf == nil || validRow(vbuf, i) {
			l, micro := oc.localSeconds(v)
			text = e.pat.appendLocal(text, l, micro, l-floorDiv(v, 1_000_000))
		}
		offs[i+1] = int32(len(text))
	}
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(len(text))
	copy(dataBuf.Bytes(), text)
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}
