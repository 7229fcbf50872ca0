package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ---- building conditional nodes ----

func ifJSON(typ, p, a, b string) string {
	return node("If", typ, "predicate", p, "trueValue", a, "falseValue", b)
}

// caseJSON builds CaseWhen from condition/value pairs (as the encoder writes a Seq of Tuple2) and
// an ELSE value ("" for none: Option None is encoded as null).
func caseJSON(typ, elseValue string, condValue ...string) string {
	var brs []string
	for i := 0; i+1 < len(condValue); i += 2 {
		brs = append(brs, fmt.Sprintf(`{"class":"scala.Tuple2","fields":{"_1":%s,"_2":%s}}`, condValue[i], condValue[i+1]))
	}
	if elseValue == "" {
		elseValue = "null"
	}
	return node("CaseWhen", typ, "branches", "["+strings.Join(brs, ",")+"]", "elseValue", elseValue)
}

func coalesceJSON(typ string, children ...string) string {
	return node("Coalesce", typ, "children", "["+strings.Join(children, ",")+"]")
}

func eqJSON(l, r string) string { return node("EqualTo", "boolean", "left", l, "right", r) }
func gtJSON(l, r string) string { return node("GreaterThan", "boolean", "left", l, "right", r) }

func nullLit(typ string) string { return lit(typ, "null") }

// typedCase holds per-type columns for the every-type tests: a and b have five rows each and
// nulls in different places.
type typedCase struct {
	typ  string
	a, b []any
}

func everyType() []typedCase {
	return []typedCase{
		{"boolean", []any{true, nil, false, true, false}, []any{false, true, nil, false, true}},
		{"byte", []any{1, nil, -128, 127, 5}, []any{-1, 2, nil, 0, 6}},
		{"short", []any{100, nil, -32768, 32767, 5}, []any{-100, 2, nil, 0, 6}},
		{"integer", []any{1, nil, math.MinInt32, math.MaxInt32, 5}, []any{-1, 2, nil, 0, 6}},
		{"long", []any{int64(1), nil, int64(math.MinInt64), int64(math.MaxInt64), 5}, []any{-1, 2, nil, 0, 6}},
		{"float", []any{float32(1.5), nil, float32(math.NaN()), float32(math.Inf(-1)), float32(0)}, []any{float32(-2.5), float32(3), nil, float32(math.Copysign(0, -1)), float32(6)}},
		{"double", []any{1.5, nil, math.NaN(), math.Inf(1), 0.0}, []any{-2.5, 3.0, nil, math.Copysign(0, -1), 6.0}},
		{"decimal(10,2)", []any{"12345", nil, "-9999999999", "1", "0"}, []any{"-1", "250", nil, "9999999999", "7"}},
		{"decimal(38,0)", []any{"99999999999999999999999999999999999999", nil, "-1", "0", "5"}, []any{"1", "-99999999999999999999999999999999999999", nil, "3", "6"}},
		{"string", []any{"alpha", nil, "", "ünï", "e"}, []any{"", "beta", nil, "gamma", "x"}},
		{"binary", []any{[]byte{1, 2}, nil, []byte{}, []byte{0xff}, []byte{9}}, []any{[]byte{}, []byte{3}, nil, []byte{4, 5, 6}, []byte{7}}},
		{"date", []any{0, nil, -719162, 2932896, 19000}, []any{1, 2, nil, -1, 6}},
		{"timestamp", []any{0, nil, -62135596800000000, 253402300799999999, 5}, []any{1, 2, nil, -1, 6}},
		{"timestamp_ntz", []any{0, nil, 1700000000123456, -1, 5}, []any{1, 2, nil, 3, 6}},
	}
}

// pick renders the expected rows: row i of the column chosen by which[i] (-1: null).
func pick(cols []arrow.Array, which []int) []string {
	out := make([]string, len(which))
	for i, w := range which {
		if w < 0 {
			out[i] = "null"
		} else {
			out[i] = show(cols[w], i)
		}
	}
	return out
}

