package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// If, CaseWhen (conditionalExpressions.scala), Coalesce and NaNvl (nullExpressions.scala).
// Spark evaluates them row by row and only evaluates what a row needs: the predicate (a null
// predicate counts as false) and then the one branch it selects; CASE conditions in order until
// one is true, then that branch's value (else the ELSE value, or null without one); COALESCE
// arguments in order until one is non-null; NaNvl's right side only where the left is NaN.
//
// Bolide works a batch at a time: each condition runs on the rows still undecided, each value on
// the rows that selected it (the "active" bitmaps of mask.go), so a branch that can raise an
// ANSI error raises it only for rows Spark would have evaluated it on. Every row then records
// which value it takes (or none: null), and a typed gather builds the result.

func init() {
	Register("If", "IF(p, a, b): a where p is true, b where p is false or null; each branch runs only on the rows that select it", translateIf)
	Register("CaseWhen", "CASE WHEN c THEN v ... [ELSE e] END: the first branch whose condition is true (null counts as false), else e or null; each condition and value runs only on the rows that reach it", translateCaseWhen)
	Register("Coalesce", "first non-null argument, or null; each argument runs only on the rows where all earlier ones are null", translateCoalesce)
	Register("NaNvl", "nanvl(a, b) over float/double: null if a is null, a unless it is NaN, else b (b runs only on NaN rows)", translateNaNvl)
}

type condForm uint8

const (
	formCase condForm = iota // If and CaseWhen
	formCoalesce
	formNaNvl
)

// conditional covers all four expressions. For formCase, conds[k] selects vals[k]; when vals has
// one more entry than conds, the last is the ELSE value. For formCoalesce and formNaNvl, vals are
// the arguments in order.
type conditional struct {
	form   condForm
	isIf   bool
	typ    sparktype.Type
	conds  []Expr
	vals   []Expr
	gather gatherFunc
	isNaN  nanFunc // formNaNvl
}

func (e *conditional) Type() sparktype.Type { return e.typ }

func (e *conditional) mayFail() bool {
	for _, c := range e.conds {
		if mayFail(c) {
			return true
		}
	}
	for _, v := range e.vals {
		if mayFail(v) {
			return true
		}
	}
	return false
}

func (e *conditional) String() string {
	switch {
	case e.form == formCoalesce:
		return fmt.Sprintf("coalesce(%s)", joinExprs(e.vals))
	case e.form == formNaNvl:
		return fmt.Sprintf("nanvl(%s)", joinExprs(e.vals))
	case e.isIf:
		return fmt.Sprintf("if (%s) %s else %s", e.conds[0], e.vals[0], e.vals[1])
	}
	var sb strings.Builder
	sb.WriteString("CASE")
	for k, c := range e.conds {
		fmt.Fprintf(&sb, " WHEN %s THEN %s", c, e.vals[k])
	}
	if len(e.vals) > len(e.conds) {
		fmt.Fprintf(&sb, " ELSE %s", e.vals[len(e.vals)-1])
	}
	sb.WriteString(" END")
	return sb.String()
}

func joinExprs(es []Expr) string {
	s := make([]string, len(es))
	for i, x := range es {
		s[i] = x.String()
	}
	return strings.Join(s, ", ")
}

// ---- translation ----

func newConditional(pe *plan.Expr, form condForm, conds, vals []Expr) (*conditional, error) {
	name := plan.ShortClass(pe.Class)
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	for _, c := range conds {
		if c.Type().Kind != sparktype.Boolean {
			return nil, unsupported("%s with a condition of type %s is not supported natively", name, c.Type())
		}
	}
	for _, v := range vals {
		if l, ok := v.(*Literal); ok && l.IsNull() {
			continue // a null of any type: never gathered
		}
		if !v.Type().Equal(t) {
			return nil, unsupported("%s returning %s with a value of type %s is not supported natively", name, t, v.Type())
		}
	}
	g := gatherFor(t)
	if g == nil {
		return nil, unsupported("%s returning %s is not supported natively", name, t)
	}
	return &conditional{form: form, typ: t, conds: conds, vals: vals, gather: g}, nil
}

func translateIf(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	p, err := translateChild(pe, "predicate", conf)
	if err != nil {
		return nil, err
	}
	tv, err := translateChild(pe, "trueValue", conf)
	if err != nil {
		return nil, err
	}
	fv, err := translateChild(pe, "falseValue", conf)
	if err != nil {
		return nil, err
	}
	e, err := newConditional(pe, formCase, []Expr{p}, []Expr{tv, fv})
	if err != nil {
		return nil, err
	}
	e.isIf = true
	return e, nil
}

