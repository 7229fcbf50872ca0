// Functions that rearrange elements without comparing them: slice, flatten, array_repeat and
// array_insert. Each computes element references per row and gathers once, so any element type
// moves through. Arguments Spark validates per row with an error (slice's start 0 or negative
// length, array_insert's position 0) are taken only as literals that cannot raise: a column
// there could raise on rows the engine cannot tell from Spark's, so it is refused.
package expr

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("Slice", "slice(arr, start, length) with literal start (non-zero) and length (non-negative); out of range gives an empty array", translateSlice)
	RegisterNested("Flatten", "flatten(arr of arrays): the inner arrays concatenated, null if any is null", translateFlatten)
	RegisterNested("ArrayRepeat", "array_repeat(v, n): v n times (empty for n <= 0, null for a null n)", translateArrayRepeat)
	RegisterNested("ArrayInsert", "array_insert(arr, pos, v) with a literal non-zero pos, null-padded beyond the ends, spark.sql.legacy.negativeIndexInArrayInsert honoured", translateArrayInsert)
}

// arrLiteralInt reads an int literal child: its value and whether it is null; ok is false when
// the child is not an int literal.
func arrLiteralInt(e Expr) (v int32, isNull, ok bool) {
	l, isLit := e.(*Literal)
	if !isLit || e.Type().Kind != sparktype.Int {
		return 0, false, false
	}
	if l.IsNull() {
		return 0, true, true
	}
	return values[int32](l.constArray())[0], false, true
}

// ---- slice ----

type arrSliceExpr struct {
	arr, startE, lengthE Expr
	start, length        int32
	null                 bool // start or length is a null literal: every row is null
	typ                  sparktype.Type
}

func translateSlice(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "x", conf)
	if err != nil {
		return nil, err
	}
	st, err := translateChild(e, "start", conf)
	if err != nil {
		return nil, err
	}
	ln, err := translateChild(e, "length", conf)
	if err != nil {
		return nil, err
	}
	if arr.Type().Kind != sparktype.Array {
		return nil, unsupported("slice of %s", arr.Type())
	}
	s := &arrSliceExpr{arr: arr, startE: st, lengthE: ln}
	start, sNull, ok1 := arrLiteralInt(st)
	length, lNull, ok2 := arrLiteralInt(ln)
	if !ok1 || !ok2 {
		return nil, unsupported("slice with a non-literal start or length (start 0 or a negative length raise in Spark)")
	}
	if !sNull && start == 0 {
		return nil, unsupported("slice with start 0 raises INVALID_PARAMETER_VALUE.START, which stays in Spark")
	}
	if !lNull && length < 0 {
		return nil, unsupported("slice with a negative length raises INVALID_PARAMETER_VALUE.LENGTH, which stays in Spark")
	}
	s.start, s.length, s.null = start, length, sNull || lNull
	if s.typ, err = e.Type(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *arrSliceExpr) Type() sparktype.Type { return s.typ }
func (s *arrSliceExpr) mayFail() bool        { return mayFail(s.arr) }
func (s *arrSliceExpr) String() string {
	return fmt.Sprintf("slice(%s, %s, %s)", s.arr, s.startE, s.lengthE)
}

