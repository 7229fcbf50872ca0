// Partition-seeded and nondeterministic functions: rand/random (Rand), randn (Randn), randstr
// (RandStr), uuid (Uuid), shuffle (Shuffle), monotonically_increasing_id
// (MonotonicallyIncreasingID) and spark_partition_id (SparkPartitionID).
//
// Spark gives each of these expressions a generator (or a row counter) per task, initialised by
// Nondeterministic.initialize(partitionIndex) from the seed plus the partition index, and draws
// from it once per evaluation. Its answers are therefore whatever that sequence gives, in row
// order: the native versions replay the same generators (package sparkrand) and must be
// evaluated exactly on the rows Spark evaluates them on, in the same order. Each Expr built here
// keeps its state across batches; translate builds the operators, and so these Exprs, once per
// task (jni createPlan), so the state is the task's, as Spark's is.
//
// Two rules keep the evaluation set Spark's:
//   - The stateful ones implement masked evaluation and report mayFail: the composite expressions
//     then evaluate them only on the rows Spark's short-circuits would (mask.go), and a filter
//     evaluates a conjunct with them only on the rows the conjuncts before it kept, in the order
//     of Spark's generated FilterExec code (translate/filter.go). mayFail also keeps them away
//     from the paths that evaluate fallible expressions twice or out of order (typed comparison
//     loops, late materialization).
//   - They translate only where the operator has checked their position (MarkRowOrdered): a
//     Project's expression, or a Filter's conjunct, reached through parents whose native masked
//     evaluation matches Spark's (Alias, Cast, UnaryMinus, Add, Subtract, Multiply, comparisons,
//     And, Or, Not).
//     Anywhere else (an aggregate, a join key, a branch of CASE, ...) they refuse with a reason.
package expr

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkrand"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register("Rand", "rand([seed]), random([seed]): XORShiftRandom(seed + partition index).nextDouble, Spark's sequence bit for bit; only in a projection or filter (evaluated once per row, on Spark's rows, in order), under +, -, *, casts, comparisons, AND/OR/NOT; elsewhere refused", translateRand(false))
	Register("Randn", "randn([seed]): XORShiftRandom(seed + partition index).nextGaussian (java.util.Random's polar method with StrictMath), same placement rules as rand", translateRand(true))
	Register("RandStr", "randstr(length[, seed]) with a literal length 0..4096: characters of XORShiftRandom(seed + partition index).nextInt, same placement rules as rand", translateRandStr)
	Register("Uuid", "uuid(): RandomUUIDGenerator over MersenneTwister(seed + partition index), same placement rules as rand", translateUuid)
	RegisterNested("Shuffle", "shuffle(arr) of a deterministic array: RandomIndicesGenerator over MersenneTwister(seed + partition index), null arrays draw nothing; same placement rules as rand", translateShuffle)
	Register("MonotonicallyIncreasingID", "monotonically_increasing_id(): partition index << 33 plus the rows evaluated so far in the task, same placement rules as rand", translateMonotonicID)
	Register("SparkPartitionID", "spark_partition_id(): the task's partition index", translateSparkPartitionID)
}

// rowOrderedKey marks, in a plan expression's fields, a stateful expression whose operator has
// checked that it is evaluated once per row, in row order, on the rows Spark evaluates it on. The
// '#' cannot begin a Catalyst constructor parameter name.
const rowOrderedKey = "#rowOrdered"

// statefulClasses are the expressions whose values depend on how many times, and on which rows,
// they were evaluated before.
var statefulClasses = map[string]bool{
	"Rand": true, "Randn": true, "RandStr": true, "Uuid": true, "Shuffle": true,
	"MonotonicallyIncreasingID": true,
}

