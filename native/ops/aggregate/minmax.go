package aggregate

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Min and Max (Min.scala, Max.scala): buffer of the input type, initial null;
// max = greatest(max, child) and merge greatest(max.left, max.right) (least for min). Greatest
// keeps the current value unless the new one is strictly greater in Spark's ordering, where NaN is
// above every other value, NaN = NaN and -0.0 = 0.0: so among equal values the first one seen
// stays (max(0.0, -0.0) is 0.0, max(-0.0, 0.0) is -0.0). Strings and binary compare as unsigned
// bytes (UTF8_BINARY).
func init() {
	registerFunction("Max", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newMinMax(fn, c, true) })
	registerFunction("Min", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newMinMax(fn, c, false) })
}

func newMinMax(fn *plan.Expr, c *fnContext, isMax bool) (*fnSpec, error) {
	name := "min"
	if isMax {
		name = "max"
	}
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	var mk func() function
	switch t.Kind {
	case sparktype.Byte:
		mk = func() function { return &minMaxFixed[int8]{in: in, t: t, max: isMax} }
	case sparktype.Short:
		mk = func() function { return &minMaxFixed[int16]{in: in, t: t, max: isMax} }
	case sparktype.Int, sparktype.Date:
		mk = func() function { return &minMaxFixed[int32]{in: in, t: t, max: isMax} }
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		mk = func() function { return &minMaxFixed[int64]{in: in, t: t, max: isMax} }
	case sparktype.Float:
		mk = func() function { return &minMaxFixed[float32]{in: in, t: t, max: isMax} }
	case sparktype.Double:
		mk = func() function { return &minMaxFixed[float64]{in: in, t: t, max: isMax} }
	case sparktype.Decimal:
		mk = func() function { return &minMaxDecimal{in: in, t: t, max: isMax} }
	case sparktype.Boolean:
		mk = func() function { return &minMaxBool{in: in, max: isMax} }
	case sparktype.String, sparktype.Binary:
		mk = func() function { return &minMaxBytes{in: in, t: t, max: isMax} }
	default:
		return nil, refuse("aggregate function %s over %s is not supported natively", name, t)
	}
	spec := &fnSpec{name: name, bufTypes: []sparktype.Type{t}, resultType: t, newState: mk}
	if in != nil && in.e == nil {
		// A plain column: read as dictionary codes when a scan below offers them. Among floats,
		// values equal in Spark's ordering may differ in bits (0.0, -0.0, NaNs), and the first
		// one seen is kept: their entries are then folded in the order rows first used them.
		spec.codes = &codesInput{col: in.ordinal, ordered: t.Kind == sparktype.Float || t.Kind == sparktype.Double}
	}
	return spec, nil
}

type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// sparkGreater is a > b in Spark's ordering (NaN greatest, NaN = NaN, -0.0 = 0.0).
func sparkGreater[T ordered](a, b T) bool { return a > b || (a != a && b == b) }

// sparkLess is a < b in Spark's ordering.
func sparkLess[T ordered](a, b T) bool { return a < b || (b != b && a == a) }

type minMaxFixed[T ordered] struct {
	in   *input
	t    sparktype.Type
	max  bool
	vals []T
	has  []bool
}

func (f *minMaxFixed[T]) bufferTypes() []sparktype.Type { return []sparktype.Type{f.t} }
func (f *minMaxFixed[T]) grow(n int) {
	var zero T
	f.vals = growSlice(f.vals, n, zero)
	f.has = growSlice(f.has, n, false)
}

func (f *minMaxFixed[T]) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

func (f *minMaxFixed[T]) merge(cols []arrow.Array, gids []uint32) error {
	vals := fixedValues[T](cols[0])
	bits, off := validity(cols[0])
	if len(gids) > 0 && len(vals) < len(gids) {
		return fmt.Errorf("min/max: column shorter than batch")
	}
	cur, has := f.vals, f.has
	if len(has) == 1 && bits == nil {
		// One group (no grouping keys: grow(numGroups) precedes every merge, and every gid is
		// below it) and no nulls: the batch's extreme in a register, merged once.
		if len(gids) > 0 {
			f.mergeOne(vals[:len(gids)])
		}
		return nil
	}
	if f.max {
		for i, g := range gids {
			if bitSet(bits, off, i) && (!has[g] || sparkGreater(vals[i], cur[g])) {
				cur[g], has[g] = vals[i], true
			}
		}
	} else {
		for i, g := range gids {
			if bitSet(bits, off, i) && (!has[g] || sparkLess(vals[i], cur[g])) {
				cur[g], has[g] = vals[i], true
			}
		}
	}
	return nil
}

