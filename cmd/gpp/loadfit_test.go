package main

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/model"
)

// predictedColumns runs gpp predict from the fit at fit with model and
// newData and returns its draws.csv's output columns named names, as
// text, draw by draw (the mean row left out).
func predictedColumns(t *testing.T, fit, modelPath, newData string, names []string) [][]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pred")
	if code, _, stderr := runSafe(t, "predict", fit, modelPath, newData, "--quiet", "--out", out); code != 0 {
		t.Fatalf("gpp predict: exit %d: %s", code, stderr)
	}
	header, lines := drawLines(t, filepath.Join(out, drawsFile))
	at := slices.Index(header, names[0])
	if at < 0 || at+len(names) > len(header) || !slices.Equal(header[at:at+len(names)], names) {
		t.Fatalf("gpp predict's header %v does not hold the Predictor's OutputNames %v", header, names)
	}
	var rows [][]string
	for _, line := range lines[1:] { // after the mean row
		cells := strings.Split(line, ",")
		rows = append(rows, cells[at:at+len(names)])
	}
	return rows
}

// predictQ is gpp predict's reading of the fit.json at path for modelPath
// on newData: the fit read (readUsedFit), the model loaded by
// pipeline.LoadPredict with the fit's codings, and q (fitQ).
func predictQ(t *testing.T, path, modelPath, newData string) (*sgvb.Result, *compile.Model) {
	t.Helper()
	ff, src, err := readUsedFit(path, sources{}, "predict", "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.LoadPredict(modelPath, []string{newData}, nil, compile.PredictOptions{}, fitfile.DataLevels(ff.Levels), ff.Sizes, ff.DataColumns)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := fitQ(ff, path, src, setFlags{}, l.Path, l.Model, predictNeeds)
	if err != nil {
		t.Fatal(err)
	}
	return r, l.Model
}

// samePrinted checks that got, the Predictor's outputs, are gpp predict's
// draws.csv cells as draws.csv prints them.
func samePrinted(t *testing.T, what string, names []string, got [][]float64, want [][]string) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d rows, gpp predict's draws.csv %d", what, len(got), len(want))
	}
	for d := range got {
		for j, v := range got[d] {
			if formatNum(v) != want[d][j] {
				t.Fatalf("%s: draw %d %s is %v (printed %s), gpp predict's %s", what, d+1, names[j], v, formatNum(v), want[d][j])
			}
		}
	}
}

