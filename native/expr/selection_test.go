package expr

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
)

// selectionColumns is a batch with nulls and no-null columns of every type narrowing has a loop
// for, plus types it evaluates as columns (double, string); decimal(38,0) values use the high word.
func selectionColumns(t *testing.T, n int, seed int64) *columnar.Batch {
	r := rand.New(rand.NewSource(seed))
	maybe := func(v any, nullPct int) any {
		if r.Intn(100) < nullPct {
			return nil
		}
		return v
	}
	var c0, c1, c2, c3, c4, c5, c6, c7, c8 []any
	for i := 0; i < n; i++ {
		c0 = append(c0, maybe(r.Intn(21)-10, 20))
		c1 = append(c1, int64(r.Intn(2001)-1000))
		c2 = append(c2, maybe(fmt.Sprint(r.Intn(201)-100), 15))
		c3 = append(c3, fmt.Sprint(r.Intn(11)))
		c4 = append(c4, maybe(9000+r.Intn(400), 10))
		c5 = append(c5, maybe(float64(r.Intn(9)-4)/2, 10))
		c6 = append(c6, maybe(string(rune('a'+r.Intn(5))), 10))
		big := fmt.Sprint(r.Intn(5) - 2)
		if r.Intn(2) == 0 {
			big += "0000000000000000000000" // beyond 64 bits
		}
		c7 = append(c7, maybe(big, 10))
		c8 = append(c8, maybe(r.Intn(3) == 0, 30))
	}
	return batch(column(t, "integer", c0...), column(t, "long", c1...), column(t, "decimal(15,2)", c2...),
		column(t, "decimal(15,2)", c3...), column(t, "date", c4...), column(t, "double", c5...),
		column(t, "string", c6...), column(t, "decimal(38,0)", c7...), column(t, "boolean", c8...))
}

func selectionLeaves() []string {
	var out []string
	ops := []string{"EqualTo", "LessThan", "LessThanOrEqual", "GreaterThan", "GreaterThanOrEqual", "EqualNullSafe"}
	for _, op := range ops {
		out = append(out,
			cmpJSON(op, col(0, "integer"), litInt(3)),
			cmpJSON(op, litInt(-2), col(0, "integer")),
			cmpJSON(op, col(1, "long"), lit("long", "100")),
			cmpJSON(op, col(2, "decimal(15,2)"), litDec("5", 15, 2)),
			cmpJSON(op, col(2, "decimal(15,2)"), col(3, "decimal(15,2)")),
			cmpJSON(op, col(3, "decimal(15,2)"), litDec("7", 3, 1)), // different scales: evaluated as a column
			cmpJSON(op, col(4, "date"), lit("date", "9200")),
			cmpJSON(op, col(5, "double"), litDouble(0.5)),
			cmpJSON(op, col(6, "string"), litStr("c")),
			cmpJSON(op, col(7, "decimal(38,0)"), litDec("-10000000000000000000000", 38, 0)),
			cmpJSON(op, col(7, "decimal(38,0)"), litDec("1", 38, 0)),
		)
	}
	out = append(out,
		cmpJSON("EqualTo", col(0, "integer"), lit("integer", "null")),
		node("IsNotNull", "boolean", "child", col(0, "integer")),
		node("IsNull", "boolean", "child", col(2, "decimal(15,2)")),
		node("IsNotNull", "boolean", "child", col(1, "long")),
		node("IsNull", "boolean", "child", col(1, "long")),
		node("IsNull", "boolean", "child", lit("void", "null")),
		node("IsNotNull", "boolean", "child", lit("void", "null")),
		col(8, "boolean"),
		lit("boolean", "true"),
		lit("boolean", "null"),
	)
	return out
}

func and(l, r string) string { return node("And", "boolean", "left", l, "right", r) }
func or(l, r string) string  { return node("Or", "boolean", "left", l, "right", r) }

// selectByColumn is the reference: the predicate evaluated as a column, its true rows.
func selectByColumn(t *testing.T, e Expr, b *columnar.Batch) ([]int32, error) {
	ctx := newCtx()
	p, err := e.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return columnar.SelectTrue(p.(*array.Boolean), nil), nil
}