func TestIfEveryType(t *testing.T) {
	for _, c := range everyType() {
		p := column(t, "boolean", true, false, nil, true, false)
		a, b := column(t, c.typ, c.a...), column(t, c.typ, c.b...)
		// A null predicate takes the false branch.
		want := pick([]arrow.Array{a, b}, []int{0, 1, 1, 0, 1})
		got, err := run(t, ifJSON(c.typ, col(0, "boolean"), col(1, c.typ), col(2, c.typ)), p, a, b)
		expectRows(t, "if "+c.typ, got, err, want...)
		// A null value in the selected branch gives null; a null branch literal too.
		want = pick([]arrow.Array{a}, []int{0, -1, -1, 0, -1})
		got, err = run(t, ifJSON(c.typ, col(0, "boolean"), col(1, c.typ), nullLit(c.typ)), p, a, b)
		expectRows(t, "if null else "+c.typ, got, err, want...)
	}
}

func TestCaseWhenEveryType(t *testing.T) {
	for _, c := range everyType() {
		p1 := column(t, "boolean", true, nil, false, false, true)
		p2 := column(t, "boolean", true, true, nil, false, false)
		a, b := column(t, c.typ, c.a...), column(t, c.typ, c.b...)
		cols := []arrow.Array{p1, p2, a, b}
		// Row 0: first true wins. Row 1: null condition counts as false. Rows 2, 3: ELSE.
		js := caseJSON(c.typ, col(2, c.typ), col(0, "boolean"), col(3, c.typ), col(1, "boolean"), col(2, c.typ))
		got, err := run(t, js, cols...)
		expectRows(t, "case "+c.typ, got, err, pick([]arrow.Array{a, b}, []int{1, 0, 0, 0, 1})...)
		// Without ELSE: null where no condition holds.
		js = caseJSON(c.typ, "", col(0, "boolean"), col(3, c.typ), col(1, "boolean"), col(2, c.typ))
		got, err = run(t, js, cols...)
		expectRows(t, "case no else "+c.typ, got, err, pick([]arrow.Array{a, b}, []int{1, 0, -1, -1, 1})...)
	}
}

func TestCoalesceEveryType(t *testing.T) {
	for _, c := range everyType() {
		a, b := column(t, c.typ, c.a...), column(t, c.typ, c.b...)
		got, err := run(t, coalesceJSON(c.typ, col(0, c.typ), col(1, c.typ)), a, b)
		// Row 1: a null -> b; row 2: a non-null.
		expectRows(t, "coalesce "+c.typ, got, err, pick([]arrow.Array{a, b}, []int{0, 1, 0, 0, 0})...)
		got, err = run(t, coalesceJSON(c.typ, nullLit(c.typ), col(1, c.typ), col(0, c.typ)), a, b)
		expectRows(t, "coalesce null first "+c.typ, got, err, pick([]arrow.Array{a, b}, []int{1, 1, 0, 1, 1})...)
		// All null: null.
		n := column(t, c.typ, nil, nil, nil, nil, nil)
		got, err = run(t, coalesceJSON(c.typ, col(0, c.typ), nullLit(c.typ), col(0, c.typ)), n)
		expectRows(t, "coalesce all null "+c.typ, got, err, "null", "null", "null", "null", "null")
	}
}

