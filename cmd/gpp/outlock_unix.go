//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on the file at path, created if
// need be. It returns the open file holding the lock, or nil and the pid
// recorded by the process that holds it. The kernel drops the lock when
// its holder exits, however it exits, so a killed fit's lock file blocks
// nobody. The holder removes the file before unlocking, so a lock taken on
// a file that is no longer at path (another process had it open) is
// dropped and taken again on the new one.
func lockFile(path string) (f *os.File, holder int, err error) {
	for range 16 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, 0, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, readPid(path), nil
			}
			return nil, 0, err
		}
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(fi, pi) {
			writePid(f)
			return f, 0, nil
		}
		f.Close()
	}
	return nil, 0, fmt.Errorf("%s keeps being replaced", path)
}
