package expr

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Comparisons, after Spark's predicates.scala (BinaryComparison) and SQLOrderingUtil:
// float/double compare with NaN = NaN and NaN greater than every other value, -0.0 = 0.0;
// string and binary compare bytewise unsigned (UTF8String.compareTo, ByteArray.compareBinary);
// false < true; decimals by value, whatever their scales. EqualNullSafe (<=>) is never null.

type cmpOp uint8

const (
	cmpEQ cmpOp = iota
	cmpLT
	cmpLE
	cmpGT
	cmpGE
)

var cmpInfo = [...]struct{ class, symbol string }{
	cmpEQ: {"EqualTo", "="}, cmpLT: {"LessThan", "<"}, cmpLE: {"LessThanOrEqual", "<="},
	cmpGT: {"GreaterThan", ">"}, cmpGE: {"GreaterThanOrEqual", ">="},
}

func init() {
	for op := cmpEQ; op <= cmpGE; op++ {
		Register(cmpInfo[op].class, "left "+cmpInfo[op].symbol+" right over boolean, numeric, decimal (any scales), string/binary (bytewise), date, timestamp; Spark NaN/-0.0 semantics", cmpTranslator(op, false))
	}
	Register("EqualNullSafe", "left <=> right (null-safe equality, never null) over the same types as EqualTo", cmpTranslator(cmpEQ, true))
}

type compare struct {
	op          cmpOp
	nullSafe    bool
	left, right Expr
	lt, rt      sparktype.Type
}

func (e *compare) Type() sparktype.Type { return sparktype.BooleanType }
func (e *compare) mayFail() bool        { return mayFail(e.left) || mayFail(e.right) }
func (e *compare) String() string {
	s := cmpInfo[e.op].symbol
	if e.nullSafe {
		s = "<=>"
	}
	return fmt.Sprintf("(%s %s %s)", e.left, s, e.right)
}

func cmpTranslator(op cmpOp, nullSafe bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		lt, rt := l.Type(), r.Type()
		name := plan.ShortClass(pe.Class)
		if !comparable(lt, rt) {
			return nil, unsupported("%s of %s and %s is not supported natively", name, lt, rt)
		}
		return &compare{op: op, nullSafe: nullSafe, left: l, right: r, lt: lt, rt: rt}, nil
	}
}

func comparable(lt, rt sparktype.Type) bool {
	if lt.Kind == sparktype.Decimal && rt.Kind == sparktype.Decimal {
		return true
	}
	if !lt.Equal(rt) {
		return false
	}
	switch lt.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Float, sparktype.Double, sparktype.String, sparktype.Binary, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ:
		return true
	}
	return false
}

func (e *compare) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *compare) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, err := evalOperandActive(ctx, b, e.left, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	ract := active
	if !e.nullSafe && mayFail(e.right) {
		ract = andActiveValid(active, lo, n)
	}
	ro, err := evalOperandActive(ctx, b, e.right, ract)
	if err != nil {
		return nil, err
	}
	defer ro.release()
	dt := arrow.FixedWidthTypes.Boolean
	if e.nullSafe {
		return e.nullSafeEq(ctx, n, lo, ro), nil
	}
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	obuf, out := newBitmap(ctx.Alloc, n)
	compareInto(e.op, e.lt, e.rt, lo, ro, n, out)
	return finish(dt, n, vbuf, obuf, nulls), nil
}

