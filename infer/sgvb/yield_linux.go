package sgvb

import "syscall"

// osYield offers the CPU to another thread (sched_yield): a spinning
// goroutine must not keep the one it waits for, or another process, off a
// CPU when there are fewer free CPUs than running threads.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
