package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFitInterruptedAfterSteps: Ctrl-C (a cancelled context) after the
// last step, as q's final estimate starts (its draws are then cut short)
// or once the fit has returned (during the output draws and the checks),
// stops the run there: the outputs hold the q of every iteration, marked
// interrupted, and the exit code is 130, as the note at the signal says.
func TestFitInterruptedAfterSteps(t *testing.T) {
	for _, at := range []string{"scoring", "after"} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := fitCancelledBy(t, func(cfg *fitConfig, cancel context.CancelFunc) {
			if at == "scoring" {
				cfg.afterScoring = func(bool) { cancel() }
			} else {
				cfg.afterFit = cancel
			}
		}, poissonModel, poissonData, "--iter", "300", "--tol", "0", "--output-draws", "10", "--out", out)
		if code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted at iteration 300") {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", at, code, exitInterrupted, stderr)
			continue
		}
		ff := readFit(t, filepath.Join(out, "fit.json"))
		if !ff.Interrupted || ff.Iterations != 300 {
			t.Errorf("%s: fit.json: interrupted %v after %d iterations, want interrupted after 300", at, ff.Interrupted, ff.Iterations)
		}
		comments, _, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
		if !containsLine(comments, "# interrupted = 1") || len(rows) != 11 {
			t.Errorf("%s: draws.csv: %d rows, comments %q", at, len(rows), comments)
		}
	}
}

// TestInterruptedAtCommit: Ctrl-C once the outputs are staged, after the
// last point that marks them interrupted, leaves them whole and unmarked,
// and the run says so and exits 130: it exited 0 after the note at the
// signal had said it was stopping.
func TestInterruptedAtCommit(t *testing.T) {
	const want = "the outputs are complete (not marked interrupted)"
	out := filepath.Join(t.TempDir(), "fit")
	code, _, stderr := fitCancelledBy(t, func(cfg *fitConfig, cancel context.CancelFunc) { cfg.beforeCommit = cancel },
		poissonModel, poissonData, "--iter", "300", "--tol", "0", "--output-draws", "10", "--out", out)
	if code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted after the fit ended: "+want) {
		t.Errorf("fit: exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if ff := readFit(t, filepath.Join(out, "fit.json")); ff.Interrupted || ff.Iterations != 300 {
		t.Errorf("fit.json: interrupted %v after %d iterations, want whole after 300", ff.Interrupted, ff.Iterations)
	}

	out = filepath.Join(t.TempDir(), "sample")
	code, errs := sampleCancelled(t, func(sc *sampleConfig, cancel context.CancelFunc) { sc.cfg.beforeCommit = cancel },
		"--chains", "1", "--warmup", "100", "--draws", "50", "--out", out)
	if code != exitInterrupted || !strings.Contains(errs, "interrupted after the sample ended: "+want) {
		t.Errorf("sample: exit %d, want %d; stderr:\n%s", code, exitInterrupted, errs)
	}
	if comments, _, rows := readStanCSV(t, filepath.Join(out, "draws.csv")); !containsLine(comments, "# interrupted = 0") || len(rows) != 50 {
		t.Errorf("sample draws.csv: %d rows, comments %q; want 50, not marked interrupted", len(rows), comments)
	}
}

// TestSampleInterruptedAfterChains: Ctrl-C after the chains ended, during
// the summaries, writes every draw, marked interrupted, and exits 130
// (it ran on to exit 0 with "interrupted = 0").
func TestSampleInterruptedAfterChains(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stderr := sampleCancelled(t, func(sc *sampleConfig, cancel context.CancelFunc) {
		sc.afterIter = func(chain, iter int) {
			if iter == 150 { // the last
				cancel()
			}
		}
	}, "--chains", "1", "--warmup", "100", "--draws", "50", "--out", out)
	if code != exitInterrupted || !strings.Contains(stderr, "interrupted after the chains ended: the outputs hold all 50 draws") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	comments, _, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if !containsLine(comments, "# interrupted = 1") || len(rows) != 50 {
		t.Errorf("draws.csv: %d rows, comments %q; want 50, marked interrupted", len(rows), comments)
	}
}

// TestSampleInterruptedLoad: Ctrl-C while gpp sample loads its data
// writes nothing and exits 130, saying so.
func TestSampleInterruptedLoad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stderr := sampleCancelled(t, func(_ *sampleConfig, cancel context.CancelFunc) { cancel() }, "--out", out)
	if code != exitInterrupted || !strings.Contains(stderr, loadInterrupted) {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: %v; want no directory", out, err)
	}
}

