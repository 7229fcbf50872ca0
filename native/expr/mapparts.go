// map_keys, map_values and map_entries share the map's offsets: an Arrow map is a list of
// key-value structs, so each is the same list over one child (or the entries struct itself).
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

type mapPart int

const (
	mapKeysPart mapPart = iota
	mapValuesPart
)

func init() {
	RegisterNested("MapKeys", "map_keys(m): the keys as an array, in the map's order", mapPartTranslator(mapKeysPart))
	RegisterNested("MapValues", "map_values(m): the values as an array, in the map's order", mapPartTranslator(mapValuesPart))
}

type mapPartExpr struct {
	child Expr
	part  mapPart
	typ   sparktype.Type
}

func mapPartTranslator(part mapPart) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(e, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Map {
			return nil, unsupported("%s of %s", e.Class, c.Type())
		}
		t, err := e.Type()
		if err != nil {
			return nil, err
		}
		return &mapPartExpr{child: c, part: part, typ: t}, nil
	}
}

func (m *mapPartExpr) Type() sparktype.Type { return m.typ }
func (m *mapPartExpr) mayFail() bool        { return mayFail(m.child) }
func (m *mapPartExpr) String() string {
	if m.part == mapKeysPart {
		return fmt.Sprintf("map_keys(%s)", m.child)
	}
	return fmt.Sprintf("map_values(%s)", m.child)
}

func (m *mapPartExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
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
	entries := d.Children()[0] // the whole struct child: offsets index into it
	kid := entries.Children()[int(m.part)]
	if entries.Offset() != 0 || entries.Len() != kid.Len() {
		// A sliced entries struct: slice the part to match.
		kid = array.NewSliceData(kid, int64(entries.Offset()), int64(entries.Offset()+entries.Len()))
		defer kid.Release()
	}
	bufs := d.Buffers()
	nd := array.NewData(m.typ.Arrow(), d.Len(), []*memory.Buffer{bufs[0], bufs[1]}, []arrow.ArrayData{kid}, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}
