package window

import (
	"testing"

	"github.com/bolide-dev/bolide/native/memory/memtest"
)

// TestMain fails the run if the tests leak native memory or misuse it (see memtest.Main).
func TestMain(m *testing.M) { memtest.Main(m) }
