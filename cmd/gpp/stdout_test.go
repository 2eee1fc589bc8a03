package main

import (
	"errors"
	"strings"
	"testing"
)

// failingWriter fails every write, as standard output on a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutWriteFailure: a command whose report could not be written to
// standard output exits 1 and says why, not 0; a command that failed keeps
// its own exit code.
func TestStdoutWriteFailure(t *testing.T) {
	out := &checkedWriter{w: failingWriter{}}
	var errb strings.Builder
	code := out.exit(run([]string{"check", "../../examples/regression.gpp"}, nil, out, &errb), &errb)
	if want := "gpp: writing standard output: no space left on device"; code != exitError || !strings.Contains(errb.String(), want) {
		t.Errorf("check to a full disk: exit %d, stderr %q; want exit %d and %q", code, errb.String(), exitError, want)
	}
	out = &checkedWriter{w: failingWriter{}}
	if code := out.exit(run([]string{"check", "no-such-model.gpp"}, nil, out, &errb), &errb); code != exitError {
		t.Errorf("a failed check to a full disk: exit %d, want %d", code, exitError)
	}
	out = &checkedWriter{w: &strings.Builder{}}
	if code := out.exit(run([]string{"version"}, nil, out, &errb), &errb); code != exitOK {
		t.Errorf("version: exit %d, want %d", code, exitOK)
	}
}
