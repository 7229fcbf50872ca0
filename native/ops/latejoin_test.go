package ops

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	bmemory "github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/ops/join"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// countingTest wraps the join's key test to see what it kept.
type countingTest struct {
	inner    exec.RowTest
	in, kept int
	calls    int
}

func (c *countingTest) Refs() []int { return c.inner.Refs() }
func (c *countingTest) Keep(b *columnar.Batch, sel []int32, all bool, dst []int32) ([]int32, bool, error) {
	if all {
		c.in += b.NumRows
	} else {
		c.in += len(sel)
	}
	out, outAll, err := c.inner.Keep(b, sel, all, dst)
	if outAll {
		c.kept += b.NumRows
	} else {
		c.kept += len(out)
	}
	c.calls++
	return out, outAll, err
}

// A hash join whose probe child is a filter reading a scan lazily hands the filter its key lookup:
// the filter then decodes its other columns only for rows whose keys match (inner and semi joins),
// and the join's answer is the one it gives over an eager filter.
func TestJoinKeyTestThroughLateFilter(t *testing.T) {
	dir := t.TempDir()
	a, p := jAttr(0, "long"), jAttr(2, "long")
	cond := jAnd(jNode("IsNotNull", "boolean", "child", p), jCmp("GreaterThan", a, jLit("long", "1")))
	data := []sparktype.Field{{Name: "a", Type: sparktype.LongType, Nullable: true},
		{Name: "s", Type: sparktype.StringType, Nullable: true},
		{Name: "p", Type: sparktype.LongType, Nullable: true},
		{Name: "d", Type: sparktype.IntType, Nullable: true}}
	buildTypes := []sparktype.Type{sparktype.LongType, sparktype.StringType}
	var buildRows [][]any
	for k := int64(0); k < 12000; k += 37 {
		buildRows = append(buildRows, []any{k, fmt.Sprintf("b%d", k)})
		if k%3 == 0 {
			buildRows = append(buildRows, []any{k, "dup"})
		}
	}
	buildRows = append(buildRows, []any{nil, "null key"})
	for _, dict := range []bool{true, false} {
		path := filepath.Join(dir, fmt.Sprintf("dict-%v.parquet", dict))
		writeLateFile(t, path, 10000, dict)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range []join.JoinType{join.Inner, join.LeftSemi} {
			run := func(lazy bool) ([][]any, *countingTest) {
				scan := NewParquetScan("1", data, nil, nil, FileErrorPolicy{})
				f, err := NewFilter(&exec.Guarded{Name: "BolideScan", Inner: scan}, translateExpr(t, cond))
				if err != nil {
					t.Fatal(err)
				}
				if lazy {
					f.SetConjuncts(conjunctsFor(t, cond))
				}
				rng := rand.New(rand.NewPCG(1, 2))
				build := coltest.NewSource(t, rng, buildTypes, buildRows, 50)
				defer build.Release()
				schema := append(append([]sparktype.Field{}, data...), build.Fields...)
				if typ == join.LeftSemi {
					schema = data
				}
				spec := join.Spec{Type: typ, Build: join.BuildRight,
					LeftKeys:     []expr.Expr{translateExpr(t, p)},
					RightKeys:    []expr.Expr{translateExpr(t, jAttr(0, "long"))},
					Schema:       schema,
					ProbeKeyRefs: []int{2}}
				h, err := join.NewHashJoin(&exec.Guarded{Name: "BolideFilter", Inner: f}, build, spec)
				if err != nil {
					t.Fatal(err)
				}
				alloc := bmemory.NewTaskAllocator(nil)
				ctx := &exec.TaskContext{Alloc: alloc, Conf: &plan.Conf{BatchSize: 1000}}
				ctx.Files = map[string][]plan.PartitionedFile{"1": {{Path: "file://" + path, Length: st.Size(),
					FileSize: st.Size()}}}
				if err := h.Open(ctx); err != nil {
					t.Fatal(err)
				}
				var ct *countingTest
				if f.parentTest != nil {
					ct = &countingTest{inner: f.parentTest}
					f.parentTest = ct
				}
				var rows [][]any
				for {
					b, err := h.Next()
					if err != nil {
						t.Fatal(err)
					}
					if b == nil {
						break
					}
					rows = append(rows, coltest.Rows(b)...)
					b.Release()
				}
				h.Close()
				if n, _ := alloc.Live(); n != 0 {
					t.Errorf("%d bytes leaked:\n%s", n, alloc.LeakReport())
				}
				return rows, ct
			}
			t.Run(fmt.Sprintf("dict=%v/%s", dict, typ), func(t *testing.T) {
				want, eager := run(false)
				if eager != nil {
					t.Fatal("an eager filter took the join's key test")
				}
				got, ct := run(true)
				if ct == nil {
					t.Fatal("the lazy filter did not take the join's key test")
				}
				coltest.SortRows(want)
				coltest.SortRows(got)
				coltest.CompareRows(t, "join over the lazy filter", got, want)
				if len(want) == 0 || ct.calls == 0 || ct.kept >= ct.in/10 {
					t.Errorf("%d rows joined; the key test ran %d times and kept %d of %d rows", len(want), ct.calls, ct.kept, ct.in)
				}
			})
		}
	}
}
