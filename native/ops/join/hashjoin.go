package join

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// JoinType is Spark's join type (plans/joinTypes.scala). Cross runs as Inner: with join keys
// they are the same join.
type JoinType uint8

const (
	Inner JoinType = iota
	LeftOuter
	RightOuter
	LeftSemi
	LeftAnti
	// Existence is ExistenceJoin(exists): every left row, plus whether it has a match.
	Existence
	FullOuter
)

func (j JoinType) String() string {
	switch j {
	case Inner:
		return "Inner"
	case LeftOuter:
		return "LeftOuter"
	case RightOuter:
		return "RightOuter"
	case LeftSemi:
		return "LeftSemi"
	case LeftAnti:
		return "LeftAnti"
	case Existence:
		return "ExistenceJoin"
	case FullOuter:
		return "FullOuter"
	}
	return fmt.Sprintf("JoinType(%d)", uint8(j))
}

// BuildSide says which child is hashed; the other is streamed (probed) batch by batch.
type BuildSide uint8

const (
	BuildRight BuildSide = iota
	BuildLeft
)

func (b BuildSide) String() string {
	if b == BuildLeft {
		return "BuildLeft"
	}
	return "BuildRight"
}

// Spec describes a hash join, as Spark's BroadcastHashJoinExec and ShuffledHashJoinExec do.
type Spec struct {
	Type  JoinType
	Build BuildSide
	// LeftKeys are evaluated over the left child's columns, RightKeys over the right child's;
	// pairwise of equal types.
	LeftKeys, RightKeys []expr.Expr
	// Condition (nil: none) is evaluated over batches of candidate pairs whose column i is column
	// CondColumns[i] of left.output ++ right.output (the translator rebinds Spark's condition so
	// that only the columns it reads are gathered).
	Condition   expr.Expr
	CondColumns []int
	// Schema is the node's output: left ++ right (inner, outer), left (semi, anti), left plus
	// the exists boolean (existence); nullability as Spark gives it.
	Schema []sparktype.Field
	// NullAware is a null-aware anti join (`x NOT IN (subquery)`, one key, no condition): a
	// build side with a null key leaves no row, and a probe row with a null key is dropped unless
	// the build side is empty (BroadcastHashJoinExec's isNullAwareAntiJoin).
	NullAware bool
	// MayReorder: nothing reads the join's output order, so a build side larger than the task's
	// memory may be partitioned to disk with the probe side (grace.go), which changes the order.
	MayReorder bool
	// Shared: the build side is a native broadcast, built once per executor and shared by its
	// tasks (shared.go); nil builds per task.
	Shared *SharedBuild
	// ProbeKeyRefs are the probe child's columns that are the probe keys, when every probe key is
	// a plain column (nil otherwise): the join may then hand its key lookup to the probe child
	// (keytest.go).
	ProbeKeyRefs []int
}

// side names a column of one child: of the probe side or of the build side.
type side struct {
	build bool
	col   int
}

// HashJoin is the operator of Spark's hash joins (broadcast and shuffled) and of its sort-merge
// join, which runs as a hash join that streams the side whose order the sort-merge join reports.
// The build child is consumed whole at the first Next into task memory (a build side larger than
// the task's memory is partitioned to disk with the probe side when Spec.MayReorder, grace.go, and
// otherwise fails with the allocator's message); the probe child is then
// streamed, each batch's keys looked up at once, candidate pairs (probe row, build row) filtered by
// the condition in batches, and output gathered in batches of about the task's batch size, in
// probe row order. A join outer on its build side (a shuffled hash join's LeftOuter building
// left, RightOuter building right, FullOuter) then emits the build rows that nothing matched,
// null-extended, as Spark's ShuffledHashJoinExec does after its streamed side.
type HashJoin struct {
	left, right  exec.Operator
	spec         Spec
	probe, build exec.Operator
	probeKeys    []expr.Expr
	buildKeys    []expr.Expr
	out, cond    []side
	keep         []bool // per build column: needed by the output or the condition
	probeIsLeft  bool
	// probeOuter: probe rows without a match are output null-extended; buildOuter: so are
	// unmatched build rows, after the probe side.
	probeOuter, buildOuter bool
	st                     *stream
	// level is how many grace partitionings the join's inputs went through (grace.go); prefixed:
	// its children are spilled partitions, whose first columns are the evaluated keys.
	level    int
	prefixed bool
	grace    *graceState
	// spilledMem and spilledDisk count what the join spilled (SpillMetrics); they survive Close.
	spilledMem, spilledDisk int64
}

