package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
)

// sampleSession loads the gamma–Poisson model and its counts into a new
// session and runs :sample with flags; it returns the session, its
// streams, and what the :sample printed.
func sampleSession(t *testing.T, flags string) (r *repl, out, errb *bytes.Buffer, printed string) {
	t.Helper()
	r, out, errb = newTestRepl()
	typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv")
	out.Reset()
	typeIn(r, ":sample --quiet "+flags)
	printed = out.String()
	out.Reset()
	return r, out, errb, printed
}

// TestReplSample checks :sample on the gamma–Poisson model: gpp sample's
// table (a row per param and output element) and draws line, no file
// written, the same draws for the same seed and others for another; the
// posterior mean within 4 MCSE of the exact Gamma(37, 10.5)'s; the
// queries and :show answering from the draws until a :fit, then from its
// q; :predict refused over draws.
func TestReplSample(t *testing.T) {
	const flags = "--chains 2 --warmup 300 --draws 500 --seed 3"
	wd, _ := os.Getwd()
	before, _ := os.ReadDir(wd)
	r, out, errb, printed := sampleSession(t, flags)
	if r.sample == nil || r.sample.n != 1 {
		t.Fatalf("no sample kept; errors:\n%s", errb)
	}
	lines := strings.Split(printed, "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "name mean mcse sd 5% 50% 95% ess_bulk ess_tail R̂" {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "lambda ") || !strings.HasPrefix(lines[2], "twice ") || len(strings.Fields(lines[1])) != 10 {
		t.Errorf("rows:\n%s", printed)
	}
	if !strings.Contains(printed, "\ndraws        2 chains × 500 (warm-up 300, thin 1), NUTS, seed 3\n") || strings.Contains(printed, "written") {
		t.Errorf("output:\n%s", printed)
	}
	if after, _ := os.ReadDir(wd); len(after) != len(before) {
		t.Errorf(":sample without --out wrote files: %d entries in the directory, were %d", len(after), len(before))
	}
	if _, _, _, again := sampleSession(t, flags); again != printed {
		t.Errorf("the same seed gave another table:\n%s\nthen\n%s", printed, again)
	}
	if _, _, _, other := sampleSession(t, "--chains 2 --warmup 300 --draws 500 --seed 4"); other == printed {
		t.Errorf("seeds 3 and 4 gave the same table:\n%s", other)
	}

	run := r.sample.run
	c := run.sd.ds.vars[0].first // lambda
	st, ms := run.st[c], run.ms[c]
	if want := 37 / 10.5; math.Abs(st.mean-want) > 4*ms.mcse {
		t.Errorf("mean(lambda) %.5g, exact %.5g: off by more than 4 MCSE (%.3g)", st.mean, want, ms.mcse)
	}
	col := run.sd.ds.cols[c]
	for _, q := range []struct{ in, want string }{
		{"mean(lambda)", num3(st.mean)},
		{"sd(lambda)", num3(st.sd)},
		{"quantile(lambda, 0.9)", num3(drawQuantile(col, 0.9))},
		{"mean(2 * lambda)", num3(2 * st.mean)},
		{"mean(lambda > 100)", "0"},
	} {
		out.Reset()
		typeIn(r, q.in)
		if got := strings.TrimSpace(out.String()); got != q.want {
			t.Errorf("%s = %q after :sample, want %q (from the draws); errors:\n%s", q.in, got, q.want, errb)
		}
	}
	out.Reset()
	typeIn(r, ":show")
	if !strings.HasPrefix(out.String(), "NUTS draws of sample 1 (2 chains × 500), the session's last result:\n") || !strings.Contains(out.String(), "\nlambda ") {
		t.Errorf(":show after :sample:\n%s", out)
	}
	errb.Reset()
	typeIn(r, ":predict testdata/repl_counts.csv")
	if !strings.Contains(errb.String(), ":predict evaluates the outputs at draws of a fit's q, and the session's last result is sample 1") || !r.failed {
		t.Errorf(":predict after :sample: %s", errb)
	}

	typeIn(r, ":fit --quiet --seed 1")
	if r.sample != nil || r.fit == nil {
		t.Fatalf("after :fit: sample %v, fit %v", r.sample, r.fit)
	}
	out.Reset()
	typeIn(r, ":show", "mean(lambda)")
	f := r.fit.res.Factor("lambda")
	if !strings.HasPrefix(out.String(), "q of fit 1, the session's last result:\n") || !strings.HasSuffix(out.String(), "\n"+num3(f.Mean()[0])+"\n") {
		t.Errorf(":show and mean(lambda) after :fit:\n%s", out)
	}
	typeIn(r, ":sample --quiet "+flags)
	if r.sample == nil || r.sample.n != 2 {
		t.Fatalf("no second sample kept; errors:\n%s", errb)
	}
	// :undo past the step before both goes back to no fit and no sample.
	typeIn(r, "param extra: real ~ Normal(0, 1)")
	if r.sample == nil {
		t.Fatal("a statement dropped the sample")
	}
	out.Reset()
	typeIn(r, "extra")
	if !strings.Contains(errb.String(), "the model's params changed since the last :sample (`extra` is new): the sample is of another model; run :sample again") {
		t.Errorf("a query of a changed model: %s", errb)
	}
}

