package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Murmur3Hash (hash()) and XxHash64 (xxhash64()), expressions/hash.scala: the hash starts at the
// seed (42 from SQL) and each child's value is hashed with the previous result as the seed, left to
// right; null values leave it unchanged, so the result is never null. Package sparkhash has the
// per-type rules and the kernels; this file binds them to the Catalyst classes.
//
// Only atomic types are hashed natively. Arrays, maps and structs (Spark hashes their elements or
// fields recursively), intervals, time values and collated strings are refused with a reason.

func init() {
	Register("Murmur3Hash", "hash(e1, e2, ...): Spark's Murmur3_x86_32 chained over the arguments (any seed), over boolean, numeric, decimal, string, binary, date, timestamp and timestamp_ntz; bit-identical to Spark (zeros and NaNs normalised as Spark does); never null", hashTranslator(false))
	Register("XxHash64", "xxhash64(e1, e2, ...): Spark's XXH64 chained over the arguments (any seed), over the same types as Murmur3Hash; never null", hashTranslator(true))
}

type hashExpr struct {
	xx       bool
	seed     int64 // an int for Murmur3Hash
	children []Expr
	types    []sparktype.Type
}

func (e *hashExpr) Type() sparktype.Type {
	if e.xx {
		return sparktype.LongType
	}
	return sparktype.IntType
}

func (e *hashExpr) mayFail() bool {
	for _, c := range e.children {
		if mayFail(c) {
			return true
		}
	}
	return false
}

func (e *hashExpr) String() string {
	args := make([]string, len(e.children), len(e.children)+1)
	for i, c := range e.children {
		args[i] = c.String()
	}
	name := "hash"
	if e.xx {
		name = "xxhash64"
	}
	if e.seed != sparkhash.DefaultSeed {
		args = append(args, fmt.Sprintf("seed=%d", e.seed))
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

func hashTranslator(xx bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := "hash"
		if xx {
			name = "xxhash64"
		}
		cs, err := pe.Children("children")
		if err != nil {
			return nil, err
		}
		// Refuse non-atomic arguments by their type before translating them, so that the reason
		// names the hash rather than the argument.
		for _, c := range cs {
			t, err := c.Type()
			if err != nil {
				return nil, err
			}
			if !sparkhash.Hashable(t) {
				return nil, unsupported("%s of %s is not supported natively (only atomic types: boolean, numeric, decimal, string, binary, date, timestamp)", name, t)
			}
		}
		seed, err := pe.Int("seed")
		if err != nil {
			return nil, err
		}
		if !xx && (seed < math.MinInt32 || seed > math.MaxInt32) {
			return nil, fmt.Errorf("Murmur3Hash seed %d is not an int", seed)
		}
		e := &hashExpr{xx: xx, seed: seed}
		for _, c := range cs {
			ce, err := Translate(c, conf)
			if err != nil {
				return nil, err
			}
			// A null-typed argument (a NULL literal) never changes the hash.
			if t := ce.Type(); t.Kind != sparktype.Null {
				e.children = append(e.children, ce)
				e.types = append(e.types, t)
			}
		}
		return e, nil
	}
}

func (e *hashExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// evalMasked evaluates the children on the active rows only (Spark evaluates every child of a
// hash, but the hash itself may sit in a branch Spark does not take on some rows).
func (e *hashExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	if e.xx {
		buf, h := newFixed[int64](ctx.Alloc, n)
		for i := range h {
			h[i] = e.seed
		}
		if err := e.fold(ctx, b, active, func(t sparktype.Type, o operand) error {
			if o.scalar {
				return sparkhash.XxHash64FoldConst(t, o.arr, 0, h)
			}
			return sparkhash.XxHash64Fold(t, o.arr, h)
		}); err != nil {
			buf.Release()
			return nil, err
		}
		return finish(arrow.PrimitiveTypes.Int64, n, nil, buf, 0), nil
	}
	buf, h := newFixed[int32](ctx.Alloc, n)
	seed := int32(e.seed)
	for i := range h {
		h[i] = seed
	}
	if err := e.fold(ctx, b, active, func(t sparktype.Type, o operand) error {
		if o.scalar {
			return sparkhash.Murmur3FoldConst(t, o.arr, 0, h)
		}
		return sparkhash.Murmur3Fold(t, o.arr, h)
	}); err != nil {
		buf.Release()
		return nil, err
	}
	return finish(arrow.PrimitiveTypes.Int32, n, nil, buf, 0), nil
}

// fold evaluates the children left to right, handing each to f and releasing it before the next.
func (e *hashExpr) fold(ctx *exec.TaskContext, b *columnar.Batch, active []byte, f func(sparktype.Type, operand) error) error {
	for i, c := range e.children {
		o, err := evalOperandActive(ctx, b, c, active)
		if err != nil {
			return err
		}
		err = f(e.types[i], o)
		o.release()
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
	}
	return nil
}
