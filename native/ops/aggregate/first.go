package aggregate

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// First and Last (First.scala, Last.scala: First(child, ignoreNulls)): buffers value: the input
// type, initial null, and valueSet: boolean, initial false.
//   - first, update: value = If(valueSet, value, child) and valueSet = true; with ignoreNulls
//     value = If(valueSet || isnull(child), value, child), valueSet = valueSet || isnotnull(child).
//   - first, merge: value = If(valueSet.left, value.left, value.right), valueSet = left || right.
//   - last, update: value = child, valueSet = true; with ignoreNulls value = If(isnull(child),
//     value, child), valueSet = valueSet || isnotnull(child).
//   - last, merge: value = If(valueSet.right, value.right, value.left), valueSet = left || right.
//   - result: value.
//
// Both depend on the order rows arrive in, which Spark does not define either; Spark's planner
// uses first(x) ignore nulls to carry regular aggregates through the rewrite of several DISTINCT
// aggregates (one non-null value per group).
func init() {
	registerFunction("First", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newFirstLast(fn, c, false) })
	registerFunction("Last", func(fn *plan.Expr, c *fnContext) (*fnSpec, error) { return newFirstLast(fn, c, true) })
}

func newFirstLast(fn *plan.Expr, c *fnContext, last bool) (*fnSpec, error) {
	name := "first"
	if last {
		name = "last"
	}
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	ignoreNulls, err := fn.Bool("ignoreNulls")
	if err != nil {
		return nil, err
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	store := valueStoreFor(t)
	if store == nil {
		return nil, refuse("aggregate function %s over %s is not supported natively", name, t)
	}
	return &fnSpec{name: name, bufTypes: []sparktype.Type{t, sparktype.BooleanType}, resultType: t,
		newState: func() function {
			return &firstLast{in: in, t: t, last: last, ignoreNulls: ignoreNulls, picks: picks{store: store()}}
		}}, nil
}

// valueStoreFor makes the valueStore of a column type, nil for a type without one.
func valueStoreFor(t sparktype.Type) func() valueStore {
	switch t.Kind {
	case sparktype.Byte:
		return func() valueStore { return &fixedStore[int8]{t: t} }
	case sparktype.Short:
		return func() valueStore { return &fixedStore[int16]{t: t} }
	case sparktype.Int, sparktype.Date:
		return func() valueStore { return &fixedStore[int32]{t: t} }
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return func() valueStore { return &fixedStore[int64]{t: t} }
	case sparktype.Float:
		return func() valueStore { return &fixedStore[float32]{t: t} }
	case sparktype.Double:
		return func() valueStore { return &fixedStore[float64]{t: t} }
	case sparktype.Decimal:
		return func() valueStore { return &fixedStore[decimal128.Num]{t: t} }
	case sparktype.Boolean:
		return func() valueStore { return &boolStore{} }
	case sparktype.String, sparktype.Binary:
		return func() valueStore { return &bytesStore{t: t} }
	}
	return nil
}

type firstLast struct {
	in          *input
	t           sparktype.Type
	last        bool
	ignoreNulls bool
	set         []bool
	picks
}

// picks holds a value per group (store) and the rows of the current batch whose values groups
// take: pick[g] is the row group g takes (-1: none); touched lists the groups with a pick, in
// first-pick order. The values are copied once per batch (apply).
type picks struct {
	store   valueStore
	pick    []int32
	touched []uint32
	rows    []int32
}

func (p *picks) grow(n int) {
	p.store.grow(n)
	p.pick = growSlice(p.pick, n, -1)
}

// choose records that group g takes row i of the current batch.
func (p *picks) choose(g uint32, i int) {
	if p.pick[g] < 0 {
		p.touched = append(p.touched, g)
	}
	p.pick[g] = int32(i)
}

// apply copies the chosen rows of col into their groups and clears the picks.
func (p *picks) apply(col arrow.Array) error {
	if len(p.touched) == 0 {
		return nil
	}
	p.rows = p.rows[:0]
	for _, g := range p.touched {
		p.rows = append(p.rows, p.pick[g])
		p.pick[g] = -1
	}
	err := p.store.copyRows(col, p.touched, p.rows)
	p.touched = p.touched[:0]
	return err
}

func (f *firstLast) bufferTypes() []sparktype.Type {
	return []sparktype.Type{f.t, sparktype.BooleanType}
}

func (f *firstLast) grow(n int) {
	f.picks.grow(n)
	f.set = growSlice(f.set, n, false)
}

func (f *firstLast) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	bits, off := validity(col)
	set := f.set
	switch {
	case !f.last && f.ignoreNulls:
		for i, g := range gids {
			if !set[g] && bitSet(bits, off, i) {
				set[g] = true
				f.choose(g, i)
			}
		}
	case !f.last:
		for i, g := range gids {
			if !set[g] {
				set[g] = true
				f.choose(g, i)
			}
		}
	case f.ignoreNulls:
		for i, g := range gids {
			if bitSet(bits, off, i) {
				set[g] = true
				f.choose(g, i)
			}
		}
	default:
		for i, g := range gids {
			set[g] = true
			f.choose(g, i)
		}
	}
	return f.apply(col)
}

