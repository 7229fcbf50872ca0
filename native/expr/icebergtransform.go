package expr

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Iceberg's partition transforms as Spark functions (org.apache.iceberg.spark.functions: SQL's
// <catalog>.system.bucket, truncate, years, months, days, hours), bit for bit as Iceberg Java
// computes them (the spec's "Partition Transforms" and Appendix B, BucketUtil, TruncateUtil,
// DateTimeUtil). Spark plans each as a StaticInvoke of the bound function's static invoke method
// in projections, and as an ApplyFunctionExpression in filters and join conditions (Iceberg's
// ReplaceStaticInvoke optimizer rule, for pushdown). Both give null when an argument is null
// (StaticInvoke null-checks primitive arguments, the invoke methods return null for null objects).
//
//   - bucket(N, v) = (murmur3_x86_32(bytes(v), seed 0) & Integer.MAX_VALUE) % N, the reference
//     Murmur3 (Guava's), whose bytes(v) are: for int and date (BucketInt) and for long, timestamp
//     and timestamp_ntz (BucketLong) the value as an 8-byte little-endian long; for a string its
//     UTF-8 bytes as UTF8String holds them; for binary the bytes; for a decimal
//     BigInteger.toByteArray of the unscaled value.
//   - truncate(W, v): integers v - (((v % W) + W) % W) in Java's wrapping arithmetic of int (byte
//     and short computed as ints, then narrowed) or long; decimals the same on the unscaled value,
//     scale kept; strings the first W code points (UTF8String.substring(0, W), code points counted
//     by their first byte as UTF8String does); binary the first W bytes.
//   - years, months, days, hours: whole units from 1970-01-01T00:00 UTC to a date or a timestamp
//     (timestamp_ntz alike), as DateTimeUtil.convertDays / convertMicros count them: before the
//     epoch, the count toward the epoch at one day (dates) or one microsecond (timestamps) later,
//     minus one, which is floor division, except that Iceberg builds that later instant from
//     floorDiv(micros, 10^6) seconds and floorMod(micros + 1, 10^6) micros: a pre-epoch timestamp
//     at .999999 of a second is taken one second early (hours(1969-12-31 23:00:00.999999) is -2,
//     floor division would say -1), and Bolide does the same. days returns a date, the others ints.
//
// N and W must be positive literals. Iceberg's Spark functions take any int expression there,
// but a bucket count of 0 raises ArithmeticException and widths <= 0 give empty strings or
// exceptions: such calls stay in Spark.
//
// A truncated decimal can need one digit more than its type has (decimal(3,0) -999 truncated by
// 10 is -1000). Spark then holds a Decimal wider than the type: a projection writes it into its
// output row as null (UnsafeRowWriter), a predicate compares the wide value. So StaticInvoke
// (projections) gives null, and ApplyFunctionExpression (planned only in predicates) keeps the
// value, which native comparisons and casts read like any other unscaled value.

const icebergFunctions = "org.apache.iceberg.spark.functions."

// icebergOp is one transform.
type icebergOp uint8

const (
	iceBucket icebergOp = iota
	iceTruncate
	iceYears
	iceMonths
	iceDays
	iceHours
)

var icebergOpNames = [...]string{iceBucket: "bucket", iceTruncate: "truncate", iceYears: "years",
	iceMonths: "months", iceDays: "days", iceHours: "hours"}