// caseBranch is a Scala Tuple2 (condition, value) as the encoder writes a Product:
// {"class": "scala.Tuple2", "fields": {"_1": <expr>, "_2": <expr>}}.
type caseBranch struct {
	Fields struct {
		Cond  *plan.Expr `json:"_1"`
		Value *plan.Expr `json:"_2"`
	} `json:"fields"`
}

func translateCaseWhen(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	raw, err := pe.Raw("branches")
	if err != nil {
		return nil, err
	}
	var brs []caseBranch
	if err := json.Unmarshal(raw, &brs); err != nil {
		return nil, unsupported("CaseWhen: branches are not encoded as (condition, value) pairs (%s)", truncate(string(raw), 80))
	}
	var conds, vals []Expr
	for _, br := range brs {
		if br.Fields.Cond == nil || br.Fields.Value == nil {
			return nil, unsupported("CaseWhen: a branch is not encoded as a (condition, value) pair (%s)", truncate(string(raw), 80))
		}
		c, err := Translate(br.Fields.Cond, conf)
		if err != nil {
			return nil, err
		}
		v, err := Translate(br.Fields.Value, conf)
		if err != nil {
			return nil, err
		}
		conds, vals = append(conds, c), append(vals, v)
	}
	if pe.Has("elseValue") {
		rawElse, _ := pe.Raw("elseValue")
		if !isJSONNull(rawElse) {
			var ee *plan.Expr
			if err := json.Unmarshal(rawElse, &ee); err != nil || ee == nil || ee.Class == "" {
				return nil, unsupported("CaseWhen: elseValue is not an encoded expression (%s)", truncate(string(rawElse), 80))
			}
			v, err := Translate(ee, conf)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
	}
	return newConditional(pe, formCase, conds, vals)
}

func translateCoalesce(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	cs, err := translateChildren(pe, "children", conf)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, unsupported("Coalesce without arguments is not supported natively")
	}
	return newConditional(pe, formCoalesce, nil, cs)
}

func translateNaNvl(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	l, err := translateChild(pe, "left", conf)
	if err != nil {
		return nil, err
	}
	r, err := translateChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	e, err := newConditional(pe, formNaNvl, nil, []Expr{l, r})
	if err != nil {
		return nil, err
	}
	switch e.typ.Kind {
	case sparktype.Float:
		e.isNaN = nanBits[float32]
	case sparktype.Double:
		e.isNaN = nanBits[float64]
	default:
		return nil, unsupported("NaNvl returning %s is not supported natively", e.typ)
	}
	return e, nil
}

// ---- evaluation ----

func (e *conditional) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// activeFor is the active bitmap to evaluate child x with: the rows that reach it when x can
// fail, nil (every row) otherwise.
func activeFor(x Expr, rows []byte) []byte {
	if mayFail(x) {
		return rows
	}
	return nil
}

func anySet(bm []byte) bool {
	for _, x := range bm {
		if x != 0 {
			return true
		}
	}
	return false
}

// assignRows records value k for the rows set in sel.
func assignRows(src []int32, sel []byte, k int32) {
	for bi, by := range sel {
		for by != 0 {
			src[bi<<3+bits.TrailingZeros8(by)] = k
			by &= by - 1
		}
	}
}