// TestReplSampleLast checks :sample --init last and --against last: the
// start line names the session's fit, the comparison table follows, and
// the draws are the same twice.
func TestReplSampleLast(t *testing.T) {
	session := func() (*repl, string) {
		r, out, errb := newTestRepl()
		typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv", ":fit --quiet --seed 2")
		out.Reset()
		typeIn(r, ":sample --quiet --chains 2 --warmup 200 --draws 300 --init last --against last")
		if r.sample == nil {
			t.Fatalf("no sample; errors:\n%s", errb)
		}
		return r, out.String()
	}
	r, printed := session()
	for _, want := range []string{
		"\nstart        chain c from draw c of q of fit 1, the session's last\n",
		"\nq of fit 1, the session's last, against NUTS (z = (q mean − mean)/sd, sd ratio = q sd / sd):\n",
		"\nlambda ", "\nagainst      ",
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("no %q in\n%s", want, printed)
		}
	}
	if _, again := session(); again != printed {
		t.Errorf("--init last gave other draws:\n%s\nthen\n%s", printed, again)
	}
	if r.fit == nil || r.fit.n != 1 {
		t.Errorf(":sample changed the session's fit")
	}
}

// TestReplSampleErrors types :sample's refusals (testdata/
// repl_sample_errors.in; a transcript, as TestReplSession's).
func TestReplSampleErrors(t *testing.T) {
	replTranscript(t, "repl_sample_errors", exitError)
}

// TestReplSampleInterrupt checks that Ctrl-C stops a running :sample, not
// the session: the draws so far are kept, marked interrupted, and queried.
func TestReplSampleInterrupt(t *testing.T) {
	r, out, errb := newTestRepl()
	var sigs chan<- os.Signal
	r.notify = func(c chan<- os.Signal) func() { sigs = c; return func() {} }
	var past [2]atomic.Bool // each chain past 300 iterations: 100 draws kept
	var once sync.Once
	r.afterSampleIter = func(chain, iter int) {
		if iter > 300 {
			past[chain].Store(true)
		}
		if past[0].Load() && past[1].Load() {
			once.Do(func() { sigs <- os.Interrupt })
		}
	}
	typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv",
		":sample --quiet --chains 2 --warmup 200 --draws 1000000")
	if r.sample == nil || !r.sample.run.sd.interrupted {
		t.Fatalf("no interrupted sample kept; errors:\n%s", errb)
	}
	if n := r.sample.run.sd.n; n < 100 || n >= 1000000 {
		t.Errorf("%d draws a chain kept, want at least 100 and not all", n)
	}
	e := errb.String()
	if !strings.Contains(e, "interrupted: stopping the chains; the session keeps the draws so far") ||
		!strings.Contains(e, fmt.Sprintf("interrupted: the session keeps the first %d draws of each chain", r.sample.run.sd.n)) {
		t.Errorf("errors:\n%s", e)
	}
	out.Reset()
	typeIn(r, "mean(lambda)")
	if v, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64); err != nil || !(v > 0) {
		t.Errorf("mean(lambda) after the interrupted sample: %q; errors:\n%s", out, errb)
	}
}