// icebergClasses maps each bound function class to its transform and the argument kinds it is
// bound for (BucketFunction.bind and its siblings choose the class by the argument's type).
var icebergClasses = map[string]struct {
	op    icebergOp
	kinds []sparktype.Kind
}{
	"BucketFunction$BucketInt":                    {iceBucket, []sparktype.Kind{sparktype.Int, sparktype.Date}},
	"BucketFunction$BucketLong":                   {iceBucket, []sparktype.Kind{sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ}},
	"BucketFunction$BucketString":                 {iceBucket, []sparktype.Kind{sparktype.String}},
	"BucketFunction$BucketBinary":                 {iceBucket, []sparktype.Kind{sparktype.Binary}},
	"BucketFunction$BucketDecimal":                {iceBucket, []sparktype.Kind{sparktype.Decimal}},
	"TruncateFunction$TruncateTinyInt":            {iceTruncate, []sparktype.Kind{sparktype.Byte}},
	"TruncateFunction$TruncateSmallInt":           {iceTruncate, []sparktype.Kind{sparktype.Short}},
	"TruncateFunction$TruncateInt":                {iceTruncate, []sparktype.Kind{sparktype.Int}},
	"TruncateFunction$TruncateBigInt":             {iceTruncate, []sparktype.Kind{sparktype.Long}},
	"TruncateFunction$TruncateDecimal":            {iceTruncate, []sparktype.Kind{sparktype.Decimal}},
	"TruncateFunction$TruncateString":             {iceTruncate, []sparktype.Kind{sparktype.String}},
	"TruncateFunction$TruncateBinary":             {iceTruncate, []sparktype.Kind{sparktype.Binary}},
	"YearsFunction$DateToYearsFunction":           {iceYears, []sparktype.Kind{sparktype.Date}},
	"YearsFunction$TimestampToYearsFunction":      {iceYears, []sparktype.Kind{sparktype.Timestamp}},
	"YearsFunction$TimestampNtzToYearsFunction":   {iceYears, []sparktype.Kind{sparktype.TimestampNTZ}},
	"MonthsFunction$DateToMonthsFunction":         {iceMonths, []sparktype.Kind{sparktype.Date}},
	"MonthsFunction$TimestampToMonthsFunction":    {iceMonths, []sparktype.Kind{sparktype.Timestamp}},
	"MonthsFunction$TimestampNtzToMonthsFunction": {iceMonths, []sparktype.Kind{sparktype.TimestampNTZ}},
	"DaysFunction$DateToDaysFunction":             {iceDays, []sparktype.Kind{sparktype.Date}},
	"DaysFunction$TimestampToDaysFunction":        {iceDays, []sparktype.Kind{sparktype.Timestamp}},
	"DaysFunction$TimestampNtzToDaysFunction":     {iceDays, []sparktype.Kind{sparktype.TimestampNTZ}},
	"HoursFunction$TimestampToHoursFunction":      {iceHours, []sparktype.Kind{sparktype.Timestamp}},
	"HoursFunction$TimestampNtzToHoursFunction":   {iceHours, []sparktype.Kind{sparktype.TimestampNTZ}},
}

const timeQuirk = "a pre-1970 timestamp at .999999 of a second taken one second early as Iceberg does"

func init() {
	docs := [...]string{
		iceBucket:   "bucket(N, v) over int, long, decimal, date, timestamp, timestamp_ntz, string and binary: Iceberg's Murmur3 bucket, (murmur3_x86_32(v's spec bytes) & Integer.MAX_VALUE) % N, bit-identical to Iceberg Java; N a positive literal; null if v is null",
		iceTruncate: "truncate(W, v) over tinyint, smallint, int, long, decimal (on the unscaled value), string (W code points) and binary (W bytes), as Iceberg Java computes it; W a positive literal; a decimal result wider than its type is null in a projection (as Spark writes it) and compared as is in a predicate",
		iceYears:    "years(v) of a date, timestamp or timestamp_ntz: years since 1970 as Iceberg's DateTimeUtil counts them (floor before 1970, " + timeQuirk + ")",
		iceMonths:   "months(v) of a date, timestamp or timestamp_ntz: months since 1970-01 as Iceberg's DateTimeUtil counts them (floor before 1970, " + timeQuirk + ")",
		iceDays:     "days(v) of a date, timestamp or timestamp_ntz: a date, days since 1970-01-01 as Iceberg's DateTimeUtil counts them (floor before 1970, " + timeQuirk + ")",
		iceHours:    "hours(v) of a timestamp or timestamp_ntz: hours since 1970-01-01 00:00 UTC as Iceberg's DateTimeUtil counts them (floor before 1970, " + timeQuirk + ")",
	}
	byOp := map[icebergOp][]string{}
	for cls, f := range icebergClasses {
		byOp[f.op] = append(byOp[f.op], icebergFunctions+cls)
	}
	for op := iceBucket; op <= iceHours; op++ {
		registerCall("Iceberg system."+icebergOpNames[op], docs[op], translateIceberg, byOp[op]...)
	}
}