func checkSelect(t *testing.T, js string, b *columnar.Batch) {
	t.Helper()
	e := mustTranslate(t, js)
	want, werr := selectByColumn(t, e, b)
	ctx := newCtx()
	got, gerr := Select(ctx, b, e, nil)
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%s: %d bytes leaked", e, ctx.Alloc.Used())
	}
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: column evaluation error %v, selection error %v", e, werr, gerr)
	}
	if werr != nil {
		if werr.Error() != gerr.Error() {
			t.Errorf("%s: errors differ:\n column    %v\n selection %v", e, werr, gerr)
		}
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: selection\n got  %v\n want %v", e, got, want)
	}
}

// TestSelectMatchesColumnEvaluation: narrowing a selection gives exactly the true rows of the
// predicate evaluated as a column, for leaves, conjunctions (every pair, in both orders), nested
// conjunctions and disjunctions, with and without nulls.
func TestSelectMatchesColumnEvaluation(t *testing.T) {
	leaves := selectionLeaves()
	for _, seed := range []int64{1, 2} {
		b := selectionColumns(t, 300, seed)
		for _, l := range leaves {
			checkSelect(t, l, b)
		}
		r := rand.New(rand.NewSource(seed))
		for i := 0; i < 400; i++ {
			x, y, z := leaves[r.Intn(len(leaves))], leaves[r.Intn(len(leaves))], leaves[r.Intn(len(leaves))]
			checkSelect(t, and(x, y), b)
			checkSelect(t, and(and(x, y), z), b)
			checkSelect(t, and(x, or(y, z)), b)
			checkSelect(t, and(node("Not", "boolean", "child", x), y), b)
			checkSelect(t, or(x, y), b)
			checkSelect(t, or(and(x, y), or(z, x)), b)
		}
	}
	// An empty batch and a batch without columns.
	checkSelect(t, and(leaves[0], leaves[3]), batch(column(t, "integer"), column(t, "long"), column(t, "decimal(15,2)"), column(t, "decimal(15,2)")))
	checkSelect(t, lit("boolean", "true"), columnar.NewBatch(nil, 5))
}

// TestSelectKeepsShortCircuitErrors: an And whose right side may fail (ANSI division) raises
// exactly where Spark does: not on rows the left rules out, yes on rows where the left is null.
func TestSelectKeepsShortCircuitErrors(t *testing.T) {
	div := func(l, r string) string { return arithJSON("Divide", "decimal(21,13)", "ANSI", l, r) }
	// Divisors (column 0) are zero on rows 1 and 3; column 2 is 0 on row 1 and null on row 3.
	b := batch(column(t, "decimal(10,2)", "100", "0", "200", "0"), column(t, "decimal(10,2)", "50", "0", "100", "7"),
		column(t, "integer", 1, 0, 2, nil), column(t, "integer", 1, 0, 2, 0))
	quotient := div(col(1, "decimal(10,2)"), col(0, "decimal(10,2)"))
	gt := func(e string) string { return cmpJSON("GreaterThan", e, litDec("0", 21, 13)) }
	// The left side is false on both zero rows: no error.
	noError := and(cmpJSON("GreaterThan", col(3, "integer"), litInt(0)), gt(quotient))
	checkSelect(t, noError, b)
	checkSelect(t, and(node("IsNotNull", "boolean", "child", col(2, "integer")), noError), b)
	// The left side is null on row 3: Spark evaluates the division there and raises.
	nullLeft := and(cmpJSON("GreaterThan", col(2, "integer"), litInt(0)), gt(quotient))
	checkSelect(t, nullLeft, b)
	ctx := newCtx()
	_, err := Select(ctx, b, mustTranslate(t, nullLeft), nil)
	expectSparkError(t, "divide by zero under a null left", err, "DIVIDE_BY_ZERO", nil)
	// Or evaluates its right side where the left is not true: an error there, none where the
	// left is true on the zero-divisor rows.
	checkSelect(t, or(cmpJSON("EqualTo", col(3, "integer"), litInt(0)), gt(quotient)), b)
	orErr := or(cmpJSON("GreaterThan", col(3, "integer"), litInt(0)), gt(quotient))
	checkSelect(t, orErr, b)
	_, err = Select(ctx, b, mustTranslate(t, orErr), nil)
	expectSparkError(t, "divide by zero under a false left of Or", err, "DIVIDE_BY_ZERO", nil)
	// The same under an enclosing conjunction whose left is true everywhere.
	_, err = Select(ctx, b, mustTranslate(t, and(node("IsNotNull", "boolean", "child", col(1, "decimal(10,2)")), nullLeft)), nil)
	expectSparkError(t, "divide by zero, nested", err, "DIVIDE_BY_ZERO", nil)
}
