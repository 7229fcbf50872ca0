package aggregate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// approx_count_distinct (HyperLogLogPlusPlus.scala, the dense HLL++ of HyperLogLogPlusPlusHelper).
//
// Why the details matter: the buffer is Spark's, word for word, because a Partial aggregate here
// may feed Spark's Final and the other way round, and the estimate is a deterministic function of
// the registers, so an identical buffer gives an identical answer.
//
//   - Precision p = ceil(2 log2(1.106 / relativeSD)), m = 2^p six-bit registers, ten to a long
//     (the low 60 bits of each word; register i is bits 6(i%10) of word i/10), numWords = m/10 + 1
//     LongType buffer attributes MS[0..numWords), all initially 0, never null.
//   - Update: x = XxHash64 of the value with seed 42 (what xxhash64(v) returns; floats and doubles
//     normalized first: -0.0 as 0.0 and every NaN as the canonical NaN, which is what the hash
//     does anyway); the register is x >>> (64 - p), its candidate value the number of leading zeros
//     of (x << p) | 2^(p-1), plus one; the register keeps the larger. Null values are skipped.
//   - Merge: register-wise max; the bits above the last register of a word are cleared (Spark
//     rebuilds each word from its registers).
//   - Result: the raw estimate E = alpha m^2 / sum(2^-M[j]), with linear counting m ln(m/V) when
//     V > 0 registers are zero and that count is at most the precision's threshold or E <= 2.5 m,
//     else E less the bias interpolated (k = 6 nearest raw estimates) from the HLL++ appendix
//     tables when E < 5 m; Math.round of it. The tables are in hlltables.go, generated from
//     Spark's class by hlltables_gen.sh.
//
// The precision comes from a floating-point expression; when it is within rounding distance of
// an integer (where Java's and Go's logarithms could round it differently) the function is
// refused rather than risk another register layout.
func init() { registerFunction("HyperLogLogPlusPlus", newHLL) }

const (
	hllRegisterBits  = 6
	hllRegisterMask  = 1<<hllRegisterBits - 1
	hllRegsPerWord   = 64 / hllRegisterBits
	hllBiasNeighbors = 6 // HyperLogLogPlusPlusHelper.K
	hllSeed          = 42
)

// hllParams are the constants HyperLogLogPlusPlusHelper derives from relativeSD.
type hllParams struct {
	p        uint
	m        int
	numWords int
	alphaM2  float64
}

func newHLLParams(relativeSD float64) (hllParams, error) {
	if !(relativeSD > 0) || math.IsInf(relativeSD, 0) {
		return hllParams{}, refuse("approx_count_distinct with relativeSD %v is not supported natively", relativeSD)
	}
	x := 2.0 * math.Log(1.106/relativeSD) / math.Log(2.0)
	if math.Abs(x-math.Round(x)) < 1e-9 {
		return hllParams{}, refuse("approx_count_distinct with relativeSD %v: its precision is too close to an "+
			"integer to be derived exactly as Spark does", relativeSD)
	}
	p := int(math.Ceil(x))
	if p < 4 || p >= 4+len(hllThresholds) {
		return hllParams{}, fmt.Errorf("approx_count_distinct: relativeSD %v gives precision %d, outside [4, %d]",
			relativeSD, p, 3+len(hllThresholds))
	}
	m := 1 << p
	fm := float64(m)
	var alphaM2 float64
	switch p {
	case 4:
		alphaM2 = float64(0.673*fm) * fm
	case 5:
		alphaM2 = float64(0.697*fm) * fm
	case 6:
		alphaM2 = float64(0.709*fm) * fm
	default:
		alphaM2 = float64((0.7213/(1.0+1.079/fm))*fm) * fm
	}
	return hllParams{p: uint(p), m: m, numWords: m/hllRegsPerWord + 1, alphaM2: alphaM2}, nil
}

