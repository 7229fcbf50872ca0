package expr

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkrand"
)

// Expected values are Spark 4.1.3's, printed on the JVM (XORShiftRandom.nextGaussian,
// ExpressionImplUtils.randStr, the functions' documented examples), not computed by this package.

var gaussVectors = []struct {
	seed int64
	want [5]uint64
}{
	{0, [5]uint64{0x3ff9a7eebc759392, 0x3fc273d63f1acf95, 0xbfe402eb87901ade, 0xbfd22aaa92d82033, 0x3fedddffc58abf9c}},
	{42, [5]uint64{0x40031369c11fb3d8, 0x3fc896844441a60d, 0x3fe77abeffa0ad8d, 0xbfe0b7e4e8bd739f, 0x40007b0d6a096aab}},
	{-1, [5]uint64{0xbff2d10d19544035, 0xbff1161f7a490d80, 0xbfca67629549aa54, 0x3fce4a039bb8865a, 0xc004a034bf5b928b}},
	{math.MinInt64, [5]uint64{0xbff37c27847a3a36, 0x3fd7a676e48f0be5, 0xbfd418f2e1372083, 0xbfb84dcb32545082, 0x3fb69dc1145cd182}},
	{math.MaxInt64, [5]uint64{0xbf9869fb27c1d5a3, 0x3fd49c11c9593eca, 0x4001a0ae5b49c220, 0xbfd39837db4d1738, 0x3fdabe626a1787ca}},
	{45, [5]uint64{0x3fe7ae676970027a, 0xbfe48ab7d7842ae3, 0x3ffc97f2b970586c, 0xbfdac136002c1aea, 0xbffb7dbcb8d80fbd}},
	{1234567890123, [5]uint64{0x3ff8f2c1d37a14ac, 0xbfddc8851a81510b, 0xbfbe792c4646b83e, 0x3fe3532425b9f24b, 0x3ff23e76e98685d6}},
}

func TestNextGaussianMatchesJava(t *testing.T) {
	for _, v := range gaussVectors {
		e := &randExpr{gauss: true, rng: sparkrand.NewXORShift(v.seed)}
		for i, want := range v.want {
			if got := math.Float64bits(e.nextGaussian()); got != want {
				t.Errorf("seed %d nextGaussian #%d = %#x, Java %#x", v.seed, i, got, want)
			}
		}
	}
}

func randJSON(class string, seed int64) string {
	return node(class, "double", "child", lit("long", fmt.Sprint(seed)), "hideSeed", "false")
}

// marked translates js as a projection would: stateful expressions reached through the allowed
// parents are marked first.
func marked(t *testing.T, js string) (Expr, error) {
	t.Helper()
	e := parse(t, js)
	MarkRowOrdered(e)
	return Translate(e, &plan.Conf{})
}

func mustMarked(t *testing.T, js string) Expr {
	t.Helper()
	e, err := marked(t, js)
	if err != nil {
		t.Fatalf("translate %s: %v", js, err)
	}
	return e
}

// evalRows evaluates e over a batch of n rows (no columns) in ctx.
func evalRows(t *testing.T, e Expr, ctx *exec.TaskContext, n int) arrow.Array {
	t.Helper()
	out, err := e.Eval(ctx, columnar.NewBatch(nil, n))
	if err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	if out.Len() != n {
		t.Fatalf("%s: %d rows for %d", e, out.Len(), n)
	}
	return out
}

func TestRandPerPartitionAcrossBatches(t *testing.T) {
	// rand(42) in partition 3 is XORShiftRandom(45): its first doubles, printed by Spark.
	want := []uint64{0x3fe982170ea96f1f, 0x3fcf0260adebf664, 0x3fe6b6294a1abaeb, 0x3fdcdc2a72ea6bd0}
	e := mustMarked(t, randJSON("Rand", 42))
	ctx := newCtx()
	ctx.PartitionIndex = 3
	var got []uint64
	for _, n := range []int{1, 3} { // the state carries over from one batch to the next
		a := evalRows(t, e, ctx, n)
		for _, v := range a.(*array.Float64).Float64Values() {
			got = append(got, math.Float64bits(v))
		}
		a.Release()
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rand(42) row %d in partition 3 = %#x, Spark %#x", i, got[i], want[i])
		}
	}
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
}

