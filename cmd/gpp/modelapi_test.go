package main

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/model"
)

// TestModelFitSettings checks that the model package's FitSettings are
// gpp fit's defaults: a fit with them gives the q that gpp fit's parsed
// settings give, bit for bit, with no flags and for each --family (--iter
// set in both for SGVB's, to keep it short).
func TestModelFitSettings(t *testing.T) {
	const path, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	for _, c := range []struct {
		family string
		method sgvb.Method
		iter   string
	}{{"gamma", sgvb.SGVB, ""}, {"gamma", sgvb.SGVB, "300"}, {"map", sgvb.MAP, ""}, {"laplace", sgvb.Laplace, ""}} {
		args := []string{path, data, "--family", c.family}
		if c.iter != "" {
			args = append(args, "--iter", c.iter)
		}
		cfg, _, ok := parseFitArgs(args, io.Discard, io.Discard)
		if !ok {
			t.Fatalf("gpp fit %v: not parsed", args)
		}
		l, err := pipeline.Load(path, []string{data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), cfg.settings)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(path, model.DataFiles(data))
		if err != nil {
			t.Fatal(err)
		}
		s := model.FitSettings()
		s.Method = c.method
		if c.iter != "" {
			s.MaxIter = 300
		}
		got, err := m.Fit(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Mean(), want.Mean()) || !slices.Equal(got.SD(), want.SD()) || got.ELBO != want.ELBO || got.Iterations != want.Iterations {
			t.Errorf("--family %s: model.Fit mean %v sd %v ELBO %v (%d iterations), gpp fit's %v %v %v (%d)", c.family,
				got.Mean(), got.SD(), got.ELBO, got.Iterations, want.Mean(), want.SD(), want.ELBO, want.Iterations)
		}
	}
}

// TestModelSampleSettings checks that the model package's SampleSettings
// are gpp sample's defaults: field by field those gpp sample parses with no
// flags (Workers, which Sample sets as gpp sample does and the draws do not
// depend on, aside), and the chains they give are those of gpp sample's
// parsed settings, bit for bit (--warmup and --draws set in both, to keep
// it short).
func TestModelSampleSettings(t *testing.T) {
	const path, data = "../../examples/regression.gpp", "../../examples/wine_std.csv"
	def, _, ok := parseSampleArgs([]string{path, data}, io.Discard, io.Discard)
	if !ok {
		t.Fatal("gpp sample: not parsed")
	}
	cli, api := def.nuts, model.SampleSettings()
	if api.Workers != 0 {
		t.Errorf("SampleSettings().Workers = %d, want 0 (Sample's min(NumCPU, Chains), gpp sample's)", api.Workers)
	}
	cli.Workers = 0
	if !reflect.DeepEqual(api, cli) {
		t.Errorf("SampleSettings() = %+v\ngpp sample's defaults %+v", api, cli)
	}
	sc, _, ok := parseSampleArgs([]string{path, data, "--warmup", "40", "--draws", "10"}, io.Discard, io.Discard)
	if !ok {
		t.Fatal("gpp sample: not parsed")
	}
	m, err := model.Load(path, model.DataFiles(data))
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Sample(context.Background(), sc.nuts)
	if err != nil {
		t.Fatal(err)
	}
	s := model.SampleSettings()
	s.Warmup, s.Draws = 40, 10
	got, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chains) != len(want.Chains) {
		t.Fatalf("%d chains, gpp sample's %d", len(got.Chains), len(want.Chains))
	}
	for c := range got.Chains {
		if !slices.Equal(got.Chains[c].Draws, want.Chains[c].Draws) {
			t.Errorf("chain %d differs from gpp sample's", c+1)
		}
	}
}