// sampleCancelled runs gpp sample on the Poisson model with args, after
// set has wired the config's hooks to the run's cancel (Ctrl-C), and
// returns the exit code and stderr.
func sampleCancelled(t *testing.T, set func(sc *sampleConfig, cancel context.CancelFunc), args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	sc, code, ok := parseSampleArgs(append([]string{poissonModel, poissonData}, args...), &stdout, &stderr)
	if !ok {
		t.Fatalf("flags: exit %d: %s", code, &stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	set(sc, cancel)
	sc.cfg.temps = &tempFiles{}
	code = runSample(ctx, sc, &stdout, newConsole(&stderr, false, false, false))
	return code, stderr.String()
}

// fitCancelledBy runs gpp fit with args, set given the config and the
// cancel of its context to hook where the run is interrupted, and returns
// the exit code and the run's output.
func fitCancelledBy(t *testing.T, set func(cfg *fitConfig, cancel context.CancelFunc), args ...string) (int, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	stdout, stderr := &bytes.Buffer{}, &bytes.Buffer{}
	cfg, code, ok := parseFitArgs(args, stdout, stderr)
	if !ok {
		t.Fatalf("flags: exit %d: %s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	set(cfg, cancel)
	cfg.temps = &tempFiles{}
	return runFit(ctx, cfg, stdout, newConsole(stderr, false, false, false)), stdout, stderr
}

// lineWriter passes each write to a channel, for a console written from
// another goroutine.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestPhaseProgress: a long check after the steps gets a line with its
// count, rate and time left, once it has run phaseQuiet; a plain line
// without a terminal, a \r line on one, and nothing with --quiet.
func TestPhaseProgress(t *testing.T) {
	t0 := time.Unix(1e9, 0)
	for _, c := range []struct {
		tty  bool
		want string
	}{{false, "scoring q: 250/1000 draws  50 draws/s  ETA 15s\n"}, {true, "\rscoring q: 250/1000 draws  50 draws/s  ETA 15s"}} {
		w := make(lineWriter, 4)
		calls := 0
		now := func() time.Time { // the start, then 5 s on
			calls++
			if calls == 1 {
				return t0
			}
			return t0.Add(5 * time.Second)
		}
		stop := phaseProgress(newConsole(w, c.tty, false, false), "scoring q", "draws", 1000, func() int { return 250 }, now)
		if got := <-w; got != c.want {
			t.Errorf("tty %v: %q, want %q", c.tty, got, c.want)
		}
		go func() { // drain the line's end and later lines
			for range w {
			}
		}()
		stop()
		close(w)
	}
	var b strings.Builder
	if newConsole(&b, false, true, false).liveLine("scoring q: 1/2 draws", true) || b.Len() > 0 {
		t.Errorf("--quiet: %q", b.String())
	}
	if got := phaseLine("scoring q", "draws", 0, 1000, time.Second); got != "scoring q: 0/1000 draws  0 draws/s  ETA —" {
		t.Errorf("before a draw: %q", got)
	}
}

// TestSampleInterruptedChainInWarmup: Ctrl-C while one chain is still in
// warm-up and another has kept its draws writes the latter's, saying
// which chain was left out; the draws kept the shortest chain's count,
// so one chain stuck in warm-up (an ODE trial's SIR at 80% of its
// iterations) had every draw discarded: "no output written".
func TestSampleInterruptedChainInWarmup(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stderr := sampleCancelled(t, func(sc *sampleConfig, cancel context.CancelFunc) {
		stuck := make(chan struct{})
		sc.afterIter = func(chain, iter int) {
			switch {
			case chain == 1 && iter == 10:
				<-stuck // held in warm-up until the interrupt
			case chain == 0 && iter == 150: // its last
				cancel()
				close(stuck)
			}
		}
	}, "--chains", "2", "--warmup", "100", "--draws", "50", "--out", out)
	if code != exitInterrupted || !strings.Contains(stderr, "interrupted: chain 2 had kept fewer than 2 draws (still in warm-up) and is left out; the draws of the 1 that had are written") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	comments, _, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if !containsLine(comments, "# interrupted = 1") || len(rows) != 50 {
		t.Errorf("draws.csv: %d rows, comments %q; want chain 1's 50, marked interrupted", len(rows), comments)
	}
}