// rowOrderedParents are the classes through which a stateful expression may be reached: Spark
// evaluates their children unconditionally, or skips the right one exactly where the left is
// null, and their native masked evaluation does the same (evalOperandActive / andActiveValid).
// Division and remainder are not here: their operand order and skip rules differ.
var rowOrderedParents = map[string][]string{
	"Alias":              {"child"},
	"Cast":               {"child"},
	"UnaryMinus":         {"child"},
	"Add":                {"left", "right"},
	"Subtract":           {"left", "right"},
	"Multiply":           {"left", "right"},
	"EqualTo":            {"left", "right"},
	"EqualNullSafe":      {"left", "right"},
	"LessThan":           {"left", "right"},
	"LessThanOrEqual":    {"left", "right"},
	"GreaterThan":        {"left", "right"},
	"GreaterThanOrEqual": {"left", "right"},
	// And and Or evaluate their right side where the left does not decide (true or null for
	// And, false or null for Or), natively as in Spark (logic.go, selection.go).
	"And": {"left", "right"},
	"Or":  {"left", "right"},
	"Not": {"child"},
}

// HasStateful reports whether e contains an expression whose value depends on its evaluation
// count (rand, uuid, monotonically_increasing_id, ...).
func HasStateful(e *plan.Expr) bool {
	if e == nil {
		return false
	}
	if statefulClasses[plan.ShortClass(e.Class)] {
		return true
	}
	for _, k := range childExprs(e) {
		if HasStateful(k) {
			return true
		}
	}
	return false
}

// MarkRowOrdered marks the stateful expressions of root that are reached only through
// rowOrderedParents, for an operator that evaluates root once per row of its input, in order
// (a projection; a filter's conjunct on the rows that passed the previous ones). The translators
// of the unmarked ones refuse.
func MarkRowOrdered(root *plan.Expr) {
	markRowOrdered(root)
}

// markRowOrdered marks e in place and reports whether it marked anything; a parent then stores
// its re-encoded child back, since plan.Expr decodes children from their JSON on each access.
func markRowOrdered(e *plan.Expr) bool {
	if e == nil {
		return false
	}
	short := plan.ShortClass(e.Class)
	if statefulClasses[short] {
		if e.Fields == nil {
			e.Fields = map[string]json.RawMessage{}
		}
		e.Fields[rowOrderedKey] = json.RawMessage("true")
		return true
	}
	marked := false
	for _, f := range rowOrderedParents[short] {
		c, err := e.Child(f)
		if err != nil || !markRowOrdered(c) {
			continue
		}
		raw, err := json.Marshal(c)
		if err != nil {
			continue // left unmarked: its translator refuses
		}
		e.Fields[f] = raw
		marked = true
	}
	return marked
}

