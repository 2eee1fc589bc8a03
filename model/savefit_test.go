package model

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
)

const (
	saveModel = "../examples/regression.gpp"
	saveData  = "../examples/wine_std.csv"
)

// sameFactors fails unless q's factors and groups are r's, bit for bit:
// names, families, shapes, bounds and every parameter.
func sameFactors(t *testing.T, what string, q, r *sgvb.Result) {
	t.Helper()
	if len(q.Factors) != len(r.Factors) || len(q.Groups) != len(r.Groups) || q.Method != r.Method || q.Dim != r.Dim {
		t.Fatalf("%s: %d factors, %d groups, %s, dim %d; saved %d, %d, %s, %d", what,
			len(q.Factors), len(q.Groups), q.Method, q.Dim, len(r.Factors), len(r.Groups), r.Method, r.Dim)
	}
	for i, f := range r.Factors {
		g := q.Factors[i]
		if g.Name != f.Name || g.Family != f.Family || g.Support != f.Support || !slices.Equal(g.Shape, f.Shape) ||
			g.Offset != f.Offset || math.Float64bits(g.Loc) != math.Float64bits(f.Loc) || math.Float64bits(g.Scale) != math.Float64bits(f.Scale) {
			t.Errorf("%s: factor %d is %s %s %v, saved %s %s %v", what, i, g.Name, g.Family, g.Shape, f.Name, f.Family, f.Shape)
		}
		sameParams(t, what+" "+f.Name, g.Params, f.Params)
	}
	for i, gr := range r.Groups {
		sameParams(t, what+" group "+strings.Join(gr.Names, "+"), q.Groups[i].Params, gr.Params)
	}
}

func sameParams(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	bits := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	if !slices.EqualFunc(got, want, func(a, b []float64) bool { return slices.EqualFunc(a, b, bits) }) {
		t.Errorf("%s: params %v, saved %v", what, got, want)
	}
}

// TestSaveFitRoundTrip: a fit saved by SaveFit and read by LoadFit is
// the fit, bit for bit (factors, groups, draws), for a mean-field SGVB
// fit, one with a joint full-rank factor and a Laplace one, saved to a
// directory there, one to be made and a .json file; fit.json records
// the model, data and settings.
func TestSaveFitRoundTrip(t *testing.T) {
	m, err := Load(saveModel, DataFiles(saveData))
	if err != nil {
		t.Fatal(err)
	}
	meanField := FitSettings()
	meanField.MaxIter, meanField.Seed = 300, 7
	joint := meanField
	joint.FullRankGroups = [][]string{{"alpha", "beta"}}
	laplace := FitSettings()
	laplace.Method = sgvb.Laplace
	dir := t.TempDir()
	for _, c := range []struct {
		name, path string
		s          sgvb.Settings
	}{
		{"mean-field", dir, meanField},
		{"joint", filepath.Join(dir, "new", "out"), joint},
		{"laplace", filepath.Join(dir, "laplace.json"), laplace},
	} {
		r, err := m.Fit(context.Background(), c.s)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SaveFit(c.path, r, c.s); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, err := m.LoadFit(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sameFactors(t, c.name, f.Q, r)
		if f.Seed != c.s.Seed {
			t.Errorf("%s: seed %d, fitted with %d", c.name, f.Seed, c.s.Seed)
		}
		want, err := m.FitDraws(r, 20, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.FitDraws(f.Q, 20, 3)
		if err != nil || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: the saved fit's draws differ from the fit's (%v)", c.name, err)
		}

		file := c.path
		if !strings.HasSuffix(file, ".json") {
			file = filepath.Join(file, fitfile.FileName)
		}
		ff := readSaved(t, file)
		model, _ := os.ReadFile(saveModel)
		data, _ := os.ReadFile(saveData)
		if ff.Model != saveModel || ff.ModelSHA256 != fitfile.ModelHash(model) ||
			!slices.Equal(ff.Data, []string{saveData}) || !slices.Equal(ff.DataSHA256, []string{fitfile.ModelHash(data)}) {
			t.Errorf("%s: head %+v", c.name, ff.Head)
		}
		if ff.ELBO != fitfile.Float(r.ELBO) || ff.Method != r.Method.String() || ff.Iterations != r.Iterations {
			t.Errorf("%s: outcome %v %s %d, the fit's %v %s %d", c.name, ff.ELBO, ff.Method, ff.Iterations, r.ELBO, r.Method, r.Iterations)
		}
		wantFamily, wantIter, wantFullRank := "gamma", 300, ""
		switch c.name {
		case "laplace":
			wantFamily, wantIter = "laplace", 1000
		case "joint":
			wantFullRank = "alpha+beta"
		}
		if s := ff.Settings; s.Family != wantFamily || s.Iter != wantIter || s.FullRank != wantFullRank || s.Seed != c.s.Seed || s.Tol != 1e-4 || s.OutputDraws != 1000 {
			t.Errorf("%s: settings %+v", c.name, s)
		}
		if ents, _ := os.ReadDir(filepath.Dir(file)); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".tmp") }) {
			t.Errorf("%s: a temporary file is left in %s", c.name, filepath.Dir(file))
		}
	}
}

