package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
)

// kfoldNormal is a normal mean with a known scale: every fold's posterior
// and predictive distribution are normal and known exactly.
const kfoldNormal = `data y: real[N]
param mu: real ~ Normal(0, 2)
y ~ Normal(mu, 1)
output log_lik = logpdf(y, Normal(mu, 1))
`

// normalPredictive returns log p(y | ys) for kfoldNormal: with prior
// N(0, 2²) and unit noise, μ | ys is normal with precision 1/4 + n and mean
// Σys/precision, and y | ys is normal with that mean and variance
// 1 + 1/precision.
func normalPredictive(y float64, ys []float64) float64 {
	prec, sum := 0.25, 0.0
	for _, v := range ys {
		prec++
		sum += v
	}
	m, v := sum/prec, 1+1/prec
	return -0.5*math.Log(2*math.Pi*v) - (y-m)*(y-m)/(2*v)
}

// kfoldRow is a row of kfold.csv.
type kfoldRow struct {
	elpd, p, k float64
	fold       int
}

// readKfold reads dir's kfold.csv.
func readKfold(t *testing.T, dir string) []kfoldRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, kfoldFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	all, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []kfoldRow
	for _, rec := range all[1:] {
		r := map[string]string{}
		for j, h := range all[0] {
			r[h] = rec[j]
		}
		f, err := strconv.Atoi(r["fold"])
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, kfoldRow{parseNum(t, r["elpd_kfold"]), parseNum(t, r["p_kfold"]), parseNum(t, r["pareto_k"]), f})
	}
	return rows
}

// TestKfoldExact checks gpp kfold against the exact held-out predictive
// densities of kfoldNormal on 30 points in 5 folds, by SGVB and by NUTS:
// each observation's elpd_kfold within 0.02 of log p(y_i | y of the other
// folds), its p_kfold within 0.02 of log p(y_i | all y) less that, the
// folds balanced and the numbers the same on one worker and on two; gpp
// compare reads the directory as a K-fold row.
func TestKfoldExact(t *testing.T) {
	if testing.Short() {
		t.Skip("12 fits")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 30))
	var b strings.Builder
	b.WriteString("y\n")
	ys := make([]float64, 30)
	for i := range ys {
		ys[i] = 1 + rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f\n", ys[i])
	}
	csvPath := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "norm.gpp", kfoldNormal)
	for _, method := range []string{"sgvb", "nuts"} {
		kfoldExact(t, dir, method, model, csvPath, ys)
	}
}