func translateIceberg(c *call, conf *plan.Conf) (Expr, error) {
	f := icebergClasses[c.class[len(icebergFunctions):]]
	name := "Iceberg " + icebergOpNames[f.op]
	if c.static && c.method != "invoke" {
		return nil, unsupported("%s: method %s of %s is not supported natively", name, c.method, c.shortName())
	}
	arity := 1
	if f.op == iceBucket || f.op == iceTruncate {
		arity = 2
	}
	if err := c.checkArity(arity); err != nil {
		return nil, err
	}
	v, err := Translate(c.args[arity-1], conf)
	if err != nil {
		return nil, err
	}
	vt := v.Type()
	ok := false
	for _, k := range f.kinds {
		ok = ok || vt.Kind == k
	}
	if vt.Kind == sparktype.String && !binaryCollation(vt) {
		ok = false
	}
	if !ok {
		return nil, unsupported("%s (%s) of %s is not supported natively", name, c.shortName(), vt)
	}
	want := sparktype.IntType
	switch f.op {
	case iceTruncate:
		want = vt
	case iceDays:
		want = sparktype.DateType
	}
	if !c.typ.Equal(want) {
		return nil, unsupported("%s (%s) returning %s is not supported natively (expected %s)", name, c.shortName(), c.typ, want)
	}
	if arity == 1 {
		return &icebergTime{op: f.op, value: v}, nil
	}
	what := "number of buckets"
	if f.op == iceTruncate {
		what = "width"
	}
	if short := plan.ShortClass(c.args[0].Class); short != "Literal" {
		return nil, unsupported("%s: the %s must be an int literal, not %s", name, what, short)
	}
	pe, err := Translate(c.args[0], conf)
	if err != nil {
		return nil, err
	}
	p, ok := pe.(*Literal)
	if !ok || !pe.Type().IsIntegral() || pe.Type().Kind == sparktype.Long {
		return nil, unsupported("%s: the %s must be an int literal, not %s", name, what, pe)
	}
	e := &icebergParam{op: f.op, value: v, typ: want, evalAll: !c.static, nullOnOverflow: c.static}
	if p.IsNull() {
		e.null = true
		return e, nil
	}
	w := literalInt(p)
	if w <= 0 {
		return nil, unsupported("%s: the %s must be positive, not %d (Iceberg Java fails or gives empty values)", name, what, w)
	}
	e.param = int32(w)
	return e, nil
}

// literalInt reads a non-null byte, short or int literal.
func literalInt(l *Literal) int64 {
	switch l.typ.Kind {
	case sparktype.Byte:
		return int64(values[int8](l.one)[0])
	case sparktype.Short:
		return int64(values[int16](l.one)[0])
	}
	return int64(values[int32](l.one)[0])
}

// ---- bucket and truncate ----

// icebergParam is bucket(N, v) or truncate(W, v).
type icebergParam struct {
	op    icebergOp
	param int32 // N or W, > 0
	null  bool  // N or W is a null literal: every row is null
	value Expr
	typ   sparktype.Type
	// evalAll: an ApplyFunctionExpression, which evaluates the value even when the parameter is
	// null (StaticInvoke stops at the first null argument).
	evalAll bool
	// nullOnOverflow: a decimal truncated past its precision is null (StaticInvoke, see above).
	nullOnOverflow bool
}

func (e *icebergParam) Type() sparktype.Type { return e.typ }
func (e *icebergParam) mayFail() bool        { return (!e.null || e.evalAll) && mayFail(e.value) }
func (e *icebergParam) String() string {
	p := "null"
	if !e.null {
		p = fmt.Sprint(e.param)
	}
	return fmt.Sprintf("iceberg.%s(%s, %s)", icebergOpNames[e.op], p, e.value)
}

