package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Predicates as selections. A filter only needs the rows where its predicate is TRUE, so instead
// of evaluating every conjunct into a boolean column over the whole batch and combining bitmaps,
// Select narrows a selection vector conjunct by conjunct: the first conjunct runs over the batch,
// each later one only over the rows still selected (TPC-H Q6: the decimal comparisons run over the
// ~15% of rows that pass the date range instead of all of them). Comparisons of integers, dates,
// timestamps and decimals with the same scale, and IS [NOT] NULL, have typed loops over the
// selection; any other predicate is evaluated as a column and its true rows kept.
//
// Spark's And evaluates its right side on the rows where the left is true or null. Narrowing
// evaluates it on the true rows only: the same result for a filter (a null or false left drops the
// row either way), but an error the right side raises on a null-left row would be lost, so an And
// whose right side may fail (mayFail: ANSI arithmetic, casts) is evaluated whole, with the masked
// evaluation that reproduces Spark's short-circuit.

// Select returns the rows of b where pred is true, increasing, written over dst[:0] (grown when
// its capacity is below b.NumRows).
func Select(ctx *exec.TaskContext, b *columnar.Batch, pred Expr, dst []int32) ([]int32, error) {
	if cap(dst) < b.NumRows {
		dst = make([]int32, b.NumRows)
	}
	return narrow(ctx, b, pred, nil, true, dst[:b.NumRows])
}

// Narrow keeps the rows of sel (every row of b when all) where pred is true, written over dst
// (at least as long as the input selection; it may be sel itself), or returns sel itself when
// every row is kept. Columns of b that pred does not read may be nil.
func Narrow(ctx *exec.TaskContext, b *columnar.Batch, pred Expr, sel []int32, all bool, dst []int32) ([]int32, error) {
	return narrow(ctx, b, pred, sel, all, dst)
}

// narrow keeps the rows of sel (every row of b when all) where e is true. It writes them to dst,
// which is at least as long as the input selection and may be sel itself (the k-th output is
// written after the k-th input has been read), or returns sel itself when every row is kept; it
// never writes into sel otherwise.
func narrow(ctx *exec.TaskContext, b *columnar.Batch, e Expr, sel []int32, all bool, dst []int32) ([]int32, error) {
	if !all && len(sel) == 0 {
		return sel, nil
	}
	switch x := e.(type) {
	case *logic:
		if x.and && !mayFail(x.right) {
			s, err := narrow(ctx, b, x.left, sel, all, dst)
			if err != nil || len(s) == 0 {
				return s, err
			}
			// Into dst, not s: s is the caller's sel when the left side kept every row.
			return narrow(ctx, b, x.right, s, false, dst)
		}
		if !x.and {
			return narrowOr(ctx, b, x, sel, all, dst)
		}
	case *isNull:
		if !mayFail(x.child) {
			return narrowIsNull(ctx, b, x, sel, all, dst)
		}
	case *compare:
		if !x.nullSafe && !mayFail(x) {
			if s, ok, err := narrowCompare(ctx, b, x, sel, all, dst); ok || err != nil {
				return s, err
			}
		}
	}
	return narrowEval(ctx, b, e, sel, all, dst)
}

// narrowOr keeps the rows where the left side is true, plus those of the others (left false or
// null: exactly the rows on which Spark's Or evaluates its right side) where the right side is
// true; the two increasing lists are merged.
func narrowOr(ctx *exec.TaskContext, b *columnar.Batch, e *logic, sel []int32, all bool, dst []int32) ([]int32, error) {
	n := b.NumRows
	in := sel
	if all {
		in = allRows(make([]int32, n), n)
	}
	left, err := narrow(ctx, b, e.left, in, false, make([]int32, len(in)))
	if err != nil {
		return nil, err
	}
	if len(left) == len(in) {
		return append(dst[:0], in...), nil
	}
	rest := make([]int32, 0, len(in)-len(left))
	j := 0
	for _, i := range in {
		if j < len(left) && left[j] == i {
			j++
			continue
		}
		rest = append(rest, i)
	}
	right, err := narrow(ctx, b, e.right, rest, false, rest)
	if err != nil {
		return nil, err
	}
	out := dst[:0]
	li, ri := 0, 0
	for li < len(left) && ri < len(right) {
		if left[li] < right[ri] {
			out = append(out, left[li])
			li++
		} else {
			out = append(out, right[ri])
			ri++
		}
	}
	out = append(out, left[li:]...)
	return append(out, right[ri:]...), nil
}

