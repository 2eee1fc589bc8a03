package model

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/internal/reftest"
)

// summarySrc has a real and a positive param, an output replicate (drawn
// from OutputStream) and a deterministic output.
const summarySrc = `
data y: real[N]
param mu: real ~ Normal(0, 1)
param sigma: positive ~ HalfNormal(1)
y ~ Normal(mu, sigma)
output y_rep ~ Normal(mu, sigma)
output twice = 2 * mu
`

const summaryData = "y\n0.3\n-1.2\n2.5\n0.1\n0.9\n"

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// TestMain removes the gpp that cli built.
func TestMain(m *testing.M) {
	code := m.Run()
	if cliPath != "" && cliErr == nil {
		os.RemoveAll(filepath.Dir(cliPath))
	}
	os.Exit(code)
}

// cli builds gpp (cmd/gpp) once for the tests that compare with its files.
func cli(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/gpp")
	}
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gpp-model-test")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "gpp")
		out, err := exec.Command("go", "build", "-o", cliPath, "github.com/gpplang/gpp/cmd/gpp").CombinedOutput()
		if err != nil {
			cliErr = err
			cliPath = string(out)
		}
	})
	if cliErr != nil {
		t.Fatalf("go build ./cmd/gpp: %v\n%s", cliErr, cliPath)
	}
	return cliPath
}

// runCLI runs gpp with args in dir.
func runCLI(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// summaryFiles writes the model and its data into a new directory.
func summaryFiles(t *testing.T) (dir string, m *Model) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.gpp"), []byte(summarySrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "y.csv"), []byte(summaryData), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(filepath.Join(dir, "m.gpp"), DataFiles(filepath.Join(dir, "y.csv")))
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// readBackTol bounds |gpp summary's number − Summary's| relative to
// |Summary's| + the row's sd, for gpp summary's files: it reads
// draws.csv's draws, rounded to 6 significant digits, where Summary has
// them exact (the largest seen, an MCSE of a quantile, 1.6e-5).
const readBackTol = 1e-4

// sig6 is v to summary.csv's 6 significant digits.
func sig6(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// sameAsCSV checks every cell of the summary.csv at path against sum's
// row of that name, to the file's 6 significant digits, and that the
// file has a row for each of sum's and no other (but the sampler's, lp__
// ...); mcmc: all the MCMC columns too, not only gpp fit's mean, sd and
// quantiles; readBack: the file is gpp summary's, of draws.csv's
// rounded draws, and the numbers agree within readBackTol.
func sameAsCSV(t *testing.T, path string, sum *Summary, mcmc, readBack bool) {
	t.Helper()
	recs := reftest.ReadCSV(t, path)
	head := recs[0]
	for len(recs) > 1 && recs[1][1] == "sampler" {
		recs = append(recs[:1], recs[2:]...)
	}
	if len(recs)-1 != len(sum.Rows) {
		t.Fatalf("%s has %d rows, Summary %d", path, len(recs)-1, len(sum.Rows))
	}
	for i, rec := range recs[1:] {
		r := sum.Rows[i]
		if rec[0] != r.Name {
			t.Fatalf("%s row %d is %s, Summary's %s", path, i+1, rec[0], r.Name)
		}
		want := map[string]float64{"mean": r.Mean, "sd": r.SD, "mcse_mean": r.MCSEMean, "ess_bulk": r.ESSBulk,
			"ess_tail": r.ESSTail, "rhat": r.Rhat, "mcse_sd": r.MCSESD, "mad": r.MAD,
			"mcse_q5": r.MCSEQuantile[0], "mcse_q50": r.MCSEQuantile[1], "mcse_q95": r.MCSEQuantile[2]}
		for k, p := range sum.Probs {
			want["q"+strconv.FormatFloat(100*p, 'f', -1, 64)] = r.Quantiles[k]
		}
		if sum.HDIProb != 0 {
			a := 1 - sum.HDIProb
			want["hdi_"+strconv.FormatFloat(100*a/2, 'g', 6, 64)+"%"] = r.HDI[0]
			want["hdi_"+strconv.FormatFloat(100*(1-a/2), 'g', 6, 64)+"%"] = r.HDI[1]
		}
		seen := 0
		for j, col := range head {
			v, ok := want[col]
			if !ok {
				continue
			}
			seen++
			got, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				t.Fatalf("%s: %s's %s %q: %v", path, r.Name, col, rec[j], err)
			}
			if readBack {
				if math.IsNaN(got) != math.IsNaN(v) || math.Abs(got-v) > readBackTol*(math.Abs(v)+r.SD) {
					t.Errorf("%s: %s's %s is %s, Summary's %v (read back from 6 digits)", filepath.Base(path), r.Name, col, rec[j], v)
				}
			} else if sig6(got) != sig6(v) {
				t.Errorf("%s: %s's %s is %s, Summary's %s", filepath.Base(path), r.Name, col, rec[j], sig6(v))
			}
		}
		min := 2 + len(sum.Probs)
		if mcmc {
			min = len(want)
		}
		if seen < min {
			t.Fatalf("%s: %d of Summary's columns found in %v", path, seen, head)
		}
	}
}

// TestSummaryMatchesSample checks Summary against gpp sample's
// summary.csv, with --hdi, and against gpp summary's --percentiles of the
// same draws.csv: every row, params and outputs (a replicate among them),
// every column.
func TestSummaryMatchesSample(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "sample", "m.gpp", "y.csv", "--chains", "3", "--warmup", "150", "--draws", "120", "--seed", "7", "--hdi", "0.9", "--out", "s")
	runCLI(t, dir, "summary", "s/draws.csv", "--percentiles", "10,80", "--out", "p.csv")
	s := SampleSettings()
	s.Chains, s.Warmup, s.Draws, s.Seed = 3, 150, 120, 7
	res, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.Summary(res, 7, &SummarySettings{HDIProb: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rows) != 4 || !sum.Rows[2].Output || sum.Rows[1].Output {
		t.Fatalf("rows %+v: want mu, sigma and the outputs y_rep, twice", sum.Rows)
	}
	sameAsCSV(t, filepath.Join(dir, "s", "summary.csv"), sum, true, false)
	sum, err = m.Summary(res, 7, &SummarySettings{Probs: []float64{0.1, 0.8}})
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "p.csv"), sum, true, true)
}

