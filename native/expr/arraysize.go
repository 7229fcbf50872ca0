// size / cardinality. A null collection has size -1 under spark.sql.legacy.sizeOfNull (which Spark
// ignores in ANSI mode: the planner has already folded that into the expression's
// legacySizeOfNull field), otherwise null.
package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("Size", "size / cardinality of an array or map (-1 or null for null by spark.sql.legacy.sizeOfNull)", translateSize)
}

type sizeExpr struct {
	child      Expr
	legacyNull bool
}

func translateSize(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := translateChild(e, "child", conf)
	if err != nil {
		return nil, err
	}
	if k := c.Type().Kind; k != sparktype.Array && k != sparktype.Map {
		return nil, unsupported("size of %s", c.Type())
	}
	legacy, err := e.Bool("legacySizeOfNull")
	if err != nil {
		return nil, err
	}
	return &sizeExpr{child: c, legacyNull: legacy}, nil
}

func (s *sizeExpr) Type() sparktype.Type { return sparktype.IntType }
func (s *sizeExpr) mayFail() bool        { return mayFail(s.child) }
func (s *sizeExpr) String() string       { return fmt.Sprintf("size(%s)", s.child) }

func (s *sizeExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	a, err := s.child.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, ok := a.(listArray)
	if !ok {
		return nil, fmt.Errorf("%s: child is %s, not a list or map", s, a.DataType())
	}
	n := a.Len()
	offs := listOffsets(l)
	vbuf, out := newFixed[int32](ctx.Alloc, n)
	for i := range out {
		out[i] = offs[i+1] - offs[i]
	}
	bm, boff := validity(a)
	if bm == nil {
		return finish(arrow.PrimitiveTypes.Int32, n, nil, vbuf, 0), nil
	}
	if s.legacyNull {
		for i := range out {
			if !bitutil.BitIsSet(bm, boff+i) {
				out[i] = -1
			}
		}
		return finish(arrow.PrimitiveTypes.Int32, n, nil, vbuf, 0), nil
	}
	valid, _ := copyValidity(ctx.Alloc, a, n)
	return finish(arrow.PrimitiveTypes.Int32, n, valid, vbuf, a.NullN()), nil
}

// listArray is an Arrow list or map (a map is a list of key-value structs).
type listArray interface {
	arrow.Array
	Offsets() []int32
	ListValues() arrow.Array
}

// listOffsets are the Len()+1 offsets of a list or map into its values, the array's offset
// applied (Arrow's Offsets() returns the whole buffer).
func listOffsets(a listArray) []int32 {
	d := a.Data()
	if d.Len() == 0 && len(a.Offsets()) == 0 {
		return []int32{0}
	}
	return a.Offsets()[d.Offset() : d.Offset()+d.Len()+1]
}