// narrowEval evaluates e as a boolean column and keeps the selected rows where it is true. An
// expression that may fail is evaluated on the selected rows only (masked).
func narrowEval(ctx *exec.TaskContext, b *columnar.Batch, e Expr, sel []int32, all bool, dst []int32) ([]int32, error) {
	n := b.NumRows
	var active []byte
	if !all && mayFail(e) {
		active = make([]byte, bitutil.BytesForBits(int64(n)))
		for _, i := range sel {
			bitutil.SetBit(active, int(i))
		}
	}
	p, err := evalActive(ctx, b, e, active)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	pred, ok := p.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("predicate %s produced %s", e, p.DataType())
	}
	if pred.Len() != n {
		return nil, fmt.Errorf("predicate %s returned %d rows for a batch of %d", e, pred.Len(), n)
	}
	d := pred.Data()
	bits, off := d.Buffers()[1].Bytes(), d.Offset()
	k := 0
	if vm, voff := validity(pred); vm != nil {
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(bitutil.BitIsSet(bits, off+i) && bitutil.BitIsSet(vm, voff+i))
			}
			return dst[:k], nil
		}
		for _, i := range sel {
			dst[k] = i
			k += b2i(bitutil.BitIsSet(bits, off+int(i)) && bitutil.BitIsSet(vm, voff+int(i)))
		}
		return dst[:k], nil
	}
	if all {
		for i := 0; i < n; i++ {
			dst[k] = int32(i)
			k += b2i(bitutil.BitIsSet(bits, off+i))
		}
		return dst[:k], nil
	}
	for _, i := range sel {
		dst[k] = i
		k += b2i(bitutil.BitIsSet(bits, off+int(i)))
	}
	return dst[:k], nil
}

func b2i(b bool) int {
	var x int
	if b {
		x = 1
	}
	return x
}

// allRows writes 0..n-1 into dst: the "all rows" selection made explicit.
func allRows(dst []int32, n int) []int32 {
	for i := range dst[:n] {
		dst[i] = int32(i)
	}
	return dst[:n]
}

// narrowValid keeps the selected rows where a (not a constant) is non-null. It returns all
// unchanged when a has no nulls, so that the no-null path keeps its "every row" form.
func narrowValid(a arrow.Array, n int, sel []int32, all bool, dst []int32) ([]int32, bool) {
	vm, off := validity(a)
	if vm == nil {
		return sel, all
	}
	k := 0
	if all {
		for i := 0; i < n; i++ {
			dst[k] = int32(i)
			k += b2i(bitutil.BitIsSet(vm, off+i))
		}
		return dst[:k], false
	}
	for _, i := range sel {
		dst[k] = i
		k += b2i(bitutil.BitIsSet(vm, off+int(i)))
	}
	return dst[:k], false
}

func narrowIsNull(ctx *exec.TaskContext, b *columnar.Batch, e *isNull, sel []int32, all bool, dst []int32) ([]int32, error) {
	n := b.NumRows
	o, err := evalOperand(ctx, b, e.child)
	if err != nil {
		return nil, err
	}
	defer o.release()
	if o.scalar {
		if isNullAt(o.arr, 0) == e.isNull {
			return keepAll(sel, all, n, dst), nil
		}
		return dst[:0], nil
	}
	if o.arr.DataType().ID() == arrow.NULL {
		if e.isNull {
			return keepAll(sel, all, n, dst), nil
		}
		return dst[:0], nil
	}
	vm, off := validity(o.arr)
	if vm == nil {
		if e.isNull {
			return dst[:0], nil
		}
		return keepAll(sel, all, n, dst), nil
	}
	want := !e.isNull
	k := 0
	if all {
		for i := 0; i < n; i++ {
			dst[k] = int32(i)
			k += b2i(bitutil.BitIsSet(vm, off+i) == want)
		}
		return dst[:k], nil
	}
	for _, i := range sel {
		dst[k] = i
		k += b2i(bitutil.BitIsSet(vm, off+int(i)) == want)
	}
	return dst[:k], nil
}

// keepAll returns the input selection as an explicit one.
func keepAll(sel []int32, all bool, n int, dst []int32) []int32 {
	if all {
		return allRows(dst, n)
	}
	return sel
}

