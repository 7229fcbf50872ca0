package join

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/memory/memtest"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// ---- the reference: a nested-loop join written from HashJoin.scala ----

type refJoin struct {
	typ          JoinType
	build        BuildSide
	lkeys, rkeys []int // key columns of each side
	kinds        []sparktype.Kind
	// rawFloats compares floating keys by their bits (keys without NormalizeNaNAndZero, as
	// UnsafeRow bytes compare); otherwise NaN equals NaN and -0.0 equals 0.0.
	rawFloats bool
	// cond is the extra condition on a pair (a null result counts as false); nil: none.
	cond func(l, r []any) bool
}

func refValueEqual(kind sparktype.Kind, a, b any, raw bool) bool {
	switch kind {
	case sparktype.Float, sparktype.Double:
		x, y := a.(float64), b.(float64)
		if raw {
			return math.Float64bits(x) == math.Float64bits(y)
		}
		return (math.IsNaN(x) && math.IsNaN(y)) || x == y
	case sparktype.Decimal:
		return a.(*big.Int).Cmp(b.(*big.Int)) == 0
	}
	return a == b
}

func (j refJoin) matches(l, r []any) bool {
	for i := range j.lkeys {
		a, b := l[j.lkeys[i]], r[j.rkeys[i]]
		if a == nil || b == nil || !refValueEqual(j.kinds[i], a, b, j.rawFloats) {
			return false
		}
	}
	return j.cond == nil || j.cond(l, r)
}

func concat(a, b []any) []any { return append(append([]any(nil), a...), b...) }

// run joins in the streamed side's order; for each streamed row its matches in build order.
func (j refJoin) run(left, right [][]any, nl, nr int) [][]any {
	var out [][]any
	switch j.typ {
	case Inner:
		if j.build == BuildRight {
			for _, l := range left {
				for _, r := range right {
					if j.matches(l, r) {
						out = append(out, concat(l, r))
					}
				}
			}
		} else {
			for _, r := range right {
				for _, l := range left {
					if j.matches(l, r) {
						out = append(out, concat(l, r))
					}
				}
			}
		}
	case LeftOuter:
		for _, l := range left {
			found := false
			for _, r := range right {
				if j.matches(l, r) {
					out, found = append(out, concat(l, r)), true
				}
			}
			if !found {
				out = append(out, concat(l, make([]any, nr)))
			}
		}
	case RightOuter:
		for _, r := range right {
			found := false
			for _, l := range left {
				if j.matches(l, r) {
					out, found = append(out, concat(l, r)), true
				}
			}
			if !found {
				out = append(out, concat(make([]any, nl), r))
			}
		}
	case FullOuter:
		usedR := make([]bool, len(right))
		for _, l := range left {
			found := false
			for i, r := range right {
				if j.matches(l, r) {
					out, found, usedR[i] = append(out, concat(l, r)), true, true
				}
			}
			if !found {
				out = append(out, concat(l, make([]any, nr)))
			}
		}
		for i, r := range right {
			if !usedR[i] {
				out = append(out, concat(make([]any, nl), r))
			}
		}
	case LeftSemi, LeftAnti, Existence:
		for _, l := range left {
			found := false
			for _, r := range right {
				found = found || j.matches(l, r)
			}
			switch {
			case j.typ == Existence:
				out = append(out, concat(l, []any{found}))
			case found == (j.typ == LeftSemi):
				out = append(out, l)
			}
		}
	}
	return out
}

// ---- the case under test ----

// joinCase is a join over two sides of columns (keys..., v long, p string): keys typed as given,
// v a small integer the condition compares, p a payload.
type joinCase struct {
	keyTypes  []string
	typ       JoinType
	build     BuildSide
	cond      bool // left.v < right.v
	normalize bool // floating keys wrapped in NormalizeNaNAndZero (as Spark plans them)
}

func (c joinCase) String() string {
	return fmt.Sprintf("%s/%s/keys=%s/cond=%v", c.typ, c.build, strings.Join(c.keyTypes, ","), c.cond)
}

