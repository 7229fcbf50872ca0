package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Cast among boolean and numeric types, after Cast.scala (castToByte/Short/Int/Long/Float/Double/
// Decimal/Boolean) and Decimal.scala:
//   - integral narrowing: LEGACY keeps the low bits (Java), ANSI raises CAST_OVERFLOW, TRY null.
//   - float/double -> integral: Java d2i/d2l (NaN -> 0, saturating), then low bits for
//     byte/short; LEGACY only (ANSI/TRY messages print doubles the Java way: refused).
//   - decimal -> integral: truncation toward zero, low 64 bits, then low bits (LEGACY); TRY to
//     long gives null out of range. ANSI and TRY to int/short/byte depend on Spark's internal
//     Decimal representation (a double round trip for non-compact values): refused.
//   - numeric -> float/double: IEEE round to nearest (decimals correctly rounded, like
//     BigDecimal.doubleValue/floatValue).
//   - integral/boolean/decimal/float/double -> decimal: exact value (a double goes through
//     Double.toString, the shortest repr), then HALF_UP to the target scale; overflow is null
//     (LEGACY/TRY) or NUMERIC_VALUE_OUT_OF_RANGE (ANSI); NaN and infinities give null.
//   - numeric -> boolean: value != 0 (NaN is true); boolean -> numeric: 1 / 0.
//   - string -> binary: the string's UTF-8 bytes (UTF8String.getBytes), in every mode.
// Casts from and to strings (numbers, booleans, dates, timestamps) are casttext.go's dispatch.
// Everything else (binary -> string, dates <-> timestamps, intervals, ...) is refused.

func init() {
	Register("Cast", "casts among boolean, byte, short, int, long, float, double and decimal (Spark LEGACY/ANSI/TRY rules); string to binary; string to every numeric type, boolean, date, timestamp and timestamp_ntz, and all of these to string, with Spark's parsers and printers (Java's Double.toString of the running JVM) and ANSI errors; other casts (binary to string, dates to and from timestamps, intervals) refused", translateCast)
}

type castFn func(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error)

type cast struct {
	child    Expr
	from, to sparktype.Type
	mode     evalMode
	fn       castFn
}

func (e *cast) Type() sparktype.Type { return e.to }
func (e *cast) String() string       { return fmt.Sprintf("cast(%s as %s)", e.child, e.to) }
func (e *cast) mayFail() bool        { return mayFail(e.child) || e.mode == modeANSI }

func sqlTypeName(t sparktype.Type) string {
	switch t.Kind {
	case sparktype.Boolean:
		return "BOOLEAN"
	case sparktype.Byte:
		return "TINYINT"
	case sparktype.Short:
		return "SMALLINT"
	case sparktype.Int:
		return "INT"
	case sparktype.Long:
		return "BIGINT"
	case sparktype.Float:
		return "FLOAT"
	case sparktype.Double:
		return "DOUBLE"
	case sparktype.Decimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	}
	return strings.ToUpper(t.Name)
}

func translateCast(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	to, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if pe.Has("dataType") {
		if ft, err := pe.DataTypeField("dataType"); err == nil && !ft.Equal(to) {
			return nil, fmt.Errorf("Cast dataType field %s differs from its type %s", ft, to)
		}
	}
	mode := modeLegacy
	if pe.Has("evalMode") {
		if mode, err = exprEvalMode(pe); err != nil {
			return nil, err
		}
	} else if pe.Has("ansiEnabled") {
		ansi, err := pe.Bool("ansiEnabled")
		if err != nil {
			return nil, err
		}
		if ansi {
			mode = modeANSI
		}
	} else {
		return nil, fmt.Errorf("Cast has no evalMode field")
	}
	c, err := translateChild(pe, "child", conf)
	if err != nil {
		return nil, err
	}
	from := c.Type()
	e := &cast{child: c, from: from, to: to, mode: mode}
	refuse := func(why string) error {
		s := fmt.Sprintf("cast from %s to %s is not supported natively", from, to)
		if mode != modeLegacy {
			s = fmt.Sprintf("cast from %s to %s in %s mode is not supported natively", from, to, mode)
		}
		if why != "" {
			s += " (" + why + ")"
		}
		return unsupported("%s", s)
	}
	if from.Kind == sparktype.Null && to.Supported() {
		// CAST(NULL AS t), which Spark's optimizer leaves for typed nulls (an outer join's
		// missing side, a UNION with a NULL column): every value is null, in every mode.
		e.fn = castIdentity // never reached: evalMasked returns nulls for an all-null input
		return e, nil
	}
	if from.Kind == sparktype.String && to.Kind == sparktype.Binary {
		// castToBinary: UTF8String.getBytes, the same bytes in every mode (md5(str) and the other
		// digests cast their string argument so).
		e.fn = castStringToBinary
		return e, nil
	}
	if fn, why, ok := textCast(e, pe, conf); ok {
		// Casts from and to strings and dates (casttext.go).
		if fn == nil {
			return nil, refuse(why)
		}
		e.fn = fn
		return e, nil
	}
	numOrBool := func(t sparktype.Type) bool { return t.IsNumeric() || t.Kind == sparktype.Boolean }
	if !numOrBool(from) || !numOrBool(to) {
		if from.Equal(to) && from.Supported() {
			e.fn = castIdentity
			return e, nil
		}
		return nil, refuse("")
	}
	switch {
	case from.Equal(to):
		e.fn = castIdentity
	case to.Kind == sparktype.Boolean:
		e.fn = castToBoolean
	case from.Kind == sparktype.Boolean:
		e.fn = castFromBoolean
	case to.Kind == sparktype.Decimal:
		if from.IsFloating() && javaToStringUnknown() != "" {
			return nil, refuse(javaToStringUnknown()) // Decimal(double) parses Double.toString
		}
		e.fn = castToDecimal
	case to.IsFloating():
		e.fn = castToFloating
	case to.IsIntegral() && from.IsIntegral():
		e.fn = castIntegral
	case to.IsIntegral() && from.IsFloating():
		if mode != modeLegacy {
			return nil, refuse("overflow checks of floating point values are not implemented")
		}
		e.fn = castFloatToIntegral
	case to.IsIntegral() && from.Kind == sparktype.Decimal:
		if mode == modeANSI || (mode == modeTry && to.Kind != sparktype.Long) {
			return nil, refuse("Spark's overflow check depends on its internal decimal representation")
		}
		e.fn = castDecimalToIntegral
	default:
		return nil, refuse("")
	}
	return e, nil
}

func (e *cast) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *cast) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	if in.NullN() == n {
		return allNull(ctx.Alloc, e.to.Arrow(), n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls, active: active}
	out, err := e.fn(e, &k, in)
	if err != nil && k.vbuf != nil {
		k.vbuf.Release()
	}
	return out, err
}