// kfoldExact is TestKfoldExact by one method.
func kfoldExact(t *testing.T, dir, method, model, csvPath string, ys []float64) {
	var outs []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, method+w)
		args := []string{"kfold", model, csvPath, "--folds", "5", "--output-draws", "20000", "--workers", w, "--quiet", "--out", out}
		if method == "nuts" {
			args = append(args[:6], "5000", "--nuts", "--workers", w, "--quiet", "--out", out) // 4 chains of 5000
		}
		code, stdout, stderr := runSafe(t, args...)
		if code != exitOK {
			t.Fatalf("--workers %s: exit %d: %s", w, code, stderr)
		}
		if w == "1" {
			t.Logf("\n%s%s", stdout, stderr)
		}
		outs = append(outs, out)
	}
	one, err := os.ReadFile(filepath.Join(outs[0], kfoldFile))
	if err != nil {
		t.Fatal(err)
	}
	if two, _ := os.ReadFile(filepath.Join(outs[1], kfoldFile)); string(one) != string(two) {
		t.Errorf("kfold.csv differs between --workers 1 and 2:\n%s\n%s", one, two)
	}
	rows := readKfold(t, outs[0])
	if len(rows) != len(ys) {
		t.Fatalf("%d rows, want %d", len(rows), len(ys))
	}
	size := map[int]int{}
	var total, exactTotal float64
	for i, r := range rows {
		size[r.fold]++
		var train []float64
		for j, s := range rows {
			if s.fold != r.fold {
				train = append(train, ys[j])
			}
		}
		exact := normalPredictive(ys[i], train)
		exactP := normalPredictive(ys[i], ys) - exact
		total += r.elpd
		exactTotal += exact
		if math.Abs(r.elpd-exact) > 0.02 || math.Abs(r.p-exactP) > 0.02 || !(r.k < 0.7) {
			t.Errorf("%s: log_lik[%d] (fold %d): elpd_kfold %.4f, exact %.4f; p_kfold %.4f, exact %.4f; k̂ %.2f", method, i+1, r.fold, r.elpd, exact, r.p, exactP, r.k)
		}
	}
	t.Logf("%s: elpd_kfold %.4f, exact %.4f", method, total, exactTotal)
	for f := 1; f <= 5; f++ {
		if size[f] != 6 {
			t.Errorf("fold sizes %v, want 6 each", size)
		}
	}
	var meta kfoldMeta
	b2, err := os.ReadFile(filepath.Join(outs[0], kfoldMetaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b2, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Folds != 5 || len(meta.Fits) != 6 || meta.Fits[5].Fold != 0 || math.Abs(float64(meta.ELPD)-total) > 1e-9 ||
		(method == "nuts") != (meta.Method == "nuts" && meta.Fits[0].RHat != nil && meta.Fits[0].ELBO == nil) {
		t.Errorf("%s: kfold.json: %+v", method, meta)
	}
	if method == "nuts" {
		return
	}

	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, csvPath, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	// kfold.json records the observed y's sha256 as fit.json does
	if ff, err := readFitMeta(filepath.Join(fit, fitFileName), sources{}); err != nil || ff == nil || len(meta.ObservedSHA256) != 1 || !maps.Equal(ff.ObservedSHA256, meta.ObservedSHA256) {
		t.Errorf("kfold.json's observed_sha256 %v, fit.json's %v (%v)", meta.ObservedSHA256, ff, err)
	}
	code, stdout, stderr := runSafe(t, "compare", outs[0], fit)
	if code != exitOK || !strings.Contains(stdout, model+" (K-fold)") || !strings.Contains(stdout, "A K-fold row") {
		t.Errorf("compare: exit %d:\n%s%s", code, stdout, stderr)
	}
	metaPath := filepath.Join(outs[1], kfoldMetaFile)
	b3, _ := os.ReadFile(metaPath)
	writeFile(t, outs[1], kfoldMetaFile, strings.Replace(string(b3), kfoldFormat, "gpp-fit/1", 1))
	if code, _, stderr := runSafe(t, "compare", outs[1], fit); code != exitError || !strings.Contains(stderr, metaPath+":2:") || !strings.Contains(stderr, "not a gpp kfold file") {
		t.Errorf("compare with a kfold.json of another format: exit %d: %s", code, stderr)
	}
}

// TestKfoldOutlier: with as many folds as observations K-fold is
// leave-one-out by refitting. Nine points, one of them 12 where the rest
// are within ±1 (TestMomentMatch's): the outlier's held-out density comes
// from the far tail of σ's posterior given the other eight, which the
// fold's q reaches too rarely (−51.8 from its own draws; −17.03 with k̂
// 1.6 with 10 000 of its defensive companion's too) and the fit to all
// data, which joins each fold's proposal, covers: within 0.1 of the exact
// −16.9709 with the default 1000 draws of each, k̂ below 0.7. By NUTS the
// estimate is a plain mean over the fold's draws, which do not reach that
// tail: its k̂ is above 0.7 and the console says so.
func TestKfoldOutlier(t *testing.T) {
	if testing.Short() {
		t.Skip("20 fits and samples")
	}
	dir := t.TempDir()
	csvPath, model := writeOutlier(t, dir)
	run := func(name string, args ...string) ([]kfoldRow, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		code, _, stderr := runSafe(t, append([]string{"kfold", model, csvPath, "--folds", "9", "--quiet", "--out", out}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return readKfold(t, out), stderr
	}
	fit, stderr := run("fit")
	last := fit[len(fit)-1]
	t.Logf("the outlier: elpd_kfold %.4f (k̂ %.2f), exact %.4f", last.elpd, last.k, mmOutlierExact)
	if math.Abs(last.elpd-mmOutlierExact) > 0.1 || !(last.k <= 0.7) || strings.Contains(stderr, "rests on a few draws") {
		t.Errorf("the outlier's elpd_kfold %.4f (k̂ %.2f), exact %.4f; stderr:\n%s", last.elpd, last.k, mmOutlierExact, stderr)
	}
	sample, stderr := run("nuts", "--nuts", "--output-draws", "500")
	if last := sample[len(sample)-1]; !(last.k > 0.7) || !strings.Contains(stderr, "the held-out elpd of 1 of 9 observations rests on a few draws") {
		t.Errorf("--nuts: the outlier's k̂ %.2f; stderr:\n%s", last.k, stderr)
	}
}

// TestKfoldGrouped: --group keeps each group's observations in one fold,
// the folds hold as many groups as can be, and the folds follow --seed.
func TestKfoldGrouped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y,g\n")
	groups := []int{3, 1, 1, 2, 5, 3, 4, 2, 5, 5, 1, 4}
	for i, g := range groups {
		fmt.Fprintf(&b, "%.2f,%d\n", float64(i%5)/4, g)
	}
	csvPath := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "m.gpp", strings.Replace(kfoldNormal, "data y: real[N]", "data y: real[N]\ndata g: int[N]", 1))
	folds := func(seed string) []int {
		t.Helper()
		out := filepath.Join(dir, "kf"+seed)
		if code, _, stderr := runSafe(t, "kfold", model, csvPath, "--group", "g", "--folds", "3", "--seed", seed, "--iter", "300", "--output-draws", "50", "--quiet", "--out", out); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var f []int
		for _, r := range readKfold(t, out) {
			f = append(f, r.fold)
		}
		return f
	}
	a, again, other := folds("1"), folds("1"), folds("2")
	foldOf := map[int]int{}
	used := map[int]bool{}
	for i, g := range groups {
		if f, ok := foldOf[g]; ok && f != a[i] {
			t.Fatalf("group %d is in folds %d and %d: %v", g, f, a[i], a)
		}
		foldOf[g] = a[i]
		used[a[i]] = true
	}
	if len(used) != 3 {
		t.Errorf("folds %v: want all 3 used", a)
	}
	// loo's kfold_split_grouped: the folds hold ⌊G/K⌋ or ⌈G/K⌉ groups
	// (5 groups in 3 folds: 2, 2 and 1).
	perFold := map[int]int{}
	for _, f := range foldOf {
		perFold[f]++
	}
	for f, c := range perFold {
		if c < 1 || c > 2 {
			t.Errorf("fold %d holds %d groups (%v): want 1 or 2", f, c, foldOf)
		}
	}
	if fmt.Sprint(a) != fmt.Sprint(again) || fmt.Sprint(a) == fmt.Sprint(other) {
		t.Errorf("folds: seed 1 %v and %v, seed 2 %v", a, again, other)
	}
}

// TestKfoldInterrupted: an interrupt while the fits run writes nothing,
// exits 130 and reports no fit as failed ("fold 3's fit failed: context
// canceled"). The interrupt comes as the first fit is reported done,
// while the other worker fits.
func TestKfoldInterrupted(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "norm.gpp", kfoldNormal)
	csvPath := writeFile(t, dir, "y.csv", "y\n0.5\n-0.3\n1.2\n0.8\n0.1\n-0.9\n")
	out := filepath.Join(dir, "out")
	var stdout bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWrite{match: "held out, ELBO", cancel: cancel}
	kc, code, ok := parseKfoldArgs([]string{model, csvPath, "--folds", "3", "--workers", "2", "--iter", "20000", "--tol", "1e-12", "--verbose", "--out", out}, &stdout, stderr)
	if !ok {
		t.Fatalf("flags: exit %d: %s", code, &stderr.buf)
	}
	kc.fit.temps = &tempFiles{}
	checkInterrupted(t, runKfold(ctx, kc, &stdout, newConsole(stderr, false, false, true)), &stdout, stderr, out)
}

