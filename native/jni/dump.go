package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// Captured task requests, for `make bench-scan`'s Go-only runs (native/cmd/replay): with
// BOLIDE_DUMP_TASKS=<dir>, every task request that needs nothing from the JVM (no input batches,
// no shuffle frames: a block that starts at its scans) is written to <dir> as it arrived. The
// file is named by a hash of its content, so the same task run twice is kept once. Diagnosis and
// benchmarking only: a request carries file paths and the Iceberg tasks' properties.
var dumpDir = os.Getenv("BOLIDE_DUMP_TASKS")

// dumpRequest writes req into dumpDir; failures are ignored (the task itself must not fail).
func dumpRequest(req []byte) {
	if dumpDir == "" {
		return
	}
	sum := sha256.Sum256(req)
	name := filepath.Join(dumpDir, "task-"+hex.EncodeToString(sum[:8])+".json")
	if err := os.MkdirAll(dumpDir, 0o755); err != nil {
		return
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, req, 0o644); err != nil {
		return
	}
	_ = os.Rename(tmp, name)
}