// TestSampleSettingsAreSample checks that SampleSettings are gpp
// sample's defaults: Sample with them, unchanged, gives the summary.csv of
// gpp sample with no flags, every row and column (its warm-up adapted the
// step size of every chain).
func TestSampleSettingsAreSample(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "sample", "m.gpp", "y.csv", "--quiet", "--out", "s")
	s := SampleSettings()
	res, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for c, ch := range res.Chains {
		if ch.StepSize == 1 {
			t.Errorf("chain %d: step size 1: not adapted", c+1)
		}
	}
	sum, err := m.Summary(res, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "s", "summary.csv"), sum, true, false)
}

// labelledSrc is a model whose size J a data column's labels give: the
// elements of a[J], b[J, 2] and the output a2[J] are named by label in
// summary.csv, those of yhat[N] by number.
const labelledSrc = `data J: int
data county: int<lower=0, upper=J-1>[N]
data y: real[N]
param mu: real ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(1)
param a: real[J] ~ Normal(mu, 1)
param b: real[J, 2] ~ Normal(0, 1)
y ~ Normal(a[county] + b[county, 0], sigma)
output yhat = a[county]
output a2 = a * 2
`

// TestSummaryNamesAsCLI checks that a summary's rows are named as gpp
// fit's summary.csv names them (0-based, by label where a data column's
// labels give an axis's size, a label with a comma quoted), and that
// Column is draws.csv's name, ParamNames' and OutputNames'.
func TestSummaryNamesAsCLI(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("county,y\n")
	counties := []string{"AITKIN", "ANOKA", `"ST. LOUIS, MN"`}
	for i := range 12 {
		fmt.Fprintf(&csv, "%s,%.2f\n", counties[i%3], 0.3*float64(i%3)+0.1*float64(i%5))
	}
	for name, text := range map[string]string{"m.gpp": labelledSrc, "d.csv": csv.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runCLI(t, dir, "fit", "m.gpp", "d.csv", "--iter", "200", "--quiet", "--out", "f")
	m, err := Load(filepath.Join(dir, "m.gpp"), DataFiles(filepath.Join(dir, "d.csv")))
	if err != nil {
		t.Fatal(err)
	}
	s := FitSettings()
	s.MaxIter = 200
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.FitSummary(r, 1000, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "f", "summary.csv"), sum, false, false)
	columns := append(m.ParamNames(), m.OutputNames()...)
	for i, row := range sum.Rows {
		if row.Column != columns[i] {
			t.Errorf("row %d (%s): Column %s, want %s", i, row.Name, row.Column, columns[i])
		}
	}
	for _, want := range [][2]string{{"a[AITKIN]", "a.1"}, {`b["ST. LOUIS, MN", 1]`, "b.3.2"}, {"yhat[0]", "yhat.1"}, {"a2[ANOKA]", "a2.2"}} {
		if !slices.ContainsFunc(sum.Rows, func(r SummaryRow) bool { return r.Name == want[0] && r.Column == want[1] }) {
			t.Errorf("no row %s (column %s)", want[0], want[1])
		}
	}
}

// TestFitSummaryMatchesFit checks FitSummary against gpp fit's
// summary.csv and gpp summary's of its draws.csv (R̂ NaN: not chains).
func TestFitSummaryMatchesFit(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "fit", "m.gpp", "y.csv", "--iter", "300", "--seed", "5", "--out", "f")
	runCLI(t, dir, "summary", "f/draws.csv", "--out", "all.csv")
	s := FitSettings()
	s.MaxIter, s.Seed = 300, 5
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.FitSummary(r, 1000, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "f", "summary.csv"), sum, false, false)
	sameAsCSV(t, filepath.Join(dir, "all.csv"), sum, true, true)
	for _, row := range sum.Rows {
		if !math.IsNaN(row.Rhat) || math.IsNaN(row.ESSBulk) {
			t.Errorf("%s: R̂ %v ESS %v of a fit's draws, want NaN and a number", row.Name, row.Rhat, row.ESSBulk)
		}
	}
}