// NewHashJoin validates the join at construction: a join that builds runs.
// Dispatched names the classes of the condition's expressions the JVM evaluates (EXPLAIN).
func (h *HashJoin) Dispatched() []string { return expr.DispatchedIn(h.spec.Condition) }

func NewHashJoin(left, right exec.Operator, spec Spec) (*HashJoin, error) {
	switch {
	case spec.Build == BuildLeft && (spec.Type == LeftSemi || spec.Type == LeftAnti || spec.Type == Existence):
		// The left side is the output: JoinSelectionHelper never builds it (canBuild*Left).
		return nil, fmt.Errorf("a hash join %s cannot use %s", spec.Type, spec.Build)
	case spec.Type > FullOuter:
		return nil, fmt.Errorf("unknown join type %s", spec.Type)
	}
	// No keys at all is a nested-loop join: every pair is a candidate.
	if len(spec.LeftKeys) != len(spec.RightKeys) {
		return nil, fmt.Errorf("hash join with %d left and %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if spec.NullAware && (spec.Type != LeftAnti || len(spec.LeftKeys) != 1 || spec.Condition != nil) {
		return nil, fmt.Errorf("a null-aware anti join needs one key and no condition")
	}
	for i, lk := range spec.LeftKeys {
		rk := spec.RightKeys[i]
		if !lk.Type().Equal(rk.Type()) {
			return nil, fmt.Errorf("join key %d is %s on the left and %s on the right", i, lk.Type(), rk.Type())
		}
		if !KeyTypeSupported(lk.Type()) {
			return nil, fmt.Errorf("join keys of type %s are not supported natively", lk.Type())
		}
	}
	ls, rs := left.Schema(), right.Schema()
	for _, f := range append(append([]sparktype.Field(nil), ls...), rs...) {
		if !f.Type.Supported() && f.Type.Kind != sparktype.Null {
			return nil, fmt.Errorf("join input column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	h := &HashJoin{left: left, right: right, spec: spec, probeIsLeft: spec.Build == BuildRight}
	switch spec.Type {
	case LeftOuter:
		h.probeOuter, h.buildOuter = h.probeIsLeft, !h.probeIsLeft
	case RightOuter:
		h.probeOuter, h.buildOuter = !h.probeIsLeft, h.probeIsLeft
	case FullOuter:
		h.probeOuter, h.buildOuter = true, true
	}
	if h.probeIsLeft {
		h.probe, h.build, h.probeKeys, h.buildKeys = left, right, spec.LeftKeys, spec.RightKeys
	} else {
		h.probe, h.build, h.probeKeys, h.buildKeys = right, left, spec.RightKeys, spec.LeftKeys
	}
	// Where a column of left ++ right comes from.
	sideOf := func(i int) side {
		isLeft := i < len(ls)
		col := i
		if !isLeft {
			col -= len(ls)
		}
		return side{build: isLeft != h.probeIsLeft, col: col}
	}
	if spec.Condition != nil {
		if spec.Condition.Type().Kind != sparktype.Boolean {
			return nil, fmt.Errorf("join condition %s is %s, not boolean", spec.Condition, spec.Condition.Type())
		}
		for _, c := range spec.CondColumns {
			if c < 0 || c >= len(ls)+len(rs) {
				return nil, fmt.Errorf("join condition reads column %d of %d", c, len(ls)+len(rs))
			}
			h.cond = append(h.cond, sideOf(c))
		}
	} else if len(spec.CondColumns) > 0 {
		return nil, fmt.Errorf("join condition columns without a condition")
	}
	// The output columns, checked against the children.
	var want []sparktype.Field
	switch spec.Type {
	case Inner, LeftOuter, RightOuter, FullOuter:
		want = append(append(want, ls...), rs...)
		for i := range want {
			h.out = append(h.out, sideOf(i))
		}
	default:
		want = append(want, ls...)
		for i := range ls {
			h.out = append(h.out, sideOf(i))
		}
		if spec.Type == Existence {
			want = append(want, sparktype.Field{Name: "exists", Type: sparktype.BooleanType})
		}
	}
	if len(spec.Schema) != len(want) {
		return nil, fmt.Errorf("%s join outputs %d columns; its children give %d", spec.Type, len(spec.Schema), len(want))
	}
	for i, f := range spec.Schema {
		if !f.Type.Equal(want[i].Type) {
			return nil, fmt.Errorf("join output column %s is %s, its input %s", f.Name, f.Type, want[i].Type)
		}
	}
	h.keep = make([]bool, len(h.build.Schema()))
	for _, s := range append(append([]side(nil), h.out...), h.cond...) {
		if s.build {
			h.keep[s.col] = true
		}
	}
	for i, s := range h.out {
		if !spec.Schema[i].Nullable && (s.build && h.probeOuter || !s.build && h.buildOuter) {
			what := "build"
			if !s.build {
				what = "probe"
			}
			return nil, fmt.Errorf("%s join output column %s of the %s side is not nullable", spec.Type, spec.Schema[i].Name, what)
		}
	}
	return h, nil
}

func (h *HashJoin) Schema() []sparktype.Field { return h.spec.Schema }

// Spec returns the join's description (for explain and tests).
func (h *HashJoin) Spec() Spec { return h.spec }

// stream is the per-task state.
type stream struct {
	ctx   *exec.TaskContext
	build *buildRows
	// shared is the executor's build this task probes (shared.go), with a reference held; build
	// is then its rows, which this task must not change or release.
	shared *sharedEntry
	built  bool
	done   bool
	// tail: the probe side has ended and the unmatched build rows are being output, from tailPos
	// (table rows first, then the rows with a null key).
	tail    bool
	tailPos int

	in      *columnar.Batch // the probe batch being joined
	keyCols []arrow.Array
	sel     []int32 // rows of in whose probe key has no null
	heads   []int32 // per row of in: its first matching build row, -1
	keySc   keyScratch
	matched []bool // per row of in: a pair satisfied the condition (outer, semi, anti, existence)
	row     int    // next row of in to expand
	cont    int32  // next build row in row's chain; -1: start at heads[row]

	// Per chunk, reused: candidate pairs, the condition's survivors, the output rows.
	pRows, bRows []int32
	refs         []columnar.RowRef
	pass         []int32
	outP         []int32
	outRefs      []columnar.RowRef
	// accounted is the scratch heap last reported to the task's memory account.
	accounted int64
}

func (h *HashJoin) Open(ctx *exec.TaskContext) error {
	if err := h.left.Open(ctx); err != nil {
		return err
	}
	if err := h.right.Open(ctx); err != nil {
		return err
	}
	b, err := newBuildRows(ctx, h.buildKeys, h.keep, h.buildOuter)
	if err != nil {
		return err
	}
	b.withKeys = h.canGrace(ctx)
	h.st = &stream{ctx: ctx, build: b, cont: -1}
	h.offerKeyTest()
	return nil
}

func (h *HashJoin) Next() (*columnar.Batch, error) {
	st := h.st
	if st == nil {
		return nil, fmt.Errorf("HashJoin read before Open")
	}
	if !st.built {
		if err := h.consumeBuild(); err != nil {
			return nil, err
		}
		st.built = true
	}
	if h.grace != nil {
		return h.graceNext()
	}
	for !st.done {
		if st.tail {
			if err := st.account(); err != nil {
				return nil, err
			}
			out, err := h.tailChunk()
			if err != nil || out != nil {
				return out, err
			}
			continue
		}
		if st.in == nil {
			out, err := h.nextProbe()
			if err != nil || out != nil {
				return out, err
			}
			continue
		}
		if err := st.account(); err != nil {
			return nil, err
		}
		out, err := h.step()
		if err != nil || out != nil {
			return out, err
		}
	}
	return nil, nil
}

// consumeBuild buffers the whole build child, checking the task's memory after every batch, or
// takes the executor's shared build of it (shared.go).
func (h *HashJoin) consumeBuild() error {
	st := h.st
	var claim *sharedEntry
	if key, ok := h.sharedKeyFor(st.ctx); ok {
		e, owner, pending := acquireShared(key)
		for pending != nil && awaitShared(pending) {
			e, owner, pending = acquireShared(key)
		}
		switch {
		case e != nil && !owner:
			RegisterSharedIdle(st.ctx)
			st.build.release() // the empty private build from Open
			st.build, st.shared = e.rows, e
			return h.afterBuild()
		case owner:
			RegisterSharedIdle(st.ctx)
			claim = e
			st.build.own = newSharedAlloc(st.ctx.Pool)
			defer func() {
				if claim != nil {
					abandonShared(claim)
				}
			}()
		}
	}
	b := st.build
	for {
		in, err := h.build.Next()
		if err != nil {
			return err
		}
		if in == nil {
			break
		}
		err = b.add(in)
		in.Release()
		if err != nil {
			return err
		}
		if claim != nil {
			claim.progress.Add(1)
		}
		if err := b.account(0); err != nil {
			if h.canGrace(h.st.ctx) && h.st.ctx.Alloc.OutOfMemory() {
				return h.startGrace()
			}
			return err
		}
	}
	b.finish()
	if err := b.account(0); err != nil {
		if h.canGrace(h.st.ctx) && h.st.ctx.Alloc.OutOfMemory() {
			return h.startGrace()
		}
		return err
	}
	if claim != nil {
		e := claim
		claim = nil // published, or abandoned by publishShared
		ok, err := publishShared(st.ctx, e, b, b.own)
		if err != nil {
			return err
		}
		if ok {
			st.shared = e
		}
	}
	return h.afterBuild()
}

// afterBuild applies Spark's shortcuts for a build side that leaves nothing to probe.
func (h *HashJoin) afterBuild() error {
	b := h.st.build
	// Spark's shortcuts for an empty build side (EmptyHashedRelation: no build row at all):
	// inner and semi joins return nothing without reading the streamed side (innerJoin and
	// semiJoin in HashJoin.scala return Iterator.empty), so its keys are never evaluated.
	if b.rowsIn == 0 && (h.spec.Type == Inner || h.spec.Type == LeftSemi) {
		h.finishProbe()
	}
	// `x NOT IN (..., null, ...)` is never true (HashedRelationWithAllNullKeys).
	if h.spec.NullAware && b.rowsIn > int64(b.table.rows) {
		h.finishProbe()
	}
	return nil
}

// nextProbe reads the next probe batch and looks its keys up. It returns a batch to emit as is
// (an anti join over an empty build side), or nil.
func (h *HashJoin) nextProbe() (*columnar.Batch, error) {
	st := h.st
	in, err := h.probe.Next()
	if err != nil {
		return nil, err
	}
	if in == nil {
		if h.buildOuter {
			st.tail = true
		} else {
			h.finishProbe()
		}
		return nil, nil
	}
	if in.NumRows == 0 {
		in.Release()
		return nil, nil
	}
	if h.spec.Type == LeftAnti && st.build.rowsIn == 0 && !h.prefixed {
		// antiJoin: "If the right side is empty, AntiJoin simply returns the left side", keys
		// unevaluated.
		return in, nil
	}
	n := in.NumRows
	if st.keyCols, err = evalKeys(st.ctx, h.probeKeys, in, st.keyCols); err != nil {
		in.Release()
		return nil, err
	}
	st.sel = validRows(st.keyCols, n, st.sel)
	st.heads = resize(st.heads, n)
	err = st.build.table.probe(&st.keySc, st.keyCols, n, st.sel, st.heads)
	releaseAll(st.keyCols)
	if err != nil {
		in.Release()
		return nil, err
	}
	st.in, st.row, st.cont = in, 0, -1
	st.matched = resize(st.matched, n)
	clear(st.matched)
	return nil, nil
}

// finishProbe ends the stream and gives the build side's memory back before the parent goes on.
func (h *HashJoin) finishProbe() {
	st := h.st
	st.done = true
	st.dropBuild()
	st.releaseScratch()
}

// dropBuild releases the task's build side, or its reference to the shared one.
func (st *stream) dropBuild() {
	if st.shared != nil {
		releaseShared(st.ctx, st.shared)
		st.shared, st.build = nil, nil
		return
	}
	st.build.release()
}

// step produces the next output of the current probe batch, or nil when a chunk gave nothing.
func (h *HashJoin) step() (*columnar.Batch, error) {
	switch h.spec.Type {
	case Inner, LeftOuter, RightOuter, FullOuter:
		return h.joinChunk()
	}
	if h.spec.Condition == nil {
		for i, hd := range h.st.heads[:h.st.in.NumRows] {
			h.st.matched[i] = hd >= 0
		}
		if h.spec.NullAware && len(h.st.sel) < h.st.in.NumRows {
			// A null probe key against a non-empty build side: unknown, so not output.
			for _, r := range nullRows(h.st.sel, h.st.in.NumRows) {
				h.st.matched[r] = true
			}
		}
	} else {
		for h.st.row < h.st.in.NumRows {
			if err := h.semiChunk(); err != nil {
				return nil, err
			}
		}
	}
	return h.emitProbeRows()
}

// fill collects the next candidate pairs of the probe batch, at most budget (rows without a key
// match count one each when countMisses, as an outer join emits a row for them), from
// (st.row, st.cont) on. It returns the probe rows [lo, hi) it covered, and whether the chain of
// row hi-1 goes on in the next chunk. With skipMatched, a row continued from the previous chunk
// that already has a match is not expanded further (semi, anti, existence need one match).
func (st *stream) fill(budget int, countMisses, skipMatched bool) (lo, hi int, partial bool) {
	p, b := st.pRows[:0], st.bRows[:0]
	next, heads := st.build.table.next, st.heads
	n := st.in.NumRows
	r, c := st.row, st.cont
	lo = r
	used := 0
	for r < n && used < budget {
		if c < 0 {
			if c = heads[r]; c < 0 {
				if countMisses {
					used++
				}
				r++
				continue
			}
		} else if skipMatched && st.matched[r] {
			c = -1
			r++
			continue
		}
		for c >= 0 && used < budget {
			p = append(p, int32(r))
			b = append(b, c)
			c = next[c]
			used++
		}
		if c < 0 {
			r++
		}
	}
	st.pRows, st.bRows, st.row, st.cont = p, b, r, c
	if c >= 0 {
		return lo, r + 1, true
	}
	return lo, r, false
}

// buildRefs converts build row numbers into gather references.
func (st *stream) buildRefs(rows []int32, out []columnar.RowRef) []columnar.RowRef {
	out = resize(out, len(rows))
	refs := st.build.refs
	for i, r := range rows {
		out[i] = refs[r]
	}
	return out
}

// evalCondition evaluates the condition over the candidate pairs (st.pRows, st.bRows) and sets
// st.pass to the indices of the pairs where it is true. Only the columns the condition reads are
// gathered.
func (h *HashJoin) evalCondition() error {
	st := h.st
	n := len(st.pRows)
	cols := make([]arrow.Array, len(h.cond))
	defer releaseAll(cols)
	if len(st.pRows) > 0 {
		st.refs = st.buildRefs(st.bRows, st.refs)
	}
	for i, s := range h.cond {
		var err error
		if s.build {
			cols[i], err = h.gatherBuild(s.col, st.refs[:n])
		} else {
			cols[i], err = columnar.Take(st.ctx.Alloc, st.in.Cols[s.col], st.pRows)
		}
		if err != nil {
			return err
		}
	}
	res, err := h.spec.Condition.Eval(st.ctx, columnar.NewBatch(cols, n))
	if err != nil {
		return err
	}
	defer res.Release()
	pred, ok := res.(*array.Boolean)
	if !ok || pred.Len() != n {
		return fmt.Errorf("join condition %s produced %s of %d rows for %d pairs", h.spec.Condition, res.DataType(), res.Len(), n)
	}
	st.pass = columnar.SelectTrue(pred, st.pass)
	return nil
}

// joinChunk joins the next chunk of candidate pairs of an inner or outer join into one output
// batch (nil when no row results).
func (h *HashJoin) joinChunk() (*columnar.Batch, error) {
	st := h.st
	outer := h.probeOuter
	lo, hi, partial := st.fill(st.ctx.BatchSize(), outer, false)
	st.pass = st.pass[:0]
	if len(st.pRows) > 0 && h.spec.Condition != nil {
		if err := h.evalCondition(); err != nil {
			return nil, err
		}
	}
	st.outP, st.outRefs = st.outP[:0], st.outRefs[:0]
	switch {
	case !outer && h.spec.Condition == nil:
		st.outP = append(st.outP, st.pRows...)
		st.outRefs = st.buildRefs(st.bRows, st.outRefs)
		if h.buildOuter {
			for _, b := range st.bRows {
				st.build.matched[b] = true
			}
		}
	case !outer:
		for _, k := range st.pass {
			st.outP = append(st.outP, st.pRows[k])
			st.outRefs = append(st.outRefs, st.build.refs[st.bRows[k]])
			if h.buildOuter {
				st.build.matched[st.bRows[k]] = true
			}
		}
	default:
		// Probe rows in order: each pair that passes, then, once a row's chain is done, the row
		// null-extended if none passed (HashJoin.outerJoin).
		k, j := 0, 0
		for r := lo; r < hi; r++ {
			for k < len(st.pRows) && int(st.pRows[k]) == r {
				ok := h.spec.Condition == nil
				if !ok && j < len(st.pass) && int(st.pass[j]) == k {
					ok = true
					j++
				}
				if ok {
					st.outP = append(st.outP, int32(r))
					st.outRefs = append(st.outRefs, st.build.refs[st.bRows[k]])
					st.matched[r] = true
					if h.buildOuter {
						st.build.matched[st.bRows[k]] = true
					}
				}
				k++
			}
			if (r < hi-1 || !partial) && !st.matched[r] {
				st.outP = append(st.outP, int32(r))
				st.outRefs = append(st.outRefs, columnar.NullRef)
			}
		}
	}
	if st.row >= st.in.NumRows && st.cont < 0 {
		defer st.endBatch()
	}
	if len(st.outP) == 0 {
		return nil, nil
	}
	return h.gatherOutput(st.outP, st.outRefs)
}

// tailChunk outputs the next batch of build rows that no pair matched (and those with a null
// key), the probe side's columns null; at the end it finishes the join.
func (h *HashJoin) tailChunk() (*columnar.Batch, error) {
	st := h.st
	b := st.build
	budget := st.ctx.BatchSize()
	st.outRefs = st.outRefs[:0]
	total := len(b.refs) + len(b.nullRefs)
	for st.tailPos < total && len(st.outRefs) < budget {
		i := st.tailPos
		st.tailPos++
		if i < len(b.refs) {
			if !b.matched[i] {
				st.outRefs = append(st.outRefs, b.refs[i])
			}
			continue
		}
		st.outRefs = append(st.outRefs, b.nullRefs[i-len(b.refs)])
	}
	if len(st.outRefs) == 0 {
		h.finishProbe()
		return nil, nil
	}
	n := len(st.outRefs)
	probe := childTypes(h.probe)
	cols := make([]arrow.Array, len(h.out))
	for i, s := range h.out {
		var err error
		if s.build {
			cols[i], err = h.gatherBuild(s.col, st.outRefs)
		} else {
			cols[i] = array.MakeArrayOfNull(st.ctx.Alloc, probe[s.col], n)
		}
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
	}
	return columnar.NewBatch(cols, n), nil
}

// semiChunk evaluates the condition over the next chunk of candidate pairs of a semi, anti or
// existence join and marks the probe rows that have a satisfying pair.
func (h *HashJoin) semiChunk() error {
	st := h.st
	st.fill(st.ctx.BatchSize(), false, true)
	if len(st.pRows) == 0 {
		return nil
	}
	if err := h.evalCondition(); err != nil {
		return err
	}
	for _, k := range st.pass {
		st.matched[st.pRows[k]] = true
	}
	return nil
}

// emitProbeRows ends the probe batch of a semi, anti or existence join: its rows with a match,
// without one, or all of them with the exists flag.
func (h *HashJoin) emitProbeRows() (*columnar.Batch, error) {
	st := h.st
	defer st.endBatch()
	in := st.in
	if h.spec.Type == Existence {
		cols := make([]arrow.Array, 0, len(h.out)+1)
		for _, s := range h.out { // the probe (left) side's columns
			c := in.Cols[s.col]
			c.Retain()
			cols = append(cols, c)
		}
		cols = append(cols, boolColumn(st.ctx.Alloc, st.matched[:in.NumRows]))
		return columnar.NewBatch(cols, in.NumRows), nil
	}
	want := h.spec.Type == LeftSemi
	st.outP = st.outP[:0]
	for i, m := range st.matched[:in.NumRows] {
		if m == want {
			st.outP = append(st.outP, int32(i))
		}
	}
	if len(st.outP) == 0 {
		return nil, nil
	}
	return h.gatherOutput(st.outP, nil)
}

// endBatch releases the probe batch once all of its rows are joined.
func (st *stream) endBatch() {
	st.in.Release()
	st.in = nil
}

// gatherOutput builds an output batch: probe columns at rows outP, build columns at outRefs.
func (h *HashJoin) gatherOutput(outP []int32, outRefs []columnar.RowRef) (*columnar.Batch, error) {
	st := h.st
	in := st.in
	whole := len(outP) == in.NumRows
	for i, p := range outP {
		if !whole {
			break
		}
		whole = int(p) == i
	}
	cols := make([]arrow.Array, len(h.out))
	for i, s := range h.out {
		var err error
		switch {
		case s.build:
			cols[i], err = h.gatherBuild(s.col, outRefs)
		case whole:
			// Every probe row once, in order: the probe column is the output column.
			cols[i] = in.Cols[s.col]
			cols[i].Retain()
		default:
			cols[i], err = columnar.Take(st.ctx.Alloc, in.Cols[s.col], outP)
		}
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
	}
	return columnar.NewBatch(cols, len(outP)), nil
}

// gatherBuild gathers rows of build column c; with no build row at all (an outer join's every
// row null-extended) the column is all nulls.
func (h *HashJoin) gatherBuild(c int, refs []columnar.RowRef) (arrow.Array, error) {
	st := h.st
	if len(st.build.cols[c]) == 0 {
		return array.MakeArrayOfNull(st.ctx.Alloc, childTypes(h.build)[c], len(refs)), nil
	}
	return columnar.Gather(st.ctx.Alloc, st.build.cols[c], refs)
}

// boolColumn builds a non-null boolean column.
func boolColumn(alloc memory.Allocator, vals []bool) arrow.Array {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(len(vals)))))
	bits := buf.Bytes()
	for i, v := range vals {
		if v {
			bitutil.SetBit(bits, i)
		}
	}
	d := array.NewData(arrow.FixedWidthTypes.Boolean, len(vals), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer d.Release()
	buf.Release()
	return array.MakeFromData(d)
}

// account reports the stream's scratch heap to the task's memory account (the build side
// accounts for itself) and returns the allocator's error, checked before every output batch.
func (st *stream) account() error {
	a := st.ctx.Alloc
	if a == nil {
		return nil
	}
	size := int64(cap(st.sel)+cap(st.heads)+cap(st.pRows)+cap(st.bRows)+cap(st.pass)+cap(st.outP))*4 +
		int64(cap(st.refs)+cap(st.outRefs))*8 + int64(cap(st.matched)) + st.keySc.memSize()
	a.Account(size - st.accounted)
	st.accounted = size
	// A safe point for the operators below: those that can spill do so.
	if err := st.ctx.RelieveMemory(); err != nil {
		return err
	}
	return a.Err()
}

func (st *stream) releaseScratch() {
	st.sel, st.heads, st.matched, st.pRows, st.bRows, st.pass, st.outP = nil, nil, nil, nil, nil, nil, nil
	st.refs, st.outRefs, st.keySc = nil, nil, keyScratch{}
	if st.ctx.Alloc != nil {
		st.ctx.Alloc.Account(-st.accounted)
	}
	st.accounted = 0
}

func (h *HashJoin) Close() {
	if h.grace != nil {
		h.grace.close()
		h.grace = nil
	}
	if st := h.st; st != nil {
		if st.in != nil {
			st.endBatch()
		}
		releaseAll(st.keyCols)
		st.dropBuild()
		st.releaseScratch()
		h.st = nil
	}
	h.left.Close()
	h.right.Close()
}
