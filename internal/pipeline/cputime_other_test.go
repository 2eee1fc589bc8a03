//go:build !unix

package pipeline_test

import "time"

// cpuTime is 0 where getrusage is missing: the cpu-ns metrics read 0.
func cpuTime() time.Duration { return 0 }