func TestRandDocExamples(t *testing.T) {
	// Partition 0: rand(0), randn(0) (Spark's documented examples) and randstr(3, 0), randstr(5, 0)
	// (ExpressionImplUtils.randStr over one XORShiftRandom(0), printed by Spark 4.1.3).
	for _, c := range []struct {
		js   string
		want string
	}{
		{randJSON("Rand", 0), "0.7604953758285915"},
		{randJSON("Randn", 0), "1.6034991609278433"},
	} {
		e := mustMarked(t, c.js)
		a := evalRows(t, e, newCtx(), 1)
		if got := show(a, 0); got != c.want {
			t.Errorf("%s = %s, Spark %s", e, got, c.want)
		}
		a.Release()
	}
	// randstr: the draws of a row follow those of the previous one, across batches.
	e := mustMarked(t, node("RandStr", "string", "length", litInt(3), "seedExpression", litInt(0)))
	ctx := newCtx()
	a := evalRows(t, e, ctx, 1)
	if got := show(a, 0); got != "ceV" {
		t.Errorf("randstr(3, 0) row 0 = %s, Spark ceV", got)
	}
	a.Release()
	a = evalRows(t, e, ctx, 1)
	if got := show(a, 0); got != "0PX" {
		t.Errorf("randstr(3, 0) row 1 = %s, Spark 0PX (the first three of randStr(5) after randStr(3))", got)
	}
	a.Release()
}

func TestRandNullAndIntSeeds(t *testing.T) {
	// rand(null) is rand(0) (Spark's example); an int seed widens to the same long.
	ref := evalRows(t, mustMarked(t, randJSON("Rand", 0)), newCtx(), 4)
	defer ref.Release()
	for _, js := range []string{
		node("Rand", "double", "child", lit("long", "null"), "hideSeed", "false"),
		node("Rand", "double", "child", litInt(0), "hideSeed", "false"),
	} {
		a := evalRows(t, mustMarked(t, js), newCtx(), 4)
		if !array.Equal(a, ref) {
			t.Errorf("%s: %v, rand(0) %v", js, a, ref)
		}
		a.Release()
	}
}

func TestStatefulRefusedWhereUnchecked(t *testing.T) {
	isUnsupported := func(err error) bool { var u *Unsupported; return errors.As(err, &u) }
	for _, js := range []string{
		randJSON("Rand", 1),
		node("Uuid", "string", "randomSeed", "7"),
		node("MonotonicallyIncreasingID", "long"),
	} {
		if _, err := Translate(parse(t, js), &plan.Conf{}); !isUnsupported(err) {
			t.Errorf("%s translated without a placement check: %v", js, err)
		}
	}
	// Under a branch of IF Spark evaluates it on some rows only: not marked, refused.
	ifJS := node("If", "double", "predicate", col(0, "boolean"), "trueValue", randJSON("Rand", 1), "falseValue", litDouble(0))
	if _, err := marked(t, ifJS); !isUnsupported(err) {
		t.Errorf("rand under IF translated: %v", err)
	}
	// Division is not among the allowed parents either.
	div := arithJSON("Divide", "double", "LEGACY", litDouble(1), randJSON("Rand", 1))
	if _, err := marked(t, div); !isUnsupported(err) {
		t.Errorf("rand under / translated: %v", err)
	}
	// A uuid the analyzer has not seeded yet.
	if _, err := marked(t, node("Uuid", "string", "randomSeed", "null")); !isUnsupported(err) {
		t.Errorf("uuid without a seed translated: %v", err)
	}
	// randstr lengths Spark fails on, or that are left to it.
	for _, l := range []string{litInt(-1), lit("integer", "null"), litInt(randStrMaxLength + 1)} {
		js := node("RandStr", "string", "length", l, "seedExpression", litInt(0))
		if _, err := marked(t, js); !isUnsupported(err) {
			t.Errorf("%s translated: %v", js, err)
		}
	}
}

