package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/reftest"
)

// TestFitRestarts fits the Gamma–Poisson model three times: the outputs
// describe the mixture, name each draw's restart, and restart 0 is the
// single fit of the same seed. 500 steps leave the restarts apart: from
// about 2000 on they all reach the exact posterior to the last bits, where
// the STL gradient has no noise.
func TestFitRestarts(t *testing.T) {
	d := t.TempDir()
	out, single := filepath.Join(d, "mix"), filepath.Join(d, "one")
	const draws = 300
	args := []string{"fit", poissonModel, poissonData, "--quiet", "--iter", "500", "--tol", "0", "--output-draws", strconv.Itoa(draws)}
	code, stdout, stderr := runSafe(t, append(args, "--restarts", "3", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"R̂\n", "restart  ", "  1 + 1·2³²  ", "  1 + 2·2³²  ", "(the mixture's; the restarts' mean is", "R̂            0 of 2 elements above 1.01"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, stderr := runSafe(t, append(args, "--out", single)...); code != 0 {
		t.Fatalf("single fit: exit %d: %s", code, stderr)
	}

	// fit.json: the restarts with their seeds, restart 0 the single fit
	ff, one := readFit(t, filepath.Join(out, "fit.json")), readFit(t, filepath.Join(single, "fit.json"))
	if len(ff.Restarts) != 3 || len(ff.Factors) != 0 || ff.Settings.Restarts != 3 || one.Settings.Restarts != 0 {
		t.Fatalf("fit.json: %d restarts, %d factors, settings.restarts %d", len(ff.Restarts), len(ff.Factors), ff.Settings.Restarts)
	}
	for i, rs := range ff.Restarts {
		if rs.Seed != sgvb.RestartSeed(1, i) || rs.Iterations != 500 || len(rs.Factors) != 1 {
			t.Errorf("restart %d: seed %d, %d iterations, %d factors", i, rs.Seed, rs.Iterations, len(rs.Factors))
		}
	}
	p0, p1 := ff.Restarts[0].Factors[0].Params, one.Factors[0].Params
	for i := range p0.Values {
		if p0.Values[i][0] != p1.Values[i][0] {
			t.Errorf("restart 0's %s %v, the single fit's %v", p0.Names[i], p0.Values[i][0], p1.Values[i][0])
		}
	}
	if ff.Restarts[0].ELBO != one.ELBO || ff.Restarts[1].Factors[0].Params.Values[0][0] == p0.Values[0][0] {
		t.Error("restart 0 differs from the single fit, or restart 1 equals it")
	}
	// the mixture's ELBO lies between the restarts' mean and log 3 above it
	mean := 0.0
	for _, rs := range ff.Restarts {
		mean += float64(rs.ELBO) / 3
	}
	if e, se := float64(ff.ELBO), float64(ff.ELBOSE); e < mean-4*se-0.01 || e > mean+math.Log(3)+4*se {
		t.Errorf("mixture ELBO %v ± %v, restarts' mean %v", e, se, mean)
	}

	// draws.csv: a restart__ column, draw d from restart d mod 3, log_g__
	// the mixture's density
	comments, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if got := strings.Join(header, ","); got != "lp__,log_p__,log_g__,restart__,lambda,twice" {
		t.Fatalf("header %s", got)
	}
	if len(rows) != 1+draws || !math.IsNaN(rows[0][3]) {
		t.Fatalf("%d rows, mean row %v", len(rows), rows[0])
	}
	for _, c := range []string{"#     restarts = 3", "# interrupted = 0"} {
		if !containsLine(comments, c) {
			t.Errorf("draws.csv lacks comment %q", c)
		}
	}
	shape, rate := make([]float64, 3), make([]float64, 3)
	for i, rs := range ff.Restarts {
		a, _ := rs.Factors[0].Params.Get("shape")
		b, _ := rs.Factors[0].Params.Get("rate")
		shape[i], rate[i] = float64(a[0]), float64(b[0])
	}
	for d, r := range rows[1:] {
		if int(r[3]) != d%3 {
			t.Fatalf("draw %d from restart %v, want %d", d, r[3], d%3)
		}
		lam, dens := r[4], 0.0
		for i := range shape {
			dens += math.Exp(shape[i]*math.Log(rate[i])-lgamma(shape[i])+(shape[i]-1)*math.Log(lam)-rate[i]*lam) / 3
		}
		if want := math.Log(dens); math.Abs(r[2]-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Fatalf("draw %d: log_g__ %v, the mixture's log density %v", d, r[2], want)
		}
	}

	// summary.csv gains R̂; the posterior has one mode, so the restarts agree
	sum := reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))
	if strings.Join(sum[0], ",") != "name,family,mean,sd,q5,q50,q95,rhat" || len(sum) != 3 {
		t.Fatalf("summary.csv: %v", sum)
	}
	if rh, _ := strconv.ParseFloat(sum[1][7], 64); !(rh > 0.95 && rh < 1.01) {
		t.Errorf("R̂ of lambda %v, want about 1", rh)
	}

	// elbo.csv: every restart's trace
	elbo := reftest.ReadCSV(t, filepath.Join(out, "elbo.csv"))
	if strings.Join(elbo[0], ",") != "restart,iter,elbo,se,seconds" || len(elbo) != 1+3*500/100 || elbo[len(elbo)-1][0] != "2" {
		t.Errorf("elbo.csv: %d rows, header %v", len(elbo), elbo[0])
	}
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// TestFitRestartsOneFails warm-starts restart 1 of three where the log
// density is undefined (log of a negative number): it fails, and the fit
// is the mixture of restarts 0 and 2, which every output names as such.
func TestFitRestartsOneFails(t *testing.T) {
	d := t.TempDir()
	model := filepath.Join(d, "fence.gpp")
	if err := os.WriteFile(model, []byte("param x: real ~ Normal(0, 1)\ntarget += log(5 - x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", model, "--quiet", "--output-draws", "20", "--restarts", "3"}
	first := filepath.Join(d, "first")
	if code, _, stderr := runSafe(t, append(args, "--iter", "300", "--out", first)...); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	ff := readJSONObject(t, filepath.Join(first, "fit.json"))
	bad := ff["restarts"].([]any)[1].(map[string]any)["factors"].([]any)[0].(map[string]any)
	bad["params"] = map[string]any{"mean": []float64{100}, "sd": []float64{0.01}}
	init := filepath.Join(d, "init.json")
	b, err := json.Marshal(ff)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(init, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(d, "second")
	code, stdout, stderr := runSafe(t, append(args, "--init", init, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	seed1 := "1 + 1·2³²" // --seed + r·2³², written as that sum
	if !strings.Contains(stdout, "1  "+seed1+"        —           —  (failed; left out)") {
		t.Errorf("the status table lacks restart 1's failure:\n%s", stdout)
	}
	if !strings.Contains(stderr, "restart 1 (seed "+seed1+"): "+model+":2:11: log: argument") || !strings.Contains(stderr, "the mixture leaves it out (2 of 3 restarts finished)") {
		t.Errorf("stderr lacks the failure's warning:\n%s", stderr)
	}
	restarts := map[string]bool{}
	for _, row := range reftest.ReadCSV(t, filepath.Join(out, "elbo.csv"))[1:] {
		restarts[row[0]] = true
	}
	if len(restarts) != 2 || !restarts["0"] || !restarts["2"] {
		t.Errorf("elbo.csv has restarts %v, want 0 and 2", restarts)
	}
	draws, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# restart 2: seed = 1 + 2·2³², iterations", "# restart 1: seed = " + seed1 + ", failed and left out: " + model + ":2:11: log: argument"} {
		if !bytes.Contains(draws, []byte(want)) {
			t.Errorf("draws.csv's header lacks %q", want)
		}
	}
	var got struct {
		Restarts []struct{ Seed uint64 }
		Warnings []string
	}
	if b, err = os.ReadFile(filepath.Join(out, "fit.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Restarts) != 2 || got.Restarts[1].Seed != sgvb.RestartSeed(1, 2) || !strings.Contains(strings.Join(got.Warnings, "\n"), "the mixture leaves it out") {
		t.Errorf("fit.json: restarts %v, warnings %q", got.Restarts, got.Warnings)
	}
}

// TestFitRestartsInit warm-starts restarts from a mixture's fit.json, and
// refuses it where the number of restarts differs or in the REPL.
func TestFitRestartsInit(t *testing.T) {
	d := t.TempDir()
	first := filepath.Join(d, "first")
	args := []string{"fit", factorModel, factorData, "--set", "K=2", "--quiet", "--output-draws", "20"}
	if code, _, stderr := runSafe(t, append(args, "--iter", "2000", "--restarts", "2", "--out", first)...); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	init := filepath.Join(first, "fit.json")
	code, _, stderr := runSafe(t, append(args, "--iter", "100", "--tol", "0", "--restarts", "2", "--init", init, "--out", filepath.Join(d, "second"))...)
	if code != 0 {
		t.Fatalf("second fit: exit %d: %s", code, stderr)
	}
	e1 := reftest.ReadCSV(t, filepath.Join(first, "elbo.csv"))
	e2 := reftest.ReadCSV(t, filepath.Join(d, "second", "elbo.csv"))
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	for r := range 2 {
		var cold, final, warm float64
		for _, row := range e1[1:] {
			if row[0] == strconv.Itoa(r) {
				if cold == 0 {
					cold = num(row[2])
				}
				final = num(row[2])
			}
		}
		for _, row := range e2[1:] {
			if row[0] == strconv.Itoa(r) && warm == 0 {
				warm = num(row[2])
			}
		}
		if math.Abs(warm-final) > 0.2*math.Abs(cold-final) {
			t.Errorf("restart %d: warm start ELBO %g is not close to the first fit's final %g (cold start %g)", r, warm, final, cold)
		}
	}

	out := filepath.Join(d, "third")
	code, _, stderr = runSafe(t, append(args, "--iter", "100", "--init", init, "--out", out)...)
	if code != 1 || !strings.Contains(stderr, "fit.json:") || !strings.Contains(stderr, "holds a mixture of 2 restarts; warm-start it with --restarts 2") {
		t.Errorf("--init of a mixture without --restarts: exit %d, stderr:\n%s", code, stderr)
	}
	if files := dirEntries(t, out); len(files) > 0 {
		t.Errorf("output written after a failed --init: %v", files)
	}

	r, _, errb := newTestRepl()
	typeIn(r, ":load "+factorModel, ":data "+factorData, ":set K=2", ":fit --restarts 2", ":fit --init "+init)
	if e := errb.String(); !strings.Contains(e, ":fit keeps one q: fit a mixture of restarts with gpp fit --restarts") ||
		!strings.Contains(e, "holds a mixture of 2 restarts, and :fit keeps one q") {
		t.Errorf("REPL errors:\n%s", e)
	}
	if r.fit != nil {
		t.Error("the REPL fitted")
	}
}

// TestFitRestartsJitter: restarts after the first start from jittered
// starts by default; with --jitter 0 restart r is the single fit of its
// seed. fit.json and draws.csv record the jitter.
func TestFitRestartsJitter(t *testing.T) {
	d := t.TempDir()
	args := []string{"fit", poissonModel, poissonData, "--quiet", "--iter", "300", "--tol", "0", "--output-draws", "10"}
	run := func(name string, more ...string) *fitfile.File {
		t.Helper()
		out := filepath.Join(d, name)
		if code, _, stderr := runSafe(t, append(append(args, "--out", out), more...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", more, code, stderr)
		}
		return readFit(t, filepath.Join(out, "fit.json"))
	}
	one := run("one", "--seed", strconv.FormatUint(sgvb.RestartSeed(1, 1), 10))
	same := run("same", "--restarts", "2", "--jitter", "0")
	apart := run("apart", "--restarts", "2")
	rate := func(f []fitfile.Factor) float64 { return float64(f[0].Params.Values[1][0]) }
	if rate(same.Restarts[1].Factors) != rate(one.Factors) {
		t.Errorf("--jitter 0: restart 1's rate %v, the single fit of its seed %v", rate(same.Restarts[1].Factors), rate(one.Factors))
	}
	if rate(apart.Restarts[1].Factors) == rate(one.Factors) || rate(apart.Restarts[0].Factors) != rate(same.Restarts[0].Factors) {
		t.Error("the default jitter did not move restart 1's start, or moved restart 0's")
	}
	if same.Settings.Jitter == nil || *same.Settings.Jitter != 0 || apart.Settings.Jitter == nil || *apart.Settings.Jitter != sgvb.DefaultJitter || one.Settings.Jitter != nil {
		t.Errorf("fit.json settings.jitter: %v, %v, and %v for one fit", same.Settings.Jitter, apart.Settings.Jitter, one.Settings.Jitter)
	}
	if b, err := os.ReadFile(filepath.Join(d, "apart", "draws.csv")); err != nil || !bytes.Contains(b, []byte("\n#     jitter = 1\n")) {
		t.Errorf("draws.csv's header lacks the jitter (%v)", err)
	}
}

func TestFitRestartsBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--restarts", "0"}, "--restarts must be at least 1"},
		{[]string{"--restarts", "2", "--family", "map"}, "--restarts needs SGVB"},
		{[]string{"--restarts", "2", "--jitter", "-1"}, "--jitter must be a finite number ≥ 0, got -1"},
		{[]string{"--restarts", "2", "--jitter", "NaN"}, "--jitter must be a finite number ≥ 0, got NaN"},
		{[]string{"--jitter", "0.5"}, "--jitter moves the starts of restarts after the first: it needs --restarts 2 or more"},
		{[]string{"--restarts", "2", "--init-radius", "-1"}, "--init-radius must be a finite number ≥ 0, got -1"},
		{[]string{"--restarts", "2", "--init-radius", "Inf"}, "--init-radius must be a finite number ≥ 0, got +Inf"},
		{[]string{"--init-radius", "2"}, "--init-radius draws the starts of restarts after the first: it needs --restarts 2 or more"},
		{[]string{"--restarts", "2", "--init-radius", "2", "--jitter", "1"}, "which --jitter moves: give one of them"},
		{[]string{"--restarts", "2", "--init-radius", "2", "--init", "start.json"}, "which --init gives: give one of them"},
	} {
		code, stdout, stderr := runSafe(t, append([]string{"fit", poissonModel, poissonData, "--out", filepath.Join(t.TempDir(), "o")}, c.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s", c.args, code, stderr)
		}
	}
}

// TestFitRestartsCancel: Ctrl-C stops every restart; the mixture of the
// q's reached is written, marked interrupted.
func TestFitRestartsCancel(t *testing.T) {
	out, _, stderr := fitCancelled(t, false, poissonModel, poissonData, "--iter", "1000000", "--tol", "0", "--output-draws", "10", "--restarts", "2")
	ff := readFit(t, filepath.Join(out, "fit.json"))
	if !ff.Interrupted || len(ff.Restarts) != 2 || !math.IsNaN(float64(ff.ELBO)) {
		t.Errorf("fit.json: interrupted %v, %d restarts, ELBO %v", ff.Interrupted, len(ff.Restarts), ff.ELBO)
	}
	comments, _, _ := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if !containsLine(comments, "# interrupted = 1") || !strings.Contains(stderr.String(), "mixture of the q's reached") {
		t.Errorf("draws.csv comments %q\nstderr:\n%s", comments, stderr.String())
	}
}

// fitWarnings gives a warning the restarts share once, names the restarts
// of the others, and leaves out each restart's own Pareto k̂ warning.
func TestFitWarnings(t *testing.T) {
	conv := "did not converge in 100 iterations (relative ELBO tolerance 0.0001)"
	c := func(k float64, ws ...string) *sgvb.Result {
		return &sgvb.Result{ParetoK: k, Warnings: append(ws, sgvb.ParetoWarning(k, math.NaN(), "q"))}
	}
	// restarts 1 and 4 failed: the others keep their numbers
	m := &sgvb.Mixture{Components: []*sgvb.Result{c(0.9, conv), c(1.2, conv, "x"), c(2, conv, "x"), c(0.3, conv)},
		Restarts: []int{0, 2, 3, 5}, Warnings: []string{sgvb.ParetoWarning(1.5, math.NaN(), "the mixture")}}
	m.Components[3].Warnings = m.Components[3].Warnings[:1] // k̂ 0.3: no warning
	got := strings.Join(fitWarnings(nil, m), "\n")
	want := "every restart: " + conv + "\nrestarts 2, 3: x\n" + sgvb.ParetoWarning(1.5, math.NaN(), "the mixture")
	if got != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
	}
}
