package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
)

// TestReloo: gpp fit --reloo refits without the outlier of TestMomentMatch
// (PSIS k̂ above 0.7) and takes its elpd_loo from the refit, whose
// proposal joins the fit to all data: within 0.1 of the exact −16.9709
// (seeds 1–4 measured within 0.04), with a k̂ below 0.7, the other rows as
// the plain fit's, the same loo.csv on one worker and on two, and the
// first line marked so that gpp compare reads it. gpp sample --reloo
// refits by NUTS, whose draws do not reach the outlier's tail: its estimate
// is flagged by its k̂. A model without log_lik is refused before fitting.
func TestReloo(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and samples")
	}
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	run := func(cmd, out string, args ...string) ([][]string, string, string) {
		t.Helper()
		code, stdout, stderr := runGpp(append([]string{cmd, model, csvPath, "--quiet", "--out", filepath.Join(dir, out)}, args...)...)
		if code != exitOK {
			t.Fatalf("%s %v: exit %d:\n%s", cmd, args, code, stderr)
		}
		return reftest.ReadCSV(t, filepath.Join(dir, out, looFile)), stdout, stderr
	}
	plain, _, _ := run("fit", "plain")
	one, stdout, stderr := run("fit", "reloo1", "--reloo", "--workers", "1")
	two, _, _ := run("fit", "reloo2", "--reloo", "--workers", "2")
	if !slices.EqualFunc(one, two, slices.Equal) {
		t.Errorf("loo.csv differs between --workers 1 and 2")
	}
	last := len(one) - 1
	e, k := parseNum(t, one[last][1]), parseNum(t, one[last][3])
	t.Logf("fit: the outlier's PSIS elpd %s (k̂ %s); refitted %.4f (k̂ %.2f); exact %.4f", plain[last][1], plain[last][3], e, k, mmOutlierExact)
	if math.Abs(e-mmOutlierExact) > 0.1 || !(k <= 0.7) || !(parseNum(t, plain[last][3]) > 0.7) {
		t.Errorf("fit --reloo: the outlier's elpd_loo %.4f (k̂ %.2f), exact %.4f; PSIS's k̂ %s", e, k, mmOutlierExact, plain[last][3])
	}
	for i := 2; i < last; i++ {
		if !slices.Equal(one[i], plain[i]) {
			t.Errorf("row %d changed: %v, plain %v", i, one[i], plain[i])
		}
	}
	head, _ := os.ReadFile(filepath.Join(dir, "reloo1", looFile))
	if !strings.Contains(strings.SplitN(string(head), "\n", 2)[0], "(refitted: 1)") || !strings.Contains(stdout, "reloo        refitted 1 observation") || strings.Contains(stderr, "LOO: Pareto") {
		t.Errorf("stdout:\n%s\nstderr:\n%s\nloo.csv's first line: %s", stdout, stderr, strings.SplitN(string(head), "\n", 2)[0])
	}
	if code, cmp, stderr := runGpp("compare", filepath.Join(dir, "reloo1"), filepath.Join(dir, "plain")); code != exitOK || !strings.Contains(cmp, "reloo1") {
		t.Errorf("compare: exit %d\n%s%s", code, cmp, stderr)
	}
	// a mixture of restarts refits without a bridge, and says so on its own
	// status lines
	if _, stdout, _ := run("fit", "reloo-r2", "--reloo", "--restarts", "2"); !strings.Contains(stdout, "reloo        refitted") {
		t.Errorf("fit --reloo --restarts 2: no reloo line:\n%s", stdout)
	}

	sample, stdout, stderr := run("sample", "sreloo", "--reloo", "--draws", "500")
	if k := parseNum(t, sample[len(sample)-1][3]); !(k > 0.7) || !strings.Contains(stdout, "rests on a few of the refit's draws") || !strings.Contains(stderr, "--reloo refitted 1 of them") {
		t.Errorf("sample --reloo: the outlier's k̂ %.2f;\n%s%s", k, stdout, stderr)
	}

	noLL := writeFile(t, dir, "nol.gpp", strings.Replace(mmOutlier, "output log_lik", "output ll", 1))
	for _, cmd := range []string{"fit", "sample"} {
		if code, _, stderr := runGpp(cmd, noLL, csvPath, "--reloo", "--quiet", "--out", filepath.Join(dir, "nol"+cmd)); code != exitError || !strings.Contains(stderr, "--reloo needs an output log_lik") {
			t.Errorf("%s --reloo without log_lik: exit %d: %s", cmd, code, stderr)
		}
	}
}