func (e *compare) nullSafeEq(ctx *exec.TaskContext, n int, lo, ro operand) arrow.Array {
	obuf, out := newBitmap(ctx.Alloc, n)
	if lo.nullScalar() || ro.nullScalar() {
		// x <=> NULL is IsNull(x).
		other := lo
		if lo.nullScalar() {
			other = ro
		}
		for i := 0; i < n; i++ {
			if !other.valid(i) {
				bitutil.SetBit(out, i)
			}
		}
		return finish(arrow.FixedWidthTypes.Boolean, n, nil, obuf, 0)
	}
	compareInto(cmpEQ, e.lt, e.rt, lo, ro, n, out)
	if lo.arr.NullN() > 0 || ro.arr.NullN() > 0 {
		for i := 0; i < n; i++ {
			lv, rv := lo.valid(i), ro.valid(i)
			if lv && rv {
				continue
			}
			if !lv && !rv {
				bitutil.SetBit(out, i)
			} else {
				bitutil.ClearBit(out, i)
			}
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, nil, obuf, 0)
}

// compareInto sets bit i of out (zeroed) when row i satisfies op; values under nulls are
// compared too (their bits are masked by the validity).
func compareInto(op cmpOp, lt, rt sparktype.Type, lo, ro operand, n int, out []byte) {
	am, bm := lo.mask(), ro.mask()
	switch lt.Kind {
	case sparktype.Byte:
		cmpOrdered(op, values[int8](lo.arr), values[int8](ro.arr), am, bm, n, out)
	case sparktype.Short:
		cmpOrdered(op, values[int16](lo.arr), values[int16](ro.arr), am, bm, n, out)
	case sparktype.Int, sparktype.Date:
		cmpOrdered(op, values[int32](lo.arr), values[int32](ro.arr), am, bm, n, out)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		cmpOrdered(op, values[int64](lo.arr), values[int64](ro.arr), am, bm, n, out)
	case sparktype.Float:
		cmpFloat(op, values[float32](lo.arr), values[float32](ro.arr), am, bm, n, out)
	case sparktype.Double:
		cmpFloat(op, values[float64](lo.arr), values[float64](ro.arr), am, bm, n, out)
	case sparktype.Boolean:
		la, ra := lo.arr, ro.arr
		lb, rb := la.Data().Buffers()[1].Bytes(), ra.Data().Buffers()[1].Bytes()
		lof, rof := la.Data().Offset(), ra.Data().Offset()
		for i := 0; i < n; i++ {
			x := int(b2u(bitutil.BitIsSet(lb, lof+(i&am))))
			y := int(b2u(bitutil.BitIsSet(rb, rof+(i&bm))))
			out[i>>3] |= b2u(cmpHolds(op, x-y)) << (i & 7)
		}
	case sparktype.String, sparktype.Binary:
		lOff, lData := binaryParts(lo.arr)
		rOff, rData := binaryParts(ro.arr)
		for i := 0; i < n; i++ {
			li, ri := i&am, i&bm
			c := bytes.Compare(lData[lOff[li]:lOff[li+1]], rData[rOff[ri]:rOff[ri+1]])
			out[i>>3] |= b2u(cmpHolds(op, c)) << (i & 7)
		}
	case sparktype.Decimal:
		a, b := values[decimal128.Num](lo.arr), values[decimal128.Num](ro.arr)
		if lt.Scale == rt.Scale {
			for i := 0; i < n; i++ {
				out[i>>3] |= b2u(cmpHolds(op, a[i&am].Cmp(b[i&bm]))) << (i & 7)
			}
			return
		}
		// Different scales: align exactly (big.Int when the upscaled value may exceed 38 digits).
		up := rt.Scale - lt.Scale
		upLeft := up > 0
		if !upLeft {
			up = -up
		}
		p := lt.Precision
		if !upLeft {
			p = rt.Precision
		}
		if p+up <= 38 {
			m := decimal128.GetScaleMultiplier(int(up))
			for i := 0; i < n; i++ {
				x, y := a[i&am], b[i&bm]
				if upLeft {
					x = x.Mul(m)
				} else {
					y = y.Mul(m)
				}
				out[i>>3] |= b2u(cmpHolds(op, x.Cmp(y))) << (i & 7)
			}
			return
		}
		var bx, by big.Int
		for i := 0; i < n; i++ {
			numToBig(&bx, a[i&am])
			numToBig(&by, b[i&bm])
			if upLeft {
				bx.Mul(&bx, pow10Big(int(up)))
			} else {
				by.Mul(&by, pow10Big(int(up)))
			}
			out[i>>3] |= b2u(cmpHolds(op, bx.Cmp(&by))) << (i & 7)
		}
	}
}

// binaryParts returns the offsets (offset applied, len+1) and data of a string/binary array.
func binaryParts(a arrow.Array) ([]int32, []byte) {
	d := a.Data()
	offs := reinterpret[int32](d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()+1]
	var data []byte
	if buf := d.Buffers()[2]; buf != nil {
		data = buf.Bytes()
	}
	return offs, data
}

func cmpHolds(op cmpOp, c int) bool {
	switch op {
	case cmpEQ:
		return c == 0
	case cmpLT:
		return c < 0
	case cmpLE:
		return c <= 0
	case cmpGT:
		return c > 0
	}
	return c >= 0
}

type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64
}

func cmpOrdered[T ordered](op cmpOp, a, b []T, am, bm, n int, out []byte) {
	switch op {
	case cmpEQ:
		for i := 0; i < n; i++ {
			out[i>>3] |= b2u(a[i&am] == b[i&bm]) << (i & 7)
		}
	case cmpLT:
		for i := 0; i < n; i++ {
			out[i>>3] |= b2u(a[i&am] < b[i&bm]) << (i & 7)
		}
	case cmpLE:
		for i := 0; i < n; i++ {
			out[i>>3] |= b2u(a[i&am] <= b[i&bm]) << (i & 7)
		}
	case cmpGT:
		for i := 0; i < n; i++ {
			out[i>>3] |= b2u(a[i&am] > b[i&bm]) << (i & 7)
		}
	case cmpGE:
		for i := 0; i < n; i++ {
			out[i>>3] |= b2u(a[i&am] >= b[i&bm]) << (i & 7)
		}
	}
}

// cmpFloat follows SQLOrderingUtil.compareDoubles: NaN equals NaN and is the largest value;
// -0.0 equals 0.0 (IEEE comparison already treats them as equal).
func cmpFloat[T float](op cmpOp, a, b []T, am, bm, n int, out []byte) {
	switch op {
	case cmpEQ:
		for i := 0; i < n; i++ {
			x, y := a[i&am], b[i&bm]
			out[i>>3] |= b2u(x == y || (x != x && y != y)) << (i & 7)
		}
	case cmpLT: // x < y, or x is a number and y is NaN
		for i := 0; i < n; i++ {
			x, y := a[i&am], b[i&bm]
			out[i>>3] |= b2u(x < y || (x == x && y != y)) << (i & 7)
		}
	case cmpLE: // not (x > y)
		for i := 0; i < n; i++ {
			x, y := a[i&am], b[i&bm]
			out[i>>3] |= b2u(!(x > y || (x != x && y == y))) << (i & 7)
		}
	case cmpGT:
		for i := 0; i < n; i++ {
			x, y := a[i&am], b[i&bm]
			out[i>>3] |= b2u(x > y || (x != x && y == y)) << (i & 7)
		}
	case cmpGE:
		for i := 0; i < n; i++ {
			x, y := a[i&am], b[i&bm]
			out[i>>3] |= b2u(!(x < y || (x == x && y != y))) << (i & 7)
		}
	}
}
