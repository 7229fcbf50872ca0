// Higher-order functions over arrays: transform, filter, exists, forall, aggregate (reduce) and
// zip_with, with Spark's semantics (higherOrderFunctions.scala): a null array gives null without
// evaluating the lambda; exists and forall use three-valued logic (exists: true if some element
// is true, else null if some is null and spark.sql.legacy.followThreeValuedLogicInArrayExists,
// which arrives as the expression's followThreeValuedLogic field; forall: false if some element
// is false, else null if some is null); aggregate folds each array left to right from zero, then
// applies finish; zip_with pads the shorter array with nulls.
//
// transform, filter, zip_with, exists and forall evaluate their lambda once per batch over the
// flattened elements (lambda.go). exists and forall stop at the first deciding element in Spark,
// so when their body may raise an error (ANSI arithmetic, casts) they evaluate it one element
// position at a time over the undecided arrays only: evaluating it on every element could raise
// an error Spark never raises. aggregate's fold is sequential within an
// array, so it runs in rounds, one per element position, each evaluating merge over the arrays
// still that long: element k of every array at once (the rows ordered longest first, so a round
// costs the number of arrays it folds, and the whole fold the number of elements).
package expr

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("ArrayTransform", "transform(array, x -> ...) and transform(array, (x, i) -> ...): the lambda runs once per batch over the flattened elements; a null array gives null", lambdaArrayTranslator(lambdaTransform))
	RegisterNested("ArrayFilter", "filter(array, x -> ...) and filter(array, (x, i) -> ...): keeps the elements whose predicate is true; a null array gives null", lambdaArrayTranslator(lambdaFilter))
	RegisterNested("ArrayExists", "exists(array, x -> ...): three-valued (null when no element is true and some is null) unless spark.sql.legacy.followThreeValuedLogicInArrayExists is false; a body that can raise an error runs element by element over the undecided arrays (Spark stops at the first true)", lambdaArrayTranslator(lambdaExists))
	RegisterNested("ArrayForAll", "forall(array, x -> ...): false if some element is false, else null if some is null; a body that can raise an error runs element by element over the undecided arrays (Spark stops at the first false)", lambdaArrayTranslator(lambdaForAll))
	RegisterNested("ArrayAggregate", "aggregate / reduce(array, zero, (acc, x) -> ..., acc -> ...): folds left to right, one batch-wide round per element position; the zero and merge types must be equal", translateLambdaAggregate)
	RegisterNested("ZipWith", "zip_with(left, right, (x, y) -> ...): the shorter array is padded with nulls; null if either array is null", translateLambdaZipWith)
}

type lambdaArrayKind uint8

const (
	lambdaTransform lambdaArrayKind = iota
	lambdaFilter
	lambdaExists
	lambdaForAll
)

var lambdaArrayNames = [...]string{"transform", "filter", "exists", "forall"}

// lambdaArrayFn is transform, filter, exists or forall: one array, a lambda of the element (and,
// for transform and filter, its index).
type lambdaArrayFn struct {
	kind        lambdaArrayKind
	arg         Expr
	fn          *lambdaFn
	typ         sparktype.Type
	threeValued bool // exists: spark.sql.legacy.followThreeValuedLogicInArrayExists
	// stepwise: exists or forall of a body that may raise an error, evaluated one element
	// position at a time over the undecided arrays only, as Spark stops at the deciding element.
	stepwise bool
}

