//go:build unix

package main

import "syscall"

// processCPU returns the CPU seconds (user and system) the process has
// used so far, and true; --profile sets NUTS's gradient count against
// it where the chains waited for a core.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	sec := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return sec(ru.Utime) + sec(ru.Stime), true
}
