package aggregate

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// approx_percentile / percentile_approx (ApproximatePercentile): a TypedImperativeAggregate whose
// object buffer is a PercentileDigest over Spark's QuantileSummaries, a Greenwald-Khanna summary
// with a head buffer. The answer is not a function of the values alone but of the exact sequence
// of inserts, compressions and merges, so each step is reproduced as Spark performs it:
//   - insert appends the value (the input as a double) to the head buffer and marks the summary
//     uncompressed; once the head holds 50000 values they are sorted (Scala's Double ordering:
//     java.lang.Double.compare, stable) and merged into the samples, a new sample's delta being
//     floor(2 * relativeError * count) except at either end; when there are then 10000 samples
//     or more (compressThreshold) the summary is compressed;
//   - compress inserts the head, then merges samples from the last to the second (the first and
//     last are kept) while g + head.g + head.delta < 2 * relativeError * count;
//   - merge (buffers of other tasks) compresses this side, interleaves both sample lists (the
//     other side first on ties), adding to each interleaved sample's delta the other side's
//     floor(2 * relativeError * count), and compresses with the larger relative error;
//   - query compresses, then walks the samples for the percentages in ascending order, keeping
//     its position between them, with target error max(g + delta) / 2 (a long division).
//
// relativeError is 1.0 / accuracy. The buffer between aggregates is PercentileDigestSerializer's
// bytes, big-endian: compressThreshold (int), relativeError (double), count (long), the number of
// samples (int), then per sample value (double), g (long), delta (long). Serializing compresses
// first, as Spark does. Either side may write or read it.
//
// Native only without grouping keys: with keys, Spark's ObjectHashAggregate falls back to
// sort-based aggregation past 128 groups in a task (spark.sql.objectHashAggregate.sortBased.
// fallbackThreshold), which serializes (compresses) the digests built so far and continues into
// new buffers merged with them, a different sequence of steps that is not reproduced. Input types:
// integral, float, double, dates, timestamps and decimals of precision <= 15 (whose double
// round-trips to the same decimal in the result); a single constant percentage. Refused: an
// array of percentages (array literals are not part of the plan encoding), wider decimals,
// intervals, a percentage or accuracy that is not a plain constant.

const (
	gkCompressThreshold = 10000
	gkHeadSize          = 50000
	// maxApproxDecimalDigits: a decimal of at most 15 digits converts to the double nearest to
	// it and back (Decimal(double), rounded to the type's scale) to itself.
	maxApproxDecimalDigits = 15
)

func init() { registerFunction("ApproximatePercentile", newApproxPercentile) }

func newApproxPercentile(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	const name = "percentile_approx"
	if !c.singleGroup {
		return nil, refuse("%s with grouping keys is not supported natively: past %d groups in a task Spark's "+
			"ObjectHashAggregate falls back to sort-based aggregation (spark.sql.objectHashAggregate.sortBased."+
			"fallbackThreshold), which compresses and merges the digests in an order not reproduced", name, 128)
	}
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Float, sparktype.Double,
		sparktype.Date, sparktype.Timestamp, sparktype.TimestampNTZ:
	case sparktype.Decimal:
		if t.Precision > maxApproxDecimalDigits {
			return nil, refuse("%s over %s is not supported natively (only decimals of precision <= %d)",
				name, t, maxApproxDecimalDigits)
		}
	default:
		return nil, refuse("%s over %s is not supported natively", name, t)
	}
	pe, err := fn.Child("percentageExpression")
	if err != nil {
		return nil, err
	}
	pt, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if pt.Kind != sparktype.Double {
		return nil, refuse("%s with an array of percentages is not supported natively (array literals are "+
			"not part of the plan encoding)", name)
	}
	pct, err := doubleLiteral(pe)
	if err != nil {
		return nil, refuse("%s with percentage %s is not supported natively: %v", name, plan.ShortClass(pe.Class), err)
	}
	if pct == nil || !(*pct >= 0 && *pct <= 1) {
		return nil, refuse("%s with a null, NaN or out-of-range percentage is not supported natively", name)
	}
	ae, err := fn.Child("accuracyExpression")
	if err != nil {
		return nil, err
	}
	acc, ok := intLiteral(ae)
	if !ok || acc == nil || *acc <= 0 || *acc > math.MaxInt32 {
		return nil, refuse("%s with an accuracy that is not a constant in (0, %d] is not supported natively",
			name, math.MaxInt32)
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	relErr := 1.0 / float64(*acc)
	return &fnSpec{
		name:       name,
		bufTypes:   []sparktype.Type{sparktype.BinaryType},
		resultType: t,
		newState: func() function {
			return &approxPercentile{in: in, t: t, pct: *pct, relErr: relErr}
		},
	}, nil
}

