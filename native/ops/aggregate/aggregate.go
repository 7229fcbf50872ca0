// Package aggregate owns the native hash aggregate (Spark's HashAggregateExec): the operator, the
// typed group hash table (hashtable.go) and the aggregate functions, one family per file (sum.go,
// count.go, minmax.go, avg.go). Buffers follow Spark's aggBufferAttributes layouts exactly, so a
// Partial aggregate here can feed a Final aggregate in Spark and the other way round.
package aggregate

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// HashAggregate is the validated, immutable plan of one HashAggregateExec; Open creates the per-task
// state (hash table, aggregation buffers).
//
// Each aggregate function has its own mode, as in Spark: a function in Partial or Complete mode
// reads input rows (only those passing its FILTER clause, when it has one), one in PartialMerge
// or Final mode merges the buffers its child produced. The operator's output follows Spark's
// AggregationIterator: when some function is Final or Complete, resultExpressions over the keys
// and every function's result; otherwise, with functions, the keys and every function's buffers
// (Spark's aggBufferAttributes layouts, exactly); with none, resultExpressions over the keys.
type HashAggregate struct {
	// out is the operator's output kind: Partial (keys ++ buffers), Final (results) or
	// GroupingOnly.
	out      Mode
	keys     []*input
	keyTypes []sparktype.Type
	fns      []*fnSpec
	// results evaluate resultExpressions over [keys ++ aggregate results] (not Partial).
	results []resultCol
	schema  []sparktype.Field
	child   exec.Operator

	st *stream
	// spilledMem and spilledDisk count what the task spilled (SpillMetrics).
	spilledMem, spilledDisk int64
	// flushes counts the early emissions of a partial aggregate out of memory.
	flushes int
	// spillDepth is the deepest level of a run that spilled, plus one (0: none spilled).
	spillDepth int
	// dispatched: the classes of the keys and arguments the JVM evaluates (Dispatched).
	dispatched []string
	// dec64 holds the decimal input columns of the batch being added, narrowed to int64 once for
	// every function that reads them (input.eval64).
	dec64 expr.Dec64Batch
	// rows counts the rows per group of the batch being added, once for every function.
	rows groupRows
}

// Dispatched names the classes of the grouping keys and function arguments the JVM evaluates
// (expr.Dispatched), for EXPLAIN.
func (h *HashAggregate) Dispatched() []string { return h.dispatched }

// resultCol is one result expression: a column of the [keys ++ results] batch, or an expression.
type resultCol struct {
	col int
	e   expr.Expr
}

