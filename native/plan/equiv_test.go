package plan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/translate"
)

// The one-pass decoding must decode every request exactly as encoding/json alone does (the
// decoder before it, which the package keeps as its fallback and tests reach with SetFastPath).

// planRequests are the captured plan requests: the committed ones always, every TPC-H query's
// when /tmp/plbench holds them.
func planRequests(t *testing.T) []string {
	paths, _ := filepath.Glob("../translate/testdata/plan-*.json")
	if len(paths) == 0 {
		t.Fatal("no committed plan requests in ../translate/testdata")
	}
	more, _ := filepath.Glob("/tmp/plbench/plan-*.json")
	if len(more) == 0 {
		t.Run("plbench", func(t *testing.T) { t.Skip("no captured plan requests in /tmp/plbench") })
	}
	return append(paths, more...)
}

func TestDecideEquivalence(t *testing.T) {
	for _, p := range planRequests(t) {
		t.Run(name(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			decide := func(fast bool) []byte {
				defer plan.SetFastPath(fast)()
				var r plan.PlanRequest
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatal(err)
				}
				out, err := json.Marshal(translate.Decide(&r))
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			if slow, fast := decide(false), decide(true); !bytes.Equal(slow, fast) {
				t.Errorf("Decide differs:\nencoding/json: %s\none-pass:      %s", slow, fast)
			}
		})
	}
}

func TestWalkEquivalence(t *testing.T) {
	paths := planRequests(t)
	tasks, _ := filepath.Glob("/work/replay-tasks/*/task-*.json")
	for _, p := range append(paths, tasks...) {
		t.Run(name(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var slow, fast plan.TaskRequest // a plan request's plan decodes the same way
			if err := json.Unmarshal(raw, &slow); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &fast); err != nil {
				t.Fatal(err)
			}
			w := walker{t: t}
			w.node("plan", fast.Plan, slow.Plan)
			if w.exprs == 0 {
				t.Fatal("no expression decoded")
			}
			t.Logf("%d expressions compared", w.exprs)
		})
	}
}

// name names a test input by its directory and file.
func name(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
}

// walker compares everything reachable through the accessors of two decodings of one plan: new
// with the one-pass decoding, old with encoding/json alone.
type walker struct {
	t     *testing.T
	exprs int
}