func (c joinCase) sideTypes(t testing.TB) []sparktype.Type {
	var ts []sparktype.Type
	for _, k := range c.keyTypes {
		ts = append(ts, coltest.Type(t, k))
	}
	return append(ts, sparktype.LongType, sparktype.StringType)
}

// spec builds the operator's description as the translator would.
func (c joinCase) spec(t testing.TB, ls, rs []sparktype.Field) Spec {
	s := Spec{Type: c.typ, Build: c.build}
	for i, k := range c.keyTypes {
		col := columnJSON(i, k)
		if c.normalize && (k == "double" || k == "float") {
			col = normalizedJSON(col, k)
		}
		s.LeftKeys = append(s.LeftKeys, translate(t, col))
		s.RightKeys = append(s.RightKeys, translate(t, col))
	}
	nk := len(c.keyTypes)
	if c.cond {
		s.Condition = translate(t, compareJSON("LessThan", columnJSON(0, "long"), columnJSON(1, "long")))
		s.CondColumns = []int{nk, len(ls) + nk}
	}
	nullable := func(fs []sparktype.Field) []sparktype.Field {
		out := append([]sparktype.Field(nil), fs...)
		for i := range out {
			out[i].Nullable = true
		}
		return out
	}
	switch c.typ {
	case Inner, LeftOuter, RightOuter, FullOuter:
		s.Schema = append(nullable(ls), nullable(rs)...)
	case LeftSemi, LeftAnti:
		s.Schema = ls
	case Existence:
		s.Schema = append(append([]sparktype.Field(nil), ls...), sparktype.Field{Name: "exists", Type: sparktype.BooleanType})
	}
	return s
}

func (c joinCase) reference(t testing.TB, nk int) refJoin {
	ref := refJoin{typ: c.typ, build: c.build, rawFloats: !c.normalize}
	for i, k := range c.keyTypes {
		ref.lkeys, ref.rkeys = append(ref.lkeys, i), append(ref.rkeys, i)
		ref.kinds = append(ref.kinds, coltest.Type(t, k).Kind)
	}
	if c.cond {
		ref.cond = func(l, r []any) bool {
			a, b := l[nk], r[nk]
			return a != nil && b != nil && a.(int64) < b.(int64)
		}
	}
	return ref
}

// run joins the rows with the operator and the reference and compares them, row order included.
func (c joinCase) run(t *testing.T, rng *rand.Rand, left, right [][]any, batchSize int) {
	t.Helper()
	types := c.sideTypes(t)
	const maxBatch = 90
	ls := coltest.NewSource(t, rng, types, left, maxBatch)
	rs := coltest.NewSource(t, rng, types, right, maxBatch)
	defer ls.Release()
	defer rs.Release()
	op, err := NewHashJoin(ls, rs, c.spec(t, ls.Fields, rs.Fields))
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	maxRows := batchSize
	if c.typ == LeftSemi || c.typ == LeftAnti || c.typ == Existence {
		maxRows = max(batchSize, maxBatch)
	}
	got, err := coltest.Drain(t, op, coltest.NewCtx(batchSize), maxRows)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	if ls.Closed == 0 || rs.Closed == 0 {
		t.Errorf("%s: children not closed", c)
	}
	want := c.reference(t, len(c.keyTypes)).run(left, right, len(types), len(types))
	if c.buildOuter() {
		// Unmatched build rows come after the probe side, in no order Spark promises.
		coltest.SortRows(got)
		coltest.SortRows(want)
	}
	coltest.CompareRows(t, fmt.Sprintf("%s batch=%d", c, batchSize), got, want)
}

// buildOuter: the join outputs unmatched build rows (a shuffled hash join's shapes).
func (c joinCase) buildOuter() bool {
	return c.typ == FullOuter || c.typ == LeftOuter && c.build == BuildLeft || c.typ == RightOuter && c.build == BuildRight
}

// joinShapes are the combinations Spark's JoinSelection allows for a broadcast hash join, then
// those only a shuffled hash join (or a sort-merge join run as one) has: outer on the build side.
var joinShapes = []struct {
	typ   JoinType
	build BuildSide
}{
	{Inner, BuildRight}, {Inner, BuildLeft}, {LeftOuter, BuildRight}, {RightOuter, BuildLeft},
	{LeftSemi, BuildRight}, {LeftAnti, BuildRight}, {Existence, BuildRight},
	{LeftOuter, BuildLeft}, {RightOuter, BuildRight}, {FullOuter, BuildRight}, {FullOuter, BuildLeft},
}

