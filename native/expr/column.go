package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register("AttributeReference", "input column, bound by the encoder to its position in the child output", translateAttribute)
	Register("BoundReference", "input column by ordinal", translateBound)
	Register("Alias", "names its child; evaluates the child", func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		return translateChild(e, "child", conf)
	})
}

// Column reads one input column of the batch.
type Column struct {
	ordinal int
	name    string
	typ     sparktype.Type
}

// NewColumn reads input column ordinal, of type t, named name in explain output (operators that
// build their own inputs, such as a hash join over its spilled partitions, bind with it).
func NewColumn(ordinal int, name string, t sparktype.Type) *Column {
	return &Column{ordinal: ordinal, name: name, typ: t}
}

func (c *Column) Type() sparktype.Type { return c.typ }
func (c *Column) String() string       { return fmt.Sprintf("%s#%d", c.name, c.ordinal) }

// Ordinal is the position of the column in the input batch.
func (c *Column) Ordinal() int { return c.ordinal }

func translateAttribute(e *plan.Expr, _ *plan.Conf) (Expr, error) {
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	name := e.Name
	if name == "" && e.Has("name") {
		name, _ = e.String("name")
	}
	if e.Ordinal == nil || *e.Ordinal < 0 {
		return nil, unsupported("unbound attribute %s", name)
	}
	return &Column{ordinal: *e.Ordinal, name: name, typ: t}, nil
}

func translateBound(e *plan.Expr, _ *plan.Conf) (Expr, error) {
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	o, err := e.Int("ordinal")
	if err != nil {
		return nil, err
	}
	if o < 0 {
		return nil, unsupported("BoundReference with negative ordinal %d", o)
	}
	return &Column{ordinal: int(o), name: "input", typ: t}, nil
}

func (c *Column) Eval(_ *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	if c.ordinal >= len(b.Cols) {
		return nil, fmt.Errorf("column %s: batch has only %d columns", c, len(b.Cols))
	}
	a := b.Cols[c.ordinal]
	if err := typeCheck(a, c.typ, c.String()); err != nil {
		return nil, err
	}
	if a.Len() != b.NumRows {
		return nil, fmt.Errorf("column %s has %d rows, batch %d", c, a.Len(), b.NumRows)
	}
	a.Retain()
	return a, nil
}
