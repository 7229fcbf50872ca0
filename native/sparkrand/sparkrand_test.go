package sparkrand

import (
	"math"
	"testing"
)

// The expected values below were printed by Spark 4.1.3's own classes on the JVM
// (org.apache.spark.util.random.XORShiftRandom, commons-math3 3.6.1's MersenneTwister, and
// Spark's RandomUUIDGenerator and RandomIndicesGenerator), not derived from this package.

var xorVectors = []struct {
	seed    int64
	doubles [4]uint64 // nextDouble bits, from a fresh generator
	ints    [4]int32  // nextInt(), from a fresh generator
}{
	{0, [4]uint64{0x3fe855fa65fe2d4c, 0x3fe0bfda186d8cf2, 0x3fb868adf4b63e48, 0x3fd43eab2df2171a}, [4]int32{520798028, 1576938828, 437779267, 1080921330}},
	{42, [4]uint64{0x3fe3d06639e4c08b, 0x3fe04ea89c59f198, 0x3feaa40d7012f1c8, 0x3fd0d8baa1ed3d96}, [4]int32{444206279, 1508163723, -1911958253, 1415180696}},
	{-1, [4]uint64{0x3fd364c80f51cd8c, 0x3fd48d8643342e54, 0x3fecefe39f296487, 0x3fed2ecc319b4417}, [4]int32{20335744, 2141775558, -1723279260, -912648406}},
	{math.MinInt64, [4]uint64{0x3fc72614d488678c, 0x3fe31957de3c9b63, 0x3fcdc8d8e529007c, 0x3fa58b62ca8358c0}, [4]int32{-323407706, 2099386851, 1046686459, -2042848413}},
	{9223372036854775807, [4]uint64{0x3fc6ad23d9149b54, 0x3fed0bfe9ccf0533, 0x3fb5630f99a59208, 0x3fbebcf328016058}, [4]int32{-1598723810, 642066133, 1201766355, -2066807501}},
	{45, [4]uint64{0x3fe982170ea96f1f, 0x3fcf0260adebf664, 0x3fe6b6294a1abaeb, 0x3fdcdc2a72ea6bd0}, [4]int32{-1087356191, -961974497, -319286523, 1132133785}},
	{1234567890123, [4]uint64{0x3fe7e89cdfb87c39, 0x3fdb4781d50c1ca4, 0x3fda5ee6b1b166b6, 0x3fee4782f689353f}, [4]int32{-84077669, -944210887, 162822173, -897184174}},
}

func TestXORShiftMatchesSpark(t *testing.T) {
	for _, v := range xorVectors {
		r := NewXORShift(v.seed)
		for i, want := range v.doubles {
			if got := math.Float64bits(r.NextDouble()); got != want {
				t.Errorf("seed %d nextDouble #%d = %#x, Spark %#x", v.seed, i, got, want)
			}
		}
		r = NewXORShift(v.seed)
		for i, want := range v.ints {
			if got := r.NextInt(); got != want {
				t.Errorf("seed %d nextInt #%d = %d, Spark %d", v.seed, i, got, want)
			}
		}
	}
}

var mtVectors = []struct {
	seed     int64
	longs    [3]int64 // nextLong from a fresh generator
	ints     [9]int32 // then nextInt(n) for the bounds of mtBounds
	after700 int64    // then nextLong after 700 more nextLong (past two twists)
}{
	{0, [3]int64{2780242596957121269, 3607126587566499866, 3049715095024122542}, [9]int32{0, 1, 0, 3, 5, 34, 151516, 931363, 1883986358}, -4602007018724617183},
	{42, [3]int64{8004395815503774571, -6657214946198437198, -7864936058809080539}, [9]int32{0, 0, 0, 1, 6, 98, 71814, 862025, 748373394}, 947233341916868437},
	{-1, [3]int64{402613113023623976, 6236757884745972499, 3910109988827208274}, [9]int32{0, 0, 1, 0, 2, 63, 767675, 668725, 1594564821}, 3921087583290741291},
	{math.MinInt64, [3]int64{4921077138126594229, 6129010933267539197, -2017792359656536449}, [9]int32{0, 0, 1, 5, 0, 18, 325972, 513241, 1876041879}, -8136806775592571905},
	{9223372036854775807, [3]int64{6443540237220752059, -2553155613345512784, -7430104180264321884}, [9]int32{0, 1, 1, 5, 4, 12, 852163, 46058, 1659665282}, 6556231266993944508},
	{45, [3]int64{5350790937714418128, -8445011755299369252, 4933849705449172507}, [9]int32{0, 1, 2, 0, 0, 98, 603865, 920203, 1398474029}, 2142850311009497667},
	{1234567890123, [3]int64{9181969548268759362, 8518523477062437025, -8410911496843015389}, [9]int32{0, 0, 1, 6, 7, 1, 479283, 908777, 1698539430}, 6209507276950969475},
}

