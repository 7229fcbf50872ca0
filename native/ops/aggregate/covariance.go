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

// Co-moments of two doubles (Covariance.scala, Corr.scala): covar_pop, covar_samp and corr. The
// analyzer casts both inputs to double. Buffers n, xAvg, yAvg, ck (and xMk, yMk for corr), all
// doubles starting at 0.0; a row where either input is null leaves them as they are. Each update
// and merge is Spark's expression tree, operation by operation and left to right, every product
// rounded before it is added (explicit float64 conversions: Go may otherwise fuse a multiply-add,
// Java never does):
//
//	update: n' = n + 1; dx = x - xAvg; dy = y - yAvg; dyN = dy / n'; xAvg' = xAvg + dx / n';
//	        yAvg' = yAvg + dyN; ck' = ck + dx * (y - yAvg')
//	        (corr: xMk' = xMk + dx * (x - xAvg'); yMk' = yMk + dy * (y - yAvg'))
//	merge:  n = n1 + n2; dx = xAvg2 - xAvg1; dxN = n == 0 ? 0 : dx / n; dy, dyN alike;
//	        xAvg = xAvg1 + dxN * n2; yAvg alike; ck = ck1 + ck2 + dx * dyN * n1 * n2
//	        (xMk = xMk1 + xMk2 + dx * dxN * n1 * n2; yMk alike)
//
// Results: null when n == 0; covar_pop ck / n; covar_samp ck / (n - 1), and for n == 1 null (NaN
// with spark.sql.legacy.statisticalAggregate: nullOnDivideByZero false); corr ck / sqrt(xMk * yMk),
// for n == 1 as covar_samp. corr's division is Spark's Divide, built when the function was: a zero
// divisor (a constant input) gives null, or DIVIDE_BY_ZERO in ANSI mode.
//
// regr_sxy(y, x) is Covariance(y, x): null for n == 0, else ck. regr_r2(y, x) is
// PearsonCorrelation(y, x), so its "x" moments are y's: null when yMk == 0 (x constant), 1.0 when
// xMk == 0 (y constant), else corr * corr with corr = ck / sqrt(xMk * yMk) (that Divide as corr's).
// (Spark 4.1.3's order of the two tests, read from its bytecode; some source versions differ.)
//
// regr_slope(y, x) and regr_intercept(y, x) keep CovPopulation(x, y)'s four buffers then
// VariancePop(x)'s three (n, avg, m2: moments.go's update and merge), whose updates Spark 4.1.3
// wraps in If(y IS NULL OR x IS NULL, buffer, update): the variance of x over the pairs (read
// from its bytecode; the source of some versions updates it for every non-null x). Both are null
// when the variance's m2 is 0; slope is ck / m2, intercept yAvg - ck / m2 * xAvg.

type coKind uint8

const (
	covarPop coKind = iota
	covarSamp
	corr
	regrSXY
	regrR2
	regrSlope
	regrIntercept
)

var coNames = [...]string{covarPop: "covar_pop", covarSamp: "covar_samp", corr: "corr", regrSXY: "regr_sxy",
	regrR2: "regr_r2", regrSlope: "regr_slope", regrIntercept: "regr_intercept"}

func init() {
	registerFunction("CovPopulation", coBuilder(covarPop))
	registerFunction("CovSample", coBuilder(covarSamp))
	registerFunction("Corr", coBuilder(corr))
	registerFunction("RegrSXY", coBuilder(regrSXY))
	registerFunction("RegrR2", coBuilder(regrR2))
	registerFunction("RegrSlope", coBuilder(regrSlope))
	registerFunction("RegrIntercept", coBuilder(regrIntercept))
}

// regresses reports whether the kind also keeps VariancePop(x)'s buffers.
func (k coKind) regresses() bool { return k == regrSlope || k == regrIntercept }

// correlates reports whether the kind keeps xMk and yMk (PearsonCorrelation's buffers).
func (k coKind) correlates() bool { return k == corr || k == regrR2 }

func coBuilder(kind coKind) fnBuilder {
	return func(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
		names := [2]string{"left", "right"}
		switch kind {
		case corr:
			names = [2]string{"x", "y"}
		case regrSXY, regrR2:
			names = [2]string{"y", "x"} // the function's y is the moments' x
		case regrSlope, regrIntercept:
			names = [2]string{"right", "left"} // CovPopulation(right, left)
		}
		var args [2]*input
		for i, name := range names {
			e, err := fn.Child(name)
			if err != nil {
				return nil, err
			}
			t, err := e.Type()
			if err != nil {
				return nil, err
			}
			if t.Kind != sparktype.Double {
				return nil, refuse("aggregate function %s over %s is not supported natively", coNames[kind], t)
			}
			if args[i], err = bindInput(e, c); err != nil {
				return nil, err
			}
		}
		nullOnDivideByZero := true
		if fn.Has("nullOnDivideByZero") {
			var err error
			if nullOnDivideByZero, err = fn.Bool("nullOnDivideByZero"); err != nil {
				return nil, err
			}
		}
		ansi := c.conf != nil && c.conf.ANSI
		nbuf := 4
		if kind.correlates() {
			nbuf = 6
		}
		if kind.regresses() {
			nbuf = 7
		}
		bufTypes := make([]sparktype.Type, nbuf)
		for i := range bufTypes {
			bufTypes[i] = sparktype.DoubleType
		}
		return &fnSpec{name: coNames[kind], bufTypes: bufTypes, resultType: sparktype.DoubleType,
			newState: func() function {
				return &coMoments{kind: kind, x: args[0], y: args[1], nullOnDivideByZero: nullOnDivideByZero,
					ansi: ansi, bufTypes: bufTypes}
			}}, nil
	}
}

