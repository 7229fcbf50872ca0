package expr

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// TestCastToStringLargeBatch prints batches far larger than the first guess of their size, so
// the output buffer grows several times (it once lost bytes written past its length when the
// allocator's slice had spare capacity).
func TestCastToStringLargeBatch(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 100, 5000, 40000} {
		vals := make([]any, n)
		want := make([]string, n)
		for i := range vals {
			v := r.Int63() - r.Int63()
			if i%7 == 0 {
				v = math.MinInt64 + int64(i)
			}
			if i%11 == 3 {
				vals[i], want[i] = nil, "null"
				continue
			}
			vals[i], want[i] = v, strconv.FormatInt(v, 10)
		}
		got, err := run(t, castJSON(col(0, "long"), "string", "LEGACY"), column(t, "long", vals...))
		expectRows(t, "long->string "+strconv.Itoa(n), got, err, want...)
	}
}
