package join

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
)

// Late materialization through the join: an inner or semi join drops every probe row whose key
// has no match, so when its probe child is a filter reading a scan lazily, the join hands it its
// key lookup (exec.RowTest). The filter decodes the key columns, keeps the rows whose keys are in
// the build table, and decodes the other columns for those rows only. In TPC-H q8 lineitem's
// join with the few parts of one type keeps 0.7% of the rows, and the four columns it does not key
// on were decoded for every row. The join still looks its keys up as before, on the rows it gets.
//
// Only plain key columns qualify (Spec.ProbeKeyRefs): evaluating them costs nothing and cannot
// fail, even on rows the filter dropped.

// keyTest is the join's exec.RowTest: it owns its scratch, since it runs inside the probe
// child's Next, outside the join's own probe step.
type keyTest struct {
	h       *HashJoin
	keyCols []arrow.Array
	valid   []int32
	cand    []int32
	heads   []int32
	sc      keyScratch
}

func (k *keyTest) Refs() []int { return k.h.spec.ProbeKeyRefs }

func (k *keyTest) Keep(b *columnar.Batch, sel []int32, all bool, dst []int32) ([]int32, bool, error) {
	h := k.h
	st := h.st
	// Before the build is complete (it always is once the probe side is read) or when the join
	// went to grace partitions (the table holds one partition's rows), nothing is dropped here.
	if st == nil || !st.built || h.grace != nil || st.build == nil || st.build.table == nil {
		return sel, all, nil
	}
	n := b.NumRows
	var err error
	if k.keyCols, err = evalKeys(st.ctx, h.probeKeys, b, k.keyCols); err != nil {
		return nil, false, err
	}
	defer releaseAll(k.keyCols)
	k.valid = validRows(k.keyCols, n, k.valid)
	cand := k.valid
	if !all {
		k.cand = intersectRows(sel, k.valid, k.cand[:0])
		cand = k.cand
	}
	k.heads = resize(k.heads, n)
	if err := st.build.table.probe(&k.sc, k.keyCols, n, cand, k.heads); err != nil {
		return nil, false, err
	}
	out := dst[:0]
	for _, r := range cand {
		if k.heads[r] >= 0 {
			out = append(out, r)
		}
	}
	return out, len(out) == n, nil
}

// intersectRows appends to dst the rows in both a and b (both increasing).
func intersectRows(a, b, dst []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}

// offerKeyTest gives the join's key lookup to its probe child when the join drops unmatched probe
// rows and the child can apply it (a filter over a lazily read scan, behind its guard).
func (h *HashJoin) offerKeyTest() {
	if h.spec.ProbeKeyRefs == nil || h.spec.NullAware || h.prefixed || h.probeOuter {
		return
	}
	if !(h.spec.Type == Inner || (h.spec.Type == LeftSemi && h.spec.Build == BuildRight)) {
		return
	}
	var child exec.Operator = h.probe
	if g, ok := child.(*exec.Guarded); ok {
		child = g.Inner
	}
	if t, ok := child.(exec.RowTestTaker); ok {
		t.TakeRowTest(&keyTest{h: h})
	}
}