// mergeOne folds vals, none null, into group 0. Strict comparisons keep the first of equal
// values (0.0 before -0.0), as the per-row loop does.
func (f *minMaxFixed[T]) mergeOne(vals []T) {
	m := vals[0]
	if f.max {
		for _, v := range vals[1:] {
			if sparkGreater(v, m) {
				m = v
			}
		}
		if !f.has[0] || sparkGreater(m, f.vals[0]) {
			f.vals[0], f.has[0] = m, true
		}
		return
	}
	for _, v := range vals[1:] {
		if sparkLess(v, m) {
			m = v
		}
	}
	if !f.has[0] || sparkLess(m, f.vals[0]) {
		f.vals[0], f.has[0] = m, true
	}
}

func (f *minMaxFixed[T]) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

func (f *minMaxFixed[T]) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, f.t, f.vals[lo:hi], f.has[lo:hi]), nil
}

func decLess(a, b decimal128.Num) bool {
	return a.HighBits() < b.HighBits() || (a.HighBits() == b.HighBits() && a.LowBits() < b.LowBits())
}

type minMaxDecimal struct {
	in   *input
	t    sparktype.Type
	max  bool
	vals []decimal128.Num
	has  []bool
}

func (f *minMaxDecimal) bufferTypes() []sparktype.Type { return []sparktype.Type{f.t} }
func (f *minMaxDecimal) grow(n int) {
	f.vals = growSlice(f.vals, n, decimal128.Num{})
	f.has = growSlice(f.has, n, false)
}

func (f *minMaxDecimal) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

func (f *minMaxDecimal) merge(cols []arrow.Array, gids []uint32) error {
	vals := fixedValues[decimal128.Num](cols[0])
	bits, off := validity(cols[0])
	if len(f.has) == 1 && bits == nil {
		// One group and no nulls (see minMaxFixed.merge).
		if len(gids) > 0 {
			f.mergeOne(vals[:len(gids)])
		}
		return nil
	}
	for i, g := range gids {
		if !bitSet(bits, off, i) {
			continue
		}
		if !f.has[g] || (f.max && decLess(f.vals[g], vals[i])) || (!f.max && decLess(vals[i], f.vals[g])) {
			f.vals[g], f.has[g] = vals[i], true
		}
	}
	return nil
}

// mergeOne folds vals, none null, into group 0, comparing the two halves of the 128-bit
// two's complement in registers.
func (f *minMaxDecimal) mergeOne(vals []decimal128.Num) {
	best := 0
	hi, lo := vals[0].HighBits(), vals[0].LowBits()
	if f.max {
		for i := 1; i < len(vals); i++ {
			if h, l := vals[i].HighBits(), vals[i].LowBits(); h > hi || (h == hi && l > lo) {
				best, hi, lo = i, h, l
			}
		}
	} else {
		for i := 1; i < len(vals); i++ {
			if h, l := vals[i].HighBits(), vals[i].LowBits(); h < hi || (h == hi && l < lo) {
				best, hi, lo = i, h, l
			}
		}
	}
	v := vals[best]
	if !f.has[0] || (f.max && decLess(f.vals[0], v)) || (!f.max && decLess(v, f.vals[0])) {
		f.vals[0], f.has[0] = v, true
	}
}

func (f *minMaxDecimal) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

func (f *minMaxDecimal) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildFixed(alloc, f.t, f.vals[lo:hi], f.has[lo:hi]), nil
}

type minMaxBool struct {
	in   *input
	max  bool
	vals []bool
	has  []bool
}

func (f *minMaxBool) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.BooleanType} }
func (f *minMaxBool) grow(n int) {
	f.vals = growSlice(f.vals, n, false)
	f.has = growSlice(f.has, n, false)
}

func (f *minMaxBool) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

func (f *minMaxBool) merge(cols []arrow.Array, gids []uint32) error {
	vb, voff := boolBits(cols[0])
	bits, off := validity(cols[0])
	for i, g := range gids {
		if !bitSet(bits, off, i) {
			continue
		}
		v := bitSet(vb, voff, i)
		if !f.has[g] || (f.max && v && !f.vals[g]) || (!f.max && !v && f.vals[g]) {
			f.vals[g], f.has[g] = v, true
		}
	}
	return nil
}

func (f *minMaxBool) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

func (f *minMaxBool) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildBool(alloc, f.vals[lo:hi], f.has[lo:hi]), nil
}

