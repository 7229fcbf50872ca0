package shuffle

import "syscall"

// processCPU is the CPU time (user and system, every thread) the test process has used, in
// nanoseconds: on a shared machine it varies far less with the load than wall time does.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