func (s *arrSliceExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	if s.null {
		return allNull(ctx.Alloc, s.typ.Arrow(), n), nil
	}
	l, err := arrEvalList(ctx, b, s.arr, s)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	offs := listOffsets(l)
	rowBM, rowOff := validity(l)
	out := newArrListOut(n, 0)
	for i := 0; i < n; i++ {
		if !arrRowValid(rowBM, rowOff, i) {
			out.nullRow()
			continue
		}
		size := int64(offs[i+1] - offs[i])
		from := int64(s.start) - 1
		if s.start < 0 {
			from = size + int64(s.start)
		}
		if from >= 0 && from < size {
			to := min(from+int64(s.length), size)
			for k := from; k < to; k++ {
				out.add(0, offs[i]+int32(k))
			}
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	return out.finish(ctx.Alloc, s.typ.Arrow(), []arrow.Array{l.ListValues()})
}

// ---- flatten ----

type arrFlattenExpr struct {
	arr Expr
	typ sparktype.Type
}

func translateFlatten(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	inner, ok := arrElem(arr.Type())
	if !ok || inner.Kind != sparktype.Array {
		return nil, unsupported("flatten of %s", arr.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &arrFlattenExpr{arr: arr, typ: t}, nil
}

func (f *arrFlattenExpr) Type() sparktype.Type { return f.typ }
func (f *arrFlattenExpr) mayFail() bool        { return mayFail(f.arr) }
func (f *arrFlattenExpr) String() string       { return fmt.Sprintf("flatten(%s)", f.arr) }

func (f *arrFlattenExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	l, err := arrEvalList(ctx, b, f.arr, f)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	inner, ok := l.ListValues().(listArray)
	if !ok {
		return nil, fmt.Errorf("%s: inner arrays are %s", f, l.ListValues().DataType())
	}
	offs, innerOffs := listOffsets(l), listOffsets(inner)
	rowBM, rowOff := validity(l)
	inBM, inOff := validity(inner)
	out := newArrListOut(n, 0)
	for i := 0; i < n; i++ {
		ok := arrRowValid(rowBM, rowOff, i)
		var total int64
		for j := offs[i]; ok && j < offs[i+1]; j++ {
			ok = arrRowValid(inBM, inOff, int(j))
			total += int64(innerOffs[j+1] - innerOffs[j])
		}
		if !ok {
			out.nullRow()
			continue
		}
		if total > arrMaxLength {
			return nil, &exec.SparkError{Class: "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION", Exception: "runtime",
				Params: map[string]string{"numberOfElements": strconv.FormatInt(total, 10),
					"maxRoundedArrayLength": strconv.Itoa(arrMaxLength), "functionName": "`flatten`"}}
		}
		for j := offs[i]; j < offs[i+1]; j++ {
			for k := innerOffs[j]; k < innerOffs[j+1]; k++ {
				out.add(0, k)
			}
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out.finish(ctx.Alloc, f.typ.Arrow(), []arrow.Array{inner.ListValues()})
}

// ---- array_repeat ----

type arrRepeatExpr struct {
	val, count Expr
	typ        sparktype.Type
}

func translateArrayRepeat(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	val, err := translateChild(e, "left", conf)
	if err != nil {
		return nil, err
	}
	count, err := translateChild(e, "right", conf)
	if err != nil {
		return nil, err
	}
	if count.Type().Kind != sparktype.Int {
		return nil, unsupported("array_repeat with a %s count", count.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if el, ok := arrElem(t); !ok || !el.Equal(val.Type()) {
		return nil, unsupported("array_repeat of %s returning %s", val.Type(), t)
	}
	return &arrRepeatExpr{val: val, count: count, typ: t}, nil
}

func (r *arrRepeatExpr) Type() sparktype.Type { return r.typ }

// mayFail: a count above Spark's array size limit raises.
func (r *arrRepeatExpr) mayFail() bool {
	if c, isNull, ok := arrLiteralInt(r.count); ok && (isNull || c <= arrMaxLength) {
		return mayFail(r.val)
	}
	return true
}
func (r *arrRepeatExpr) String() string { return fmt.Sprintf("array_repeat(%s, %s)", r.val, r.count) }

func (r *arrRepeatExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	c, err := evalOperand(ctx, b, r.count)
	if err != nil {
		return nil, err
	}
	defer c.release()
	v, err := evalOperand(ctx, b, r.val)
	if err != nil {
		return nil, err
	}
	defer v.release()
	counts := values[int32](c.arr)
	cm, vm := c.mask(), v.mask()
	out := newArrListOut(n, 0)
	for i := 0; i < n; i++ {
		if !c.valid(i) {
			out.nullRow()
			continue
		}
		k := counts[i&cm]
		if k > arrMaxLength {
			return nil, &exec.SparkError{Class: "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", Exception: "runtime",
				Params: map[string]string{"numberOfElements": strconv.Itoa(int(k)), "functionName": "`array_repeat`",
					"parameter": "`count`", "maxRoundedArrayLength": strconv.Itoa(arrMaxLength)}}
		}
		if int64(len(out.refs))+int64(max(k, 0)) > arrMaxLength {
			return nil, fmt.Errorf("%s: the batch's arrays exceed %d elements", r, arrMaxLength)
		}
		for ; k > 0; k-- {
			out.add(0, int32(i&vm))
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
	}
	return out.finish(ctx.Alloc, r.typ.Arrow(), []arrow.Array{v.arr})
}

// ---- array_insert ----

// arrInsertMaxPos bounds the literal positions taken natively: larger ones pad arrays with
// millions of nulls (or exceed Spark's size limit, which raises), left to Spark.
const arrInsertMaxPos = 1 << 20

type arrInsertExpr struct {
	arr, posE, item Expr
	pos             int32
	null            bool
	legacy          bool
	typ             sparktype.Type
}

func translateArrayInsert(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	arr, err := translateChild(e, "srcArrayExpr", conf)
	if err != nil {
		return nil, err
	}
	posE, err := translateChild(e, "posExpr", conf)
	if err != nil {
		return nil, err
	}
	item, err := translateChild(e, "itemExpr", conf)
	if err != nil {
		return nil, err
	}
	legacy, err := e.Bool("legacyNegativeIndex")
	if err != nil {
		return nil, err
	}
	elem, ok := arrElem(arr.Type())
	if !ok || !searchableElem(elem) {
		return nil, unsupported("array_insert into %s is not supported natively", arr.Type())
	}
	if !item.Type().Equal(elem) {
		return nil, unsupported("array_insert of %s into %s", item.Type(), arr.Type())
	}
	pos, isNull, ok := arrLiteralInt(posE)
	if !ok {
		return nil, unsupported("array_insert with a non-literal position (position 0 raises INVALID_INDEX_OF_ZERO in Spark)")
	}
	if !isNull && pos == 0 {
		return nil, unsupported("array_insert at position 0 raises INVALID_INDEX_OF_ZERO, which stays in Spark")
	}
	if !isNull && (pos > arrInsertMaxPos || pos < -arrInsertMaxPos) {
		return nil, unsupported("array_insert at position %d (beyond %d) is left to Spark", pos, arrInsertMaxPos)
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &arrInsertExpr{arr: arr, posE: posE, item: item, pos: pos, null: isNull, legacy: legacy, typ: t}, nil
}

func (a *arrInsertExpr) Type() sparktype.Type { return a.typ }
func (a *arrInsertExpr) mayFail() bool        { return mayFail(a.arr) || mayFail(a.item) }
func (a *arrInsertExpr) String() string {
	return fmt.Sprintf("array_insert(%s, %s, %s)", a.arr, a.posE, a.item)
}

func (a *arrInsertExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	if a.null {
		return allNull(ctx.Alloc, a.typ.Arrow(), n), nil
	}
	l, err := arrEvalList(ctx, b, a.arr, a)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	it, err := evalOperand(ctx, b, a.item)
	if err != nil {
		return nil, err
	}
	defer it.release()
	elems := l.ListValues()
	if !arrow.TypeEqual(elems.DataType(), it.arr.DataType()) {
		return nil, fmt.Errorf("%s: elements %s and item %s differ", a, elems.DataType(), it.arr.DataType())
	}
	offs := listOffsets(l)
	rowBM, rowOff := validity(l)
	im := it.mask()
	out := newArrListOut(n, elems.Len()+n)
	for i := 0; i < n; i++ {
		if !arrRowValid(rowBM, rowOff, i) {
			out.nullRow()
			continue
		}
		o0, o1 := offs[i], offs[i+1]
		size := int64(o1 - o0)
		var idx int64 // 0-based insertion index; negative: item first, then -idx nulls
		switch {
		case a.pos > 0:
			idx = int64(a.pos) - 1
		case a.legacy:
			idx = size + int64(a.pos)
		default:
			idx = size + int64(a.pos) + 1
		}
		itemRef := columnar.RowRef{Src: 1, Row: uint32(i & im)}
		switch {
		case idx < 0:
			out.refs = append(out.refs, itemRef)
			for k := idx; k < 0; k++ {
				out.addNull()
			}
			for k := o0; k < o1; k++ {
				out.add(0, k)
			}
		case idx > size:
			for k := o0; k < o1; k++ {
				out.add(0, k)
			}
			for k := size; k < idx; k++ {
				out.addNull()
			}
			out.refs = append(out.refs, itemRef)
		default:
			for k := o0; k < o0+int32(idx); k++ {
				out.add(0, k)
			}
			out.refs = append(out.refs, itemRef)
			for k := o0 + int32(idx); k < o1; k++ {
				out.add(0, k)
			}
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
	}
	return out.finish(ctx.Alloc, a.typ.Arrow(), []arrow.Array{elems, it.arr})
}