// childExprs lists the direct child expressions of e (single or in arrays).
func childExprs(e *plan.Expr) []*plan.Expr {
	var out []*plan.Expr
	for _, raw := range e.Fields {
		if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
			continue
		}
		if raw[0] == '{' {
			var one plan.Expr
			if json.Unmarshal(raw, &one) == nil && one.Class != "" {
				out = append(out, &one)
			}
			continue
		}
		var kids []*plan.Expr
		if json.Unmarshal(raw, &kids) == nil {
			for _, k := range kids {
				if k != nil && k.Class != "" {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

func checkRowOrdered(e *plan.Expr, name string) error {
	if _, ok := e.Fields[rowOrderedKey]; !ok {
		return unsupported("%s draws from a per-task generator: natively only in a projection or a filter condition, "+
			"under Alias, Cast, unary minus, +, -, *, comparisons, AND, OR or NOT, where the "+
			"native evaluation visits exactly Spark's rows in Spark's order", name)
	}
	return nil
}

// literalSeed reads a seed literal of type int or long (a null one is 0, as Spark's
// e.eval().asInstanceOf[Long] makes it).
func literalSeed(x Expr, name string) (int64, error) {
	l, ok := x.(*Literal)
	if !ok {
		return 0, unsupported("%s with a non-literal seed %s", name, x)
	}
	switch x.Type().Kind {
	case sparktype.Int:
		if l.IsNull() {
			return 0, nil
		}
		return int64(values[int32](l.constArray())[0]), nil
	case sparktype.Long:
		if l.IsNull() {
			return 0, nil
		}
		return values[int64](l.constArray())[0], nil
	}
	return 0, unsupported("%s with a seed of type %s (Spark takes int or long)", name, x.Type())
}

// optionSeed reads an Option[Long] randomSeed field (uuid, shuffle); None is a seed the analyzer
// has not assigned yet.
func optionSeed(e *plan.Expr, name string) (int64, error) {
	if isNullField(e, "randomSeed") {
		return 0, unsupported("%s without a resolved random seed", name)
	}
	return e.Int("randomSeed")
}

// activeRows calls f for each row of 0..n-1 that active names (nil: every row), in order.
func forActive(active []byte, n int, f func(i int)) {
	if active == nil {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(active, i) {
			f(i)
		}
	}
}

// ---- rand, randn ----

type randExpr struct {
	gauss bool
	seed  int64
	rng   *sparkrand.XORShift // created on the first batch, from the task's partition index
	// java.util.Random.nextGaussian's second deviate, kept for the next call.
	haveNext bool
	next     float64
}

func translateRand(gauss bool) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := "rand"
		if gauss {
			name = "randn"
		}
		if err := checkRowOrdered(e, name); err != nil {
			return nil, err
		}
		c, err := translateChild(e, "child", conf)
		if err != nil {
			return nil, err
		}
		seed, err := literalSeed(c, name)
		if err != nil {
			return nil, err
		}
		return &randExpr{gauss: gauss, seed: seed}, nil
	}
}

func (e *randExpr) Type() sparktype.Type { return sparktype.DoubleType }
func (e *randExpr) mayFail() bool        { return true } // evaluation set must be Spark's: see the file comment
func (e *randExpr) String() string {
	if e.gauss {
		return fmt.Sprintf("randn(%d)", e.seed)
	}
	return fmt.Sprintf("rand(%d)", e.seed)
}

func (e *randExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *randExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	if e.rng == nil {
		e.rng = sparkrand.NewXORShift(e.seed + int64(ctx.PartitionIndex))
	}
	n := b.NumRows
	buf, out := newFixed[float64](ctx.Alloc, n)
	clear(out)
	if e.gauss {
		forActive(active, n, func(i int) { out[i] = e.nextGaussian() })
	} else if active == nil {
		for i := range out {
			out[i] = e.rng.NextDouble()
		}
	} else {
		forActive(active, n, func(i int) { out[i] = e.rng.NextDouble() })
	}
	return finish(arrow.PrimitiveTypes.Float64, n, nil, buf, 0), nil
}

// nextGaussian is java.util.Random.nextGaussian (the legacy polar method Random keeps in Java
// 17+), with StrictMath.log (strictLog, fdlibm) and StrictMath.sqrt (math.Sqrt: both are the
// correctly rounded square root). The explicit float64 conversions forbid fused multiply-adds,
// which Java does not do.
func (e *randExpr) nextGaussian() float64 {
	if e.haveNext {
		e.haveNext = false
		return e.next
	}
	var v1, v2, s float64
	for {
		v1 = float64(2*e.rng.NextDouble()) - 1
		v2 = float64(2*e.rng.NextDouble()) - 1
		s = float64(v1*v1) + float64(v2*v2)
		if s < 1 && s != 0 {
			break
		}
	}
	m := math.Sqrt(float64(-2*strictLog(s)) / s)
	e.next, e.haveNext = v2*m, true
	return v1 * m
}

// ---- randstr ----

// randStrMaxLength bounds the literal length taken natively: a batch of longer strings could
// pass Arrow's 2 GiB of string bytes; Spark builds them, so they are left to it.
const randStrMaxLength = 4096

type randStrExpr struct {
	length int
	seed   int64
	rng    *sparkrand.XORShift
}

func translateRandStr(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if err := checkRowOrdered(e, "randstr"); err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("randstr returning %s (UTF8_BINARY strings only)", t)
	}
	lc, err := translateChild(e, "length", conf)
	if err != nil {
		return nil, err
	}
	l, ok := lc.(*Literal)
	if !ok || l.IsNull() {
		return nil, unsupported("randstr with a non-literal or null length %s", lc)
	}
	var length int
	switch lc.Type().Kind {
	case sparktype.Short:
		length = int(values[int16](l.constArray())[0])
	case sparktype.Int:
		length = int(values[int32](l.constArray())[0])
	default:
		return nil, unsupported("randstr with a length of type %s", lc.Type())
	}
	if length < 0 {
		return nil, unsupported("randstr with a negative length raises in Spark, which stays in Spark")
	}
	if length > randStrMaxLength {
		return nil, unsupported("randstr longer than %d characters is left to Spark (a batch could pass Arrow's 2 GiB of string bytes)", randStrMaxLength)
	}
	sc, err := translateChild(e, "seedExpression", conf)
	if err != nil {
		return nil, err
	}
	// RandStr's seed is matched as int or long only (a smallint seed fails in Spark).
	seed, err := literalSeed(sc, "randstr")
	if err != nil {
		return nil, err
	}
	return &randStrExpr{length: length, seed: seed}, nil
}

func (e *randStrExpr) Type() sparktype.Type { return sparktype.StringType }
func (e *randStrExpr) mayFail() bool        { return true } // see the file comment
func (e *randStrExpr) String() string       { return fmt.Sprintf("randstr(%d, %d)", e.length, e.seed) }

func (e *randStrExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *randStrExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	if e.rng == nil {
		e.rng = sparkrand.NewXORShift(e.seed + int64(ctx.PartitionIndex))
	}
	n := b.NumRows
	if int64(n)*int64(e.length) > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d rows of %d characters pass Arrow's string offsets", e, n, e.length)
	}
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(n * e.length)
	data := dataBuf.Bytes()
	pos := 0
	for i := 0; i < n; i++ {
		offs[i] = int32(pos)
		if active != nil && !bitutil.BitIsSet(active, i) {
			continue // an empty string Spark never asked for: its parent discards it
		}
		for k := 0; k < e.length; k++ {
			// ExpressionImplUtils.randStr: Math.abs(nextInt() % 62) picks a digit, a lower-case
			// or an upper-case letter; Go's % truncates like Java's.
			v := e.rng.NextInt() % 62
			if v < 0 {
				v = -v
			}
			switch {
			case v < 10:
				data[pos] = byte('0' + v)
			case v < 36:
				data[pos] = byte('a' + v - 10)
			default:
				data[pos] = byte('A' + v - 36)
			}
			pos++
		}
	}
	offs[n] = int32(pos)
	return finishBytes(arrow.BinaryTypes.String, n, nil, 0, offBuf, dataBuf), nil
}