// call runs f with the fast path on or off.
func call[T any](fast bool, f func() (T, error)) (T, error) {
	defer plan.SetFastPath(fast)()
	return f()
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func (w *walker) same(path string, nv, ov any, nerr, oerr error) bool {
	w.t.Helper()
	if errText(nerr) != errText(oerr) {
		w.t.Errorf("%s: error %q, want %q", path, errText(nerr), errText(oerr))
		return false
	}
	if !reflect.DeepEqual(nv, ov) {
		w.t.Errorf("%s: %s, want %s", path, show(nv), show(ov))
		return false
	}
	return true
}

// show prints a value as JSON where it can (raw fields stay readable), else with %#v.
func show(v any) string {
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%#v", v)
}

func (w *walker) node(path string, n, o *plan.Node) {
	if (n == nil) != (o == nil) {
		w.t.Fatalf("%s: node %v, want %v", path, n, o)
	}
	if n == nil {
		return
	}
	w.same(path, []any{n.ID, n.Class, n.NodeName, n.Output, n.Fields, n.Input, len(n.Children)},
		[]any{o.ID, o.Class, o.NodeName, o.Output, o.Fields, o.Input, len(o.Children)}, nil, nil)
	for _, name := range slices.Sorted(maps.Keys(o.Fields)) {
		fp := path + "." + name
		ne, nerr := call(true, func() (*plan.Expr, error) { return n.Expr(name) })
		oe, oerr := call(false, func() (*plan.Expr, error) { return o.Expr(name) })
		if errText(nerr) != errText(oerr) {
			w.t.Errorf("%s Expr: error %q, want %q", fp, errText(nerr), errText(oerr))
		} else if nerr == nil {
			w.expr(fp, ne, oe)
		}
		nes, nerr := call(true, func() ([]*plan.Expr, error) { return n.Exprs(name) })
		oes, oerr := call(false, func() ([]*plan.Expr, error) { return o.Exprs(name) })
		w.exprList(fp, nes, oes, nerr, oerr)
		w.scalars(fp, n, o, name)
	}
	w.same(path+" missing field", nil, nil,
		second(call(true, func() (*plan.Expr, error) { return n.Expr("no such field") })),
		second(call(false, func() (*plan.Expr, error) { return o.Expr("no such field") })))
	for i := range o.Children {
		w.node(fmt.Sprintf("%s.children[%d]", path, i), n.Children[i], o.Children[i])
	}
}

func second[T any](_ T, err error) error { return err }

func (w *walker) exprList(path string, n, o []*plan.Expr, nerr, oerr error) {
	if errText(nerr) != errText(oerr) {
		w.t.Errorf("%s Exprs: error %q, want %q", path, errText(nerr), errText(oerr))
		return
	}
	if (n == nil) != (o == nil) || len(n) != len(o) {
		w.t.Errorf("%s Exprs: %d expressions (nil %v), want %d (nil %v)", path, len(n), n == nil, len(o), o == nil)
		return
	}
	for i := range o {
		w.expr(fmt.Sprintf("%s[%d]", path, i), n[i], o[i])
	}
}

// fielder is what Node and Expr both offer for scalar fields.
type fielder interface {
	String(string) (string, error)
	Int(string) (int64, error)
	Bool(string) (bool, error)
	Raw(string) (json.RawMessage, error)
	Has(string) bool
}

func (w *walker) scalars(path string, n, o fielder, name string) {
	s1, e1 := call(true, func() (string, error) { return n.String(name) })
	s2, e2 := call(false, func() (string, error) { return o.String(name) })
	w.same(path+" String", s1, s2, e1, e2)
	i1, e1 := call(true, func() (int64, error) { return n.Int(name) })
	i2, e2 := call(false, func() (int64, error) { return o.Int(name) })
	w.same(path+" Int", i1, i2, e1, e2)
	b1, e1 := call(true, func() (bool, error) { return n.Bool(name) })
	b2, e2 := call(false, func() (bool, error) { return o.Bool(name) })
	w.same(path+" Bool", b1, b2, e1, e2)
	r1, e1 := call(true, func() (json.RawMessage, error) { return n.Raw(name) })
	r2, e2 := call(false, func() (json.RawMessage, error) { return o.Raw(name) })
	w.same(path+" Raw", r1, r2, e1, e2)
	w.same(path+" Has", n.Has(name), o.Has(name), nil, nil)
}

func exported(e *plan.Expr) []any {
	return []any{e.Class, e.DataType, e.Nullable, e.Deterministic, e.Fields, e.ExprID, e.Ordinal, e.Name, e.ID}
}

func (w *walker) expr(path string, n, o *plan.Expr) {
	w.t.Helper()
	if (n == nil) != (o == nil) {
		w.t.Errorf("%s: expression %v, want %v", path, n, o)
		return
	}
	if n == nil {
		return
	}
	w.exprs++
	if !w.same(path, exported(n), exported(o), nil, nil) {
		return
	}
	r1, e1 := call(true, func() ([]int, error) { return plan.References(n) })
	r2, e2 := call(false, func() ([]int, error) { return plan.References(o) })
	w.same(path+" References", r1, r2, e1, e2)
	t1, e1 := call(true, n.Type)
	t2, e2 := call(false, o.Type)
	w.same(path+" Type", t1, t2, e1, e2)
	for _, name := range slices.Sorted(maps.Keys(o.Fields)) {
		fp := path + "." + name
		nc, nerr := call(true, func() (*plan.Expr, error) { return n.Child(name) })
		oc, oerr := call(false, func() (*plan.Expr, error) { return o.Child(name) })
		if errText(nerr) != errText(oerr) {
			w.t.Errorf("%s Child: error %q, want %q", fp, errText(nerr), errText(oerr))
		} else if nerr == nil {
			w.expr(fp, nc, oc)
		} else if (nc == nil) != (oc == nil) {
			w.t.Errorf("%s Child (with its error): %v, want %v", fp, nc, oc)
		} else if nc != nil {
			w.same(fp+" Child (with its error)", exported(nc), exported(oc), nil, nil)
		}
		ncs, nerr := call(true, func() ([]*plan.Expr, error) { return n.Children(name) })
		ocs, oerr := call(false, func() ([]*plan.Expr, error) { return o.Children(name) })
		w.exprList(fp, ncs, ocs, nerr, oerr)
		w.scalars(fp, n, o, name)
		p1, e1 := call(true, func() (*plan.Product, error) { return n.Product(name) })
		p2, e2 := call(false, func() (*plan.Product, error) { return o.Product(name) })
		w.same(fp+" Product", p1, p2, e1, e2)
		d1, e1 := call(true, func() (any, error) { return n.DataTypeField(name) })
		d2, e2 := call(false, func() (any, error) { return o.DataTypeField(name) })
		w.same(fp+" DataTypeField", d1, d2, e1, e2)
	}
}

// Tasks decode one shared plan from several goroutines: expressions decoded from one parse must
// be safe to decode at the same time (run with -race).
func TestConcurrentDecode(t *testing.T) {
	raw, err := os.ReadFile("../translate/testdata/plan-q1.json")
	if err != nil {
		t.Fatal(err)
	}
	var r plan.PlanRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	want := walkPlan(r.Plan)
	got := make([]int, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = walkPlan(r.Plan) })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("goroutine %d decoded %d expressions, want %d", i, g, want)
		}
	}
}

