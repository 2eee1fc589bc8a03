package epm

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// machine describes the computer for the reports: the `go version` line,
// the CPU model and the number of cores.
func machine() (goVersion, cpu string) {
	goVersion = fmt.Sprintf("go version %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	cpu = "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return goVersion, fmt.Sprintf("%s, %d logical cores (runtime.NumCPU), shared with other jobs", cpu, runtime.NumCPU())
}