// gkStat is QuantileSummaries.Stats.
type gkStat struct {
	v        float64
	g, delta int64
}

// gkSummary is one group's QuantileSummaries (and its PercentileDigest's compressed flag).
type gkSummary struct {
	threshold  int32
	relErr     float64
	sampled    []gkStat
	count      int64 // values in sampled (not in head)
	head       []float64
	compressed bool
}

func newGKSummary(relErr float64) *gkSummary {
	return &gkSummary{threshold: gkCompressThreshold, relErr: relErr, compressed: true}
}

// javaDoubleCompare is java.lang.Double.compare: -0.0 before 0.0, NaN after everything, NaNs equal.
func javaDoubleCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if a != a {
		ab = 0x7ff8000000000000
	}
	if b != b {
		bb = 0x7ff8000000000000
	}
	switch {
	case ab < bb:
		return -1
	case ab > bb:
		return 1
	}
	return 0
}

func (s *gkSummary) insert(x float64) {
	s.head = append(s.head, x)
	s.compressed = false
	if len(s.head) >= gkHeadSize {
		s.insertHead()
		if len(s.sampled) >= int(s.threshold) {
			s.compress()
		}
	}
}

// insertHead is withHeadBufferInserted.
func (s *gkSummary) insertHead() {
	if len(s.head) == 0 {
		return
	}
	sorted := s.head
	slices.SortStableFunc(sorted, javaDoubleCompare)
	cur := s.count
	out := make([]gkStat, 0, len(s.sampled)+len(sorted))
	si := 0
	for oi, x := range sorted {
		for si < len(s.sampled) && s.sampled[si].v <= x {
			out = append(out, s.sampled[si])
			si++
		}
		cur++
		var delta int64
		if len(out) > 0 && !(si == len(s.sampled) && oi == len(sorted)-1) {
			delta = int64(math.Floor(2 * s.relErr * float64(cur)))
		}
		out = append(out, gkStat{v: x, g: 1, delta: delta})
	}
	out = append(out, s.sampled[si:]...)
	s.sampled, s.count, s.head = out, cur, s.head[:0]
	s.compressed = false
}

func (s *gkSummary) compress() {
	s.insertHead()
	s.sampled = gkCompressImmut(s.sampled, 2*s.relErr*float64(s.count))
	s.compressed = true
}

// gkCompressImmut is QuantileSummaries.compressImmut (a new slice).
func gkCompressImmut(cur []gkStat, threshold float64) []gkStat {
	if len(cur) == 0 {
		return nil
	}
	rev := make([]gkStat, 0, 8) // built backwards, reversed at the end
	head := cur[len(cur)-1]
	for i := len(cur) - 2; i >= 1; i-- {
		s1 := cur[i]
		if float64(s1.g+head.g+head.delta) < threshold {
			head.g += s1.g
		} else {
			rev = append(rev, head)
			head = s1
		}
	}
	rev = append(rev, head)
	if cur[0].v <= head.v && len(cur) > 1 {
		rev = append(rev, cur[0])
	}
	slices.Reverse(rev)
	return rev
}