// walkPlan decodes every expression of a plan through the accessors, as operators do, and counts
// them.
func walkPlan(root *plan.Node) int {
	var count func(e *plan.Expr) int
	count = func(e *plan.Expr) int {
		n := 1
		for _, name := range slices.Sorted(maps.Keys(e.Fields)) {
			if c, err := e.Child(name); err == nil {
				n += count(c)
			} else if cs, err := e.Children(name); err == nil {
				for _, c := range cs {
					if c != nil {
						n += count(c)
					}
				}
			}
		}
		_, _ = plan.References(e)
		return n
	}
	var walk func(n *plan.Node) int
	walk = func(n *plan.Node) int {
		total := 0
		for name := range n.Fields {
			if e, err := n.Expr(name); err == nil && e != nil {
				total += count(e)
			} else if es, err := n.Exprs(name); err == nil {
				for _, e := range es {
					if e != nil {
						total += count(e)
					}
				}
			}
		}
		for _, c := range n.Children {
			total += walk(c)
		}
		return total
	}
	return walk(root)
}

// BenchmarkWalk decodes every expression of a captured plan request, with encoding/json alone
// and with the one-pass decoding.
func BenchmarkWalk(b *testing.B) {
	for _, q := range []string{"q6", "q1"} {
		raw, err := os.ReadFile("../translate/testdata/plan-" + q + ".json")
		if err != nil {
			b.Fatal(err)
		}
		for _, fast := range []bool{false, true} {
			mode := map[bool]string{false: "encoding-json", true: "one-pass"}[fast]
			b.Run(q+"/"+mode, func(b *testing.B) {
				defer plan.SetFastPath(fast)()
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				for b.Loop() {
					var r plan.PlanRequest
					if err := json.Unmarshal(raw, &r); err != nil {
						b.Fatal(err)
					}
					walkPlan(r.Plan)
				}
			})
		}
	}
}

// nested encodes a chain of depth Not expressions over one attribute.
func nested(depth int) []byte {
	var b bytes.Buffer
	for range depth {
		b.WriteString(`{"class":"org.apache.spark.sql.catalyst.expressions.Not","dataType":"boolean","nullable":true,"deterministic":true,"fields":{"child":`)
	}
	b.WriteString(`{"class":"org.apache.spark.sql.catalyst.expressions.AttributeReference","dataType":"boolean","nullable":true,"deterministic":true,"fields":{"name":"b"},"exprId":1,"ordinal":0,"name":"b"}`)
	for range depth {
		b.WriteString(`},"id":7}`)
	}
	return b.Bytes()
}

// BenchmarkDepth decodes a chain of expressions from its root to its leaf: per level, the one-pass
// decoding costs the same at any depth, where encoding/json scanned the whole rest of the chain.
func BenchmarkDepth(b *testing.B) {
	for _, depth := range []int{10, 100, 400} {
		raw := nested(depth)
		for _, fast := range []bool{false, true} {
			mode := map[bool]string{false: "encoding-json", true: "one-pass"}[fast]
			b.Run(fmt.Sprintf("%d/%s", depth, mode), func(b *testing.B) {
				defer plan.SetFastPath(fast)()
				n := &plan.Node{NodeName: "N", Fields: map[string]json.RawMessage{"e": raw}}
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					e, err := n.Expr("e")
					for d := 0; err == nil && d < depth; d++ {
						e, err = e.Child("child")
					}
					if err != nil || e.Name != "b" {
						b.Fatal(e, err)
					}
				}
			})
		}
	}
}

func TestDepth(t *testing.T) {
	w := walker{t: t}
	n := &plan.Node{NodeName: "N", Fields: map[string]json.RawMessage{"e": nested(60)}}
	w.node("nested", n, n)
	if w.exprs != 61 {
		t.Errorf("%d expressions, want 61", w.exprs)
	}
}