func castIdentity(_ *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	if k.vbuf != nil {
		k.vbuf.Release()
	}
	in.Retain()
	return in, nil
}

// castStringToBinary relabels a string column as binary: the same buffers, no copy.
func castStringToBinary(_ *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	if k.vbuf != nil {
		k.vbuf.Release()
	}
	d := in.Data()
	bd := array.NewData(arrow.BinaryTypes.Binary, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	out := array.MakeFromData(bd)
	bd.Release()
	return out, nil
}

// readInt64 widens an integral column to int64 values.
func readInt64(in arrow.Array, t sparktype.Type) []int64 {
	out := make([]int64, in.Len())
	switch t.Kind {
	case sparktype.Byte:
		for i, v := range values[int8](in) {
			out[i] = int64(v)
		}
	case sparktype.Short:
		for i, v := range values[int16](in) {
			out[i] = int64(v)
		}
	case sparktype.Int:
		for i, v := range values[int32](in) {
			out[i] = int64(v)
		}
	case sparktype.Long:
		copy(out, values[int64](in))
	}
	return out
}

func readFloat64(in arrow.Array, t sparktype.Type) []float64 {
	if t.Kind == sparktype.Double {
		return values[float64](in)
	}
	out := make([]float64, in.Len())
	for i, v := range values[float32](in) {
		out[i] = float64(v)
	}
	return out
}

// writeIntegral stores int64 values into a column of integral type t, keeping the low bits.
func writeIntegral(k *kernelArgs, t sparktype.Type, v []int64) arrow.Array {
	switch t.Kind {
	case sparktype.Byte:
		return storeAs[int8](k, t, v)
	case sparktype.Short:
		return storeAs[int16](k, t, v)
	case sparktype.Int:
		return storeAs[int32](k, t, v)
	}
	return storeAs[int64](k, t, v)
}

func storeAs[T integer](k *kernelArgs, t sparktype.Type, v []int64) arrow.Array {
	obuf, out := newFixed[T](k.alloc, k.n)
	for i, x := range v {
		out[i] = T(x)
	}
	return finish(t.Arrow(), k.n, k.vbuf, obuf, k.nulls)
}

func intLiteralSQL(v int64, t sparktype.Type) string {
	switch t.Kind {
	case sparktype.Byte:
		return fmt.Sprintf("%dY", v)
	case sparktype.Short:
		return fmt.Sprintf("%dS", v)
	case sparktype.Long:
		return fmt.Sprintf("%dL", v)
	}
	return strconv.FormatInt(v, 10)
}

func fitsIntegral(v int64, t sparktype.Type) bool {
	switch t.Kind {
	case sparktype.Byte:
		return v == int64(int8(v))
	case sparktype.Short:
		return v == int64(int16(v))
	case sparktype.Int:
		return v == int64(int32(v))
	}
	return true
}

func castIntegral(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	v := readInt64(in, c.from)
	if c.mode != modeLegacy {
		for i, x := range v {
			if fitsIntegral(x, c.to) || !k.rowValid(i) {
				continue
			}
			if c.mode == modeANSI && isActive(k.active, i) {
				return nil, exec.CastOverflow(intLiteralSQL(x, c.from), `"`+sqlTypeName(c.from)+`"`, `"`+sqlTypeName(c.to)+`"`)
			}
			k.setNull(i)
		}
	}
	return writeIntegral(k, c.to, v), nil
}

// javaD2L is Java's (long) conversion of a double: NaN -> 0, saturating.
func javaD2L(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 9.223372036854775807e18:
		return math.MaxInt64
	case f <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(f)
}

// javaD2I is Java's (int) conversion of a double.
func javaD2I(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(int32(f))
}

func castFloatToIntegral(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	f := readFloat64(in, c.from)
	v := make([]int64, len(f))
	for i, x := range f {
		if c.to.Kind == sparktype.Long {
			v[i] = javaD2L(x)
		} else {
			v[i] = javaD2I(x) // then the low bits for byte/short: numeric.toInt(b).toByte
		}
	}
	return writeIntegral(k, c.to, v), nil
}

func castDecimalToIntegral(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	a := values[decimal128.Num](in)
	v := make([]int64, len(a))
	s := c.from.Scale
	var bx big.Int
	for i, x := range a {
		if !k.rowValid(i) {
			continue
		}
		if x64, ok := i64(x); ok && s <= 18 {
			v[i] = x64 / int64(pow10u64[s])
			continue
		}
		numToBig(&bx, x)
		bx.Quo(&bx, pow10Big(int(s))) // truncation toward zero
		if bx.IsInt64() {
			v[i] = bx.Int64()
			continue
		}
		if c.mode == modeTry { // roundToLong: longValueExact fails -> null
			k.setNull(i)
			continue
		}
		// BigDecimal.longValue: the low 64 bits.
		v[i] = int64(decimal128.FromBigInt(&bx).LowBits())
	}
	return writeIntegral(k, c.to, v), nil
}

func castToBoolean(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	obuf, out := newBitmap(k.alloc, k.n)
	set := func(i int, b bool) { out[i>>3] |= b2u(b) << (i & 7) }
	switch c.from.Kind {
	case sparktype.Float, sparktype.Double:
		for i, x := range readFloat64(in, c.from) {
			set(i, x != 0) // NaN != 0
		}
	case sparktype.Decimal:
		for i, x := range values[decimal128.Num](in) {
			set(i, x.LowBits() != 0 || x.HighBits() != 0)
		}
	default:
		for i, x := range readInt64(in, c.from) {
			set(i, x != 0)
		}
	}
	return finish(arrow.FixedWidthTypes.Boolean, k.n, k.vbuf, obuf, k.nulls), nil
}

func castFromBoolean(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	d := in.Data()
	bm := d.Buffers()[1].Bytes()
	v := make([]int64, k.n)
	for i := range v {
		v[i] = int64(b2u(bitutil.BitIsSet(bm, d.Offset()+i)))
	}
	switch {
	case c.to.IsIntegral():
		return writeIntegral(k, c.to, v), nil
	case c.to.Kind == sparktype.Float:
		obuf, out := newFixed[float32](k.alloc, k.n)
		for i, x := range v {
			out[i] = float32(x)
		}
		return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
	case c.to.Kind == sparktype.Double:
		obuf, out := newFixed[float64](k.alloc, k.n)
		for i, x := range v {
			out[i] = float64(x)
		}
		return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
	}
	return intsToDecimal(c, k, v)
}

func castToFloating(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	if c.to.Kind == sparktype.Float {
		obuf, out := newFixed[float32](k.alloc, k.n)
		switch c.from.Kind {
		case sparktype.Float, sparktype.Double:
			for i, x := range readFloat64(in, c.from) {
				out[i] = float32(x) // double -> float rounds to nearest (Java d2f)
			}
		case sparktype.Decimal:
			for i, x := range values[decimal128.Num](in) {
				out[i] = decimalToFloat32(x, c.from.Scale)
			}
		default:
			for i, x := range readInt64(in, c.from) {
				out[i] = float32(x) // Java i2f / l2f: round to nearest
			}
		}
		return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
	}
	obuf, out := newFixed[float64](k.alloc, k.n)
	switch c.from.Kind {
	case sparktype.Float, sparktype.Double:
		copy(out, readFloat64(in, c.from)) // float -> double is exact
	case sparktype.Decimal:
		for i, x := range values[decimal128.Num](in) {
			out[i] = decimalToFloat64(x, c.from.Scale)
		}
	default:
		for i, x := range readInt64(in, c.from) {
			out[i] = float64(x)
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

var float64Pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalToFloat64 is correctly rounded, like BigDecimal.doubleValue.
func decimalToFloat64(x decimal128.Num, scale int32) float64 {
	if v, ok := i64(x); ok && v < 1<<53 && v > -(1<<53) && int(scale) < len(float64Pow10) {
		return float64(v) / float64Pow10[scale] // both exact: one correctly rounded division
	}
	var bx big.Int
	f, _ := strconv.ParseFloat(plainString(numToBig(&bx, x), scale), 64)
	return f
}

func decimalToFloat32(x decimal128.Num, scale int32) float32 {
	if v, ok := i64(x); ok && v < 1<<24 && v > -(1<<24) && scale <= 10 {
		return float32(v) / float32(float64Pow10[scale])
	}
	var bx big.Int
	f, _ := strconv.ParseFloat(plainString(numToBig(&bx, x), scale), 32)
	return float32(f)
}

func castToDecimal(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	switch {
	case c.from.IsIntegral():
		return intsToDecimal(c, k, readInt64(in, c.from))
	case c.from.Kind == sparktype.Decimal:
		return decimalToDecimal(c, k, in)
	default:
		return floatsToDecimal(c, k, readFloat64(in, c.from))
	}
}

// decimalResult finishes one value of a cast to decimal: u at scale s, rounded HALF_UP to the
// target; on overflow null or (ANSI, active row) NUMERIC_VALUE_OUT_OF_RANGE with plain(u, s).
func (c *cast) decimalResult(k *kernelArgs, i int, u *big.Int, s int32, out []decimal128.Num, tmp *big.Int) error {
	roundHalfUpBig(tmp, u, int(s-c.to.Scale))
	if digitsBig(tmp) <= int(c.to.Precision) {
		out[i] = decimal128.FromBigInt(tmp)
		return nil
	}
	if c.mode == modeANSI && isActive(k.active, i) {
		return exec.NumericValueOutOfRange(plainString(u, s), c.to.Precision, c.to.Scale)
	}
	k.setNull(i)
	return nil
}

func intsToDecimal(c *cast, k *kernelArgs, v []int64) (arrow.Array, error) {
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	p, s := c.to.Precision, c.to.Scale
	var u, tmp big.Int
	for i, x := range v {
		out[i] = decimal128.Num{}
		if !k.rowValid(i) {
			continue
		}
		if p-s >= 19 || fitsI64Precision(x, p-s) {
			// |x| < 10^(p-s): x * 10^s is exact and fits precision p <= 38.
			out[i] = decimal128.FromI64(x).Mul(decimal128.GetScaleMultiplier(int(s)))
			continue
		}
		u.SetInt64(x)
		if err := c.decimalResult(k, i, &u, 0, out, &tmp); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

func decimalToDecimal(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	a := values[decimal128.Num](in)
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	fs, ts := c.from.Scale, c.to.Scale
	var u, tmp big.Int
	for i, x := range a {
		out[i] = decimal128.Num{}
		if !k.rowValid(i) {
			continue
		}
		if ts >= fs && c.from.Precision+(ts-fs) <= 38 {
			y := x.Mul(decimal128.GetScaleMultiplier(int(ts - fs)))
			if fitsPrecision(y, c.to.Precision) {
				out[i] = y
				continue
			}
		}
		numToBig(&u, x)
		if err := c.decimalResult(k, i, &u, fs, out, &tmp); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}

// javaDoubleDecimal returns the decimal value of Java's Double.toString(f) as BigDecimal
// parses it (javadouble.go, for the JVM's version): unscaled digits and scale (a negative
// scale rescaled to 0, as Decimal.set(BigDecimal) does).
func javaDoubleDecimal(f float64, u *big.Int) int32 {
	var jd javaFloatDigits
	var buf [32]byte
	s := jd.appendJava(buf[:0], f, 64, JavaVersion())
	d, _ := parseJavaBigDecimal(s, make([]byte, 0, 24)) // Java's own text: always parses
	if len(d.digits) == 0 {
		u.SetInt64(0)
	} else {
		u.SetString(string(d.digits), 10)
	}
	if d.neg {
		u.Neg(u)
	}
	if d.scale < 0 {
		u.Mul(u, pow10Big(int(-d.scale)))
		return 0
	}
	return d.scale
}

// doubleToDecimalFast is javaDoubleDecimal followed by decimalResult's HALF_UP rounding to
// scale s, in machine integers: Double.toString's digits D (at most 18, so D < 10^18 fits a
// uint64) are the value D x 10^(decExp-n), and rounding that value to a fixed scale depends on the
// value only, not on the trailing zeros the text would carry. It skips the text round trip and
// big.Int (the profile's top cost of a cast from double to decimal). ok is false when the digits
// are too many or the result does not fit precision p: the caller then takes the exact path,
// which also builds the overflow error's text.
func doubleToDecimalFast(d *javaFloatDigits, f float64, ver int, p, s int32) (decimal128.Num, bool) {
	if f == 0 {
		return decimal128.Num{}, true // "0.0" and "-0.0": zero at any scale
	}
	d.javaDigits(f, 64, ver)
	dg := d.digits()
	if len(dg) > 18 {
		return decimal128.Num{}, false
	}
	var v uint64
	for _, c := range dg {
		v = v*10 + uint64(c-'0')
	}
	shift := d.decExp - len(dg) + int(s) // the value is v x 10^(shift-s)
	var y decimal128.Num
	switch {
	case shift >= 0:
		if len(dg)+shift > 38 {
			return decimal128.Num{}, false // more than 38 digits: no decimal128 holds it
		}
		y = decimal128.FromU64(v).Mul(decimal128.GetScaleMultiplier(shift))
	case -shift >= len(pow10u64):
		// v < 10^18 is below half of 10^k for k >= 19: it rounds to zero.
	default:
		pw := pow10u64[-shift]
		q, r := v/pw, v%pw
		if r >= pw-r { // HALF_UP: r/pw >= 1/2, on the magnitude
			q++
		}
		y = decimal128.FromU64(q)
	}
	if !fitsPrecision(y, p) {
		return decimal128.Num{}, false
	}
	if d.neg {
		y = y.Negate()
	}
	return y, true
}

func floatsToDecimal(c *cast, k *kernelArgs, f []float64) (arrow.Array, error) {
	obuf, out := newFixed[decimal128.Num](k.alloc, k.n)
	var u, tmp big.Int
	var jd javaFloatDigits // reused: its scratch big integers outlive the rows
	ver := JavaVersion()
	for i, x := range f {
		out[i] = decimal128.Num{}
		if !k.rowValid(i) {
			continue
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			k.setNull(i) // BigDecimal(Double.toString) throws NumberFormatException -> null
			continue
		}
		if y, ok := doubleToDecimalBinary(x, c.to.Precision, c.to.Scale); ok {
			out[i] = y
			continue
		}
		if y, ok := doubleToDecimalFast(&jd, x, ver, c.to.Precision, c.to.Scale); ok {
			out[i] = y
			continue
		}
		s := javaDoubleDecimal(x, &u)
		if err := c.decimalResult(k, i, &u, s, out, &tmp); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
}
