package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
)

// helperEnv makes the test binary run as gpp with a pause before the
// outputs' commit (TestMain): "fit" for gpp fit, "repl" for a REPL session
// that loads the model and data and runs :fit --out; "fit-kill" runs gpp
// fit without a pause, killed during its commit (killAfterEnv).
const helperEnv = "GPP_TEST_HELPER"

// stagedMarker is what the helper prints on stderr once the outputs are
// staged; it then sleeps until a signal ends it.
const stagedMarker = "gpp-test: outputs staged"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runHelper runs gpp as helperEnv says, pausing before the commit.
func runHelper(mode string, args []string) int {
	pause := func() {
		fmt.Fprintln(os.Stderr, stagedMarker)
		time.Sleep(time.Minute)
	}
	switch mode {
	case "fit":
		cfg, code, ok := parseFitArgs(args, os.Stdout, os.Stderr)
		if !ok {
			return code
		}
		cfg.beforeCommit = pause
		return fitWithSignals(cfg, os.Stdout, os.Stderr)
	case "fit-kill": // killed after killAfterEnv renames of the commit
		k, err := strconv.Atoi(os.Getenv(killAfterEnv))
		if err != nil {
			return exitUsage
		}
		killAfterRenames(k)
		return run(append([]string{"fit"}, args...), strings.NewReader(""), os.Stdout, os.Stderr)
	case "sample":
		sc, code, ok := parseSampleArgs(args, os.Stdout, os.Stderr)
		if !ok {
			return code
		}
		sc.cfg.beforeCommit = pause
		return sampleWithSignals(sc, os.Stdout, os.Stderr)
	case "repl": // args: model, data, out
		r := newRepl(strings.NewReader(""), os.Stdout, os.Stderr)
		r.beforeCommit = pause
		typeIn(r, ":load "+args[0], ":data "+args[1], ":fit --quiet --iter 50 --output-draws 5 --out "+args[2])
		return exitOK
	}
	return exitUsage
}

// startHelper starts the test binary as gpp (helperEnv mode) and waits
// until it has staged its outputs.
func startHelper(t *testing.T, mode string, args ...string) (cmd *exec.Cmd, stderr *bytes.Buffer, interrupted <-chan struct{}) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	staged := make(chan bool, 1)
	intr := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		once := false
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if sc.Text() == stagedMarker {
				staged <- true
			}
			if !once && strings.HasPrefix(sc.Text(), "gpp: interrupted") {
				once = true
				close(intr)
			}
		}
		close(staged)
	}()
	select {
	case ok := <-staged:
		if !ok {
			cmd.Wait()
			t.Fatalf("gpp exited before staging its outputs:\n%s", stderr)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("gpp did not stage its outputs within a minute")
	}
	return cmd, stderr, intr
}

// exitCode waits for cmd and returns its exit code.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode() // -1: killed by a signal
}

// TestSignalLeavesNoTemporaryFiles sends gpp signals while its outputs are
// staged: gpp fit's second SIGTERM and the REPL's SIGTERM during a
// :fit --out exit without leaving a temporary file or the directory lock.
func TestSignalLeavesNoTemporaryFiles(t *testing.T) {
	t.Run("fit", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		cmd, stderr, interrupted := startHelper(t, "fit", poissonModel, poissonData, "--quiet", "--iter", "50", "--output-draws", "5", "--out", out)
		cmd.Process.Signal(syscall.SIGTERM)
		// The grace runs from when gpp took the first signal, which a
		// loaded machine may delay: wait for its message first.
		select {
		case <-interrupted:
		case <-time.After(30 * time.Second):
		}
		time.Sleep(interruptGrace + 100*time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		if code := exitCode(t, cmd); code != exitInterrupted {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
		}
		if got := dirEntries(t, out); len(got) > 0 {
			t.Errorf("left in %s: %v", out, got)
		}
	})
	t.Run("repl", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		cmd, stderr, _ := startHelper(t, "repl", "testdata/repl_model.gpp", "testdata/repl_counts.csv", out)
		cmd.Process.Signal(syscall.SIGTERM)
		if code := exitCode(t, cmd); code != exitTerminated {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitTerminated, stderr)
		}
		if got := dirEntries(t, out); len(got) > 0 {
			t.Errorf("left in %s: %v", out, got)
		}
	})
}

// TestStagedAfterHardExit: once a hard exit has removed the temporary
// files, a writer still running creates no new one and commits nothing,
// and the directory lock's file is gone too.
func TestStagedAfterHardExit(t *testing.T) {
	dir := t.TempDir()
	temps := &tempFiles{}
	if _, err := lockOutDir(dir, temps); err != nil {
		t.Fatal(err)
	}
	s := &staged{dir: dir, temps: temps}
	fill := func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }
	if err := s.write(summaryFile, fill); err != nil {
		t.Fatal(err)
	}
	temps.removeAll()
	if err := s.write(drawsFile, fill); !errors.Is(err, errExiting) {
		t.Errorf("write after removeAll: error %v, want %v", err, errExiting)
	}
	if err := s.commit(); !errors.Is(err, errExiting) {
		t.Errorf("commit after removeAll: error %v, want %v", err, errExiting)
	}
	if got := dirEntries(t, dir); len(got) > 0 {
		t.Errorf("left after a hard exit: %v", got)
	}
}