// TestRelooRefused: a model whose observations cannot be refitted by rows
// (a param per observation) keeps its PSIS estimates, and the line says why
// in --reloo's words (a refit's rows, not gpp kfold's folds);
// --family map and --minibatch are usage errors, and the REPL's :fit and
// :sample refuse --reloo.
func TestRelooRefused(t *testing.T) {
	dir := t.TempDir()
	csvPath, _ := writeOutlier(t, dir)
	perObs := writeFile(t, dir, "z.gpp", `data y: real[N]
param mu: real ~ Normal(0, 10)
param z: real[N] ~ Normal(mu, 1)
y ~ Normal(z, 0.1)
output log_lik = logpdf(y, Normal(z, 0.1))
`)
	code, stdout, stderr := runGpp("fit", perObs, csvPath, "--reloo", "--quiet", "--iter", "3000", "--out", filepath.Join(dir, "z"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "reloo        not done: ") || !strings.Contains(stdout, "param z has a shape that follows") ||
		!strings.Contains(stdout, "[8] on the other rows): --reloo predicts") {
		t.Errorf("reloo's line:\n%s", stdout)
	}
	for _, args := range [][]string{{"--family", "map"}, {"--minibatch", "N=4"}} {
		if code, _, stderr := runGpp(append([]string{"fit", perObs, csvPath, "--reloo"}, args...)...); code != exitUsage || !strings.Contains(stderr, "--reloo") {
			t.Errorf("--reloo %v: exit %d: %s", args, code, stderr)
		}
	}
	r, _, rerr := newTestRepl()
	for _, line := range []string{":fit --reloo", ":sample --reloo"} {
		rerr.Reset()
		r.failed = false
		typeIn(r, "param mu: real ~ Normal(0, 1)", line)
		if !r.failed || !strings.Contains(rerr.String(), "--reloo: refits are gpp") {
			t.Errorf("%s: %s", line, rerr.String())
		}
	}
}

// TestRelooInterrupted: an interrupt before the first refit keeps every
// observation's PSIS estimate, counts the one it would have refitted as
// left, and the console line says so.
func TestRelooInterrupted(t *testing.T) {
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	var stdout, stderr bytes.Buffer
	cfg, code, ok := parseFitArgs([]string{model, csvPath, "--workers", "2"}, &stdout, &stderr)
	if !ok {
		t.Fatalf("flags: exit %d: %s", code, &stderr)
	}
	l, err := pipeline.Load(cfg.model, cfg.data, cfg.sets)
	if err != nil {
		t.Fatal(err)
	}
	elems := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
	pts := make([]sgvb.LOOPoint, len(elems))
	for i := range pts {
		pts[i] = sgvb.LOOPoint{ELPD: -1 - float64(i), P: 0.1, K: 0.2}
	}
	pts[8].K = 1.2
	lo := &sgvb.LOO{Points: slices.Clone(pts)}
	ds := &drawSet{loo: lo, looObs: elems, vars: []variable{{name: looOutput, output: true, shape: []int{9}, elems: elems}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := reloo(ctx, l, ds, relooConfig(cfg, nil, nil), 2, newConsole(&stderr, false, false, false))
	if rep.refit != 0 || rep.left != 1 || rep.skipped != "" || !slices.Equal(lo.Points, pts) {
		t.Errorf("refitted %d, left %d, skipped %q, points %v: want 0, 1, none and the points as they were", rep.refit, rep.left, rep.skipped, lo.Points)
	}
	var b strings.Builder
	printReloo(&b, rep, lo.ELPD)
	if want := "reloo        interrupted before its first refit: the 1 with k̂ above 0.7 keep their PSIS estimates\n"; b.String() != want {
		t.Errorf("console line %q, want %q", b.String(), want)
	}
}

// TestRelooInterruptedExit: Ctrl-C (a cancelled context) as --reloo
// starts, after the fit or the sample completed, leaves the outlier with
// its PSIS estimate; gpp fit and gpp sample still write their outputs
// whole, with loo.csv's first line marked interrupted (which gpp compare
// reads), say so, and exit 130, as every interrupted command does.
func TestRelooInterruptedExit(t *testing.T) {
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	for _, cmd := range []string{"fit", "sample"} {
		out := filepath.Join(dir, cmd)
		var stdout bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &cancelOnWrite{match: "reloo: ", cancel: cancel}
		args := []string{model, csvPath, "--reloo", "--out", out}
		var code int
		if cmd == "fit" {
			cfg, c, ok := parseFitArgs(args, &stdout, stderr)
			if !ok {
				t.Fatalf("flags: exit %d: %s", c, &stderr.buf)
			}
			cfg.temps = &tempFiles{}
			code = runFit(ctx, cfg, &stdout, newConsole(stderr, false, false, false))
		} else {
			sc, c, ok := parseSampleArgs(append(args, "--draws", "300", "--warmup", "300"), &stdout, stderr)
			if !ok {
				t.Fatalf("flags: exit %d: %s", c, &stderr.buf)
			}
			sc.cfg.temps = &tempFiles{}
			code = runSample(ctx, sc, &stdout, newConsole(stderr, false, false, false))
		}
		cancel()
		if code != exitInterrupted {
			t.Errorf("%s: exit %d, want %d:\n%s", cmd, code, exitInterrupted, &stderr.buf)
		}
		want := "reloo        interrupted before its first refit: the 1 with k̂ above 0.7 keep their PSIS estimates\n"
		note := "interrupted during --reloo: 1 observation keeps its PSIS estimate (loo.csv's first line says so); the " + cmd + "'s other outputs are complete"
		if !strings.Contains(stdout.String(), want) || !strings.Contains(stderr.buf.String(), note) {
			t.Errorf("%s: stdout:\n%s\nstderr:\n%s\nwant %q and %q", cmd, &stdout, &stderr.buf, want, note)
		}
		head, err := os.ReadFile(filepath.Join(out, looFile))
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if first := strings.SplitN(string(head), "\n", 2)[0]; !strings.Contains(first, " (interrupted: 1 left with its PSIS estimate), elpd_waic = ") || !looComment.MatchString(first) {
			t.Errorf("%s: loo.csv's first line %q, want it marked interrupted, as gpp compare reads it", cmd, first)
		}
		rows := reftest.ReadCSV(t, filepath.Join(out, looFile))
		if k := parseNum(t, rows[len(rows)-1][3]); !(k > 0.7) {
			t.Errorf("%s: the outlier's k̂ %v: want its PSIS estimate's, above 0.7", cmd, k)
		}
	}
}

// TestLOOInterruptedNote: Ctrl-C during --moment-match leaves --reloo
// nothing to refit; the note names the flag stopped first and counts every
// observation left with its PSIS estimate, as loo.csv's first line does.
func TestLOOInterruptedNote(t *testing.T) {
	ds := &drawSet{loo: &sgvb.LOO{Points: make([]sgvb.LOOPoint, 5)}, mm: &mmReport{matched: 1, left: 2}, rl: &relooReport{left: 3}}
	if n, flag := looInterrupted(ds); n != 3 || flag != "--moment-match" {
		t.Errorf("looInterrupted: %d, %q; want 3, --moment-match", n, flag)
	}
	if got, want := looInterruptedNote(ds, "fit"), "interrupted during --moment-match: 3 observations keep their PSIS estimates (loo.csv's first line says so); the fit's other outputs are complete"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	var b strings.Builder
	if err := writeLOOCSV(&b, ds); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(b.String(), "\n", 2)[0]; !strings.HasSuffix(first, " (moment matched: 1) (interrupted: 3 left with their PSIS estimates)") || !looComment.MatchString(first) {
		t.Errorf("loo.csv's first line %q", first)
	}
	ds.mm.left, ds.rl.left = 0, 0
	if n, flag := looInterrupted(ds); n != 0 || flag != "" || looInterruptedNote(ds, "fit") != "" {
		t.Errorf("nothing interrupted: %d, %q", n, flag)
	}
}
