package sort

import (
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Order is one key of an ordering: Catalyst's SortOrder (child, direction, nullOrdering), with the
// child translated into a native expression over the operator's input.
type Order struct {
	Expr       expr.Expr
	Descending bool
	NullsFirst bool
}

func (o Order) String() string {
	dir, nulls := "ASC", "NULLS LAST"
	if o.Descending {
		dir = "DESC"
	}
	if o.NullsFirst {
		nulls = "NULLS FIRST"
	}
	return fmt.Sprintf("%s %s %s", o.Expr, dir, nulls)
}

// Unsupported is a refusal: the reason the ordering stays in Spark.
type Unsupported struct{ Reason string }

func (u *Unsupported) Error() string { return u.Reason }

func refuse(format string, args ...any) error {
	return &Unsupported{Reason: fmt.Sprintf(format, args...)}
}

// KeyTypeSupported reports whether values of t can be sorted natively: the atomic types whose
// Spark ordering (PhysicalDataType.ordering) the key stores implement. Collated strings parse as
// unsupported types (their order is the collation's, not bytewise), and so are refused here.
func KeyTypeSupported(t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Float, sparktype.Double, sparktype.Decimal, sparktype.String, sparktype.Binary,
		sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
		return true
	}
	return false
}

// DecodeOrders translates encoded SortOrder expressions. Direction and null ordering arrive as
// the names of Catalyst's case objects (Ascending, Descending, NullsFirst, NullsLast); a missing
// null ordering takes Spark's default for the direction (ASC NULLS FIRST, DESC NULLS LAST), as
// SortOrder.apply does. An error is the fallback reason. With dispatch set, a key the engine has
// no kernel for is evaluated by the JVM (expr.TranslateOrDispatch): only where the JVM side has
// the operator's expressions to evaluate (a native Sort or top-k, not a shuffle's partitioning).
func DecodeOrders(es []*plan.Expr, conf *plan.Conf, dispatch bool) ([]Order, error) {
	out := make([]Order, 0, len(es))
	for i, e := range es {
		if e == nil || plan.ShortClass(e.Class) != "SortOrder" {
			what := "null"
			if e != nil {
				what = plan.ShortClass(e.Class)
			}
			return nil, fmt.Errorf("sort order %d is a %s, not a SortOrder", i, what)
		}
		child, err := e.Child("child")
		if err != nil {
			return nil, err
		}
		t, err := child.Type()
		if err != nil {
			return nil, err
		}
		if !KeyTypeSupported(t) {
			return nil, refuse("sorting by %s of type %s is not supported natively", exprName(child), t)
		}
		dir, err := e.String("direction")
		if err != nil {
			return nil, err
		}
		var o Order
		switch strings.TrimSuffix(dir, "$") {
		case "Ascending":
		case "Descending":
			o.Descending = true
		default:
			return nil, fmt.Errorf("sort order %d has unknown direction %q", i, dir)
		}
		o.NullsFirst = !o.Descending
		if e.Has("nullOrdering") {
			nulls, err := e.String("nullOrdering")
			if err != nil {
				return nil, err
			}
			switch strings.TrimSuffix(nulls, "$") {
			case "NullsFirst":
				o.NullsFirst = true
			case "NullsLast":
				o.NullsFirst = false
			default:
				return nil, fmt.Errorf("sort order %d has unknown null ordering %q", i, nulls)
			}
		}
		translate := expr.Translate
		if dispatch {
			translate = expr.TranslateOrDispatch
		}
		if o.Expr, err = translate(child, conf); err != nil {
			return nil, err
		}
		if !o.Expr.Type().Equal(t) {
			return nil, fmt.Errorf("sort key %s: expression type %s differs from the order's type %s", o.Expr, o.Expr.Type(), t)
		}
		out = append(out, o)
	}
	return out, nil
}

// exprName names an expression in a refusal: the attribute's name, else its class.
func exprName(e *plan.Expr) string {
	if e.Name != "" {
		return e.Name
	}
	return plan.ShortClass(e.Class)
}

// checkOperator validates a sorting operator at construction: its keys, and the child's columns,
// which the buffer copies with typed takes.
func checkOperator(what string, child []sparktype.Field, orders []Order) error {
	for _, o := range orders {
		if !KeyTypeSupported(o.Expr.Type()) {
			return refuse("sorting by %s of type %s is not supported natively", o.Expr, o.Expr.Type())
		}
	}
	for _, f := range child {
		if f.Type.Kind == sparktype.Unsupported || f.Type.Nested() {
			return refuse("%s of a column %s of type %s is not supported natively", what, f.Name, f.Type)
		}
	}
	return nil
}
