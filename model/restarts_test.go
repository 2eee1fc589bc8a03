package model

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/lang/ast"
)

// drawsCSV reads the draws of gpp fit's draws.csv at path (its rows after
// the mean row, comments skipped) as columns by name.
func drawsCSV(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment, cr.FieldsPerRecord = '#', -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0][0] != "lp__" {
		t.Fatalf("%s: no header and mean row", path)
	}
	cols := map[string][]string{}
	for _, r := range rows[2:] { // after the header and the mean row
		for j, name := range rows[0] {
			cols[name] = append(cols[name], r[j])
		}
	}
	return cols
}

// sameDraws checks the param columns of draws.csv's draws (cols) against
// rows, to the file's 6 significant digits, and restart__ against the
// restart of each draw (d mod R, or pick[d] mod R for resampled draws).
func sameDraws(t *testing.T, m *Model, cols map[string][]string, rows [][]float64, pick []int, R int) {
	t.Helper()
	for j, name := range m.ParamNames() {
		if len(cols[name]) != len(rows) {
			t.Fatalf("draws.csv has %d draws of %s, the API %d", len(cols[name]), name, len(rows))
		}
		for d, s := range cols[name] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			if sig6(v) != sig6(rows[d][j]) {
				t.Fatalf("draw %d: %s is %s in draws.csv, the API's %s", d, name, s, sig6(rows[d][j]))
			}
		}
	}
	for d, s := range cols["restart__"] {
		want := d % R
		if pick != nil {
			want = pick[d] % R
		}
		if s != strconv.Itoa(want) {
			t.Fatalf("draw %d: restart__ %s, want %d", d, s, want)
		}
	}
}