func (e *conditional) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 {
		return allNull(ctx.Alloc, dt, 0), nil
	}
	nb := int(bitutil.BytesForBits(int64(n)))
	// remaining: the rows (within active) not yet decided.
	remaining := make([]byte, nb)
	if active != nil {
		copy(remaining, active[:nb])
		if r := n & 7; r != 0 {
			remaining[nb-1] &= byte(1)<<r - 1
		}
	} else {
		bitutil.SetBitsTo(remaining, 0, int64(n), true)
	}
	// src[i]: the index in vals of the value row i takes, -1 for null.
	src := make([]int32, n)
	for i := range src {
		src[i] = -1
	}
	ops := make([]operand, len(e.vals))
	defer func() {
		for _, o := range ops {
			o.release()
		}
	}()
	assigned, whole := 0, -1
	take := func(k int, sel []byte) {
		if c := bitutil.CountSetBits(sel, 0, n); c > 0 {
			assignRows(src, sel, int32(k))
			assigned += c
			if c == n {
				whole = k
			}
		}
	}
	for k, v := range e.vals {
		if !anySet(remaining) {
			break
		}
		switch e.form {
		case formCoalesce:
			o, err := evalOperandActive(ctx, b, v, activeFor(v, remaining))
			if err != nil {
				return nil, err
			}
			ops[k] = o
			sel := andActiveValid(remaining, o, n)
			andNot(remaining, sel)
			take(k, sel)
		case formNaNvl:
			o, err := evalOperandActive(ctx, b, v, activeFor(v, remaining))
			if err != nil {
				return nil, err
			}
			ops[k] = o
			switch {
			case k > 0: // the right side, on the rows where the left is NaN
				if !o.nullScalar() {
					take(k, remaining)
				}
				clear(remaining)
			case o.nullScalar():
				clear(remaining)
			default:
				// Non-null rows: NaN ones go on to the right side, the others take the left;
				// null rows stay null.
				valid := andActiveValid(remaining, o, n)
				nan := make([]byte, nb)
				e.isNaN(o, n, nan)
				for i := range valid {
					remaining[i] = valid[i] & nan[i]
					valid[i] &^= nan[i]
				}
				take(k, valid)
			}
		default:
			var sel []byte
			if k < len(e.conds) {
				c := e.conds[k]
				co, err := evalOperandActive(ctx, b, c, activeFor(c, remaining))
				if err != nil {
					return nil, err
				}
				cv, cvalid := boolBits(co, n)
				co.release()
				sel = cv
				for i := range sel {
					sel[i] &= cvalid[i] & remaining[i]
					remaining[i] &^= sel[i]
				}
			} else { // ELSE
				sel = remaining
				remaining = make([]byte, nb)
			}
			if !anySet(sel) {
				continue
			}
			o, err := evalOperandActive(ctx, b, v, activeFor(v, sel))
			if err != nil {
				return nil, err
			}
			ops[k] = o
			if !o.nullScalar() {
				take(k, sel)
			}
		}
	}
	switch {
	case assigned == 0:
		return allNull(ctx.Alloc, dt, n), nil
	case whole >= 0:
		o := ops[whole]
		if o.scalar {
			return broadcast(ctx.Alloc, o.arr, n), nil
		}
		if arrow.TypeEqual(o.arr.DataType(), dt) && o.arr.Len() == n {
			o.arr.Retain()
			return o.arr, nil
		}
	}
	vbuf, nulls := gatherValidity(ctx.Alloc, n, src, ops, assigned)
	out, err := e.gather(ctx.Alloc, dt, n, src, ops, vbuf, nulls)
	if err != nil && vbuf != nil {
		vbuf.Release()
	}
	return out, err
}

func andNot(dst, x []byte) {
	for i := range dst {
		dst[i] &^= x[i]
	}
}

// nanFunc sets the bits of out where the float operand o holds NaN.
type nanFunc func(o operand, n int, out []byte)

func nanBits[T float](o operand, n int, out []byte) {
	vals, m := values[T](o.arr), o.mask()
	for i := 0; i < n; i++ {
		x := vals[i&m]
		out[i>>3] |= b2u(x != x) << (i & 7)
	}
}

