// Set operations over arrays: array_distinct, array_union, array_intersect, array_except and
// arrays_overlap. Spark runs them over a hash set of boxed elements, so equality is Java's equals:
// NaN equals NaN but -0.0 and 0.0 are different elements (unlike array_remove). Results keep the
// first occurrence in the order Spark walks its inputs (the left array, then the right for
// union), with at most one null, which is kept where a non-null element would be. One typed pass
// per key type (uint64, string, decimal) computes the references; one gather lays them out.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

type arrSetOp int

const (
	arrSetDistinct arrSetOp = iota
	arrSetUnion
	arrSetIntersect
	arrSetExcept
	arrSetOverlap
)

var arrSetNames = [...]string{"array_distinct", "array_union", "array_intersect", "array_except", "arrays_overlap"}

func init() {
	RegisterNested("ArrayDistinct", "array_distinct(arr): first occurrences in order, one null at most (NaN deduplicated, -0.0 and 0.0 kept apart as in Spark)", arrSetTranslator(arrSetDistinct))
	RegisterNested("ArrayUnion", "array_union(a, b): distinct elements of a then b (Spark's NaN and -0.0 handling)", arrSetTranslator(arrSetUnion))
	RegisterNested("ArrayIntersect", "array_intersect(a, b): distinct elements of a also in b, in a's order", arrSetTranslator(arrSetIntersect))
	RegisterNested("ArrayExcept", "array_except(a, b): distinct elements of a not in b, in a's order", arrSetTranslator(arrSetExcept))
	RegisterNested("ArraysOverlap", "arrays_overlap(a, b): true on a common non-null element, else null if both are non-empty and one holds a null, else false", arrSetTranslator(arrSetOverlap))
}

type arrSetExpr struct {
	op     arrSetOp
	left   Expr
	right  Expr // nil for array_distinct
	elem   sparktype.Type
	typ    sparktype.Type
	outArr arrow.DataType
}

func arrSetTranslator(op arrSetOp) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := arrSetNames[op]
		s := &arrSetExpr{op: op}
		var err error
		if op == arrSetDistinct {
			s.left, err = translateChild(e, "child", conf)
		} else {
			s.left, err = translateChild(e, "left", conf)
			if err == nil {
				s.right, err = translateChild(e, "right", conf)
			}
		}
		if err != nil {
			return nil, err
		}
		elem, ok := arrElem(s.left.Type())
		if !ok {
			return nil, unsupported("%s of %s", name, s.left.Type())
		}
		if !arrEqualityElem(elem) {
			return nil, unsupported("%s of array<%s> is not supported natively", name, elem)
		}
		if s.right != nil {
			re, ok := arrElem(s.right.Type())
			if !ok || !re.Equal(elem) {
				return nil, unsupported("%s of %s and %s", name, s.left.Type(), s.right.Type())
			}
		}
		if s.typ, err = e.Type(); err != nil {
			return nil, err
		}
		if op == arrSetOverlap {
			if s.typ.Kind != sparktype.Boolean {
				return nil, unsupported("%s returning %s", name, s.typ)
			}
		} else if te, ok := arrElem(s.typ); !ok || !te.Equal(elem) {
			return nil, unsupported("%s returning %s for array<%s>", name, s.typ, elem)
		}
		s.elem = elem
		return s, nil
	}
}

func (s *arrSetExpr) Type() sparktype.Type { return s.typ }
func (s *arrSetExpr) mayFail() bool        { return mayFail(s.left) || s.right != nil && mayFail(s.right) }
func (s *arrSetExpr) String() string {
	if s.right == nil {
		return fmt.Sprintf("%s(%s)", arrSetNames[s.op], s.left)
	}
	return fmt.Sprintf("%s(%s, %s)", arrSetNames[s.op], s.left, s.right)
}

// arrSetIn is one batch's inputs: the arrays' offsets, validity and element validity.
type arrSetIn struct {
	n                 int
	offA, offB        []int32
	rowA, rowB        []byte
	rowAOff, rowBOff  int
	elemA, elemB      []byte
	elemAOff, elemBOf int
}

func (in *arrSetIn) nullA(k int32) bool {
	return in.elemA != nil && !bitutil.BitIsSet(in.elemA, in.elemAOff+int(k))
}
func (in *arrSetIn) nullB(k int32) bool {
	return in.elemB != nil && !bitutil.BitIsSet(in.elemB, in.elemBOf+int(k))
}