type coMoments struct {
	kind               coKind
	x, y               *input
	nullOnDivideByZero bool
	ansi               bool
	bufTypes           []sparktype.Type
	// Per group; xMk and yMk for corr only.
	n, xAvg, yAvg, ck, xMk, yMk []float64
	// VariancePop(x)'s n, avg and m2, for regr_slope and regr_intercept.
	vn, vAvg, vM2 []float64
}

func (f *coMoments) bufferTypes() []sparktype.Type { return f.bufTypes }

func (f *coMoments) grow(n int) {
	f.n = growSlice(f.n, n, 0)
	f.xAvg = growSlice(f.xAvg, n, 0)
	f.yAvg = growSlice(f.yAvg, n, 0)
	f.ck = growSlice(f.ck, n, 0)
	if f.kind.correlates() {
		f.xMk = growSlice(f.xMk, n, 0)
		f.yMk = growSlice(f.yMk, n, 0)
	}
	if f.kind.regresses() {
		f.vn = growSlice(f.vn, n, 0)
		f.vAvg = growSlice(f.vAvg, n, 0)
		f.vM2 = growSlice(f.vM2, n, 0)
	}
}

func (f *coMoments) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	xc, err := f.x.eval(ctx, b)
	if err != nil {
		return err
	}
	defer xc.Release()
	yc, err := f.y.eval(ctx, b)
	if err != nil {
		return err
	}
	defer yc.Release()
	if xc.DataType().ID() != arrow.FLOAT64 || yc.DataType().ID() != arrow.FLOAT64 {
		return fmt.Errorf("%s: unexpected input columns %s, %s", coNames[f.kind], xc.DataType(), yc.DataType())
	}
	xs, ys := fixedValues[float64](xc), fixedValues[float64](yc)
	if len(xs) < len(gids) || len(ys) < len(gids) {
		return fmt.Errorf("%s: input columns shorter than the batch", coNames[f.kind])
	}
	xbits, xoff := validity(xc)
	ybits, yoff := validity(yc)
	if f.kind.regresses() {
		for i, g := range gids {
			if !bitSet(xbits, xoff, i) || !bitSet(ybits, yoff, i) {
				continue
			}
			n := f.vn[g] + 1
			delta := xs[i] - f.vAvg[g]
			deltaN := delta / n
			f.vAvg[g] += deltaN
			f.vM2[g] += float64(delta * (delta - deltaN))
			f.vn[g] = n
		}
	}
	ns, xAvgs, yAvgs, cks := f.n, f.xAvg, f.yAvg, f.ck
	if f.kind.correlates() {
		xMks, yMks := f.xMk, f.yMk
		for i, g := range gids {
			if !bitSet(xbits, xoff, i) || !bitSet(ybits, yoff, i) {
				continue
			}
			x, y := xs[i], ys[i]
			n := ns[g] + 1
			dx := x - xAvgs[g]
			dxN := dx / n
			dy := y - yAvgs[g]
			dyN := dy / n
			xAvg := xAvgs[g] + dxN
			yAvg := yAvgs[g] + dyN
			cks[g] += float64(dx * (y - yAvg))
			xMks[g] += float64(dx * (x - xAvg))
			yMks[g] += float64(dy * (y - yAvg))
			ns[g], xAvgs[g], yAvgs[g] = n, xAvg, yAvg
		}
		return nil
	}
	for i, g := range gids {
		if !bitSet(xbits, xoff, i) || !bitSet(ybits, yoff, i) {
			continue
		}
		x, y := xs[i], ys[i]
		n := ns[g] + 1
		dx := x - xAvgs[g]
		dy := y - yAvgs[g]
		dyN := dy / n
		xAvgs[g] += dx / n
		yAvg := yAvgs[g] + dyN
		cks[g] += float64(dx * (y - yAvg))
		ns[g], yAvgs[g] = n, yAvg
	}
	return nil
}

