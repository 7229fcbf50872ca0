package expr

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

// Floating-point math functions of mathExpressions.scala that Bolide computes bit for bit as
// Spark does. Spark evaluates each with one Java method (interpreted and generated code call
// the same one); what matters is whether that method's result is fixed by an algorithm Go can
// repeat, or is whatever the JIT's intrinsic stub computes on the executor's CPU:
//
//	function           Spark calls                                   HotSpot x86_64 intrinsic?
//	exp                StrictMath.exp                                no (StrictMath is never intrinsified)
//	expm1              StrictMath.expm1                              no
//	ln                 StrictMath.log, null for x <= 0               no
//	log2               StrictMath.log(x) / StrictMath.log(2), null x <= 0
//	log10              StrictMath.log10, null for x <= 0             no
//	log1p              StrictMath.log1p, null for x <= -1            no
//	log(b, x)          StrictMath.log(x) / StrictMath.log(b), null when b <= 0 or x <= 0
//	pow, power         StrictMath.pow                                no
//	acosh              StrictMath.log(x + Math.sqrt(x*x - 1.0)), NaN below 1, and
//	                   log(2) + log(x) from sqrt(Double.MaxValue) on (Spark 4.1's form)
//	asinh              StrictMath.log(x + Math.sqrt(x*x + 1.0)), and signum(x) *
//	                   (log(2) + log(|x|)) from |x| >= sqrt(Double.MaxValue) - 1
//	atanh              0.5 * (StrictMath.log1p(x) - StrictMath.log1p(-x))
//	asin, acos, atan   Math.asin/acos/atan -> StrictMath             no (17, 21, 25)
//	atan2              Math.atan2(y + 0.0, x + 0.0) -> StrictMath    no (17, 21, 25)
//	sinh, cosh         Math.sinh/cosh -> StrictMath                  no (17, 21, 25)
//	tanh               Math.tanh -> StrictMath                       17, 21: no; 24+: yes
//	cbrt               Math.cbrt -> StrictMath                       17, 21: no; 25: yes
//	hypot              Math.hypot -> StrictMath                      no
//	rint               Math.rint                                     exact either way (roundsd)
//	degrees, radians   Math.toDegrees/toRadians: x * 57.29577951308232, x * 0.017453292519943295
//
// The StrictMath functions are fdlibm 5.3's algorithms, written in Go in fdlibm.go; Go's math
// package differs from them in the last bit for most (see there). Measured with
// testdata/mathgolden/GenMathGolden.java (2,000,000 arguments each): on Java 17 and 25 (amd64)
// Math.sin, cos, tan, exp, log, log10 and pow differ from StrictMath, on Java 25 also tanh
// (40% of arguments) and cbrt (8%); asin, acos, atan, atan2, sinh, cosh, expm1, log1p, hypot
// and rint never do. Java 21 was not available to measure: its JDK has neither the tanh (JDK
// 24) nor the cbrt (JDK 25) stub, so it behaves as 17. Tanh and cbrt are therefore native only
// when the executor's JVM is older than 24.
//
// Left to Spark, because Spark calls java.lang.Math's intrinsified sin, cos or tan, whose
// results come from HotSpot's stubs (Intel's libm) and are not reproducible from a published
// algorithm: sin, cos, tan, cot (1/Math.tan), sec (1/Math.cos), csc (1/Math.sin).
//
// NaN payloads are not reproduced (Java returns the hardware's NaN for 0/0, Go's math.NaN has
// another payload); Spark treats every NaN alike in comparisons, grouping and hashing.