// TestModelDrawsMatchCLI checks the model package's FitDraws and
// SampleDraws against gpp fit's and gpp sample's draws: bit for bit
// against the columns those commands compute (makeDraws, makeSampleDraws),
// and against draws.csv as the commands write it (its param header is
// ParamNames, its cells the values printed), for a model with a simplex
// param and one with a matrix param and a cholesky_factor_corr.
func TestModelDrawsMatchCLI(t *testing.T) {
	const ex = "../../examples/"
	const n = 30
	for _, c := range []struct {
		model string
		data  []string
	}{
		{"mixture.gpp", []string{ex + "wine_std.csv"}},
		{"varying.gpp", []string{ex + "varying.csv"}},
	} {
		t.Run(c.model, func(t *testing.T) {
			path := ex + c.model
			m, err := model.Load(path, model.DataFiles(c.data...))
			if err != nil {
				t.Fatal(err)
			}
			l, err := pipeline.Load(path, c.data, nil)
			if err != nil {
				t.Fatal(err)
			}

			// gpp fit
			s := model.FitSettings()
			s.MaxIter = 300
			r, err := m.Fit(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.FitDraws(r, n, s.Seed)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := makeDraws(r, nil, l.Model, n, s.Seed)
			if err != nil {
				t.Fatal(err)
			}
			sameColumns(t, "FitDraws", got, ds.cols, m.NumParams())
			out := t.TempDir()
			args := append(append([]string{"fit", path}, c.data...), "--iter", "300", "--output-draws", strconv.Itoa(n), "--quiet", "--out", out)
			if code, _, stderr := runSafe(t, args...); code != 0 {
				t.Fatalf("gpp fit: exit %d\n%s", code, stderr)
			}
			_, header, rows := readStanCSV(t, filepath.Join(out, drawsFile))
			sameCSV(t, "FitDraws", m.ParamNames(), got, header, rows[1:]) // after the mean row

			// gpp sample
			sc := model.SampleSettings()
			sc.Warmup, sc.Draws = 40, 10
			res, err := m.Sample(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			got, err = m.SampleDraws(res)
			if err != nil {
				t.Fatal(err)
			}
			u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
			if err != nil {
				t.Fatal(err)
			}
			sd, err := makeSampleDraws(u, l.Model, res, sc.Seed)
			if err != nil {
				t.Fatal(err)
			}
			sameColumns(t, "SampleDraws", got, sd.ds.cols, m.NumParams())
			out = t.TempDir()
			args = append(append([]string{"sample", path}, c.data...), "--warmup", "40", "--draws", "10", "--quiet", "--out", out)
			if code, _, stderr := runSafe(t, args...); code != 0 {
				t.Fatalf("gpp sample: exit %d\n%s", code, stderr)
			}
			_, header, rows = readStanCSV(t, filepath.Join(out, drawsFile))
			sameCSV(t, "SampleDraws", m.ParamNames(), got, header, rows)
		})
	}
}

// sameColumns checks that rows[d][j] is cols[j][d] bit for bit for the
// first np columns (the params').
func sameColumns(t *testing.T, what string, rows, cols [][]float64, np int) {
	t.Helper()
	if len(cols) < np {
		t.Fatalf("%s: the command has %d columns, fewer than the %d params' values", what, len(cols), np)
	}
	for d, row := range rows {
		if len(row) != np || len(cols[0]) != len(rows) {
			t.Fatalf("%s: %d rows of %d values; the command's %d rows of %d params' values", what, len(rows), len(row), len(cols[0]), np)
		}
		for j, v := range row {
			if math.Float64bits(v) != math.Float64bits(cols[j][d]) {
				t.Fatalf("%s: row %d value %d is %v, the command's %v", what, d, j, v, cols[j][d])
			}
		}
	}
}

// sameCSV checks that draws.csv's header names the params' values names
// in one run of columns and that rows hold the values of got there, as
// draws.csv prints them.
func sameCSV(t *testing.T, what string, names []string, got [][]float64, header []string, rows [][]float64) {
	t.Helper()
	at := slices.Index(header, names[0])
	if at < 0 || at+len(names) > len(header) || !slices.Equal(header[at:at+len(names)], names) {
		t.Fatalf("%s: draws.csv's header %v does not hold ParamNames %v", what, header, names)
	}
	if len(rows) != len(got) {
		t.Fatalf("%s: draws.csv has %d draws, the API %d", what, len(rows), len(got))
	}
	for d, row := range got {
		for j, v := range row {
			printed, err := strconv.ParseFloat(formatNum(v), 64)
			if err != nil || printed != rows[d][at+j] {
				t.Fatalf("%s: draw %d %s is %v (printed %s), draws.csv's %v", what, d+1, names[j], v, formatNum(v), rows[d][at+j])
			}
		}
	}
}

// TestModelNamesExamples checks, for every bundled example, that the model
// package's ParamNames and OutputNames are the columns of draws.csv after
// lp__, log_p__ and log_g__, as gpp fit writes them (from q's factors) and
// as gpp fit --prior writes them (from the model's latents, as gpp sample
// does). The fits are two iterations long: only the header counts here.
func TestModelNamesExamples(t *testing.T) {
	const ex = "../../examples/"
	const pdb = "../../../shared/data/posteriordb/"
	cases := []struct {
		model string
		data  []string
		set   []string // NAME=VALUE
	}{
		{"gpfa.gpp", []string{ex + "wine_std.csv"}, []string{"K=6"}},
		{"gpfa_diag.gpp", []string{ex + "wine_std.csv"}, []string{"K=6"}},
		{"fa.gpp", []string{ex + "wine_std.csv"}, nil},
		{"regression.gpp", []string{ex + "wine_std.csv"}, nil},
		{"cultivar.gpp", []string{ex + "wine_std.csv", "cultivar=" + ex + "wine_cultivar.csv"}, nil},
		{"cultivar_small.gpp", []string{ex + "wine_std.csv", "cultivar=" + ex + "wine_cultivar.csv"}, nil},
		{"ordinal.gpp", []string{ex + "ordinal.csv"}, nil},
		{"varying.gpp", []string{ex + "varying.csv"}, nil},
		{"seeds.gpp", []string{ex + "seeds.csv"}, nil},
		{"gp.gpp", []string{ex + "gp.csv"}, nil},
		{"sv.gpp", []string{ex + "sv.csv"}, nil},
		{"survival.gpp", []string{ex + "survival.csv"}, nil},
		{"sir.gpp", []string{ex + "sir.csv"}, nil},
		{"mixture.gpp", []string{ex + "wine_std.csv"}, nil},
		{"epm.gpp", []string{"links=" + ex + "football_train.csv", "unknown=" + ex + "football_heldout.csv"}, []string{"N=115"}},
		{"pmf.gpp", []string{ex + "digits300.csv", "train=" + ex + "digits300_train.csv"}, nil},
		{"posteriordb/eight_schools_noncentered.gpp", []string{pdb + "eight_schools-eight_schools_noncentered/data.json"}, nil},
		{"posteriordb/kidiq_momiq.gpp", []string{pdb + "kidiq-kidscore_momiq/data.json"}, nil},
	}
	all, _ := filepath.Glob(ex + "*.gpp")
	more, _ := filepath.Glob(ex + "posteriordb/*.gpp")
	for _, path := range append(all, more...) {
		if !slices.ContainsFunc(cases, func(c struct {
			model string
			data  []string
			set   []string
		}) bool {
			return ex+c.model == path
		}) {
			t.Errorf("%s: no case here: add the example with its data", path)
		}
	}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			path := ex + c.model
			if strings.HasPrefix(c.data[0], pdb) {
				if _, err := os.Stat(c.data[0]); err != nil {
					t.Skipf("no posteriordb data: %v", err)
				}
			}
			opts := []model.Option{model.DataFiles(c.data...)}
			args := append([]string{path}, c.data...)
			for _, s := range c.set {
				name, value, _ := strings.Cut(s, "=")
				opts = append(opts, model.Set(name, value))
				args = append(args, "--set", s)
			}
			m, err := model.Load(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			names := append(m.ParamNames(), m.OutputNames()...)
			for _, c := range []struct {
				args  []string
				first []string // the columns before the params'
			}{
				{[]string{"fit", "--iter", "2", "--output-draws", "2"}, []string{"lp__", "log_p__", "log_g__"}},
				{[]string{"sample", "--chains", "1", "--warmup", "3", "--draws", "2", "--max-depth", "3"},
					[]string{"chain__", "draw__", "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"}},
			} {
				out := t.TempDir()
				run := append(append(c.args, args...), "--quiet", "--out", out)
				if code, _, stderr := runSafe(t, run...); code != 0 {
					t.Fatalf("gpp %s: exit %d\n%s", strings.Join(run, " "), code, stderr)
				}
				_, header, _ := readStanCSV(t, filepath.Join(out, drawsFile))
				if want := append(c.first, names...); !slices.Equal(header, want) {
					t.Errorf("gpp %s: draws.csv's header\n%v\nthe model package's names\n%v", c.args[0], header, want)
				}
			}
		})
	}
}