// New validates a HashAggregateExec node over its built child; an error is the fallback reason.
func New(n *plan.Node, child exec.Operator, conf *plan.Conf) (*HashAggregate, error) {
	if n.Has("isStreaming") {
		if s, err := n.Bool("isStreaming"); err != nil {
			return nil, err
		} else if s {
			return nil, refuse("streaming HashAggregate is not supported natively")
		}
	}
	groupExprs, err := n.Exprs("groupingExpressions")
	if err != nil {
		return nil, err
	}
	aggExprs, err := n.Exprs("aggregateExpressions")
	if err != nil {
		return nil, err
	}
	aggAttrs, err := n.Exprs("aggregateAttributes")
	if err != nil {
		return nil, err
	}
	offset, err := n.Int("initialInputBufferOffset")
	if err != nil {
		return nil, err
	}
	resultExprs, err := n.Exprs("resultExpressions")
	if err != nil {
		return nil, err
	}
	h := &HashAggregate{child: child}
	childSchema := child.Schema()

	// Modes and FILTER clauses, per function.
	fnExprs := make([]*plan.Expr, len(aggExprs))
	fnModes := make([]Mode, len(aggExprs))
	filters := make([]*plan.Expr, len(aggExprs))
	modes := map[Mode]bool{}
	for i, ae := range aggExprs {
		if plan.ShortClass(ae.Class) != "AggregateExpression" {
			return nil, fmt.Errorf("aggregate expression %d is a %s", i, plan.ShortClass(ae.Class))
		}
		m, err := ae.String("mode")
		if err != nil {
			return nil, err
		}
		mode, ok := parseMode(m)
		if !ok {
			return nil, fmt.Errorf("unknown aggregate mode %q", m)
		}
		fnModes[i] = mode
		modes[mode] = true
		// isDistinct needs nothing here: Spark's planner makes the input of a distinct aggregate
		// distinct (an aggregate grouped by the keys and the distinct column below it), and its
		// own HashAggregateExec ignores the flag, evaluating by mode alone; so does this one.
		// Several distinct columns go through Expand, which is planned separately.
		if ae.Has("filter") && mode.updates() {
			// Spark applies a FILTER in Partial and Complete mode only (its planner drops the
			// clause from the other modes, AggregationIterator ignores it there).
			if filters[i], err = ae.Child("filter"); err != nil && !isNullField(ae, "filter") {
				return nil, err
			}
		}
		if fnExprs[i], err = ae.Child("aggregateFunction"); err != nil {
			return nil, err
		}
	}
	// Spark's AggregationIterator allows at most two modes, both updating-to-buffers
	// ({Partial, PartialMerge}) or both ending in results ({Final, Complete}).
	if (modes[Partial] || modes[PartialMerge]) && (modes[Final] || modes[Complete]) {
		names := make([]string, 0, len(modes))
		for _, m := range []Mode{Partial, PartialMerge, Final, Complete} {
			if modes[m] {
				names = append(names, m.String())
			}
		}
		return nil, refuse("HashAggregate mixing aggregate modes %s is not supported natively", strings.Join(names, ", "))
	}
	switch {
	case len(modes) == 0:
		h.out = GroupingOnly
	case modes[Final] || modes[Complete]:
		h.out = Final
	default:
		h.out = Partial
	}

	// Grouping keys.
	base := fnContext{child: childSchema, conf: conf, singleGroup: len(groupExprs) == 0, dispatched: &h.dispatched,
		dec64: &h.dec64, rows: &h.rows}
	keyCtx := base
	var keyIDs []*int64
	for _, g := range groupExprs {
		in, err := newInput(g, &keyCtx, true)
		if err != nil {
			return nil, err
		}
		if !keyTypeSupported(in.typ) {
			return nil, refuse("HashAggregate grouping by type %s is not supported natively", in.typ)
		}
		h.keys = append(h.keys, in)
		h.keyTypes = append(h.keyTypes, in.typ)
		keyIDs = append(keyIDs, g.ExprID)
	}

	// Aggregate functions. The buffers merging functions read follow initialInputBufferOffset in
	// the order of those functions (updating functions have none: Spark's
	// initializeAggregateFunctions advances the input buffer offset for merging modes only).
	nbuf := 0
	for i, fe := range fnExprs {
		short := plan.ShortClass(fe.Class)
		b, ok := functions[short]
		if !ok {
			return nil, refuse("aggregate function %s is not supported natively", short)
		}
		fc := base
		fc.mode = fnModes[i]
		spec, err := b(fe, &fc)
		if err != nil {
			return nil, err
		}
		spec.mode, spec.bufCol = fnModes[i], -1
		if !spec.mode.updates() {
			for k, bt := range spec.bufTypes {
				c := int(offset) + nbuf + k
				if c >= len(childSchema) || !childSchema[c].Type.Equal(bt) {
					got := "nothing"
					if c < len(childSchema) {
						got = childSchema[c].Type.String()
					}
					return nil, fmt.Errorf("%s %s expects a %s buffer at input column %d, found %s",
						strings.ToLower(spec.mode.String()), spec.name, bt, c, got)
				}
			}
			spec.bufCol = int(offset) + nbuf
			nbuf += len(spec.bufTypes)
		}
		if filters[i] != nil {
			// Spark's generated code evaluates the subexpressions its aggregate functions share
			// (avg's argument, used by both of its update expressions, or one argument of two
			// functions) on every row, before the FILTER check: such an argument raises its error
			// (ANSI arithmetic, a cast) on rows the clause rejects, where this operator would not.
			fails, err := argumentsMayFail(fe, conf)
			if err != nil {
				return nil, err
			}
			if fails {
				return nil, refuse("HashAggregate: %s with a FILTER clause over an argument that can raise an "+
					"error is not supported natively (Spark may evaluate it on the rows the clause rejects)", spec.name)
			}
			if spec.filter, err = expr.Translate(filters[i], conf); err != nil {
				return nil, err
			}
			if spec.filter.Type().Kind != sparktype.Boolean {
				return nil, fmt.Errorf("FILTER clause of %s is %s, not boolean", spec.name, spec.filter.Type())
			}
			if spec.refs, err = plan.References(fe); err != nil {
				return nil, err
			}
			for _, o := range spec.refs {
				if o >= len(childSchema) {
					return nil, fmt.Errorf("%s reads column %d of a %d-column input", spec.name, o, len(childSchema))
				}
			}
		}
		if spec.mode.updates() {
			// The columns the function reads, so that a lazy input decodes only those
			// (lazyminmax.go); an ordinal outside the child's output leaves them untold.
			if refs, err := plan.References(aggExprs[i]); err == nil {
				spec.reads, spec.readsOK = refs, true
				for _, o := range refs {
					if o >= len(childSchema) {
						spec.reads, spec.readsOK = nil, false
					}
				}
			}
		}
		h.fns = append(h.fns, spec)
	}

	if h.schema, err = n.OutputFields(); err != nil {
		return nil, err
	}
	for _, f := range h.schema {
		// A result column may be nested (collect_list's array, built by the function itself);
		// buffers and keys are never.
		if !f.Type.Supported() && !(h.out == Final && f.Type.Readable()) {
			return nil, refuse("HashAggregate output column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}

	if h.out == Partial {
		// Output = grouping attributes ++ buffers, exactly.
		want := append([]sparktype.Type{}, h.keyTypes...)
		for _, f := range h.fns {
			want = append(want, f.bufTypes...)
		}
		if len(want) != len(h.schema) {
			return nil, fmt.Errorf("partial aggregate output has %d columns, expected %d (keys and buffers)", len(h.schema), len(want))
		}
		for i, t := range want {
			if !h.schema[i].Type.Equal(t) {
				return nil, fmt.Errorf("partial aggregate output column %d is %s, expected %s", i, h.schema[i].Type, t)
			}
		}
		return h, nil
	}

	// Results: resultExpressions bound to grouping attributes ++ aggregateAttributes. (A buffers
	// output needs no ids: an aliased key, a normalized float or Spark's UnscaledValue of a
	// DISTINCT decimal, is encoded without its exprId.)
	boundIDs := make([]int64, 0, len(keyIDs)+len(aggAttrs))
	for i, id := range keyIDs {
		if id == nil {
			return nil, fmt.Errorf("grouping expression %d (%s) has no exprId", i, plan.ShortClass(groupExprs[i].Class))
		}
		boundIDs = append(boundIDs, *id)
	}
	if h.out == Final {
		if len(aggAttrs) != len(h.fns) {
			return nil, fmt.Errorf("%d aggregate attributes for %d aggregate functions", len(aggAttrs), len(h.fns))
		}
		for i, a := range aggAttrs {
			t, err := a.Type()
			if err != nil {
				return nil, err
			}
			if !t.Equal(h.fns[i].resultType) {
				return nil, fmt.Errorf("aggregate attribute %s is %s, %s returns %s", a.Name, t, h.fns[i].name, h.fns[i].resultType)
			}
			if a.ExprID == nil {
				return nil, fmt.Errorf("aggregate attribute %s has no exprId", a.Name)
			}
			boundIDs = append(boundIDs, *a.ExprID)
		}
	}
	ordinals := make(map[int64]int, len(boundIDs))
	for i, id := range boundIDs {
		ordinals[id] = i
	}
	if len(resultExprs) != len(h.schema) {
		return nil, fmt.Errorf("%d result expressions for %d output columns", len(resultExprs), len(h.schema))
	}
	for _, re := range resultExprs {
		inner, err := stripAlias(re)
		if err != nil {
			return nil, err
		}
		if plan.ShortClass(inner.Class) == "AttributeReference" && inner.ExprID != nil {
			o, ok := ordinals[*inner.ExprID]
			if !ok {
				return nil, fmt.Errorf("result attribute %s#%d is neither a grouping nor an aggregate attribute", inner.Name, *inner.ExprID)
			}
			h.results = append(h.results, resultCol{col: o})
			continue
		}
		rebound, err := plan.Rebind(inner, ordinals)
		if err != nil {
			return nil, err
		}
		e, err := expr.Translate(rebound, conf)
		if err != nil {
			return nil, err
		}
		h.results = append(h.results, resultCol{col: -1, e: e})
	}
	return h, nil
}

// argumentsMayFail reports whether an argument of aggregate function fe can raise an error.
func argumentsMayFail(fe *plan.Expr, conf *plan.Conf) (bool, error) {
	var args []*plan.Expr
	if fe.Has("child") {
		c, err := fe.Child("child")
		if err != nil {
			return false, err
		}
		args = append(args, c)
	}
	if fe.Has("children") {
		cs, err := fe.Children("children")
		if err != nil {
			return false, err
		}
		args = append(args, cs...)
	}
	for _, a := range args {
		if isAttribute(a) {
			continue
		}
		e, err := expr.TranslateOrDispatch(a, conf)
		if err != nil {
			return false, err
		}
		if expr.MayFail(e) {
			return true, nil
		}
	}
	return false, nil
}

// isNullField reports whether an expression's field is encoded as JSON null (None).
func isNullField(e *plan.Expr, name string) bool {
	raw, err := e.Raw(name)
	if err != nil {
		return false
	}
	s := strings.TrimSpace(string(raw))
	return s == "null" || s == ""
}

// Output reports the operator's output kind: Partial (keys and buffers), Final (result
// expressions over results) or GroupingOnly (result expressions over the keys).
func (h *HashAggregate) Output() Mode { return h.out }

func (h *HashAggregate) Schema() []sparktype.Field { return h.schema }

// stream is the per-task state.
type stream struct {
	ctx *exec.TaskContext
	// cur is the run being filled (from the child) or emitted.
	cur  *aggRun
	gids []uint32
	// sel and selGids: the rows passing a FILTER clause and their groups (reused per batch).
	sel      []int32
	selGids  []uint32
	consumed bool
	// flushing: a partial aggregate out of memory emits its groups before it reads on.
	flushing bool
	// merging: a spilled partition is being folded into st.cur (mergeFile).
	merging bool
	pos     int
	// spill is the state of spilling (spill.go); nil until the first spill.
	spill *spillState
	// lazy: the child is a scan read lazily, min/max over dictionary codes (lazyminmax.go).
	lazy *lazyInput
}

// aggRun is one hash table and its per-group function states: the aggregation of the child's input,
// or the merge of one spilled partition (spill.go).
type aggRun struct {
	// level is the number of partitionings its input went through (0: the child's input).
	level int
	table groupTable
	fns   []function
	// accounted is the hash table and state size last reported to the task's memory account.
	accounted int64
	// parts are the spill files of its groups, by partition; nil while nothing spilled.
	parts []*memory.SpillWriter
}

// newInputRun is a run that aggregates the child's rows: updating functions summing the same
// decimal column share their sum (shareDecSums).
func (h *HashAggregate) newInputRun() *aggRun {
	r := h.newRun(0)
	shareDecSums(h.fns, r.fns)
	return r
}

func (h *HashAggregate) newRun(level int) *aggRun {
	r := &aggRun{level: level, table: newGroupTable(h.keyTypes)}
	for _, f := range h.fns {
		r.fns = append(r.fns, f.newState())
	}
	if n := r.table.numGroups(); n > 0 {
		for _, f := range r.fns {
			f.grow(n)
		}
	}
	return r
}

// account reports the growth of the group table and per-group states to the task's memory
// account (reserved from Spark); called once per input batch.
func (h *HashAggregate) account(r *aggRun) {
	st := h.st
	if st.ctx.Alloc == nil {
		return
	}
	ng := int64(r.table.numGroups())
	size := int64(r.table.memSize()) + int64(cap(st.gids))*4
	for _, f := range h.fns {
		size += ng * int64(16*len(f.bufTypes)+1)
	}
	for _, f := range r.fns {
		if s, ok := f.(sizedState); ok { // states of variable size (collect.go)
			size += s.memSize()
		}
	}
	if st.lazy != nil { // the marks over the current dictionaries (lazyminmax.go)
		size += st.lazy.memSize()
	}
	st.ctx.Alloc.Account(size - r.accounted)
	r.accounted = size
}

// drop gives a run's table and states up (their memory account with them).
func (h *HashAggregate) drop(r *aggRun) {
	if r == nil {
		return
	}
	if h.st.ctx.Alloc != nil {
		h.st.ctx.Alloc.Account(-r.accounted)
	}
	r.accounted = 0
	r.table, r.fns = nil, nil
}

func (h *HashAggregate) Open(ctx *exec.TaskContext) error {
	if err := h.child.Open(ctx); err != nil {
		return err
	}
	h.st = &stream{ctx: ctx}
	h.st.cur = h.newInputRun()
	h.st.lazy = h.planLazy()
	if len(h.keys) > 0 {
		ctx.Spillers = append(ctx.Spillers, h)
	}
	return nil
}

func (h *HashAggregate) Next() (*columnar.Batch, error) {
	st := h.st
	if st == nil {
		return nil, fmt.Errorf("HashAggregate read before Open")
	}
	for {
		if !st.consumed && !st.flushing {
			flush, err := h.consume()
			if err != nil {
				return nil, err
			}
			if flush {
				st.flushing, st.pos = true, 0
			} else {
				st.consumed = true
			}
		}
		if st.cur != nil {
			if n := st.cur.table.numGroups(); st.pos < n {
				lo := st.pos
				hi := min(n, lo+st.ctx.BatchSize())
				st.pos = hi
				b, err := h.emit(lo, hi)
				if err == nil {
					// Out of memory while emitting: the groups not emitted yet go to disk.
					err = st.ctx.RelieveMemory()
				}
				if err != nil {
					b.Release()
					return nil, err
				}
				return b, nil
			}
		}
		if st.flushing {
			// Groups of this flush that went to disk while it was emitted come out first.
			if st.spill != nil && (st.spill.reading != nil || len(st.spill.pending) > 0) {
				h.drop(st.cur)
				r, err := h.mergeNext()
				if err != nil {
					return nil, err
				}
				st.cur, st.pos = r, 0
				if r != nil {
					continue
				}
			}
			// The partial groups are out: free the table, give the memory back, read on.
			h.drop(st.cur)
			st.cur, st.pos, st.flushing = h.newInputRun(), 0, false
			h.flushes++
			if a := st.ctx.Alloc; a != nil {
				a.Trim()
				a.ClearOutOfMemory()
				a.Settle()
			}
			continue
		}
		if st.cur != nil {
			h.drop(st.cur)
			st.cur = nil
		}
		// Spilled: merge the next partition (spill.go); none left ends the output.
		r, err := h.mergeNext()
		if err != nil || r == nil {
			return nil, err
		}
		st.cur, st.pos = r, 0
	}
}

// consume aggregates the input, spilling the groups when the task's memory runs out. A partial
// aggregate instead returns flush = true to emit its groups early and then read on: Spark merges
// partial buffers downstream, so a key may come out of several flushes.
func (h *HashAggregate) consume() (flush bool, err error) {
	st := h.st
	for {
		if st.lazy != nil {
			more, err := h.consumeLazy(st.cur)
			if err != nil {
				return false, err
			}
			if !more {
				return false, h.endOfInput(st.cur)
			}
			if err := h.afterBatch(st.cur); err != nil {
				return false, err
			}
			continue
		}
		b, err := h.child.Next()
		if err != nil {
			return false, err
		}
		if b == nil {
			return false, h.endOfInput(st.cur)
		}
		err = h.addBatch(st.cur, b)
		b.Release()
		if err != nil {
			return false, err
		}
		if h.out == Partial && st.cur.level == 0 && st.cur.parts == nil && h.canSpill(st.cur) {
			h.account(st.cur)
			if a := st.ctx.Alloc; a != nil && a.OutOfMemory() {
				// Emitting allocates: the refusal is forgotten, the table goes once emitted.
				a.ClearOutOfMemory()
				return true, nil
			}
		}
		if err := h.afterBatch(st.cur); err != nil {
			return false, err
		}
	}
}

// afterBatch accounts a run's growth and, when the task is out of memory, spills it.
func (h *HashAggregate) afterBatch(r *aggRun) error {
	h.account(r)
	a := h.st.ctx.Alloc
	if a == nil {
		return nil
	}
	if a.OutOfMemory() && h.canSpill(r) {
		return h.spillRun(r)
	}
	// Not this run (no keys, or nothing held): the operators below may spill.
	if err := h.st.ctx.RelieveMemory(); err != nil {
		return err
	}
	return a.Err()
}

func (h *HashAggregate) addBatch(r *aggRun, b *columnar.Batch) error {
	return h.addBatchSkip(r, b, nil)
}

// addBatchSkip is addBatch but for the functions skip marks (read from dictionary codes).
func (h *HashAggregate) addBatchSkip(r *aggRun, b *columnar.Batch, skip []bool) error {
	st := h.st
	n := b.NumRows
	if n == 0 {
		return nil
	}
	if cap(st.gids) < n {
		st.gids = make([]uint32, n)
	}
	gids := st.gids[:n]
	keyCols := make([]arrow.Array, len(h.keys))
	defer func() {
		for _, c := range keyCols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, k := range h.keys {
		c, err := k.eval(st.ctx, b)
		if err != nil {
			return err
		}
		keyCols[i] = c
	}
	if err := r.table.assign(keyCols, n, gids); err != nil {
		return err
	}
	ng := r.table.numGroups()
	h.dec64.Reset(b)
	h.rows.reset(b, gids, ng)
	defer func() {
		h.dec64.Reset(nil)
		h.rows.reset(nil, nil, 0)
	}()
	for i, f := range r.fns {
		f.grow(ng)
		if skip != nil && skip[i] {
			continue
		}
		spec := h.fns[i]
		var err error
		switch {
		case !spec.mode.updates():
			err = f.merge(b.Cols[spec.bufCol:spec.bufCol+len(spec.bufTypes)], gids)
		case spec.filter != nil:
			err = h.updateFiltered(spec, f, b, gids)
		default:
			err = f.update(st.ctx, b, gids)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// updateFiltered folds the rows of b that pass the function's FILTER clause (true; null and false
// rows are skipped, as Spark's generated predicate check does). The function's arguments are
// evaluated over those rows only, so a row the clause rejects cannot raise an error.
func (h *HashAggregate) updateFiltered(spec *fnSpec, f function, b *columnar.Batch, gids []uint32) error {
	st := h.st
	p, err := spec.filter.Eval(st.ctx, b)
	if err != nil {
		return err
	}
	pred, ok := p.(*array.Boolean)
	if !ok {
		p.Release()
		return fmt.Errorf("FILTER clause of %s produced %s", spec.name, p.DataType())
	}
	st.sel = columnar.SelectTrue(pred, st.sel)
	p.Release()
	sel := st.sel
	switch len(sel) {
	case 0:
		return nil
	case b.NumRows:
		return f.update(st.ctx, b, gids)
	}
	cols := make([]arrow.Array, len(b.Cols))
	sub := columnar.NewBatch(cols, len(sel))
	defer sub.Release()
	for _, o := range spec.refs {
		if cols[o], err = columnar.Take(st.ctx.Alloc, b.Cols[o], sel); err != nil {
			return err
		}
	}
	if cap(st.selGids) < len(sel) {
		st.selGids = make([]uint32, len(sel))
	}
	sg := st.selGids[:len(sel)]
	for i, r := range sel {
		sg[i] = gids[r]
	}
	return f.update(st.ctx, sub, sg)
}

func (h *HashAggregate) emit(lo, hi int) (*columnar.Batch, error) {
	st := h.st
	alloc := st.ctx.Alloc
	cols, err := st.cur.table.keyColumns(alloc, lo, hi)
	if err != nil {
		return nil, err
	}
	release := func() { columnar.NewBatch(cols, 0).Release() }
	for _, f := range st.cur.fns {
		var more []arrow.Array
		if h.out == Partial {
			more, err = f.buffers(alloc, lo, hi)
		} else {
			var c arrow.Array
			c, err = f.result(alloc, lo, hi)
			more = []arrow.Array{c}
		}
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, more...)
	}
	if h.out == Partial {
		return columnar.NewBatch(cols, hi-lo), nil
	}
	inter := columnar.NewBatch(cols, hi-lo)
	defer inter.Release()
	out := make([]arrow.Array, len(h.results))
	for i, r := range h.results {
		if r.e == nil {
			out[i] = inter.Cols[r.col]
			out[i].Retain()
			continue
		}
		c, err := r.e.Eval(st.ctx, inter)
		if err != nil {
			columnar.NewBatch(out[:i], 0).Release()
			return nil, err
		}
		out[i] = c
	}
	return columnar.NewBatch(out, hi-lo), nil
}

func (h *HashAggregate) Close() {
	if h.st != nil {
		if h.st.lazy != nil {
			h.st.lazy.release()
		}
		h.drop(h.st.cur)
		h.closeSpill()
	}
	h.st = nil
	h.child.Close()
}
