package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// FormatNumber (format_number(x, d)) with an integer d, as Spark 4.1's FormatNumber.nullSafeEval
// computes it: java.text.DecimalFormat with the pattern "#,###,###,###,###,###,##0" plus "."
// and d zeros (Locale.US symbols, RoundingMode.HALF_EVEN, DecimalFormat's default); null for
// d < 0. DecimalFormat rounds a DigitList:
//   - bytes, shorts, ints and longs are format(long): all their digits, d zero fraction digits;
//   - decimals are format(BigDecimal): the exact digits, rounded HALF_EVEN at d fraction digits;
//   - doubles, and floats widened to double, are format(double): the digits of the JVM's
//     FloatingDecimal (Double.toString's digits on Java 17 and 18, not always the shortest),
//     rounded at d fraction digits where a last digit '5' is a tie only when FloatingDecimal
//     says its digits are exact (else up when they were truncated, down when rounded up). NaN
//     prints "NaN", infinities "∞" and "-∞".
// A negative value that rounds to zero keeps its '-' ("-0.00"), as DecimalFormat prints it,
// and so does -0.0.
// Only a literal d is native (the pattern is fixed per batch); for doubles and floats the JVM
// must be Java 17 or 18, whose FloatingDecimal javadouble.go reproduces (later JDKs changed the
// digits DigitList starts from). d above 340 is refused: DecimalFormat caps the fraction
// digits of doubles and longs at 340. The string-pattern variant stays in Spark.

func init() {
	Register("FormatNumber", "format_number(x, d) of a number with a literal int d: DecimalFormat '#,##0.00..' with HALF_EVEN (null for d < 0); doubles/floats on Java 17/18 only; string patterns refused", translateFormatNumber)
}

type formatNumber struct {
	namedCall
	d     int // fraction digits, or -1 for an all-null result
	kind  sparktype.Kind
	scale int32 // of a decimal x
	typ   sparktype.Type
}

func (e *formatNumber) Type() sparktype.Type { return e.typ }

// fmtNumMaxFraction is DecimalFormat's DOUBLE_FRACTION_DIGITS, the cap on fraction digits for
// format(double) and format(long).
const fmtNumMaxFraction = 340

func translateFormatNumber(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	x, err := translateChild(pe, "x", conf)
	if err != nil {
		return nil, err
	}
	d, err := translateChild(pe, "d", conf)
	if err != nil {
		return nil, err
	}
	switch x.Type().Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Decimal:
	case sparktype.Float, sparktype.Double:
		if v := JavaVersion(); v != 17 && v != 18 {
			if why := javaToStringUnknown(); why != "" {
				return nil, unsupported("format_number of %s is not supported natively: %s", x.Type(), why)
			}
			return nil, unsupported("format_number of %s is not supported natively on Java %d (its DecimalFormat digits are reproduced for Java 17 and 18 only)", x.Type(), v)
		}
	default:
		return nil, unsupported("format_number of %s is not supported natively", x.Type())
	}
	lit, ok := d.(*Literal)
	if !ok || d.Type().Kind != sparktype.Int {
		return nil, unsupported("format_number with a non-literal or non-int number of decimal places (%s) is not supported natively (the string-pattern form stays in Spark)", d)
	}
	places := -1
	if !lit.IsNull() {
		v := literalInt(lit)
		if v > fmtNumMaxFraction {
			return nil, unsupported("format_number with %d decimal places is not supported natively (at most %d)", v, fmtNumMaxFraction)
		}
		if v >= 0 {
			places = int(v)
		}
	}
	return &formatNumber{namedCall: namedCall{name: "format_number", args: []Expr{x, d}},
		d: places, kind: x.Type().Kind, scale: x.Type().Scale, typ: t}, nil
}

// digitList is the part of java.text.DigitList the fixed-point format uses: the value is
// 0.digits x 10^decimalAt, digits without leading zeros (none for zero).
type digitList struct {
	digits    []byte
	decimalAt int
	roundedUp bool // FloatingDecimal rounded the digits up
	exact     bool // the digits are the exact value
}

// shouldRoundUp is DigitList.shouldRoundUp for HALF_EVEN at index max (< len(digits)).
func (l *digitList) shouldRoundUp(max int) bool {
	c := l.digits[max]
	if c != '5' {
		return c > '5'
	}
	if max == len(l.digits)-1 {
		if l.roundedUp {
			return false
		}
		if !l.exact {
			return true
		}
		return max > 0 && (l.digits[max-1]-'0')%2 != 0
	}
	for _, c := range l.digits[max+1:] {
		if c != '0' {
			return true
		}
	}
	return false
}

// fixed is DigitList.set's fixed-point step for maximumDigits = d fraction digits.
func (l *digitList) fixed(d int) {
	if len(l.digits) == 0 {
		return
	}
	if -l.decimalAt > d { // underflow: 0.0009 to two places
		l.digits = l.digits[:0]
		return
	}
	if -l.decimalAt == d { // 0.0009 to three places: one new digit or none
		if l.shouldRoundUp(0) {
			l.digits = append(l.digits[:0], '1')
			l.decimalAt++
		} else {
			l.digits = l.digits[:0]
		}
		return
	}
	n := len(l.digits)
	for n > 1 && l.digits[n-1] == '0' {
		n--
	}
	l.digits = l.digits[:n]
	max := d + l.decimalAt
	if max < 0 || max >= n {
		return
	}
	if l.shouldRoundUp(max) {
		for {
			max--
			if max < 0 {
				l.digits[0] = '1'
				l.decimalAt++
				max = 0
				break
			}
			l.digits[max]++
			if l.digits[max] <= '9' {
				break
			}
		}
		max++
	}
	n = max
	for n > 1 && l.digits[n-1] == '0' {
		n--
	}
	l.digits = l.digits[:n]
}