func newHLL(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
	child, t, err := singleChild(fn)
	if err != nil {
		return nil, err
	}
	raw, err := fn.Raw("relativeSD")
	if err != nil {
		return nil, err
	}
	var rsd float64
	if err := json.Unmarshal(raw, &rsd); err != nil {
		return nil, refuse("approx_count_distinct with relativeSD %s is not supported natively", raw)
	}
	hp, err := newHLLParams(rsd)
	if err != nil {
		return nil, err
	}
	if !sparkhash.Hashable(t) {
		return nil, refuse("approx_count_distinct over %s is not supported natively", t)
	}
	in, err := bindInput(child, c)
	if err != nil {
		return nil, err
	}
	bufTypes := make([]sparktype.Type, hp.numWords)
	for i := range bufTypes {
		bufTypes[i] = sparktype.LongType
	}
	return &fnSpec{
		name:       "approx_count_distinct",
		bufTypes:   bufTypes,
		resultType: sparktype.LongType,
		newState:   func() function { return &hll{hllParams: hp, in: in, t: t, bufTypes: bufTypes} },
	}, nil
}

// hll holds the registers of every group: group g's words are words[g*numWords : (g+1)*numWords].
type hll struct {
	hllParams
	in       *input
	t        sparktype.Type
	bufTypes []sparktype.Type
	words    []int64
	hashes   []int64 // per-batch scratch
}

func (f *hll) bufferTypes() []sparktype.Type { return f.bufTypes }

func (f *hll) grow(n int) { f.words = growSlice(f.words, n*f.numWords, 0) }

func (f *hll) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if col.Len() < len(gids) {
		return fmt.Errorf("approx_count_distinct: column of %d values for %d rows", col.Len(), len(gids))
	}
	if col.NullN() == col.Len() {
		return nil
	}
	if cap(f.hashes) < len(gids) {
		f.hashes = make([]int64, len(gids))
	}
	hashes := f.hashes[:len(gids)]
	for i := range hashes {
		hashes[i] = hllSeed
	}
	if err := sparkhash.XxHash64Fold(f.t, col, hashes); err != nil {
		return fmt.Errorf("approx_count_distinct over %s: %w", f.t, err)
	}
	bm, off := validity(col)
	idxShift := 64 - f.p
	pad := uint64(1) << (f.p - 1)
	nw, p, words := f.numWords, f.p, f.words
	for i, g := range gids {
		if !bitSet(bm, off, i) {
			continue
		}
		x := uint64(hashes[i])
		idx := int(x >> idxShift)
		pw := uint64(bits.LeadingZeros64(x<<p|pad) + 1)
		w := int(g)*nw + idx/hllRegsPerWord
		shift := uint(hllRegisterBits * (idx % hllRegsPerWord))
		word := uint64(words[w])
		if pw > (word>>shift)&hllRegisterMask {
			words[w] = int64(word&^(hllRegisterMask<<shift) | pw<<shift)
		}
	}
	return nil
}

// merge takes the register-wise maximum of each group's words and the partial buffers' words.
func (f *hll) merge(cols []arrow.Array, gids []uint32) error {
	if len(cols) != f.numWords {
		return fmt.Errorf("approx_count_distinct: %d buffer columns, expected %d", len(cols), f.numWords)
	}
	nw, words := f.numWords, f.words
	for w, c := range cols {
		vals := fixedValues[int64](c)
		if len(vals) < len(gids) {
			return fmt.Errorf("approx_count_distinct: buffer column %d has %d values for %d rows", w, len(vals), len(gids))
		}
		regs := min(hllRegsPerWord, f.m-w*hllRegsPerWord)
		bm, off := validity(c) // never null in Spark's buffers; a null word would be 0
		for i, g := range gids {
			if !bitSet(bm, off, i) {
				continue
			}
			words[int(g)*nw+w] = hllMaxRegisters(words[int(g)*nw+w], vals[i], regs)
		}
	}
	return nil
}

// hllMaxRegisters is a word of the register-wise maxima of the first regs registers of a and b
// (the other bits are 0, as in Spark's merge).
func hllMaxRegisters(a, b int64, regs int) int64 {
	ua, ub := uint64(a), uint64(b)
	var out uint64
	mask := uint64(hllRegisterMask)
	for r := 0; r < regs; r++ {
		out |= max(ua&mask, ub&mask)
		mask <<= hllRegisterBits
	}
	return int64(out)
}

