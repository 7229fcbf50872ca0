package expr

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// evalMode is Spark's EvalMode (LEGACY, ANSI, TRY).
type evalMode uint8

const (
	modeLegacy evalMode = iota
	modeANSI
	modeTry
)

func (m evalMode) String() string {
	switch m {
	case modeANSI:
		return "ANSI"
	case modeTry:
		return "TRY"
	}
	return "LEGACY"
}

func parseModeName(s string) (evalMode, error) {
	switch s {
	case "LEGACY":
		return modeLegacy, nil
	case "ANSI":
		return modeANSI, nil
	case "TRY":
		return modeTry, nil
	}
	return 0, fmt.Errorf("unknown eval mode %q", s)
}

// exprEvalMode reads the eval mode of an arithmetic expression: Spark 4.1 keeps it in
// evalContext (a NumericEvalContext product), older releases in an evalMode field.
func exprEvalMode(e *plan.Expr) (evalMode, error) {
	if e.Has("evalContext") {
		p, err := e.Product("evalContext")
		if err != nil {
			return 0, err
		}
		if p == nil {
			return 0, fmt.Errorf("%s has a null evalContext", plan.ShortClass(e.Class))
		}
		s, err := p.String("evalMode")
		if err != nil {
			return 0, err
		}
		return parseModeName(s)
	}
	if e.Has("evalMode") {
		s, err := e.String("evalMode")
		if err != nil {
			return 0, err
		}
		return parseModeName(s)
	}
	return 0, fmt.Errorf("%s has neither evalContext nor evalMode", plan.ShortClass(e.Class))
}

func unsupported(format string, args ...any) error {
	return &Unsupported{Reason: fmt.Sprintf(format, args...)}
}

// mayFail reports whether evaluating e can raise a data error (ANSI overflow, division by
// zero, ...). Expressions that short-circuit in Spark (And, Or, If, CaseWhen, Coalesce)
// evaluate such children only on the rows Spark would evaluate them on (see mask.go), because
// evaluating them on every row could raise an error Spark never raises.
type failer interface{ mayFail() bool }

// MayFail reports whether evaluating e can raise an error (ANSI arithmetic, casts, ...) on some
// input: operators that must evaluate only where Spark would (Spark stops at the first match of
// a semi join's condition) refuse such expressions.
func MayFail(e Expr) bool { return mayFail(e) }

func mayFail(e Expr) bool {
	if f, ok := e.(failer); ok {
		return f.mayFail()
	}
	return false
}

// translateChild translates a named child field.
func translateChild(e *plan.Expr, field string, conf *plan.Conf) (Expr, error) {
	c, err := e.Child(field)
	if err != nil {
		return nil, err
	}
	return Translate(c, conf)
}