// TestModelGraphMatchesCLI: the Go API's Model.Graph writes the DOT that
// gpp graph prints for the same model and data, byte for byte, with the
// data's missing counts.
func TestModelGraphMatchesCLI(t *testing.T) {
	for _, c := range [][]string{
		{"../../examples/regression.gpp", "../../examples/wine_std.csv"},
		{"../../examples/gpfa.gpp", "../../examples/wine_std.csv"},
		{"testdata/fit_missing.gpp", "testdata/fit_missing.csv"},
	} {
		code, stdout, stderr := runSafe(t, append([]string{"graph"}, c...)...)
		if code != exitOK {
			t.Fatalf("gpp graph %v: exit %d: %s", c, code, stderr)
		}
		m, err := model.Load(c[0], model.DataFiles(c[1:]...))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := m.Graph().WriteDOT(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != stdout {
			t.Errorf("%v: Model.Graph's DOT\n%s\ngpp graph's\n%s", c, b.String(), stdout)
		}
	}
}

// TestModelPredictor checks that Model.Predictor and FitOutputs predict
// as gpp predict does: on new data that leave out the observed proline
// (testdata/predict_new.csv), the Predictor's OutputNames are the output
// columns of gpp predict's draws (its outputs, then the drawn proline),
// and FitOutputs of the in-process fit gives, draw by draw and bit for
// bit, the columns of gpp predict's code path (the fit read from gpp
// fit's fit.json, the model loaded by pipeline.LoadPredict with the fit's
// codings, makeDrawsAt) at two seeds; a Predictor refuses the log density.
func TestModelPredictor(t *testing.T) {
	const newData = "testdata/predict_new.csv"
	fit := fitRegression(t, t.TempDir())
	path := filepath.Join(fit, fitFileName)
	rf, pm := predictQ(t, path, regressionModel, newData)

	m, err := model.Load(regressionModel, model.DataFiles(regressionData))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Fit(context.Background(), model.FitSettings())
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predictor(model.DataFiles(newData))
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 7} {
		const n = 40
		ds, err := makeDrawsAt(rf, nil, pm, n, seed, nil, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var cols []int
		for _, v := range ds.vars {
			for j, k := range v.elems {
				if v.output {
					names = append(names, compile.CSVName(v.name, v.shape, k))
					cols = append(cols, v.first+j)
				}
			}
		}
		if got := p.OutputNames(); !slices.Equal(got, names) || !slices.Contains(names, "proline.4") {
			t.Fatalf("OutputNames %v, gpp predict's output columns %v", got, names)
		}
		got, err := p.FitOutputs(r, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("seed %d: %d rows, want %d", seed, len(got), n)
		}
		for d := range got {
			for j, c := range cols {
				if math.Float64bits(got[d][j]) != math.Float64bits(ds.cols[c][d]) {
					t.Fatalf("seed %d draw %d: %s is %v, gpp predict's %v", seed, d, names[j], got[d][j], ds.cols[c][d])
				}
			}
		}
	}
	if _, err := p.LogDensity(make([]float64, p.Dim())); err == nil || !strings.Contains(err.Error(), "Predictor") {
		t.Errorf("a Predictor's LogDensity: %v, want an error", err)
	}
	if _, err := p.Fit(context.Background(), model.FitSettings()); err == nil {
		t.Error("a Predictor's Fit: no error")
	}
}

// TestModelPredictorBinding checks that a Predictor binds new data as gpp
// predict binds them from the fit: testdata/predcols/m.gpp fitted with
// X=train.csv:-y (columns a, b, c) predicts the same draws on new.csv and
// on new_rev.csv (the columns c, a, b), with gpp predict's note; a renamed
// column is gpp predict's positioned error; and examples/varying.gpp
// fitted with Set J=41 predicts without Set, the const inherited as gpp
// predict inherits the fit's --set.
func TestModelPredictorBinding(t *testing.T) {
	train := filepath.Join(predColsDir, "train.csv")
	m, err := model.Load(filepath.Join(predColsDir, "m.gpp"), model.DataFiles("y="+train, "X="+train+":-y"))
	if err != nil {
		t.Fatal(err)
	}
	s := model.FitSettings()
	s.MaxIter = 200
	r, err := m.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	predict := func(file string) (*model.Model, [][]float64) {
		t.Helper()
		p, err := m.Predictor(model.DataFiles("X=" + filepath.Join(predColsDir, file)))
		if err != nil {
			t.Fatal(err)
		}
		outs, err := p.FitOutputs(r, 20, 3)
		if err != nil {
			t.Fatal(err)
		}
		return p, outs
	}
	_, want := predict("new.csv")
	p, got := predict("new_rev.csv")
	if len(want) != 20 || len(want[0]) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("predictions on new_rev.csv differ from those on new.csv (first rows %v, %v)", got[0], want[0])
	}
	if note := "bound by name in the fit's order (a, b, c)"; !slices.ContainsFunc(p.Notes(), func(s string) bool { return strings.Contains(s, note) }) {
		t.Errorf("notes %q lack %q", p.Notes(), note)
	}
	_, err = m.Predictor(model.DataFiles("X=" + filepath.Join(predColsDir, "new_renamed.csv")))
	if want := "new_renamed.csv:1:5: `X` was fitted on the columns a, b, c, in that order"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("renamed column: %v, want %q", err, want)
	}

	v, err := model.Load("../../examples/varying.gpp", model.DataFiles("../../examples/varying.csv"), model.Set("J", "41"))
	if err != nil {
		t.Fatal(err)
	}
	newData := writeFile(t, t.TempDir(), "new.csv", "g,x\n0,0.5\n29,-1\n")
	if _, err := v.Predictor(model.DataFiles(newData)); err != nil {
		t.Errorf("Predictor of the J=41 model without Set: %v", err)
	}
}

