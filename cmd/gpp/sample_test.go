package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// runGpp runs gpp with args and returns its exit code, stdout and stderr.
func runGpp(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// withoutTimes drops draws.csv's elapsed-time lines, the one part of it
// that is not a function of the seed.
func withoutTimes(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "seconds (") && !strings.HasPrefix(l, "#   file = ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestSampleDeterministic: the same seed gives the same draws.csv and
// summary.csv with one worker and with two (each chain's numbers come from
// the seed and the chain alone), and another seed gives other draws.
func TestSampleDeterministic(t *testing.T) {
	dir := t.TempDir()
	read := func(out string) (string, string) {
		d, err := os.ReadFile(filepath.Join(out, drawsFile))
		if err != nil {
			t.Fatal(err)
		}
		s, err := os.ReadFile(filepath.Join(out, summaryFile))
		if err != nil {
			t.Fatal(err)
		}
		return withoutTimes(string(d)), string(s)
	}
	var draws, sums []string
	for i, c := range []struct{ workers, seed string }{{"1", "3"}, {"2", "3"}, {"1", "4"}} {
		out := filepath.Join(dir, strconv.Itoa(i))
		code, _, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "100", "--draws", "100",
			"--workers", c.workers, "--seed", c.seed, "--quiet", "--out", out)
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		d, s := read(out)
		draws, sums = append(draws, d), append(sums, s)
	}
	if draws[0] != draws[1] || sums[0] != sums[1] {
		t.Errorf("--workers 1 and 2 with the same seed wrote different draws.csv or summary.csv")
	}
	if draws[0] == draws[2] {
		t.Errorf("seeds 3 and 4 wrote the same draws.csv")
	}
	// the layout: 2 chains × 100 draws, Stan's columns first
	r := csv.NewReader(strings.NewReader(stripComments(draws[0])))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "chain__,draw__,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,lambda,twice"
	if got := strings.Join(rows[0], ","); got != want {
		t.Errorf("draws.csv header %q, want %q", got, want)
	}
	if len(rows) != 1+200 {
		t.Errorf("draws.csv has %d rows of draws, want 200", len(rows)-1)
	}
	for _, row := range rows[1:] {
		l, _ := strconv.ParseFloat(row[9], 64)
		tw, _ := strconv.ParseFloat(row[10], 64)
		if !(l > 0) || math.Abs(tw-2*l) > 1e-5*tw {
			t.Fatalf("row %v: lambda %v not positive or the output twice %v not 2·lambda", row, l, tw)
		}
	}
}

// stripComments drops CSV comment lines (#).
func stripComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") && l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestSampleMissingData: a missing value of real data is sampled as the
// param NAME_missing, as gpp fit fits it, and draws.csv's header says which
// cell it is.
func TestSampleMissingData(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gpp")
	csvPath := filepath.Join(dir, "d.csv")
	os.WriteFile(model, []byte("data y: real[N]\nparam mu: real ~ Normal(0, 10)\ny ~ Normal(mu, 1)\noutput ybar = mean(y)\n"), 0o644) // the output keeps y_missing fitted, not summed out
	os.WriteFile(csvPath, []byte("y\n1.0\n\n2.0\n1.5\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runGpp("sample", model, csvPath, "--chains", "2", "--warmup", "200", "--draws", "200", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "y_missing") {
		t.Errorf("no y_missing in the summary:\n%s", stdout)
	}
	d, _ := os.ReadFile(filepath.Join(out, drawsFile))
	if !strings.Contains(string(d), "# y_missing = y at ") {
		t.Errorf("draws.csv does not say which cell y_missing is:\n%s", d[:min(len(d), 600)])
	}
}

// TestSampleWarnings: Stan's warnings from the sampler's columns, on
// made-up draws: divergences, the maximum tree depth, a low E-BFMI, a high
// R̂ and a low ESS (the worst named), a short warm-up.
func TestSampleWarnings(t *testing.T) {
	const chains, n = 2, 100
	total := chains * n
	sd := &sampleDraws{n: n, chains: chains, res: &nuts.Result{Chains: make([]nuts.Chain, chains)},
		divergent: make([]bool, total), depth: make([]int, total), energy: make([]float64, total)}
	sd.ds = &drawSet{vars: []variable{{name: "a", elems: []int{0}}, {name: "b", shape: []int{2}, elems: []int{0, 1}, first: 1}}, ncol: 3}
	for d := range total {
		sd.divergent[d] = d%50 == 0           // 4
		sd.depth[d] = 3 + 7*b2iInt(d%20 == 0) // 10 at 10 draws
		sd.energy[d] = float64(d % 2)         // chain 1 and 2 alternate: E-BFMI 2
	}
	for d := n; d < total; d++ {
		sd.energy[d] = float64(d) // chain 2 drifts: E-BFMI near 0
	}
	ms := []mcmcStats{{rhat: 1.002, essBulk: 900, essTail: 800}, {rhat: 1.08, essBulk: 150, essTail: 90}, {rhat: 1.02, essBulk: 500, essTail: 300}}
	got := strings.Join(sampleWarnings(sd, nuts.Settings{MaxDepth: 10, Delta: 0.8, Warmup: 100}, ms, nil, divAdvice{}), "\n")
	for _, want := range []string{
		"4 of 200 (2%) transitions after warm-up ended with a divergence",
		"10 of 200 (5%) transitions hit the maximum tree depth 10",
		"E-BFMI below 0.3 (chain 2: ",
		"2 elements with R̂ above 1.01, the chains disagree (the worst: b[0] 1.080, b[1] 1.020)",
		"1 element with a bulk or tail ESS below 100 per chain (200 in all; the worst: b[0] 90)",
		"--warmup 100 is shorter than 150 iterations",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "chain 1:") {
		t.Errorf("chain 1's E-BFMI is fine, but warned of:\n%s", got)
	}
}

// TestSampleStuckChain: a chain whose every lp__ lies below all of the
// others' is named (the SIR model's chain that stays where the epidemic
// never takes off); chains whose lp__ overlap, however far apart their
// means, and chains too short to judge are not.
func TestSampleStuckChain(t *testing.T) {
	const chains, n = 3, 40
	sd := &sampleDraws{n: n, chains: chains, res: &nuts.Result{Chains: make([]nuts.Chain, chains)}, ds: &drawSet{logp: make([]float64, chains*n)}}
	for d := range sd.ds.logp {
		sd.ds.logp[d] = -74 + float64(d%7)/3 // chains 1 and 3 between -74 and -72
	}
	for d := n; d < 2*n; d++ {
		sd.ds.logp[d] = -30493 + float64(d%5) // chain 2 far below
	}
	got := stuckChains(sd)
	if len(got) != 1 || !strings.HasPrefix(got[0], "chain 2 never reached the log density of the other chains (its lp__ at most -30489, theirs at least -74)") {
		t.Errorf("stuck chain 2: got %q", got)
	}
	sd.ds.logp[n] = -73 // one draw of chain 2 among the others': not stuck
	if got := stuckChains(sd); len(got) != 0 {
		t.Errorf("overlapping chains: got %q", got)
	}
	sd.ds.logp[n] = -30493
	short := &sampleDraws{n: 5, chains: chains, res: sd.res, ds: &drawSet{logp: sd.ds.logp[:3*5]}}
	if got := stuckChains(short); len(got) != 0 {
		t.Errorf("chains of 5 draws: got %q", got)
	}
}

func b2iInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSampleHardExitKeepsEarlier: gpp sample's outputs are written whole
// or not at all. With the new files staged, a second SIGTERM exits at once:
// the earlier run's summary.csv, draws.csv and coords.csv are left as they
// were, and no temporary file or lock.
func TestSampleHardExitKeepsEarlier(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sample", poissonModel, poissonData, "--chains", "2", "--warmup", "50", "--draws", "50", "--quiet", "--out", out}
	if code, _, stderr := runGpp(args...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	before := map[string]string{}
	for _, f := range []string{summaryFile, drawsFile, coordsFile} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = string(b)
	}
	cmd, stderr, interrupted := startHelper(t, "sample", append(args[1:], "--seed", "9")...)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-interrupted:
	case <-time.After(30 * time.Second):
	}
	time.Sleep(interruptGrace + 100*time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd); code != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	got := dirEntries(t, out)
	if strings.Join(got, " ") != "coords.csv draws.csv summary.csv" {
		t.Errorf("left in %s: %v, want the earlier run's coords.csv, draws.csv and summary.csv alone", out, got)
	}
	for f, b := range before {
		a, _ := os.ReadFile(filepath.Join(out, f))
		if string(a) != b {
			t.Errorf("%s changed although the run was stopped before its commit", f)
		}
	}
}

// The posteriordb references: NUTS reference summaries of 10 000 draws
// (posteriordb's reference posteriors, thinned to near-independent draws).
const refDraws = 10000

// samplePosteriorDB samples a posteriordb model with gpp sample's defaults
// (4 chains of 1000 after 1000 warm-up iterations) and compares every
// reference element: its mean within 3 standard errors of the difference,
// √(mcse² + ref_sd²/10000) (ours and the reference's Monte Carlo errors),
// and its sd within 10 % (the relative error of an sd estimate from an
// ESS of 400 or more is at most 1/√(2·400) = 3.5 %, so 10 % is about 3 of
// them).
func samplePosteriorDB(t *testing.T, model, dataDir string) {
	if testing.Short() {
		t.Skip("samples a model")
	}
	ref := shareddata.Path(t, "posteriordb", dataDir, "reference_summary.csv")
	dataPath := shareddata.Path(t, "posteriordb", dataDir, "data.json")
	out := t.TempDir()
	code, _, stderr := runGpp("sample", filepath.Join("../../examples/posteriordb", model), dataPath, "--quiet", "--out", out, "--seed", "1")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	t.Logf("stderr:\n%s", stderr)
	got := map[string]map[string]float64{} // by Stan's 1-based name, as the reference names the elements
	for name, row := range readSummaryCSV(t, filepath.Join(out, summaryFile)) {
		got[stanNameOf(t, name)] = row
	}
	refRows := readSummaryCSV(t, ref)
	for name, r := range refRows {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: not in summary.csv", name)
			continue
		}
		se := math.Sqrt(g["mcse_mean"]*g["mcse_mean"] + r["sd"]*r["sd"]/refDraws)
		t.Logf("%-9s mean %9.4f ± %.4f (NUTS ref %9.4f)  sd %8.4f (ref %8.4f)  ess_bulk %.0f  R̂ %.3f", name, g["mean"], g["mcse_mean"], r["mean"], g["sd"], r["sd"], g["ess_bulk"], g["rhat"])
		if !(math.Abs(g["mean"]-r["mean"]) <= 3*se) {
			t.Errorf("%s: mean %.4f, reference %.4f: %.1f standard errors (%.4f) off, want at most 3", name, g["mean"], r["mean"], math.Abs(g["mean"]-r["mean"])/se, se)
		}
		if ratio := g["sd"] / r["sd"]; !(math.Abs(ratio-1) <= 0.1) {
			t.Errorf("%s: sd %.4f, reference %.4f (ratio %.3f), want within 10 %%", name, g["sd"], r["sd"], ratio)
		}
	}
}