var mtBounds = [9]int32{1, 2, 3, 7, 8, 100, 1 << 20, 1000003, math.MaxInt32}

func TestMersenneTwisterMatchesCommonsMath(t *testing.T) {
	for _, v := range mtVectors {
		m := NewMersenneTwister(v.seed)
		for i, want := range v.longs {
			if got := m.NextLong(); got != want {
				t.Errorf("seed %d nextLong #%d = %d, commons-math %d", v.seed, i, got, want)
			}
		}
		for i, n := range mtBounds {
			if got := m.NextIntN(n); got != v.ints[i] {
				t.Errorf("seed %d nextInt(%d) = %d, commons-math %d", v.seed, n, got, v.ints[i])
			}
		}
		for i := 0; i < 700; i++ {
			m.NextLong()
		}
		if got := m.NextLong(); got != v.after700 {
			t.Errorf("seed %d nextLong after 700 = %d, commons-math %d", v.seed, got, v.after700)
		}
	}
}

var uuidVectors = []struct {
	seed int64
	want [2]string
}{
	{0, [2]string{"269567e9-5d09-4af5-b20f-16851fc4a81a", "2a52c3b8-890f-4aae-9607-3331ab0d4f01"}},
	{42, [2]string{"6f155395-c8b9-436b-a39c-d247226bc2b2", "92da2253-2186-4525-a440-17ad3083a275"}},
	{-1, [2]string{"05965e7e-3faf-4328-968d-6a409e667b13", "36438051-74c0-4a52-9d78-e5c31853117e"}},
	{math.MinInt64, [2]string{"444b2d95-8a54-40b5-950e-9ef88de5a4fd", "e3ff5c8a-242c-467f-b1d3-ca6b6acb483d"}},
	{9223372036854775807, [2]string{"596c0db4-d77a-4abb-9c91-5e7f323f02b0", "98e2f79d-4b33-4ca4-b094-4ff3c2ee7d7b"}},
	{45, [2]string{"4a41d402-15d8-41d0-8acd-4a8d59620edc", "44788e2a-9c76-4e1b-8765-4313cdb96af6"}},
	{1234567890123, [2]string{"7f6ce8a7-ef03-4942-b637-dff82521c8a1", "8b46708e-796c-4b23-8d4e-502b767e9db3"}},
}

func TestUUIDMatchesSpark(t *testing.T) {
	for _, v := range uuidVectors {
		m := NewMersenneTwister(v.seed)
		var buf []byte
		for i, want := range v.want {
			buf = AppendUUID(buf[:0], m)
			if string(buf) != want {
				t.Errorf("seed %d uuid #%d = %s, Spark %s", v.seed, i, buf, want)
			}
		}
	}
}

var indexVectors = []struct {
	seed       int64
	six, three []int32
}{
	{0, []int32{3, 0, 1, 5, 4, 2}, []int32{2, 1, 0}},
	{42, []int32{5, 2, 1, 0, 3, 4}, []int32{2, 0, 1}},
	{-1, []int32{1, 0, 4, 2, 3, 5}, []int32{1, 2, 0}},
	{math.MinInt64, []int32{0, 5, 3, 2, 1, 4}, []int32{1, 2, 0}},
	{9223372036854775807, []int32{3, 1, 0, 4, 5, 2}, []int32{0, 2, 1}},
	{45, []int32{1, 4, 0, 5, 3, 2}, []int32{0, 1, 2}},
	{1234567890123, []int32{3, 5, 1, 0, 4, 2}, []int32{1, 2, 0}},
}

func TestIndicesMatchSpark(t *testing.T) {
	for _, v := range indexVectors {
		m := NewMersenneTwister(v.seed)
		for _, want := range [][]int32{v.six, v.three} {
			got := make([]int32, len(want))
			Indices(m, got)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("seed %d indices(%d) = %v, Spark %v", v.seed, len(want), got, want)
					break
				}
			}
		}
	}
}