// gatherValidity builds the result validity: row i is valid when it takes a value (src >= 0)
// that is non-null. It returns nil when every row is valid.
func gatherValidity(alloc memory.Allocator, n int, src []int32, ops []operand, assigned int) (*memory.Buffer, int) {
	type vbits struct {
		bm  []byte
		off int
	}
	vs := make([]vbits, len(ops))
	withNulls := false
	for k, o := range ops {
		if o.arr == nil || o.scalar {
			continue // scalars taken by some row are non-null
		}
		if bm, off := validity(o.arr); bm != nil {
			vs[k] = vbits{bm, off}
			withNulls = true
		}
	}
	if !withNulls && assigned == n {
		return nil, 0
	}
	buf, out := newBitmap(alloc, n)
	for i, k := range src {
		if k < 0 {
			continue
		}
		if v := vs[k]; v.bm == nil || bitutil.BitIsSet(v.bm, v.off+i) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	nulls := countNulls(out, n)
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

// gatherFunc builds the result values: row i takes row i (row 0 of a scalar) of ops[src[i]],
// and an unspecified value where src[i] < 0. It takes over vbuf.
type gatherFunc func(alloc memory.Allocator, dt arrow.DataType, n int, src []int32, ops []operand, vbuf *memory.Buffer, nulls int) (arrow.Array, error)

func gatherFor(t sparktype.Type) gatherFunc {
	switch t.Kind {
	case sparktype.Boolean:
		return gatherBool
	case sparktype.Byte:
		return gatherFixed[int8]
	case sparktype.Short:
		return gatherFixed[int16]
	case sparktype.Int, sparktype.Date:
		return gatherFixed[int32]
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return gatherFixed[int64]
	case sparktype.Float:
		return gatherFixed[float32]
	case sparktype.Double:
		return gatherFixed[float64]
	case sparktype.Decimal:
		return gatherFixed[decimal128.Num]
	case sparktype.String, sparktype.Binary:
		return gatherBinary
	}
	return nil
}

func gatherFixed[T any](alloc memory.Allocator, dt arrow.DataType, n int, src []int32, ops []operand, vbuf *memory.Buffer, nulls int) (arrow.Array, error) {
	vals := make([][]T, len(ops))
	masks := make([]int, len(ops))
	for k, o := range ops {
		if o.arr != nil && !o.nullScalar() {
			vals[k], masks[k] = values[T](o.arr), o.mask()
		}
	}
	buf, out := newFixed[T](alloc, n)
	var zero T
	for i, k := range src {
		if k >= 0 {
			out[i] = vals[k][i&masks[k]]
		} else {
			out[i] = zero
		}
	}
	return finish(dt, n, vbuf, buf, nulls), nil
}

func gatherBool(alloc memory.Allocator, dt arrow.DataType, n int, src []int32, ops []operand, vbuf *memory.Buffer, nulls int) (arrow.Array, error) {
	type bbits struct {
		bm        []byte
		off, mask int
	}
	bs := make([]bbits, len(ops))
	for k, o := range ops {
		if o.arr != nil && !o.nullScalar() {
			d := o.arr.Data()
			bs[k] = bbits{d.Buffers()[1].Bytes(), d.Offset(), o.mask()}
		}
	}
	buf, out := newBitmap(alloc, n)
	for i, k := range src {
		if k < 0 {
			continue
		}
		if s := bs[k]; bitutil.BitIsSet(s.bm, s.off+(i&s.mask)) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	return finish(dt, n, vbuf, buf, nulls), nil
}

func gatherBinary(alloc memory.Allocator, dt arrow.DataType, n int, src []int32, ops []operand, vbuf *memory.Buffer, nulls int) (arrow.Array, error) {
	type parts struct {
		offs []int32
		data []byte
		mask int
	}
	ps := make([]parts, len(ops))
	for k, o := range ops {
		if o.arr != nil && !o.nullScalar() {
			offs, data := binaryParts(o.arr)
			ps[k] = parts{offs, data, o.mask()}
		}
	}
	offBuf, offs := newFixed[int32](alloc, n+1)
	var total int64
	offs[0] = 0
	for i, k := range src {
		if k >= 0 {
			p := &ps[k]
			j := i & p.mask
			total += int64(p.offs[j+1] - p.offs[j])
			if total > math.MaxInt32 {
				offBuf.Release()
				return nil, fmt.Errorf("conditional result exceeds %d bytes of string data in one batch", math.MaxInt32)
			}
		}
		offs[i+1] = int32(total)
	}
	// A string of up to 16 bytes is copied as one 16-byte block (two loads and two stores, no call
	// to memmove, which cost more than the short strings of if(n > 15, s, code) and
	// coalesce(s, 'none')): the bytes past its end land where the following rows are written
	// next, or in the 16 bytes of slack cut off at the end; the block read must lie inside the
	// source's buffer, else copy takes the string.
	const block = 16
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(int(total) + block)
	data := dataBuf.Bytes()
	for i, k := range src {
		if k >= 0 {
			p := &ps[k]
			j := i & p.mask
			s, e := int(p.offs[j]), int(p.offs[j+1])
			d := int(offs[i])
			if e-s <= block && s+block <= len(p.data) {
				*(*[block]byte)(data[d : d+block]) = *(*[block]byte)(p.data[s : s+block])
			} else {
				copy(data[d:offs[i+1]], p.data[s:e])
			}
		}
	}
	dataBuf.ResizeNoShrink(int(total))
	if nulls == 0 && vbuf != nil {
		vbuf.Release()
		vbuf = nil
	}
	d := array.NewData(dt, n, []*memory.Buffer{vbuf, offBuf, dataBuf}, nil, nulls, 0)
	if vbuf != nil {
		vbuf.Release()
	}
	offBuf.Release()
	dataBuf.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a, nil
}
