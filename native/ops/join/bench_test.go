package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparktype"
)

const (
	benchProbeRows = 1 << 20
	benchBuildRows = 100_000
	benchBatch     = 8192
)

// benchSide is rows of (s string?, k long, v long) in batches of 8192.
func benchSide(keys []int64, strs []string, withString bool) *coltest.Source {
	src := &coltest.Source{Fields: []sparktype.Field{{Name: "k", Type: sparktype.LongType}, {Name: "v", Type: sparktype.LongType}}}
	if withString {
		src.Fields = append([]sparktype.Field{{Name: "s", Type: sparktype.StringType}}, src.Fields...)
	}
	for lo := 0; lo < len(keys); lo += benchBatch {
		hi := min(len(keys), lo+benchBatch)
		var cols []arrow.Array
		if withString {
			sb := array.NewStringBuilder(coltest.Mem)
			sb.AppendValues(strs[lo:hi], nil)
			cols = append(cols, sb.NewArray())
			sb.Release()
		}
		kb := array.NewInt64Builder(coltest.Mem)
		kb.AppendValues(keys[lo:hi], nil)
		vb := array.NewInt64Builder(coltest.Mem)
		for i := lo; i < hi; i++ {
			vb.Append(int64(i))
		}
		cols = append(cols, kb.NewArray(), vb.NewArray())
		kb.Release()
		vb.Release()
		src.Batches = append(src.Batches, columnar.NewBatch(cols, hi-lo))
	}
	return src
}

// benchJoin probes probeRows rows against a buildRows-row build side; every probe key has a match.
// distinct is the number of distinct build keys (duplicates when below buildRows).
func benchJoin(b *testing.B, typ JoinType, buildRows, distinct, probeRows int, withString bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	dict := make([]string, 1000)
	for i := range dict {
		buf := make([]byte, 8+rng.IntN(17))
		for j := range buf {
			buf[j] = byte('a' + rng.IntN(26))
		}
		dict[i] = string(buf)
	}
	// Distinct build keys (string, long) or long, then the build rows drawn over them.
	dk := make([]int64, distinct)
	ds := make([]string, distinct)
	for i := range dk {
		dk[i] = int64(rng.Uint64())
		ds[i] = dict[rng.IntN(len(dict))]
	}
	bk, bs := make([]int64, buildRows), make([]string, buildRows)
	for i := range bk {
		j := i % distinct
		if distinct < buildRows {
			j = rng.IntN(distinct)
		}
		bk[i], bs[i] = dk[j], ds[j]
	}
	pk, ps := make([]int64, probeRows), make([]string, probeRows)
	for i := range pk {
		j := rng.IntN(buildRows)
		pk[i], ps[i] = bk[j], bs[j]
	}
	build, probe := benchSide(bk, bs, withString), benchSide(pk, ps, withString)
	defer build.Release()
	defer probe.Release()

	keyTypes := []string{"long"}
	if withString {
		keyTypes = []string{"string", "long"}
	}
	c := joinCase{keyTypes: keyTypes, typ: typ, build: BuildRight, normalize: true}
	spec := c.spec(b, probe.Fields, build.Fields)
	b.ResetTimer()
	out := 0
	for i := 0; i < b.N; i++ {
		op, err := NewHashJoin(probe, build, spec)
		if err != nil {
			b.Fatal(err)
		}
		ctx := coltest.NewCtx(benchBatch)
		if err := op.Open(ctx); err != nil {
			b.Fatal(err)
		}
		out = 0
		for {
			bt, err := op.Next()
			if err != nil {
				b.Fatal(err)
			}
			if bt == nil {
				break
			}
			out += bt.NumRows
			bt.Release()
		}
		op.Close()
		ctx.Alloc.ReleaseAll()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*probeRows), "ns/probe-row")
	b.ReportMetric(float64(out)/float64(probeRows), "out-rows/probe-row")
}

// BenchmarkHashJoin: build 100k rows (included in the time: about a tenth of the probe's rows),
// probe 1M rows in batches of 8192, inner join with every column output unless noted. The
// big-build cases are build-bound, like TPC-H q22's anti join (1.5M orders by 100k customers,
// probed by 150k customers): a table far larger than the caches.
func BenchmarkHashJoin(b *testing.B) {
	for _, c := range []struct {
		name     string
		typ      JoinType
		distinct int
		str      bool
	}{
		{"long/unique", Inner, benchBuildRows, false},
		{"long/4-duplicates", Inner, benchBuildRows / 4, false},
		{"long/unique/semi", LeftSemi, benchBuildRows, false},
		{"string,long/unique", Inner, benchBuildRows, true},
		{"string,long/4-duplicates", Inner, benchBuildRows / 4, true},
	} {
		b.Run(fmt.Sprint(c.name), func(b *testing.B) {
			benchJoin(b, c.typ, benchBuildRows, c.distinct, benchProbeRows, c.str)
		})
	}
	for _, c := range []struct {
		name     string
		typ      JoinType
		distinct int
	}{
		{"long/big-build-unique", Inner, 1_500_000},
		{"long/big-build-15-duplicates/anti", LeftAnti, 100_000},
	} {
		b.Run(c.name, func(b *testing.B) { benchJoin(b, c.typ, 1_500_000, c.distinct, 150_000, false) })
	}
}
