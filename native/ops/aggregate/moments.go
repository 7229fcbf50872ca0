package aggregate

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Second central moments (CentralMomentAgg in centralMomentAgg.scala): StddevSamp, StddevPop,
// VarianceSamp, VariancePop over a double child (the analyzer casts the input). Buffers n, avg
// and m2, all doubles starting at 0.0, updated for each non-null x exactly as Spark's expressions
// do, in the same order of operations:
//
//	n' = n + 1; delta = x - avg; deltaN = delta / n'; avg' = avg + deltaN; m2' = m2 + delta * (delta - deltaN)
//
// merged as n = n1 + n2; delta = avg2 - avg1; deltaN = n == 0 ? 0 : delta / n;
// avg = avg1 + deltaN * n2; m2 = m2_1 + m2_2 + delta * deltaN * n1 * n2 (left to right). The
// result is null for n == 0; the sample forms give null for n == 1 (NaN with
// spark.sql.legacy.statisticalAggregate, nullOnDivideByZero = false); then sqrt(m2 / (n - 1)) or
// m2 / (n - 1), and sqrt(m2 / n) or m2 / n. Every product is rounded before it is added (no fused
// multiply-add), as in Java.

type momentKind uint8

const (
	stddevSamp momentKind = iota
	stddevPop
	varSamp
	varPop
)

var momentNames = [...]string{stddevSamp: "stddev_samp", stddevPop: "stddev_pop", varSamp: "var_samp", varPop: "var_pop"}

func init() {
	registerFunction("StddevSamp", momentBuilder(stddevSamp))
	registerFunction("StddevPop", momentBuilder(stddevPop))
	registerFunction("VarianceSamp", momentBuilder(varSamp))
	registerFunction("VariancePop", momentBuilder(varPop))
}

var momentBuffers = []sparktype.Type{sparktype.DoubleType, sparktype.DoubleType, sparktype.DoubleType}

func momentBuilder(kind momentKind) fnBuilder {
	return func(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
		child, t, err := singleChild(fn)
		if err != nil {
			return nil, err
		}
		if t.Kind != sparktype.Double {
			return nil, refuse("aggregate function %s over %s is not supported natively", momentNames[kind], t)
		}
		nullOnDivideByZero := true
		if fn.Has("nullOnDivideByZero") {
			if nullOnDivideByZero, err = fn.Bool("nullOnDivideByZero"); err != nil {
				return nil, err
			}
		}
		in, err := bindInput(child, c)
		if err != nil {
			return nil, err
		}
		return &fnSpec{name: momentNames[kind], bufTypes: momentBuffers, resultType: sparktype.DoubleType,
			newState: func() function {
				return &moments{kind: kind, nullOnDivideByZero: nullOnDivideByZero, in: in}
			}}, nil
	}
}

type moments struct {
	kind               momentKind
	nullOnDivideByZero bool
	in                 *input
	n, avg, m2         []float64
}

func (f *moments) bufferTypes() []sparktype.Type { return momentBuffers }

func (f *moments) grow(n int) {
	f.n = growSlice(f.n, n, 0)
	f.avg = growSlice(f.avg, n, 0)
	f.m2 = growSlice(f.m2, n, 0)
}

func (f *moments) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.DataType().ID() != arrow.FLOAT64 {
		return fmt.Errorf("%s: unexpected input column %s", momentNames[f.kind], col.DataType())
	}
	bits, off := validity(col)
	vals := fixedValues[float64](col)[:len(gids)]
	ns, avgs, m2s := f.n, f.avg, f.m2
	for i, g := range gids {
		if bits != nil && !bitSet(bits, off, i) {
			continue
		}
		n := ns[g] + 1
		delta := vals[i] - avgs[g]
		deltaN := delta / n
		avgs[g] += deltaN
		m2s[g] += float64(delta * (delta - deltaN))
		ns[g] = n
	}
	return nil
}

func (f *moments) merge(cols []arrow.Array, gids []uint32) error {
	n2s, avg2s, m22s := fixedValues[float64](cols[0]), fixedValues[float64](cols[1]), fixedValues[float64](cols[2])
	for _, c := range cols {
		if c.NullN() > 0 {
			return fmt.Errorf("%s: a partial buffer is null", momentNames[f.kind]) // Spark's never are
		}
	}
	for i, g := range gids {
		n1, n2 := f.n[g], n2s[i]
		n := n1 + n2
		delta := avg2s[i] - f.avg[g]
		deltaN := 0.0
		if n != 0 {
			deltaN = delta / n
		}
		f.avg[g] += float64(deltaN * n2)
		f.m2[g] = f.m2[g] + m22s[i] + float64(float64(float64(delta*deltaN)*n1)*n2)
		f.n[g] = n
	}
	return nil
}

func (f *moments) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	return []arrow.Array{buildFixed(alloc, sparktype.DoubleType, f.n[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.avg[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.m2[lo:hi], nil)}, nil
}

func (f *moments) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[float64](alloc, hi-lo)
	samp := f.kind == stddevSamp || f.kind == varSamp
	root := f.kind == stddevSamp || f.kind == stddevPop
	for g := lo; g < hi; g++ {
		n := f.n[g]
		switch {
		case n == 0:
			o.setNull(alloc, g-lo)
			continue
		case samp && n == 1:
			if f.nullOnDivideByZero {
				o.setNull(alloc, g-lo)
			} else {
				o.V[g-lo] = math.NaN()
			}
			continue
		}
		d := n
		if samp {
			d = n - 1
		}
		v := f.m2[g] / d
		if root {
			v = math.Sqrt(v)
		}
		o.V[g-lo] = v
	}
	return o.finish(arrow.PrimitiveTypes.Float64), nil
}
