package iceberg

import "testing"

func TestCheckUUIDConstant(t *testing.T) {
	for _, c := range []struct {
		v  any
		ok bool
	}{
		{nil, true},
		{"0000002a-00ab-4cde-8f01-0000000148bf", true},
		{"0000002A-00AB-4CDE-8F01-0000000148BF", false},
		{"0000002a00ab4cde8f010000000148bf", false},
		{"0000002a-00ab-4cde-8f01-0000000148b", false},
		{"0000002a-00ab-4cde-8f01+0000000148bf", false},
		{[]byte("0000002a-00ab-4cde-8f01-0000000148bf"), false},
	} {
		if err := checkUUIDConstant(c.v); (err == nil) != c.ok {
			t.Errorf("%v: got %v, want ok=%v", c.v, err, c.ok)
		}
	}
}