// TestKfoldMatrix checks the split of a matrix data X[N, 2] beside y[N]
// (and a CSV column the model does not read) against the exact held-out
// predictive of a linear regression with a known noise scale: b ~
// Normal(0, 2) per element, y ~ Normal(X b, 1), so b | rows is normal with
// precision P = I/4 + XᵀX and mean P⁻¹Xᵀy, and y_i | rows is normal with
// mean x_iᵀ P⁻¹Xᵀy and variance 1 + x_iᵀP⁻¹x_i. q is full-rank, which is
// exact here; 24 rows in 4 folds, each observation's elpd_kfold within
// 0.02 of the exact one (0.0064 at most with 20 000 draws of each kind;
// cutting X as if it had one column puts it 4.3 off).
func TestKfoldMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("5 fits")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 24))
	var b strings.Builder
	b.WriteString("unused,X.1,X.2,y\n")
	const n = 24
	X := make([][2]float64, n)
	ys := make([]float64, n)
	for i := range n {
		X[i] = [2]float64{1, rng.NormFloat64()}
		ys[i] = 0.5 - X[i][1] + rng.NormFloat64()
		fmt.Fprintf(&b, "%d,%g,%.6f,%.6f\n", i, X[i][0], X[i][1], ys[i])
	}
	csvPath := writeFile(t, dir, "d.csv", b.String())
	model := writeFile(t, dir, "reg.gpp", `data X: real[N, K]
data y: real[N]
param b: real[K] ~ Normal(0, 2)
y ~ Normal(X * b, 1)
output log_lik = logpdf(y, Normal(X * b, 1))
`)
	out := filepath.Join(dir, "kf")
	if code, _, stderr := runSafe(t, "kfold", model, csvPath, "--folds", "4", "--fullrank", "all", "--output-draws", "20000", "--quiet", "--out", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readKfold(t, out)
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	worst := 0.0
	for i, r := range rows {
		var p [2][2]float64 // I/4 + XᵀX and Xᵀy over the training rows
		var xy [2]float64
		p[0][0], p[1][1] = 0.25, 0.25
		for j, s := range rows {
			if s.fold == r.fold {
				continue
			}
			for a := range 2 {
				xy[a] += X[j][a] * ys[j]
				for c := range 2 {
					p[a][c] += X[j][a] * X[j][c]
				}
			}
		}
		det := p[0][0]*p[1][1] - p[0][1]*p[1][0]
		inv := [2][2]float64{{p[1][1] / det, -p[0][1] / det}, {-p[1][0] / det, p[0][0] / det}}
		var mean, v float64
		for a := range 2 {
			for c := range 2 {
				mean += X[i][a] * inv[a][c] * xy[c]
				v += X[i][a] * inv[a][c] * X[i][c]
			}
		}
		v++
		exact := -0.5*math.Log(2*math.Pi*v) - (ys[i]-mean)*(ys[i]-mean)/(2*v)
		worst = math.Max(worst, math.Abs(r.elpd-exact))
		if math.Abs(r.elpd-exact) > 0.02 {
			t.Errorf("log_lik[%d] (fold %d): elpd_kfold %.4f, exact %.4f", i+1, r.fold, r.elpd, exact)
		}
	}
	t.Logf("largest error %.4f", worst)
}