// mergeFrom is PercentileDigest.merge: s compressed, then QuantileSummaries.merge(o) (o
// compressed, as deserialized).
func (s *gkSummary) mergeFrom(o *gkSummary) {
	if !s.compressed {
		s.compress()
	}
	switch {
	case o.count == 0:
		return
	case s.count == 0:
		s.threshold, s.relErr, s.count, s.compressed = o.threshold, o.relErr, o.count, o.compressed
		s.sampled = append(s.sampled[:0], o.sampled...)
		return
	}
	mergedErr := math.Max(s.relErr, o.relErr)
	mergedCount := s.count + o.count
	addSelf := int64(math.Floor(2 * o.relErr * float64(o.count)))
	addOther := int64(math.Floor(2 * s.relErr * float64(s.count)))
	out := make([]gkStat, 0, len(s.sampled)+len(o.sampled))
	i, j := 0, 0
	for i < len(s.sampled) && j < len(o.sampled) {
		a, b := s.sampled[i], o.sampled[j]
		if a.v < b.v {
			i++
			if j > 0 {
				a.delta += addSelf
			}
			out = append(out, a)
		} else {
			j++
			if i > 0 {
				b.delta += addOther
			}
			out = append(out, b)
		}
	}
	out = append(out, s.sampled[i:]...)
	out = append(out, o.sampled[j:]...)
	s.sampled = gkCompressImmut(out, 2*mergedErr*float64(mergedCount))
	s.threshold, s.relErr, s.count, s.compressed = o.threshold, mergedErr, mergedCount, true
}

// query is QuantileSummaries.query for one percentile (the summary compressed, not empty).
func (s *gkSummary) query(p float64) float64 {
	if p <= s.relErr {
		return s.sampled[0].v
	}
	last := s.sampled[len(s.sampled)-1].v
	if p >= 1-s.relErr {
		return last
	}
	maxGD := int64(math.MinInt64)
	for _, st := range s.sampled {
		maxGD = max(maxGD, st.delta+st.g)
	}
	targetError := float64(maxGD / 2)
	rank := javaD2L(math.Ceil(p * float64(s.count)))
	minRank := s.sampled[0].g
	cur := s.sampled[0]
	for i := 0; i < len(s.sampled)-1; {
		maxRank := minRank + cur.delta
		if float64(maxRank)-targetError <= float64(rank) && float64(rank) <= float64(minRank)+targetError {
			return cur.v
		}
		i++
		cur = s.sampled[i]
		minRank += cur.g
	}
	return last
}

// serialize is PercentileDigestSerializer.serialize (compressing first).
func (s *gkSummary) serialize(dst []byte) []byte {
	if !s.compressed {
		s.compress()
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.threshold))
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(s.relErr))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.count))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s.sampled)))
	for _, st := range s.sampled {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(st.v))
		dst = binary.BigEndian.AppendUint64(dst, uint64(st.g))
		dst = binary.BigEndian.AppendUint64(dst, uint64(st.delta))
	}
	return dst
}

// deserializeGK reads a serialized digest (compressed).
func deserializeGK(b []byte) (*gkSummary, error) {
	if len(b) < 24 {
		return nil, fmt.Errorf("percentile_approx buffer of %d bytes", len(b))
	}
	s := &gkSummary{compressed: true}
	s.threshold = int32(binary.BigEndian.Uint32(b))
	s.relErr = math.Float64frombits(binary.BigEndian.Uint64(b[4:]))
	s.count = int64(binary.BigEndian.Uint64(b[12:]))
	n := int(int32(binary.BigEndian.Uint32(b[20:])))
	b = b[24:]
	if n < 0 || len(b) != n*24 {
		return nil, fmt.Errorf("percentile_approx buffer: %d samples in %d bytes", n, len(b))
	}
	s.sampled = make([]gkStat, n)
	for i := range s.sampled {
		s.sampled[i] = gkStat{v: math.Float64frombits(binary.BigEndian.Uint64(b)),
			g: int64(binary.BigEndian.Uint64(b[8:])), delta: int64(binary.BigEndian.Uint64(b[16:]))}
		b = b[24:]
	}
	return s, nil
}

type approxPercentile struct {
	in     *input
	t      sparktype.Type
	pct    float64
	relErr float64
	groups []*gkSummary
	vals   []float64 // scratch: a batch's inputs as doubles
}

func (f *approxPercentile) bufferTypes() []sparktype.Type {
	return []sparktype.Type{sparktype.BinaryType}
}

func (f *approxPercentile) grow(n int) {
	for len(f.groups) < n {
		f.groups = append(f.groups, newGKSummary(f.relErr))
	}
}

func (f *approxPercentile) memSize() int64 {
	var n int64
	for _, g := range f.groups {
		n += int64(cap(g.sampled))*24 + int64(cap(g.head))*8 + 64
	}
	return n
}

