package translate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// BenchmarkDecide times the driver's planning call as jni's NativeLib.plan makes it: decode the
// request, decide, encode the answer. The inputs are captured TPC-H plan requests.
func BenchmarkDecide(b *testing.B) {
	for _, q := range []string{"q6", "q1"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "plan-"+q+".json"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(q, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var r plan.PlanRequest
				if err := json.Unmarshal(raw, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(Decide(&r)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