func TestConditionalLiterals(t *testing.T) {
	c := column(t, "integer", 7, 3, nil, -1, 10)
	// CASE WHEN c > 5 THEN 'big' WHEN c > 0 THEN 'small' END (no ELSE).
	js := caseJSON("string", "", gtJSON(col(0, "integer"), litInt(5)), litStr("big"),
		gtJSON(col(0, "integer"), litInt(0)), litStr("small"))
	got, err := run(t, js, c)
	expectRows(t, "case literals", got, err, "big", "small", "null", "null", "big")
	// IF(c > 5, 1.5, c) with a decimal literal against a decimal column.
	d := column(t, "decimal(5,1)", "70", "30", nil, "-10", "100")
	js = ifJSON("decimal(5,1)", gtJSON(col(0, "decimal(5,1)"), litDec("50", 5, 1)), litDec("15", 5, 1), col(0, "decimal(5,1)"))
	got, err = run(t, js, d)
	expectRows(t, "if decimal literal", got, err, "1.5", "3.0", "null", "-1.0", "1.5")
	// A constant predicate selects one branch for every row: the column comes back as is.
	got, err = run(t, ifJSON("integer", lit("boolean", "true"), col(0, "integer"), litInt(0)), c)
	expectRows(t, "if true", got, err, "7", "3", "null", "-1", "10")
	got, err = run(t, ifJSON("integer", nullLit("boolean"), col(0, "integer"), litInt(0)), c)
	expectRows(t, "if null predicate", got, err, "0", "0", "0", "0", "0")
	got, err = run(t, ifJSON("string", lit("boolean", "false"), litStr("x"), litStr("yz")), c)
	expectRows(t, "if false literal", got, err, "yz", "yz", "yz", "yz", "yz")
	// A CaseWhen whose branches were all removed (only the ELSE is left).
	got, err = run(t, caseJSON("integer", litInt(4)), c)
	expectRows(t, "case only else", got, err, "4", "4", "4", "4", "4")
	got, err = run(t, caseJSON("integer", ""), c)
	expectRows(t, "case nothing", got, err, "null", "null", "null", "null", "null")
	// A void-typed null literal as a value (null either way).
	got, err = run(t, ifJSON("integer", gtJSON(col(0, "integer"), litInt(5)), col(0, "integer"), nullLit("void")), c)
	expectRows(t, "if void else", got, err, "7", "null", "null", "null", "10")
	// Coalesce whose first argument has no nulls returns it whole.
	got, err = run(t, coalesceJSON("integer", litInt(1), col(0, "integer")), c)
	expectRows(t, "coalesce literal first", got, err, "1", "1", "1", "1", "1")
	got, err = run(t, coalesceJSON("integer", col(0, "integer"), litInt(-5)), c)
	expectRows(t, "coalesce default", got, err, "7", "3", "-5", "-1", "10")
	// Empty batch.
	got, err = run(t, ifJSON("integer", gtJSON(col(0, "integer"), litInt(5)), col(0, "integer"), litInt(0)), column(t, "integer"))
	expectRows(t, "empty", got, err)
}

func TestNestedCase(t *testing.T) {
	x := column(t, "integer", 1, 2, 3, nil, 5, 6)
	y := column(t, "string", "a", nil, "c", "d", "e", "f")
	// CASE WHEN x > 2 THEN CASE WHEN x = 5 THEN 'five' ELSE coalesce(y, '?') END
	//      ELSE IF(x = 1, 'one', y) END
	inner := caseJSON("string", coalesceJSON("string", col(1, "string"), litStr("?")),
		eqJSON(col(0, "integer"), litInt(5)), litStr("five"))
	js := caseJSON("string", ifJSON("string", eqJSON(col(0, "integer"), litInt(1)), litStr("one"), col(1, "string")),
		gtJSON(col(0, "integer"), litInt(2)), inner)
	got, err := run(t, js, x, y)
	expectRows(t, "nested", got, err, "one", "null", "c", "d", "five", "f")
}

func TestConditionalOffsets(t *testing.T) {
	// Inputs that are slices (non-zero offsets) of longer arrays.
	slice := func(a arrow.Array) arrow.Array {
		s := array.NewSlice(a, 3, int64(a.Len()))
		t.Cleanup(s.Release)
		return s
	}
	p := slice(column(t, "boolean", false, false, false, true, nil, false, true, true, false, true))
	s := slice(column(t, "string", "x", "x", "x", "s3", "s4", nil, "s6", "s7", "s8", "s9"))
	b := slice(column(t, "boolean", true, true, true, false, true, nil, true, false, true, false))
	i := slice(column(t, "long", 9, 9, 9, 3, nil, 5, 6, 7, 8, 9))
	got, err := run(t, ifJSON("string", col(0, "boolean"), col(1, "string"), litStr("-")), p, s, b, i)
	expectRows(t, "string", got, err, "s3", "-", "-", "s6", "s7", "-", "s9")
	got, err = run(t, ifJSON("boolean", col(0, "boolean"), col(2, "boolean"), lit("boolean", "true")), p, s, b, i)
	expectRows(t, "boolean", got, err, "false", "true", "true", "true", "false", "true", "false")
	got, err = run(t, coalesceJSON("long", col(3, "long"), litInt64(-1)), p, s, b, i)
	expectRows(t, "long", got, err, "3", "-1", "5", "6", "7", "8", "9")
	got, err = run(t, caseJSON("long", col(3, "long"), node("Not", "boolean", "child", col(0, "boolean")), litInt64(0)), p, s, b, i)
	expectRows(t, "case long", got, err, "3", "null", "0", "6", "7", "0", "9")
}