type minMaxBytes struct {
	in   *input
	t    sparktype.Type
	max  bool
	vals []string
	has  []bool
	pre  []uint64 // each group's value's first 8 bytes, big-endian (prefix8)
}

func (f *minMaxBytes) bufferTypes() []sparktype.Type { return []sparktype.Type{f.t} }
func (f *minMaxBytes) grow(n int) {
	f.vals = growSlice(f.vals, n, "")
	f.has = growSlice(f.has, n, false)
	f.pre = growSlice(f.pre, n, 0)
}

// prefix8 is the first 8 bytes of v as a big-endian integer, zero-padded: prefixes that differ
// order two strings as Spark does (unsigned bytes, then length), so that most comparisons need
// no call to compare the strings themselves.
func prefix8(v []byte) uint64 {
	if len(v) >= 8 {
		return binary.BigEndian.Uint64(v)
	}
	var p uint64
	for i, b := range v {
		p |= uint64(b) << (56 - 8*i)
	}
	return p
}

func (f *minMaxBytes) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	return f.merge([]arrow.Array{col}, gids)
}

func (f *minMaxBytes) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return err
	}
	if len(gids) > 0 && len(offs) <= len(gids) {
		return fmt.Errorf("min/max: column shorter than batch")
	}
	bits, off := validity(cols[0])
	if len(f.has) == 1 {
		// One group (see minMaxFixed.merge): the batch's extreme first, then one merge.
		if b := bestBytes(offs[:len(gids)+1], data, bits, off, f.max); b >= 0 {
			f.offer(0, data[offs[b]:offs[b+1]])
		}
		return nil
	}
	for i, g := range gids {
		if bitSet(bits, off, i) {
			f.offer(g, data[offs[i]:offs[i+1]])
		}
	}
	return nil
}

// offer makes v group g's value if it is the first or beats the current one.
func (f *minMaxBytes) offer(g uint32, v []byte) {
	p := prefix8(v)
	if f.has[g] {
		if q := f.pre[g]; p != q {
			if (p > q) != f.max {
				return
			}
		} else if c := bytes.Compare(v, unsafe.Slice(unsafe.StringData(f.vals[g]), len(f.vals[g]))); c == 0 || (c > 0) != f.max {
			return
		}
	}
	f.vals[g], f.has[g], f.pre[g] = string(v), true, p
}

// bestBytes is the row of the greatest (max) or least value among the rows offs describes
// (len(offs)-1 of them) that bits marks valid, the first of equal ones; -1 when none is valid.
// Rows are keyed by their first 8 bytes (flipped for min, so that greater is better either
// way): only a row whose key ties the best one's compares further.
func bestBytes(offs []int32, data []byte, bits []byte, off int, isMax bool) int {
	flip := uint64(0)
	if !isMax {
		flip = ^uint64(0)
	}
	best, bk, bl := -1, uint64(0), 0 // the best row, its key and length
	n := len(offs) - 1
	for i := 0; i < n; i++ {
		if bits != nil && !bitSet(bits, off, i) {
			continue
		}
		o, e := int(offs[i]), int(offs[i+1])
		var p uint64
		if o+8 <= len(data) {
			// One load, the bytes past the value masked off (a shift by 64 clears all).
			p = binary.BigEndian.Uint64(data[o:]) & (^uint64(0) << (64 - 8*uint(min(e-o, 8))))
		} else {
			p = prefix8(data[o:e])
		}
		k := p ^ flip
		switch {
		case k < bk && best >= 0:
		case k > bk || best < 0:
			best, bk, bl = i, k, e-o
		case e-o <= 8 && bl <= 8:
			// A tie of short values (flags, codes): the longer is greater (see cmpSamePrefix),
			// decided here without a call.
			if l := e - o; l != bl && (l > bl) == isMax {
				best, bl = i, l
			}
		default:
			if c := cmpSamePrefix(data[o:e], data[offs[best]:offs[best+1]]); c != 0 && (c > 0) == isMax {
				best, bl = i, e-o
			}
		}
	}
	return best
}

// cmpSamePrefix compares a and b, whose first 8 bytes (zero-padded) are equal: when neither goes
// past them the shorter one is a prefix of the other, padded with zeros, so lengths decide.
func cmpSamePrefix(a, b []byte) int {
	if len(a) <= 8 || len(b) <= 8 {
		return cmp.Compare(len(a), len(b))
	}
	return bytes.Compare(a[8:], b[8:])
}

func (f *minMaxBytes) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

func (f *minMaxBytes) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return buildBinary(alloc, f.t, f.vals[lo:hi], f.has[lo:hi]), nil
}