// TestHardExitRemovesMadeDir: a hard exit (predict's interrupt, a fit's
// second Ctrl-C) removes the output directory that the run created when
// nothing was written there, and leaves one that holds other files, or
// that existed before, in place.
func TestHardExitRemovesMadeDir(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name        string
		exists      bool   // the directory is there before the run
		other       string // a file put there meanwhile
		wantRemoved bool
	}{
		{"made, empty", false, "", true},
		{"made, a file added", false, "notes.txt", false},
		{"existing", true, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := &fitConfig{out: filepath.Join(root, strings.ReplaceAll(c.name, " ", "")), temps: &tempFiles{}}
			if c.exists {
				if err := os.Mkdir(cfg.out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var stderr bytes.Buffer
			lock, _, ok := openOutDir(cfg, newConsole(&stderr, false, false, false))
			if !ok {
				t.Fatalf("openOutDir: %s", &stderr)
			}
			defer lock.release()
			s := &staged{dir: cfg.out, temps: cfg.temps}
			if err := s.write(summaryFile, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); err != nil {
				t.Fatal(err)
			}
			if c.other != "" {
				if err := os.WriteFile(filepath.Join(cfg.out, c.other), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg.temps.removeAll()
			_, err := os.Stat(cfg.out)
			if removed := os.IsNotExist(err); removed != c.wantRemoved {
				t.Errorf("directory removed %v, want %v (entries %v)", removed, c.wantRemoved, dirEntries(t, cfg.out))
			}
			if !c.wantRemoved {
				if got := strings.Join(dirEntries(t, cfg.out), " "); got != c.other {
					t.Errorf("left %q, want %q", got, c.other)
				}
			}
		})
	}
}

// TestFitOutDirLocked: a fit into a directory that another fit is writing
// fails before fitting, naming the directory and the other fit's pid; a
// lock file left by a process that died blocks nothing; the REPL's
// :fit --out takes the same lock.
func TestFitOutDirLocked(t *testing.T) {
	busy := func(dir string) string {
		return fmt.Sprintf("gpp: --out %s: another gpp run (pid %d) is writing to this directory", dir, os.Getpid())
	}
	t.Run("fit", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		cfg, code, ok := parseFitArgs([]string{poissonModel, poissonData, "--quiet", "--iter", "200", "--tol", "0", "--output-draws", "10", "--out", out}, &stdout, &stderr)
		if !ok {
			t.Fatalf("flags: exit %d: %s", code, stderr.String())
		}
		cfg.temps = &tempFiles{}
		second := -1
		var secondErr string
		cfg.afterEval = func(sgvb.Progress) {
			if second < 0 { // a second fit while the first is fitting
				second, _, secondErr = runSafe(t, "fit", poissonModel, poissonData, "--quiet", "--iter", "50", "--output-draws", "5", "--seed", "7", "--out", out)
			}
		}
		if code := runFit(context.Background(), cfg, &stdout, newConsole(&stderr, false, true, false)); code != exitOK {
			t.Fatalf("first fit: exit %d: %s", code, stderr.String())
		}
		if second != exitError || !strings.HasPrefix(secondErr, busy(out)) || strings.Count(secondErr, "\n") != 1 {
			t.Errorf("second fit: exit %d, stderr:\n%s\nwant exit 1 and %s", second, secondErr, busy(out))
		}
		if got := strings.Join(dirEntries(t, out), " "); got != "draws.csv elbo.csv fit.json summary.csv" {
			t.Errorf("files: %s", got)
		}
		if ff := readFit(t, filepath.Join(out, fitFileName)); ff.Settings.Seed != 1 {
			t.Errorf("fit.json is of seed %d, want the first fit's 1", ff.Settings.Seed)
		}
	})
	t.Run("stale", func(t *testing.T) {
		out := t.TempDir()
		writeFile(t, out, lockFileName, "2147483000\n") // no process holds it
		if code, _, stderr := runSafe(t, "fit", poissonModel, poissonData, "--quiet", "--iter", "50", "--output-draws", "5", "--out", out); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := strings.Join(dirEntries(t, out), " "); got != "draws.csv elbo.csv fit.json summary.csv" {
			t.Errorf("files: %s", got)
		}
	})
	t.Run("repl", func(t *testing.T) {
		out := t.TempDir()
		lock, err := lockOutDir(out, &tempFiles{})
		if err != nil {
			t.Fatal(err)
		}
		r, _, errb := newTestRepl()
		typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv", ":fit --quiet --iter 50 --output-draws 5 --out "+out)
		if !strings.HasPrefix(errb.String(), busy(out)) || r.fit != nil {
			t.Errorf("errors:\n%s\nwant %s", errb.String(), busy(out))
		}
		lock.release()
		errb.Reset()
		typeIn(r, ":fit --quiet --iter 50 --output-draws 5 --out "+out)
		if strings.Contains(errb.String(), "another gpp run") || r.fit == nil {
			t.Errorf("after the lock's release: errors:\n%s", errb.String())
		}
		if got := strings.Join(dirEntries(t, out), " "); got != "draws.csv elbo.csv fit.json summary.csv" {
			t.Errorf("files: %s", got)
		}
	})
}
