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

// dayname and monthname are DateTimeUtils.getDayName/getMonthName: the field's
// getDisplayName(TextStyle.SHORT, Locale.US), a fixed three-letter English name whatever the
// JVM's default locale, which is why a table is exact. Both take a date (a timestamp argument is
// cast to a date by Spark's analyzer, in the session time zone, before it reaches us).

func init() {
	Register("DayName", "dayname(date): English three-letter day name (Mon..Sun), Locale.US as Spark's", nameTranslator(false))
	Register("MonthName", "monthname(date): English three-letter month name (Jan..Dec), Locale.US as Spark's", nameTranslator(true))
}

var (
	shortDayNames   = [8]string{1: "Mon", 2: "Tue", 3: "Wed", 4: "Thu", 5: "Fri", 6: "Sat", 7: "Sun"}
	shortMonthNames = [13]string{1: "Jan", 2: "Feb", 3: "Mar", 4: "Apr", 5: "May", 6: "Jun", 7: "Jul", 8: "Aug",
		9: "Sep", 10: "Oct", 11: "Nov", 12: "Dec"}
)

type dateName struct {
	month bool
	typ   sparktype.Type
	child Expr
}

func (e *dateName) Type() sparktype.Type { return e.typ }
func (e *dateName) mayFail() bool        { return mayFail(e.child) }
func (e *dateName) String() string {
	if e.month {
		return fmt.Sprintf("monthname(%s)", e.child)
	}
	return fmt.Sprintf("dayname(%s)", e.child)
}

func nameTranslator(month bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		cls := plan.ShortClass(pe.Class)
		t, err := pe.Type()
		if err != nil {
			return nil, err
		}
		if !binaryCollation(t) {
			return nil, unsupported("%s returning %s is not supported natively (UTF8_BINARY strings only)", cls, t)
		}
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Date {
			return nil, unsupported("%s of %s is not supported natively", cls, c.Type())
		}
		return &dateName{month: month, typ: t, child: c}, nil
	}
}

func (e *dateName) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *dateName) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	days := values[int32](in)
	// Every name is 3 bytes; null rows get one too (their bytes are never read).
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(3 * n)
	dst := dataBuf.Bytes()
	for i, d := range days {
		offs[i] = int32(3 * i)
		var name string
		if e.month {
			_, m, _ := civilFromDays(d)
			name = shortMonthNames[m]
		} else {
			name = shortDayNames[isoWeekday(int64(d))]
		}
		copy(dst[3*i:3*i+3], name)
	}
	offs[n] = int32(3 * n)
	return finishBytes(dt, n, vbuf, nulls, offBuf, dataBuf), nil
}
