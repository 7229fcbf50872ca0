package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

// A CPU profile of the engine inside a running JVM, for diagnosis only: with
// BOLIDE_CPUPROFILE=<file> the library profiles itself for BOLIDE_CPUPROFILE_SECONDS (default 30)
// from load time, then writes the profile (read it with `go tool pprof`).
func init() {
	path := os.Getenv("BOLIDE_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	secs, _ := strconv.Atoi(os.Getenv("BOLIDE_CPUPROFILE_SECONDS"))
	if secs <= 0 {
		secs = 30
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return
	}
	time.AfterFunc(time.Duration(secs)*time.Second, func() {
		pprof.StopCPUProfile()
		f.Close()
	})
}
