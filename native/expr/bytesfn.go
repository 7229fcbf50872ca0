package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Shared machinery of the functions that build a string or binary value per row (digests, pads,
// hex, reverse, ...): a column builder over tracked memory that reserves each batch's largest
// possible result up front (so rows are written in place, without growth or Go heap copies), and
// the evaluation of a null-intolerant function of one string, binary or long argument.

// bytesOut builds the offsets and data of a string or binary column in tracked memory.
type bytesOut struct {
	offBuf, dataBuf *memory.Buffer
	offs            []int32
	data            []byte // the reserved capacity
	used            int
}

// newBytesOut reserves room for rows values of capacity bytes in all.
func newBytesOut(alloc memory.Allocator, rows int, capacity int64) (*bytesOut, error) {
	if capacity > math.MaxInt32 {
		return nil, fmt.Errorf("result of up to %d bytes exceeds %d bytes in one batch", capacity, math.MaxInt32)
	}
	o := &bytesOut{}
	o.offBuf, o.offs = newFixed[int32](alloc, rows+1)
	o.offs[0] = 0
	o.dataBuf = memory.NewResizableBuffer(alloc)
	o.dataBuf.Reserve(int(capacity))
	o.data = o.dataBuf.Buf()
	return o, nil
}

// room is the free space after the bytes written so far.
func (o *bytesOut) room() []byte { return o.data[o.used:] }

// end ends row i after m bytes were written into room().
func (o *bytesOut) end(i, m int) {
	o.used += m
	o.offs[i+1] = int32(o.used)
}

// ensure makes room for k more bytes, growing the buffer (tracked memory) when needed.
func (o *bytesOut) ensure(k int) error {
	need := int64(o.used) + int64(k)
	if need <= int64(len(o.data)) {
		return nil
	}
	if need > math.MaxInt32 {
		return fmt.Errorf("result exceeds %d bytes in one batch", math.MaxInt32)
	}
	o.dataBuf.Reserve(int(min(max(need, 2*int64(len(o.data))), math.MaxInt32)))
	o.data = o.dataBuf.Buf()
	return nil
}

// append writes b as (part of) the current row's value.
func (o *bytesOut) append(b []byte) { o.used += copy(o.data[o.used:], b) }

// endRow ends row i at the bytes appended so far.
func (o *bytesOut) endRow(i int) { o.offs[i+1] = int32(o.used) }

func (o *bytesOut) release() {
	o.offBuf.Release()
	o.dataBuf.Release()
}

// finish wraps the column; it takes over vbuf.
func (o *bytesOut) finish(dt arrow.DataType, n int, vbuf *memory.Buffer, nulls int) arrow.Array {
	o.dataBuf.Resize(o.used)
	return finishBytes(dt, n, vbuf, nulls, o.offBuf, o.dataBuf)
}

// bytesFn is a null-intolerant function of one string or binary argument (or a long, when
// longArg) that returns a string or binary value.
type bytesFn struct {
	name  string
	child Expr
	typ   sparktype.Type
	// maxLen bounds the result's bytes for an argument of n bytes (or any long).
	maxLen func(n int) int
	// fn writes the result for s into dst (of maxLen(len(s)) bytes) and returns its length,
	// or ok false for a null result.
	fn func(dst, s []byte) (m int, ok bool)
	// longFn replaces fn for a long argument.
	longFn func(dst []byte, v int64) int
}

func (e *bytesFn) Type() sparktype.Type { return e.typ }
func (e *bytesFn) mayFail() bool        { return mayFail(e.child) }
func (e *bytesFn) String() string       { return fmt.Sprintf("%s(%s)", e.name, e.child) }

func (e *bytesFn) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *bytesFn) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	fail := func(err error) (arrow.Array, error) {
		if k.vbuf != nil {
			k.vbuf.Release()
		}
		return nil, err
	}
	if e.longFn != nil {
		vals := values[int64](in)
		out, err := newBytesOut(ctx.Alloc, n, int64(n)*int64(e.maxLen(8)))
		if err != nil {
			return fail(fmt.Errorf("%s: %w", e, err))
		}
		for i, v := range vals {
			m := 0
			if k.rowValid(i) {
				m = e.longFn(out.room(), v)
			}
			out.end(i, m)
		}
		return out.finish(dt, n, k.vbuf, k.nulls), nil
	}
	offs, data := binaryParts(in)
	var capacity int64
	for i := 0; i < n; i++ {
		if k.rowValid(i) {
			capacity += int64(e.maxLen(int(offs[i+1] - offs[i])))
		}
	}
	out, err := newBytesOut(ctx.Alloc, n, capacity)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", e, err))
	}
	for i := 0; i < n; i++ {
		m := 0
		if k.rowValid(i) {
			var ok bool
			if m, ok = e.fn(out.room(), data[offs[i]:offs[i+1]]); !ok {
				k.setNull(i)
				m = 0
			}
		}
		out.end(i, m)
	}
	return out.finish(dt, n, k.vbuf, k.nulls), nil
}

// defaultString reports whether t is the default (UTF8_BINARY) string type, which functions
// returning SQLConf.defaultStringType must return to run natively.
func defaultString(t sparktype.Type) bool { return binaryCollation(t) }

// evalInOrder evaluates the arguments of a null-intolerant expression as Spark does, left to
// right: an argument that may fail only on the active rows where every argument before it is
// non-null. The caller releases the operands (also on error: those evaluated so far).
func evalInOrder(ctx *exec.TaskContext, b *columnar.Batch, active []byte, exprs ...Expr) ([]operand, error) {
	ops := make([]operand, 0, len(exprs))
	for _, x := range exprs {
		a := active
		if mayFail(x) {
			for _, o := range ops {
				a = andActiveValid(a, o, b.NumRows)
			}
		}
		o, err := evalOperandActive(ctx, b, x, a)
		if err != nil {
			return ops, err
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func releaseAll(ops []operand) {
	for _, o := range ops {
		o.release()
	}
}