func init() {
	Register("Exp", "exp(x): StrictMath.exp (fdlibm), bit for bit", unaryDoubleTranslator("EXP", strictExp))
	Register("Expm1", "expm1(x): StrictMath.expm1 (fdlibm), bit for bit", unaryDoubleTranslator("EXPM1", strictExpm1))
	Register("Log", "ln(x): StrictMath.log (fdlibm), null for x <= 0", unaryLogTranslator("ln", strictLog, 0))
	Register("Log2", "log2(x): StrictMath.log(x) / StrictMath.log(2), null for x <= 0", unaryLogTranslator("LOG2", sparkLog2, 0))
	Register("Log10", "log10(x): StrictMath.log10 (fdlibm), null for x <= 0", unaryLogTranslator("LOG10", strictLog10, 0))
	Register("Log1p", "log1p(x): StrictMath.log1p (fdlibm), null for x <= -1", unaryLogTranslator("LOG1P", strictLog1p, -1))
	Register("Acosh", "acosh(x): StrictMath.log(x + sqrt(x*x - 1)), log(2) + log(x) for huge x, as Spark 4.1 writes it", unaryDoubleTranslator("ACOSH", sparkAcosh))
	Register("Asinh", "asinh(x): StrictMath.log(x + sqrt(x*x + 1)), signum(x) * (log(2) + log(abs(x))) for huge abs(x), as Spark 4.1 writes it", unaryDoubleTranslator("ASINH", sparkAsinh))
	Register("Atanh", "atanh(x): 0.5 * (StrictMath.log1p(x) - StrictMath.log1p(-x)) as Spark writes it", unaryDoubleTranslator("ATANH", sparkAtanh))
	Register("Asin", "asin(x): Math.asin = StrictMath.asin (fdlibm), bit for bit", unaryDoubleTranslator("ASIN", strictAsin))
	Register("Acos", "acos(x): Math.acos = StrictMath.acos (fdlibm), bit for bit", unaryDoubleTranslator("ACOS", strictAcos))
	Register("Atan", "atan(x): Math.atan = StrictMath.atan (fdlibm), bit for bit", unaryDoubleTranslator("ATAN", strictAtan))
	Register("Sinh", "sinh(x): Math.sinh = StrictMath.sinh (fdlibm), bit for bit", unaryDoubleTranslator("SINH", strictSinh))
	Register("Cosh", "cosh(x): Math.cosh = StrictMath.cosh (fdlibm), bit for bit", unaryDoubleTranslator("COSH", strictCosh))
	Register("Tanh", "tanh(x): Math.tanh = StrictMath.tanh (fdlibm) on Java 17-23; refused on Java 24+ (an intrinsic)", preIntrinsic(24, unaryDoubleTranslator("TANH", strictTanh)))
	Register("Cbrt", "cbrt(x): Math.cbrt = StrictMath.cbrt (fdlibm) on Java 17-24; refused on Java 25+ (an intrinsic)", preIntrinsic(25, unaryDoubleTranslator("CBRT", strictCbrt)))
	Register("Rint", "rint(x): Math.rint, round half even to an integral double", unaryDoubleTranslator("rint", math.RoundToEven))
	Register("ToDegrees", "degrees(x): Math.toDegrees, x * 57.29577951308232", unaryDoubleTranslator("DEGREES", javaToDegrees))
	Register("ToRadians", "radians(x): Math.toRadians, x * 0.017453292519943295", unaryDoubleTranslator("RADIANS", javaToRadians))
	Register("Atan2", "atan2(y, x): Math.atan2(y + 0.0, x + 0.0) = StrictMath.atan2 (fdlibm), bit for bit", binaryDoubleTranslator("ATAN2", sparkAtan2, nil))
	Register("Hypot", "hypot(x, y): Math.hypot = StrictMath.hypot (fdlibm), bit for bit", binaryDoubleTranslator("HYPOT", strictHypot, nil))
	Register("Pow", "pow(x, y): StrictMath.pow (fdlibm), bit for bit", binaryDoubleTranslator("POWER", strictPow, nil))
	Register("Logarithm", "log(b, x): StrictMath.log(x) / StrictMath.log(b), null when b <= 0 or x <= 0", binaryDoubleTranslator("LOG", sparkLogarithm, logarithmNull))
}

// strictLn2 is StrictMath.log(2), Log2's divisor.
var strictLn2 = strictLog(2)

func sparkLog2(x float64) float64 { return strictLog(x) / strictLn2 }

func sparkLogarithm(b, x float64) float64 { return strictLog(x) / strictLog(b) }

// logarithmNull is Logarithm's null rule. Spark's generated code for an unfolded EulerNumber
// base returns log(x) without the division, but StrictMath.log(Math.E) is exactly 1.0, so the
// two agree.
func logarithmNull(b, x float64) bool { return b <= 0 || x <= 0 }

// sparkAcosh is Spark 4.1's Acosh: log(2) + log(x) from sqrt(Double.MaxValue) on (where x*x
// would overflow), NaN below 1, else StrictMath.log(x + Math.sqrt(x*x - 1.0)).
func sparkAcosh(x float64) float64 {
	if x >= sqrtMaxDouble {
		return strictLn2 + strictLog(x)
	}
	if x < 1 {
		return fdNaN
	}
	return strictLog(x + math.Sqrt(float64(x*x)-1.0))
}

// sparkAsinh is Spark 4.1's Asinh: signum(x) * (log(2) + log(|x|)) for |x| >=
// sqrt(Double.MaxValue) - 1 (the same double; -Inf gives -Inf), else
// StrictMath.log(x + Math.sqrt(x*x + 1.0)) (NaN for NaN).
func sparkAsinh(x float64) float64 {
	if ax := math.Abs(x); ax >= sqrtMaxDouble-1 {
		return javaSignum(x) * (strictLn2 + strictLog(ax))
	}
	return strictLog(x + math.Sqrt(float64(x*x)+1.0))
}

