package expr

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Elt (elt(n, input1, input2, ...)): the n-th input; a null n gives null; an n outside
// [1, inputs] gives null, or with failOnError (ANSI at analysis) raises INVALID_ARRAY_INDEX.
// Spark evaluates only the chosen input, so inputs that may fail are refused.

func init() {
	Register("Elt", "elt(n, s1, s2, ...) of UTF8_BINARY strings or binaries: the n-th input; null n gives null; n out of range null, INVALID_ARRAY_INDEX with failOnError (ANSI)", translateElt)
}

type elt struct {
	index  Expr
	inputs []Expr
	typ    sparktype.Type
	fail   bool
}

func (e *elt) Type() sparktype.Type { return e.typ }
func (e *elt) mayFail() bool        { return e.fail || mayFail(e.index) }
func (e *elt) String() string {
	return (&namedCall{name: "elt", args: append([]Expr{e.index}, e.inputs...)}).String()
}

func translateElt(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	cs, err := translateChildren(pe, "children", conf)
	if err != nil {
		return nil, err
	}
	fail, err := pe.Bool("failOnError")
	if err != nil {
		return nil, err
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if len(cs) < 2 || cs[0].Type().Kind != sparktype.Int {
		return nil, unsupported("Elt with %d arguments or a non-int index is not supported natively", len(cs))
	}
	if !binaryCollation(t) && t.Kind != sparktype.Binary {
		return nil, unsupported("Elt returning %s is not supported natively (UTF8_BINARY strings or binary)", t)
	}
	for _, c := range cs[1:] {
		if !c.Type().Equal(t) {
			return nil, unsupported("Elt input of type %s for a result of %s is not supported natively", c.Type(), t)
		}
		if mayFail(c) {
			return nil, unsupported("Elt with an input that may fail (%s) is not supported natively (Spark evaluates only the chosen one)", c)
		}
	}
	return &elt{index: cs[0], inputs: cs[1:], typ: t, fail: fail}, nil
}

func (e *elt) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *elt) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	ops, err := evalInOrder(ctx, b, active, append([]Expr{e.index}, e.inputs...)...)
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	dt := e.typ.Arrow()
	io := ops[0]
	if n == 0 || io.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	idx, im := values[int32](io.arr), io.mask()
	type in struct {
		offs []int32
		data []byte
		m    int
		o    operand
	}
	ins := make([]in, len(e.inputs))
	var capacity int64
	for k := range ins {
		o := ops[k+1]
		ins[k].o = o
		if isNullAt(o.arr, 0) && o.scalar {
			continue
		}
		ins[k].offs, ins[k].data, ins[k].m = operandBytes(o)
		capacity = max(capacity, int64(len(ins[k].data))) // grown by ensure when needed
	}
	out, err := newBytesOut(ctx.Alloc, n, capacity)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	k := kernelArgs{alloc: ctx.Alloc, n: n}
	fail := func(err error) (arrow.Array, error) {
		out.release()
		if k.vbuf != nil {
			k.vbuf.Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		if active != nil && active[i>>3]&(1<<(i&7)) == 0 || !io.scalar && io.arr.IsNull(i) {
			k.setNull(i)
			out.endRow(i)
			continue
		}
		x := idx[i&im]
		if x <= 0 || int(x) > len(ins) {
			if e.fail {
				return fail(&exec.SparkError{Class: "INVALID_ARRAY_INDEX", Exception: "runtime",
					Params: map[string]string{"indexValue": strconv.Itoa(int(x)), "arraySize": strconv.Itoa(len(ins))}})
			}
			k.setNull(i)
			out.endRow(i)
			continue
		}
		c := &ins[x-1]
		if c.offs == nil || !c.o.scalar && c.o.arr.IsNull(i) {
			k.setNull(i)
			out.endRow(i)
			continue
		}
		j := i & c.m
		v := c.data[c.offs[j]:c.offs[j+1]]
		if err := out.ensure(len(v)); err != nil {
			return fail(fmt.Errorf("%s: %w", e, err))
		}
		out.append(v)
		out.endRow(i)
	}
	return out.finish(dt, n, k.vbuf, k.nulls), nil
}