// TestKfoldOutClash: a data file that kfold.csv would overwrite (the data
// read from --out's kfold.csv) is refused before any fit, and kept.
func TestKfoldOutClash(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "norm.gpp", kfoldNormal)
	const data = "y\n0.5\n-0.3\n1.2\n0.8\n0.1\n-0.9\n"
	csvPath := writeFile(t, dir, kfoldFile, data)
	code, _, stderr := runSafe(t, "kfold", model, csvPath, "--folds", "3", "--quiet", "--out", dir)
	if code != exitError || !strings.Contains(stderr, "would be overwritten by the output kfold.csv") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(csvPath); err != nil || string(b) != data {
		t.Errorf("the data file now holds %q (%v)", b, err)
	}
}

// TestKfoldStaleClash: a data file that the commit would remove as an
// earlier gpp run's (summary.csv beside a fit's fit.json in --out) is
// refused before any fit, and kept.
func TestKfoldStaleClash(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "norm.gpp", kfoldNormal)
	writeFile(t, dir, fitFileName, `{"format": "`+fitfile.Format+`"}`)
	const data = "y\n0.5\n-0.3\n1.2\n0.8\n0.1\n-0.9\n"
	csvPath := writeFile(t, dir, summaryFile, data)
	code, _, stderr := runSafe(t, "kfold", model, csvPath, "--folds", "3", "--quiet", "--out", dir)
	if want := "the data file " + csvPath + " would be removed, as a file that the earlier fit there wrote (summary.csv)"; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("exit %d: %s, want %q", code, stderr, want)
	}
	if b, err := os.ReadFile(csvPath); err != nil || string(b) != data {
		t.Errorf("the data file now holds %q (%v)", b, err)
	}
}