// doubles converts a batch's input column to Spark's doubles (ApproximatePercentile.update).
func (f *approxPercentile) doubles(col arrow.Array) ([]float64, error) {
	n := col.Len()
	if cap(f.vals) < n {
		f.vals = make([]float64, n)
	}
	out := f.vals[:n]
	switch c := col.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			out[i] = float64(v)
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			out[i] = float64(v)
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			out[i] = float64(v)
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			out[i] = float64(v)
		}
	case *array.Int64:
		for i, v := range c.Int64Values() {
			out[i] = float64(v)
		}
	case *array.Timestamp:
		for i, v := range c.TimestampValues() {
			out[i] = float64(v)
		}
	case *array.Float32:
		for i, v := range c.Float32Values() {
			out[i] = float64(v)
		}
	case *array.Float64:
		copy(out, c.Float64Values())
	case *array.Decimal128:
		// Decimal.toDouble: the double nearest to unscaled / 10^scale, which one correctly
		// rounded division of two exact doubles gives (|unscaled| < 10^15).
		p := math.Pow10(int(f.t.Scale))
		for i := range out {
			out[i] = float64(int64(c.Value(i).LowBits())) / p
		}
	default:
		return nil, fmt.Errorf("percentile_approx over Arrow type %s", col.DataType())
	}
	return out, nil
}

func (f *approxPercentile) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("percentile_approx: column of %d values for %d rows", col.Len(), len(gids))
	}
	vals, err := f.doubles(col)
	if err != nil {
		return err
	}
	bm, off := validity(col)
	for i, g := range gids {
		if bitSet(bm, off, i) {
			f.groups[g].insert(vals[i])
		}
	}
	return nil
}

func (f *approxPercentile) merge(cols []arrow.Array, gids []uint32) error {
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("percentile_approx buffer: %w", err)
	}
	bm, off := validity(cols[0])
	for i, g := range gids {
		if !bitSet(bm, off, i) {
			continue
		}
		o, err := deserializeGK(data[offs[i]:offs[i+1]])
		if err != nil {
			return err
		}
		f.groups[g].mergeFrom(o)
	}
	return nil
}

func (f *approxPercentile) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	vals := make([]string, hi-lo)
	var scratch []byte
	for i := range vals {
		scratch = f.groups[lo+i].serialize(scratch[:0])
		vals[i] = string(scratch)
	}
	return []arrow.Array{buildBinary(alloc, sparktype.BinaryType, vals, nil)}, nil
}

// result is ApproximatePercentile.eval: null without values, else the percentile converted back
// to the input type (Scala's numeric conversions: Java's saturating casts).
func (f *approxPercentile) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	n := hi - lo
	ds := make([]float64, n)
	has := make([]bool, n)
	for i := range ds {
		s := f.groups[lo+i]
		if !s.compressed {
			s.compress()
		}
		if s.count == 0 || len(s.sampled) == 0 {
			continue
		}
		ds[i], has[i] = s.query(f.pct), true
	}
	switch f.t.Kind {
	case sparktype.Double:
		return buildFixed(alloc, f.t, ds, has), nil
	case sparktype.Float:
		return buildFixed(alloc, f.t, convertEach(ds, func(d float64) float32 { return float32(d) }), has), nil
	case sparktype.Byte:
		return buildFixed(alloc, f.t, convertEach(ds, func(d float64) int8 { return int8(javaD2I(d)) }), has), nil
	case sparktype.Short:
		return buildFixed(alloc, f.t, convertEach(ds, func(d float64) int16 { return int16(javaD2I(d)) }), has), nil
	case sparktype.Int, sparktype.Date:
		return buildFixed(alloc, f.t, convertEach(ds, javaD2I), has), nil
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return buildFixed(alloc, f.t, convertEach(ds, javaD2L), has), nil
	case sparktype.Decimal:
		// Decimal(d) rounded HALF_UP to the type's scale: the input decimal the double came from.
		p := math.Pow10(int(f.t.Scale))
		return buildFixed(alloc, f.t, convertEach(ds, func(d float64) decimal128.Num {
			return decimal128.FromI64(int64(math.Round(d * p)))
		}), has), nil
	}
	return nil, fmt.Errorf("percentile_approx result of type %s", f.t)
}

func convertEach[T any](ds []float64, conv func(float64) T) []T {
	out := make([]T, len(ds))
	for i, d := range ds {
		out[i] = conv(d)
	}
	return out
}
