package expr

// Dispatch: an expression the engine has no kernel for (or whose translator refuses it) is
// evaluated by the JVM, with Spark's own code, instead of sending the whole operator back to
// Spark. The operator stays native; once per batch the expression's input columns cross to the
// JVM (exec.ExprDispatcher, one upcall), which binds the Catalyst expression the encoder numbered
// (plan.Expr.ID) to them, runs Spark's UnsafeProjection over the rows and returns the result
// column as Arrow. Spark's code computes the values, so they are Spark's, bit for bit, and its
// exceptions (ANSI errors) reach the task unchanged.
//
// Dispatched are whole expressions of a Project's list and of a Filter's condition (and of the
// condition's conjuncts), the arguments and grouping keys of an aggregate's functions (evaluated
// over its child's batches, as Spark's aggregate evaluates them on every row) and the keys of a
// sort or top-k: never a subtree under a native parent, so that no native kernel evaluates a
// dispatched child on batches of another shape (lambda bodies, the rows a conditional selects)
// and Spark's own short-circuits and evaluation order hold inside it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// DispatchEnabledKey turns dispatch to the JVM off (BolideConf.DISPATCH_ENABLED; default on).
const DispatchEnabledKey = "spark.bolide.dispatch.enabled"

// DispatchEnabled reads spark.bolide.dispatch.enabled (default true: the JVM sends only the
// settings a session set).
func DispatchEnabled(conf *plan.Conf) bool {
	if conf == nil {
		return true
	}
	v, ok := conf.Settings[DispatchEnabledKey]
	return !ok || !strings.EqualFold(strings.TrimSpace(v), "false")
}

// ExpressionKey is the setting that disables the native translator of one expression class.
func ExpressionKey(short string) string { return "spark.bolide.expression." + short + ".enabled" }

// ExpressionEnabled reads spark.bolide.expression.<Class>.enabled (default true): false sends the
// class to dispatch (when enabled) or its operator back to Spark.
func ExpressionEnabled(conf *plan.Conf, short string) bool {
	if conf == nil {
		return true
	}
	v, ok := conf.Settings[ExpressionKey(short)]
	return !ok || !strings.EqualFold(strings.TrimSpace(v), "false")
}

// Dispatched is an expression the JVM evaluates (see the file comment).
type Dispatched struct {
	id    int
	class string
	typ   sparktype.Type
	// The attributes the expression reads: their positions in the operator's input batch, their
	// exprIds (the JVM binds the expression's attribute references by them) and their types.
	ordinals []int
	exprIDs  []int64
	types    []sparktype.Type
}

// TranslateOrDispatch translates e natively; when the engine refuses it and dispatch is enabled,
// it dispatches e to the JVM if it can (DispatchReason), else the native refusal stands with the
// reason it cannot be dispatched appended.
func TranslateOrDispatch(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	x, err := Translate(e, conf)
	var u *Unsupported
	if err == nil || !errors.As(err, &u) || !DispatchEnabled(conf) {
		return x, err
	}
	d, why := NewDispatched(e)
	if d == nil {
		return nil, &Unsupported{Reason: fmt.Sprintf("%s (not dispatched to the JVM: %s)", u.Reason, why)}
	}
	return d, nil
}

// NewDispatched returns e as an expression the JVM evaluates, or nil and the reason it cannot be.
// An Alias is looked through: the JVM evaluates its child.
func NewDispatched(e *plan.Expr) (*Dispatched, string) {
	for e != nil && plan.ShortClass(e.Class) == "Alias" {
		c, err := e.Child("child")
		if err != nil {
			return nil, err.Error()
		}
		e = c
	}
	if e == nil {
		return nil, "missing expression"
	}
	short := plan.ShortClass(e.Class)
	if e.ID == nil {
		return nil, fmt.Sprintf("%s was encoded without an id", short)
	}
	t, err := e.Type()
	if err != nil {
		return nil, err.Error()
	}
	if !crossesAsArrow(t) {
		return nil, fmt.Sprintf("%s returns %s, which does not cross to the JVM", short, t)
	}
	d := &Dispatched{id: *e.ID, class: short, typ: t}
	seen := map[int64]bool{}
	if why := d.collect(e, seen, false); why != "" {
		return nil, why
	}
	return d, ""
}

// crossesAsArrow: the types both sides write and read with the same Arrow layouts (the engine's
// sparktype.Arrow, Spark's ArrowUtils with timestamps tagged UTC): the atomic ones, and structs,
// arrays and maps of them. Spark's Arrow reader takes a struct's, a list's and a map's children by
// position (a map's key and value by the names both sides give them); the names and nullability
// flags Spark writes into a result's type are replaced by the engine's (asType). A struct with two
// fields of one name does not cross: Spark's Arrow schema refuses it
// (DUPLICATED_FIELD_NAME_IN_ARROW_STRUCT), and Arrow Java keys a struct's children by name.
func crossesAsArrow(t sparktype.Type) bool {
	return t.Supported() || (t.Nested() && t.Readable() && t.Arrow() != nil && duplicateField(t) == "")
}

// notByRow lists the classes Spark does not evaluate row by row inside a projection.
var notByRow = map[string]bool{
	"AggregateExpression": true, "WindowExpression": true, "Exists": true, "ListQuery": true,
	"InSubquery": true, "DynamicPruningExpression": true, "GroupingID": true, "Grouping": true,
}

