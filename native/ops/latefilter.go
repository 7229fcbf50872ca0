package ops

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
)

// Late materialization: a Filter right above a scan reads the scan's batches undecoded
// (columnar.Lazy). It decodes the columns its predicate reads, narrows the rows conjunct by
// conjunct, and then has the scan decode the other columns for the surviving rows only; a batch
// no row of which survives costs only its predicate's columns.
//
// A conjunct that reads one column, is deterministic and cannot fail is evaluated once per value
// of the column's dictionary (the file's, per row group) rather than once per row, when the rows
// come dictionary-encoded: the rows are then kept by their codes. Conjuncts of one column are
// evaluated together, before the others; since none of them can fail, the order changes no
// answer. When a conjunct may fail (ANSI arithmetic, casts), the whole condition is evaluated as
// Spark writes it, on the rows the scan kept (Iceberg's deletes come first), so that an error
// Spark would not raise is not raised.

// Conjunct is one conjunct of a filter's condition, with the columns it reads.
type Conjunct struct {
	Expr          expr.Expr
	Refs          []int // ordinals of the child's columns it reads
	Deterministic bool
}

// columnTest is the conjuncts of a filter that read only one column: keep holds their result
// per entry of the dictionary dictOf (held), 1 for the entries they keep.
type columnTest struct {
	col    int
	preds  []expr.Expr
	dictOf arrow.Array
	keep   []byte
}

// narrow keeps the rows of sel where every conjunct of the test is true.
func (t *columnTest) narrow(ctx *exec.TaskContext, b *columnar.Batch, sel []int32, all bool, dst []int32) ([]int32, error) {
	for _, p := range t.preds {
		var err error
		if sel, err = expr.Narrow(ctx, b, p, sel, all, dst); err != nil || len(sel) == 0 {
			return sel, err
		}
		all = false
	}
	return sel, nil
}

// latePlan is how a filter evaluates its condition over lazy batches.
type latePlan struct {
	tests []*columnTest
	rest  []Conjunct // evaluated in order after tests
	width int        // the child's column count
}

// SetConjuncts gives the filter its condition's conjuncts (in Spark's order), which lets it read a
// scan below it lazily.
func (f *Filter) SetConjuncts(cs []Conjunct) { f.conjuncts = cs }

// planLate decides whether the filter reads its child lazily, and how.
func (f *Filter) planLate() *latePlan {
	lz, ok := f.child.(exec.LazyOperator)
	if !ok || !lz.LazyOK() || len(f.conjuncts) == 0 {
		return nil
	}
	p := &latePlan{width: len(f.child.Schema())}
	for _, c := range f.conjuncts {
		if expr.MayFail(c.Expr) {
			// Evaluated whole, as Spark writes it.
			refs := map[int]bool{}
			for _, k := range f.conjuncts {
				for _, r := range k.Refs {
					refs[r] = true
				}
			}
			all := make([]int, 0, len(refs))
			for r := range refs {
				all = append(all, r)
			}
			return &latePlan{rest: []Conjunct{{Expr: f.cond, Refs: all}}, width: p.width}
		}
	}
	byCol := map[int]*columnTest{}
	for _, c := range f.conjuncts {
		if len(c.Refs) != 1 || !c.Deterministic {
			p.rest = append(p.rest, c)
			continue
		}
		t := byCol[c.Refs[0]]
		if t == nil {
			t = &columnTest{col: c.Refs[0]}
			byCol[t.col] = t
			p.tests = append(p.tests, t)
		}
		t.preds = append(t.preds, c.Expr)
	}
	return p
}

func (p *latePlan) close() {
	for _, t := range p.tests {
		if t.dictOf != nil {
			t.dictOf.Release()
			t.dictOf = nil
		}
	}
}