// TestFitRestartsMatchesFit checks FitRestarts, MixtureDraws and
// MixtureSummary against gpp fit --restarts's draws.csv and summary.csv
// (with its column rhat, R̂ across the restarts): every draw, row and
// column, params and outputs; and that restart 0 is Fit's fit.
func TestFitRestartsMatchesFit(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "fit", "m.gpp", "y.csv", "--iter", "300", "--seed", "5", "--restarts", "3", "--out", "f")
	s := FitSettings()
	s.MaxIter, s.Seed = 300, 5
	mix, err := m.FitRestarts(context.Background(), s, sgvb.Restarts{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(mix.Components) != 3 || !slices.Equal(mix.Seeds, []uint64{5, sgvb.RestartSeed(5, 1), sgvb.RestartSeed(5, 2)}) {
		t.Fatalf("%d restarts, seeds %v", len(mix.Components), mix.Seeds)
	}
	one, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if c := mix.Components[0]; c.ELBO != one.ELBO || !slices.Equal(c.Mean(), one.Mean()) {
		t.Errorf("restart 0: ELBO %v mean %v; Fit's %v %v", c.ELBO, c.Mean(), one.ELBO, one.Mean())
	}
	draws, err := m.MixtureDraws(mix, 1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	sameDraws(t, m, drawsCSV(t, filepath.Join(dir, "f", "draws.csv")), draws, nil, 3)
	sum, err := m.MixtureSummary(mix, 1000, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := reftest.ReadCSV(t, filepath.Join(dir, "f", "summary.csv"))
	if !slices.Contains(recs[0], "rhat") {
		t.Fatalf("summary.csv has no rhat: %v", recs[0])
	}
	sameAsCSV(t, filepath.Join(dir, "f", "summary.csv"), sum, false, false)
	for _, row := range sum.Rows {
		if math.IsNaN(row.Rhat) {
			t.Errorf("%s: R̂ NaN across 3 restarts", row.Name)
		}
	}
}

// TestPathfinderMatchesFit checks that FitRestarts with Pathfinder and 4
// paths, Resample and ResampledSummary give gpp fit --family
// pathfinder's draws.csv and summary.csv (4 paths, resampled by
// default), R̂ from the mixture's own draws.
func TestPathfinderMatchesFit(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "fit", "m.gpp", "y.csv", "--family", "pathfinder", "--seed", "3", "--out", "p")
	s := FitSettings()
	s.Method, s.Seed = sgvb.Pathfinder, 3
	mix, err := m.FitRestarts(context.Background(), s, sgvb.Restarts{N: 4})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.Resample(mix, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !rs.Usable() || rs.Candidates != 10000 || len(rs.Index) != 1000 {
		t.Fatalf("resampling: usable %v, %d candidates, %d draws (k̂ %v, ESS %v): want gpp fit's 1000 of 10000",
			rs.Usable(), rs.Candidates, len(rs.Index), rs.K, rs.ESS)
	}
	draws, err := m.ResampledDraws(mix, rs, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameDraws(t, m, drawsCSV(t, filepath.Join(dir, "p", "draws.csv")), draws, rs.Index, 4)
	sum, err := m.ResampledSummary(mix, rs, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "p", "summary.csv"), sum, false, false)
	own, err := m.MixtureSummary(mix, 1000, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if own.Rows[0].Mean == sum.Rows[0].Mean {
		t.Errorf("the resampled mean of mu is q's own, %v", own.Rows[0].Mean)
	}
}

// TestResampleOneFit checks Resample and ResampledSummary of one fit
// against gpp fit --psis-resample (4000 candidates for 400 draws, k̂
// above 0.7 but an ESS above 400, so resampled): no R̂ (one q).
func TestResampleOneFit(t *testing.T) {
	dir, m := summaryFiles(t)
	runCLI(t, dir, "fit", "m.gpp", "y.csv", "--iter", "2000", "--seed", "2", "--psis-resample", "--output-draws", "400", "--out", "r")
	s := FitSettings()
	s.MaxIter, s.Seed = 2000, 2
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.Resample(r, 400, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !rs.Usable() || rs.Candidates != 4000 {
		t.Fatalf("resampling: usable %v, %d candidates (k̂ %v, ESS %v)", rs.Usable(), rs.Candidates, rs.K, rs.ESS)
	}
	sum, err := m.ResampledSummary(r, rs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsCSV(t, filepath.Join(dir, "r", "summary.csv"), sum, false, false)
	draws, err := m.ResampledDraws(r, rs, 2)
	if err != nil {
		t.Fatal(err)
	}
	sameDraws(t, m, drawsCSV(t, filepath.Join(dir, "r", "draws.csv")), draws, rs.Index, 1)
}

// TestRestartsBadInput checks FitRestarts' and the mixture methods' errors.
func TestRestartsBadInput(t *testing.T) {
	_, m := summaryFiles(t)
	ctx := context.Background()
	s := FitSettings()
	s.MaxIter = 50
	mix, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 2})
	if err != nil {
		t.Fatal(err)
	}
	other := regressionModel(t)
	rs := &sgvb.Resampling{Candidates: 1000, Index: []int{0, 1}, K: 0.2, ESS: 500}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"ChainInits", second2(m.FitRestarts(ctx, s, sgvb.Restarts{N: 2}, ChainInits(nil))), "model: FitRestarts has one start: give Inits, not ChainInits"},
		{"InitRadius", second2(m.FitRestarts(ctx, s, sgvb.Restarts{N: 2}, InitRadius(1))), "model: FitRestarts starts q, not random draws"},
		{"MAP", second2(m.FitRestarts(ctx, sgvb.Settings{Method: sgvb.MAP}, sgvb.Restarts{N: 2})), "cannot be mixed"},
		{"Laplace", second2(m.FitRestarts(ctx, sgvb.Settings{Method: sgvb.Laplace}, sgvb.Restarts{N: 2})), "a Laplace approximation"},
		{"N 0", second2(m.FitRestarts(ctx, s, sgvb.Restarts{N: 0})), "need at least 1 fit"},
		{"nil mixture", second2(m.MixtureDraws(nil, 10, 1)), "model: MixtureDraws: the mixture has no restarts"},
		{"negative n", second2(m.MixtureDraws(mix, -1, 1)), "model: MixtureDraws: -1 draws"},
		{"another model's", second2(other.MixtureDraws(mix, 10, 1)), "the fit is not one of"},
		{"summary of another model's", second2(other.MixtureSummary(mix, 10, 1, nil)), "the fit is not one of"},
		{"bad probs", second2(m.MixtureSummary(mix, 10, 1, &SummarySettings{Probs: []float64{2}})), "probability 2 outside"},
		{"Resample n 0", second2(m.Resample(mix, 0, 1)), "model: Resample: 0 draws"},
		{"Resample of another model's", second2(other.Resample(mix, 10, 1)), "the fit is not one of"},
		{"Resample nil fit", second2(m.Resample((*sgvb.Result)(nil), 10, 1)), "model: Resample: the fit is nil"},
		{"Resample nil", second2(m.Resample(nil, 10, 1)), "want a fit (*sgvb.Result) or a mixture"},
		{"nil resampling", second2(m.ResampledDraws(mix, nil, 1)), "model: ResampledDraws: the resampling is nil"},
		{"unusable", second2(m.ResampledSummary(mix, &sgvb.Resampling{K: 1.2, ESS: 3, Index: []int{0, 1, 2, 3}}, 1, nil)), "not usable (k̂ 1.2, ESS 3 for 4 draws)"},
		{"index out of range", second2(m.ResampledDraws(mix, &sgvb.Resampling{Candidates: 1, Index: []int{0, 1}, K: 0.1, ESS: 2}, 1)), "picks candidate 1 of 1"},
		{"resampled another model's", second2(other.ResampledDraws(mix, rs, 1)), "the fit is not one of"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
}

// second2 is the error of a two-value return.
func second2[T any](_ T, err error) error { return err }

// TestFitRestartsInits checks that Inits starts every restart's q there
// (restart 0 as Fit with the same Inits, bit for bit) and that a failing
// start's error is positioned in the model.
func TestFitRestartsInits(t *testing.T) {
	_, m := summaryFiles(t)
	ctx := context.Background()
	s := FitSettings()
	s.MaxIter = 100
	init := Inits(map[string]any{"mu": 2.0, "sigma": 0.5})
	mix, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 2}, init)
	if err != nil {
		t.Fatal(err)
	}
	one, err := m.Fit(ctx, s, init)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := m.Fit(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if c := mix.Components[0]; !slices.Equal(c.Mean(), one.Mean()) || slices.Equal(c.Mean(), plain.Mean()) {
		t.Errorf("restart 0's mean %v: want Fit's with Inits %v, not without %v", c.Mean(), one.Mean(), plain.Mean())
	}
	if _, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 2}, Inits(map[string]any{"sigma": -1.0})); err == nil || !strings.Contains(err.Error(), "Inits: sigma is -1") {
		t.Errorf("Inits sigma -1: %v", err)
	}

	bad, err := Compile("bad.gpp", []byte(`param x: real ~ Normal(0, 1)
target += log(-1 - x * x)
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.FitRestarts(ctx, s, sgvb.Restarts{N: 2})
	var re *sgvb.RestartError
	var pe *ast.Error
	if !errors.As(err, &re) || !errors.As(err, &pe) || pe.Pos.Line != 2 {
		t.Errorf("a log joint NaN everywhere: %v (%T), want a *sgvb.RestartError of the positioned error at line 2", err, err)
	}
}