// collect walks e: every node must be deterministic and evaluable by row; attribute references
// are the inputs. It returns why e cannot be dispatched, or "". inProduct: e is held by a
// product that is not a tuple (a ScalaUDF's encoders hold serializer expressions over their own
// BoundReferences and unresolved columns, which are not e's children): unbound references there
// are not inputs. Bound attributes found there are sent too (the JVM ignores those the
// expression does not reference), so that every attribute Spark binds is among the inputs.
func (d *Dispatched) collect(e *plan.Expr, seen map[int64]bool, inProduct bool) string {
	short := plan.ShortClass(e.Class)
	// Spark's own flag covers the children (a parent is deterministic only if they are); the
	// expressions a product holds are not children.
	if !e.Deterministic && !inProduct {
		return fmt.Sprintf("%s is not deterministic", short)
	}
	if notByRow[short] || strings.Contains(short, "Subquery") {
		return fmt.Sprintf("%s is not evaluated row by row", short)
	}
	switch short {
	case "AttributeReference":
		if e.ExprID == nil || e.Ordinal == nil || *e.Ordinal < 0 {
			if inProduct {
				return ""
			}
			return fmt.Sprintf("attribute %s is not an input column", e.Name)
		}
		if seen[*e.ExprID] {
			return ""
		}
		t, err := e.Type()
		if err != nil {
			return err.Error()
		}
		if !crossesAsArrow(t) {
			return fmt.Sprintf("input column %s is %s, which does not cross to the JVM", e.Name, t)
		}
		seen[*e.ExprID] = true
		d.ordinals = append(d.ordinals, *e.Ordinal)
		d.exprIDs = append(d.exprIDs, *e.ExprID)
		d.types = append(d.types, t)
		return ""
	case "BoundReference":
		if inProduct {
			return ""
		}
		return "a BoundReference cannot be bound by name in the JVM"
	}
	for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
		if why := d.collectValue(e.Fields[k], seen, inProduct); why != "" {
			return why
		}
	}
	return ""
}

// collectValue walks one encoded field value: an expression, a sequence, or a product holding
// expressions (CaseWhen's branches), as plan.Rebind reads them.
func (d *Dispatched) collectValue(raw json.RawMessage, seen map[int64]bool, inProduct bool) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(t, &elems) != nil {
			return ""
		}
		for _, el := range elems {
			if why := d.collectValue(el, seen, inProduct); why != "" {
				return why
			}
		}
	case '{':
		var probe map[string]json.RawMessage
		if json.Unmarshal(t, &probe) != nil {
			return ""
		}
		var class string
		if json.Unmarshal(probe["class"], &class) != nil {
			return ""
		}
		if _, ok := probe["dataType"]; !ok {
			var fields map[string]json.RawMessage
			if json.Unmarshal(probe["fields"], &fields) != nil {
				return ""
			}
			// CaseWhen's branches are tuples of its children; any other product's expressions
			// are its own (an encoder's).
			inner := inProduct || !strings.HasPrefix(class, "scala.Tuple")
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				if why := d.collectValue(fields[k], seen, inner); why != "" {
					return why
				}
			}
			return ""
		}
		var sub plan.Expr
		if err := json.Unmarshal(t, &sub); err != nil {
			return err.Error()
		}
		return d.collect(&sub, seen, inProduct)
	}
	return ""
}

func (d *Dispatched) Type() sparktype.Type { return d.typ }

func (d *Dispatched) String() string { return fmt.Sprintf("dispatch(%s)", d.class) }

// Class is the Catalyst class (short name) the JVM evaluates.
func (d *Dispatched) Class() string { return d.class }

// Spark's code may raise errors (ANSI), and evaluates its own conditionals: operators that
// evaluate only where Spark would must treat it as failing.
func (d *Dispatched) mayFail() bool { return true }

func (d *Dispatched) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	if ctx == nil || ctx.Dispatch == nil {
		return nil, fmt.Errorf("%s (expression %d): the task has no JVM evaluator", d, d.id)
	}
	cols := make([]arrow.Array, len(d.ordinals))
	for i, o := range d.ordinals {
		if o >= len(b.Cols) || b.Cols[o] == nil {
			return nil, fmt.Errorf("%s: input column %d is not in the batch", d, o)
		}
		c := b.Cols[o]
		if err := typeCheck(c, d.types[i], d.String()); err != nil {
			return nil, err
		}
		if c.Len() != b.NumRows {
			return nil, fmt.Errorf("%s: input column %d has %d rows, batch %d", d, o, c.Len(), b.NumRows)
		}
		cols[i] = c
	}
	out, err := ctx.Dispatch.Dispatch(d.id, d.exprIDs, cols, b.NumRows)
	if err != nil {
		return nil, err
	}
	if out.Len() != b.NumRows {
		n := out.Len()
		out.Release()
		return nil, fmt.Errorf("%s: the JVM returned %d values for %d rows", d, n, b.NumRows)
	}
	if d.typ.Nested() {
		return asType(out, d.typ.Arrow(), d.String())
	}
	if err := typeCheck(out, d.typ, d.String()); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// DispatchedIn lists the classes of the dispatched expressions among es (for plan decisions).
func DispatchedIn(es ...Expr) []string {
	var out []string
	for _, e := range es {
		if d, ok := e.(*Dispatched); ok {
			out = append(out, d.class)
		}
	}
	return out
}