// TestKfoldFitWarnings: the fits' warnings come one line per kind, naming
// the folds (and the fit to all data) they are about.
func TestKfoldFitWarnings(t *testing.T) {
	su := &kfoldSetup{k: 3}
	res := []foldResult{
		{rhat: 1.2, divergent: 2, converged: true},
		{rhat: 1.001, converged: true},
		{rhat: 1.5, divergent: 1, nanLL: 4, llErr: errors.New("m.gpp:3:9: log: argument -1 < 0"), converged: true, zeroW: 7, draws: 8},
		{rhat: 1.3, converged: true, zeroW: 8, draws: 8, trainErr: errors.New("m.gpp:5:1: log density is NaN")},
	}
	got := strings.Join(kfoldFitWarnings(su, res, true), "\n")
	for _, want := range []string{
		"folds 1, 3: divergent transitions (3)",
		"folds 1, 3, the fit to all data: R̂ above 1.01 (up to 1.500)",
		"fold 3: log_lik was not a number at 4 draws of a held-out row, each counted as density 0",
		"; the first: m.gpp:3:9: log: argument -1 < 0",
		"the fit to all data: the training rows' log density was not finite at every draw (8 in all), so no draw has weight and the held-out elpd is not a number; the first: m.gpp:5:1: log density is NaN",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	res[1].converged = false
	if strings.Contains(got, "fold 3: the training rows") { // 7 of 8 draws of weight 0 leave one
		t.Errorf("a fit with a draw of weight left is warned of:\n%s", got)
	}
	if got := kfoldFitWarnings(su, res, false); len(got) != 4 || got[0] != "fold 2: not converged in --iter iterations" {
		t.Errorf("SGVB warnings (R̂ not read):\n%s", strings.Join(got, "\n"))
	}
}

// TestReplKfold: :kfold cross-validates the session's model and data with
// gpp kfold's numbers (the same kfold.csv totals as the command on the
// same data and flags), writes nothing, leaves the session's fit alone,
// and refuses --out, --set and data arguments.
func TestReplKfold(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y\n")
	for i := range 12 {
		fmt.Fprintf(&b, "%.3f\n", float64(i%5)/2-0.7)
	}
	csvPath := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "m.gpp", kfoldNormal)
	out := filepath.Join(dir, "kf")
	code, stdout, stderr := runSafe(t, "kfold", model, csvPath, "--folds", "4", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("gpp kfold: exit %d: %s", code, stderr)
	}
	total := stdout[strings.Index(stdout, "K-fold       "):strings.Index(stdout, "written")]

	r, rout, rerr := newTestRepl()
	typeIn(r, ":load "+model, ":data "+csvPath, ":kfold --folds 4 --quiet")
	if r.failed || !strings.Contains(rout.String(), total) || strings.Contains(rout.String(), "written") {
		t.Errorf(":kfold: want %q in\n%s\nerrors:\n%s", total, rout.String(), rerr.String())
	}
	if r.fit != nil || r.sample != nil {
		t.Errorf(":kfold kept a fit or sample in the session")
	}
	for _, c := range []struct{ line, want string }{
		{":kfold --out " + out, "writes nothing"},
		{":kfold --set N=3", "set them with :set"},
		{":kfold " + csvPath, "takes flags only"},
		{":kfold --folds 13", "there are only 12 observations"},
	} {
		r.failed = false
		rerr.Reset()
		typeIn(r, c.line)
		if !r.failed || !strings.Contains(rerr.String(), c.want) {
			t.Errorf("%s: failed %v, errors:\n%s", c.line, r.failed, rerr.String())
		}
	}
}