// Every join type and build side, over keys of every layout the table has (one word, two words,
// one string, encoded composites), with and without a condition, nulls in the keys, duplicate keys
// on both sides, and output batch sizes from one row up.
func TestJoinAgainstReference(t *testing.T) {
	keySets := [][]string{
		{"long"},
		{"integer"},
		{"boolean", "byte", "short"},
		{"date", "timestamp"},
		{"integer", "long", "integer"},
		{"decimal(20,3)"},
		{"decimal(10,2)", "date"},
		{"string"},
		{"binary"},
		{"string", "integer"},
		{"long", "long", "string"},
		{"double"},
		{"float", "string"},
		{"timestamp_ntz", "decimal(38,0)"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cell := 0
	for _, keys := range keySets {
		for _, sh := range joinShapes {
			for _, cond := range []bool{false, true} {
				// Under the race detector a rotating third of the cells: every key set, shape
				// and condition still appears (memtest.Race).
				if cell++; memtest.Race && cell%3 != 0 {
					continue
				}
				c := joinCase{keyTypes: keys, typ: sh.typ, build: sh.build, cond: cond, normalize: true}
				types := c.sideTypes(t)
				left := coltest.GenRows(rng, types, 150+rng.IntN(100), 0.1, genValue)
				right := coltest.GenRows(rng, types, 100+rng.IntN(100), 0.1, genValue)
				for i := range left {
					left[i][len(keys)] = int64(rng.IntN(5)) // v: the condition's column
				}
				for i := range right {
					right[i][len(keys)] = int64(rng.IntN(5))
				}
				batch := []int{1, 3, 7, 64, 1000}[rng.IntN(5)]
				c.run(t, rng, left, right, batch)
			}
		}
	}
}

// Spark normalizes floating keys (NormalizeFloatingNumbers): with NormalizeNaNAndZero every NaN
// meets every NaN and -0.0 meets 0.0. Without it, keys compare by their bits, as UnsafeRow bytes do.
func TestFloatingKeys(t *testing.T) {
	negZero, otherNaN := math.Copysign(0, -1), math.Float64frombits(0x7ff0000000000001)
	left := [][]any{{0.0, int64(1), "a"}, {negZero, int64(2), "b"}, {math.NaN(), int64(3), "c"}, {otherNaN, int64(4), "d"}}
	right := [][]any{{negZero, int64(10), "x"}, {math.NaN(), int64(11), "y"}}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, normalize := range []bool{true, false} {
		c := joinCase{keyTypes: []string{"double"}, typ: Inner, build: BuildRight, normalize: normalize}
		c.run(t, rng, left, right, 16)
	}
	// The normalized join by example: 0.0 and -0.0 meet -0.0, both NaNs meet NaN.
	c := joinCase{keyTypes: []string{"double"}, typ: Inner, build: BuildRight, normalize: true}
	types := c.sideTypes(t)
	ls, rs := coltest.NewSource(t, rng, types, left, 4), coltest.NewSource(t, rng, types, right, 4)
	defer ls.Release()
	defer rs.Release()
	op, err := NewHashJoin(ls, rs, c.spec(t, ls.Fields, rs.Fields))
	if err != nil {
		t.Fatal(err)
	}
	got, err := coltest.Drain(t, op, coltest.NewCtx(16), 16)
	if err != nil {
		t.Fatal(err)
	}
	var vs []string
	for _, r := range got {
		vs = append(vs, fmt.Sprintf("%d-%d", r[1], r[4]))
	}
	if s := strings.Join(vs, " "); s != "1-10 2-10 3-11 4-11" {
		t.Errorf("normalized double join: %s", s)
	}
}

// A build side with no rows (none at all, only empty batches, or only null keys), and a probe side
// with none, for every join type.
func TestEmptySides(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range joinShapes {
		for _, cond := range []bool{false, true} {
			c := joinCase{keyTypes: []string{"string", "long"}, typ: sh.typ, build: sh.build, cond: cond, normalize: true}
			types := c.sideTypes(t)
			rows := coltest.GenRows(rng, types, 120, 0.1, genValue)
			nullKeys := coltest.GenRows(rng, types, 30, 0, genValue)
			for _, r := range nullKeys {
				r[rng.IntN(2)] = nil
			}
			for _, probeEmpty := range []bool{false, true} {
				for _, build := range [][][]any{nil, nullKeys} {
					probe := rows
					if probeEmpty {
						probe = nil
					}
					left, right := probe, build
					if sh.build == BuildLeft {
						left, right = build, probe
					}
					c.run(t, rng, left, right, 50)
				}
				// Only empty batches on the build side.
				ls, rs := coltest.NewSource(t, rng, types, rows, 40), coltest.EmptySource(t, types, 3)
				if sh.build == BuildLeft {
					ls, rs = rs, ls
				}
				op, err := NewHashJoin(ls, rs, c.spec(t, ls.Fields, rs.Fields))
				if err != nil {
					t.Fatal(err)
				}
				got, err := coltest.Drain(t, op, coltest.NewCtx(50), 50)
				ls.Release()
				rs.Release()
				if err != nil {
					t.Fatal(err)
				}
				wantRows := map[JoinType]int{Inner: 0, LeftSemi: 0, LeftOuter: len(rows), RightOuter: len(rows),
					LeftAnti: len(rows), Existence: len(rows), FullOuter: len(rows)}[sh.typ]
				if c.buildOuter() && sh.typ != FullOuter {
					wantRows = 0 // the outer side is the empty build side
				}
				if len(got) != wantRows {
					t.Errorf("%s over an empty build side: %d rows, want %d", c, len(got), wantRows)
				}
			}
		}
	}
}

// Spark returns nothing for an inner or semi join over an empty build side without reading the
// streamed side (HashJoin.innerJoin / semiJoin return Iterator.empty), and an anti join returns
// the streamed rows untouched.
func TestEmptyBuildShortcuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := joinCase{keyTypes: []string{"long"}, normalize: true}
	types := c.sideTypes(t)
	rows := coltest.GenRows(rng, types, 100, 0.2, genValue)
	for _, typ := range []JoinType{Inner, LeftSemi, LeftAnti} {
		c.typ, c.build = typ, BuildRight
		ls, rs := coltest.NewSource(t, rng, types, rows, 30), coltest.EmptySource(t, types, 0)
		op, err := NewHashJoin(ls, rs, c.spec(t, ls.Fields, rs.Fields))
		if err != nil {
			t.Fatal(err)
		}
		got, err := coltest.Drain(t, op, coltest.NewCtx(30), 30)
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case LeftAnti:
			coltest.CompareRows(t, "anti over empty", got, rows)
		default:
			if len(got) != 0 || ls.Pos != 0 {
				t.Errorf("%s over an empty build side: %d rows, %d probe batches read", typ, len(got), ls.Pos)
			}
		}
		ls.Release()
	}
}