// narrowCompare runs a comparison with a typed loop over the selection; ok is false for the
// types it has no loop for (the caller then evaluates the comparison as a column).
func narrowCompare(ctx *exec.TaskContext, b *columnar.Batch, e *compare, sel []int32, all bool, dst []int32) ([]int32, bool, error) {
	switch e.lt.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Date, sparktype.Long,
		sparktype.Timestamp, sparktype.TimestampNTZ:
	case sparktype.Decimal:
		if e.lt.Scale != e.rt.Scale {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	n := b.NumRows
	lo, err := evalOperand(ctx, b, e.left)
	if err != nil {
		return nil, true, err
	}
	defer lo.release()
	ro, err := evalOperand(ctx, b, e.right)
	if err != nil {
		return nil, true, err
	}
	defer ro.release()
	if lo.nullScalar() || ro.nullScalar() {
		return dst[:0], true, nil
	}
	// Null rows leave first; the comparison loops then read values only.
	if !lo.scalar {
		sel, all = narrowValid(lo.arr, n, sel, all, dst)
	}
	if !ro.scalar {
		sel, all = narrowValid(ro.arr, n, sel, all, dst)
	}
	if !all && len(sel) == 0 {
		return sel, true, nil
	}
	// GT and GE are LT and LE with the operands swapped: three loops per type instead of five.
	op, am, bm := e.op, lo.mask(), ro.mask()
	la, ra := lo.arr, ro.arr
	if op == cmpGT || op == cmpGE {
		la, ra, am, bm = ra, la, bm, am
		if op == cmpGT {
			op = cmpLT
		} else {
			op = cmpLE
		}
	}
	var out []int32
	switch e.lt.Kind {
	case sparktype.Byte:
		out = narrowOrdered(op, values[int8](la), values[int8](ra), am, bm, sel, all, n, dst)
	case sparktype.Short:
		out = narrowOrdered(op, values[int16](la), values[int16](ra), am, bm, sel, all, n, dst)
	case sparktype.Int, sparktype.Date:
		out = narrowOrdered(op, values[int32](la), values[int32](ra), am, bm, sel, all, n, dst)
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		out = narrowOrdered(op, values[int64](la), values[int64](ra), am, bm, sel, all, n, dst)
	case sparktype.Decimal:
		out = narrowDecimal(op, values[decimal128.Num](la), values[decimal128.Num](ra), am, bm, sel, all, n, dst)
	}
	return out, true, nil
}

// narrowOrdered keeps the rows where a[i] op b[i] (op one of EQ, LT, LE); am and bm are the
// operands' index masks (0 for a constant).
func narrowOrdered[T ordered](op cmpOp, a, b []T, am, bm int, sel []int32, all bool, n int, dst []int32) []int32 {
	k := 0
	switch op {
	case cmpEQ:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(a[i&am] == b[i&bm])
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(a[int(i)&am] == b[int(i)&bm])
			}
		}
	case cmpLT:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(a[i&am] < b[i&bm])
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(a[int(i)&am] < b[int(i)&bm])
			}
		}
	case cmpLE:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(a[i&am] <= b[i&bm])
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(a[int(i)&am] <= b[int(i)&bm])
			}
		}
	}
	return dst[:k]
}

// decLess and decEq compare two's-complement 128-bit values: the high words signed, then the
// low words unsigned (what decimal128.Num.Cmp computes, without the call and the three-way result).
func decLess(x, y decimal128.Num) bool {
	xh, yh := x.HighBits(), y.HighBits()
	return xh < yh || (xh == yh && x.LowBits() < y.LowBits())
}

func decEq(x, y decimal128.Num) bool { return x == y }

// narrowDecimal is narrowOrdered for decimals of one scale (their unscaled values compare).
func narrowDecimal(op cmpOp, a, b []decimal128.Num, am, bm int, sel []int32, all bool, n int, dst []int32) []int32 {
	k := 0
	switch op {
	case cmpEQ:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(decEq(a[i&am], b[i&bm]))
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(decEq(a[int(i)&am], b[int(i)&bm]))
			}
		}
	case cmpLT:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(decLess(a[i&am], b[i&bm]))
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(decLess(a[int(i)&am], b[int(i)&bm]))
			}
		}
	case cmpLE:
		if all {
			for i := 0; i < n; i++ {
				dst[k] = int32(i)
				k += b2i(!decLess(b[i&bm], a[i&am]))
			}
		} else {
			for _, i := range sel {
				dst[k] = i
				k += b2i(!decLess(b[int(i)&bm], a[int(i)&am]))
			}
		}
	}
	return dst[:k]
}