func lambdaArrayTranslator(kind lambdaArrayKind) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := lambdaArrayNames[kind]
		if !e.Deterministic {
			return nil, unsupported("%s with a non-deterministic argument or lambda", name)
		}
		t, err := e.Type()
		if err != nil {
			return nil, err
		}
		arg, err := translateChild(e, "argument", conf)
		if err != nil {
			return nil, err
		}
		elem, ok := arg.Type().Elem()
		if !ok {
			return nil, unsupported("%s of %s", name, arg.Type())
		}
		arity := []int{1}
		if kind == lambdaTransform || kind == lambdaFilter {
			arity = []int{1, 2}
		}
		fn, err := translateLambda(e, "function", conf, arity...)
		if err != nil {
			return nil, err
		}
		if !fn.params[0].Equal(elem) {
			return nil, unsupported("%s: lambda parameter %s for elements of %s", name, fn.params[0], elem)
		}
		if len(fn.params) == 2 && fn.params[1].Kind != sparktype.Int {
			return nil, unsupported("%s: index parameter of type %s", name, fn.params[1])
		}
		f := &lambdaArrayFn{kind: kind, arg: arg, fn: fn, typ: t}
		switch kind {
		case lambdaTransform:
			el, _ := t.Elem()
			if !el.Equal(fn.body.Type()) {
				return nil, unsupported("transform: lambda returns %s for a result of %s", fn.body.Type(), t)
			}
		case lambdaFilter:
			if fn.body.Type().Kind != sparktype.Boolean || !t.Equal(arg.Type()) {
				return nil, unsupported("filter: predicate of %s over %s", fn.body.Type(), arg.Type())
			}
		case lambdaExists, lambdaForAll:
			if fn.body.Type().Kind != sparktype.Boolean || t.Kind != sparktype.Boolean {
				return nil, unsupported("%s: predicate of %s", name, fn.body.Type())
			}
			f.stepwise = fn.mayFail()
			if kind == lambdaExists {
				if f.threeValued, err = e.Bool("followThreeValuedLogic"); err != nil {
					return nil, err
				}
			}
		}
		return f, nil
	}
}

func (f *lambdaArrayFn) Type() sparktype.Type { return f.typ }
func (f *lambdaArrayFn) mayFail() bool        { return mayFail(f.arg) || f.fn.mayFail() }
func (f *lambdaArrayFn) String() string {
	return fmt.Sprintf("%s(%s, %s)", lambdaArrayNames[f.kind], f.arg, f.fn)
}

func (f *lambdaArrayFn) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return f.evalMasked(ctx, b, nil)
}

func (f *lambdaArrayFn) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	a, err := evalActive(ctx, b, f.arg, active)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, err := lambdaCheckList(f, a, b.NumRows)
	if err != nil {
		return nil, err
	}
	fl := lambdaFlatten(l, active)
	if f.stepwise {
		return f.decideStepwise(ctx, b, fl, l.ListValues())
	}
	elems, err := fl.gather(ctx.Alloc, l.ListValues())
	if err != nil {
		return nil, err
	}
	defer elems.Release()
	args := []arrow.Array{elems}
	if len(f.fn.params) == 2 {
		idx := fl.positions(ctx.Alloc)
		defer idx.Release()
		args = append(args, idx)
	}
	out, err := f.fn.eval(ctx, b, fl.parent, args, len(fl.parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	switch f.kind {
	case lambdaTransform:
		return lambdaList(ctx.Alloc, f.typ.Arrow(), fl.live, fl.nlive, fl.starts, out), nil
	case lambdaFilter:
		return f.filter(ctx, fl, elems, out)
	}
	return f.decide(ctx, fl, out)
}

// filter keeps the elements whose predicate is true.
func (f *lambdaArrayFn) filter(ctx *exec.TaskContext, fl *lambdaFlat, elems, pred arrow.Array) (arrow.Array, error) {
	p, ok := pred.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%s: predicate returned %s", f, pred.DataType())
	}
	starts := make([]int32, fl.n+1)
	sel := make([]int32, 0, p.Len())
	for i := 0; i < fl.n; i++ {
		starts[i] = int32(len(sel))
		for k := fl.starts[i]; k < fl.starts[i+1]; k++ {
			if p.IsValid(int(k)) && p.Value(int(k)) {
				sel = append(sel, k)
			}
		}
	}
	starts[fl.n] = int32(len(sel))
	kept, err := columnar.Take(ctx.Alloc, elems, sel)
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	return lambdaList(ctx.Alloc, f.typ.Arrow(), fl.live, fl.nlive, starts, kept), nil
}

