package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName is the file in an output directory that a fit holds locked
// while it may write there, so that two fits into one directory cannot mix
// their files: the second fails before it fits (lockOutDir).
const lockFileName = ".gpp-lock"

// outLock is a fit's exclusive lock on its output directory.
type outLock struct {
	f     *os.File
	path  string
	temps *tempFiles
}

// lockOutDir locks dir for a fit that will write its outputs there, until
// release. The lock file is tracked by temps, so that a hard exit removes
// it; the lock itself dies with the process (lockFile). A directory that
// another fit holds is an error naming it, and that fit's pid when known.
// Once locked, the temporary files that a killed run left in dir are
// removed (removeOrphans).
func lockOutDir(dir string, temps *tempFiles) (*outLock, error) {
	l := &outLock{path: filepath.Join(dir, lockFileName), temps: temps}
	err := temps.create(func() (string, error) {
		f, holder, err := lockFile(l.path)
		switch {
		case err != nil:
			return "", fmt.Errorf("cannot lock output directory %s: %w", dir, err)
		case f == nil:
			who := "another gpp run"
			if holder > 0 {
				who += fmt.Sprintf(" (pid %d)", holder)
			}
			return "", fmt.Errorf("--out %s: %s is writing to this directory: wait for it to finish, or give another --out directory", dir, who)
		}
		l.f = f
		return l.path, nil
	})
	if err != nil {
		return nil, err
	}
	removeOrphans(dir) // a killed run's temporary files: no run holds them now
	return l, nil
}

// release removes the lock file and unlocks. It may be called more than
// once, and on a nil lock.
func (l *outLock) release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path) // while still locked: see lockFile
	l.f.Close()
	l.f = nil
	l.temps.forget(l.path)
}

// writePid records the process id in a lock file just taken, for the
// error of a fit that finds it held.
func writePid(f *os.File) {
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
}

// readPid returns the process id recorded in a lock file, or 0.
func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