// nextLate returns the next non-empty filtered batch read lazily from the child.
func (f *Filter) nextLate() (*columnar.Batch, error) {
	src := f.child.(exec.LazyOperator)
	for {
		l, err := src.NextLazy()
		if err != nil || l == nil {
			return nil, err
		}
		out, err := f.applyLate(l)
		l.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

// applyLate filters one lazy batch; nil when no row survives.
func (f *Filter) applyLate(l columnar.Lazy) (*columnar.Batch, error) {
	p := f.late
	n := l.NumRows()
	sel, all := l.Live(), l.Live() == nil
	if cap(f.sel) < n {
		f.sel = make([]int32, n)
	}
	dst := f.sel[:n]
	b := &columnar.Batch{Cols: make([]arrow.Array, p.width), NumRows: n}
	defer b.Release()
	var err error
	for _, t := range p.tests {
		if !all && len(sel) == 0 {
			return nil, nil
		}
		codes, dict, ok, cerr := l.Codes(t.col)
		if cerr != nil {
			return nil, cerr
		}
		if ok {
			keep, kerr := t.keepFor(f.ctx, dict, p.width)
			if kerr != nil {
				return nil, kerr
			}
			sel = narrowByCodes(codes, keep, sel, all, n, dst)
		} else {
			if err := fetch(l, b, []int{t.col}); err != nil {
				return nil, err
			}
			if sel, err = t.narrow(f.ctx, b, sel, all, dst); err != nil {
				return nil, err
			}
		}
		all = all && len(sel) == n
		if all {
			sel = nil
		}
	}
	for _, c := range p.rest {
		if !all && len(sel) == 0 {
			return nil, nil
		}
		if err := fetch(l, b, c.Refs); err != nil {
			return nil, err
		}
		if sel, err = expr.Narrow(f.ctx, b, c.Expr, sel, all, dst); err != nil {
			return nil, err
		}
		all = all && len(sel) == n
		if all {
			sel = nil
		}
	}
	if t := f.parentTest; t != nil && (all || len(sel) > 0) {
		if err := fetch(l, b, t.Refs()); err != nil {
			return nil, err
		}
		if sel, all, err = t.Keep(b, sel, all, dst); err != nil {
			return nil, err
		}
		if all {
			sel = nil
		}
	}
	rows := n
	if !all {
		rows = len(sel)
	}
	if rows == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, p.width)
	for i := range cols {
		var err error
		if all {
			cols[i], err = l.Column(i)
		} else {
			cols[i], err = l.Take(i, sel)
		}
		if err != nil {
			columnar.NewBatch(cols[:i], 0).Release()
			return nil, err
		}
	}
	return columnar.NewBatch(cols, rows), nil
}

// fetch decodes the columns refs of l into b (all rows), those not there yet.
func fetch(l columnar.Lazy, b *columnar.Batch, refs []int) error {
	for _, r := range refs {
		if b.Cols[r] != nil {
			continue
		}
		c, err := l.Column(r)
		if err != nil {
			return err
		}
		b.Cols[r] = c
	}
	return nil
}

// keepFor evaluates the test once per entry of dict (the same array for a row group's batches).
func (t *columnTest) keepFor(ctx *exec.TaskContext, dict arrow.Array, width int) ([]byte, error) {
	if dict == t.dictOf {
		return t.keep, nil
	}
	if t.dictOf != nil {
		t.dictOf.Release()
		t.dictOf = nil
	}
	nd := dict.Len()
	b := &columnar.Batch{Cols: make([]arrow.Array, width), NumRows: nd}
	b.Cols[t.col] = dict
	sel, err := t.narrow(ctx, b, nil, true, make([]int32, nd))
	if err != nil {
		return nil, err
	}
	if cap(t.keep) < nd {
		t.keep = make([]byte, nd)
	}
	t.keep = t.keep[:nd]
	clear(t.keep)
	for _, i := range sel {
		t.keep[i] = 1
	}
	dict.Retain()
	t.dictOf = dict
	return t.keep, nil
}

// narrowByCodes keeps the rows of sel (every row of n when all) whose code the keep table keeps,
// written over dst (which may be sel).
func narrowByCodes(codes []int32, keep []byte, sel []int32, all bool, n int, dst []int32) []int32 {
	k := 0
	if all {
		codes = codes[:n]
		for i, c := range codes {
			dst[k] = int32(i)
			k += int(keep[c])
		}
		return dst[:k]
	}
	for _, i := range sel {
		dst[k] = i
		k += int(keep[codes[i]])
	}
	return dst[:k]
}