// decide folds each row's predicates the way exists (true decides) or forall (false decides) does.
func (f *lambdaArrayFn) decide(ctx *exec.TaskContext, fl *lambdaFlat, pred arrow.Array) (arrow.Array, error) {
	p, ok := pred.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%s: predicate returned %s", f, pred.DataType())
	}
	decider := f.kind == lambdaExists
	nullOut := f.kind == lambdaForAll || f.threeValued
	n := fl.n
	vals := make([]byte, bitutil.BytesForBits(int64(n)))
	valid := make([]byte, len(vals))
	for i := 0; i < n; i++ {
		if !bitutil.BitIsSet(fl.live, i) {
			continue
		}
		decided, sawNull := false, false
		for k := fl.starts[i]; k < fl.starts[i+1] && !decided; k++ {
			if !p.IsValid(int(k)) {
				sawNull = true
			} else if p.Value(int(k)) == decider {
				decided = true
			}
		}
		res := decided == decider // exists: decided; forall: !decided
		if decided || !sawNull || !nullOut {
			bitutil.SetBit(valid, i)
			if res {
				bitutil.SetBit(vals, i)
			}
		}
	}
	return lambdaBools(ctx.Alloc, vals, valid, n), nil
}

// decideStepwise is decide for a body that may raise an error: round k evaluates the body on
// element k of the arrays still undecided (Spark's short circuit), so the cost stays the number
// of elements evaluated.
func (f *lambdaArrayFn) decideStepwise(ctx *exec.TaskContext, b *columnar.Batch, fl *lambdaFlat, values arrow.Array) (arrow.Array, error) {
	decider := f.kind == lambdaExists
	nullOut := f.kind == lambdaForAll || f.threeValued
	n := fl.n
	vals := make([]byte, bitutil.BytesForBits(int64(n)))
	valid := make([]byte, len(vals))
	sawNull := make([]bool, n)
	settle := func(r int32, decided bool) {
		if decided || !sawNull[r] || !nullOut {
			bitutil.SetBit(valid, int(r))
			if decided == decider {
				bitutil.SetBit(vals, int(r))
			}
		}
	}
	var pending []int32
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(fl.live, i) {
			pending = append(pending, int32(i))
		}
	}
	for k := int32(0); len(pending) > 0; k++ {
		var rows, idx []int32
		for _, r := range pending {
			if fl.starts[r+1]-fl.starts[r] > k {
				rows = append(rows, r)
				idx = append(idx, fl.index[fl.starts[r]+k])
			} else {
				settle(r, false)
			}
		}
		pending = pending[:0]
		if len(rows) == 0 {
			break
		}
		el, err := columnar.Take(ctx.Alloc, values, idx)
		if err != nil {
			return nil, err
		}
		out, err := f.fn.eval(ctx, b, rows, []arrow.Array{el}, len(rows))
		el.Release()
		if err != nil {
			return nil, err
		}
		p, ok := out.(*array.Boolean)
		if !ok {
			out.Release()
			return nil, fmt.Errorf("%s: predicate returned %s", f, out.DataType())
		}
		for j, r := range rows {
			switch {
			case !p.IsValid(j):
				sawNull[r] = true
				pending = append(pending, r)
			case p.Value(j) == decider:
				settle(r, true)
			default:
				pending = append(pending, r)
			}
		}
		out.Release()
	}
	return lambdaBools(ctx.Alloc, vals, valid, n), nil
}

// lambdaAggregate is aggregate(array, zero, merge, finish).
type lambdaAggregate struct {
	arg, zero     Expr
	merge, finish *lambdaFn
	typ           sparktype.Type
}

