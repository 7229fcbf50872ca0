// Package memtest makes a package's tests fail when they leave native memory allocated or misuse
// it: a leaked Arrow buffer or a double free found in checking mode (see memory.Checking) would
// otherwise pass unnoticed, or as a wrong answer far from its cause.
package memtest

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/bolide-dev/bolide/native/memory"
)

// Main runs the tests, then fails the run (exit status 1, with memory.CheckAll's report on stderr)
// if any checking allocator still has live allocations or any violation was recorded. Use it as
//
//	func TestMain(m *testing.M) { memtest.Main(m) }
//
// Leaks are checked once, after all tests, because arrays may legitimately outlive the test that
// built them (shared fixtures); the report names the test that created each leaky allocator and
// the allocation sites.
func Main(m *testing.M) {
	code := m.Run()
	if err := memory.CheckAll(); err != nil {
		fmt.Fprintf(os.Stderr, "memtest: %v\n", err)
		if code != 0 {
			fmt.Fprintln(os.Stderr, "memtest: some tests failed; their early exits may explain leaks above")
		}
		code = max(code, 1)
	}
	// Checking is on by default in tests: benchmark numbers then include tracking and poisoning.
	if f := flag.Lookup("test.bench"); memory.Checking() && f != nil && f.Value.String() != "" {
		fmt.Fprintln(os.Stderr, "memtest: benchmarks ran with memory checking on; set BOLIDE_MEMCHECK=0 to measure production speed")
	}
	os.Exit(code)
}