// appendFixed appends the rounded list as "#,##0.000": grouped integer digits (at least one)
// and exactly d fraction digits.
func (l *digitList) appendFixed(dst []byte, neg bool, d int) []byte {
	if neg {
		dst = append(dst, '-')
	}
	at := l.decimalAt
	if len(l.digits) == 0 {
		at = 0
	}
	count := max(at, 1)
	idx := 0
	for i := count - 1; i >= 0; i-- {
		if i < at && idx < len(l.digits) {
			dst = append(dst, l.digits[idx])
			idx++
		} else {
			dst = append(dst, '0')
		}
		if i > 0 && i%3 == 0 {
			dst = append(dst, ',')
		}
	}
	if d > 0 {
		dst = append(dst, '.')
		for i := 0; i < d; i++ {
			if p := at + i; p >= 0 && p < len(l.digits) {
				dst = append(dst, l.digits[p])
			} else {
				dst = append(dst, '0')
			}
		}
	}
	return dst
}

// fmtNumScratch holds one row's digits.
type fmtNumScratch struct {
	buf [48]byte
	fd  javaFloatDigits
	l   digitList
}

func (s *fmtNumScratch) long(dst []byte, v int64, d int) []byte {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	s.l = digitList{digits: strconv.AppendUint(s.buf[:0], u, 10)}
	if u == 0 {
		s.l.digits = s.l.digits[:0]
	}
	s.l.decimalAt = len(s.l.digits)
	return s.l.appendFixed(dst, v < 0, d)
}

func (s *fmtNumScratch) decimal(dst []byte, v decimal128.Num, scale int32, d int) []byte {
	neg := v.Sign() < 0
	a := v.Abs()
	var digits []byte
	if a.HighBits() == 0 {
		digits = strconv.AppendUint(s.buf[:0], a.LowBits(), 10)
	} else {
		digits = a.BigInt().Append(s.buf[:0], 10)
	}
	if len(digits) == 1 && digits[0] == '0' {
		digits = digits[:0]
	}
	s.l = digitList{digits: digits, decimalAt: len(digits) - int(scale), exact: true}
	s.l.fixed(d)
	return s.l.appendFixed(dst, neg, d)
}

func (s *fmtNumScratch) double(dst []byte, f float64, d int) []byte {
	if f != f {
		return append(dst, "NaN"...)
	}
	neg := math.Signbit(f)
	if math.IsInf(f, 0) {
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, "∞"...)
	}
	if f == 0 {
		s.l = digitList{digits: s.buf[:0]}
		return s.l.appendFixed(dst, neg, d)
	}
	s.fd.floatingDecimal(math.Abs(f), 64)
	s.l = digitList{digits: append(s.buf[:0], s.fd.digits()...), decimalAt: s.fd.decExp,
		roundedUp: s.fd.roundedUp, exact: s.fd.exact}
	s.l.fixed(d)
	return s.l.appendFixed(dst, neg, d)
}

func (e *formatNumber) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *formatNumber) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	dt := e.typ.Arrow()
	if e.d < 0 || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	ops, err := evalInOrder(ctx, b, active, e.args[0])
	defer releaseAll(ops)
	if err != nil {
		return nil, err
	}
	x := ops[0]
	if x.nullScalar() {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, nonScalar(ops)...)
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	// Sign, 309 integer digits with 102 separators, the point and d digits.
	rowMax := 1 + 309 + 103 + 1 + e.d
	out, err := newBytesOut(ctx.Alloc, n, int64(n)*int64(min(rowMax, 32+e.d)))
	if err != nil {
		if k.vbuf != nil {
			k.vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	m := x.mask()
	var s fmtNumScratch
	// One typed slice, read once per batch; the row loop only switches on the kind.
	var i8 []int8
	var i16 []int16
	var i32 []int32
	var i64 []int64
	var f32 []float32
	var f64 []float64
	var dec []decimal128.Num
	switch e.kind {
	case sparktype.Byte:
		i8 = values[int8](x.arr)
	case sparktype.Short:
		i16 = values[int16](x.arr)
	case sparktype.Int:
		i32 = values[int32](x.arr)
	case sparktype.Long:
		i64 = values[int64](x.arr)
	case sparktype.Float:
		f32 = values[float32](x.arr)
	case sparktype.Double:
		f64 = values[float64](x.arr)
	case sparktype.Decimal:
		dec = values[decimal128.Num](x.arr)
	}
	for i := 0; i < n; i++ {
		if !k.rowValid(i) || (active != nil && active[i>>3]&(1<<(i&7)) == 0) {
			out.endRow(i)
			continue
		}
		if err := out.ensure(rowMax); err != nil {
			out.release()
			if k.vbuf != nil {
				k.vbuf.Release()
			}
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		dst := out.room()[:0]
		j := i & m
		switch e.kind {
		case sparktype.Byte:
			dst = s.long(dst, int64(i8[j]), e.d)
		case sparktype.Short:
			dst = s.long(dst, int64(i16[j]), e.d)
		case sparktype.Int:
			dst = s.long(dst, int64(i32[j]), e.d)
		case sparktype.Long:
			dst = s.long(dst, i64[j], e.d)
		case sparktype.Float:
			dst = s.double(dst, float64(f32[j]), e.d)
		case sparktype.Double:
			dst = s.double(dst, f64[j], e.d)
		case sparktype.Decimal:
			dst = s.decimal(dst, dec[j], e.scale, e.d)
		}
		out.end(i, len(dst))
	}
	return out.finish(dt, n, k.vbuf, k.nulls), nil
}
