package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Dec64 computes a decimal expression of + - * over columns and literals into int64 unscaled
// values, for a consumer that only folds them (a sum, an average): TPC-H Q1's
// sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)). Evaluated through Eval, every operation
// reads and writes 16-byte decimal128 columns, each a fresh allocation, and the sum reads its
// input once more; here each input column is narrowed to int64 once per batch (shared by every
// program of the batch, see Dec64Batch), and each operation is a loop over int64s.
//
// A batch is computed only when it provably equals Eval: no input null, every input value fits
// an int64, and the magnitude bounds of the inputs (taken while narrowing) bound every
// intermediate result below 2^63 and below its type's precision, with no rescale that rounds
// (the conditions of decBatch). Then no row can overflow, round, become null or raise an error,
// in any eval mode. Otherwise Eval reports false and the caller evaluates the expression as
// usual. The checks cost O(operations) per batch, none per row.
type Dec64 struct {
	leaves []dec64Leaf
	ops    []dec64Op
	// res is the result: a slot index (>= 0) or a leaf (-1 - leaf index).
	res int
	// nslots is the number of scratch columns the operations write.
	nslots int
}

type dec64Leaf struct {
	col    int // ordinal of an input column, or -1 for a constant
	typ    sparktype.Type
	scalar int64
}

// dec64Op computes slot dst from operands a and b (slot >= 0, leaf -1 - index).
type dec64Op struct {
	mul    bool
	a, b   int
	fa, fb int64  // add/sub: a*fa + b*fb (fb negative for -)
	limit  uint64 // largest magnitude the result type holds, at most 2^63-1
	dst    int
}

// CompileDec64 returns the program of e, or nil when e is not a tree of decimal + - * (no
// rounding rescale) over decimal columns and non-null decimal literals that fit an int64.
func CompileDec64(e Expr) *Dec64 {
	p := &Dec64{}
	r, ok := p.compile(e, map[int]bool{})
	if !ok {
		return nil
	}
	p.res = r
	return p
}

// compile appends e's operations; busy holds the slots still to be read.
func (p *Dec64) compile(e Expr, busy map[int]bool) (int, bool) {
	if e.Type().Kind != sparktype.Decimal {
		return 0, false
	}
	switch x := e.(type) {
	case *Column:
		p.leaves = append(p.leaves, dec64Leaf{col: x.ordinal, typ: x.typ})
		return -len(p.leaves), true
	case *Literal:
		if x.isNil {
			return 0, false
		}
		v, ok := i64(numOf(x.one, 0))
		if !ok {
			return 0, false
		}
		p.leaves = append(p.leaves, dec64Leaf{col: -1, typ: x.typ, scalar: v})
		return -len(p.leaves), true
	case *arith:
		d := x.dec
		if d == nil {
			return 0, false
		}
		o := dec64Op{limit: math.MaxInt64}
		if d.rp <= 18 {
			o.limit = pow10u64[d.rp] - 1
		}
		switch d.op {
		case opMul:
			if d.s1+d.s2 != d.rs {
				return 0, false
			}
			o.mul = true
		case opAdd, opSub:
			if d.ls != d.rs || d.ls-d.s1 > 18 || d.ls-d.s2 > 18 {
				return 0, false
			}
			o.fa, o.fb = int64(pow10u64[d.ls-d.s1]), int64(pow10u64[d.ls-d.s2])
			if d.op == opSub {
				o.fb = -o.fb
			}
		default:
			return 0, false
		}
		var ok bool
		if o.a, ok = p.compile(x.left, busy); !ok {
			return 0, false
		}
		if o.a >= 0 {
			busy[o.a] = true
		}
		if o.b, ok = p.compile(x.right, busy); !ok {
			return 0, false
		}
		// The result goes into an operand's slot (the loops read row i before writing it) or
		// into a free one.
		switch {
		case o.a >= 0:
			o.dst = o.a
		case o.b >= 0:
			o.dst = o.b
		default:
			o.dst = 0
			for busy[o.dst] {
				o.dst++
			}
			p.nslots = max(p.nslots, o.dst+1)
		}
		delete(busy, o.a)
		delete(busy, o.b)
		p.ops = append(p.ops, o)
		return o.dst, true
	}
	return 0, false
}

// Dec64Batch holds one batch's input columns narrowed to int64 (each at most once, on first use)
// and the scratch columns of the programs evaluated over it.
type Dec64Batch struct {
	b     *columnar.Batch
	cols  []dec64Col // by ordinal
	slots [][]int64
}

type dec64Col struct {
	done, ok bool
	vals     []int64
	bound    uint64
}

// Reset starts a new batch (nil: none); the cached columns of the previous one are dropped.
func (c *Dec64Batch) Reset(b *columnar.Batch) {
	c.b = b
	for i := range c.cols {
		c.cols[i].done = false
	}
}

// column narrows input column o of the current batch (of type t) once.
func (c *Dec64Batch) column(o int, t sparktype.Type) *dec64Col {
	for len(c.cols) <= o {
		c.cols = append(c.cols, dec64Col{})
	}
	col := &c.cols[o]
	if col.done {
		return col
	}
	col.done, col.ok = true, false
	a := c.b.Cols[o]
	if a.Len() != c.b.NumRows || a.NullN() != 0 || !arrow.TypeEqual(a.DataType(), t.Arrow()) {
		return col
	}
	if cap(col.vals) < c.b.NumRows {
		col.vals = make([]int64, c.b.NumRows)
	}
	col.vals = col.vals[:c.b.NumRows]
	col.bound, col.ok = narrow64(values[decimal128.Num](a), col.vals)
	return col
}