// One key with many duplicates on both sides: output batches stay within the batch size, and an
// outer join's condition sees chains split across chunks.
func TestHeavyDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range joinShapes {
		c := joinCase{keyTypes: []string{"integer"}, typ: sh.typ, build: sh.build, cond: true, normalize: true}
		mk := func(n int) [][]any {
			rows := make([][]any, n)
			for i := range rows {
				rows[i] = []any{int64(rng.IntN(2)), int64(rng.IntN(400)), fmt.Sprint(i)}
			}
			return rows
		}
		c.run(t, rng, mk(60), mk(700), 97)
	}
}

// A build side whose memory Spark refuses fails with the allocator's message before it is read
// whole, and gives everything back.
func TestBuildFailsCleanlyWhenMemoryIsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := joinCase{keyTypes: []string{"string"}, typ: Inner, build: BuildRight, normalize: true}
	types := c.sideTypes(t)
	rows := coltest.GenRows(rng, types, 2000, 0, genValue)
	for i, r := range rows {
		r[2] = strings.Repeat("payload", 10) + fmt.Sprint(i)
	}
	for _, limit := range []int64{0, bmemory.DefaultChunk} {
		whole := coltest.NewSource(t, rng, types, rows, 1000)
		build := &coltest.Source{Fields: whole.Fields}
		for range 200 { // ~20 MB of payload through an 8 MiB reservation
			build.Batches = append(build.Batches, whole.Batches...)
		}
		probe := coltest.NewSource(t, rng, types, rows[:10], 10)
		op, err := NewHashJoin(probe, build, c.spec(t, probe.Fields, build.Fields))
		if err != nil {
			t.Fatal(err)
		}
		r := &coltest.Reserver{Limit: limit}
		ctx := &exec.TaskContext{Alloc: bmemory.NewTaskAllocator(r), Conf: &plan.Conf{BatchSize: 1000}}
		_, err = coltest.Drain(t, op, ctx, 1000)
		var oom *bmemory.ErrOutOfMemory
		if !errors.As(err, &oom) || !strings.Contains(err.Error(), "spark.memory.offHeap.size") {
			t.Errorf("limit %d: want the allocator's out-of-memory error, got %v", limit, err)
		}
		if build.Pos == len(build.Batches) {
			t.Errorf("limit %d: the join read its whole build side before failing", limit)
		}
		if probe.Pos != 0 {
			t.Errorf("limit %d: the probe side was read", limit)
		}
		ctx.Alloc.ReleaseAll()
		if r.Reserved != 0 {
			t.Errorf("limit %d: %d bytes still reserved", limit, r.Reserved)
		}
		whole.Release()
		probe.Release()
	}
}