func litInt64(v int64) string { return lit("long", fmt.Sprint(v)) }

func TestNaNvl(t *testing.T) {
	nan := math.NaN()
	l := column(t, "double", nan, 1.0, nil, nan, math.Inf(1))
	r := column(t, "double", 5.0, 6.0, 7.0, nil, 8.0)
	got, err := run(t, node("NaNvl", "double", "left", col(0, "double"), "right", col(1, "double")), l, r)
	expectRows(t, "nanvl", got, err, "5", "1", "null", "null", "+Inf")
	fl := column(t, "float", float32(nan), float32(2))
	got, err = run(t, node("NaNvl", "float", "left", col(0, "float"), "right", lit("float", fmt.Sprintf(`{"bits":%d}`, math.Float32bits(-1)))), fl)
	expectRows(t, "nanvl float", got, err, "-1", "2")
	// The right side only runs on NaN rows: 10 / 0 on a non-NaN row raises nothing in ANSI.
	div := arithJSON("Divide", "double", "ANSI", litDouble(10), col(1, "double"))
	l2 := column(t, "double", 1.0, nan, nil)
	r2 := column(t, "double", 0.0, 4.0, 0.0)
	got, err = run(t, node("NaNvl", "double", "left", col(0, "double"), "right", div), l2, r2)
	expectRows(t, "nanvl guarded", got, err, "1", "2.5", "null")
	_, err = run(t, node("NaNvl", "double", "left", col(0, "double"), "right", div), column(t, "double", nan), column(t, "double", 0.0))
	expectSparkError(t, "nanvl raises", err, "DIVIDE_BY_ZERO", nil)
}