func (f *hll) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	n, nw := hi-lo, f.numWords
	out := make([]arrow.Array, nw)
	for w := 0; w < nw; w++ {
		o := newFixedOut[int64](alloc, n)
		for i := 0; i < n; i++ {
			o.V[i] = f.words[(lo+i)*nw+w]
		}
		out[w] = o.finish(arrow.PrimitiveTypes.Int64)
	}
	return out, nil
}

func (f *hll) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	o := newFixedOut[int64](alloc, hi-lo)
	nw := f.numWords
	for i := range o.V {
		g := lo + i
		o.V[i] = f.estimate(f.words[g*nw : (g+1)*nw])
	}
	return o.finish(arrow.PrimitiveTypes.Int64), nil
}

// estimate is HyperLogLogPlusPlusHelper.query over one group's words, with Spark's order of
// floating-point operations (the sum of 2^-M[j] in register order).
func (f *hll) estimate(words []int64) int64 {
	zInverse, v := 0.0, 0.0
	idx := 0
	for _, w := range words {
		word := uint64(w)
		for r := 0; idx < f.m && r < hllRegsPerWord; r++ {
			reg := (word >> uint(hllRegisterBits*r)) & hllRegisterMask
			zInverse += 1.0 / float64(int64(1)<<reg)
			if reg == 0 {
				v++
			}
			idx++
		}
	}
	fm := float64(f.m)
	e := f.alphaM2 / zInverse
	biasCorrected := func() float64 {
		if e < 5.0*fm {
			return e - f.bias(e)
		}
		return e
	}
	var est float64
	if v > 0 {
		h := float64(fm * math.Log(fm/v))
		if h <= hllThresholds[f.p-4] || e <= 2.5*fm {
			est = h
		} else {
			est = biasCorrected()
		}
	} else {
		est = biasCorrected()
	}
	return javaRound(est)
}

// bias is HyperLogLogPlusPlusHelper.estimateBias: the mean bias of the k raw estimates nearest to
// e, found from the index java.util.Arrays.binarySearch gives (the tables are not strictly sorted,
// so the probe sequence is Java's).
func (f *hll) bias(e float64) float64 {
	est := hllRawEstimates[f.p-4]
	n := len(est)
	nearest := javaBinarySearch(est, e)
	if nearest < 0 {
		nearest = -(nearest + 1)
	}
	dist := func(i int) float64 {
		d := e - est[i]
		return d * d
	}
	low := max(nearest-hllBiasNeighbors+1, 0)
	high := min(low+hllBiasNeighbors, n)
	for high < n && dist(high) < dist(low) {
		low++
		high++
	}
	biases := hllBiases[f.p-4]
	sum := 0.0
	for i := low; i < high; i++ {
		sum += biases[i]
	}
	return sum / float64(high-low)
}

// javaBinarySearch is java.util.Arrays.binarySearch(double[], double) over finite positive
// values: the index of key, or -(insertion point) - 1, with Java's midpoints (which decide the
// answer where a table is not sorted).
func javaBinarySearch(a []float64, key float64) int {
	low, high := 0, len(a)-1
	for low <= high {
		mid := int(uint(low+high) >> 1)
		switch v := a[mid]; {
		case v < key:
			low = mid + 1
		case v > key:
			high = mid - 1
		default:
			kb, vb := int64(math.Float64bits(key)), int64(math.Float64bits(v))
			switch {
			case vb == kb:
				return mid
			case vb < kb:
				low = mid + 1
			default:
				high = mid - 1
			}
		}
	}
	return -(low + 1)
}

// javaRound is Math.round(double): the nearest long, ties toward positive infinity.
func javaRound(x float64) int64 {
	if math.IsNaN(x) {
		return 0
	}
	fl := math.Floor(x)
	if x-fl >= 0.5 {
		fl++
	}
	if fl >= math.MaxInt64 {
		return math.MaxInt64
	}
	if fl <= math.MinInt64 {
		return math.MinInt64
	}
	return int64(fl)
}