// TestModelLoadFit: a fit that gpp fit saved, read by Model.LoadFit, gives
// through its Predictor and FitOutputs(Q, n, Seed) gpp predict's outputs
// from the same fit.json: on examples/regression.gpp with new data that
// leave out proline (drawn), bit for bit against gpp predict's code path
// (fitfile.Read, pipeline.LoadPredict with the fit's codings, fitQ,
// makeDrawsAt) and cell for cell against gpp predict's draws.csv; and the
// fit's directory and its fit.json load the same q.
func TestModelLoadFit(t *testing.T) {
	const newData = "testdata/predict_new.csv"
	fit := fitRegression(t, t.TempDir(), "--output-draws", "50")
	m, err := model.Load(regressionModel, model.DataFiles(regressionData))
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LoadFit(fit)
	if err != nil {
		t.Fatal(err)
	}
	if f.Seed != 1 {
		t.Errorf("Seed %d, want gpp fit's default 1", f.Seed)
	}
	p, err := f.Predictor(model.DataFiles(newData))
	if err != nil {
		t.Fatal(err)
	}
	names := p.OutputNames()
	got, err := p.FitOutputs(f.Q, 50, f.Seed)
	if err != nil {
		t.Fatal(err)
	}
	samePrinted(t, "regression", names, got, predictedColumns(t, fit, regressionModel, newData, names))

	path := filepath.Join(fit, fitFileName)
	rf, pm := predictQ(t, path, regressionModel, newData)
	ds, err := makeDrawsAt(rf, nil, pm, 50, f.Seed, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	j := 0
	for _, v := range ds.vars {
		if !v.output {
			continue
		}
		for e := range v.elems {
			for d := range got {
				if want := ds.cols[v.first+e][d]; math.Float64bits(got[d][j]) != math.Float64bits(want) {
					t.Fatalf("draw %d: %s is %v, gpp predict's %v", d, names[j], got[d][j], want)
				}
			}
			j++
		}
	}
	if j != len(names) || !slices.Contains(names, "proline.4") {
		t.Errorf("gpp predict has %d output columns, the Predictor %v", j, names)
	}

	byFile, err := m.LoadFit(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.FitOutputs(byFile.Q, 50, f.Seed)
	if err != nil || !slices.EqualFunc(again, got, slices.Equal) {
		t.Errorf("LoadFit of fit.json: %v, outputs differ from the directory's", err)
	}
}

// TestModelLoadFitLabels: a Fit's Predictor codes new data as the fit
// coded its own (fit.json's levels), not as the data m was compiled on:
// m compiled on counties of other names (the same J, so the same params)
// loads a gpp fit of the named counties, and its Predictor predicts a
// few of them, in another order, as gpp predict does from the fit; m's
// own Predictor, which codes by m's data, refuses those labels.
func TestModelLoadFitLabels(t *testing.T) {
	d := t.TempDir()
	path := writeFile(t, d, "m.gpp", labelsModel)
	named, _ := labelsData(t, d, labelsCounties)
	fit := fitInto(t, d, "fit", path, named, "--iter", "300", "--output-draws", "40")
	other, _ := labelsData(t, filepath.Join(d, "fit"), []string{"A", "B", "C", "D", "E"})
	m, err := model.Load(path, model.DataFiles(other))
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LoadFit(fit)
	if err != nil {
		t.Fatal(err)
	}
	newData := writeFile(t, d, "new.csv", "county\nBELTRAMI\nAITKIN\nBELTRAMI\n\"YELLOW MEDICINE\"\n")
	p, err := f.Predictor(model.DataFiles(newData))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.FitOutputs(f.Q, 40, f.Seed)
	if err != nil {
		t.Fatal(err)
	}
	names := p.OutputNames()
	samePrinted(t, "labels", names, got, predictedColumns(t, fit, path, newData, names))
	if _, err := m.Predictor(model.DataFiles(newData)); err == nil || !strings.Contains(err.Error(), `label "BELTRAMI" is not one the fit coded`) {
		t.Errorf("m's own Predictor on the fit's labels: %v, want its unseen-label error", err)
	}
}

// TestModelLoadFitRefuses: LoadFit refuses, with gpp predict's positioned
// error where gpp predict has one, a fit of another model (a param the
// fit lacks, at its declaration; a factor the model lacks, in fit.json),
// a truncated fit.json (at its end), a mixture of restarts (at
// "restarts"), a fit whose ELBO overflowed (at "elbo"), a directory
// without fit.json and a path that does not exist.
func TestModelLoadFitRefuses(t *testing.T) {
	position := regexp.MustCompile(`^[^ ]*:\d+:\d+: `)
	d := t.TempDir()
	fit := fitRegression(t, d, "--iter", "200", "--output-draws", "10")
	file := filepath.Join(fit, fitFileName)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// predictErr is gpp predict's positioned error from the fit at dir of
	// the model at modelPath (its first line that is no warning).
	predictErr := func(dir, modelPath string) string {
		t.Helper()
		code, _, stderr := runSafe(t, "predict", dir, modelPath, regressionData, "--quiet", "--out", filepath.Join(t.TempDir(), "p"))
		if code != exitError {
			t.Fatalf("gpp predict from %s: exit %d, want %d: %s", dir, code, exitError, stderr)
		}
		for _, line := range strings.Split(stderr, "\n") {
			if line = strings.TrimPrefix(line, "gpp: "); position.MatchString(line) && !strings.Contains(line, ": warning: ") {
				return line
			}
		}
		t.Fatalf("gpp predict from %s: no positioned error in\n%s", dir, stderr)
		return ""
	}
	// samePlace checks that LoadFit's error is at gpp predict's position,
	// and says what it says before the words of its use (prefix).
	samePlace := func(what string, err error, cli, prefix string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error; gpp predict's: %s", what, cli)
		}
		at := position.FindString(cli)
		if !strings.HasPrefix(err.Error(), at) || !strings.Contains(cli, prefix) || !strings.HasPrefix(err.Error(), cli[:strings.Index(cli, prefix)]) {
			t.Errorf("%s: LoadFit's error\n%v\nis not at gpp predict's place with its words up to %q\n%s", what, err, prefix, cli)
		}
	}
	load := func(modelPath, path string) error {
		t.Helper()
		m, err := model.Load(modelPath, model.DataFiles(regressionData))
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.LoadFit(path)
		return err
	}

	// another model: a param the fit lacks; a factor the model lacks
	src0, err := os.ReadFile(regressionModel)
	if err != nil {
		t.Fatal(err)
	}
	extra := writeFile(t, d, "extra.gpp", string(src0)+"param nu: positive ~ Exponential(1)\n")
	err = load(extra, fit)
	samePlace("a param the fit lacks", err, predictErr(fit, extra), ": predict draws")
	if err == nil || !strings.Contains(err.Error(), "extra.gpp:") || !strings.Contains(err.Error(), "param nu is not in the fit") {
		t.Errorf("a param the fit lacks: %v", err)
	}
	noSigma := regexp.MustCompile(`(?m)^param sigma.*$`).ReplaceAllString(string(src0), "const sigma = 1.0")
	if noSigma == string(src0) {
		t.Fatal("no param sigma to replace")
	}
	fewer := writeFile(t, d, "fewer.gpp", noSigma)
	err = load(fewer, fit)
	samePlace("a factor the model lacks", err, predictErr(fit, fewer), ": predict needs")
	if err == nil || !strings.Contains(err.Error(), fitFileName+":") || !strings.Contains(err.Error(), "the fit has param sigma") {
		t.Errorf("a factor the model lacks: %v", err)
	}

	// a truncated fit.json
	bad := filepath.Join(d, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, bad, fitFileName, string(src[:len(src)/2]))
	err = load(regressionModel, bad)
	samePlace("a truncated fit.json", err, predictErr(bad, regressionModel), "malformed")
	if err == nil || !strings.Contains(err.Error(), "malformed fit file: unexpected end of file") {
		t.Errorf("a truncated fit.json: %v", err)
	}

	// an overflowed ELBO
	inf := filepath.Join(d, "inf")
	if err := os.MkdirAll(inf, 0o755); err != nil {
		t.Fatal(err)
	}
	infSrc := regexp.MustCompile(`"elbo": [^,]*,`).ReplaceAllString(string(src), `"elbo": "-inf",`)
	writeFile(t, inf, fitFileName, infSrc)
	err = load(regressionModel, inf)
	samePlace("an overflowed ELBO", err, predictErr(inf, regressionModel), "predict: ")
	if err == nil || !strings.Contains(err.Error(), "LoadFit: this fit failed (its ELBO overflows)") {
		t.Errorf("an overflowed ELBO: %v", err)
	}

	// restarts
	mix := fitInto(t, d, "mix", regressionModel, regressionData, "--restarts", "2", "--iter", "100", "--output-draws", "10")
	err = load(regressionModel, mix)
	if err == nil || !regexp.MustCompile(`fit\.json:\d+:\d+: LoadFit: the fit is a mixture of 2 restarts`).MatchString(err.Error()) {
		t.Errorf("restarts: %v", err)
	}

	// no fit.json, no such path
	if err := load(regressionModel, d); err == nil || !strings.Contains(err.Error(), "has no fit.json") {
		t.Errorf("a directory without fit.json: %v", err)
	}
	if err := load(regressionModel, filepath.Join(d, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no such path: %v, want fs.ErrNotExist", err)
	}
}

// TestModelLoadFitSets: a Fit's Predictor inherits the fit's --set
// consts, as gpp predict does, not those m was compiled with: a const
// that shapes no param (so m without the Set loads the fit) and scales an
// output predicts gpp predict's outputs at the fit's value.
func TestModelLoadFitSets(t *testing.T) {
	d := t.TempDir()
	path := writeFile(t, d, "m.gpp", "data y: real[N]\nconst c = 1.0\nparam mu: real ~ Normal(0, 5)\ny ~ Normal(mu, 1)\noutput z = c * mu\n")
	train := writeFile(t, d, "y.csv", "y\n0.5\n1.5\n2.5\n")
	fit := fitInto(t, d, "fit", path, train, "--set", "c=3", "--iter", "200", "--output-draws", "20")
	m, err := model.Load(path, model.DataFiles(train))
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.LoadFit(fit)
	if err != nil {
		t.Fatal(err)
	}
	newData := writeFile(t, d, "new.csv", "y\n1\n")
	p, err := f.Predictor(model.DataFiles(newData))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.FitOutputs(f.Q, 20, f.Seed)
	if err != nil {
		t.Fatal(err)
	}
	names := p.OutputNames()
	samePrinted(t, "--set c=3", names, got, predictedColumns(t, fit, path, newData, names))
}