// TestSaveFitDataValues: a model of DataValues names no data file and
// hashes none, but records its observed y's values as gpp fit does (gpp
// compare tells the same observations by them), and its saved fit reads
// back.
func TestSaveFitDataValues(t *testing.T) {
	m := coin(t)
	s := FitSettings()
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "coin.json")
	if err := m.SaveFit(path, r, s); err != nil {
		t.Fatal(err)
	}
	ff := readSaved(t, path)
	if len(ff.Data) != 0 || len(ff.DataSHA256) != 0 || ff.Model != "coin.gpp" {
		t.Errorf("head %+v: want no data files", ff.Head)
	}
	want := fitfile.ObservedHashes([]string{"y"}, map[string]*data.Array{"y": {Shape: []int{4}, Values: []float64{1, 0, 1, 1}}})
	if len(ff.ObservedSHA256) != 1 || ff.ObservedSHA256["y"] != want["y"] {
		t.Errorf("observed_sha256 %v, want %v", ff.ObservedSHA256, want)
	}
	f, err := m.LoadFit(path)
	if err != nil {
		t.Fatal(err)
	}
	sameFactors(t, "coin", f.Q, r)
}

// coin is a one-param model of DataValues.
func coin(t *testing.T) *Model {
	t.Helper()
	m, err := Compile("coin.gpp", []byte("data y: int[N]\nparam theta: unit ~ Beta(2, 2)\ny ~ Bernoulli(theta)\n"),
		DataValues(map[string]any{"y": []int{1, 0, 1, 1}}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSaveFitRefuses: no fit, another model's fit, settings of another
// method, a failed fit, a Predictor and a path that is not a directory
// or a .json file are errors that say so, and write nothing; so is a
// write that fails, which leaves no temporary file.
func TestSaveFitRefuses(t *testing.T) {
	m, err := Load(saveModel, DataFiles(saveData))
	if err != nil {
		t.Fatal(err)
	}
	s := FitSettings()
	s.MaxIter = 200
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	other := coin(t)
	or, err := other.Fit(context.Background(), FitSettings())
	if err != nil {
		t.Fatal(err)
	}
	failed, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	failed.ELBO = math.Inf(-1)
	p, err := m.Predictor(DataFiles(saveData))
	if err != nil {
		t.Fatal(err)
	}
	laplace := s
	laplace.Method = sgvb.Laplace
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "fit.txt")
	if err := os.WriteFile(notJSON, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		m          *Model
		r          *sgvb.Result
		s          sgvb.Settings
		want       string
	}{
		{"nil", dir, m, nil, s, "no fit to save"},
		{"other model", dir, m, or, FitSettings(), "the fit is not one of ../examples/regression.gpp's params (1 coordinates in 1 factors; the model's params have 4 in 3)"},
		{"other method", dir, m, r, laplace, "the fit is sgvb and the settings say laplace"},
		{"failed", dir, m, failed, s, "the fit failed (its ELBO overflows)"},
		{"predictor", dir, p, r, s, "is a Predictor"},
		{"not json", notJSON, m, r, s, "fit.txt is a file and not a .json"},
	} {
		err := c.m.SaveFit(c.path, c.r, c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused saves wrote %d files in %s, want only fit.txt", len(ents), dir)
	}

	// fit.json a non-empty directory: the rename fails, and the
	// temporary file goes
	blocked := t.TempDir()
	if err := os.MkdirAll(filepath.Join(blocked, fitfile.FileName, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFit(blocked, r, s); err == nil || !strings.Contains(err.Error(), "model: SaveFit: ") {
		t.Errorf("save over a directory: error %v", err)
	}
	if ents, _ := os.ReadDir(blocked); len(ents) != 1 {
		t.Errorf("a failed save left %d files in %s, want only fit.json/", len(ents), blocked)
	}

	// gpp fit's outputs beside its fit.json: not left stale
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, fitfile.FileName), []byte(`{"format": "gpp-fit/1", "files": ["draws.csv", "fit.json"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "draws.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFit(run, r, s); err == nil || !strings.Contains(err.Error(), "with draws.csv beside it") {
		t.Errorf("save over gpp fit's outputs: error %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(run, fitfile.FileName)); len(b) > 80 {
		t.Errorf("gpp fit's fit.json was replaced")
	}
}

// TestSaveMixtureRefuses: no mixture and another model's are errors,
// and write nothing.
func TestSaveMixtureRefuses(t *testing.T) {
	m, err := Load(saveModel, DataFiles(saveData))
	if err != nil {
		t.Fatal(err)
	}
	s := FitSettings()
	s.MaxIter = 100
	other := coin(t)
	mix, err := other.FitRestarts(context.Background(), s, sgvb.Restarts{N: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		mix  *sgvb.Mixture
		want string
	}{
		{"nil", nil, "no mixture to save"},
		{"other model", mix, "the fit is not one of ../examples/regression.gpp's params"},
	} {
		if err := m.SaveMixture(dir, c.mix, s, sgvb.Restarts{N: 2}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused saves wrote %d files", len(ents))
	}
}

// TestSaveFitSets: fit.json records Set's values, which gpp predict and
// a LoadFit's Predictor inherit.
func TestSaveFitSets(t *testing.T) {
	m, err := Compile("c.gpp", []byte("data y: real[N]\nconst c = 1.0\nparam mu: real ~ Normal(0, 5)\ny ~ Normal(mu, 1)\noutput z = c * mu\n"),
		DataValues(map[string]any{"y": []float64{0.5, 1.5}}), Set("c", "3"))
	if err != nil {
		t.Fatal(err)
	}
	s := FitSettings()
	s.MaxIter = 100
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fit.json")
	if err := m.SaveFit(path, r, s); err != nil {
		t.Fatal(err)
	}
	ff := readSaved(t, path)
	if len(ff.Sets) != 1 || ff.Sets["c"] != "3" {
		t.Errorf("sets %v, want c=3", ff.Sets)
	}
}

// readSaved reads the fit.json that SaveFit wrote at file.
func readSaved(t *testing.T, file string) *fitfile.File {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := fitfile.Read(file, src)
	if err != nil {
		t.Fatal(err)
	}
	return ff
}