// TestModelPredictorLabels checks that a Predictor codes a column of
// labels as the fitted model's data coded it, as gpp predict codes it from
// fit.json (TestFitLabels): a few counties by name, in another order,
// predict bit for bit what their codes predict from the fit of the codes,
// and a county the fit did not see is gpp predict's positioned error.
func TestModelPredictorLabels(t *testing.T) {
	d := t.TempDir()
	path := writeFile(t, d, "m.gpp", labelsModel)
	named, coded := labelsData(t, d, labelsCounties)
	s := model.FitSettings()
	s.MaxIter = 300
	predict := func(fitData, newData string) [][]float64 {
		t.Helper()
		m, err := model.Load(path, model.DataFiles(fitData))
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Fit(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predictor(model.DataFiles(newData))
		if err != nil {
			t.Fatal(err)
		}
		outs, err := p.FitOutputs(r, 30, 5)
		if err != nil {
			t.Fatal(err)
		}
		return outs
	}
	got := predict(named, writeFile(t, d, "new.csv", "county\nBELTRAMI\nAITKIN\nBELTRAMI\n\"YELLOW MEDICINE\"\n"))
	want := predict(coded, writeFile(t, d, "new_codes.csv", "county\n3\n0\n3\n4\n"))
	if len(got) != 30 || len(got[0]) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("predictions from the names differ from the codes' (first rows %v, %v)", got[0], want[0])
	}
	m, err := model.Load(path, model.DataFiles(named))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Predictor(model.DataFiles(writeFile(t, d, "cass.csv", "county\nANOKA\nCASS\n")))
	if want := `cass.csv:3:1: column "county": label "CASS" is not one the fit coded ` + "`county`"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unseen label: %v, want %q", err, want)
	}
}

