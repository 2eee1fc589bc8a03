package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/reftest"
)

// exampleModelsData is where the R dump files copied from Stan's
// example-models repository are (data/testdata/examplemodels/README.md).
const exampleModelsData = "../../data/testdata/examplemodels"

// summaryRows reads a fit's summary.csv into name → (mean, sd).
func summaryRows(t *testing.T, out string) map[string][2]float64 {
	t.Helper()
	rows := reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))
	m := map[string][2]float64{}
	for _, r := range rows[1:] {
		mean, err1 := strconv.ParseFloat(r[2], 64)
		sd, err2 := strconv.ParseFloat(r[3], 64)
		if err1 != nil || err2 != nil || math.IsNaN(mean) || math.IsNaN(sd) {
			t.Fatalf("%s: summary row %v", out, r)
		}
		m[r[0]] = [2]float64{mean, sd}
	}
	return m
}

// TestFitExampleModelsRDump: gpp models written for data files of Stan's
// example-models (BUGS, BPA, ARM, Bayesian Cognitive Modeling) fit through
// `gpp fit model.gpp file.data.R` as a Stan user would run them, the 1-based
// ids of the ARM data shifted in the model (`g[treatment - 1]`). Where the
// posterior is known the fit is checked against it: Rate_1's is Beta(6, 6);
// pines' slope is least squares' with its standard error (flat priors).
func TestFitExampleModelsRDump(t *testing.T) {
	if testing.Short() {
		t.Skip("fits six models")
	}
	fits := map[string]map[string][2]float64{}
	for _, c := range []struct {
		name  string
		flags []string
		want  []string // names in the summary
	}{
		{"Rate_1", nil, []string{"theta"}},
		{"pines", []string{"--init", "path"}, []string{"alpha", "beta", "sigma"}},
		{"GLM_Poisson", nil, []string{"alpha", "beta[0]", "beta[2]"}},
		{"GLMM_Poisson", nil, []string{"alpha", "sigma", "eps[39]"}},
		{"flight_simulator", nil, []string{"mu", "g[4]", "d[7]"}},
		{"ssm", nil, []string{"mean_lambda", "sigma_obs", "z[23]"}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"fit", filepath.Join("testdata", "examplemodels", c.name+".gpp"),
			filepath.Join(exampleModelsData, c.name+".data.R"), "--quiet", "--out", out}, c.flags...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			continue
		}
		fits[c.name] = summaryRows(t, out)
		for _, n := range c.want {
			if _, ok := fits[c.name][n]; !ok {
				t.Errorf("%s: no %s in summary.csv", c.name, n)
			}
		}
	}
	if r, ok := fits["Rate_1"]["theta"]; ok {
		// Beta(6, 6): mean 1/2, sd √(36 / (12² · 13))
		sd := math.Sqrt(36.0 / (144 * 13))
		if math.Abs(r[0]-0.5) > 0.05*sd || math.Abs(r[1]/sd-1) > 0.05 {
			t.Errorf("Rate_1 theta %.4f ± %.4f, want 0.5 ± %.4f", r[0], r[1], sd)
		}
	}
	if r, ok := fits["pines"]["beta"]; ok {
		f, err := os.Open(filepath.Join(exampleModelsData, "pines.data.R"))
		if err != nil {
			t.Fatal(err)
		}
		set, err := data.ReadRDump("pines.data.R", f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		x, y := set["x"].Values, set["y"].Values
		n := float64(len(x))
		var mx, my, sxx, sxy, rss float64
		for i := range x {
			mx, my = mx+x[i]/n, my+y[i]/n
		}
		for i := range x {
			sxx += (x[i] - mx) * (x[i] - mx)
			sxy += (x[i] - mx) * (y[i] - my)
		}
		b := sxy / sxx
		for i := range x {
			e := y[i] - my - b*(x[i]-mx)
			rss += e * e
		}
		se := math.Sqrt(rss / (n - 2) / sxx)
		t.Logf("pines beta %.2f ± %.2f, least squares %.2f ± %.2f", r[0], r[1], b, se)
		if math.Abs(r[0]-b) > 0.1*se || math.Abs(r[1]/se-1) > 0.15 {
			t.Errorf("pines beta %.2f ± %.2f, want least squares' %.2f ± %.2f", r[0], r[1], b, se)
		}
	}
}