// farModel writes a normal model whose posterior lies far from 0 on the
// unconstrained scale (20 data near 500): Stan's uniform(−2, 2) starts
// need a long warm-up to get there. It returns the model, the data and
// the data's mean.
func farModel(t *testing.T, dir string) (model, data string, mean float64) {
	t.Helper()
	model, data = filepath.Join(dir, "far.gpp"), filepath.Join(dir, "far.csv")
	src := "data N: int\ndata y: real[N]\nparam mu: real ~ Normal(0, 1000)\nparam sigma: positive ~ HalfNormal(100)\ny ~ Normal(mu, sigma)\n"
	var b strings.Builder
	b.WriteString("y\n")
	for i := range 20 {
		v := 500 + 5*math.Sin(float64(3*i+1))
		mean += v / 20
		fmt.Fprintf(&b, "%.17g\n", v)
	}
	if os.WriteFile(model, []byte(src), 0o644) != nil || os.WriteFile(data, []byte(b.String()), 0o644) != nil {
		t.Fatal("cannot write the model")
	}
	return model, data, mean
}

// fitInitStart fits model to data with fitArgs into fitDir and reads the
// fit back as gpp sample --init does: the model loaded, the fit's starts,
// the unconstrained coordinates they are in, and the fit's draws.csv rows.
func fitInitStart(t *testing.T, model, data, fitDir string, fitArgs ...string) (*pipeline.Loaded, *initFit, *sgvb.Unconstrained, []map[string]float64) {
	t.Helper()
	args := append([]string{"fit", model, data, "--quiet", "--out", fitDir}, fitArgs...)
	if code, _, e := runGpp(args...); code != 0 {
		t.Fatalf("fit: exit %d\n%s", code, e)
	}
	l, err := pipeline.Load(model, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start, err := readInitFit(fitDir, l, nil, sources{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	return l, start, u, readDrawsCSV(t, filepath.Join(fitDir, drawsFile))
}

// TestSampleInitStarts checks gpp sample --init FIT: chain c starts at
// draw c of the fit's draws.csv (after its row of q's mean), on the unconstrained scale (mu as it is,
// log sigma); from there a 60-iteration warm-up converges (R̂ below 1.05,
// mu's mean within 4 MCSE of the data's mean, which the wide prior hardly
// moves), and the same seed gives the same draws.
func TestSampleInitStarts(t *testing.T) {
	dir := t.TempDir()
	model, data, ybar := farModel(t, dir)
	fitDir := filepath.Join(dir, "fit")
	_, start, u, rows := fitInitStart(t, model, data, fitDir, "--init", "path", "--seed", "2")
	if rows[0]["lp__"] != 0 || rows[1]["log_p__"] == 0 {
		t.Fatalf("the fit's draws.csv does not start with the mean's row: %v", rows[:2])
	}
	starts := start.starts(u)
	z := make([]float64, u.Dim())
	for c := range 4 {
		if err := starts(c, z); err != nil {
			t.Fatal(err)
		}
		mu, sigma := rows[c+1]["mu"], rows[c+1]["sigma"] // row 0 is q's mean (lp__ 0), as CmdStan's ADVI writes it
		if math.Abs(z[0]-mu) > 1e-5*math.Abs(mu) || math.Abs(z[1]-math.Log(sigma)) > 1e-5 {
			t.Errorf("chain %d starts at %v, want draw %d of the fit's draws.csv: mu %v, log sigma %v", c+1, z, c+1, mu, math.Log(sigma))
		}
	}

	sample := func(out string, init ...string) (map[string]map[string]float64, string) {
		args := append([]string{"sample", model, data, "--quiet", "--warmup", "60", "--draws", "200", "--seed", "3", "--out", out}, init...)
		code, stdout, e := runGpp(args...)
		if code != 0 {
			t.Fatalf("sample: exit %d\n%s", code, e)
		}
		if len(init) > 0 && !strings.Contains(stdout, "\nstart        chain c from draw c of q of the fit at "+fitDir+"\n") {
			t.Errorf("no start line:\n%s", stdout)
		}
		draws, err := os.ReadFile(filepath.Join(out, drawsFile))
		if err != nil {
			t.Fatal(err)
		}
		return readSummaryCSV(t, filepath.Join(out, summaryFile)), withoutTimes(string(draws))
	}
	sum, draws := sample(filepath.Join(dir, "s1"), "--init", fitDir)
	for _, name := range []string{"mu", "sigma"} {
		if rh := sum[name]["rhat"]; !(rh < 1.05) {
			t.Errorf("%s: R̂ %.3f from the fit's draws after 60 warm-up iterations, want below 1.05", name, rh)
		}
	}
	if m, se := sum["mu"]["mean"], sum["mu"]["mcse_mean"]; math.Abs(m-ybar) > 4*se {
		t.Errorf("mean(mu) %.5g, data mean %.5g: off by more than 4 MCSE (%.3g)", m, ybar, se)
	}
	if _, again := sample(filepath.Join(dir, "s2"), "--init", fitDir); again != draws {
		t.Error("the same seed and --init gave other draws")
	}
	uni, _ := sample(filepath.Join(dir, "s3"))
	t.Logf("R̂ after 60 warm-up iterations: from the fit mu %.3f sigma %.3f; from uniform(-2, 2) mu %.3f sigma %.3f",
		sum["mu"]["rhat"], sum["sigma"]["rhat"], uni["mu"]["rhat"], uni["sigma"]["rhat"])
}

// readDrawsCSV reads a draws.csv's rows by column name, comments skipped.
func readDrawsCSV(t *testing.T, path string) []map[string]float64 {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(strings.NewReader(stripComments(string(src))))
	recs, err := cr.ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v", path, err)
	}
	var rows []map[string]float64
	for _, rec := range recs[1:] {
		row := map[string]float64{}
		for i, name := range recs[0] {
			row[name], _ = strconv.ParseFloat(rec[i], 64)
		}
		rows = append(rows, row)
	}
	return rows
}

// TestReplSampleOut checks :sample --out: gpp sample's files are written
// (and nothing else left in the directory), the summary says so, and gpp
// predict reads the sample back with the session's saved model, giving
// the sample's own values of lambda.
func TestReplSampleOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s")
	r, _, errb, printed := sampleSession(t, "--chains 2 --warmup 150 --draws 100 --seed 5 --out "+out)
	if r.sample == nil {
		t.Fatalf("no sample; errors:\n%s", errb)
	}
	if !strings.Contains(printed, "\nwritten      "+out+": summary.csv draws.csv coords.csv\n") {
		t.Errorf("output:\n%s", printed)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "coords.csv draws.csv summary.csv" {
		t.Errorf("files in --out: %v", names)
	}
	model := filepath.Join(dir, "m.gpp")
	typeIn(r, ":save "+model)
	code, _, e := runGpp("predict", out, model, "testdata/repl_counts.csv", "--quiet", "--out", filepath.Join(dir, "p"))
	if code != 0 {
		t.Fatalf("gpp predict of the sample: exit %d\n%s", code, e)
	}
	got, want := readSummaryCSV(t, filepath.Join(dir, "p", summaryFile)), readSummaryCSV(t, filepath.Join(out, summaryFile))
	if got["lambda"]["mean"] != want["lambda"]["mean"] || got["lambda"]["sd"] != want["lambda"]["sd"] {
		t.Errorf("gpp predict's lambda %v, the sample's %v", got["lambda"], want["lambda"])
	}
}

// TestReplSampleFitUndo checks :undo of a step followed by :sample and then
// :fit: the sample made before the step comes back, and the notes say that
// the :fit goes, not the :sample.
func TestReplSampleFitUndo(t *testing.T) {
	r, _, errb := newTestRepl()
	typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv",
		":sample --quiet --chains 2 --warmup 100 --draws 100 --seed 1",
		"param extra: real ~ Normal(0, 1)", ":fit --quiet --seed 1")
	errb.Reset()
	typeIn(r, ":undo")
	if r.sample == nil || r.sample.n != 1 || r.fit != nil {
		t.Fatalf("after :undo: sample %v, fit %v; errors:\n%s", r.sample, r.fit, errb)
	}
	if want := "note: the last :fit, made after it, goes too: sample 1 the session had before is back\n"; !strings.HasSuffix(errb.String(), want) || strings.Contains(errb.String(), ":sample, made after it") {
		t.Errorf(":undo notes:\n%s\nwant only %q", errb, want)
	}
}

// TestReplSampleDropped checks that :undo's history lets go of a sample
// more than replFitSteps steps back, as of a fit, and that :undo to it
// says the sample (not a fit) is no longer kept.
func TestReplSampleDropped(t *testing.T) {
	r, _, errb := newTestRepl()
	typeIn(r, ":load testdata/repl_model.gpp", ":data testdata/repl_counts.csv",
		":sample --quiet --chains 2 --warmup 100 --draws 100 --seed 1",
		"let q1 = lambda", ":fit --quiet --seed 1")
	for i := range replFitSteps {
		typeIn(r, fmt.Sprintf("let b%d = lambda", i))
	}
	if s := r.steps[len(r.steps)-replFitSteps-1]; s.before.sample != nil || !s.sampleDropped || s.fitDropped {
		t.Fatalf("step %q: sample %v, dropped %v, fit dropped %v; errors:\n%s", s.what, s.before.sample, s.sampleDropped, s.fitDropped, errb)
	}
	errb.Reset()
	for range replFitSteps + 1 {
		typeIn(r, ":undo")
	}
	if want := "gpp: note: the sample the session had before it is no longer kept (:undo keeps the samples of the last 10 steps): run :sample\n"; r.sample != nil || !strings.HasPrefix(errb.String(), want) || strings.Contains(errb.String(), "the fit the session had before it is no longer kept") {
		t.Errorf("sample %v, errors:\n%s\nwant first:\n%s", r.sample, errb, want)
	}
}

// TestSampleInitRestarts checks gpp sample --init from a fit of restarts:
// chain c starts at draw c of the fit's draws.csv, which is of restart
// (c − 1) mod 2 (its restart__ column); at seed 1 the mixture example's
// two restarts found the components in the two orders, so chains 1 and 2
// start in different labellings, and the sample's R̂ warning names the
// label switching that keeps them there.
func TestSampleInitRestarts(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join("..", "..", "examples", "mixture.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	fitDir := filepath.Join(dir, "fit")
	l, start, u, rows := fitInitStart(t, model, data, fitDir, "--restarts", "2", "--seed", "1")
	if start.mix == nil || len(start.mix.Components) != 2 {
		t.Fatalf("--init read no mixture of 2 restarts: %+v", start)
	}
	mu := latentNamed(l.Model, "mu")
	starts := start.starts(u)
	z, x := make([]float64, u.Dim()), make([]float64, u.TargetDim())
	var first [][2]float64 // mu at chain c's start
	for c := range 4 {
		if err := starts(c, z); err != nil {
			t.Fatal(err)
		}
		u.Coords(z, x)
		row := rows[c+1] // row 0 is the mixture's mean
		if got := int(row["restart__"]); got != c%2 || start.component(c) != c%2 {
			t.Errorf("chain %d: draw %d of the fit is of restart %d, the start of component %d; want %d", c+1, c+1, got, start.component(c), c%2)
		}
		m := [2]float64{x[mu.Offset], x[mu.Offset+1]}
		for k, v := range m {
			want := row[fmt.Sprintf("mu.%d", k+1)]
			if math.Abs(v-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("chain %d starts with mu[%d] %v, want draw %d of the fit's draws.csv: %v", c+1, k+1, v, c+1, want)
			}
		}
		first = append(first, m)
	}
	if (first[0][0] < first[0][1]) == (first[1][0] < first[1][1]) || (first[0][0] < first[0][1]) != (first[2][0] < first[2][1]) {
		t.Errorf("the chains' starts of mu %v: want chains 1 and 3 in one order (restart 0), 2 and 4 in the other (restart 1)", first)
	}
	code, stdout, e := runGpp("sample", model, data, "--quiet", "--warmup", "150", "--draws", "150", "--init", fitDir, "--out", filepath.Join(dir, "s"))
	if code != 0 {
		t.Fatalf("sample: exit %d\n%s", code, e)
	}
	if want := "\nstart        chain c from draw c of the mixture of 2 restarts of the fit at " + fitDir + ", of restart (c − 1) mod 2\n"; !strings.Contains(stdout, want) {
		t.Errorf("no line %q:\n%s", want, stdout)
	}
	if !strings.Contains(e, "(label switching: chain 2 holds chain 1's in another order") {
		t.Errorf("chains started in the two labellings, but no label switching named:\n%s", e)
	}
}

// TestReplSampleAgainstNames checks that :sample --against last names
// elements 0-based, as the REPL's other tables and gpp sample do (beta[0],
// beta[1]; 1-based names would show a beta[2] the model lacks),
// also in its summary line, and that the rows it leaves out point to
// --verbose, since no against.csv is written.
func TestReplSampleAgainstNames(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, ":load ../../examples/regression.gpp", ":data ../../examples/wine_std.csv", ":fit --quiet")
	out.Reset()
	typeIn(r, ":sample --quiet --chains 2 --warmup 150 --draws 150 --against last")
	if r.sample == nil {
		t.Fatalf("no sample; errors:\n%s", errb)
	}
	_, vs, ok := strings.Cut(out.String(), "\nq of fit 1, the session's last, against NUTS")
	if !ok {
		t.Fatalf("no comparison in\n%s", out)
	}
	for _, want := range []string{"\nbeta[0] ", "\nbeta[1] ", "\nproline_rep[0] ", "\n... 158 more elements of proline_rep (:sample --verbose shows all)\n"} {
		if !strings.Contains(vs, want) {
			t.Errorf("no %q in\n%s", want, vs)
		}
	}
	if strings.Contains(vs, "beta[2]") || strings.Contains(vs, "proline_rep[178]") || strings.Contains(vs, "against.csv") {
		t.Errorf("1-based names or a file not written in\n%s", vs)
	}

	// with --out, against.csv is written as gpp sample --against writes it,
	// by the same 0-based names, and the note names it
	dir := filepath.Join(t.TempDir(), "s")
	out.Reset()
	typeIn(r, ":sample --quiet --chains 2 --warmup 150 --draws 150 --against last --out "+dir)
	rows := reftest.ReadCSV(t, filepath.Join(dir, againstFile))
	if len(rows) != 185 || rows[2][0] != "beta[0]" || rows[3][0] != "beta[1]" {
		t.Errorf("against.csv: %d rows, names %v", len(rows), rows[1:4])
	}
	if want := "(all in " + filepath.Join(dir, againstFile) + ")"; !strings.Contains(out.String(), want) {
		t.Errorf("no %q in\n%s", want, out)
	}
}

// TestReplShowLaplace: :show after :fit --family laplace says the params'
// joint normal is the Laplace approximation, not a --fullrank fit (which
// --family laplace refuses), and :fit's table names the family laplace.
func TestReplShowLaplace(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, ":load ../../examples/regression.gpp", ":data ../../examples/wine_std.csv", ":fit --quiet --family laplace")
	if !laplaceRow.MatchString(out.String()) {
		t.Errorf(":fit's table lacks the family laplace:\n%s%s", out, errb)
	}
	out.Reset()
	typeIn(r, ":show")
	got := out.String()
	if !strings.Contains(got, "\nalpha, beta, sigma: one joint normal N(mode, (-H)^-1), the Laplace approximation (--family laplace)\n") || strings.Contains(got, "--fullrank") {
		t.Errorf(":show after a Laplace fit:\n%s%s", got, errb)
	}
}

// TestReplAgainstLastLabel: :sample --against last names the session's
// last fit's q in intervals.png's legend as gpp sample --against FIT does,
// "Laplace q" after :fit --family laplace and "SGVB q" after a default fit.
func TestReplAgainstLastLabel(t *testing.T) {
	r, _, errb := newTestRepl()
	typeIn(r, ":load ../../examples/regression.gpp", ":data ../../examples/wine_std.csv")
	for _, c := range []struct{ fit, want string }{{":fit --quiet --family laplace", "Laplace q"}, {":fit --quiet", "SGVB q"}} {
		typeIn(r, c.fit)
		if r.fit == nil {
			t.Fatalf("%s: no fit; errors:\n%s", c.fit, errb)
		}
		l, err := r.boundModel()
		if err != nil {
			t.Fatal(err)
		}
		af, err := r.againstLastFit(l.Model)
		if err != nil {
			t.Fatal(err)
		}
		if got := af.qLabel(); got != c.want {
			t.Errorf("after %s: q labelled %q, want %q", c.fit, got, c.want)
		}
	}
}
