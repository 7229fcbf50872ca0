// map_entries(m): an Arrow map already is a list of key-value structs, so the entries array
// shares the map's validity, offsets and entry columns; only the types are renamed to Spark's
// array<struct<key, value>>.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("MapEntries", "map_entries(m): the entries as an array of key-value structs, in the map's order", translateMapEntries)
}

type mapEntriesExpr struct {
	child Expr
	typ   sparktype.Type
}

func translateMapEntries(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Map {
		return nil, unsupported("map_entries of %s", c.Type())
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	st, ok := arrElem(t)
	if !ok || st.Kind != sparktype.Struct || len(st.Fields()) != 2 {
		return nil, unsupported("map_entries returning %s", t)
	}
	return &mapEntriesExpr{child: c, typ: t}, nil
}

func (m *mapEntriesExpr) Type() sparktype.Type { return m.typ }
func (m *mapEntriesExpr) mayFail() bool        { return mayFail(m.child) }
func (m *mapEntriesExpr) String() string       { return fmt.Sprintf("map_entries(%s)", m.child) }

func (m *mapEntriesExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	a, err := m.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	mp, ok := a.(*array.Map)
	if !ok {
		return nil, fmt.Errorf("%s: child is %s, not a map", m, a.DataType())
	}
	d := mp.Data()
	entries := d.Children()[0]
	structType := m.typ.Arrow().(*arrow.ListType).Elem()
	sd := array.NewData(structType, entries.Len(), entries.Buffers(), entries.Children(), entries.NullN(), entries.Offset())
	defer sd.Release()
	bufs := d.Buffers()
	nd := array.NewData(m.typ.Arrow(), d.Len(), []*memory.Buffer{bufs[0], bufs[1]}, []arrow.ArrayData{sd}, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}
