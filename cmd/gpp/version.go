package main

import (
	"fmt"
	"io"
	"runtime"
)

func cmdVersion(stdout io.Writer) int {
	fmt.Fprintf(stdout, "gpp %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
