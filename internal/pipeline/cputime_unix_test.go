//go:build unix

package pipeline_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time: on a shared machine
// a benchmark's CPU time per op moves less with the load than its wall
// time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
