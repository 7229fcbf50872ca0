package shuffle

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// intCase is a stream of values and the form planInts must pick for it.
type intCase struct {
	name  string
	vals  []int64
	mode  uint8
	width uint8
}

func intCases(rng *rand.Rand) []intCase {
	seq := func(n int, f func(i int) int64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	return []intCase{
		{"one value", []int64{-7}, streamFOR, 0},
		{"constant", seq(100, func(int) int64 { return 1 << 40 }), streamFOR, 0},
		{"counting", seq(100, func(i int) int64 { return 1000 + int64(i) }), streamDelta, 0},
		{"sorted keys", seq(300, func(i int) int64 { return 5_000_000 + 37*int64(i) + int64(rng.IntN(30)) }), streamDelta, 1},
		{"dates", seq(300, func(int) int64 { return 8035 + int64(rng.IntN(2500)) }), streamFOR, 2},
		{"negative range", seq(300, func(int) int64 { return -int64(rng.IntN(200)) }), streamFOR, 1},
		{"descending", seq(300, func(i int) int64 { return 1 << 50 >> (i / 10) }), streamFOR, 7},
		{"extremes", []int64{math.MinInt64, math.MaxInt64, 0, -1, math.MaxInt64, math.MinInt64}, streamFOR, 8},
		{"wrapping differences", []int64{math.MaxInt64, math.MinInt64, math.MaxInt64, math.MinInt64}, streamDelta, 1},
		{"counting through the wrap", []int64{math.MaxInt64 - 1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}, streamDelta, 0},
		{"random longs", seq(300, func(int) int64 { return int64(rng.Uint64()) }), streamFOR, 8},
	}
}

// TestIntStreamsRoundTrip: every form, width and Go type decodes to the values it encoded, and
// planInts picks the narrowest form.
func TestIntStreamsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range intCases(rng) {
		s := planInts(tc.vals)
		if s.mode != tc.mode || s.width != tc.width {
			t.Errorf("%s: form %d width %d, want form %d width %d", tc.name, s.mode, s.width, tc.mode, tc.width)
		}
		checkIntRoundTrip(t, tc.name, tc.vals, s)
		// Narrower types: the values truncated (their ranges shrink, the arithmetic wraps in T).
		checkNarrow[int32](t, tc.name, tc.vals)
		checkNarrow[int16](t, tc.name, tc.vals)
		checkNarrow[int8](t, tc.name, tc.vals)
	}
}

func checkNarrow[T integer](t *testing.T, name string, vals []int64) {
	t.Helper()
	v := make([]T, len(vals))
	for i, x := range vals {
		v[i] = T(x)
	}
	s := planInts(v)
	if int(s.width) > sizeOf[T]() {
		t.Errorf("%s as %T: width %d", name, v[0], s.width)
	}
	checkIntRoundTrip(t, name, v, s)
}

func checkIntRoundTrip[T integer](t *testing.T, name string, v []T, s intStream) {
	t.Helper()
	enc := make([]byte, s.size(len(v)))
	putInts(enc, v, s)
	// Through the metadata too.
	r := metaReader{b: s.appendMeta(nil)}
	s2 := r.intStream()
	if r.err != nil || s2 != s || r.pos != len(r.b) {
		t.Fatalf("%s: metadata %+v read back as %+v (%v)", name, s, s2, r.err)
	}
	got := make([]T, len(v))
	getInts(got, enc, s2)
	for i := range v {
		if got[i] != v[i] {
			t.Fatalf("%s as %T (form %d width %d): value %d is %d, want %d", name, v[0], s.mode, s.width, i, got[i], v[i])
		}
	}
}

// TestIntStreamMetadataIsChecked: forms and widths out of range are errors, not panics later.
func TestIntStreamMetadataIsChecked(t *testing.T) {
	for _, b := range [][]byte{{2 << 4}, {9}, {0x1f, 0, 0}, {0x11}, {}} {
		r := metaReader{b: b}
		r.intStream()
		if r.err == nil {
			t.Errorf("metadata %x read without an error", b)
		}
	}
	r := metaReader{b: binary.AppendVarint([]byte{streamFOR<<4 | 3}, -5)}
	if s := r.intStream(); r.err != nil || s.base != -5 || s.width != 3 {
		t.Errorf("good metadata: %+v, %v", s, r.err)
	}
}