func translateLambdaAggregate(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if !e.Deterministic {
		return nil, unsupported("aggregate with a non-deterministic argument or lambda")
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	arg, err := translateChild(e, "argument", conf)
	if err != nil {
		return nil, err
	}
	if _, ok := arg.Type().Elem(); !ok {
		return nil, unsupported("aggregate of %s", arg.Type())
	}
	zero, err := translateChild(e, "zero", conf)
	if err != nil {
		return nil, err
	}
	merge, err := translateLambda(e, "merge", conf, 2)
	if err != nil {
		return nil, err
	}
	finish, err := translateLambda(e, "finish", conf, 1)
	if err != nil {
		return nil, err
	}
	// The accumulator column holds zero's values, then merge's: one Arrow type for both.
	if !zero.Type().Equal(merge.body.Type()) {
		return nil, unsupported("aggregate: zero of %s and merge of %s differ", zero.Type(), merge.body.Type())
	}
	if !finish.body.Type().Equal(t) {
		return nil, unsupported("aggregate: finish returns %s for a result of %s", finish.body.Type(), t)
	}
	return &lambdaAggregate{arg: arg, zero: zero, merge: merge, finish: finish, typ: t}, nil
}

func (g *lambdaAggregate) Type() sparktype.Type { return g.typ }
func (g *lambdaAggregate) mayFail() bool {
	return mayFail(g.arg) || mayFail(g.zero) || g.merge.mayFail() || g.finish.mayFail()
}
func (g *lambdaAggregate) String() string {
	return fmt.Sprintf("aggregate(%s, %s, %s, %s)", g.arg, g.zero, g.merge, g.finish)
}

func (g *lambdaAggregate) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return g.evalMasked(ctx, b, nil)
}

func (g *lambdaAggregate) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	a, err := evalActive(ctx, b, g.arg, active)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, err := lambdaCheckList(g, a, n)
	if err != nil {
		return nil, err
	}
	fl := lambdaFlatten(l, active)
	if fl.nlive == 0 {
		return allNull(ctx.Alloc, g.typ.Arrow(), n), nil
	}
	// The live rows, longest array first (stable): the arrays still folding at round k are then
	// a prefix of rows, so each round works on a prefix of the accumulators, and the
	// accumulators of the arrays that ended are set aside once, as slices.
	rows := make([]int32, 0, fl.nlive)
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(fl.live, i) {
			rows = append(rows, int32(i))
		}
	}
	length := func(r int32) int32 { return fl.starts[r+1] - fl.starts[r] }
	slices.SortStableFunc(rows, func(a, b int32) int { return cmp.Compare(length(b), length(a)) })
	// zero, on the live rows only (Spark does not evaluate it for a null array).
	liveMask := fl.live
	if fl.nlive == n {
		liveMask = active
	}
	z, err := evalActive(ctx, b, g.zero, liveMask)
	if err != nil {
		return nil, err
	}
	acc, err := columnar.Take(ctx.Alloc, z, rows)
	z.Release()
	if err != nil {
		return nil, err
	}
	var done []arrow.Array // accumulators of ended arrays, latest first once reversed
	defer func() {
		acc.Release()
		releaseArrays(done)
	}()
	values := l.ListValues()
	for k := int32(0); len(rows) > 0 && k < length(rows[0]); k++ {
		c := acc.Len()
		for c > 0 && length(rows[c-1]) <= k {
			c--
		}
		if c < acc.Len() {
			done = append(done, array.NewSlice(acc, int64(c), int64(acc.Len())))
			cur := array.NewSlice(acc, 0, int64(c))
			acc.Release()
			acc = cur
		}
		idx := make([]int32, c)
		for j, r := range rows[:c] {
			idx[j] = fl.index[fl.starts[r]+k]
		}
		el, err := columnar.Take(ctx.Alloc, values, idx)
		if err != nil {
			return nil, err
		}
		res, err := g.merge.eval(ctx, b, rows[:c], []arrow.Array{acc, el}, c)
		el.Release()
		if err != nil {
			return nil, err
		}
		acc.Release()
		acc = res
	}
	if len(done) > 0 {
		parts := []arrow.Array{acc}
		for j := len(done) - 1; j >= 0; j-- {
			parts = append(parts, done[j])
		}
		all, err := array.Concatenate(parts, ctx.Alloc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g, err)
		}
		acc.Release()
		acc = all
	}
	fin, err := g.finish.eval(ctx, b, rows, []arrow.Array{acc}, len(rows))
	if err != nil {
		return nil, err
	}
	defer fin.Release()
	sel := make([]int32, n)
	for j, r := range rows {
		sel[r] = int32(j)
	}
	taken, err := columnar.Take(ctx.Alloc, fin, sel)
	if err != nil {
		return nil, err
	}
	if fl.nlive == n {
		return taken, nil
	}
	defer taken.Release()
	return withValidity(ctx.Alloc, taken, fl.live, 0), nil
}