func (f *coMoments) merge(cols []arrow.Array, gids []uint32) error {
	for _, c := range cols {
		if c.NullN() > 0 {
			return fmt.Errorf("%s: a partial buffer is null", coNames[f.kind]) // Spark's never are
		}
	}
	n2s, xAvg2s, yAvg2s, ck2s := fixedValues[float64](cols[0]), fixedValues[float64](cols[1]),
		fixedValues[float64](cols[2]), fixedValues[float64](cols[3])
	var xMk2s, yMk2s []float64
	if f.kind.correlates() {
		xMk2s, yMk2s = fixedValues[float64](cols[4]), fixedValues[float64](cols[5])
	}
	if f.kind.regresses() {
		vn2s, vAvg2s, vM22s := fixedValues[float64](cols[4]), fixedValues[float64](cols[5]), fixedValues[float64](cols[6])
		for i, g := range gids {
			n1, n2 := f.vn[g], vn2s[i]
			n := n1 + n2
			delta := vAvg2s[i] - f.vAvg[g]
			deltaN := 0.0
			if n != 0 {
				deltaN = delta / n
			}
			f.vAvg[g] += float64(deltaN * n2)
			f.vM2[g] = f.vM2[g] + vM22s[i] + float64(float64(float64(delta*deltaN)*n1)*n2)
			f.vn[g] = n
		}
	}
	for i, g := range gids {
		n1, n2 := f.n[g], n2s[i]
		n := n1 + n2
		dx := xAvg2s[i] - f.xAvg[g]
		dy := yAvg2s[i] - f.yAvg[g]
		dxN, dyN := 0.0, 0.0
		if n != 0 {
			dxN, dyN = dx/n, dy/n
		}
		f.xAvg[g] += float64(dxN * n2)
		f.yAvg[g] += float64(dyN * n2)
		f.ck[g] = f.ck[g] + ck2s[i] + float64(float64(float64(dx*dyN)*n1)*n2)
		if f.kind.correlates() {
			f.xMk[g] = f.xMk[g] + xMk2s[i] + float64(float64(float64(dx*dxN)*n1)*n2)
			f.yMk[g] = f.yMk[g] + yMk2s[i] + float64(float64(float64(dy*dyN)*n1)*n2)
		}
		f.n[g] = n
	}
	return nil
}

func (f *coMoments) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	out := []arrow.Array{buildFixed(alloc, sparktype.DoubleType, f.n[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.xAvg[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.yAvg[lo:hi], nil),
		buildFixed(alloc, sparktype.DoubleType, f.ck[lo:hi], nil)}
	if f.kind.correlates() {
		out = append(out, buildFixed(alloc, sparktype.DoubleType, f.xMk[lo:hi], nil),
			buildFixed(alloc, sparktype.DoubleType, f.yMk[lo:hi], nil))
	}
	if f.kind.regresses() {
		out = append(out, buildFixed(alloc, sparktype.DoubleType, f.vn[lo:hi], nil),
			buildFixed(alloc, sparktype.DoubleType, f.vAvg[lo:hi], nil),
			buildFixed(alloc, sparktype.DoubleType, f.vM2[lo:hi], nil))
	}
	return out, nil
}

func (f *coMoments) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[float64](alloc, hi-lo)
	for g := lo; g < hi; g++ {
		n := f.n[g]
		if f.kind.regresses() {
			m2 := f.vM2[g]
			switch {
			case m2 == 0:
				o.setNull(alloc, g-lo)
			case f.kind == regrSlope:
				o.V[g-lo] = f.ck[g] / m2
			default:
				o.V[g-lo] = f.yAvg[g] - float64(float64(f.ck[g]/m2)*f.xAvg[g])
			}
			continue
		}
		if f.kind == regrR2 {
			if err := f.r2(alloc, o, g, lo); err != nil {
				o.finish(arrow.PrimitiveTypes.Float64).Release()
				return nil, err
			}
			continue
		}
		switch {
		case n == 0:
			o.setNull(alloc, g-lo)
			continue
		case n == 1 && (f.kind == covarSamp || f.kind == corr):
			if f.nullOnDivideByZero {
				o.setNull(alloc, g-lo)
			} else {
				o.V[g-lo] = math.NaN()
			}
			continue
		}
		switch f.kind {
		case regrSXY:
			o.V[g-lo] = f.ck[g]
		case covarPop:
			o.V[g-lo] = f.ck[g] / n
		case covarSamp:
			o.V[g-lo] = f.ck[g] / (n - 1)
		default:
			d := math.Sqrt(float64(f.xMk[g] * f.yMk[g]))
			if d == 0 {
				if f.ansi {
					o.finish(arrow.PrimitiveTypes.Float64).Release()
					return nil, exec.DivideByZero()
				}
				o.setNull(alloc, g-lo)
				continue
			}
			o.V[g-lo] = f.ck[g] / d
		}
	}
	return o.finish(arrow.PrimitiveTypes.Float64), nil
}

// r2 evaluates regr_r2 for group g: Spark's If over xMk and yMk, then corr * corr.
func (f *coMoments) r2(alloc memory.Allocator, o *fixedOut[float64], g, lo int) error {
	switch {
	case f.yMk[g] == 0: // x, the independent variable, is constant (or there is no pair)
		o.setNull(alloc, g-lo)
		return nil
	case f.xMk[g] == 0:
		o.V[g-lo] = 1.0
		return nil
	}
	d := math.Sqrt(float64(f.xMk[g] * f.yMk[g]))
	if d == 0 {
		if f.ansi {
			return exec.DivideByZero()
		}
		o.setNull(alloc, g-lo) // null * null
		return nil
	}
	c := f.ck[g] / d
	o.V[g-lo] = c * c
	return nil
}
