package aggregate

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Mode is Spark's AggregateMode, per aggregate function: whether the function reads input rows
// (Partial, Complete) or buffers (PartialMerge, Final), and whether it produces buffers (Partial,
// PartialMerge) or results (Final, Complete).
type Mode uint8

const (
	// GroupingOnly: no aggregate expressions (SELECT DISTINCT-like); results over the keys. An
	// operator mode only, never a function's.
	GroupingOnly Mode = iota
	Partial
	PartialMerge
	Final
	Complete
)

func (m Mode) String() string {
	return [...]string{"GroupingOnly", "Partial", "PartialMerge", "Final", "Complete"}[m]
}

// updates reports whether the mode reads raw input rows (otherwise it merges buffers).
func (m Mode) updates() bool { return m == Partial || m == Complete }

// evaluates reports whether the mode ends in results (otherwise in buffers).
func (m Mode) evaluates() bool { return m == Final || m == Complete }

// parseMode reads an encoded AggregateMode (a Scala object's name).
func parseMode(s string) (Mode, bool) {
	switch strings.TrimSuffix(s, "$") {
	case "Partial":
		return Partial, true
	case "PartialMerge":
		return PartialMerge, true
	case "Final":
		return Final, true
	case "Complete":
		return Complete, true
	}
	return 0, false
}

// function is the per-task state of one aggregate function over all groups. Every method works on
// a whole batch: the typed loops live in the family files, one interface call per batch.
type function interface {
	// bufferTypes is Spark's aggBufferAttributes layout.
	bufferTypes() []sparktype.Type
	// grow makes room for n groups, new ones at Spark's initial values.
	grow(n int)
	// update folds the rows of an input batch into their groups (Partial, Complete).
	update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error
	// merge folds partial buffers (this function's buffer columns) into their groups
	// (PartialMerge, Final).
	merge(cols []arrow.Array, gids []uint32) error
	// buffers builds the buffer columns of groups [lo, hi) (Partial, PartialMerge output).
	buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error)
	// result evaluates the function for groups [lo, hi) (Final, Complete).
	result(alloc memory.Allocator, lo, hi int) (arrow.Array, error)
}

// fnSpec is the validated, immutable description of one aggregate function; newState makes the
// per-task state.
type fnSpec struct {
	name       string
	bufTypes   []sparktype.Type
	resultType sparktype.Type
	newState   func() function

	// Set by the operator: the function's mode; for a merging mode the child column of its first
	// buffer; for an updating mode with a FILTER clause the predicate and the child columns the
	// function's arguments read (only those are copied for the rows that pass).
	mode   Mode
	bufCol int
	filter expr.Expr
	refs   []int

	// codes is set by a function that can read its input column as dictionary codes (min, max
	// of a column: lazyminmax.go); nil otherwise.
	codes *codesInput
	// reads are the child columns an updating function reads (arguments and FILTER clause), set
	// by the operator; readsOK is false when they could not be told (every column is then read).
	reads   []int
	readsOK bool
}

// fnContext is what a function builder needs to know about its operator.
type fnContext struct {
	mode  Mode
	child []sparktype.Field
	conf  *plan.Conf
	// singleGroup: no grouping keys. Spark then keeps buffers in generated local variables (no
	// per-row decimal precision check) instead of UnsafeRow buffers.
	singleGroup bool
	// dispatched collects, for the whole operator, the classes of the inputs the JVM evaluates
	// (shared by every function's copy of the context).
	dispatched *[]string
	// dec64 is the operator's narrowed decimal columns of the current batch (nil in tests that
	// build functions alone).
	dec64 *expr.Dec64Batch
	// rows is the operator's rows per group of the current batch (nil in tests that build
	// functions alone).
	rows *groupRows
}

type fnBuilder func(fn *plan.Expr, c *fnContext) (*fnSpec, error)

var functions = map[string]fnBuilder{}

func registerFunction(shortClass string, b fnBuilder) { functions[shortClass] = b }

// Registered reports whether an aggregate function class (short name, e.g. "Sum") is run natively
// (some argument types or modes may still be refused, with a reason).
func Registered(shortClass string) bool {
	_, ok := functions[shortClass]
	return ok
}

// unsupported is a refusal whose text is shown to users.
type unsupported struct{ reason string }

func (u *unsupported) Error() string { return u.reason }

func refuse(format string, args ...any) error {
	return &unsupported{reason: fmt.Sprintf(format, args...)}
}

// evalModeOf reads the eval mode of Sum (4.1: evalContext.evalMode; 4.0: evalMode) or Average.
func evalModeOf(fn *plan.Expr) (string, error) {
	if fn.Has("evalContext") {
		p, err := fn.Product("evalContext")
		if err != nil {
			return "", err
		}
		if p == nil {
			return "", fmt.Errorf("%s has a null evalContext", plan.ShortClass(fn.Class))
		}
		return p.String("evalMode")
	}
	if fn.Has("evalMode") {
		return fn.String("evalMode")
	}
	return "LEGACY", nil
}