// stanNameOf is Stan's 1-based name of the element that gpp names name
// 0-based: theta[0] → theta[1], W[1, 0] → W[2,1]; a scalar's is its own.
func stanNameOf(t *testing.T, name string) string {
	t.Helper()
	base, idx, ok := strings.Cut(name, "[")
	if !ok {
		return name
	}
	parts := strings.Split(strings.TrimSuffix(idx, "]"), ",")
	for i, p := range parts {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			t.Fatalf("%s: not a numbered element name", name)
		}
		parts[i] = strconv.Itoa(k + 1)
	}
	return base + "[" + strings.Join(parts, ",") + "]"
}

// readSummaryCSV reads a summary.csv (gpp's, or a posteriordb reference
// whose first column is param) into name → column → value.
func readSummaryCSV(t *testing.T, path string) map[string]map[string]float64 {
	t.Helper()
	rows := reftest.ReadCSV(t, path)
	out := map[string]map[string]float64{}
	for _, r := range rows[1:] {
		m := map[string]float64{}
		for j, h := range rows[0] {
			if v, err := strconv.ParseFloat(r[j], 64); err == nil {
				m[h] = v
			}
		}
		out[r[0]] = m
	}
	return out
}

// TestSampleEightSchoolsNonCentered needs the real infer/nuts.
func TestSampleEightSchoolsNonCentered(t *testing.T) {
	samplePosteriorDB(t, "eight_schools_noncentered.gpp", "eight_schools-eight_schools_noncentered")
}