// The operator refuses at construction what Spark's BroadcastHashJoinExec does not allow or what
// does not fit its children.
func TestNewHashJoinValidates(t *testing.T) {
	c := joinCase{keyTypes: []string{"long"}, normalize: true}
	types := c.sideTypes(t)
	ls, rs := coltest.EmptySource(t, types, 0), coltest.EmptySource(t, types, 0)
	base := func(typ JoinType, build BuildSide) Spec {
		c.typ, c.build = typ, build
		return c.spec(t, ls.Fields, rs.Fields)
	}
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"semi building left", base(LeftSemi, BuildLeft), "LeftSemi cannot use BuildLeft"},
		{"anti building left", base(LeftAnti, BuildLeft), "LeftAnti cannot use BuildLeft"},
		{"full outer probe side not nullable", func() Spec {
			s := base(FullOuter, BuildRight)
			s.Schema[0].Nullable = false
			return s
		}(), "FullOuter join output column c0 of the probe side is not nullable"},
		{"key types differ", func() Spec {
			s := base(Inner, BuildRight)
			s.RightKeys = []expr.Expr{translate(t, columnJSON(2, "string"))}
			return s
		}(), "join key 0 is long on the left and string on the right"},
		{"key counts differ", func() Spec {
			s := base(Inner, BuildRight)
			s.RightKeys = nil
			return s
		}(), "hash join with 1 left and 0 right keys"},
		{"null-aware inner", func() Spec {
			s := base(Inner, BuildRight)
			s.NullAware = true
			return s
		}(), "a null-aware anti join needs one key and no condition"},
		{"schema", func() Spec {
			s := base(LeftSemi, BuildRight)
			s.Schema = s.Schema[:1]
			return s
		}(), "LeftSemi join outputs 1 columns; its children give 3"},
		{"non-boolean condition", func() Spec {
			s := base(Inner, BuildRight)
			s.Condition, s.CondColumns = translate(t, columnJSON(0, "long")), []int{0}
			return s
		}(), "is long, not boolean"},
		{"outer build side not nullable", func() Spec {
			s := base(LeftOuter, BuildRight)
			s.Schema[4].Nullable = false
			return s
		}(), "LeftOuter join output column c1 of the build side is not nullable"},
	}
	for _, tc := range cases {
		if _, err := NewHashJoin(ls, rs, tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLayouts(t *testing.T) {
	cases := []struct {
		types []string
		want  keyKind
	}{
		{[]string{"long"}, wordKeys},
		{[]string{"integer", "integer"}, wordKeys},
		{[]string{"boolean", "byte", "short", "integer"}, wordKeys},
		{[]string{"integer", "long", "integer"}, word2Keys},
		{[]string{"decimal(38,2)"}, word2Keys},
		{[]string{"long", "long", "byte"}, encodedKeys},
		{[]string{"decimal(5,2)", "byte"}, encodedKeys},
		{[]string{"string"}, bytesKeys},
		{[]string{"string", "long"}, encodedKeys},
	}
	for _, c := range cases {
		var ts []sparktype.Type
		for _, n := range c.types {
			ts = append(ts, coltest.Type(t, n))
		}
		if got, packs := layoutFor(ts); got != c.want {
			t.Errorf("%v: layout %d, want %d (%+v)", c.types, got, c.want, packs)
		}
	}
}

// Unique build keys that every probe row matches once, in order: the probe columns pass through
// (retained, not copied), and the output is still exactly the reference's.
func TestUniqueKeysEveryRowMatching(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	mk := func(n int, perm bool) [][]any {
		rows := make([][]any, n)
		for i := range rows {
			k := i
			if perm {
				k = (i * 37) % n
			}
			rows[i] = []any{int64(k), int64(i), fmt.Sprint("r", i)}
		}
		return rows
	}
	for _, sh := range joinShapes {
		c := joinCase{keyTypes: []string{"long"}, typ: sh.typ, build: sh.build, normalize: true}
		left, right := mk(500, false), mk(500, true)
		c.run(t, rng, left, right, 1000)
	}
}

// With no keys the join is a nested-loop join (BroadcastNestedLoopJoinExec): every pair is a
// candidate and the condition decides; without one, a cross product.
func TestNestedLoopJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, sh := range joinShapes[:7] {
		for _, cond := range []bool{false, true} {
			c := joinCase{typ: sh.typ, build: sh.build, cond: cond, normalize: true}
			types := c.sideTypes(t)
			left := coltest.GenRows(rng, types, 40+rng.IntN(30), 0.1, genValue)
			right := coltest.GenRows(rng, types, 20+rng.IntN(30), 0.1, genValue)
			for _, rows := range [][][]any{left, right} {
				for i := range rows {
					rows[i][0] = int64(rng.IntN(5))
				}
			}
			for _, batch := range []int{1, 7, 1000} {
				c.run(t, rng, left, right, batch)
			}
			c.run(t, rng, left, nil, 7)
			c.run(t, rng, nil, right, 7)
		}
	}
}

// A null-aware anti join (NOT IN): an empty build side keeps every row, null keys included; a
// build side with a null key keeps none; otherwise rows without a match and with a non-null key.
func TestNullAwareAntiJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	c := joinCase{keyTypes: []string{"long"}, typ: LeftAnti, build: BuildRight, normalize: true}
	types := c.sideTypes(t)
	probe := [][]any{{int64(1), int64(0), "a"}, {nil, int64(0), "b"}, {int64(2), int64(0), "c"}, {int64(3), int64(0), "d"}}
	cases := []struct {
		build [][]any
		want  string
	}{
		{nil, "1 a; null b; 2 c; 3 d"},
		{[][]any{{int64(2), int64(0), "x"}}, "1 a; 3 d"},
		{[][]any{{int64(2), int64(0), "x"}, {nil, int64(0), "y"}}, ""},
		{[][]any{{int64(7), int64(0), "x"}}, "1 a; 2 c; 3 d"},
	}
	for _, tc := range cases {
		ls, rs := coltest.NewSource(t, rng, types, probe, 2), coltest.NewSource(t, rng, types, tc.build, 1)
		spec := c.spec(t, ls.Fields, rs.Fields)
		spec.NullAware = true
		op, err := NewHashJoin(ls, rs, spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := coltest.Drain(t, op, coltest.NewCtx(8), 8)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, r := range got {
			rows = append(rows, fmt.Sprintf("%s %v", coltest.Show(r[0]), r[2]))
		}
		if g := strings.Join(rows, "; "); g != tc.want {
			t.Errorf("build %v: got %q, want %q", tc.build, g, tc.want)
		}
		ls.Release()
		rs.Release()
	}
}