// TestSummaryFixedParam checks that the params the fixed_param sampler
// holds, at another value in each chain (ChainInits, gpp sample's
// init_1.json ...), have NaN R̂, ESS and Monte Carlo errors, as gpp
// sample's summary.csv, and the outputs that vary numbers; and that the
// same draws not marked FixedParam have R̂ +Inf.
func TestSummaryFixedParam(t *testing.T) {
	dir, m := summaryFiles(t)
	inits := []map[string]any{{"mu": 1.5, "sigma": 0.7}, {"mu": -0.5, "sigma": 1.25}}
	for i, f := range []string{"init_1.json", "init_2.json", "init.json"} {
		v := inits[i%2]
		js := fmt.Sprintf(`{"mu": %v, "sigma": %v}`, v["mu"], v["sigma"])
		if err := os.WriteFile(filepath.Join(dir, f), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runCLI(t, dir, "sample", "m.gpp", "y.csv", "--fixed-param", "--init", "init.json", "--chains", "2", "--draws", "200", "--seed", "3", "--out", "s")
	s := SampleSettings()
	s.FixedParam, s.Chains, s.Draws, s.Seed = true, 2, 200, 3
	res, err := m.Sample(context.Background(), s, ChainInits(inits))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.Summary(res, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "s", "summary.csv"), sum, true, false)
	for _, row := range sum.Rows {
		held := !row.Output || row.Name == "twice"
		if got := math.IsNaN(row.Rhat) && math.IsNaN(row.ESSBulk) && math.IsNaN(row.MCSEMean) && math.IsNaN(row.MCSEQuantile[1]); got != held {
			t.Errorf("%s: R̂ %v ESS %v MCSE %v; held %v", row.Name, row.Rhat, row.ESSBulk, row.MCSEMean, held)
		}
	}
	// The same draws as NUTS's (chains frozen at those starts): R̂ +Inf
	// where the chains hold different values.
	res.FixedParam = false
	if sum, err = m.Summary(res, 3, nil); err != nil {
		t.Fatal(err)
	}
	for _, row := range sum.Rows {
		if held := !row.Output || row.Name == "twice"; held != math.IsInf(row.Rhat, 1) {
			t.Errorf("%s of frozen NUTS chains: R̂ %v; held %v", row.Name, row.Rhat, held)
		}
	}
}

// TestSummaryBadSettings checks that bad probabilities are errors, and
// that they are found before any draw (a nil run or fit is not looked at).
func TestSummaryBadSettings(t *testing.T) {
	_, m := summaryFiles(t)
	res := &nuts.Result{Dim: m.Dim(), Chains: []nuts.Chain{{Draws: make([]float64, 2*m.Dim()), LogP: make([]float64, 2)}}}
	for _, s := range []*SummarySettings{{Probs: []float64{1.5}}, {HDIProb: 1}, {Probs: []float64{math.NaN()}}} {
		if _, err := m.Summary(res, 1, s); err == nil {
			t.Errorf("%+v: no error", *s)
		}
		for _, err := range []error{second(m.Summary(nil, 1, s)), second(m.FitSummary(nil, 10, 1, s))} {
			if err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("%+v of nothing: %v; want the settings' error", *s, err)
			}
		}
	}
}

// TestSummaryNilNamesCaller checks that a summary of nothing says which
// function was called, not the one it calls.
func TestSummaryNilNamesCaller(t *testing.T) {
	_, m := summaryFiles(t)
	s := FitSettings()
	s.MaxIter = 50
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(m.Summary(nil, 1, nil)), "model: Summary: the result is nil"},
		{second(m.FitSummary(nil, 10, 1, nil)), "model: FitSummary: the fit is nil"},
		{second(m.FitSummary(r, -1, 1, nil)), "model: FitSummary: -1 draws"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

// second is a call's error.
func second(_ *Summary, err error) error { return err }

// TestFitSummaryNoDraws checks that a summary of no draws still has a row
// per param and output element, each NaN.
func TestFitSummaryNoDraws(t *testing.T) {
	_, m := summaryFiles(t)
	s := FitSettings()
	s.MaxIter, s.Seed = 50, 5
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := m.FitSummary(r, 0, 5, &SummarySettings{HDIProb: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	want := append(m.ParamNames(), m.OutputNames()...)
	if len(sum.Rows) != len(want) || len(m.OutputNames()) == 0 {
		t.Fatalf("%d rows, want %d (%v)", len(sum.Rows), len(want), want)
	}
	for i, row := range sum.Rows {
		if row.Column != want[i] || !math.IsNaN(row.Mean) || !math.IsNaN(row.Quantiles[1]) || !math.IsNaN(row.HDI[0]) {
			t.Errorf("row %d: %s mean %v median %v HDI %v; want %s, NaN", i, row.Name, row.Mean, row.Quantiles[1], row.HDI, want[i])
		}
	}
}
