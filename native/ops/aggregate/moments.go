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

//
// Skewness and Kurtosis add the third and fourth moments m3 and m4 (buffers n, avg, m2, m3[, m4]),
// updated after m2, from the new m2 (and m4 from the new m3), as Spark writes them:
//
//	m3' = m3 - 3 * deltaN * m2' + delta * (delta^2 - deltaN^2)
//	m4' = m4 - 4 * deltaN * m3' - 6 * deltaN^2 * m2' + delta * (delta * delta^2 - deltaN * deltaN^2)
//
// and merged from both sides' old values (the higher-order formulas of centralMomentAgg.scala's
// mergeExpressions, term by term in its order). skewness is sqrt(n) * m3 / sqrt(m2 * m2 * m2),
// kurtosis n * m4 / (m2 * m2) - 3, both null for n == 0 and for m2 == 0 null (NaN with the legacy
// setting); their divisions are Spark's Divide, so a divisor that underflows to zero gives null,
// or DIVIDE_BY_ZERO in ANSI mode.

type momentKind uint8

const (
	stddevSamp momentKind = iota
	stddevPop
	varSamp
	varPop
	skewness
	kurtosis
)

var momentNames = [...]string{stddevSamp: "stddev_samp", stddevPop: "stddev_pop", varSamp: "var_samp", varPop: "var_pop",
	skewness: "skewness", kurtosis: "kurtosis"}

func init() {
	registerFunction("StddevSamp", momentBuilder(stddevSamp))
	registerFunction("StddevPop", momentBuilder(stddevPop))
	registerFunction("VarianceSamp", momentBuilder(varSamp))
	registerFunction("VariancePop", momentBuilder(varPop))
	registerFunction("Skewness", momentBuilder(skewness))
	registerFunction("Kurtosis", momentBuilder(kurtosis))
}

// order is the highest central moment the kind keeps.
func (k momentKind) order() int {
	switch k {
	case skewness:
		return 3
	case kurtosis:
		return 4
	}
	return 2
}

func momentBuffersFor(k momentKind) []sparktype.Type {
	out := make([]sparktype.Type, k.order()+1)
	for i := range out {
		out[i] = sparktype.DoubleType
	}
	return out
}

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
		ansi := c.conf != nil && c.conf.ANSI
		bufs := momentBuffersFor(kind)
		return &fnSpec{name: momentNames[kind], bufTypes: bufs, resultType: sparktype.DoubleType,
			newState: func() function {
				return &moments{kind: kind, nullOnDivideByZero: nullOnDivideByZero, ansi: ansi, in: in, bufs: bufs}
			}}, nil
	}
}

type moments struct {
	kind               momentKind
	nullOnDivideByZero bool
	ansi               bool
	in                 *input
	bufs               []sparktype.Type
	n, avg, m2         []float64
	m3, m4             []float64 // skewness (m3), kurtosis (both)
}

func (f *moments) bufferTypes() []sparktype.Type { return f.bufs }