// Spark evaluates a branch only for the rows that select it: an ANSI error in an unselected
// branch (or an unreached condition) must not be raised.
func TestConditionalANSIErrorsOnlyWhenEvaluated(t *testing.T) {
	c := col(0, "double")
	div := arithJSON("Divide", "double", "ANSI", litDouble(10), c)
	// CASE WHEN c = 0 THEN 0 ELSE 10 / c END
	guarded := caseJSON("double", div, eqJSON(c, litDouble(0)), litDouble(0))
	got, err := run(t, guarded, column(t, "double", 0.0, 2.0, nil, 4.0, 0.0))
	expectRows(t, "case guarded", got, err, "0", "5", "null", "2.5", "0")
	// The ELSE is selected for c = 0: Spark raises.
	unguarded := caseJSON("double", div, gtJSON(c, litDouble(100)), litDouble(0))
	_, err = run(t, unguarded, column(t, "double", 1.0, 0.0))
	expectSparkError(t, "case unguarded", err, "DIVIDE_BY_ZERO", nil)
	// A null predicate selects the false branch, which then fails.
	_, err = run(t, ifJSON("double", eqJSON(col(1, "double"), litDouble(1)), litDouble(0), div),
		column(t, "double", 0.0), column(t, "double", nil))
	expectSparkError(t, "if null predicate", err, "DIVIDE_BY_ZERO", nil)

	// Integer remainder: IF(i = 0, -1, 10 % i).
	i := col(0, "integer")
	rem := arithJSON("Remainder", "integer", "ANSI", litInt(10), i)
	got, err = run(t, ifJSON("integer", eqJSON(i, litInt(0)), litInt(-1), rem), column(t, "integer", 0, 3, nil, 4))
	expectRows(t, "if guarded", got, err, "-1", "1", "null", "2")
	_, err = run(t, ifJSON("integer", eqJSON(i, litInt(1)), litInt(-1), rem), column(t, "integer", 0, 3))
	expectSparkError(t, "if unguarded", err, "REMAINDER_BY_ZERO", map[string]string{"config": `"spark.sql.ansi.enabled"`})
	// The true branch fails only where the predicate holds.
	_, err = run(t, ifJSON("integer", eqJSON(i, litInt(0)), rem, litInt(-1)), column(t, "integer", 5, 0))
	expectSparkError(t, "if true branch", err, "REMAINDER_BY_ZERO", nil)

	// A condition is only evaluated on rows no earlier condition took:
	// CASE WHEN i = 0 THEN 1 WHEN 10 % i = 1 THEN 2 ELSE 3 END.
	js := caseJSON("integer", litInt(3), eqJSON(i, litInt(0)), litInt(1), eqJSON(rem, litInt(1)), litInt(2))
	got, err = run(t, js, column(t, "integer", 0, 3, nil, 4))
	expectRows(t, "case condition guarded", got, err, "1", "2", "3", "3")
	js = caseJSON("integer", litInt(3), eqJSON(i, litInt(-1)), litInt(1), eqJSON(rem, litInt(1)), litInt(2))
	_, err = run(t, js, column(t, "integer", 3, 0))
	expectSparkError(t, "case condition unguarded", err, "REMAINDER_BY_ZERO", nil)
	// Once every row is decided, later conditions are not evaluated at all.
	js = caseJSON("integer", litInt(3), lit("boolean", "true"), litInt(1), eqJSON(rem, litInt(1)), litInt(2))
	got, err = run(t, js, column(t, "integer", 0, 0))
	expectRows(t, "case decided", got, err, "1", "1")

	// Coalesce evaluates later arguments only where earlier ones are null.
	co := coalesceJSON("integer", col(1, "integer"), rem)
	got, err = run(t, co, column(t, "integer", 0, 3, 0), column(t, "integer", 7, nil, 8))
	expectRows(t, "coalesce guarded", got, err, "7", "1", "8")
	_, err = run(t, co, column(t, "integer", 3, 0), column(t, "integer", 7, nil))
	expectSparkError(t, "coalesce unguarded", err, "REMAINDER_BY_ZERO", nil)

	// ANSI cast overflow: IF(i > 127, -1, CAST(i AS TINYINT)).
	cast := castJSON(i, "byte", "ANSI")
	got, err = run(t, ifJSON("byte", gtJSON(i, litInt(127)), lit("byte", "-1"), cast), column(t, "integer", 5, 300, nil))
	expectRows(t, "cast guarded", got, err, "5", "-1", "null")
	_, err = run(t, ifJSON("byte", gtJSON(i, litInt(1000)), lit("byte", "-1"), cast), column(t, "integer", 5, 300))
	expectSparkError(t, "cast unguarded", err, "CAST_OVERFLOW", nil)

	// ANSI overflow in a nested branch.
	add := arithJSON("Add", "integer", "ANSI", i, litInt(1))
	nested := ifJSON("integer", gtJSON(i, litInt(0)),
		caseJSON("integer", add, eqJSON(i, litInt(math.MaxInt32)), litInt(0)), litInt(-1))
	got, err = run(t, nested, column(t, "integer", math.MaxInt32, 1, -5, nil))
	expectRows(t, "nested guarded", got, err, "0", "2", "-1", "-1")

	// Under an outer guard (AND passes its active rows down): NOT(i = 0) AND IF(true, 10 % i = 1, false).
	inner := ifJSON("boolean", lit("boolean", "true"), eqJSON(rem, litInt(1)), lit("boolean", "false"))
	and := node("And", "boolean", "left", node("Not", "boolean", "child", eqJSON(i, litInt(0))), "right", inner)
	vals := make([]any, 19)
	for k := range vals {
		vals[k] = k % 4 // zeros at 0, 4, 8, ...; 19 rows so the last bitmap byte is partial
	}
	got, err = run(t, and, column(t, "integer", vals...))
	want := make([]string, len(vals))
	for k, v := range vals {
		want[k] = fmt.Sprint(v != 0 && 10%v.(int) == 1)
	}
	expectRows(t, "under and", got, err, want...)
}

func TestConditionalTRYAndLegacyBranches(t *testing.T) {
	// Outside ANSI nothing raises; unselected rows do not leak values.
	i := col(0, "integer")
	add := arithJSON("Add", "integer", "TRY", i, litInt(1))
	got, err := run(t, caseJSON("integer", litInt(0), gtJSON(i, litInt(0)), add), column(t, "integer", math.MaxInt32, 1, -3))
	expectRows(t, "try", got, err, "null", "2", "0")
}