func TestRandMaskedDrawsOnActiveRowsOnly(t *testing.T) {
	// x + rand(0): Spark skips rand where x is null, so the draws go to the other rows in order.
	js := arithJSON("Add", "double", "LEGACY", col(0, "double"), randJSON("Rand", 0))
	e := mustMarked(t, js)
	ctx := newCtx()
	x := column(t, "double", 0.0, nil, 0.0, 0.0)
	b := batch(x)
	out, err := e.Eval(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	r := sparkrand.NewXORShift(0)
	want := []string{fmt.Sprint(r.NextDouble()), "null", fmt.Sprint(r.NextDouble()), fmt.Sprint(r.NextDouble())}
	for i, w := range want {
		if got := show(out, i); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
	out.Release()
	b.Release()
}

func TestUuidPerPartition(t *testing.T) {
	// uuid with seed 42 in partition 3 is RandomUUIDGenerator(45), printed by Spark.
	e := mustMarked(t, node("Uuid", "string", "randomSeed", "42"))
	ctx := newCtx()
	ctx.PartitionIndex = 3
	var got []string
	for range 2 {
		a := evalRows(t, e, ctx, 1)
		got = append(got, show(a, 0))
		a.Release()
	}
	want := []string{"4a41d402-15d8-41d0-8acd-4a8d59620edc", "44788e2a-9c76-4e1b-8765-4313cdb96af6"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("uuid #%d = %s, Spark %s", i, got[i], want[i])
		}
	}
}

func TestShuffleNullArraysDrawNothing(t *testing.T) {
	// seed 0, partition 0: RandomIndicesGenerator(0) gives [3 0 1 5 4 2] then [2 1 0] (Spark);
	// the null array between them draws nothing.
	arr := listColumn(t, arrStrJSON, []any{"a", "b", "c", "d", "e", "f"}, nil, []any{"x", nil, "z"})
	child := strings.Replace(nestedCol(0, arrStrJSON), `"nullable":true`, `"nullable":true,"deterministic":true`, 1)
	js := arrNodeT("Shuffle", arrStrJSON, "child", child, "randomSeed", "0")
	e := mustMarked(t, js)
	ctx := newCtx()
	b := batch(arr)
	out, err := e.Eval(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[d, a, b, f, e, c]", "null", "[z, null, x]"}
	l := out.(*array.List)
	for i, w := range want {
		got := "null"
		if l.IsValid(i) {
			from, to := l.ValueOffsets(i)
			var parts []string
			for k := from; k < to; k++ {
				parts = append(parts, show(l.ListValues(), int(k)))
			}
			got = "[" + strings.Join(parts, ", ") + "]"
		}
		if got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
	out.Release()
	b.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
}

func TestMonotonicAndPartitionID(t *testing.T) {
	ctx := newCtx()
	ctx.PartitionIndex = 2
	e := mustMarked(t, node("MonotonicallyIncreasingID", "long"))
	var got []string
	for _, n := range []int{2, 1} {
		a := evalRows(t, e, ctx, n)
		got = append(got, showAll(a)...)
		a.Release()
	}
	base := int64(2) << 33
	want := []string{fmt.Sprint(base), fmt.Sprint(base + 1), fmt.Sprint(base + 2)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("monotonically_increasing_id row %d = %s, want %s", i, got[i], want[i])
		}
	}
	p := mustTranslate(t, node("SparkPartitionID", "integer"))
	a := evalRows(t, p, ctx, 3)
	if s := showAll(a); s[0] != "2" || s[2] != "2" {
		t.Errorf("spark_partition_id = %v, want 2s", s)
	}
	a.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
}