func (f *moments) grow(n int) {
	f.n = growSlice(f.n, n, 0)
	f.avg = growSlice(f.avg, n, 0)
	f.m2 = growSlice(f.m2, n, 0)
	if f.kind.order() >= 3 {
		f.m3 = growSlice(f.m3, n, 0)
	}
	if f.kind.order() >= 4 {
		f.m4 = growSlice(f.m4, n, 0)
	}
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
	if f.kind.order() > 2 {
		f.updateHigher(vals, bits, off, gids)
		return nil
	}
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

// updateHigher is update for skewness and kurtosis: m2, then m3 from the new m2, then m4 from
// the new m3.
func (f *moments) updateHigher(vals []float64, bits []byte, off int, gids []uint32) {
	fourth := f.kind.order() >= 4
	for i, g := range gids {
		if bits != nil && !bitSet(bits, off, i) {
			continue
		}
		n := f.n[g] + 1
		delta := vals[i] - f.avg[g]
		deltaN := delta / n
		m2 := f.m2[g] + float64(delta*(delta-deltaN))
		delta2 := float64(delta * delta)
		deltaN2 := float64(deltaN * deltaN)
		m3 := f.m3[g] - float64(float64(3.0*deltaN)*m2) + float64(delta*(delta2-deltaN2))
		if fourth {
			f.m4[g] = f.m4[g] - float64(float64(4.0*deltaN)*m3) - float64(float64(6.0*deltaN2)*m2) +
				float64(delta*(float64(delta*delta2)-float64(deltaN*deltaN2)))
		}
		f.n[g], f.avg[g], f.m2[g], f.m3[g] = n, f.avg[g]+deltaN, m2, m3
	}
}

func (f *moments) merge(cols []arrow.Array, gids []uint32) error {
	n2s, avg2s, m22s := fixedValues[float64](cols[0]), fixedValues[float64](cols[1]), fixedValues[float64](cols[2])
	for _, c := range cols {
		if c.NullN() > 0 {
			return fmt.Errorf("%s: a partial buffer is null", momentNames[f.kind]) // Spark's never are
		}
	}
	if f.kind.order() > 2 {
		f.mergeHigher(cols, gids)
		return nil
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

// mergeHigher is merge for skewness and kurtosis: every term from both sides' old values.
func (f *moments) mergeHigher(cols []arrow.Array, gids []uint32) {
	n2s, avg2s, m22s, m32s := fixedValues[float64](cols[0]), fixedValues[float64](cols[1]),
		fixedValues[float64](cols[2]), fixedValues[float64](cols[3])
	var m42s []float64
	fourth := f.kind.order() >= 4
	if fourth {
		m42s = fixedValues[float64](cols[4])
	}
	for i, g := range gids {
		n1, n2 := f.n[g], n2s[i]
		n := n1 + n2
		delta := avg2s[i] - f.avg[g]
		deltaN := 0.0
		if n != 0 {
			deltaN = delta / n
		}
		m2l, m2r, m3l, m3r := f.m2[g], m22s[i], f.m3[g], m32s[i]
		f.avg[g] += float64(deltaN * n2)
		f.m2[g] = m2l + m2r + float64(float64(float64(delta*deltaN)*n1)*n2)
		f.m3[g] = m3l + m3r + float64(float64(float64(float64(float64(deltaN*deltaN)*delta)*n1)*n2)*(n1-n2)) +
			float64(float64(3.0*deltaN)*(float64(n1*m2r)-float64(n2*m2l)))
		if fourth {
			t1 := float64(float64(float64(float64(float64(float64(deltaN*deltaN)*deltaN)*delta)*n1)*n2) *
				(float64(float64(n1*n1)-float64(n1*n2)) + float64(n2*n2)))
			t2 := float64(float64(float64(6.0*deltaN)*deltaN) * (float64(float64(n1*n1)*m2r) + float64(float64(n2*n2)*m2l)))
			t3 := float64(float64(4.0*deltaN) * (float64(n1*m3r) - float64(n2*m3l)))
			f.m4[g] = f.m4[g] + m42s[i] + t1 + t2 + t3
		}
		f.n[g] = n
	}
}

func (f *moments) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	out := []arrow.Array{buildFixed(alloc, sparktype.DoubleType, f.n[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.avg[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.m2[lo:hi], nil)}
	if f.kind.order() >= 3 {
		out = append(out, buildFixed(alloc, sparktype.DoubleType, f.m3[lo:hi], nil))
	}
	if f.kind.order() >= 4 {
		out = append(out, buildFixed(alloc, sparktype.DoubleType, f.m4[lo:hi], nil))
	}
	return out, nil
}

// resultHigher evaluates skewness or kurtosis for groups [lo, hi).
func (f *moments) resultHigher(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[float64](alloc, hi-lo)
	for g := lo; g < hi; g++ {
		n, m2 := f.n[g], f.m2[g]
		switch {
		case n == 0:
			o.setNull(alloc, g-lo)
			continue
		case m2 == 0:
			if f.nullOnDivideByZero {
				o.setNull(alloc, g-lo)
			} else {
				o.V[g-lo] = math.NaN()
			}
			continue
		}
		var num, div float64
		if f.kind == skewness {
			num, div = float64(math.Sqrt(n)*f.m3[g]), math.Sqrt(float64(float64(m2*m2)*m2))
		} else {
			num, div = float64(n*f.m4[g]), float64(m2*m2)
		}
		if div == 0 { // Spark's Divide by zero
			if f.ansi {
				o.finish(arrow.PrimitiveTypes.Float64).Release()
				return nil, exec.DivideByZero()
			}
			o.setNull(alloc, g-lo)
			continue
		}
		v := num / div
		if f.kind == kurtosis {
			v -= 3.0
		}
		o.V[g-lo] = v
	}
	return o.finish(arrow.PrimitiveTypes.Float64), nil
}

func (f *moments) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	if f.kind.order() > 2 {
		return f.resultHigher(alloc, lo, hi)
	}
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