// TestSampleKidIQ needs the real infer/nuts.
func TestSampleKidIQ(t *testing.T) {
	samplePosteriorDB(t, "kidiq_momiq.gpp", "kidiq-kidscore_momiq")
}

// TestSampleDrawsInterrupted: the draws of an interrupted run are the
// first N of each chain, N the shortest chain's, marked interrupted, in
// chain order with their draw numbers; the values are the model's (a
// positive param's exp of its coordinate) and the outputs are evaluated at
// each.
func TestSampleDrawsInterrupted(t *testing.T) {
	l, err := pipeline.Load(poissonModel, []string{poissonData}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
	if err != nil {
		t.Fatal(err)
	}
	chain := func(us ...float64) nuts.Chain {
		n := len(us)
		return nuts.Chain{Draws: us, LogP: make([]float64, n), Accept: make([]float64, n), Depth: make([]int, n),
			Leapfrogs: make([]int, n), Divergent: make([]bool, n), Energy: make([]float64, n)}
	}
	res := &nuts.Result{Dim: 1, Interrupted: true, Chains: []nuts.Chain{chain(0, 1, 2), chain(-1, -2)}}
	sd, err := makeSampleDraws(u, l.Model, res, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sd.n != 2 || !sd.interrupted || len(sd.ds.logp) != 4 {
		t.Fatalf("n %d, interrupted %v, %d draws; want 2, true, 4", sd.n, sd.interrupted, len(sd.ds.logp))
	}
	wantChain, wantDraw, wantU := []int{1, 1, 2, 2}, []int{1, 2, 1, 2}, []float64{0, 1, -1, -2}
	for d := range 4 {
		lam, twice := sd.ds.cols[0][d], sd.ds.cols[1][d]
		if sd.chain[d] != wantChain[d] || sd.draw[d] != wantDraw[d] || math.Abs(lam-math.Exp(wantU[d])) > 1e-12 || math.Abs(twice-2*lam) > 1e-12 {
			t.Errorf("draw %d: chain %d draw %d lambda %v twice %v; want chain %d draw %d lambda %v", d, sd.chain[d], sd.draw[d], lam, twice,
				wantChain[d], wantDraw[d], math.Exp(wantU[d]))
		}
	}
	var b bytes.Buffer
	sc := &sampleConfig{cfg: &fitConfig{out: "o"}, nuts: nuts.Settings{Chains: 2, Draws: 3, Thin: 1, MaxDepth: 10, Delta: 0.8}}
	if err := writeSampleDrawsCSV(&b, sc, drawsHeader{cfg: sc.cfg}, sd); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "# interrupted = 1\n# INTERRUPTED:") {
		t.Errorf("draws.csv not marked interrupted:\n%s", b.String())
	}
}

// TestSampleSummaryMCSE: summary.csv keeps its first 11 columns in their
// places and adds posterior's mcse_sd, mcse_q5, mcse_q50, mcse_q95 and mad,
// each that of the element's draws in draws.csv split by chain (draws.csv
// has 6 digits, hence the tolerance).
func TestSampleSummaryMCSE(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	code, _, stderr := runGpp("sample", poissonModel, poissonData, "--chains", "2", "--warmup", "100", "--draws", "150",
		"--seed", "5", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rows := reftest.ReadCSV(t, filepath.Join(out, summaryFile))
	want := "name,family,mean,sd,q5,q50,q95,mcse_mean,ess_bulk,ess_tail,rhat,mcse_sd,mcse_q5,mcse_q50,mcse_q95,mad"
	if got := strings.Join(rows[0], ","); got != want {
		t.Fatalf("summary.csv header %q, want %q", got, want)
	}
	draws, err := os.ReadFile(filepath.Join(out, drawsFile))
	if err != nil {
		t.Fatal(err)
	}
	dr, err := csv.NewReader(strings.NewReader(stripComments(string(draws)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummaryCSV(t, filepath.Join(out, summaryFile))
	for j, name := range dr[0] {
		s, ok := sum[name]
		if !ok {
			continue
		}
		ch := make([][]float64, 2)
		for _, r := range dr[1:] {
			c, _ := strconv.Atoi(r[0])
			v, _ := strconv.ParseFloat(r[j], 64)
			ch[c-1] = append(ch[c-1], v)
		}
		for _, c := range []struct {
			col  string
			want float64
		}{
			{"mcse_sd", nuts.MCSESD(ch)},
			{"mcse_q5", nuts.MCSEQuantile(ch, 0.05)},
			{"mcse_q50", nuts.MCSEQuantile(ch, 0.5)},
			{"mcse_q95", nuts.MCSEQuantile(ch, 0.95)},
			{"mad", nuts.MAD(ch)},
		} {
			if got := s[c.col]; !(math.Abs(got-c.want) <= 1e-4*math.Abs(c.want)) {
				t.Errorf("%s: %s %v, from draws.csv %v", name, c.col, got, c.want)
			}
		}
	}
	if len(sum) != 2 {
		t.Errorf("summary.csv has %d elements, want lambda and twice", len(sum))
	}
}

// TestSampleOutClash: gpp sample, with NUTS or --fixed-param, refuses an
// output directory where its draws.csv would overwrite a data file, before
// sampling, naming the clash and leaving the directory as it was.
func TestSampleOutClash(t *testing.T) {
	counts, err := os.ReadFile(poissonData)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	draws := writeFile(t, dir, "draws.csv", string(counts))
	before := dirEntries(t, dir)
	want := "--out " + dir + ": the data file " + draws + " would be overwritten by the output draws.csv"
	for _, extra := range [][]string{{"--warmup", "10"}, {"--fixed-param"}} {
		args := append([]string{"sample", poissonModel, draws, "--chains", "1", "--draws", "10", "--out", dir}, extra...)
		code, stdout, stderr := runSafe(t, args...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "sampling") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and a note:\n%s", extra, code, stdout, stderr, want)
		}
		if after := dirEntries(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("%v: %s changed: %v, was %v", extra, dir, after, before)
		}
	}
	if b, _ := os.ReadFile(draws); string(b) != string(counts) {
		t.Errorf("the data file changed")
	}
}

// TestSampleFrozenChains: NUTS chains frozen at their different random
// starts (a step size of 1e6, not adapted: every transition diverges and
// is rejected) have R̂ +Inf for every param, which gpp sample prints as
// inf and warns of by name, where the R̂ of each chain constant used to
// be NaN and say nothing.
func TestSampleFrozenChains(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	code, stdout, stderr := runGpp("sample", fixedModel, "--adapt=false", "--stepsize", "1e6", "--chains", "2", "--warmup", "10", "--draws", "50",
		"--seed", "1", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rows := tableRows(stdout)
	sum := readSummaryCSV(t, filepath.Join(out, summaryFile))
	for _, name := range []string{"mu", "sigma"} {
		if r := rows[name]; len(r) == 0 || r[len(r)-1] != "inf" || !math.IsInf(sum[name]["rhat"], 1) {
			t.Errorf("%s: the row %v and summary.csv's R̂ %v, want inf:\n%s", name, r, sum[name]["rhat"], stdout)
		}
	}
	if !strings.Contains(stderr, "R̂ above 1.01, the chains disagree (the worst: mu inf, sigma inf") {
		t.Errorf("no R̂ warning naming mu and sigma:\n%s", stderr)
	}
}

// TestShareText: the warnings' percentages keep two digits below 10 % and
// whole numbers above, without the exponent %.2g gave 100 % (1e+02).
func TestShareText(t *testing.T) {
	for _, c := range []struct {
		n, total int
		want     string
	}{{1, 4000, "0.025"}, {49, 4000, "1.2"}, {500, 4000, "12"}, {100, 100, "100"}, {3999, 4000, ">99"}, {0, 10, "0"}} {
		if got := shareText(c.n, c.total); got != c.want {
			t.Errorf("shareText(%d, %d) = %q, want %q", c.n, c.total, got, c.want)
		}
	}
}

// sampleStderr writes src as m.gpp and data as y.csv to a new directory,
// runs gpp sample on them with args, fails t unless it exits 0, and
// returns the model's path (messages name it) and the stderr.
func sampleStderr(t *testing.T, src, data string, args ...string) (model, stderr string) {
	t.Helper()
	dir := t.TempDir()
	model = writeFile(t, dir, "m.gpp", src)
	csv := writeFile(t, dir, "y.csv", data)
	code, _, stderr := runGpp(append([]string{"sample", model, csv, "--out", filepath.Join(dir, "s")}, args...)...)
	if code != 0 {
		t.Fatalf("gpp sample %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return model, stderr
}

// TestSampleTransformNote: a point far out on a positive param's log
// coordinate, where gpp's own exp of it overflows, is reported as that
// transform's, at the param, not as an exp the model does not have (here
// in warm-up, a note; TestRejectedPointsByPhase has one while sampling).
func TestSampleTransformNote(t *testing.T) {
	// Seed 6: three points far out in warm-up, the last in iteration
	// 102, past the initial buffer, so that they are noted.
	model, stderr := sampleStderr(t, "data y: real[N]\nparam s: positive ~ HalfCauchy(5)\nparam m: real ~ Normal(0, 10)\ny ~ Normal(m, s)\n", "y\n0.5\n-1.2\n0.3\n2.0\n",
		"--chains", "4", "--warmup", "300", "--draws", "100", "--seed", "6")
	want := "the first (chain 1): " + model + ":2:7: the positive param `s`'s transform exp("
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "note: 3 of ") {
		t.Errorf("stderr lacks the transform's note %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "exp: result is") {
		t.Errorf("stderr reports the transform as an exp of the model:\n%s", stderr)
	}
}

// TestSampleRejectedWarning: points where the model's own expression fails
// (sqrt of a negative m) are rejected, and the draws then miss that
// region; gpp sample says so as a warning with how many of the points
// evaluated while sampling (warm-up's beside), not as a note of the first.
func TestSampleRejectedWarning(t *testing.T) {
	model, stderr := sampleStderr(t, "data y: real[N]\nparam m: real ~ Normal(0, 1)\ny ~ Normal(sqrt(m), 1)\n", "y\n0.1\n-0.2\n0.3\n",
		"--chains", "2", "--warmup", "100", "--draws", "100", "--seed", "3")
	re := regexp.MustCompile(`warning: (\d+) of (\d+) points the sampler evaluated while sampling \([0-9.<>]+%\) were rejected because the log density failed there \(as Stan, the trajectory ends at such a point\), so the draws miss the region where that happens and the estimates may be biased(?: \(and \d+ of \d+ in warm-up\))?; the first \(chain \d\): ` + regexp.QuoteMeta(model) + `:3:\d+: sqrt`)
	m := re.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr lacks the rejected points' warning:\n%s", stderr)
	}
	errs, _ := strconv.Atoi(m[1])
	evals, _ := strconv.Atoi(m[2])
	if errs < 2 || evals < 200 || errs >= evals {
		t.Errorf("%d of %d points rejected while sampling: want several of at least 200 evaluations", errs, evals)
	}
	if strings.Contains(stderr, "note: chain") {
		t.Errorf("the rejection is still a note:\n%s", stderr)
	}
}

// TestSampleRejectedInWarmupQuiet: a plain normal model whose warm-up
// starts far out (sigma near 1e-308, where Normal's density is -Inf at
// the data) rejects a few points in its first iterations and none while
// sampling; that biases nothing and is not reported (the astrophysics
// trial's m1 warned of 12 of 30264 points, all in warm-up's first three
// iterations).
func TestSampleRejectedInWarmupQuiet(t *testing.T) {
	ys := "3.234 3.589 0.546 -1.282 -2.003 0.469 -1.849 -2.761 0.838 0.693 1.602 -1.611 0.411 0.258 -2.913 1.584 1.106 5.656 0.847 0.082"
	_, stderr := sampleStderr(t, "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam sigma: positive ~ HalfNormal(5)\ny ~ Normal(mu, sigma)\n", "y\n"+strings.ReplaceAll(ys, " ", "\n")+"\n",
		"--chains", "2", "--warmup", "200", "--draws", "200", "--seed", "3")
	if strings.Contains(stderr, "rejected") {
		t.Errorf("warm-up's start-up rejections are reported:\n%s", stderr)
	}
}

// TestRejectedPointsByPhase: rejectedPoints warns of points rejected
// while sampling (with warm-up's count beside), is silent about warm-up's
// within its initial buffer, and notes later warm-up ones with the last
// iteration.
func TestRejectedPointsByPhase(t *testing.T) {
	e := errors.New("boom")
	m := &compile.Model{}
	ch := func(evals, errs, warmEvals, warmErrs, last int, sampleErr error) nuts.Chain {
		var first error
		if errs > 0 {
			first = e
		}
		return nuts.Chain{Evals: evals, Errs: errs, WarmEvals: warmEvals, WarmErrs: warmErrs, LastWarmErr: last, FirstErr: first, SampleErr: sampleErr}
	}
	msg, _, ok := rejectedPoints([]nuts.Chain{ch(2000, 5, 1000, 3, 3, e), ch(2000, 0, 1000, 0, 0, nil)}, 1000, m)
	if !ok || !strings.HasPrefix(msg, "2 of 2000 points the sampler evaluated while sampling (0.1%) were rejected") || !strings.Contains(msg, "may be biased (and 3 of 2000 in warm-up); the first (chain 1): boom") {
		t.Errorf("sampling: %v %q", ok, msg)
	}
	msg, _, ok = rejectedPoints([]nuts.Chain{ch(2000, 3, 1000, 3, 75, nil), ch(2000, 1, 1000, 1, 2, nil)}, 1000, m)
	if ok || msg != "" {
		t.Errorf("initial buffer only: %v %q", ok, msg)
	}
	msg, _, ok = rejectedPoints([]nuts.Chain{ch(2000, 3, 1000, 3, 3, nil), ch(2000, 1, 1000, 1, 102, nil)}, 1000, m)
	if ok || !strings.HasPrefix(msg, "4 of 2000 points the sampler evaluated in warm-up (0.2%) were rejected because the log density failed there, the last in iteration 102 of 1000, and none of the 2000 it evaluated while sampling") {
		t.Errorf("later warm-up: %v %q", ok, msg)
	}
	// A transform's failure while sampling is a note, at the param.
	pos := ast.Pos{File: "m.gpp", Line: 2, Col: 7}
	tm := &compile.Model{Latents: []compile.Latent{{Name: "s", Pos: pos}}}
	te := ast.Errorf(pos, "the positive param `s`'s transform exp(800) overflows")
	c := ch(2000, 2, 1000, 1, 3, te)
	c.FirstErr = te
	msg, _, ok = rejectedPoints([]nuts.Chain{c}, 1000, tm)
	if ok || msg != "chain 1 rejected a point while sampling: m.gpp:2:7: the positive param `s`'s transform exp(800) overflows: the trajectory went far out (as Stan, it ends there); 1 of 1000 points evaluated while sampling were rejected (and 1 of 1000 in warm-up)" {
		t.Errorf("transform while sampling: %v %q", ok, msg)
	}
	// A short warm-up's initial buffer is 15 % of it.
	if msg, _, _ := rejectedPoints([]nuts.Chain{ch(200, 1, 100, 1, 16, nil)}, 100, m); msg == "" {
		t.Error("iteration 16 of a 100-iteration warm-up is past its initial buffer of 15")
	}
}

// TestRejectedPointsModelFirst: a model failure while sampling in any
// chain makes the rejected points a warning naming it, though another
// chain's first failure was a param's transform far out (a note alone).
func TestRejectedPointsModelFirst(t *testing.T) {
	decl := ast.Pos{File: "m.gpp", Line: 2, Col: 7}
	m := &compile.Model{Latents: []compile.Latent{{Name: "s", Pos: decl}}}
	far := &ast.Error{Pos: decl, Msg: "exp overflows"}
	bad := &ast.Error{Pos: ast.Pos{File: "m.gpp", Line: 4, Col: 15}, Msg: "sqrt: argument < 0"}
	chains := []nuts.Chain{
		{Evals: 100, Errs: 1, WarmEvals: 50, FirstErr: far, SampleErr: far},
		{Evals: 100, Errs: 3, WarmEvals: 50, FirstErr: bad, SampleErr: bad},
	}
	msg, _, ok := rejectedPoints(chains, 50, m)
	if !ok || !strings.Contains(msg, "4 of 100 points the sampler evaluated while sampling") || !strings.Contains(msg, "the first (chain 2): m.gpp:4:15: sqrt") {
		t.Errorf("rejectedPoints = %q, %v; want a warning naming chain 2's sqrt", msg, ok)
	}
	if msg, _, ok := rejectedPoints(chains[:1], 50, m); ok || !strings.Contains(msg, "went far out") {
		t.Errorf("a transform's failure alone: %q, %v; want a note", msg, ok)
	}
}