// narrow64 copies the low words of src into dst, and reports whether every value fits an int64
// and the OR of their magnitudes (at least the largest).
func narrow64(src []decimal128.Num, dst []int64) (uint64, bool) {
	src = src[:len(dst)]
	// The fit check and the bound are locals, not pointers into magnitude: through pointers
	// they stay in memory and each row waits for the previous row's store.
	var bad int64
	var m uint64
	for i := range dst {
		v, b, x := magnitude(src[i])
		bad |= b
		m |= x
		dst[i] = v
	}
	return m, bad == 0
}

// Eval computes the program over b, which must be the batch c was last Reset to. It returns the
// unscaled values (valid until the next Eval or Reset on c) and a bound on their magnitudes, or
// false when the batch needs the general evaluation.
func (p *Dec64) Eval(c *Dec64Batch, b *columnar.Batch) ([]int64, uint64, bool) {
	if b == nil || b != c.b {
		return nil, 0, false
	}
	n := b.NumRows
	var lv [4][]int64 // leaf values; nil for a constant
	var lb [4]uint64
	leafVals, leafBounds := lv[:0], lb[:0]
	if p.res < 0 {
		// A bare column of at most 18 digits always fits: narrowed, its consumer folds int64s
		// with a batch-level bound and no per-row checks, which beats folding decimal128 values
		// even with the narrowing pass. A wider one is narrowed only for another program: its
		// values may not fit, and a pass that fails is wasted.
		l := p.leaves[-1-p.res]
		if l.col < 0 || (l.typ.Precision > 18 && (l.col >= len(c.cols) || !c.cols[l.col].done)) {
			return nil, 0, false
		}
	}
	for _, l := range p.leaves {
		if l.col < 0 {
			leafVals = append(leafVals, nil)
			leafBounds = append(leafBounds, uint64(abs64(l.scalar)))
			continue
		}
		if l.col >= len(b.Cols) {
			return nil, 0, false
		}
		col := c.column(l.col, l.typ)
		if !col.ok {
			return nil, 0, false
		}
		leafVals = append(leafVals, col.vals)
		leafBounds = append(leafBounds, col.bound)
	}
	if p.res < 0 {
		l := -1 - p.res
		if leafVals[l] == nil {
			return nil, 0, false // a constant aggregate input: not worth a path
		}
		return leafVals[l], leafBounds[l], true
	}
	// Bounds first: nothing is computed for a batch that falls back.
	var sb [4]uint64
	slotBounds := sb[:0]
	for len(slotBounds) < p.nslots {
		slotBounds = append(slotBounds, 0)
	}
	bound := func(x int) uint64 {
		if x < 0 {
			return leafBounds[-1-x]
		}
		return slotBounds[x]
	}
	for _, o := range p.ops {
		ma, mb := bound(o.a), bound(o.b)
		var r uint64
		if o.mul {
			hi, lo := bits.Mul64(ma, mb)
			if hi != 0 || lo > o.limit {
				return nil, 0, false
			}
			r = lo
		} else {
			ha, xa := bits.Mul64(ma, uint64(o.fa))
			hb, xb := bits.Mul64(mb, uint64(abs64(o.fb)))
			sum, carry := bits.Add64(xa, xb, 0)
			if ha != 0 || hb != 0 || carry != 0 || sum > o.limit {
				return nil, 0, false
			}
			r = sum
		}
		slotBounds[o.dst] = r
	}
	for len(c.slots) < p.nslots {
		c.slots = append(c.slots, nil)
	}
	for i := 0; i < p.nslots; i++ {
		if cap(c.slots[i]) < n {
			c.slots[i] = make([]int64, n)
		}
		c.slots[i] = c.slots[i][:n]
	}
	operand := func(x int) ([]int64, int64) {
		if x < 0 {
			l := -1 - x
			return leafVals[l], p.leaves[l].scalar
		}
		return c.slots[x], 0
	}
	for _, o := range p.ops {
		a, x := operand(o.a)
		bv, y := operand(o.b)
		dst := c.slots[o.dst]
		if o.mul {
			mul64(dst, a, bv, x, y)
		} else {
			addScaled64(dst, a, bv, x, y, o.fa, o.fb)
		}
	}
	return c.slots[p.res], slotBounds[p.res], true
}

// mul64 writes a*b, each a column or (nil) the scalar x / y.
func mul64(dst, a, b []int64, x, y int64) {
	switch {
	case a != nil && b != nil:
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case a != nil:
		a = a[:len(dst)]
		for i := range dst {
			dst[i] = a[i] * y
		}
	case b != nil:
		b = b[:len(dst)]
		for i := range dst {
			dst[i] = x * b[i]
		}
	default:
		for i := range dst {
			dst[i] = x * y
		}
	}
}

// addScaled64 writes a*fa + b*fb, each operand a column or (nil) the scalar x / y.
func addScaled64(dst, a, b []int64, x, y, fa, fb int64) {
	switch {
	case a != nil && b != nil:
		a, b = a[:len(dst)], b[:len(dst)]
		if fa == 1 && fb == 1 {
			for i := range dst {
				dst[i] = a[i] + b[i]
			}
			return
		}
		for i := range dst {
			dst[i] = a[i]*fa + b[i]*fb
		}
	case a != nil:
		a, c := a[:len(dst)], y*fb
		for i := range dst {
			dst[i] = a[i]*fa + c
		}
	case b != nil:
		b, c := b[:len(dst)], x*fa
		for i := range dst {
			dst[i] = c + b[i]*fb
		}
	default:
		for i := range dst {
			dst[i] = x*fa + y*fb
		}
	}
}
