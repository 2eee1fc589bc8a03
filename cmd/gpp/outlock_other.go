//go:build !unix

package main

import (
	"errors"
	"os"
)

// lockFile creates the file at path exclusively and records the pid in it.
// It returns the open file, or nil and the pid of the live process that
// holds it. A file whose process is gone (a killed fit) is stale and is
// taken over; os.FindProcess finds only live processes on Windows.
func lockFile(path string) (f *os.File, holder int, err error) {
	for range 2 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			writePid(f)
			return f, 0, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, 0, err
		}
		pid := readPid(path)
		if pid == 0 { // just created, its pid not yet written
			return nil, 0, nil
		}
		if _, err := os.FindProcess(pid); err == nil {
			return nil, pid, nil
		}
		os.Remove(path) // stale
	}
	return nil, readPid(path), nil
}