// sqrtMaxDouble is Math.sqrt(Double.MaxValue), Spark's threshold in Acosh and Asinh.
var sqrtMaxDouble = math.Sqrt(math.MaxFloat64)

func sparkAtanh(x float64) float64 { return 0.5 * (strictLog1p(x) - strictLog1p(-x)) }

// sparkAtan2 is Atan2's Math.atan2(y + 0.0, x + 0.0): adding 0.0 turns -0.0 into 0.0.
func sparkAtan2(y, x float64) float64 { return strictAtan2(y+0.0, x+0.0) }

func javaToDegrees(x float64) float64 { return x * 57.29577951308232 }

func javaToRadians(x float64) float64 { return x * 0.017453292519943295 }

// preIntrinsic refuses a function whose java.lang.Math method HotSpot replaces by an intrinsic
// stub from Java feature version `from` on, or when the executor's version is unknown.
func preIntrinsic(from int, t Translator) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		if v := JavaVersion(); v == 0 || v >= from {
			return nil, unsupported("%s is not native on Java %d: from Java %d HotSpot computes Math.%s with an intrinsic that is not StrictMath's fdlibm",
				plan.ShortClass(pe.Class), v, from, plan.ShortClass(pe.Class))
		}
		return t(pe, conf)
	}
}

// unaryLogTranslator is UnaryLogExpression: null where x <= asymptote, else f(x).
func unaryLogTranslator(name string, f func(float64) float64, asymptote float64) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		c, err := translateChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind != sparktype.Double {
			return nil, unsupported("%s of %s is not supported natively (double expected)", plan.ShortClass(pe.Class), c.Type())
		}
		return &unaryNum{name: name, child: c, typ: sparktype.DoubleType, kernel: func(k *kernelArgs, in arrow.Array) *memory.Buffer {
			a := values[float64](in)
			obuf, out := newFixed[float64](k.alloc, len(a))
			below := false
			for i, x := range a {
				out[i] = f(x)
				below = below || x <= asymptote
			}
			if below { // rare: a second pass nulls those rows
				for i, x := range a {
					if x <= asymptote {
						k.setNull(i)
					}
				}
			}
			return obuf
		}}, nil
	}
}

// ---- binary double functions ----

// binaryDouble is a null-intolerant function of two doubles; null (optional) nulls more rows.
type binaryDouble struct {
	name        string
	left, right Expr
	f           func(a, b float64) float64
	null        func(a, b float64) bool
}

func binaryDoubleTranslator(name string, f func(a, b float64) float64, null func(a, b float64) bool) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		l, err := translateChild(pe, "left", conf)
		if err != nil {
			return nil, err
		}
		r, err := translateChild(pe, "right", conf)
		if err != nil {
			return nil, err
		}
		if l.Type().Kind != sparktype.Double || r.Type().Kind != sparktype.Double {
			return nil, unsupported("%s of %s, %s is not supported natively (doubles expected)", plan.ShortClass(pe.Class), l.Type(), r.Type())
		}
		return &binaryDouble{name: name, left: l, right: r, f: f, null: null}, nil
	}
}

func (e *binaryDouble) Type() sparktype.Type { return sparktype.DoubleType }
func (e *binaryDouble) mayFail() bool        { return mayFail(e.left) || mayFail(e.right) }
func (e *binaryDouble) String() string       { return fmt.Sprintf("%s(%s, %s)", e.name, e.left, e.right) }

func (e *binaryDouble) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *binaryDouble) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, err := evalOperandActive(ctx, b, e.left, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	var ract []byte
	if mayFail(e.right) {
		ract = andActiveValid(active, lo, n)
	}
	ro, err := evalOperandActive(ctx, b, e.right, ract)
	if err != nil {
		return nil, err
	}
	defer ro.release()
	dt := arrow.PrimitiveTypes.Float64
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	a, c := values[float64](lo.arr), values[float64](ro.arr)
	am, cm := lo.mask(), ro.mask()
	obuf, out := newFixed[float64](ctx.Alloc, n)
	f := e.f
	for i := range out {
		out[i] = f(a[i&am], c[i&cm])
	}
	if e.null != nil {
		for i := range out {
			if e.null(a[i&am], c[i&cm]) {
				k.setNull(i)
			}
		}
	}
	return finish(dt, n, k.vbuf, obuf, k.nulls), nil
}