func TestConditionalRefusals(t *testing.T) {
	expectRefused(t, "if branch type", ifJSON("integer", lit("boolean", "true"), col(0, "integer"), col(1, "long")), "long")
	expectRefused(t, "if predicate type", ifJSON("integer", col(0, "integer"), col(0, "integer"), col(0, "integer")), "condition of type integer")
	expectRefused(t, "case value type", caseJSON("string", litStr("x"), col(0, "boolean"), col(1, "binary")), "binary")
	expectRefused(t, "case bad branches", node("CaseWhen", "integer", "branches", `[{"unsupported":"x"}]`, "elseValue", "null"), "pair")
	expectRefused(t, "coalesce types", coalesceJSON("double", col(0, "double"), col(1, "float")), "float")
	expectRefused(t, "coalesce empty", coalesceJSON("integer"), "without arguments")
	expectRefused(t, "nanvl types", node("NaNvl", "double", "left", col(0, "double"), "right", col(1, "float")), "float")
	expectRefused(t, "unsupported result", ifJSON("array<int>", lit("boolean", "true"), col(0, "integer"), col(0, "integer")), "not supported")
}

func TestConditionalString(t *testing.T) {
	e := mustTranslate(t, caseJSON("integer", litInt(3), col(0, "boolean"), litInt(1)))
	if s := e.String(); s != "CASE WHEN c0#0 THEN 1 ELSE 3 END" {
		t.Errorf("String() = %q", s)
	}
	e = mustTranslate(t, ifJSON("integer", col(0, "boolean"), litInt(1), litInt(2)))
	if s := e.String(); s != "if (c0#0) 1 else 2" {
		t.Errorf("String() = %q", s)
	}
	if mayFail(e) {
		t.Errorf("%s: mayFail", e)
	}
	e = mustTranslate(t, coalesceJSON("integer", col(0, "integer"), arithJSON("Add", "integer", "ANSI", litInt(1), litInt(2))))
	if !mayFail(e) {
		t.Errorf("%s: want mayFail", e)
	}
}

// TestIfStringsBlockCopy checks if() over string columns, whose result strings of up to 16 bytes
// are copied as 16-byte blocks: random lengths 0 to 40 (both sides of the block), multi-byte
// text, nulls, sources sliced at an offset and ending with short strings near the end of their
// buffers (where the block would read past them and copy takes over), and a literal side.
func TestIfStringsBlockCopy(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	str := func() any {
		if rng.Intn(12) == 0 {
			return nil
		}
		n := rng.Intn(18)
		if rng.Intn(4) == 0 {
			n = rng.Intn(41)
		}
		b := make([]byte, 0, n+3)
		for len(b) < n {
			if rng.Intn(5) == 0 {
				b = append(b, "é"...)
			} else {
				b = append(b, byte('a'+rng.Intn(26)))
			}
		}
		return string(b)
	}
	for round := 0; round < 40; round++ {
		rows := 1 + rng.Intn(600)
		off := rng.Intn(5)
		var preds, as, bs []any
		for i := 0; i < rows+off; i++ {
			preds, as, bs = append(preds, rng.Intn(3) != 0), append(as, str()), append(bs, str())
		}
		want := make([]string, rows)
		lit := round%4 == 3 // the false side a literal
		for i := range want {
			v := bs[off+i]
			if lit {
				v = "lit"
			}
			if preds[off+i].(bool) {
				v = as[off+i]
			}
			if v == nil {
				want[i] = "null"
			} else {
				want[i] = v.(string)
			}
		}
		slice := func(a arrow.Array) arrow.Array {
			s := array.NewSlice(a, int64(off), int64(a.Len()))
			t.Cleanup(s.Release)
			return s
		}
		falseSide := col(2, "string")
		if lit {
			falseSide = litStr("lit")
		}
		got, err := runRaw(t, ifJSON("string", col(0, "boolean"), col(1, "string"), falseSide),
			slice(column(t, "boolean", preds...)), slice(column(t, "string", as...)), slice(column(t, "string", bs...)))
		expectRows(t, fmt.Sprintf("round %d", round), got, err, want...)
	}
}
