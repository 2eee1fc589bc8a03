package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
)

// profileModelSrc has one heavy statement (a N × P matrix product and N
// normal densities) and cheap ones (scalar priors).
const profileModelSrc = `data N: int
data P: int
data X: real[N, P]
data y: real[N]
param a: real ~ Normal(0, 1)
param beta: real[P] ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
y ~ Normal(X * beta + a, s)
`

// profileData writes data of n rows and p columns for profileModelSrc
// into dir.
func profileData(t *testing.T, dir string, n, p int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, `{"N": %d, "P": %d, "X": [`, n, p)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for j := range p {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%.3f", math.Sin(float64(i*p+j)))
		}
		b.WriteString("]")
	}
	b.WriteString(`], "y": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.3f", math.Cos(float64(i)))
	}
	b.WriteString("]}")
	return writeFile(t, dir, "d.json", b.String())
}

// TestFitProfile: gpp fit --profile writes profile.csv with the fit's other
// outputs, listed in fit.json, its rows by total time with the heavy
// statement first and the larger share, and prints the table; the fit's
// draws are those without --profile, which writes no profile.csv and
// removes an earlier fit's.
func TestFitProfile(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", profileModelSrc)
	dat := profileData(t, dir, 600, 40)
	out := filepath.Join(dir, "out")
	args := []string{"fit", model, dat, "--quiet", "--iter", "300", "--tol", "0", "--output-draws", "50", "--out", out}
	code, stdout, stderr := runSafe(t, append(args, "--profile")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := reftest.ReadCSV(t, filepath.Join(out, profileFile))
	if got := strings.Join(recs[0], ","); got != "statement,line,col,forward_time,reverse_time,total_time,share,nodes,evals" {
		t.Fatalf("header %s", got)
	}
	rows := recs[1:]
	if len(rows) < 4 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	num := func(r []string, c int) float64 {
		v, err := strconv.ParseFloat(r[c], 64)
		if err != nil {
			t.Fatalf("row %v column %d: %v", r, c, err)
		}
		return v
	}
	if rows[0][0] != "y ~ Normal(X * beta + a, s)" || rows[0][1] != "8" || rows[0][2] != "1" {
		t.Errorf("first row %v, want the heavy statement at 8:1", rows[0])
	}
	var shares float64
	lines := map[string]bool{}
	for i, r := range rows {
		lines[r[1]] = true
		if i > 0 && num(r, 5) > num(rows[i-1], 5) {
			t.Errorf("row %d's total time %s above the row before's %s", i, r[5], rows[i-1][5])
		}
		if f, rv, tot := num(r, 3), num(r, 4), num(r, 5); f < 0 || rv < 0 || math.Abs(f+rv-tot) > 1e-5*tot {
			t.Errorf("row %v: forward + reverse ≠ total", r)
		}
		if num(r, 7) < 1 || r[8] != rows[0][8] || num(r, 8) < profileMinEvals {
			t.Errorf("row %v: nodes and evals (every row's evals alike, at least %d)", r, profileMinEvals)
		}
		shares += num(r, 6)
	}
	for _, l := range []string{"5", "6", "7", "8"} {
		if !lines[l] {
			t.Errorf("no row for line %s: %v", l, rows)
		}
	}
	if math.Abs(shares-1) > 1e-4 {
		t.Errorf("shares sum to %g", shares)
	}
	if heavy, prior := num(rows[0], 6), num(rowAt(t, rows, "5"), 6); !(heavy > prior) {
		t.Errorf("share of the heavy statement %g, of param a's %g", heavy, prior)
	}
	ff, err := os.ReadFile(filepath.Join(out, fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ff), `"profile.csv"`) {
		t.Errorf("fit.json does not list profile.csv")
	}
	table := stdout[strings.Index(stdout, "profile: "):]
	for _, want := range []string{"evaluations of the log joint and its gradient at 10 draws of q", "run: ", " gradient evaluations × ", "the model "} {
		if !strings.Contains(table, want) {
			t.Errorf("console lacks %q:\n%s", want, table)
		}
	}
	if first := strings.Split(table, "\n")[2]; !strings.Contains(first, "y ~ Normal(X * beta + a, s)") {
		t.Errorf("first statement of the table: %q", first)
	}
	draws, err := os.ReadFile(filepath.Join(out, drawsFile))
	if err != nil {
		t.Fatal(err)
	}

	// Without --profile into the same directory: the same draws, and the
	// earlier profile.csv removed.
	code, _, stderr = runSafe(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, profileFile)); !os.IsNotExist(err) {
		t.Errorf("profile.csv without --profile: %v", err)
	}
	again, err := os.ReadFile(filepath.Join(out, drawsFile))
	if err != nil {
		t.Fatal(err)
	}
	if withoutTimes(string(again)) != withoutTimes(string(draws)) {
		t.Errorf("--profile changed the fit's draws")
	}
}

// rowAt returns the row of profile.csv at line.
func rowAt(t *testing.T, rows [][]string, line string) []string {
	t.Helper()
	for _, r := range rows {
		if r[1] == line {
			return r
		}
	}
	t.Fatalf("no row at line %s", line)
	return nil
}

// TestFitProfileFails: a fit that fails writes no profile.csv (nor
// anything else).
func TestFitProfileFails(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", `data y: real[2]
param s: positive ~ Gamma(2, 2)
y ~ Normal(0, s)
target += log(s - 100)
`)
	dat := writeFile(t, dir, "d.json", `{"y": [0.5, 1]}`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runSafe(t, "fit", model, dat, "--quiet", "--iter", "100", "--profile", "--out", out)
	if code != exitError || !strings.Contains(stderr, "the fit failed") {
		t.Fatalf("exit %d, want %d: %s", code, exitError, stderr)
	}
	if files := dirEntries(t, out); len(files) != 0 {
		t.Errorf("a failed fit wrote %v", files)
	}
}

// TestSampleProfile: gpp sample --profile writes profile.csv beside the
// draws, which are those without it.
func TestSampleProfile(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", profileModelSrc)
	// 400 × 10: the heavy statement about 10× the others, so that a loaded
	// machine's timing noise does not reorder them
	dat := profileData(t, dir, 400, 10)
	var draws []string
	for i, extra := range [][]string{{"--profile"}, nil} {
		out := filepath.Join(dir, strconv.Itoa(i))
		args := append([]string{"sample", model, dat, "--quiet", "--chains", "2", "--warmup", "60", "--draws", "40", "--out", out}, extra...)
		code, stdout, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		_, err := os.Stat(filepath.Join(out, profileFile))
		if (err == nil) != (extra != nil) {
			t.Errorf("%v: profile.csv: %v", extra, err)
		}
		if extra != nil {
			rows := reftest.ReadCSV(t, filepath.Join(out, profileFile))[1:]
			if rows[0][1] != "8" {
				t.Errorf("first row %v, want the heavy statement at line 8", rows[0])
			}
			for _, want := range []string{"at the 2 chains' last draws", "of the 2 chains' summed"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("console lacks %q:\n%s", want, stdout)
				}
			}
		}
		d, err := os.ReadFile(filepath.Join(out, drawsFile))
		if err != nil {
			t.Fatal(err)
		}
		draws = append(draws, withoutTimes(string(d)))
	}
	if draws[0] != draws[1] {
		t.Errorf("--profile changed the draws")
	}
}

// TestReplProfile: the REPL's :fit and :sample take --profile (gpp fit's
// and gpp sample's flags) and print its table after their own.
func TestReplProfile(t *testing.T) {
	for _, cmd := range []string{":fit --quiet --iter 200 --tol 0 --profile", ":sample --quiet --chains 2 --warmup 50 --draws 50 --profile"} {
		r, out, errb := newTestRepl()
		typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv")
		out.Reset()
		typeIn(r, cmd)
		if !strings.Contains(out.String(), "\nprofile: ") || !strings.Contains(out.String(), "\nrun: ") {
			t.Errorf("%s printed no profile:\n%s\n%s", cmd, out, errb)
		}
	}
}

// The run line sets the model's evaluations against the run's wall time:
// as a share where they fit in it, and without a share where the workers'
// evaluations side by side add up to more; with one worker (--workers 1)
// more says the profile's times overstate the run's, not side by side.
func TestPrintProfileRunLine(t *testing.T) {
	for _, c := range []struct {
		run  float64
		side bool
		want string
	}{
		{1, true, "= 0.4 s in the model's statements,\n     of the fit's 1 s: the model 40 %, the engine (E) 60 %\n"},
		{1, false, "= 0.4 s in the model's statements,\n     of the fit's 1 s: the model 40 %, the engine (E) 60 %\n"},
		{0.3, true, "= 0.4 s in the model's statements,\n     of the fit's 0.3 s: more than the wall time, as the workers evaluate the model side by side, so the engine (E) takes little of it\n"},
		{0.3, false, "= 0.4 s in the model's statements,\n     of the fit's 0.3 s: more than the wall time, though the model is evaluated one draw at a time, so the times per evaluation above, measured apart after the run (wall-clock: a busy machine moves them), overstate the run's; no share is given\n"},
	} {
		rp := &runProfile{forward: 1e-3, reverse: 1e-3, grads: 150, values: 100, runSeconds: c.run, runWhat: "the fit's", engine: "the engine (E)", sideBySide: c.side}
		var b strings.Builder
		printProfile(&b, rp)
		if !strings.HasSuffix(b.String(), c.want) {
			t.Errorf("run %g s:\n%s\nwant it to end\n%s", c.run, b.String(), c.want)
		}
	}
}

// TestProfileWorkers: --workers 1 evaluates one draw at a time (the run
// line then says no "side by side"); so does a default fit on one CPU.
func TestProfileWorkers(t *testing.T) {
	if w := profileWorkers(sgvb.Settings{Workers: 1}, nil); w != 1 {
		t.Errorf("--workers 1: %d workers", w)
	}
	if w := profileWorkers(sgvb.Settings{Workers: 3}, nil); w != 3 {
		t.Errorf("--workers 3: %d workers", w)
	}
	if w, want := profileWorkers(sgvb.Settings{}, nil), min(runtime.GOMAXPROCS(0), 4); w != want {
		t.Errorf("default: %d workers, want %d", w, want)
	}
}

// Only a q with gamma, beta or Dirichlet factors (an ordered latent's
// increments among them) is said to spend time on gamma shape derivatives.
func TestGammaDraws(t *testing.T) {
	normal := &sgvb.Result{Factors: []sgvb.Factor{{Family: sgvb.FamilyNormal}, {Family: sgvb.FamilyFullRank}}}
	ordered := &sgvb.Result{Factors: []sgvb.Factor{{Family: sgvb.FamilyOrdered, Parts: []sgvb.Factor{{Family: sgvb.FamilyNormal}, {Family: sgvb.FamilyGamma}}}}}
	for _, c := range []struct {
		r    *sgvb.Result
		mix  *sgvb.Mixture
		want bool
	}{
		{normal, nil, false},
		{ordered, nil, true},
		{&sgvb.Result{Factors: []sgvb.Factor{{Family: sgvb.FamilyNormal}, {Family: sgvb.FamilyBeta}}}, nil, true},
		{&sgvb.Result{Factors: []sgvb.Factor{{Family: sgvb.FamilyDirichlet}}}, nil, true},
		{nil, &sgvb.Mixture{Components: []*sgvb.Result{normal, ordered}}, true},
		{nil, &sgvb.Mixture{Components: []*sgvb.Result{normal, normal}}, false},
	} {
		if got := gammaDraws(c.r, c.mix); got != c.want {
			t.Errorf("%+v %+v: %v, want %v", c.r, c.mix, got, c.want)
		}
	}
}

// TestChainRunTime: NUTS's profile sets the gradient count against the
// chains' CPU time where their summed wall time held waiting for a core
// (a typology trial's 4 chains on 2 cores read the engine at 65 %), and
// says so; where CPU time is unknown it says the wall time holds the
// waiting of more chains than cores; otherwise the wall time, no note.
func TestChainRunTime(t *testing.T) {
	for _, c := range []struct {
		wall, cpu      float64
		workers, cpus  int
		run            float64
		want, wantNote string
	}{
		{23.4, 8.1, 4, 2, 8.1, "of the 4 chains' summed CPU time 8.1 s: the model 37 %, the engine (E) 63 %",
			"(their summed wall time, 23.4 s, held 15.3 s of waiting for a core (4 chains ran side by side on 2 cores), which the shares leave out)"},
		{10, 5, 2, 2, 5, "of the 4 chains' summed CPU time 5 s", "(other processes held the cores)"},
		{10, 9.5, 4, 2, 10, "of the 4 chains' summed 10 s: the model 30 %", ""},
		{10, -1, 4, 2, 10, "of the 4 chains' summed 10 s: the model 30 %",
			"(the summed wall time holds the chains' waiting for a core (4 chains ran side by side on 2 cores), so the engine's share overstates it)"},
		{10, -1, 2, 2, 10, "of the 4 chains' summed 10 s", ""},
		// --workers above --chains: the chains, not the workers, run side by side
		{23.4, 8.1, 8, 2, 8.1, "of the 4 chains' summed CPU time 8.1 s", "(4 chains ran side by side on 2 cores)"},
		{10, -1, 8, 4, 10, "of the 4 chains' summed 10 s", ""},
	} {
		rp := &runProfile{forward: 1e-3, reverse: 2e-3, grads: 1000, engine: "the engine (E)"}
		chainRunTime(rp, 4, c.wall, c.cpu, c.workers, c.cpus)
		var b strings.Builder
		printProfile(&b, rp)
		out := b.String()
		if rp.runSeconds != c.run || !strings.Contains(out, c.want) || (c.wantNote == "") != (rp.waitNote == "") || !strings.Contains(out, c.wantNote) {
			t.Errorf("wall %g, cpu %g, %d workers on %d cores: run %g s, printed\n%s\nwant run %g s, %q and %q", c.wall, c.cpu, c.workers, c.cpus, rp.runSeconds, out, c.run, c.want, c.wantNote)
		}
	}
}

// TestChainRunTimeScaled: where the timing after the run waited for a
// core too (a typology trial's phy_chol.gpp on a busy machine: 1.87 ms
// per gradient by wall time, 82784 of them "155 s" of 14.2 s of CPU), its
// times per evaluation are scaled to its CPU time; a model cost still
// above the chains' CPU time is said to be above that, not the wall time.
func TestChainRunTimeScaled(t *testing.T) {
	rp := &runProfile{forward: 1e-3, reverse: 2e-3, grads: 1000, engine: "the engine (E)", timeWall: 2, timeCPU: 1,
		rows: []profileRow{{text: "y ~ D", forward: 1e-3, reverse: 2e-3}}}
	chainRunTime(rp, 4, 20, 2, 2, 2)
	var b strings.Builder
	printProfile(&b, rp)
	out := b.String()
	if rp.forward != 0.5e-3 || rp.reverse != 1e-3 || rp.rows[0].total() != 1.5e-3 ||
		!strings.Contains(out, "1.5 s in the model's statements,\n     of the 4 chains' summed CPU time 2 s: the model 75 %") ||
		!strings.Contains(out, "the times per evaluation are CPU time, the timing having had 50 % of a core") {
		t.Errorf("scaled to the timing's CPU time:\n%s", out)
	}
	rp = &runProfile{forward: 1e-3, reverse: 2e-3, grads: 1000, engine: "the engine (E)", timeWall: 2, timeCPU: 1.95}
	chainRunTime(rp, 4, 20, 2, 2, 2)
	b.Reset()
	printProfile(&b, rp)
	if out := b.String(); rp.forward != 1e-3 || !strings.Contains(out, "of the 4 chains' summed CPU time 2 s: more than that CPU time, though") ||
		strings.Contains(out, "the times per evaluation are CPU time") {
		t.Errorf("a timing that had its core:\n%s", out)
	}
}

// TestProcessCPU: the process's CPU seconds grow with work, where known.
func TestProcessCPU(t *testing.T) {
	before, ok := processCPU()
	if !ok {
		t.Skip("no CPU time on this system")
	}
	x := 0.0
	for i := range 50_000_000 {
		x += math.Sqrt(float64(i))
	}
	after, _ := processCPU()
	if !(after > before) || x == 0 {
		t.Errorf("CPU seconds %g then %g after work", before, after)
	}
	// profileModel reads its timing's CPU seconds, by which chainRunTime
	// scales the times per evaluation
	l, err := pipeline.Load(writeFile(t, t.TempDir(), "m.gpp", "param a: real ~ Normal(0, 1)\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := profileModel(context.Background(), l.Model, [][]float64{{0.5}})
	if err != nil || !(rp.timeCPU > 0) || !(rp.timeWall > 0) {
		t.Errorf("profileModel's timing: CPU %v s, wall %v s (%v)", rp.timeCPU, rp.timeWall, err)
	}
}
