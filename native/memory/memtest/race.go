//go:build race

package memtest

// Race reports whether the test binary runs under the race detector.
const Race = true
