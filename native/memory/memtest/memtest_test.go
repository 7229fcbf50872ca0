package memtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/memory/memtest"
)

func TestMain(m *testing.M) { memtest.Main(m) }

var leaked [][]byte

// leakOnPurpose leaks when run as the child of TestMainFailsTheRunOnALeak.
func leakOnPurpose() {
	leaked = append(leaked, memory.NewTaskAllocator(nil).Allocate(1000))
}

func TestLeakingChild(t *testing.T) {
	if os.Getenv("MEMTEST_CHILD") == "" {
		t.Skip("run by TestMainFailsTheRunOnALeak")
	}
	leakOnPurpose()
}

// The child's tests pass, but it leaks: Main must fail the run and name the allocation site.
func TestMainFailsTheRunOnALeak(t *testing.T) {
	if !memory.Checking() {
		t.Skip("memory checking is off (BOLIDE_MEMCHECK)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeakingChild$")
	cmd.Env = append(os.Environ(), "MEMTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("child exited with %v, want status 1:\n%s", err, out)
	}
	for _, want := range []string{"PASS", "1 allocator with live allocations", "memtest_test.leakOnPurpose"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