func (s *arrSetExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	la, err := arrEvalList(ctx, b, s.left, s)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	in := &arrSetIn{n: n, offA: listOffsets(la)}
	in.rowA, in.rowAOff = validity(la)
	ea := la.ListValues()
	in.elemA, in.elemAOff = validity(ea)
	srcs := []arrow.Array{ea}
	var eb arrow.Array
	if s.right != nil {
		lb, err := arrEvalList(ctx, b, s.right, s)
		if err != nil {
			return nil, err
		}
		defer lb.Release()
		in.offB = listOffsets(lb)
		in.rowB, in.rowBOff = validity(lb)
		eb = lb.ListValues()
		in.elemB, in.elemBOf = validity(eb)
		srcs = append(srcs, eb)
	}
	ka, err := arrKeysOf(ea, s.elem, arrJavaEquals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	var kb any
	if eb != nil {
		if kb, err = arrKeysOf(eb, s.elem, arrJavaEquals); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	if s.op == arrSetOverlap {
		vbuf, valid := newBitmap(ctx.Alloc, n)
		obuf, out := newBitmap(ctx.Alloc, n)
		switch k := ka.(type) {
		case []uint64:
			arrOverlapRows(in, k, kb.([]uint64), valid, out)
		case []string:
			arrOverlapRows(in, k, kb.([]string), valid, out)
		case []decimal128.Num:
			arrOverlapRows(in, k, kb.([]decimal128.Num), valid, out)
		}
		return finish(arrow.FixedWidthTypes.Boolean, n, vbuf, obuf, countNulls(valid, n)), nil
	}
	out := newArrListOut(n, len(in.offA))
	switch k := ka.(type) {
	case []uint64:
		kbT, _ := kb.([]uint64)
		err = arrSetRows(s.op, in, k, kbT, out)
	case []string:
		kbT, _ := kb.([]string)
		err = arrSetRows(s.op, in, k, kbT, out)
	case []decimal128.Num:
		kbT, _ := kb.([]decimal128.Num)
		err = arrSetRows(s.op, in, k, kbT, out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s, err)
	}
	return out.finish(ctx.Alloc, s.typ.Arrow(), srcs)
}

// arrSetRows computes the element references of every row of a set operation (not overlap).
func arrSetRows[K arrKey](op arrSetOp, in *arrSetIn, ka, kb []K, out *arrListOut) error {
	seen := map[K]struct{}{}
	other := map[K]struct{}{}
	for i := 0; i < in.n; i++ {
		if !arrRowValid(in.rowA, in.rowAOff, i) || in.offB != nil && !arrRowValid(in.rowB, in.rowBOff, i) {
			out.nullRow()
			continue
		}
		clear(seen)
		nullSeen := false
		// emitA adds element k of the left array unless an equal one was added already.
		emitA := func(src int32, k int32, key K, isNull bool) {
			if isNull {
				if !nullSeen {
					nullSeen = true
					out.add(src, k)
				}
				return
			}
			if _, dup := seen[key]; !dup {
				seen[key] = struct{}{}
				out.add(src, k)
			}
		}
		switch op {
		case arrSetDistinct, arrSetUnion:
			for k := in.offA[i]; k < in.offA[i+1]; k++ {
				emitA(0, k, ka[k], in.nullA(k))
			}
			if op == arrSetUnion {
				for k := in.offB[i]; k < in.offB[i+1]; k++ {
					emitA(1, k, kb[k], in.nullB(k))
				}
			}
		case arrSetIntersect, arrSetExcept:
			clear(other)
			otherNull := false
			for k := in.offB[i]; k < in.offB[i+1]; k++ {
				if in.nullB(k) {
					otherNull = true
				} else {
					other[kb[k]] = struct{}{}
				}
			}
			want := op == arrSetIntersect
			for k := in.offA[i]; k < in.offA[i+1]; k++ {
				isNull := in.nullA(k)
				var inOther bool
				if isNull {
					inOther = otherNull
				} else {
					_, inOther = other[ka[k]]
				}
				if inOther == want {
					emitA(0, k, ka[k], isNull)
				}
			}
		}
		if err := out.row(i, true); err != nil {
			return err
		}
	}
	return nil
}

// arrOverlapRows is arrays_overlap's three-valued answer per row: true on a common non-null
// element; otherwise false when either array is empty, null when either holds a null.
func arrOverlapRows[K arrKey](in *arrSetIn, ka, kb []K, valid, out []byte) {
	set := map[K]struct{}{}
	for i := 0; i < in.n; i++ {
		if !arrRowValid(in.rowA, in.rowAOff, i) || !arrRowValid(in.rowB, in.rowBOff, i) {
			continue
		}
		bitutil.SetBit(valid, i)
		a0, a1, b0, b1 := in.offA[i], in.offA[i+1], in.offB[i], in.offB[i+1]
		if a0 == a1 || b0 == b1 {
			continue
		}
		clear(set)
		hasNull := false
		for k := a0; k < a1; k++ {
			if in.nullA(k) {
				hasNull = true
			} else {
				set[ka[k]] = struct{}{}
			}
		}
		found := false
		for k := b0; k < b1; k++ {
			if in.nullB(k) {
				hasNull = true
			} else if _, ok := set[kb[k]]; ok {
				found = true
				break
			}
		}
		if found {
			bitutil.SetBit(out, i)
		} else if hasNull {
			bitutil.ClearBit(valid, i)
		}
	}
}
