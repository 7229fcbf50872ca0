// sequence(start, stop[, step]) (Sequence) of integral types, and of dates with the default step.
//
// Integral types follow Spark's IntegralSequenceImpl: the step defaults to 1 (-1 when start >
// stop); boundaries the step cannot reach raise _LEGACY_ERROR_TEMP_3243 ("Illegal sequence
// boundaries", a SparkIllegalArgumentException, as the generated code raises it); the length is
// Sequence.sequenceLength: 1 + (stop - start) / step with exact long arithmetic, and a length
// above MAX_ROUNDED_ARRAY_LENGTH (or one whose computation overflows) raises
// COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER with the exact count. Element i is start + step * i in
// the element type (wrapping arithmetic, as Integral[T] computes it; every element lies between
// start and stop, so nothing wraps in the result).
//
// Dates with the default step (one day, -1 day when start > stop) are every day from start to
// stop. Spark steps through the session time zone's local midnights; in a zone with transitions
// a midnight can be skipped or repeated, which this file does not reproduce, so dates are native
// only in fixed-offset zones. An explicit step for dates or timestamps is an interval, a type the
// engine does not carry: those and timestamps stay in Spark.
//
// Only the rows Spark evaluates raise errors: stop is evaluated where start is not null, the
// step where both are not (evalOperandActive).
package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("Sequence", "sequence(start, stop[, step]) of byte, short, int and long (boundaries and "+
		"length errors as in Spark), and of dates with the default step in a fixed-offset session time zone; "+
		"timestamps and interval steps stay in Spark", translateSequence)
}

type sequenceExpr struct {
	start, stop, step Expr // step nil: the default step
	elem              sparktype.Type
	typ               sparktype.Type
}

func translateSequence(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	elem, ok := arrElem(t)
	if !ok {
		return nil, unsupported("sequence returning %s", t)
	}
	s := &sequenceExpr{elem: elem, typ: t}
	switch elem.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
	case sparktype.Date:
		z, err := zoneOf(pe, conf)
		if err != nil {
			return nil, err
		}
		if len(z.offs) != 1 || len(z.trans) != 0 || z.tableEnd != math.MaxInt64 {
			return nil, unsupported("sequence of dates in time zone %s (with transitions) is not supported natively", z.name)
		}
	default:
		return nil, unsupported("sequence of %s is not supported natively", elem)
	}
	if s.start, err = translateChild(pe, "start", conf); err != nil {
		return nil, err
	}
	if s.stop, err = translateChild(pe, "stop", conf); err != nil {
		return nil, err
	}
	raw, err := pe.Raw("stepOpt")
	if err != nil {
		return nil, err
	}
	if !isJSONNull(raw) {
		if elem.Kind == sparktype.Date {
			return nil, unsupported("sequence of dates with an explicit step (an interval) is not supported natively")
		}
		if s.step, err = translateChild(pe, "stepOpt", conf); err != nil {
			return nil, err
		}
	}
	for _, a := range []Expr{s.start, s.stop, s.step} {
		if a != nil && !a.Type().Equal(elem) {
			return nil, unsupported("sequence of %s with an argument %s of type %s", elem, a, a.Type())
		}
	}
	return s, nil
}

func (s *sequenceExpr) Type() sparktype.Type { return s.typ }

// mayFail: the boundaries and the length can raise.
func (s *sequenceExpr) mayFail() bool { return true }
func (s *sequenceExpr) String() string {
	if s.step == nil {
		return fmt.Sprintf("sequence(%s, %s)", s.start, s.stop)
	}
	return fmt.Sprintf("sequence(%s, %s, %s)", s.start, s.stop, s.step)
}

func (s *sequenceExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return s.evalMasked(ctx, b, nil)
}

// seqMaxLength is ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH.
const seqMaxLength = math.MaxInt32 - 15

// seqInt64 reads row i of an integral (or date) operand as int64.
func seqInt64(o operand, kind sparktype.Kind, i int) int64 {
	j := i & o.mask()
	switch kind {
	case sparktype.Byte:
		return int64(values[int8](o.arr)[j])
	case sparktype.Short:
		return int64(values[int16](o.arr)[j])
	case sparktype.Int, sparktype.Date:
		return int64(values[int32](o.arr)[j])
	}
	return values[int64](o.arr)[j]
}