// ---- uuid ----

type uuidExpr struct {
	seed int64
	mt   *sparkrand.MersenneTwister
}

func translateUuid(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if err := checkRowOrdered(e, "uuid"); err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("uuid returning %s (UTF8_BINARY strings only)", t)
	}
	seed, err := optionSeed(e, "uuid")
	if err != nil {
		return nil, err
	}
	return &uuidExpr{seed: seed}, nil
}

func (e *uuidExpr) Type() sparktype.Type { return sparktype.StringType }
func (e *uuidExpr) mayFail() bool        { return true } // see the file comment
func (e *uuidExpr) String() string       { return fmt.Sprintf("uuid(%d)", e.seed) }

func (e *uuidExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *uuidExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	if e.mt == nil {
		e.mt = sparkrand.NewMersenneTwister(e.seed + int64(ctx.PartitionIndex))
	}
	n := b.NumRows
	const width = 36
	if int64(n)*width > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d rows pass Arrow's string offsets", e, n)
	}
	offBuf, offs := newFixed[int32](ctx.Alloc, n+1)
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(n * width)
	data := dataBuf.Bytes()
	pos := 0
	for i := 0; i < n; i++ {
		offs[i] = int32(pos)
		if active != nil && !bitutil.BitIsSet(active, i) {
			continue
		}
		sparkrand.AppendUUID(data[pos:pos], e.mt)
		pos += width
	}
	offs[n] = int32(pos)
	return finishBytes(arrow.BinaryTypes.String, n, nil, 0, offBuf, dataBuf), nil
}

// ---- shuffle ----

type shuffleExpr struct {
	arr  Expr
	seed int64
	typ  sparktype.Type
	mt   *sparkrand.MersenneTwister
	idx  []int32 // reused per row
}