// input is one argument of an aggregate function or one grouping key, evaluated over the child's
// batches: a plain column reference is taken as is; anything else goes through package expr.
type input struct {
	ordinal  int
	e        expr.Expr
	typ      sparktype.Type
	nullable bool
	// d64 computes a decimal input in 64 bits when a batch allows it (eval64); nil otherwise.
	d64  *expr.Dec64
	d64b *expr.Dec64Batch
}

// eval64 computes a decimal input as exact int64 unscaled values with a bound on their
// magnitudes, when the batch allows it (no nulls, no value or intermediate result beyond 64 bits
// or its precision: expr.Dec64); ok is false otherwise, and the caller uses eval. The values are
// valid until the next eval64 of any input of the operator.
func (in *input) eval64(b *columnar.Batch) (vals []int64, bound uint64, ok bool) {
	if in == nil || in.d64 == nil {
		return nil, 0, false
	}
	return in.d64.Eval(in.d64b, b)
}

// withDec64 compiles the 64-bit program of a decimal input.
func (in *input) withDec64(c *fnContext) *input {
	if c.dec64 == nil || in.typ.Kind != sparktype.Decimal {
		return in
	}
	e := in.e
	if e == nil {
		e = expr.NewColumn(in.ordinal, "input", in.typ)
	}
	if in.d64 = expr.CompileDec64(e); in.d64 != nil {
		in.d64b = c.dec64
	}
	return in
}

func (in *input) eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	if in.e == nil {
		c := b.Cols[in.ordinal]
		c.Retain()
		return c, nil
	}
	return in.e.Eval(ctx, b)
}

// stripAlias returns the child of an Alias.
func stripAlias(e *plan.Expr) (*plan.Expr, error) {
	for e != nil && plan.ShortClass(e.Class) == "Alias" {
		c, err := e.Child("child")
		if err != nil {
			return nil, err
		}
		e = c
	}
	return e, nil
}

func isAttribute(e *plan.Expr) bool {
	return plan.ShortClass(e.Class) == "AttributeReference" && e.Ordinal != nil
}

// newInput binds an expression over the child's output. With normalized set, the floating-point
// normalization wrappers Spark puts on grouping keys are dropped from a plain column: the hash table
// normalizes keys itself, with the same result.
func newInput(e *plan.Expr, c *fnContext, normalized bool) (*input, error) {
	e, err := stripAlias(e)
	if err != nil {
		return nil, err
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if normalized {
		inner := e
		for {
			cls := plan.ShortClass(inner.Class)
			if cls != "KnownFloatingPointNormalized" && cls != "NormalizeNaNAndZero" {
				break
			}
			if inner, err = inner.Child("child"); err != nil {
				return nil, err
			}
		}
		if isAttribute(inner) {
			e = inner
		}
	}
	if isAttribute(e) {
		o := *e.Ordinal
		if o < 0 || o >= len(c.child) {
			return nil, fmt.Errorf("attribute %s (#%d) is not in the child's output", e.Name, derefID(e))
		}
		if !c.child[o].Type.Equal(t) {
			return nil, fmt.Errorf("attribute %s has type %s but child column %d is %s", e.Name, t, o, c.child[o].Type)
		}
		return (&input{ordinal: o, typ: t, nullable: e.Nullable}).withDec64(c), nil
	}
	// An argument without a kernel is evaluated by the JVM (expr.Dispatched) over the child's
	// batch, as Spark's aggregate evaluates it over the child's rows: every row, no short-circuit.
	ex, err := expr.TranslateOrDispatch(e, c.conf)
	if err != nil {
		return nil, err
	}
	if d := expr.DispatchedIn(ex); len(d) > 0 && c.dispatched != nil {
		*c.dispatched = append(*c.dispatched, d...)
	}
	return (&input{ordinal: -1, e: ex, typ: ex.Type(), nullable: e.Nullable}).withDec64(c), nil
}

func derefID(e *plan.Expr) int64 {
	if e.ExprID == nil {
		return -1
	}
	return *e.ExprID
}

// singleChild decodes the `child` of a unary aggregate function and its type.
func singleChild(fn *plan.Expr) (*plan.Expr, sparktype.Type, error) {
	child, err := fn.Child("child")
	if err != nil {
		return nil, sparktype.Type{}, err
	}
	t, err := child.Type()
	return child, t, err
}

// bindInput binds an argument when the mode reads raw rows; merging modes never evaluate it.
func bindInput(e *plan.Expr, c *fnContext) (*input, error) {
	if !c.mode.updates() {
		return nil, nil
	}
	return newInput(e, c, false)
}

// bitSet reports whether row i is valid in a validity bitmap (nil = all valid).
func bitSet(bits []byte, off, i int) bool {
	if bits == nil {
		return true
	}
	i += off
	return bits[i>>3]&(1<<uint(i&7)) != 0
}
