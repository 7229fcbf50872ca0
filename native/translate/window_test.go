package translate

import "testing"

func TestWindowFunctionsCountNative(t *testing.T) {
	for _, tc := range []struct{ class, kind, want string }{
		{"org.apache.spark.sql.catalyst.expressions.RowNumber", "aggregate", fnNative},
		{"org.apache.spark.sql.catalyst.expressions.CumeDist", "aggregate", fnNative},
		{"org.apache.spark.sql.catalyst.expressions.Lag", "window", fnNative},
		{"org.apache.spark.sql.catalyst.expressions.NthValue", "window", fnNative},
	} {
		if got := functionStatus(BuiltinFunction{Class: tc.class, Kind: tc.kind}); got != tc.want {
			t.Errorf("%s (%s): %s, want %s", tc.class, tc.kind, got, tc.want)
		}
	}
}
