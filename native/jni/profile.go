package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

// A CPU profile of the engine inside a running JVM, for diagnosis only: with
// BOLIDE_CPUPROFILE=<file> the library profiles itself for BOLIDE_CPUPROFILE_SECONDS (default 30)
// from load time, then writes the profile (read it with `go tool pprof`), and the block and mutex
// profiles of the same window next to it.
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
	// Where tasks wait rather than run (a channel, a mutex): <file>.block and <file>.mutex.
	runtime.SetBlockProfileRate(int(time.Millisecond))
	runtime.SetMutexProfileFraction(1)
	time.AfterFunc(time.Duration(secs)*time.Second, func() {
		pprof.StopCPUProfile()
		f.Close()
		for _, name := range []string{"block", "mutex"} {
			if w, err := os.Create(path + "." + name); err == nil {
				pprof.Lookup(name).WriteTo(w, 0)
				w.Close()
			}
		}
	})
}
