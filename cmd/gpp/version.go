package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// cmdVersion prints gpp's version, the commit it was built from when the
// build recorded it (go build in a git checkout), and the Go toolchain.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		errorf(stderr, "gpp version takes no arguments, not %q", args[0])
		return exitUsage
	}
	fmt.Fprintf(stdout, "gpp %s%s (%s %s/%s)\n", version, buildCommit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// buildCommit returns " commit REV" (with "+dirty" for uncommitted
// changes) from the build's VCS stamp, or "" without one.
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return " commit " + rev[:min(12, len(rev))] + dirty
}