func (s *sequenceExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, err := evalOperandActive(ctx, b, s.start, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	stopActive := andActiveValid(active, so, n)
	eo, err := evalOperandActive(ctx, b, s.stop, stopActive)
	if err != nil {
		return nil, err
	}
	defer eo.release()
	stepActive := andActiveValid(stopActive, eo, n)
	var po operand
	if s.step != nil {
		if po, err = evalOperandActive(ctx, b, s.step, stepActive); err != nil {
			return nil, err
		}
		defer po.release()
		stepActive = andActiveValid(stepActive, po, n)
	}
	kind := s.elem.Kind
	// First pass: each row's start, step and length (-1: a null row), errors raised in row order.
	type seqRow struct{ start, step, n int64 }
	rows := make([]seqRow, n)
	total := int64(0)
	for i := 0; i < n; i++ {
		if !bitutil.BitIsSet(stepActive, i) {
			rows[i].n = -1
			continue
		}
		start, stop := seqInt64(so, kind, i), seqInt64(eo, kind, i)
		var step int64
		switch {
		case s.step != nil:
			step = seqInt64(po, kind, i)
		case start <= stop:
			step = 1
		default:
			step = -1
		}
		if !(step > 0 && start <= stop || step < 0 && start >= stop || step == 0 && start == stop) {
			return nil, &exec.SparkError{Class: "_LEGACY_ERROR_TEMP_3243", Exception: "runtime", Params: map[string]string{
				"start": strconv.FormatInt(start, 10), "stop": strconv.FormatInt(stop, 10), "step": strconv.FormatInt(step, 10)}}
		}
		length, err := sequenceLength(start, stop, step)
		if err != nil {
			return nil, err
		}
		total += length
		if total > math.MaxInt32 {
			return nil, fmt.Errorf("%s: the results of a batch exceed %d elements", s, math.MaxInt32)
		}
		rows[i] = seqRow{start, step, length}
	}
	// Second pass: the elements, typed.
	alloc := ctx.Alloc
	var vals arrow.Array
	switch kind {
	case sparktype.Byte:
		vals = seqFill[int8](alloc, s.elem, rows, int(total), func(r seqRow) (int64, int64, int64) { return r.start, r.step, r.n })
	case sparktype.Short:
		vals = seqFill[int16](alloc, s.elem, rows, int(total), func(r seqRow) (int64, int64, int64) { return r.start, r.step, r.n })
	case sparktype.Int, sparktype.Date:
		vals = seqFill[int32](alloc, s.elem, rows, int(total), func(r seqRow) (int64, int64, int64) { return r.start, r.step, r.n })
	default:
		vals = seqFill[int64](alloc, s.elem, rows, int(total), func(r seqRow) (int64, int64, int64) { return r.start, r.step, r.n })
	}
	defer vals.Release()
	offBuf, offs := newFixed[int32](alloc, n+1)
	var vbuf *memory.Buffer
	nulls := 0
	acc := int32(0)
	for i, r := range rows {
		offs[i] = acc
		if r.n < 0 {
			if vbuf == nil {
				var vb []byte
				vbuf, vb = newBitmap(alloc, n)
				bitutil.SetBitsTo(vb, 0, int64(n), true)
			}
			bitutil.ClearBit(vbuf.Bytes(), i)
			nulls++
			continue
		}
		acc += int32(r.n)
	}
	offs[n] = acc
	d := array.NewData(s.typ.Arrow(), n, []*memory.Buffer{vbuf, offBuf}, []arrow.ArrayData{vals.Data()}, nulls, 0)
	offBuf.Release()
	if vbuf != nil {
		vbuf.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// seqFill lays out every row's elements start + step*i (wrapping in T) into one values column.
func seqFill[T int8 | int16 | int32 | int64, R any](alloc memory.Allocator, elem sparktype.Type, rows []R, total int, parts func(R) (int64, int64, int64)) arrow.Array {
	buf, out := newFixed[T](alloc, total)
	k := 0
	for _, r := range rows {
		start, step, n := parts(r)
		v := start
		for i := int64(0); i < n; i++ {
			out[k] = T(v)
			k++
			v += step
		}
	}
	return finish(elem.Arrow(), total, nil, buf, 0)
}

// sequenceLength is Sequence.sequenceLength: 1 + (stop - start) / step in exact long arithmetic;
// beyond MAX_ROUNDED_ARRAY_LENGTH (or on overflow, the count then computed exactly) it raises
// COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER. The boundaries are already checked.
func sequenceLength(start, stop, step int64) (int64, error) {
	delta := stop - start
	overflow := (stop >= 0) != (start >= 0) && (delta >= 0) != (stop >= 0)
	if !overflow && delta == math.MinInt64 && step == -1 {
		overflow = true
	}
	var length int64
	if !overflow {
		if stop == start {
			length = 1
		} else {
			q := delta / step
			if q == math.MaxInt64 {
				overflow = true
			} else {
				length = 1 + q
			}
		}
	}
	if overflow {
		exact := new(big.Int).Sub(big.NewInt(stop), big.NewInt(start))
		exact.Quo(exact, big.NewInt(step))
		exact.Add(exact, big.NewInt(1))
		if exact.Cmp(big.NewInt(seqMaxLength)) > 0 {
			return 0, seqTooLong(exact.String())
		}
		// Spark reaches its "Unreachable code reached." internal error here.
		return 0, fmt.Errorf("sequence(%d, %d, %d): the length overflows a long but is %s", start, stop, step, exact)
	}
	if length > seqMaxLength {
		return 0, seqTooLong(strconv.FormatInt(length, 10))
	}
	return length, nil
}

func seqTooLong(count string) error {
	// QueryExecutionErrors.createArrayWithElementsExceedLimitError.
	return &exec.SparkError{Class: "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", Exception: "runtime", Params: map[string]string{
		"numberOfElements": count, "functionName": "`sequence`", "maxRoundedArrayLength": strconv.Itoa(seqMaxLength),
		"parameter": "`count`"}}
}
