package expr

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestJavaToString checks Double.toString and Float.toString as Java 17 (FloatingDecimal) and
// Java 25 (shortest, Java 19+) print them, against testdata/javatostring.tsv: special values
// and 2186 values sampled from 1.2 million (random bits, powers of ten and two and their
// neighbours, subnormals, short decimals, dyadic fractions), most of them where the two Java
// versions print differently. (The sampled-from sets, and 8 million values more, were compared
// in full when this was written: no difference.)
func TestJavaToString(t *testing.T) {
	f, err := os.Open("testdata/javatostring.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var d javaFloatDigits
	n, bad := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		p := strings.Split(line, "\t")
		u, err := strconv.ParseUint(p[1], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		v, bitSize := math.Float64frombits(u), 64
		if p[0] == "f" {
			v, bitSize = float64(math.Float32frombits(uint32(u))), 32
		}
		for i, ver := range []int{17, 25} {
			n++
			if got := string(d.appendJava(nil, v, bitSize, ver)); got != p[2+i] {
				bad++
				if bad < 20 {
					t.Errorf("Java %d %s %s: got %s, want %s", ver, p[0], p[1], got, p[2+i])
				}
			}
		}
	}
	if bad > 0 || n < 4000 {
		t.Errorf("%d of %d differ", bad, n)
	}
}

func BenchmarkJavaDoubleToString(b *testing.B) {
	vals := []float64{0.1, 123.456, 1e23, 2.5e-7, 98765.4321, 1.0 / 3}
	var d javaFloatDigits
	buf := make([]byte, 0, 32)
	for _, ver := range []int{17, 25} {
		b.Run(strconv.Itoa(ver), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				buf = d.appendJava(buf[:0], vals[i%len(vals)], 64, ver)
			}
		})
	}
}