func translateShuffle(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if err := checkRowOrdered(e, "shuffle"); err != nil {
		return nil, err
	}
	c, err := e.Child("child")
	if err != nil {
		return nil, err
	}
	if !c.Deterministic {
		return nil, unsupported("shuffle of a non-deterministic array")
	}
	arr, err := Translate(c, conf)
	if err != nil {
		return nil, err
	}
	if arr.Type().Kind != sparktype.Array {
		return nil, unsupported("shuffle of %s", arr.Type())
	}
	seed, err := optionSeed(e, "shuffle")
	if err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	return &shuffleExpr{arr: arr, seed: seed, typ: t}, nil
}

func (e *shuffleExpr) Type() sparktype.Type { return e.typ }
func (e *shuffleExpr) mayFail() bool        { return true } // see the file comment
func (e *shuffleExpr) String() string       { return fmt.Sprintf("shuffle(%s, %d)", e.arr, e.seed) }

func (e *shuffleExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *shuffleExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	if e.mt == nil {
		e.mt = sparkrand.NewMersenneTwister(e.seed + int64(ctx.PartitionIndex))
	}
	n := b.NumRows
	a, err := evalActive(ctx, b, e.arr, active)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, ok := a.(listArray)
	if !ok || a.Len() != n {
		return nil, fmt.Errorf("%s: array argument is %s of %d rows for %d", e, a.DataType(), a.Len(), n)
	}
	offs := listOffsets(l)
	rowBM, rowOff := validity(l)
	out := newArrListOut(n, int(offs[n]-offs[0]))
	for i := 0; i < n; i++ {
		// Spark's Shuffle is null-safe: a null array, or a row Spark does not evaluate, draws
		// nothing.
		if !arrRowValid(rowBM, rowOff, i) || (active != nil && !bitutil.BitIsSet(active, i)) {
			out.nullRow()
			continue
		}
		k := int(offs[i+1] - offs[i])
		if cap(e.idx) < k {
			e.idx = make([]int32, k)
		}
		idx := e.idx[:k]
		sparkrand.Indices(e.mt, idx)
		for _, j := range idx {
			out.add(0, offs[i]+j)
		}
		if err := out.row(i, true); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return out.finish(ctx.Alloc, e.typ.Arrow(), []arrow.Array{l.ListValues()})
}

// ---- monotonically_increasing_id ----

type monotonicID struct {
	count int64 // rows evaluated so far in the task
}

func translateMonotonicID(e *plan.Expr, _ *plan.Conf) (Expr, error) {
	if err := checkRowOrdered(e, "monotonically_increasing_id"); err != nil {
		return nil, err
	}
	return &monotonicID{}, nil
}

func (e *monotonicID) Type() sparktype.Type { return sparktype.LongType }
func (e *monotonicID) mayFail() bool        { return true } // see the file comment
func (e *monotonicID) String() string       { return "monotonically_increasing_id()" }

func (e *monotonicID) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *monotonicID) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	mask := int64(ctx.PartitionIndex) << 33
	buf, out := newFixed[int64](ctx.Alloc, n)
	clear(out)
	c := e.count
	if active == nil {
		for i := range out {
			out[i] = mask + c
			c++
		}
	} else {
		forActive(active, n, func(i int) { out[i] = mask + c; c++ })
	}
	e.count = c
	return finish(arrow.PrimitiveTypes.Int64, n, nil, buf, 0), nil
}

// ---- spark_partition_id ----

// sparkPartitionID is stateless within a task: every evaluation gives the partition index, so
// it needs no placement check.
type sparkPartitionID struct{}

func translateSparkPartitionID(*plan.Expr, *plan.Conf) (Expr, error) { return sparkPartitionID{}, nil }

func (sparkPartitionID) Type() sparktype.Type { return sparktype.IntType }
func (sparkPartitionID) String() string       { return "spark_partition_id()" }

func (sparkPartitionID) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return fill(ctx.Alloc, arrow.PrimitiveTypes.Int32, int32(ctx.PartitionIndex), b.NumRows), nil
}