// lambdaZipWith is zip_with(left, right, (x, y) -> ...).
type lambdaZipWith struct {
	left, right Expr
	fn          *lambdaFn
	typ         sparktype.Type
}

func translateLambdaZipWith(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if !e.Deterministic {
		return nil, unsupported("zip_with with a non-deterministic argument or lambda")
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	left, err := translateChild(e, "left", conf)
	if err != nil {
		return nil, err
	}
	right, err := translateChild(e, "right", conf)
	if err != nil {
		return nil, err
	}
	if left.Type().Kind != sparktype.Array || right.Type().Kind != sparktype.Array {
		return nil, unsupported("zip_with of %s and %s", left.Type(), right.Type())
	}
	fn, err := translateLambda(e, "function", conf, 2)
	if err != nil {
		return nil, err
	}
	el, _ := t.Elem()
	if !el.Equal(fn.body.Type()) {
		return nil, unsupported("zip_with: lambda returns %s for a result of %s", fn.body.Type(), t)
	}
	return &lambdaZipWith{left: left, right: right, fn: fn, typ: t}, nil
}

func (z *lambdaZipWith) Type() sparktype.Type { return z.typ }
func (z *lambdaZipWith) mayFail() bool        { return mayFail(z.left) || mayFail(z.right) || z.fn.mayFail() }
func (z *lambdaZipWith) String() string {
	return fmt.Sprintf("zip_with(%s, %s, %s)", z.left, z.right, z.fn)
}

func (z *lambdaZipWith) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return z.evalMasked(ctx, b, nil)
}

func (z *lambdaZipWith) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	la, ra, ll, rl, rightActive, err := lambdaEvalPair(ctx, b, z, z.left, z.right, active)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	defer ra.Release()
	lo, ro := listOffsets(ll), listOffsets(rl)
	live := make([]byte, len(rightActive))
	nlive := 0
	starts := make([]int32, n+1)
	var parent, li, ri []int32
	for i := 0; i < n; i++ {
		starts[i] = int32(len(parent))
		if !bitutil.BitIsSet(rightActive, i) || !rl.IsValid(i) {
			continue
		}
		bitutil.SetBit(live, i)
		nlive++
		ln, rn := lo[i+1]-lo[i], ro[i+1]-ro[i]
		for k := int32(0); k < max(ln, rn); k++ {
			parent = append(parent, int32(i))
			li = append(li, lambdaIndexOrNull(lo[i]+k, k < ln))
			ri = append(ri, lambdaIndexOrNull(ro[i]+k, k < rn))
		}
	}
	starts[n] = int32(len(parent))
	xs, err := lambdaTakeOrNull(ctx.Alloc, ll.ListValues(), li)
	if err != nil {
		return nil, err
	}
	defer xs.Release()
	ys, err := lambdaTakeOrNull(ctx.Alloc, rl.ListValues(), ri)
	if err != nil {
		return nil, err
	}
	defer ys.Release()
	out, err := z.fn.eval(ctx, b, parent, []arrow.Array{xs, ys}, len(parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return lambdaList(ctx.Alloc, z.typ.Arrow(), live, nlive, starts, out), nil
}

func lambdaIndexOrNull(i int32, ok bool) int32 {
	if ok {
		return i
	}
	return -1
}