func (e *icebergParam) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *icebergParam) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	dt := e.typ.Arrow()
	if e.null && !(e.evalAll && mayFail(e.value)) {
		return allNull(ctx.Alloc, dt, n), nil
	}
	in, err := evalActive(ctx, b, e.value, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	if e.null || n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	if e.op == iceBucket {
		return e.bucket(ctx, in, n), nil
	}
	switch e.typ.Kind {
	case sparktype.String, sparktype.Binary:
		return e.truncateBytes(ctx, in, n)
	case sparktype.Decimal:
		return e.truncateDecimal(ctx, in, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	w := e.param
	var obuf *memory.Buffer
	switch e.typ.Kind {
	case sparktype.Byte:
		var out []int8
		obuf, out = newFixed[int8](ctx.Alloc, n)
		truncateInts(out, values[int8](in), w)
	case sparktype.Short:
		var out []int16
		obuf, out = newFixed[int16](ctx.Alloc, n)
		truncateInts(out, values[int16](in), w)
	case sparktype.Int:
		var out []int32
		obuf, out = newFixed[int32](ctx.Alloc, n)
		truncateInts(out, values[int32](in), w)
	default:
		var out []int64
		obuf, out = newFixed[int64](ctx.Alloc, n)
		w := int64(w)
		for i, v := range values[int64](in) {
			out[i] = v - ((v%w)+w)%w
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

// truncateInts is TruncateUtil.truncateByte/Short/Int: int arithmetic (wrapping), then narrowed.
func truncateInts[T int8 | int16 | int32](out, in []T, w int32) {
	for i, v := range in {
		x := int32(v)
		out[i] = T(x - ((x%w)+w)%w)
	}
}

// bucket hashes every row (null rows too: their values are harmless), then takes the bucket.
func (e *icebergParam) bucket(ctx *exec.TaskContext, in arrow.Array, n int) arrow.Array {
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	switch e.value.Type().Kind {
	case sparktype.Int, sparktype.Date:
		for i, v := range values[int32](in) {
			out[i] = sparkhash.Murmur3Long(int64(v), 0) & math.MaxInt32
		}
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		for i, v := range values[int64](in) {
			out[i] = sparkhash.Murmur3Long(v, 0) & math.MaxInt32
		}
	case sparktype.Decimal:
		var scratch [16]byte
		for i, v := range values[decimal128.Num](in) {
			out[i] = sparkhash.Murmur3Reference(sparkhash.UnscaledBytes(v, &scratch), 0) & math.MaxInt32
		}
	default: // string, binary
		offs, data := binaryParts(in)
		for i := range out {
			out[i] = sparkhash.Murmur3Reference(data[offs[i]:offs[i+1]], 0) & math.MaxInt32
		}
	}
	// The hashes are non-negative, so their floor modulus is Java's %.
	sparkhash.Pmod(out, e.param, out)
	return finish(arrow.PrimitiveTypes.Int32, n, vbuf, obuf, nulls)
}

// truncateBytes keeps the first W code points of each string, or the first W bytes of each binary.
func (e *icebergParam) truncateBytes(ctx *exec.TaskContext, in arrow.Array, n int) (arrow.Array, error) {
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	w := int(e.param)
	offBuf, outOffs := newFixed[int32](ctx.Alloc, n+1)
	outOffs[0] = 0
	total := int32(0)
	if e.typ.Kind == sparktype.Binary || isASCII(data[offs[0]:offs[n]]) {
		for i := 0; i < n; i++ {
			total += int32(min(int(offs[i+1]-offs[i]), w))
			outOffs[i+1] = total
		}
	} else {
		for i := 0; i < n; i++ {
			total += int32(utf8Prefix(data[offs[i]:offs[i+1]], w))
			outOffs[i+1] = total
		}
	}
	dataBuf := memory.NewResizableBuffer(ctx.Alloc)
	dataBuf.Resize(int(total))
	out := dataBuf.Bytes()
	for i := 0; i < n; i++ {
		copy(out[outOffs[i]:outOffs[i+1]], data[offs[i]:])
	}
	return finishBytes(e.typ.Arrow(), n, vbuf, nulls, offBuf, dataBuf), nil
}

// utf8Prefix is the byte length of UTF8String.substring(0, w) of s (w > 0): w code points as
// counted by their first bytes. A code point cut off by the end of s ends the prefix at the end
// (UTF8String would copy bytes past its end).
func utf8Prefix(s []byte, w int) int {
	i := 0
	for c := 0; i < len(s) && c < w; c++ {
		i += int(utf8Width[s[i]])
	}
	return min(i, len(s))
}

// truncateDecimal is TruncateUtil.truncateDecimal on the unscaled values.
func (e *icebergParam) truncateDecimal(ctx *exec.TaskContext, in arrow.Array, n int) arrow.Array {
	vbuf, valid := copyValidity(ctx.Alloc, in, n)
	obuf, out := newFixed[decimal128.Num](ctx.Alloc, n)
	w := int64(e.param)
	vals := values[decimal128.Num](in)
	overflow := false
	if p := e.typ.Precision; p <= 18 {
		// The unscaled values fit an int64 (sign in the low word), and so do the results.
		bound := int64(decimal128.GetMaxValue(p).LowBits())
		for i, x := range vals {
			v := int64(x.LowBits())
			r := v - ((v%w)+w)%w
			out[i] = decimal128.FromI64(r)
			overflow = overflow || r < -bound
		}
	} else {
		bound := decimal128.GetMaxValue(p).Negate()
		for i, x := range vals {
			r := rem128(x, uint64(w))
			if r < 0 {
				r += w
			}
			out[i] = x.Sub(decimal128.FromI64(r))
			overflow = overflow || out[i].Less(bound)
		}
	}
	if overflow && e.nullOnOverflow {
		bound := decimal128.GetMaxValue(e.typ.Precision).Negate()
		for i, x := range out {
			if x.Less(bound) {
				bitutil.ClearBit(valid, i)
			}
		}
	}
	return finish(e.typ.Arrow(), n, vbuf, obuf, countNulls(valid, n))
}

// rem128 is BigInteger.remainder of a 128-bit two's complement value by w (0 < w < 2^32): the
// sign of x, magnitude below w.
func rem128(x decimal128.Num, w uint64) int64 {
	hi, lo := uint64(x.HighBits()), x.LowBits()
	neg := x.HighBits() < 0
	if neg {
		lo, hi = -lo, ^hi
		if lo == 0 {
			hi++
		}
	}
	_, r := bits.Div64(hi%w, lo, w)
	if neg {
		return -int64(r)
	}
	return int64(r)
}

// ---- years, months, days, hours ----

type icebergTime struct {
	op    icebergOp
	value Expr
}

func (e *icebergTime) Type() sparktype.Type {
	if e.op == iceDays {
		return sparktype.DateType
	}
	return sparktype.IntType
}
func (e *icebergTime) mayFail() bool { return mayFail(e.value) }
func (e *icebergTime) String() string {
	return fmt.Sprintf("iceberg.%s(%s)", icebergOpNames[e.op], e.value)
}

func (e *icebergTime) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *icebergTime) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.value, active)
	if err != nil {
		return nil, err
	}
	date := e.value.Type().Kind == sparktype.Date
	if date && e.op == iceDays {
		return in, nil // days of a date is the date
	}
	defer in.Release()
	n := b.NumRows
	dt := e.Type().Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	obuf, out := newFixed[int32](ctx.Alloc, n)
	if date {
		days := values[int32](in)
		if e.op == iceYears {
			for i, d := range days {
				out[i] = daysToYears(d)
			}
		} else {
			for i, d := range days {
				out[i] = daysToMonths(d)
			}
		}
		return finish(dt, n, vbuf, obuf, nulls), nil
	}
	micros := values[int64](in)
	switch e.op {
	case iceYears:
		for i, m := range micros {
			out[i] = microsToMonthsOrYears(m, true)
		}
	case iceMonths:
		for i, m := range micros {
			out[i] = microsToMonthsOrYears(m, false)
		}
	case iceDays:
		for i, m := range micros {
			out[i] = microsToFixedUnits(m, secondsPerDay)
		}
	default:
		for i, m := range micros {
			out[i] = microsToFixedUnits(m, secondsPerHour)
		}
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}

const (
	microsPerSecond = 1_000_000
	secondsPerDay   = 86_400
	secondsPerHour  = 3_600
	// epochPackedMonth is LocalDate's packed (prolepticMonth * 32 + dayOfMonth) of 1970-01-01.
	epochPackedMonth = 1970*12*32 + 1
)

// monthsSinceEpoch is ChronoUnit.MONTHS.between(1970-01-01, date): LocalDate.monthsUntil, whole
// months counted toward zero.
func monthsSinceEpoch(days int64) int64 {
	y, m, d := civilFromDays(int32(days))
	packed := (int64(y)*12+int64(m-1))*32 + int64(d)
	return (packed - epochPackedMonth) / 32
}

// daysToMonths and daysToYears are DateTimeUtil.daysToMonths / daysToYears (convertDays): whole
// units between the epoch and the date, or before the epoch between the epoch and the next day,
// minus one.
func daysToMonths(days int32) int32 {
	if days >= 0 {
		return int32(monthsSinceEpoch(int64(days)))
	}
	return int32(monthsSinceEpoch(int64(days)+1)) - 1
}

func daysToYears(days int32) int32 {
	if days >= 0 {
		return int32(monthsSinceEpoch(int64(days)) / 12)
	}
	return int32(monthsSinceEpoch(int64(days)+1)/12) - 1
}

// icebergInstant is the instant DateTimeUtil.convertMicros measures, as whole seconds and micros
// of the second: the value itself from the epoch on, and before it floorDiv(m, 10^6) seconds and
// floorMod(m + 1, 10^6) micros (one microsecond later, except at .999999 where the second is not
// carried).
func icebergInstant(m int64) (sec, frac int64) {
	sec = m / microsPerSecond
	if m >= 0 {
		return sec, m - sec*microsPerSecond
	}
	if sec*microsPerSecond != m {
		sec-- // floorDiv
	}
	frac = (m + 1) % microsPerSecond
	if frac < 0 {
		frac += microsPerSecond // floorMod
	}
	return sec, frac
}

// microsToFixedUnits is DateTimeUtil.microsToHours / microsToDays: whole hours or days (unit
// seconds long) from the epoch to icebergInstant(m), counted toward zero, minus one before the
// epoch; cast to int as Java's (int) does.
func microsToFixedUnits(m int64, unit int64) int32 {
	if m >= 0 {
		return int32(m / (unit * microsPerSecond))
	}
	sec, frac := icebergInstant(m)
	// Toward zero: -floor(|t| / unit) with |t| = -sec seconds less frac micros; a partial second
	// never crosses a unit boundary, which falls on a whole second.
	s := -sec
	if frac != 0 {
		s--
	}
	return int32(-(s / unit)) - 1
}

// microsToMonthsOrYears is DateTimeUtil.microsToMonths / microsToYears: LocalDateTime.until from
// 1970-01-01T00:00 in MONTHS (YEARS is months / 12), i.e. LocalDate.until of the instant's date,
// taken one day later when the instant is before the epoch and past midnight.
func microsToMonthsOrYears(m int64, years bool) int32 {
	sec, frac := icebergInstant(m)
	day := sec / secondsPerDay
	sod := sec - day*secondsPerDay
	if sod < 0 {
		day--
		sod += secondsPerDay
	}
	if day < 0 && (sod > 0 || frac > 0) {
		day++
	}
	g := monthsSinceEpoch(day)
	if years {
		g /= 12
	}
	if m >= 0 {
		return int32(g)
	}
	return int32(g) - 1
}
