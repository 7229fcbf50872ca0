package memory_test

import (
	"testing"

	"github.com/bolide-dev/bolide/native/memory/memtest"
)

func TestMain(m *testing.M) { memtest.Main(m) }