func (f *firstLast) merge(cols []arrow.Array, gids []uint32) error {
	sbits, soff := boolBits(cols[1])
	svalid, svoff := validity(cols[1])
	set := f.set
	for i, g := range gids {
		right := bitSet(svalid, svoff, i) && bitSet(sbits, soff, i)
		if f.last {
			if right {
				f.choose(g, i)
			}
		} else if !set[g] {
			// The left buffer is unset: take the right one, set or not (an unset buffer's value
			// is null).
			f.choose(g, i)
		}
		set[g] = set[g] || right
	}
	return f.apply(cols[0])
}

func (f *firstLast) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{f.store.build(alloc, lo, hi), buildBool(alloc, f.set[lo:hi], nil)}, nil
}

func (f *firstLast) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	return f.store.build(alloc, lo, hi), nil
}

// valueStore holds one nullable value per group, of one column type; the rows a batch hands to
// groups are copied in one call per batch.
type valueStore interface {
	grow(n int)
	// copyRows sets group gs[k] to row rows[k] of col, null or not.
	copyRows(col arrow.Array, gs []uint32, rows []int32) error
	build(alloc memory.Allocator, lo, hi int) arrow.Array
}

type fixedStore[T arrow.FixedWidthType] struct {
	t     sparktype.Type
	vals  []T
	valid []bool
}

func (s *fixedStore[T]) grow(n int) {
	var zero T
	s.vals = growSlice(s.vals, n, zero)
	s.valid = growSlice(s.valid, n, false)
}

func (s *fixedStore[T]) copyRows(col arrow.Array, gs []uint32, rows []int32) error {
	vals := fixedValues[T](col)
	bits, off := validity(col)
	for k, g := range gs {
		r := int(rows[k])
		if bitSet(bits, off, r) {
			s.vals[g], s.valid[g] = vals[r], true
		} else {
			s.valid[g] = false
		}
	}
	return nil
}

func (s *fixedStore[T]) build(alloc memory.Allocator, lo, hi int) arrow.Array {
	return buildFixed(alloc, s.t, s.vals[lo:hi], s.valid[lo:hi])
}

type boolStore struct {
	vals  []bool
	valid []bool
}

func (s *boolStore) grow(n int) {
	s.vals = growSlice(s.vals, n, false)
	s.valid = growSlice(s.valid, n, false)
}

func (s *boolStore) copyRows(col arrow.Array, gs []uint32, rows []int32) error {
	vb, voff := boolBits(col)
	bits, off := validity(col)
	for k, g := range gs {
		r := int(rows[k])
		s.valid[g] = bitSet(bits, off, r)
		s.vals[g] = s.valid[g] && bitSet(vb, voff, r)
	}
	return nil
}

func (s *boolStore) build(alloc memory.Allocator, lo, hi int) arrow.Array {
	return buildBool(alloc, s.vals[lo:hi], s.valid[lo:hi])
}

type bytesStore struct {
	t     sparktype.Type
	vals  []string
	valid []bool
}

func (s *bytesStore) grow(n int) {
	s.vals = growSlice(s.vals, n, "")
	s.valid = growSlice(s.valid, n, false)
}

func (s *bytesStore) copyRows(col arrow.Array, gs []uint32, rows []int32) error {
	offs, data, err := binaryParts(col)
	if err != nil {
		return err
	}
	bits, off := validity(col)
	for k, g := range gs {
		r := int(rows[k])
		if bitSet(bits, off, r) {
			s.vals[g], s.valid[g] = string(data[offs[r]:offs[r+1]]), true
		} else {
			s.vals[g], s.valid[g] = "", false
		}
	}
	return nil
}

func (s *bytesStore) build(alloc memory.Allocator, lo, hi int) arrow.Array {
	return buildBinary(alloc, s.t, s.vals[lo:hi], s.valid[lo:hi])
}