// TestKfoldMetaNotFinite: kfold.json keeps a held-out elpd of −Inf (an
// observation no draw allows) and a NaN as fit.json writes them, not as a
// number that reads as a value.
func TestKfoldMetaNotFinite(t *testing.T) {
	inf := fitfile.Float(math.Inf(-1))
	b, err := json.Marshal(kfoldMeta{ELPD: inf, SE: fitfile.Float(math.NaN()), P: 1, Fits: []kfoldFitMeta{{Fold: 1, ELPD: inf, ParetoK: &inf}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"elpd_kfold":"-inf"`, `"se":null`, `"p_kfold":1`, `"elpd":"-inf"`, `"pareto_k":"-inf"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("kfold.json %s: no %s", b, want)
		}
	}
}

// TestKfoldRowIndex: int data that index the rows (x[base], base the row
// of a trial's baseline arm) are renumbered to each fold's rows when the
// rows they point at are in the fold (grouped by trial), so that every
// row reads the x it read on all rows; a row whose pointed-at row is in
// another fold is an error at its cell that says to group the rows.
func TestKfoldRowIndex(t *testing.T) {
	l, err := pipeline.Load("testdata/kfold_rowindex.gpp", []string{"testdata/kfold_rowindex.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	su := &kfoldSetup{l: l, ll: 0, n: 9, k: 2}
	if err := su.findRows(); err != nil {
		t.Fatal(err)
	}
	x, base := l.Data["x"].Values, l.Data["base"].Values
	su.fold = []int{0, 0, 1, 1, 1, 0, 0, 1, 1} // by trial
	for k := range 2 {
		for _, heldOut := range []bool{false, true} {
			rows := su.rows(k, heldOut)
			if _, err := su.model(rows); err != nil {
				t.Fatalf("fold %d (held out %v): %v", k, heldOut, err)
			}
			bound := map[string]*data.Array{"base": l.Data["base"].Rows(rows)}
			if err := su.renumberRows(bound, rows); err != nil {
				t.Fatal(err)
			}
			xs := l.Data["x"].Rows(rows).Values
			for i, r := range rows {
				if b := int(bound["base"].Values[i]); b < 0 || b >= len(rows) || xs[b] != x[int(base[r])] {
					t.Errorf("fold %d (held out %v): row %d reads base %d of %d rows, want the x of row %g", k, heldOut, r, b, len(rows), base[r])
				}
			}
		}
	}
	// trial 1 split: rows 3 and 4 trained on without row 2, their base
	su.fold = []int{0, 0, 0, 1, 1, 0, 0, 0, 0}
	_, err = su.model(su.rows(0, false))
	if err == nil || !strings.Contains(err.Error(), "testdata/kfold_rowindex.csv:5:3: base = 2 points at row 2, which K-fold leaves in another fold") || !strings.Contains(err.Error(), "give --group") {
		t.Errorf("a split trial: %v", err)
	}
}

// An ICAR's edges index phi: sum_to_zero_vector[N], a param with an
// element per row: --group cannot split a connected graph, so the error
// says to index the areas apart from the rows (phi[area]), as the
// trial's icar_k.gpp does, which gpp kfold then splits.
func TestKfoldRowIndexParam(t *testing.T) {
	dir := t.TempDir()
	obs := writeFile(t, dir, "y.csv", "y,log_E\n3,1.1\n5,1.4\n2,0.9\n4,1.2\n")
	edges := writeFile(t, dir, "edges.csv", "node1,node2\n0,1\n1,2\n2,3\n3,0\n0,2\n")
	src := "data node1: int[E]\ndata node2: int[E]\ndata y: int<lower=0>[N]\ndata log_E: real[N]\nparam beta0: real ~ Normal(0, 5)\n" +
		"param phi: sum_to_zero_vector[N]\ntarget += -0.5 * dot_self(phi[node1] - phi[node2])\n" +
		"y ~ PoissonLog(log_E + beta0 + phi)\noutput log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi))\n"
	l, err := pipeline.Load(writeFile(t, dir, "m.gpp", src), []string{obs, edges}, nil)
	if err != nil {
		t.Fatal(err)
	}
	su := &kfoldSetup{l: l, ll: 0, n: 4, k: 2}
	if err := su.findRows(); err != nil {
		t.Fatal(err)
	}
	su.fold = []int{0, 1, 0, 1}
	_, err = su.model(su.rows(0, false))
	if err == nil || !strings.Contains(err.Error(), "and param phi, with an element per row, cannot be split at all") ||
		!strings.Contains(err.Error(), "read it as phi[area], with data area: int[N]") || strings.Contains(err.Error(), "--group") {
		t.Errorf("edges of a param per row: %v", err)
	}
}

// gpp kfold --fullrank all does not advise --fullrank all for a fold
// whose q misses its posterior (kfoldWarnings' hint).
func TestKfoldWarnMethod(t *testing.T) {
	for _, c := range []struct {
		fit  fitConfig
		nuts bool
		want string
	}{
		{fitConfig{family: "gamma"}, false, "gamma"},
		{fitConfig{family: "gamma", fullRank: "all"}, false, kfoldFullRankAll},
		{fitConfig{family: "gamma", fullRank: "all", rank: 10}, false, kfoldLowRankAll},
		{fitConfig{family: "gamma", fullRank: "phi"}, false, "gamma"},
		{fitConfig{family: "gamma", fullRank: "all"}, true, "nuts"},
	} {
		if got := kfoldWarnMethod(&kfoldConfig{fit: &c.fit, nuts: c.nuts}); got != c.want {
			t.Errorf("--fullrank %q --rank %d (nuts %v): method %q, want %q", c.fit.fullRank, c.fit.rank, c.nuts, got, c.want)
		}
	}
}
