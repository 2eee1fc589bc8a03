package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/model"
)

// readFitFile reads the fit.json at fit, a directory or the file.
func readFitFile(t *testing.T, fit string) *fitfile.File {
	t.Helper()
	path, err := fitPath(fit)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := fitfile.Read(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return ff
}

// sameSavedFit fails unless the fit.json that the Go API saved records
// what gpp fit's of the same fit does: the model and data, the settings,
// the method, outcome and factors, and the data's codings.
func sameSavedFit(t *testing.T, api, cli *fitfile.File) {
	t.Helper()
	if api.Model != cli.Model || api.ModelSHA256 != cli.ModelSHA256 || !slices.Equal(api.Data, cli.Data) || !slices.Equal(api.DataSHA256, cli.DataSHA256) {
		t.Errorf("head %+v, gpp fit's %+v", api.Head, cli.Head)
	}
	if !reflect.DeepEqual(api.Settings, cli.Settings) {
		t.Errorf("settings %+v, gpp fit's %+v", api.Settings, cli.Settings)
	}
	if api.Method != cli.Method || api.ELBO != cli.ELBO || api.Iterations != cli.Iterations || api.Converged != cli.Converged || len(api.Restarts) != len(cli.Restarts) {
		t.Errorf("outcome %s %v %d %v, %d restarts; gpp fit's %s %v %d %v, %d", api.Method, api.ELBO, api.Iterations, api.Converged, len(api.Restarts),
			cli.Method, cli.ELBO, cli.Iterations, cli.Converged, len(cli.Restarts))
	}
	// the outcome but for the time and the warnings (gpp fit's are all it
	// printed; the API's the engine's)
	ao, co := api.Outcome, cli.Outcome
	ao.Seconds, co.Seconds, ao.Warnings, co.Warnings = 0, 0, nil, nil
	if a, c := outcomeText(t, ao), outcomeText(t, co); a != c {
		t.Errorf("outcome %s, gpp fit's %s", a, c)
	}
	if !reflect.DeepEqual(api.Factors, cli.Factors) || !reflect.DeepEqual(api.Groups, cli.Groups) {
		t.Errorf("the factors differ from gpp fit's")
	}
	for i := range min(len(api.Restarts), len(cli.Restarts)) {
		a, c := api.Restarts[i], cli.Restarts[i]
		a.Seconds, c.Seconds = 0, 0
		if a.Seed != c.Seed || !reflect.DeepEqual(a.Factors, c.Factors) || outcomeText(t, a.Outcome) != outcomeText(t, c.Outcome) {
			t.Errorf("restart %d: seed %d, ELBO %v; gpp fit's %d, %v, or its factors differ", i, a.Seed, a.ELBO, c.Seed, c.ELBO)
		}
	}
	if !reflect.DeepEqual(api.Levels, cli.Levels) || !reflect.DeepEqual(api.Sizes, cli.Sizes) || !reflect.DeepEqual(api.DataColumns, cli.DataColumns) || !reflect.DeepEqual(api.Missing, cli.Missing) {
		t.Errorf("the data's codings differ from gpp fit's")
	}
}

// outcomeText is o as fit.json writes it.
func outcomeText(t *testing.T, o fitfile.Outcome) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameRuns fails unless gpp with args and with api in place of cli among
// them succeed with the same draws.csv rows (out the --out directory).
func sameRuns(t *testing.T, what, api, cli string, args ...string) {
	t.Helper()
	var rows [2][]string
	for i, fit := range []string{api, cli} {
		out := filepath.Join(t.TempDir(), "out")
		a := slices.Clone(args)
		for j := range a {
			if a[j] == cli {
				a[j] = fit
			}
		}
		if code, _, stderr := runSafe(t, append(a, "--quiet", "--out", out)...); code != 0 {
			t.Fatalf("%s from %s: exit %d: %s", what, fit, code, stderr)
		}
		_, rows[i] = drawLines(t, filepath.Join(out, drawsFile))
	}
	if len(rows[0]) < 2 || !slices.Equal(rows[0], rows[1]) {
		t.Errorf("%s: the Go API's saved fit gives %d rows, gpp fit's %d, not the same", what, len(rows[0]), len(rows[1]))
	}
}

// TestModelSaveFit: the fit.json that model.SaveFit writes of a fit made
// with the Go API is gpp fit's of the same fit, in the settings, factors
// and codings gpp predict and --init read; gpp predict and gpp fit
// --init DIR accept it and give from it what they give from gpp fit's.
func TestModelSaveFit(t *testing.T) {
	dir := t.TempDir()
	cli := fitRegression(t, dir, "--iter", "300", "--seed", "5")
	m, err := model.Load(regressionModel, model.DataFiles(regressionData))
	if err != nil {
		t.Fatal(err)
	}
	s := model.FitSettings()
	s.MaxIter, s.Seed = 300, 5
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	api := filepath.Join(dir, "api")
	if err := m.SaveFit(api, r, s); err != nil {
		t.Fatal(err)
	}
	sameSavedFit(t, readFitFile(t, api), readFitFile(t, cli))
	sameRuns(t, "gpp predict", api, cli, "predict", cli, regressionModel, "testdata/predict_new.csv")
	sameRuns(t, "gpp fit --init", api, cli, "fit", regressionModel, regressionData, "--init", cli, "--iter", "100")
}

// TestModelSaveMixture: SaveMixture of FitRestarts is gpp fit
// --restarts 2's fit.json, which gpp predict and gpp fit --init
// --restarts 2 read as gpp fit's.
func TestModelSaveMixture(t *testing.T) {
	dir := t.TempDir()
	cli := fitRegression(t, dir, "--iter", "200", "--restarts", "2")
	m, err := model.Load(regressionModel, model.DataFiles(regressionData))
	if err != nil {
		t.Fatal(err)
	}
	s := model.FitSettings()
	s.MaxIter = 200
	rs := sgvb.Restarts{N: 2}
	mix, err := m.FitRestarts(context.Background(), s, rs)
	if err != nil {
		t.Fatal(err)
	}
	api := filepath.Join(dir, "api.json")
	if err := m.SaveMixture(api, mix, s, rs); err != nil {
		t.Fatal(err)
	}
	saved := readFitFile(t, api)
	sameSavedFit(t, saved, readFitFile(t, cli))
	for i, r := range saved.Restarts {
		if r.Seed != mix.Seeds[i] {
			t.Errorf("restart %d: seed %d, the mixture's %d", i, r.Seed, mix.Seeds[i])
		}
		for _, f := range r.Factors {
			q := mix.Components[i].Factor(f.Name)
			for j, n := range q.ParamNames() {
				got, _ := f.Params.Get(n)
				if !slices.EqualFunc(got, q.Params[j], func(a fitfile.Float, b float64) bool { return math.Float64bits(float64(a)) == math.Float64bits(b) }) {
					t.Errorf("restart %d: %s's %s is %v, the mixture's %v", i, f.Name, n, got, q.Params[j])
				}
			}
		}
	}
	sameRuns(t, "gpp predict", api, cli, "predict", cli, regressionModel, "testdata/predict_new.csv")
	sameRuns(t, "gpp fit --init", api, cli, "fit", regressionModel, regressionData, "--init", cli, "--iter", "100", "--restarts", "2")
}