// TestModelPredictorSample checks SampleOutputs of a Predictor against
// gpp predict from a sample: gpp sample of examples/regression.gpp (2
// chains, 60 warm-up iterations, 15 draws) and the same run in-process,
// then the outputs on testdata/predict_new.csv (proline left out, so
// drawn) by gpp predict's code path (coords.csv read, the model loaded
// by pipeline.LoadPredict, evalSampleCoords) and by SampleOutputs, bit
// for bit at two seeds.
func TestModelPredictorSample(t *testing.T) {
	const newData = "testdata/predict_new.csv"
	out := filepath.Join(t.TempDir(), "sample")
	if code, _, stderr := runSafe(t, "sample", regressionModel, regressionData, "--chains", "2", "--warmup", "60", "--draws", "15", "--quiet", "--out", out); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	sc, err := readSampleCoords(filepath.Join(out, coordsFile))
	if err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.LoadPredict(regressionModel, []string{newData}, nil, compile.PredictOptions{}, fitfile.DataLevels(sc.levels), sc.sizes, sc.columns)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(regressionModel, model.DataFiles(regressionData))
	if err != nil {
		t.Fatal(err)
	}
	s := model.SampleSettings()
	s.Chains, s.Warmup, s.Draws = 2, 60, 15
	res, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predictor(model.DataFiles(newData))
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 9} {
		sd, err := evalSampleCoords(sc, l.Model, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.SampleOutputs(res, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 30 {
			t.Fatalf("%d rows, want 30", len(got))
		}
		j := 0
		for _, v := range sd.ds.vars {
			if !v.output {
				continue
			}
			for e := range v.elems {
				for d := range got {
					if want := sd.ds.cols[v.first+e][d]; math.Float64bits(got[d][j]) != math.Float64bits(want) {
						t.Fatalf("seed %d row %d: %s is %v, gpp predict's %v", seed, d, p.OutputNames()[j], got[d][j], want)
					}
				}
				j++
			}
		}
		if j != len(p.OutputNames()) || j == 0 {
			t.Errorf("gpp predict has %d output columns, the Predictor %d", j, len(p.OutputNames()))
		}
	}
}