func translateChildren(e *plan.Expr, field string, conf *plan.Conf) ([]Expr, error) {
	cs, err := e.Children(field)
	if err != nil {
		return nil, err
	}
	out := make([]Expr, len(cs))
	for i, c := range cs {
		if out[i], err = Translate(c, conf); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ---- typed access to Arrow buffers ----

func reinterpret[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// values returns the fixed-width values of a (offset applied).
func values[T any](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return nil
	}
	all := reinterpret[T](bufs[1].Bytes())
	return all[d.Offset() : d.Offset()+d.Len()]
}

// validity returns a's validity bitmap and bit offset, or nil when a has no nulls.
func validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	return a.NullBitmapBytes(), a.Data().Offset()
}

// newFixed allocates an uninitialised buffer of n values of T.
func newFixed[T any](alloc memory.Allocator, n int) (*memory.Buffer, []T) {
	var z T
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(n * int(unsafe.Sizeof(z)))
	return buf, reinterpret[T](buf.Bytes())[:n:n]
}

// newBitmap allocates a zeroed bitmap of n bits.
func newBitmap(alloc memory.Allocator, n int) (*memory.Buffer, []byte) {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	b := buf.Bytes()
	clear(b)
	return buf, b
}

// finish wraps buffers into an array; it takes over the caller's buffer references.
func finish(dt arrow.DataType, n int, valid, vals *memory.Buffer, nulls int) arrow.Array {
	if nulls == 0 && valid != nil {
		valid.Release()
		valid = nil
	}
	d := array.NewData(dt, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	if vals != nil {
		vals.Release()
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// allNull builds an all-null array of type dt.
func allNull(alloc memory.Allocator, dt arrow.DataType, n int) arrow.Array {
	if dt.ID() == arrow.NULL {
		return array.NewNull(n)
	}
	return array.MakeArrayOfNull(alloc, dt, n)
}

// andValidity combines the validity of arrays (nil entries ignored) into a new bitmap; it
// returns nil when no input has nulls.
func andValidity(alloc memory.Allocator, n int, arrs ...arrow.Array) (*memory.Buffer, int) {
	var out *memory.Buffer
	var ob []byte
	for _, a := range arrs {
		if a == nil {
			continue
		}
		bm, off := validity(a)
		if bm == nil {
			continue
		}
		if out == nil {
			out, ob = newBitmap(alloc, n)
			bitutil.CopyBitmap(bm, off, n, ob, 0)
			continue
		}
		bitutil.BitmapAnd(ob, bm, 0, int64(off), ob, 0, int64(n))
	}
	if out == nil {
		return nil, 0
	}
	return out, n - bitutil.CountSetBits(ob, 0, n)
}

// bitmapValidBits returns a fresh copy of a's validity (all set when a has no nulls).
func copyValidity(alloc memory.Allocator, a arrow.Array, n int) (*memory.Buffer, []byte) {
	buf, b := newBitmap(alloc, n)
	bm, off := validity(a)
	if bm == nil {
		bitutil.SetBitsTo(b, 0, int64(n), true)
	} else {
		bitutil.CopyBitmap(bm, off, n, b, 0)
	}
	return buf, b
}

func countNulls(valid []byte, n int) int { return n - bitutil.CountSetBits(valid, 0, n) }

func b2u(b bool) byte {
	var x byte
	if b {
		x = 1
	}
	return x
}

// ---- operands ----

// constExpr is implemented by expressions whose value is the same on every row (literals):
// kernels then read their single value instead of a materialized column.
type constExpr interface {
	// constArray returns a one-row array holding the value (not to be released).
	constArray() arrow.Array
}

// operand is an evaluated child: a column of NumRows values, or a one-row constant.
type operand struct {
	arr    arrow.Array
	scalar bool
	owned  bool
}

func (o operand) release() {
	if o.owned && o.arr != nil {
		o.arr.Release()
	}
}

func (o operand) nullScalar() bool { return o.scalar && isNullAt(o.arr, 0) }

// isNullAt is a.IsNull(i), also for arrays of the Null type (which have no bitmap).
func isNullAt(a arrow.Array, i int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(i)
}

func evalOperand(ctx *exec.TaskContext, b *columnar.Batch, e Expr) (operand, error) {
	if c, ok := e.(constExpr); ok {
		return operand{arr: c.constArray(), scalar: true}, nil
	}
	a, err := e.Eval(ctx, b)
	if err != nil {
		return operand{}, err
	}
	if a.Len() != b.NumRows {
		a.Release()
		return operand{}, fmt.Errorf("%s returned %d rows for a batch of %d", e, a.Len(), b.NumRows)
	}
	return operand{arr: a, owned: true}, nil
}

// idxMask is the index mask for reading an operand at row i: i&mask (0 for a constant).
func (o operand) mask() int {
	if o.scalar {
		return 0
	}
	return -1
}

// binaryValidity computes the result validity of a null-intolerant binary operation.
// allNull is true when a constant operand is null.
func binaryValidity(alloc memory.Allocator, n int, l, r operand) (buf *memory.Buffer, nulls int, allNullRes bool) {
	if l.nullScalar() || r.nullScalar() {
		return nil, n, true
	}
	var a, c arrow.Array
	if !l.scalar {
		a = l.arr
	}
	if !r.scalar {
		c = r.arr
	}
	buf, nulls = andValidity(alloc, n, a, c)
	return buf, nulls, false
}

// ---- decimal128 raw access ----

func numOf(a arrow.Array, i int) decimal128.Num { return values[decimal128.Num](a)[i] }

// typeCheck verifies at run time that a column has the Arrow type its Spark type implies.
func typeCheck(a arrow.Array, t sparktype.Type, what string) error {
	want := t.Arrow()
	if want == nil || !arrow.TypeEqual(a.DataType(), want) {
		if want != nil && a.DataType().ID() == want.ID() && want.ID() != arrow.DECIMAL128 {
			return nil // e.g. timestamp zones differ: same values
		}
		return fmt.Errorf("%s: column has Arrow type %s, expected %s for Spark type %s", what, a.DataType(), want, t)
	}
	return nil
}
